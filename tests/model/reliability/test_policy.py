"""Repair policies (issue 14, items 1-2): repair at once, or defer the rack-down visits of
rerouted faults to a planned window every N days; the optimiser's choice and its trade."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from model import parse_query, to_query
from model.errors import ScenarioError
from model.reliability import goodput as G
from model.reliability.accounting import job_scale
from model.reliability.policy import WINDOW_CANDIDATES_DAYS, rack_down_visits_per_h
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR
from model.reliability.timeline import timeline
from tests.strategies import scenarios


def _s(q: str):
    return parse_query(q).scenario


def _visits(q: str) -> float:
    return rack_down_visits_per_h(job_scale(_s(q), DEFAULT_RATES)) * HOURS_PER_YEAR


def test_the_policy_is_part_of_the_scenario_and_its_link():
    s = _s("repair=window-007")
    assert s.repair == "window-7" and to_query(s) == "repair=window-7"
    assert _s("repair=now").repair == "now" and to_query(_s("repair=now")) == ""
    for bad in ("window-0", "window-366", "weekly", "window-"):
        with pytest.raises(ScenarioError) as e:
            parse_query(f"repair={bad}")
        assert e.value.token == bad


def test_longer_windows_mean_fewer_rack_down_visits():
    visits = [_visits("")] + [_visits(f"repair=window-{n}") for n in WINDOW_CANDIDATES_DAYS]
    assert visits == sorted(visits, reverse=True)
    assert visits[0] == pytest.approx(17.7 + 0.2, abs=0.5)  # ~18 cartridge swaps a year
    assert visits[-1] < 1.5  # about one window a year, and the faults that stop the job


def test_deferring_costs_the_jobs_own_slowdown_while_parts_wait():
    """Decode does not slow on one rerouted link today (issue 12), so deferring is free for
    it and the longest window wins; a training job slows 1.2% on one, so repairing at once
    is best for it."""
    dec = G.best_policy(_s(""))
    assert dec["best"] == "window-365" and dec["gain_vs_now"] > 0.005
    train = G.best_policy(_s("workload=train"))
    assert train["best"] == "now" and train["gain_vs_now"] == 0.0
    rows = {r["policy"]: r for r in train["tried"]}
    assert (
        rows["window-90"]["badput_hours_per_rack_year"]["degraded"]
        > (rows["now"]["badput_hours_per_rack_year"]["degraded"])
    )


def test_faults_that_stop_the_job_are_never_deferred():
    # gb200-nvl72 (no rerouting): a link fault aborts; its repair cannot wait for a window
    a = G.closed_form(_s("fabric=gb200-nvl72"))["badput_hours_per_rack_year"]
    b = G.closed_form(_s("fabric=gb200-nvl72&repair=window-365"))["badput_hours_per_rack_year"]
    assert b["repair_wait"] > 0.3 * a["repair_wait"]


@settings(max_examples=20, deadline=None)
@given(s=scenarios(max_faults=0))
def test_closed_form_and_monte_carlo_agree_for_every_policy(s):
    s = replace(s, flaky=(), update=())
    for policy in ("now", *(f"window-{n}" for n in WINDOW_CANDIDATES_DAYS)):
        sc = replace(s, repair=policy)
        cf = G.closed_form(sc)["fraction"]
        mc = G.monte_carlo(sc, key=sc.key(), sample_racks=G.default_sample_racks(1.0))
        assert mc["fraction"] == pytest.approx(cf, abs=0.002), policy


def test_the_timeline_waits_for_the_window():
    now = timeline(_s("fail=gpu07-st3.sw2"))
    later = timeline(_s("fail=gpu07-st3.sw2&repair=window-14"))
    t_now = next(e["t_s"] for e in now["events"] if e["kind"] == "repair")
    t_later = next(e["t_s"] for e in later["events"] if e["kind"] == "repair")
    assert t_later - t_now == pytest.approx(7 * 86400)


def test_detection_is_its_own_cost():
    """Issue 14 item 5: a hang found by the collective's timeout (NCCL's watchdog, 10 min by
    default, editable) against telemetry's seconds, as its own cause."""
    gb = G.closed_form(_s("fabric=gb200-nvl72"))["badput_hours_per_rack_year"]
    seen = G.closed_form(_s("fabric=gb200-nvl72&on=telemetry"))["badput_hours_per_rack_year"]
    # GPU and software faults are found in 10 minutes either way; link faults 30 s vs 10 min
    assert gb["detection"] > seen["detection"] + 1.0 > 1.0
    slow = DEFAULT_RATES.with_overrides(detect_timeout_s=1800.0)
    longer = G.closed_form(_s("fabric=gb200-nvl72"), slow)["badput_hours_per_rack_year"]
    # the timeout's share triples (600 -> 1,800 s); GPU and software detection stay
    assert longer["detection"] > gb["detection"] + 1.0
    mc = G.monte_carlo(_s("fabric=gb200-nvl72"), racks=2000, key="d")
    assert mc["badput_hours_per_rack_year"]["detection"] == pytest.approx(gb["detection"], rel=0.1)
