"""What each feature buys (issue 14, Must show): the side-by-side's differences, priced, with
a sentence each, and the Markdown docs/GOODPUT.md carries. Relations, not numbers: the
degraded rate comes from the step model and decode, which change."""

from __future__ import annotations

import pytest

from model import docs
from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.reliability import compare
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
