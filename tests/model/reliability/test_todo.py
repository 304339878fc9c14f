"""What to do now (model/reliability/todo.py): each fault's repair in the policy's order,
with what waiting costs an hour."""

from __future__ import annotations

import pytest

from model.query import parse_query
from model.reliability.rates import DEFAULT_RATES
from model.reliability.todo import STEPS, cost_per_h, what_to_do
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
    assert row["step"] == 3 and row["when"] == "at the next planned window (every 7 days)"
    now = next(r for r in what_to_do(_s("fabric=vr-nvl72&fail=gpu07-st3.sw1")))
    assert now["when"].startswith("now")


def test_what_waiting_costs_is_the_faults_own_shortfall():
    """A dead link alone on a GB200 rack: the work it takes, x 72 GPUs, x the price."""
    s = _s("fabric=gb200-nvl72&fail=gpu07-st3.sw1")
    c = what_to_do(s)[0]["waiting_costs"]
    share = 1.0 - delivered_fraction(s)
    assert c["work_share"] == pytest.approx(share) and share > 0.05
    assert c["gpu_hours_per_h"] == pytest.approx(share * 72)
    assert c["money_per_h"] == pytest.approx(share * 72 * DEFAULT_RATES.price_per_gpu_h)
    assert cost_per_h(s)["gpu_hours_per_h"] == pytest.approx(c["gpu_hours_per_h"])
    assert "GPU-hours an hour" in what_to_do(s)[0]["sentence"]


def test_a_healthy_rack_has_nothing_to_do_and_costs_nothing():
    s = _s("fabric=gb200-nvl72")
    assert what_to_do(s) == [] and cost_per_h(s)["gpu_hours_per_h"] == 0.0


def test_a_flaky_link_is_drained_last_as_the_forecast_advises():
    s = _s("fabric=gb200-nvl72&fail=gpu09-st2.sw1&flaky=gpu07-st3.sw1&on=telemetry")
    rows = what_to_do(s, {"gpu07-st3.sw1": "drain now"})
    assert rows[-1]["id"] == "gpu07-st3.sw1" and rows[-1]["step"] == 4
    assert rows[-1]["when"] == "now: the forecast says drain now"
    assert what_to_do(s)[-1]["when"] == "at the next repair visit (no trend read)"
