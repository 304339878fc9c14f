"""Every fault's own random numbers (model/reliability/draws.py) and degraded running on the
path (model/reliability/pace.py): what makes two feature sets' histories comparable fault by
fault."""

from __future__ import annotations

import math

import numpy as np
import pytest

from model.reliability.draws import poisson_counts, sample, wrapped
from model.reliability.effects import REPAIR_WAIT, Effect, Stop
from model.reliability.pace import lost_between, spells, steady, table
from model.reliability.walk import timeline


@pytest.mark.parametrize("mean", [1e-4, 0.7, 12.0, 2600.0, 4.9e6])
def test_poisson_counts_are_poisson_by_the_inverse_cdf(mean):
    u = np.random.default_rng(3).random(100_000)
    n = poisson_counts(mean, u)
    se = math.sqrt(mean / u.size)
    assert abs(n.mean() - mean) < 5 * se
    assert n.var() == pytest.approx(mean, rel=0.05, abs=5e-4)


def test_poisson_counts_at_the_edges_of_the_cdf():
    """P(0) = e^-3 = 0.0498 and P(<= 1) = 4 e^-3 = 0.199 at a mean of 3."""
    u = np.array([0.0, 0.0497, 0.0499, 0.1990, 0.1993])
    assert poisson_counts(3.0, u).tolist() == [0, 0, 1, 1, 2]
    assert poisson_counts(0.0, u).tolist() == [0] * 5


def test_a_higher_mean_never_draws_fewer_on_the_same_uniforms():
    u = np.random.default_rng(4).random(20_000)
    lo, hi = poisson_counts(40.0, u), poisson_counts(41.5, u)
    assert (hi >= lo).all() and (hi > lo).any()


def _kind(name: str, rate: float, wait: float = 1.0, **kw) -> Effect:
    return Effect(name, rate, (Stop(0.0, False, wait, REPAIR_WAIT, 0.1, 0.05),), 0.0, **kw)


def test_a_kind_that_strikes_more_often_has_the_same_faults_and_more():
    """Common random numbers per fault: the k-th fault of a kind strikes at the same time in
    the same rack whatever its rate, and another kind's faults do not move at all."""
    few = (_kind("gpu", 0.01), _kind("link", 0.02))
    more = (_kind("gpu", 0.03), _kind("link", 0.02))
    _, fa = sample(few, 1, 2000.0, "k", where=50)
    _, fb = sample(more, 1, 2000.0, "k", where=50)
    for k in (0, 1):
        a = {(t, r) for t, r, kk in zip(fa["t"], fa["rack"], fa["kind"], strict=True) if kk == k}
        b = {(t, r) for t, r, kk in zip(fb["t"], fb["rack"], fb["kind"], strict=True) if kk == k}
        assert a <= b if k == 0 else a == b
    assert (fb["kind"] == 0).sum() > (fa["kind"] == 0).sum() > 0


def test_a_flaky_link_flagged_or_left_to_fail_is_one_fault():
    a = (_kind("link, flagged", 0.01, stream="link, flaky"),)
    b = (_kind("link, flaky then failed", 0.01, wait=3.0, stream="link, flaky"),)
    assert sample(a, 1, 5000.0, "k")[1]["t"].tolist() == sample(b, 1, 5000.0, "k")[1]["t"].tolist()


def test_a_repair_past_the_horizon_comes_round_to_its_start():
    """Every fault's stops are charged: one past the end lands at the start."""
    late = (Effect("x", 0.05, (Stop(30.0, True, 4.0, REPAIR_WAIT, 0.1),), 0.0),)
    stops, faults = sample(late, 1, 100.0, "k")
    assert stops["t"].size == faults["t"].size > 0
    assert np.allclose(stops["t"], wrapped(faults["t"] + 30.0, 100.0))
    assert (stops["t"] < 100.0).all()


def test_degraded_running_costs_only_while_the_job_runs():
    """A spell the job spends down costs nothing; the same spell while it runs costs its
    degraded hours (the pace 1 - s over the spell, first order: s x length)."""
    runs_on = Effect("slow", 0.0, (), 0.5, repair_h=20.0)  # rate 0: placed by hand below
    eff = (runs_on,)
    faults = {
        "kind": np.array([0], np.int32),
        "unit": np.array([0]),
        "t": np.array([10.0]),
        "rack": np.array([0]),
    }
    sp = spells(eff, faults, 100.0)
    assert sp["a"].tolist() == [10.0] and sp["b"].tolist() == [30.0]
    tab = table(sp, steady(eff), 1, 100.0)
    whole = float(lost_between(tab, np.array([0]), np.array([0.0]), np.array([100.0]))[0])
    assert whole == pytest.approx(0.5, rel=1e-9)  # 20 h at 1 - s, s = 0.5 / 20
    away = float(lost_between(tab, np.array([0]), np.array([40.0]), np.array([100.0]))[0])
    assert away == 0.0


def test_the_walk_charges_a_spell_only_where_the_job_runs():
    """The same degraded fault, once while the job runs and once inside another fault's long
    repair: the second costs no degraded work."""
    slow = Effect("slow", 1e-9, (), 2.0, repair_h=20.0)
    stop = Effect("stop", 1e-9, (Stop(0.0, False, 50.0, REPAIR_WAIT, 0.0),), 0.0)
    eff = (slow, stop)
    ev = {
        "rack": np.array([0]),
        "t": np.array([5.0]),
        "planned": np.array([False]),
        "wait": np.array([50.0]),
        "cause": np.array([REPAIR_WAIT], np.int8),
        "restart": np.array([0.0]),
        "detect": np.array([0.0]),
        "fault": np.array([1]),
    }
    for t_slow, costs in ((100.0, True), (20.0, False)):
        faults = {
            "kind": np.array([0, 1], np.int32),
            "unit": np.array([0, 0]),
            "t": np.array([t_slow, 5.0]),
            "rack": np.array([0, 0]),
        }
        tot = timeline(ev, faults, eff, 1, (200.0, 1.0, 0.01))
        assert bool(tot["degraded"][0] > 1.0) is costs, tot["degraded"]
