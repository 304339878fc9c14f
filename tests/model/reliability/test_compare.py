"""What each feature buys (issue 14, Must show): the side-by-side's differences, priced, with
a sentence each, and the Markdown docs/GOODPUT.md carries. Relations, not numbers: the
degraded rate comes from the step model and decode, which change."""

from __future__ import annotations

import math

import pytest

from model import docs, parse_query
from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.reliability import compare, goodput
from model.reliability.rates import DEFAULT_RATES


@pytest.fixture(scope="module")
def values():
    return compare.feature_values()


def test_every_feature_and_both_fabrics_at_one_and_2000_racks(values):
    keys = [r["key"] for r in values["rows"]]
    assert keys == ["vr-nvl72", *FEATURE_KEYS, "gb200-nvl72", "eth-x72"]
    assert [(s["job_racks"], s["spares"]) for s in values["scales"]] == [(1, False), (2000, True)]
    assert values["price_per_gpu_h"] == DEFAULT_RATES.price_per_gpu_h
    for row in values["rows"]:
        for a in row["at"]:
            assert a["value_pp"] >= -1e-9  # no feature is worth less than nothing
            assert a["money_per_year"] == pytest.approx(a["gpu_hours_per_year"] * 8.5)
            assert a["why"].startswith(("small", "modest", "large", "the reference"))


def test_the_sentence_says_which_way_and_why(values):
    rows = {r["key"]: r for r in values["rows"]}
    one = rows["partial-rack"]["at"][0]
    assert one["value_pp"] > 1.0 and one["why"].startswith("large")
    assert "gpu" in one["why"]  # GPU faults are what partial-rack operation acts on
    assert rows["sdr-fallback"]["at"][0]["why"].startswith("small")


def test_markdown_and_the_docs_section(values):
    md = compare.markdown(values)
    lines = md.splitlines()
    assert (
        lines[0].count("|") == 1 + 4 * 2 + 1 and len([x for x in lines if x.startswith("| ")]) == 11
    )
    region = next(r for r in docs.REGIONS if r.name == "compare")
    doc = f"intro\n{region.begin}\nOLD-TABLE\n{region.end}\nafter"
    new = docs.rewrite(doc, region, md)
    assert (
        new.startswith("intro\n") and new.endswith("after") and md in new and "OLD-TABLE" not in new
    )
    with pytest.raises(ValueError):
        docs.rewrite("no markers", region, md)


def test_records_are_the_csv_rows(values):
    rec = compare.records(values)
    assert len(rec) == 10 * 2 and rec[0]["configuration"] == "vr-nvl72, all seven features"


def test_a_bad_price_is_refused():
    with pytest.raises(ScenarioError) as e:
        compare.feature_values(price_per_gpu_h=-1.0)
    assert e.value.token == "price"


def test_why_a_2000_rack_job_keeps_what_it_keeps_is_the_closed_forms_own_pieces(values):
    """Issue 28 (6): 29.76% at 2,000 racks with spares was shown without a word of why. The
    reason is the closed form's: every rack's stops reach the job, each holds it for its
    detection and restart, and the stops overlap (down 1 - exp(-load) of the time)."""
    one, big = (s["kept"] for s in values["scales"])
    ref = goodput.closed_form(parse_query("").scenario, job_racks=2000, spares=True)
    assert big["fraction"] == pytest.approx(ref["fraction"])
    # the stops a day scale with the racks: 2,000 racks' events, each a stop of the job
    assert big["stops_per_day"] == pytest.approx(
        (ref["interruptions_per_job_year"] + ref["planned_stops_per_year"]) * 24 / 8766
    )
    assert big["unplanned_per_day"] == pytest.approx(ref["interruptions_per_job_year"] * 24 / 8766)
    # down share is the closed form's own: exp(-load) up, load = stops x their length
    load = big["stops_per_day"] / 24 * big["minutes_per_stop"] / 60
    assert 1 - big["down_share"] == pytest.approx(math.exp(-load), rel=1e-9)
    # stops a day x minutes each more than fill a day: the sentence says they overlap
    assert big["stops_per_day"] * big["minutes_per_stop"] > 24 * 60
    assert "stops overlap" in big["sentence"] and "stops overlap" not in one["sentence"]
    assert f"keeps {ref['fraction']:.1%}" in big["sentence"]
    assert "2,000 racks with spare racks (144,000 GPUs)" in big["sentence"]
    # and what the sentence leaves after the down time is what checkpoints and lost work take
    rest = ref["badput"]["lost_work"] + ref["badput"]["checkpoints"] + ref["badput"]["degraded"]
    assert 1 - big["down_share"] - big["fraction"] == pytest.approx(rest)
    assert f"take {rest:.1%} more" in big["sentence"]


def test_each_row_says_the_restarts_a_year_it_adds(values):
    rows = {r["key"]: r for r in values["rows"]}
    for row in values["rows"]:
        for a, ref in zip(row["at"], rows["vr-nvl72"]["at"], strict=True):
            assert a["extra_restarts_per_year"] == pytest.approx(
                a["restarts_per_year"] - ref["restarts_per_year"]
            )
    # without in-service updates every switch update is a whole-job stop: 2,000 racks' a year
    issu = rows["issu"]["at"][1]["extra_restarts_per_year"]
    assert issu == pytest.approx(2000 * rows["issu"]["at"][0]["extra_restarts_per_year"])
    assert issu > 0
