"""Which assumptions rule goodput (model/reliability/sensitivity.py, issue 29 item 9)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from model.query import parse_query
from model.reliability import sensitivity as S
from model.reliability.goodput import closed_form
from model.reliability.rates import DEFAULT_RATES, DOMAIN_ONLY_FIELDS, FAILURE_RATE_FIELDS, Rates


@pytest.fixture(scope="module")
def answer() -> dict:
    return S.sensitivity()


def test_the_copper_link_end_rate_comes_first_and_every_row_is_past_the_bar(answer):
    rows = answer["rows"]
    assert rows and rows[0]["name"] == "link_end_per_h"
    assert all(r["swing_pp"] > S.THRESHOLD_PP for r in rows)
    swings = [r["swing_pp"] for r in rows[1:]]
    assert swings == sorted(swings, reverse=True)


def test_every_one_rack_assumption_is_tried_once(answer):
    tried = [r["name"] for r in answer["rows"]] + answer["below"]
    want = {
        f.name
        for f in fields(Rates)
        if f.metadata["tag"] == "A" and f.name not in DOMAIN_ONLY_FIELDS
    }
    assert sorted(tried) == sorted(want)
    for f in fields(Rates):  # every assumption has a span inside its accepted range
        if f.metadata["tag"] == "A":
            lo, hi, why = f.metadata["span"]
            r_lo, r_hi = f.metadata["range"]
            assert r_lo <= lo <= getattr(DEFAULT_RATES, f.name) <= hi <= r_hi and why


def test_each_end_is_the_closed_forms_goodput_there(answer):
    s = parse_query("").scenario
    for r in answer["rows"]:
        for end in ("low", "high"):
            g = closed_form(s, DEFAULT_RATES.with_overrides(**{r["name"]: r[end]}))["fraction"]
            assert r[f"goodput_{end}"] == pytest.approx(g, abs=1e-12)
        assert r["goodput_default"] == pytest.approx(closed_form(s)["fraction"], abs=1e-12)
        if r["name"] in FAILURE_RATE_FIELDS:  # more faults never help
            assert r["goodput_high"] < r["goodput_default"] < r["goodput_low"]


def test_the_table_is_the_answer(answer):
    md = S.markdown()
    assert md.count("\n| `") == len(answer["rows"])
    assert "`link_end_per_h`" in md.splitlines()[2]


def test_the_cartridge_swap_time_moves_only_the_rack_down_part():
    """cartridge_swap_h at its default is the model's own 4 h (no change); doubled, the
    rack-down waits grow by half or more and the visits stay as they are."""
    s = parse_query("").scenario
    base = closed_form(s)
    assert closed_form(s, DEFAULT_RATES.with_overrides(cartridge_swap_h=4.0)) == base
    longer = closed_form(s, DEFAULT_RATES.with_overrides(cartridge_swap_h=8.0))
    h0, h1 = base["badput_hours_per_rack_year"], longer["badput_hours_per_rack_year"]
    assert h1["repair_wait"] > h0["repair_wait"] * 1.5
    # the rest moves only as overlapping down time is netted (the up share exp(-a))
    assert h1["detection"] == pytest.approx(h0["detection"], rel=0.01)
    assert longer["rack_down_visits_per_year"] == pytest.approx(
        base["rack_down_visits_per_year"], rel=1e-9
    )
