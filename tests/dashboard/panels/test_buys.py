"""The goodput panel's 'what each feature buys' (issue 14, item 8): its settings refused by
name, the side-by-side at 1 rack, 2,000 racks with spares and the job's own size, the best
repair policy and its trade, and the table as CSV."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from dashboard.panels import buys, buys_answer
from model import words as W
from model.errors import ScenarioError
from model.query import parse_query
from model.reliability import compare

VR = parse_query("").scenario
OK = {
    "racks": "16",
    "spares": ["spares"],
    "repair": "scenario",
    "onsite": [],
    "ckpt": "",
    "price": "8.5",
}


def _text(node) -> str:
    if isinstance(node, str):
        return node
    kids = getattr(node, "children", None)
    if kids is None:
        return ""
    return " ".join(_text(k) for k in (kids if isinstance(kids, list | tuple) else [kids]))


def test_settings_as_the_model_takes_them():
    st = buys.settings(VR, "1,000", ["spares"], "window-30", ["onsite"], "30", "$2.5")
    assert st == {
        "job_racks": 1000,
        "spares": True,
        "repair": "window-30,onsite",
        "checkpoint_interval_s": 1800.0,
        "price": 2.5,
    }
    # the scenario's own policy, and Daly's optimum when the interval is blank
    s = parse_query("repair=bw-95").scenario
    st = buys.settings(s, "1", [], "scenario", [], "", "0")
    assert st["repair"] == "bw-95" and st["checkpoint_interval_s"] is None and not st["spares"]


@pytest.mark.parametrize(
    ("change", "token"),
    [
        ({"racks": "2.5"}, "job racks"),
        ({"racks": "0"}, "job racks"),
        ({"racks": "many"}, "job racks"),
        ({"price": "-1"}, "price"),
        ({"price": None}, "price"),
        ({"ckpt": "0"}, "checkpoint interval"),
        ({"ckpt": "nan"}, "checkpoint interval"),
        ({"repair": "weekly"}, "repair policy"),
    ],
)
def test_bad_settings_are_refused_by_name(change, token):
    args = {**OK, **change}
    with pytest.raises(ScenarioError) as e:
        buys.settings(VR, **args)
    assert e.value.token == token
    # and the panel says so instead of failing
    out = buys.table("", **args)
    assert "Not computed" in _text(out["table"]) and token.split()[0] in _text(out["table"])


def test_the_table_and_the_best_policy():
    out = buys.table("?workload=train", **OK)
    text = _text(out["table"])
    for label in ("vr-nvl72, reroute off", "gb200-nvl72, defaults", "eth-x72, defaults"):
        assert label in text
    assert "$8.5 per GPU-hour" in text and "SemiAnalysis" in text
    policy = _text(out["policy"])
    assert "Best repair policy" in policy and "repair=" in policy and "16 racks" in policy
    assert out["trade"]["layout"]["meta"]["chart"] == "policy"
    assert "rack-down visits a year" in policy  # the trade, every policy tried


def test_the_frame_is_the_models_numbers():
    st = buys.settings(VR, **OK)
    values = buys._values(VR, st)
    df = buys_answer.frame(values)
    assert df.index[0] == "vr-nvl72, all seven features" and len(df) == 10
    scales = [(x["job_racks"], x["spares"]) for x in values["scales"]]
    assert scales == [(1, False), (2000, True), (16, True)]
    reroute = next(r for r in values["rows"] if r["key"] == "reroute")
    assert df.loc["vr-nvl72, reroute off", "16 racks + spares: value, pp"] == (
        f"{reroute['at'][2]['value_pp']:+.3f}"
    )


def test_csv_is_the_table_one_row_a_configuration_and_scale():
    out = buys.csv(1, "", **OK)["download"]
    assert out["filename"].endswith(".csv")
    df = pd.read_csv(io.StringIO(out["content"]))
    assert len(df) == 10 * 3 and "GPU-hours a year" in df.columns and "why" in df.columns
    st = buys.settings(VR, **OK)
    assert (
        df.to_dict("records")[0]["configuration"]
        == compare.records(buys._values(VR, st))[0]["configuration"]
    )


def test_a_multi_rack_domain_gets_its_own_seven_features():
    """Issue 16: on a domain the table is the domain's features (compare.feature_values with
    its fabric), its rows priced per domain, and the best policy is the domain's."""
    out = buys.table("?fabric=vr-nvl576", **OK)
    assert "vr-nvl576 with all seven features" in str(out["table"])
    assert "Not modelled" not in str(out["table"]) and out["trade"]["data"]


def test_the_buyer_reads_a_short_table_ranked_by_money_with_the_rest_on_demand():
    """Issue 28 (6): the table was 13 columns of wrapped headers. The first table is the
    few columns a buyer reads, at the panel's own scale, ranked by money a year; every
    column at every scale is one click away (html.Details)."""
    st = buys.settings(VR, **OK)
    values = buys._values(VR, st)
    k = buys_answer.own_scale(values, st)
    assert (values["scales"][k]["job_racks"], values["scales"][k]["spares"]) == (16, True)
    df = buys_answer.ranked(values, k)
    assert len(df.columns) + 1 <= 6 and list(df.columns) == list(buys_answer.RANKED_COLUMNS)
    assert len(df) == len(values["rows"]) - 1  # every row but the reference
    by_money = sorted(values["rows"][1:], key=lambda r: -r["at"][k]["money_per_year"])
    assert list(df.index) == [buys_answer._short(r) for r in by_money]  # ranked by money a year
    assert list(df["money a year"]) == [W.money(r["at"][k]["money_per_year"]) for r in by_money]
    for cell in df["money a year"]:  # '$9.65 M', '$108 k', '$11': never '$9,652,292'
        assert re.fullmatch(
            r"-?\$(\d{1,3}(,\d{3})?|\d{1,2}\.\d+|0\.0*\d{1,3}|\d+(\.\d+)? (k|M|bn))", cell
        ), cell
    out = buys.table("", **OK)["table"]
    text = str(out)
    assert "compare-table ranked" in text and "Details" in text
    # the full table is still there, its money for people too
    full = buys_answer.frame(values)
    assert full.shape[1] == 4 * len(values["scales"])
    assert all(v.startswith(("$", "-$")) for v in full.filter(like="$ a year").to_numpy().ravel())


def test_why_the_job_keeps_its_goodput_is_said_beside_the_table():
    out = buys.table("", **(OK | {"racks": "2000"}))
    text = _text(out["table"])
    st = buys.settings(VR, **(OK | {"racks": "2000"}))
    kept = buys._values(VR, st)["scales"][1]["kept"]
    assert kept["sentence"][1:] in text and "stops overlap" in text
    assert f"keeps {kept['fraction']:.1%}" in text
