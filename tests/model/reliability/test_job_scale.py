"""A job over many racks (issue 14, item 4): every rack's events reach the job, a degraded
rack gates it, spare racks take a failed rack's place. The published large-job cases are
reproduced through this same path from their failure rates alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.fabric.features import FEATURE_KEYS
from model.query import parse_query
from model.reliability import goodput as G
from model.reliability.accounting import job_scale
from model.reliability.rates import DEFAULT_RATES, FAILURE_RATE_FIELDS

VR = parse_query("").scenario
GPUS_PER_RACK = 72
JOB_RACKS_16K = 228  # 16,416 GPUs: the 16,384-GPU jobs below, to 0.2%


def _only_gpu_failures(per_job_h: float, restart_s: float, write_s: float):
    """Rates with GPU failures alone, at a job rate per_job_h over the 16k-GPU job."""
    zero = {k: 0.0 for k in FAILURE_RATE_FIELDS}
    zero["gpu_per_h"] = per_job_h / (JOB_RACKS_16K * GPUS_PER_RACK)
    return DEFAULT_RATES.with_overrides(
        **zero,
        updates_per_year=0.0,
        restart_s=restart_s,
        detect_other_s=0.0,
        checkpoint_write_s=write_s,
    )


@pytest.mark.parametrize("tau_min,published", [(60.0, 0.70), (5.0, 0.93)])
def test_meta_16k_job_from_its_failure_rate(tau_min, published):
    """Meta RSC-1: 6.5 failures per 1,000 node-days on 2,048 nodes, u0 = 5 min, checkpoints
    non-blocking: E[ETTR] 0.70 at 60-minute, 0.93 at 5-minute checkpoints (FACTS.md §6)."""
    lam = 2_048 * 6.5e-3 / 24.0  # per hour, the whole job
    rates = _only_gpu_failures(lam * JOB_RACKS_16K * GPUS_PER_RACK / 16_384, 300.0, 0.01)
    r = G.closed_form(
        VR, rates, job_racks=JOB_RACKS_16K, spares=True, checkpoint_interval_s=tau_min * 60
    )
    assert r["fraction"] == pytest.approx(published, abs=0.02)


def test_llama3_run_from_its_interruption_rate():
    """Llama 3: 419 interruptions in 54 days on 16,384 GPUs (MTBF 185.6 min), 10-minute
    restarts, 10 s checkpoint writes: Daly's exact model gives 0.908."""
    rates = _only_gpu_failures(60.0 / 185.6, 600.0, 10.0)
    r = G.closed_form(VR, rates, job_racks=JOB_RACKS_16K, spares=True)
    assert 7 * 60 < r["checkpoint_interval_s"] < 9 * 60  # Daly's optimum, about 8 min
    assert r["fraction"] == pytest.approx(0.908, abs=0.02)


@pytest.mark.parametrize("job_racks", [16, 128, 2_000])
def test_closed_form_and_monte_carlo_agree_at_every_scale(job_racks):
    for spares in (False, True):
        cf = G.closed_form(VR, job_racks=job_racks, spares=spares)["fraction"]
        jobs = G.default_sample_racks(1.0, job_racks)
        mc = G.monte_carlo(VR, job_racks=job_racks, spares=spares, racks=jobs, key="scale")
        assert mc["fraction"] == pytest.approx(cf, abs=0.01), (job_racks, spares)


@settings(max_examples=25, deadline=None)
@given(
    off=st.lists(st.sampled_from(FEATURE_KEYS), unique=True, max_size=3),
    small=st.integers(1, 200),
    factor=st.integers(2, 10),
)
def test_a_larger_job_never_does_better_and_spares_never_hurt(off, small, factor):
    s = parse_query("&".join(["fabric=vr-nvl72", *([f"off={','.join(off)}"] if off else [])]))
    s = s.scenario
    a = G.closed_form(s, job_racks=small)["fraction"]
    b = G.closed_form(s, job_racks=small * factor)["fraction"]
    assert b <= a + 1e-12
    with_spares = G.closed_form(s, job_racks=small, spares=True)["fraction"]
    assert with_spares >= a - 1e-12
    # and turning a feature off never helps, at any scale
    more_off = [k for k in FEATURE_KEYS if k not in off][:1]
    if more_off:
        worse = parse_query(f"off={','.join([*off, *more_off])}").scenario
        assert G.closed_form(worse, job_racks=small)["fraction"] <= a + 1e-12


def test_the_job_size_is_checked():
    from model.errors import ScenarioError

    for bad in (0, 1.5, True, 10**6):
        with pytest.raises(ScenarioError) as e:
            G.closed_form(VR, job_racks=bad)
        assert e.value.token == "job_racks"


@settings(max_examples=25, deadline=None)
@given(
    field=st.sampled_from(FAILURE_RATE_FIELDS),
    factor=st.floats(1.0, 1000.0),
    job_racks=st.sampled_from([1, 16, 128]),
)
def test_more_faults_never_raise_goodput(field, factor, job_racks):
    """Any failure rate raised (no cap but one a component-hour) lowers goodput or keeps it."""
    base = G.closed_form(VR, job_racks=job_racks)["fraction"]
    more = DEFAULT_RATES.with_overrides(**{field: getattr(DEFAULT_RATES, field) * factor})
    assert G.closed_form(VR, more, job_racks=job_racks)["fraction"] <= base + 1e-12


@pytest.mark.parametrize("workload", ["", "workload=train"])
def test_with_spares_no_feature_is_worth_less_than_nothing_at_scale(workload):
    """At 2,000 racks a dark link in one rack gates every rack's collectives; with spare
    racks the operator swaps that rack out (a planned stop) when it costs less than running
    slower until the repair, so rerouting, or any feature, never makes the job worse. (The
    other fabrics' rows are other designs, not a feature less: eth-x72 has no central
    controller to lose, test_ethernet_has_no_window_without_a_central_controller.)"""
    from model.reliability import compare

    w = workload.partition("=")[2] or None
    values = compare.feature_values(scales=((2_000, True), (128, True)), workload=w)
    for row in values["rows"]:
        if not row["label"].startswith("vr-nvl72, "):
            continue
        for a in row["at"]:
            assert a["value_pp"] >= -1e-9, (row["label"], a["job_racks"])
    s = parse_query(workload).scenario
    eff = {e.name: e for e in job_scale(s, DEFAULT_RATES, 2_000, True)}
    link = eff["link end"]
    if workload:  # training slows on a dark link: swapped for a spare, not run degraded
        assert link.degraded_h == 0.0 and link.stops[0].planned and link.stops[0].offset_h == 0


def test_ethernet_has_no_window_without_a_central_controller():
    """Issue 28: eth-x72 has no fabric manager (every switch routes for itself), so a lost
    management controller opens no window in which a data fault aborts the job, as the
    leader's loss does on NVLink; its goodput no longer pays for one."""
    from model.reliability.effects import effects

    def window(q: str) -> float:
        named = "data fault with no central controller"
        return sum(e.rate_per_h for e in effects(parse_query(q).scenario) if e.name == named)

    assert window("") > 0.0  # vr-nvl72's leader can be lost, and a fault in its gap aborts
    assert window("fabric=eth-x72") == 0.0


@pytest.mark.parametrize("job_racks", [1, 16])
def test_interruptions_are_per_job_year_under_both_names(job_racks):
    """Issue 29: the count is the whole job's over a year; the old name is the same number."""
    one = G.closed_form(VR)["interruptions_per_job_year"]
    r = G.closed_form(VR, job_racks=job_racks)
    assert r["interruptions_per_rack_year"] == r["interruptions_per_job_year"]
    assert r["interruptions_per_job_year"] == pytest.approx(one * job_racks, rel=1e-9)
