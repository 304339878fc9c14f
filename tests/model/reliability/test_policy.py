"""Repair policies (issue 14, items 1-2): repair at once; defer the rack-down visits of
rerouted faults to a planned window every N days, or until K links are dark, or until the
worst GPU falls below P% of its bandwidth; spare parts on site or not. The optimiser's choice
and its trade. The degraded rate comes from the step model and decode, which change: these
tests assert relations, not their numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import parse_query, to_query
from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.reliability import goodput as G
from model.reliability.accounting import job_scale
from model.reliability.policy import (
    BW_CANDIDATES,
    DARK_CANDIDATES,
    WINDOW_CANDIDATES_DAYS,
    _given_links,
    candidates,
    parse_policy,
    rack_down_visits_per_h,
)
from model.reliability.rates import DEFAULT_RATES, FAILURE_RATE_FIELDS, HOURS_PER_YEAR
from model.reliability.timeline import timeline
from tests.strategies import scenarios


def _s(q: str):
    return parse_query(q).scenario


def _visits(q: str) -> float:
    return rack_down_visits_per_h(job_scale(_s(q), DEFAULT_RATES)) * HOURS_PER_YEAR


def _hours(q: str) -> dict:
    return G.closed_form(_s(q))["badput_hours_per_rack_year"]


def test_the_policy_is_part_of_the_scenario_and_its_link():
    s = _s("repair=window-007")
    assert s.repair == "window-7" and to_query(s) == "repair=window-7"
    assert _s("repair=now").repair == "now" and to_query(_s("repair=now")) == ""
    assert to_query(_s("repair=bw-95,onsite")) == "repair=bw-95,onsite"
    assert _s("repair=dark-03").repair == "dark-3"
    p = parse_policy("bw-90,onsite")
    assert (p.kind, p.n, p.onsite, p.text) == ("bw", 90, True, "bw-90,onsite")
    for bad in ("window-0", "window-366", "weekly", "window-", "dark-0", "dark-73", "bw-100"):
        with pytest.raises(ScenarioError) as e:
            parse_query(f"repair={bad}")
        assert e.value.token == bad
    with pytest.raises(ScenarioError):
        parse_query("repair=now,spares")


def test_rack_down_visits_fall_as_each_policy_waits_longer():
    """Longer windows, more dark links or a lower bandwidth floor: fewer rack-down visits."""
    f = _s("").spec()
    r = DEFAULT_RATES
    link_faults = (2 * f.links * r.link_end_per_h + f.cables * r.cable_per_h) * HOURS_PER_YEAR
    now = _visits("")
    assert now == pytest.approx(link_faults, rel=0.1)  # a cartridge swap for each link fault
    for series in (
        [f"window-{n}" for n in WINDOW_CANDIDATES_DAYS],
        [f"dark-{k}" for k in DARK_CANDIDATES],
        [f"bw-{p}" for p in BW_CANDIDATES],
    ):
        visits = [now] + [_visits(f"repair={p}") for p in series]
        assert visits == sorted(visits, reverse=True), series
    assert _visits("repair=window-365") < 1.5  # about one window a year
    # the degenerate thresholds are repairing at once
    assert _visits("repair=dark-1") == pytest.approx(now, rel=1e-9)
    assert _visits("repair=bw-99") == pytest.approx(now, rel=1e-9)


@pytest.mark.parametrize("policy", ["window-90", "dark-10", "bw-90"])
def test_deferring_never_speeds_the_job_and_batching_saves_rack_down_time(policy):
    for w in ("", "workload=train"):
        now, later = _hours(w), _hours(f"{w}&repair={policy}")
        assert later["degraded"] >= now["degraded"] - 1e-9
        assert later["repair_wait"] < now["repair_wait"]
    # a training step slows on a dark link, so parts that wait cost running time
    train_now, train_later = _hours("workload=train"), _hours(f"workload=train&repair={policy}")
    assert train_later["degraded"] > train_now["degraded"]


def test_the_optimiser_tries_every_policy_and_names_the_best():
    res = G.best_policy(_s(""))
    tried = {r["policy"]: r["fraction"] for r in res["tried"]}
    assert set(tried) == set(candidates(False))
    assert tried[res["best"]] == max(tried.values())
    assert res["gain_vs_now"] == pytest.approx(tried[res["best"]] - tried["now"])
    # the Must-show: on the default vr-nvl72 rack the best beats repairing at once
    assert res["best"] != "now" and res["gain_vs_now"] > 0.0
    assert "fewer times a year" in res["why"]
    # the scenario's parts setting is kept
    onsite = G.best_policy(_s("repair=now,onsite"))
    assert all(r["policy"].endswith(",onsite") for r in onsite["tried"])


def test_spare_parts_on_site_shorten_repairs_and_never_hurt():
    for q in ("", "off=partial-rack", "off=reroute", "workload=train", "fabric=gb200-nvl72"):
        a = G.closed_form(_s(q))
        b = G.closed_form(_s(f"{q}&repair=now,onsite"))
        assert b["fraction"] >= a["fraction"] - 1e-12, q
    # partial-rack off: a GPU fault waits for its tray's repair, so spares on site matter
    wait = _hours("off=partial-rack")["repair_wait"]
    assert _hours("off=partial-rack&repair=now,onsite")["repair_wait"] < 0.5 * wait


def test_faults_that_stop_the_job_are_never_deferred():
    # gb200-nvl72 (no rerouting): a link fault aborts; its repair cannot wait for a visit
    a = _hours("fabric=gb200-nvl72")
    for p in ("window-365", "dark-72", "bw-80"):
        b = _hours(f"fabric=gb200-nvl72&repair={p}")
        assert b["repair_wait"] > 0.3 * a["repair_wait"], p


def test_worst_gpu_of_n_dark_links_is_the_occupancy_count():
    """P(the worst GPU has m of n dark links), links picked at random without replacement,
    checked against exact counting on a small fabric: 3 GPUs x 2 links, 2 dark."""
    p = _given_links(2, 3, 2, 2)
    # C(6,2) = 15 pairs; 3 of them are both links of one GPU
    assert p == pytest.approx([0.0, 12 / 15, 3 / 15])
    p = _given_links(3, 3, 2, 2)
    # C(6,3) = 20; no GPU with 2 dark: 2^3 = 8 ways
    assert p == pytest.approx([0.0, 8 / 20, 12 / 20])


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(s=scenarios(max_faults=0))
def test_closed_form_and_monte_carlo_agree_for_every_policy(s):
    """Issue 14 Must-show: within 0.2 pp for every policy, at the default sample size."""
    s = replace(s, flaky=(), update=())
    for policy in candidates(False) + ("now,onsite", "window-30,onsite", "bw-90,onsite"):
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
    f = _s("fabric=gb200-nvl72").spec()
    r = DEFAULT_RATES
    data_plane = 2 * f.links * r.link_end_per_h + f.cables * r.cable_per_h
    data_plane += f.chips * r.switch_chip_per_h + f.switch_trays * r.switch_tray_per_h
    link_faults = data_plane * HOURS_PER_YEAR  # every one aborts without rerouting
    gb = _hours("fabric=gb200-nvl72")
    seen = _hours("fabric=gb200-nvl72&on=telemetry")
    # GPU and software faults are found in 10 minutes either way; link faults 30 s vs 10 min
    step = (r.detect_timeout_s - r.detect_telemetry_s) / 3600.0
    assert gb["detection"] - seen["detection"] == pytest.approx(link_faults * step, rel=0.15)
    slow = DEFAULT_RATES.with_overrides(detect_timeout_s=1800.0)
    longer = G.closed_form(_s("fabric=gb200-nvl72"), slow)["badput_hours_per_rack_year"]
    # the timeout's share triples (600 -> 1,800 s); GPU and software detection stay
    assert longer["detection"] - gb["detection"] == pytest.approx(
        link_faults * 1200 / 3600, rel=0.15
    )
    mc = G.monte_carlo(_s("fabric=gb200-nvl72"), racks=2000, key="d")
    assert mc["badput_hours_per_rack_year"]["detection"] == pytest.approx(gb["detection"], rel=0.1)


def _query(policy: str, off: list[str], train: bool) -> str:
    parts = [f"repair={policy}", *([f"off={','.join(off)}"] if off else [])]
    return "&".join(parts + ["workload=train"] * train)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    policy=st.sampled_from(candidates(False) + candidates(True)),
    factor=st.floats(1.0, 100.0),
    off=st.lists(st.sampled_from(FEATURE_KEYS), unique=True, max_size=2),
    train=st.booleans(),
    job_racks=st.sampled_from([1, 16, 128]),
)
def test_more_faults_of_every_kind_or_a_larger_job_never_raise_goodput(
    policy, factor, off, train, job_racks
):
    """Issue 14 Must-show, under every repair policy: every failure rate up by one factor,
    or a job over more racks, never raises goodput."""
    s = _s(_query(policy, off, train))
    base = G.closed_form(s, job_racks=job_racks)["fraction"]
    more = DEFAULT_RATES.scaled(factor)
    assert G.closed_form(s, more, job_racks=job_racks)["fraction"] <= base + 1e-12
    assert G.closed_form(s, job_racks=job_racks * 2)["fraction"] <= base + 1e-12


@settings(max_examples=40, deadline=None)
@given(
    onsite=st.booleans(),
    field=st.sampled_from(FAILURE_RATE_FIELDS),
    factor=st.floats(1.0, 100.0),
    off=st.lists(st.sampled_from(FEATURE_KEYS), unique=True, max_size=2),
    train=st.booleans(),
    job_racks=st.sampled_from([1, 16, 128]),
)
def test_more_faults_of_one_kind_or_fewer_features_never_raise_goodput(
    onsite, field, factor, off, train, job_racks
):
    """Repairing at once (spares on site or not), more faults of any one kind or one more
    feature off never raise goodput. (A fixed threshold policy can break this: a kind that
    forces an early visit repairs the parts waiting for it sooner, docs/GOODPUT.md.)"""
    s = _s(_query("now,onsite" if onsite else "now", off, train))
    base = G.closed_form(s, job_racks=job_racks)["fraction"]
    more = DEFAULT_RATES.with_overrides(**{field: getattr(DEFAULT_RATES, field) * factor})
    assert G.closed_form(s, more, job_racks=job_racks)["fraction"] <= base + 1e-12
    rest = [k for k in FEATURE_KEYS if k not in off]
    fewer = replace(s, off=tuple(k for k in FEATURE_KEYS if k in {*off, rest[0]}))
    assert G.closed_form(fewer, job_racks=job_racks)["fraction"] <= base + 1e-12


@settings(max_examples=8, deadline=None)
@given(
    off=st.lists(st.sampled_from(FEATURE_KEYS), unique=True, min_size=1, max_size=2),
    train=st.booleans(),
)
def test_with_the_best_policy_a_feature_off_never_helps(off, train):
    on = G.best_policy(_s(_query("now", off[1:], train)))
    without = G.best_policy(_s(_query("now", off, train)))
    best = {r["policy"]: r["fraction"] for r in on["tried"]}[on["best"]]
    worse = {r["policy"]: r["fraction"] for r in without["tried"]}[without["best"]]
    assert worse <= best + 1e-12


def test_the_timeline_waits_for_a_threshold_as_long_as_the_policy_says():
    """dark-K: a part waits for the K-th dark link; on average (K-1)/2 link faults' time
    (Little's law on the renewal cycle), longer as K grows; bw-P likewise."""
    from model.reliability.accounting import visit_wait_h

    f = _s("").spec()
    r = DEFAULT_RATES
    per_h = 2 * f.links * r.link_end_per_h + f.cables * r.cable_per_h
    waits = [visit_wait_h(_s(f"repair=dark-{k}")) for k in (2, 5, 10)]
    assert waits == sorted(waits)
    assert waits[1] == pytest.approx(2.0 / per_h, rel=0.05)  # a few chip faults cut it short
    assert visit_wait_h(_s("repair=bw-90")) > visit_wait_h(_s("repair=bw-95")) > 0
    assert visit_wait_h(_s("")) == 0.0
    tl = timeline(_s("fail=gpu07-st3.sw2&repair=dark-5"))
    now = timeline(_s("fail=gpu07-st3.sw2"))
    t = next(e["t_s"] for e in tl["events"] if e["kind"] == "repair")
    t0 = next(e["t_s"] for e in now["events"] if e["kind"] == "repair")
    assert t - t0 == pytest.approx(waits[1] * 3600)
    assert any("5 links to be dark" in e["event"] for e in tl["events"])
