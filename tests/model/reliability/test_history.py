"""One sampled history of a job over N racks (issue 30): the Monte Carlo's own sample with its
faults kept, so its goodput is the Monte Carlo's to the bit and its mean is the closed form's;
the same seed draws the same failures under a second feature set."""

from __future__ import annotations

import numpy as np
import pytest

from model.errors import ScenarioError
from model.query import parse_query
from model.reliability import goodput as G
from model.reliability.accounting import checkpoint_interval_s
from model.reliability.against import against
from model.reliability.history import (
    ACTIONS,
    MAX_PARTINGS,
    STATES,
    history,
)
from model.reliability.policy import WAITING
from model.reliability.rates import HOURS_PER_YEAR

VR = parse_query("").scenario
YEAR_OF_DAYS = 365 * 24 / HOURS_PER_YEAR  # 365 days in the model's years of 365.25 days


def _mean_goodput(racks: int, seeds: int, spares: bool) -> float:
    return float(
        np.mean(
            [
                history(VR, racks=racks, days=365, seed=k, spares=spares)["fraction"]
                for k in range(seeds)
            ]
        )
    )


def test_mean_of_200_histories_is_the_closed_form_at_16_racks():
    """Over 200 seeds a 16-rack job's mean goodput over 365 days is the closed form's, within
    0.2 pp (measured: 92.729% against 92.702%, +0.027 pp)."""
    cf = G.closed_form(VR, years=YEAR_OF_DAYS, job_racks=16)["fraction"]
    assert _mean_goodput(16, 200, False) == pytest.approx(cf, abs=0.002)


def test_mean_of_30_histories_is_the_closed_form_at_2000_racks():
    """At 2,000 racks with spares over 30 seeds, within 0.5 pp (measured: 29.927% against
    29.846%, +0.080 pp). 1.6-2.7 s: in the fast loop."""
    cf = G.closed_form(VR, years=YEAR_OF_DAYS, job_racks=2000, spares=True)["fraction"]
    assert _mean_goodput(2000, 30, True) == pytest.approx(cf, abs=0.005)


@pytest.mark.parametrize(
    "query,racks,spares",
    [
        ("", 1, False),
        ("", 16, False),
        ("", 300, True),
        ("repair=window-7", 50, False),  # deferred visits, and the parts waiting for them
        ("repair=dark-3,onsite", 50, True),
        ("fabric=gb200-nvl72&workload=train", 20, False),
        ("fabric=vr-nvl576", 10, False),  # a domain: racks= counts domains
    ],
)
def test_a_history_is_the_monte_carlos_own_sample(query, racks, spares):
    """One model: a history's goodput is monte_carlo's for one job under the same key, exactly
    (the faults are kept, not sampled a second time), under every policy and fabric kind."""
    s = parse_query(query).scenario
    h = history(s, racks=racks, days=200, seed=7, spares=spares)
    mc = G.monte_carlo(
        s, years=200 * 24 / HOURS_PER_YEAR, job_racks=racks, spares=spares, key="history:7"
    )
    assert h["fraction"] == pytest.approx(mc["fraction"], rel=1e-12)
    names = {h["kinds"]["name"][k] for k in h["events"]["kind"]}
    assert WAITING not in names  # bookkeeping, spread over time, not listed as a fault
    if query.startswith("repair=window"):
        assert "planned repair visit" in names


def test_same_arguments_same_history_and_another_seed_another():
    a = history(VR, racks=50, days=90, seed=3)
    assert a == history(VR, racks=50, days=90, seed=3)
    assert a["events"]["t_h"] != history(VR, racks=50, days=90, seed=4)["events"]["t_h"]


def test_events_rack_states_and_series_hang_together():
    h = history(VR, racks=200, days=120, seed=11)
    ev, n = h["events"], len(h["events"]["t_h"])
    assert n > 100
    assert ev["t_h"] == sorted(ev["t_h"])
    assert all(0 <= r < 200 for r in ev["rack"])
    kinds = h["kinds"]
    assert set(kinds["action"]) <= set(range(len(ACTIONS)))
    assert len(kinds["name"]) == len(kinds["repair_h"]) == len(kinds["link"])
    for k, c, down, lost, deg in zip(
        ev["kind"], ev["cost_h"], ev["down_h"], ev["lost_work_h"], ev["degraded_h"], strict=True
    ):
        assert c == pytest.approx(down + lost + deg, rel=2e-3, abs=1e-9)
        # degraded running costs only while the job runs: never more than the whole spell's
        # cost, with its pace's log (sigma <= 1.39 s at s <= 1/2) at most
        assert 0.0 <= deg <= 1.39 * kinds["degraded_h"][k] + 1e-9
    rs = h["rack_states"]
    assert set(rs["state"]) <= set(range(1, len(STATES)))
    assert all(a < b <= 120 * 24 for a, b in zip(rs["from_h"], rs["to_h"], strict=True))
    s = h["series"]
    assert s["t_h"][-1] == 120 * 24
    assert s["goodput"][-1] == h["fraction"]
    assert s["restarts"] == sorted(s["restarts"]) and s["money_lost"][-1] > 0
    jd = h["job_down"]
    # the job's down spells do not overlap; each ended within the horizon is one restart,
    # each begun by an unplanned stop one abort
    assert all(b <= a for a, b in zip(jd["from_h"][1:], jd["to_h"][:-1], strict=True))
    assert s["restarts"][-1] == sum(t < 120 * 24 for t in jd["to_h"])
    assert s["aborts"][-1] == sum(not p for p in jd["planned"]) > 0
    # every hour lost is priced at the job's GPUs x the price of a GPU-hour
    lost_h = s["t_h"][-1] * (1 - h["fraction"])
    assert s["money_lost"][-1] == pytest.approx(lost_h * h["gpus"] * 8.5, rel=1e-3)


def test_a_racks_repair_past_the_horizon_comes_round_to_its_start():
    """Every fault's rack states are painted in full: a repair that runs past the end of the
    history comes round to its start (as the job's stops do), so the hours painted are the
    faults' own spells, none cut at the horizon."""
    from model.reliability.accounting import job_scale
    from model.reliability.history import rack_spells
    from model.reliability.rates import DEFAULT_RATES

    h = history(VR, racks=200, days=20, seed=3)
    eff = job_scale(VR, DEFAULT_RATES, 200, False)
    want = sum(
        min(b - a, 480.0)
        for k in h["events"]["kind"]
        for _, a, b in rack_spells(eff[k], False)
        if b > a
    )
    rs = h["rack_states"]
    got = sum(b - a for a, b in zip(rs["from_h"], rs["to_h"], strict=True))
    assert got == pytest.approx(want, rel=1e-3)
    assert 0.0 in rs["from_h"]  # some repair came round


def test_link_faults_that_stopped_the_job_are_counted_and_priced():
    """The readers' question: on vr-nvl72 without spares a link fault is rerouted and runs
    on until its cartridge swap (a rack-down stop); with reroute off it aborts the job."""
    on = history(VR, racks=100, days=180, seed=5)["link_stops"]
    off_s = parse_query("off=reroute").scenario
    off = history(off_s, racks=100, days=180, seed=5)["link_stops"]
    assert on["link_faults"] == off["link_faults"] > 0  # the same sampled link faults
    assert off["stopped_the_job"] == off["link_faults"]
    assert off["total_cost_h"] > on["total_cost_h"]
    assert len(on["cost_h"]) == on["stopped_the_job"]
    assert sum(on["cost_h"]) == pytest.approx(on["total_cost_h"], rel=1e-3)


def test_what_the_fabric_did_is_the_models_outcome_for_each_kind():
    """vr-nvl72 reroutes a link fault in its ~1 ms stall and runs on; with reroute off it
    aborts; gb200-nvl72 aborts too; with spares a GPU's abort restarts on a spare rack."""

    def act(query: str, kind: str, spares: bool = False) -> str:
        h = history(parse_query(query).scenario, racks=4, days=30, seed=1, spares=spares)
        k = h["kinds"]
        i = k["name"].index(kind)
        return ACTIONS[k["action"][i]] + f" {k['stall_s'][i]}"

    assert act("", "link end") == f"{ACTIONS[1]} 0.001"
    assert act("off=reroute", "link end").startswith("aborted")
    assert act("fabric=gb200-nvl72", "link end").startswith("aborted")
    assert act("", "gpu", spares=True) == f"{ACTIONS[6]} 0.0"
    assert act("off=issu", "switch update").startswith("parked")


def test_against_shares_the_failures_and_lists_where_they_part():
    off_s = parse_query("off=reroute").scenario
    r = against(VR, off_s, racks=100, days=90, seed=2)
    a, b = r["history"], r["against"]
    kinds_a = {a["kinds"]["name"][k] for k in a["events"]["kind"]}
    assert "gpu" in kinds_a
    ga = [
        t
        for t, k in zip(a["events"]["t_h"], a["events"]["kind"], strict=True)
        if a["kinds"]["name"][k] == "gpu"
    ]
    gb = [
        t
        for t, k in zip(b["events"]["t_h"], b["events"]["kind"], strict=True)
        if b["kinds"]["name"][k] == "gpu"
    ]
    assert ga == gb  # the same GPU failures, at the same times
    d = r["difference"]
    assert d["goodput"][-1] == pytest.approx(b["fraction"] - a["fraction"])
    assert d["goodput"][-1] < 0
    assert 0 < r["partings"]["count"] and len(r["partings"]["first"]) <= MAX_PARTINGS
    first = r["partings"]["first"]
    assert all(
        p["action"] != p["action_against"] or p["repair_h"] != p["repair_h_against"] for p in first
    )
    # reroute off: a link fault that was rerouted now aborts the job
    assert any(p["kind"] == "link end" and "aborted" in p["action_against"] for p in first)


def test_a_deferred_repair_parts_two_histories_by_its_time_alone():
    """Spare parts on site: the same faults, met the same way, repaired sooner; each such
    fault is a parting by its repair time, and the job loses less."""
    r = against(VR, parse_query("repair=now,onsite").scenario, racks=50, days=90, seed=6)
    first = r["partings"]["first"]
    assert first and all(p["action"] == p["action_against"] for p in first)
    assert all(p["repair_h_against"] < p["repair_h"] for p in first)
    assert r["difference"]["money_lost"][-1] < 0


MONOTONE_SEEDS = range(30)


@pytest.mark.slow
@pytest.mark.parametrize("racks", [16, 2000])
@pytest.mark.parametrize(
    "feature", ["reroute", "partial-rack", "issu", "hot-swap", "cp-resilience"]
)
def test_a_feature_on_delivers_more_on_the_same_failures(feature, racks):
    """The same 30 seeds, a year, the same checkpoint interval: with the feature on, the job
    delivers more on average, and (for all but cp-resilience, whose faults are rare enough
    that many seeds draw none) on every seed."""
    off_s = parse_query(f"off={feature}").scenario
    tau = checkpoint_interval_s(VR, job_racks=racks, spares=False)
    kw = {"racks": racks, "days": 365, "spares": False, "checkpoint_interval_s": tau}
    d = np.array(
        [
            history(VR, seed=k, **kw)["fraction"] - history(off_s, seed=k, **kw)["fraction"]
            for k in MONOTONE_SEEDS
        ]
    )
    assert d.mean() > 0, d
    if feature != "cp-resilience":
        assert (d > 0).all(), d


# The features that change what a fault does when it strikes and move no stop in time:
# every one of the model's but telemetry, whose only change on a rerouting fabric is a swap
# 24 h sooner (test_telemetry_moves_the_swap_and_can_deliver_less).
PATHWISE = ("cp-resilience", "partial-rack", "hot-swap", "sdr-fallback", "reroute", "issu")
# Float noise: two histories that differ only in a kind no seed draws sum in another order.
NOISE = 1e-12


def _off(base: str, feature: str):
    """The base scenario (empty, or off=<features>) with `feature` off too."""
    off = [f for f in base.removeprefix("off=").split(",") if f]
    return parse_query("off=" + ",".join([*off, feature])).scenario


def _never_less(feature: str, racks: int, days: int, seeds: range, base: str = "") -> None:
    """On every seed, the history with `feature` on (the base scenario) delivers at least
    the history with it off, on the same failures and checkpoint interval."""
    on_s, off_s = parse_query(base).scenario, _off(base, feature)
    tau = checkpoint_interval_s(on_s, job_racks=racks)
    kw = {"racks": racks, "days": days, "checkpoint_interval_s": tau}
    worse = [
        (k, on, off)
        for k in seeds
        if (on := history(on_s, seed=k, **kw)["fraction"])
        < (off := history(off_s, seed=k, **kw)["fraction"]) - NOISE
    ]
    assert not worse, worse


@pytest.mark.parametrize("feature", PATHWISE)
@pytest.mark.parametrize("racks,days", [(1, 365), (16, 60), (300, 7), (2000, 60)])
def test_a_feature_on_never_delivers_less_on_the_same_seed(feature, racks, days):
    """The property (issue 30): each fault draws its own numbers (draws.py), a repair past
    the horizon comes round to its start (every fault charged in full), and degraded running
    costs only while the job runs (pace.py), so a feature that meets each fault at least as
    well never delivers less on the same seed. Seed 37 at 2,000 racks over 60 days was the
    path that broke it (partial-rack on 0.171% against off 0.219%): the degraded running
    after 2,633 GPU restarts was charged in full although the job was down nearly all the
    time, and off ran only in the first hours, before its 24-hour repairs piled up (a
    history then began with none pending). Now on 0.036% against off 0.000% (the closed
    form's 0.026% and 0.000%), and on delivers more on all 12 seeds here."""
    _never_less(feature, racks, days, range(12) if racks == 2000 else range(40))


@pytest.mark.slow
@pytest.mark.parametrize("feature", PATHWISE)
@pytest.mark.parametrize("racks", [1, 16, 300, 2000])
@pytest.mark.parametrize("days", [7, 60, 365])
def test_a_feature_on_never_delivers_less_on_any_seed_swept(feature, racks, days):
    """The property over every size and horizon, on the default fabric and with rerouting
    off (where a link fault aborts and the other features meet it)."""
    seeds = range(10) if racks == 2000 else range(25)
    _never_less(feature, racks, days, seeds)
    if feature != "reroute":
        _never_less(feature, racks, days, seeds, base="off=reroute")


def _pair(base: str, feature: str, seed: int, **kw) -> tuple[dict, dict, float]:
    on_s, off_s = parse_query(base).scenario, _off(base, feature)
    tau = checkpoint_interval_s(on_s, job_racks=kw["racks"], spares=kw.get("spares", False))
    kw = kw | {"checkpoint_interval_s": tau}
    return history(on_s, seed=seed, **kw), history(off_s, seed=seed, **kw), tau / 3600.0


def test_a_parked_job_has_checkpointed_so_giving_up_the_park_can_deliver_less():
    """Where the property fails by the physics of periodic checkpoints, shown: a planned stop
    checkpoints the job on its way down. With spares the update's park is a 10-minute
    restart, shorter than the 2.06 h checkpoint interval of one rack; in-service updates
    save that restart but give up the checkpoint, and when an abort follows within the
    interval the job that ran on loses the work the parked job had saved. Seed 1, one rack,
    a year: on saves 0.17 h of restarts and loses 1.18 h more work (99.604% against
    99.616%). Never more than one interval per update it ran through; without spares the
    park waits the 4.5 h window, longer than an interval, and on never delivers less."""
    on, off, tau = _pair("", "issu", 1, racks=1, days=365, spares=True)
    assert on["fraction"] < off["fraction"]
    ev_on, ev_off = on["events"], off["events"]
    update = off["kinds"]["name"].index("switch update")
    updates = sum(k == update for k in ev_off["kind"])
    assert updates > 0
    # in service on, an update stops nothing: listed only for its drained trays' slower
    # running, never with down time or lost work
    in_service = [i for i, k in enumerate(ev_on["kind"]) if k == update]
    assert all(ev_on["down_h"][i] == ev_on["lost_work_h"][i] == 0.0 for i in in_service)
    others = zip(ev_off["t_h"], ev_off["kind"], strict=True)
    mine = [t for t, k in zip(ev_on["t_h"], ev_on["kind"], strict=True) if k != update]
    assert mine == [t for t, k in others if k != update]
    lost = sum(ev_on["lost_work_h"]) - sum(ev_off["lost_work_h"])
    down = sum(ev_on["down_h"]) - sum(ev_off["down_h"])
    assert down < 0 < lost  # less down time, more work lost
    assert (off["fraction"] - on["fraction"]) * 365 * 24 <= updates * tau
    on, off, _ = _pair("", "issu", 1, racks=1, days=365, spares=False)
    assert on["fraction"] >= off["fraction"]


def test_telemetry_moves_the_swap_and_can_deliver_less():
    """Telemetry drains a flaky link on purpose (a planned stop, not an abort) and, with no
    diagnosis to wait for, swaps its cartridge 24 h sooner. Moving the swap moves a 4-hour
    rack-down stop: on one path it lands while the job runs where, a day later, it would
    have shared another outage. Seed 24, 16 racks, 7 days, rerouting off: on pays 4.0 h
    more repair wait (78.76% against 81.03%). Over a year it pays on every seed: +0.96 pp
    on average (40 seeds); with rerouting on it moves the swap and nothing else."""
    on, off, _ = _pair("off=reroute", "telemetry", 24, racks=16, days=7)
    assert on["fraction"] < off["fraction"]
    assert on["events"]["t_h"] == off["events"]["t_h"]  # the same faults, at the same times
    d = [_pair("off=reroute", "telemetry", k, racks=16, days=365) for k in range(10)]
    gain = np.array([a["fraction"] - b["fraction"] for a, b, _ in d])
    assert (gain > 0).all(), gain


@pytest.mark.parametrize(
    "kw,token",
    [
        ({"racks": 0}, "racks"),
        ({"racks": 2001}, "racks"),
        ({"racks": 2.5}, "racks"),
        ({"days": 0}, "days"),
        ({"days": 366}, "days"),
        ({"seed": -1}, "seed"),
        ({"seed": True}, "seed"),
    ],
)
def test_out_of_bounds_is_refused_by_name(kw, token):
    args = {"racks": 10, "days": 30, "seed": 1} | kw
    with pytest.raises(ScenarioError) as e:
        history(VR, **args)
    assert e.value.token == token


@pytest.mark.parametrize("racks,spares", [(1, False), (16, False), (300, True)])
def test_the_running_line_is_the_down_spells_integrated(racks, spares):
    """series['running'] (the job's state as a line: the share of each span it ran) adds up
    to the hours outside the job's down spells, and is 1 where no spell touches a span."""
    h = history(VR, racks=racks, days=120, seed=5, spares=spares)
    run = np.array(h["series"]["running"][1:])
    tt = np.array(h["series"]["t_h"])
    down = sum(b - a for a, b in zip(h["job_down"]["from_h"], h["job_down"]["to_h"], strict=True))
    assert (run * np.diff(tt)).sum() == pytest.approx(120 * 24 - down, rel=1e-3)
    assert ((run >= 0) & (run <= 1)).all()
    if h["job_down"]["from_h"]:
        first = h["job_down"]["from_h"][0]
        assert (run[tt[1:] <= first] == 1.0).all()


def test_the_partings_in_a_span_are_the_partings_whose_time_is_in_it():
    """partings_between (what the page lists around a time, past the first MAX_PARTINGS) is
    the whole list's faults in that span, each as the whole list words it."""
    from model.reliability.against import partings_between

    r = against(VR, parse_query("off=reroute").scenario, racks=300, days=30, seed=4)
    a, b = r["history"], r["against"]
    every = partings_between(a, b, 0.0, 30 * 24.0)
    assert len(every) == r["partings"]["count"] > len(r["partings"]["first"])
    assert every[: len(r["partings"]["first"])] == r["partings"]["first"]
    t0, t1 = 20 * 24.0, 25 * 24.0
    assert partings_between(a, b, t0, t1) == [p for p in every if t0 <= p["t_h"] <= t1]
