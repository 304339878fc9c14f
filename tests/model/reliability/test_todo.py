"""What to do now (model/reliability/todo.py): each fault's repair in the policy's order,
with what waiting costs an hour."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model.query import parse_query
from model.reliability.accounting import checkpoint_interval_s
from model.reliability.rates import DEFAULT_RATES
from model.reliability.todo import STEPS, cost_per_h, fail_risk, what_to_do
from model.workloads.throughput import delivered_fraction


def _s(q: str):
    return parse_query(q).scenario


def test_a_fault_the_job_cannot_run_without_comes_first():
    """A GB200 rack without rerouting: a dead switch chip stops the job (step 1) before a
    compute tray swapped hot (step 2); the costliest first within a step."""
    rows = what_to_do(_s("fabric=gb200-nvl72&fail=gpu33,st2.sw0"))
    assert [r["id"] for r in rows] == ["st2.sw0", "gpu33"]
    assert [r["step"] for r in rows] == sorted(r["step"] for r in rows)
    assert rows[0]["why_this_step"] == STEPS[0]
    assert [r["order"] for r in rows] == [1, 2]


def test_the_policy_says_when_a_rack_down_visit_happens():
    s = _s("fabric=vr-nvl72&fail=gpu07-st3.sw1&repair=window-7")
    row = next(r for r in what_to_do(s) if r["id"] == "gpu07-st3.sw1")
    assert (
        row["step"] == 3
        and row["when"]
        == "at the policy's visit, which waits for the planned window (every 7 days)"
    )
    now = next(r for r in what_to_do(_s("fabric=vr-nvl72&fail=gpu07-st3.sw1")))
    assert now["when"].startswith("now")


def test_what_waiting_costs_is_the_faults_own_shortfall():
    """A dead link alone on a GB200 rack: the work it takes, x 72 GPUs, x the price."""
    s = _s("fabric=gb200-nvl72&fail=gpu07-st3.sw1")
    c = what_to_do(s)[0]["waiting_costs"]
    share = 1.0 - delivered_fraction(s)
    # the GPU behind the link is out: its 71 peers serve on as one elastic EP group, so the
    # shortfall is about one GPU's worth of 72
    assert c["work_share"] == pytest.approx(share) and 0.9 / 72 < share < 1.5 / 72
    assert c["gpu_hours_per_h"] == pytest.approx(share * 72)
    assert c["money_per_h"] == pytest.approx(share * 72 * DEFAULT_RATES.price_per_gpu_h)
    assert cost_per_h(s)["gpu_hours_per_h"] == pytest.approx(c["gpu_hours_per_h"])
    assert "GPU-hours an hour" in what_to_do(s)[0]["sentence"]


def test_a_healthy_rack_has_nothing_to_do_and_costs_nothing():
    s = _s("fabric=gb200-nvl72")
    assert what_to_do(s) == [] and cost_per_h(s)["gpu_hours_per_h"] == 0.0


def test_a_flaky_link_is_drained_last_as_the_forecast_advises():
    s = _s("fabric=gb200-nvl72&fail=gpu09-st2.sw1&flaky=gpu07-st3.sw1&on=telemetry")
    rows = what_to_do(s, {"gpu07-st3.sw1": {"action": "drain now", "time_to_failure_h": 0.0}})
    assert rows[-1]["id"] == "gpu07-st3.sw1" and rows[-1]["step"] == 4
    assert rows[-1]["when"] == "now: the forecast says drain now"
    assert what_to_do(s)[-1]["when"] == "at the next repair visit (no trend read)"


FLAKY = "fabric=gb200-nvl72&flaky=gpu07-st3.sw1&on=telemetry"


def test_a_flaky_links_wait_costs_its_risk_of_failing_first():
    """A flaky link carries the job (its replays take next to nothing), but waiting risks
    it failing before it is drained:
    1/120 an hour without a trend (rates.flaky_lead_h, FACTS.md §3) x what failing first
    costs beyond the drain on a GB200 rack, where the job restarts at once on 71 GPUs: its
    detection (30 s with telemetry) and half a checkpoint interval and write of work, on
    all 72 GPUs. Never $0."""
    s = _s(FLAKY)
    row = what_to_do(s)[0]
    c, r = row["waiting_costs"], row["waiting_costs"]["risk"]
    seg_h = (checkpoint_interval_s(s) + DEFAULT_RATES.checkpoint_write_s) / 3600
    if_fails = (DEFAULT_RATES.detect_telemetry_s / 3600 + seg_h / 2) * 72
    assert r["fail_per_h"] == pytest.approx(1 / DEFAULT_RATES.flaky_lead_h)
    assert r["if_it_fails_gpu_hours"] == pytest.approx(if_fails) and if_fails > 30
    now = (1.0 - delivered_fraction(s)) * 72  # what its replays take now: next to nothing
    assert c["now_gpu_hours_per_h"] == pytest.approx(now) and now < 0.01
    assert c["gpu_hours_per_h"] == pytest.approx(now + if_fails / DEFAULT_RATES.flaky_lead_h)
    assert c["money_per_h"] == pytest.approx(c["gpu_hours_per_h"] * DEFAULT_RATES.price_per_gpu_h)
    assert c["money_per_h"] > 1.0
    said = row["sentence"]
    assert "an expected 0." in said and "% chance an hour that it fails" in said
    assert (
        "120 h" in said and "FACTS.md §3" in said and "the work since the last checkpoint" in said
    )
    together = cost_per_h(s, todo=what_to_do(s))
    assert together["gpu_hours_per_h"] == pytest.approx(now)
    assert together["risk_gpu_hours_per_h"] == pytest.approx(c["gpu_hours_per_h"] - now)


def test_the_risk_follows_the_forecast_and_the_models_rates():
    """A measured trend's time to failure replaces the 120 h; a shorter lead in the rates
    raises the risk in proportion; without telemetry the failure is found by a 10-minute
    timeout and diagnosed for a day, so failing first costs more."""
    s = _s(FLAKY)
    base = fail_risk(s, "gpu07-st3.sw1", None)
    soon = fail_risk(s, "gpu07-st3.sw1", 5.0)
    assert soon["fail_per_h"] == pytest.approx(0.2) and "fail in 5.00 h" in soon["basis"]
    assert soon["gpu_hours_per_h"] == pytest.approx(0.2 * base["if_it_fails_gpu_hours"])
    assert fail_risk(s, "gpu07-st3.sw1", 0.0)["fail_per_h"] == 1.0
    flat = fail_risk(s, "gpu07-st3.sw1", None, trend_read=True)  # read, not rising
    assert flat["fail_per_h"] == base["fail_per_h"] and "sets no time to failure" in flat["basis"]
    assert "no trend read yet" in base["basis"]
    short = replace(DEFAULT_RATES, flaky_lead_h=60.0)
    assert fail_risk(s, "gpu07-st3.sw1", None, short)["gpu_hours_per_h"] == pytest.approx(
        2 * base["gpu_hours_per_h"], rel=1e-6
    )
    blind = fail_risk(
        _s("fabric=gb200-nvl72&flaky=gpu07-st3.sw1&off=telemetry"), "gpu07-st3.sw1", None
    )
    assert blind["detect_h"] == pytest.approx(DEFAULT_RATES.detect_timeout_s / 3600)
    assert blind["if_it_fails_gpu_hours"] > base["if_it_fails_gpu_hours"]


def test_a_rerouted_link_risks_only_its_stall():
    """On a rack that reroutes around a dead link (vr-nvl72), a flaky link failing first
    does not stop the job: its risk is tiny, and the sentence says why."""
    s = _s("fabric=vr-nvl72&flaky=gpu07-st3.sw1")
    row = what_to_do(s)[0]
    assert row["waiting_costs"]["risk"]["lost_work_h"] == 0.0
    assert row["waiting_costs"]["gpu_hours_per_h"] < 0.01
    assert "runs on around it, rerouted" in row["sentence"]
