"""The panels: callbacks answer by name, every ID is in the one registry, the page's callbacks
as a browser would call them."""

from __future__ import annotations

import pytest
from dash import no_update

from dashboard import ids, view
from dashboard.figures import rack as rack_figure
from dashboard.panels import cards, common, compare, fleet, scenario
from dashboard.web import results
from model import evaluate, parse_query


class Ctx:
    def __init__(self, triggered_id: str | None) -> None:
        self.triggered_id = triggered_id


class TestChanges:
    def test_names_what_changed_and_leaves_the_rest(self):
        out = common.changes(("a", "b", "c"), b=2)
        assert list(out) == ["a", "b", "c"]
        assert out["b"] == 2 and out["a"] is no_update and out["c"] is no_update

    def test_refuses_an_output_that_does_not_exist(self):
        with pytest.raises(KeyError, match="typo"):
            common.changes(("a",), typo=1)


def on_change(monkeypatch, trig: str | None, search: str = "", **kw) -> dict:
    monkeypatch.setattr(scenario, "ctx", Ctx(trig))
    args = dict.fromkeys(
        ("click", "l2_click", "fail_clicks", "repair_clicks", "preset", "fabric", "workload")
        + ("features", "update", "typed", "mode", "rack")
    )
    args.update(kw)
    out = scenario.on_change(search, **args)
    assert tuple(out) == scenario.CHANGE_OUTPUTS
    return out


class TestScenario:
    def test_a_link_opened_sets_the_controls_and_keeps_the_url(self, monkeypatch):
        out = on_change(monkeypatch, ids.URL, "?fabric=gb200-nvl72&update=st3")
        assert out["search"] is no_update and out["typed"] is no_update
        assert out["fabric"] == "gb200-nvl72" and out["update"] == "st3"
        assert out["message"] == "" and out["preset"] is None

    def test_a_typed_id_fails_it_and_clears_the_box(self, monkeypatch):
        out = on_change(monkeypatch, ids.FAIL_BTN, "?fail=st3", typed=" gpu07-st1.sw0 ")
        assert out["search"] == "?fail=st3,gpu07-st1.sw0"
        assert out["message"] == "gpu07-st1.sw0 failed" and out["typed"] == ""

    def test_a_bad_id_is_named_and_the_url_kept(self, monkeypatch):
        out = on_change(monkeypatch, ids.FAIL_BTN, "?fail=st3", typed="st10")
        assert out["search"] is no_update and out["fabric"] is no_update
        assert "st10" in out["message"] and out["typed"] == ""

    def test_a_click_on_a_cable_toggles_it(self, monkeypatch):
        table = rack_figure.point_ids("vr-nvl72")[rack_figure.TRACES["cable_hits"]]
        n = table.index("gpu07-st3.sw2.c0")
        click = {"points": [{"curveNumber": rack_figure.TRACES["cable_hits"], "pointNumber": n}]}
        out = on_change(monkeypatch, ids.RACK, "", click=click, mode="fail")
        assert out["search"] == "?fail=gpu07-st3.sw2.c0"
        again = on_change(monkeypatch, ids.RACK, out["search"], click=click, mode="fail")
        assert again["search"] == "" and again["message"] == "gpu07-st3.sw2.c0 repaired"

    def test_a_click_on_nothing_changes_nothing(self, monkeypatch):
        out = on_change(monkeypatch, ids.RACK, "?fail=st3", click={"points": [{}]})
        assert all(v is no_update for v in out.values())

    def test_a_cable_click_selects_its_series_in_the_fragment(self, monkeypatch):
        monkeypatch.setattr(scenario, "ctx", Ctx(ids.RACK))
        table = rack_figure.point_ids("vr-nvl72")[rack_figure.TRACES["cable_hits"]]
        click = {
            "points": [
                {
                    "curveNumber": rack_figure.TRACES["cable_hits"],
                    "pointNumber": table.index("gpu01-st2.sw3.c1"),
                }
            ]
        }
        v = dict(view.DEFAULTS)
        out = scenario.on_view("", click, "", v["counter"], v["link"], v["compare"], "fail", "r01")
        assert tuple(out) == scenario.VIEW_OUTPUTS
        assert out["link"] == "gpu01-st2.sw3.c1" and out["hash"] == "#link=gpu01-st2.sw3.c1"
        tray = rack_figure.point_ids("vr-nvl72")[rack_figure.TRACES["trays"]].index("st3")
        click = {"points": [{"curveNumber": rack_figure.TRACES["trays"], "pointNumber": tray}]}
        out = scenario.on_view("", click, "", v["counter"], v["link"], v["compare"], "fail", "r01")
        assert all(x is no_update for x in out.values())  # a tray has no series

    def test_the_fragment_sets_the_view_and_names_what_it_dropped(self, monkeypatch):
        monkeypatch.setattr(scenario, "ctx", Ctx(ids.URL))
        out = scenario.on_view("#counter=state&bogus=1", None, "", None, None, None, None, None)
        assert out["counter"] == "state" and out["hash"] is no_update
        assert "bogus" in out["message"]


class TestCards:
    def test_summary_renders_counts_and_drops_bad_tokens(self):
        out = cards.summary("?fail=st3,st10")
        assert tuple(out) == cards.OUTPUTS
        assert out["ready"] == "?fail=st3,st10"
        assert "3.2 TB/s" in str(out["cards"]) + str(out["counts"])
        assert "st10" in str(out["messages"]) and "fail=st3" in out["scenario"]
        assert evaluate(parse_query("fail=st3").scenario)["events"][0] in str(out["events"])
        assert len(out["questions"]) == 4 and "NCCL" in str(out["questions"])

    def test_a_domain_says_what_it_does_not_model(self):
        out = cards.summary("?fabric=vr-nvl576&fail=r02.st3")
        assert "r02.st3 failed" in str(out["events"])
        assert "single racks" in str(out["questions"])


class TestCompare:
    def test_the_frame_has_a_row_a_figure_and_a_column_a_scenario(self):
        a, b = (results.result(parse_query(q).scenario) for q in ("fail=st3", "fabric=eth-x72"))
        df = compare.frame(a, b)
        assert list(df.columns) == [a["scenario"]["key"], b["scenario"]["key"]]
        assert list(df.index) == [name for name, _ in compare.ROWS]
        assert df.loc["worst GPU, TB/s", a["scenario"]["key"]] == "3.2"
        assert df.loc["fabric", b["scenario"]["key"]] == b["fabric"]["name"]
        table = compare.compare("?fail=st3", "fabric=eth-x72")["table"]
        rows = table.children
        assert len(rows) == 1 + len(compare.ROWS)
        assert [c.children for c in rows[1].children] == [
            "fabric",
            a["fabric"]["name"],
            df.iloc[0, 1],
        ]

    def test_a_bad_second_scenario_is_named(self):
        out = compare.compare("?fail=st3", "fail=st99")
        assert "st99" in str(out["table"]) and "msg error" in str(out["table"])


class TestFleet:
    def test_results_frame_names_each_configuration_and_its_largest_loss(self):
        r = {
            "fraction": 0.98765,
            "per_rack_fraction": {"p5": 0.97, "p50": 0.98, "p95": 0.99},
            "badput_hours_per_rack_year": {"repair_wait": 70.4, "lost_work": 3.0},
        }
        df = fleet.frame([("vr-nvl72, defaults", r), ("gb200-nvl72", r)])
        assert df.index.name == "configuration"
        assert list(df.index) == ["vr-nvl72, defaults", "gb200-nvl72"]
        assert df.loc["gb200-nvl72", "goodput"] == "98.765%"
        assert df.loc["gb200-nvl72", "largest loss, h per rack-year"] == "repair wait: 70"


def test_every_callback_declares_its_outputs_by_name():
    """A dict of outputs, never a positional tuple: Dash names such a callback '..a.b..'."""
    from app import app

    ours = [n for n in app.callback_map if not n.endswith(".id")]  # Dash's own: Cancel's
    assert len(ours) >= 13
    for name in ours:
        assert name.startswith(".."), name


def test_every_callback_id_is_in_the_registry_and_every_layout_id_once():
    from app import app
    from dashboard.layout import layout

    registry = {v for k, v in vars(ids).items() if k.isupper()}
    seen: list[str] = []

    def walk(node) -> None:
        cid = getattr(node, "id", None)
        if cid is not None:
            seen.append(cid)
        kids = getattr(node, "children", None)
        for k in kids if isinstance(kids, list | tuple) else [kids]:
            if hasattr(k, "to_plotly_json"):
                walk(k)

    walk(layout())
    assert len(seen) == len(set(seen)), "an ID is in the layout twice"
    assert set(seen) <= registry, set(seen) - registry
    for cb in app.callback_map.values():
        for dep in cb["inputs"] + cb.get("state", []):
            assert dep["id"] in registry, dep
        for out in cb["output"] if isinstance(cb["output"], list) else [cb["output"]]:
            assert out.component_id in registry, out


def test_the_page_reads_ids_through_model_ids_never_by_slicing():
    """No string surgery on component IDs in the page's code: model.ids parses them."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "dashboard"
    files = [
        *(root / "panels").glob("*.py"),
        *(root / "figures").rglob("*.py"),
        *(root / n for n in ("state.py", "view.py", "layout.py", "warm.py")),
    ]
    slicing = re.compile(
        r'count\("[-.]"\)|split\("\.c"\)|\.partition\("\."\)|split\("\."\)\[0\]\[|\[2:\]\)'
    )
    found = [
        f"{p.name}:{i}: {line.strip()}"
        for p in files
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if slicing.search(line)
    ]
    assert len(files) > 20 and not found, found
