"""Latency under load (model/fabric/metrics.py): M/M/1 at the busier port, and honest at the
edge: a load the remaining links cannot carry is an unstable queue, never a capped number."""

import math

import numpy as np
import pytest

from model import assess, evaluate, parse_query
from model.fabric import metrics as M
from model.fabric.metrics import latency_distribution, unstable_gpus, wait_mixture


def _lat(q: str) -> dict:
    return evaluate(parse_query(q).scenario)["latency_us"]


def test_a_load_the_links_cannot_carry_is_unstable_not_capped():
    # gb200 with 8 of 9 trays down: 2 of 18 planes carry a load sized for 9 (rho = 4.5)
    r = _lat("fabric=gb200-nvl72&fail=st2,st3,st4,st5,st6,st7,st8,st9&on=reroute")
    assert r["p50"] is None and r["p99"] is None
    assert r["unstable_share"] == 1.0 and "unstable" in r["unstable"]
    # vr-nvl72: 16 of 36 planes (5 trays down) cannot carry 50% of 36 planes' worth; 20 can
    assert _lat("fail=st2,st3,st4,st5,st6")["p99"] is None
    ok = _lat("fail=st2,st3,st4,st5")
    assert ok["p99"] is not None and "unstable" not in ok


def test_one_starved_gpu_makes_only_its_pairs_unstable():
    # gpu07 with 16 of 36 links left is offered more than it carries; the other 71 are fine
    links = ",".join(f"gpu07-st{t}.sw{c}" for t in range(1, 6) for c in range(4))[:None]
    s = parse_query(f"fail={links}").scenario
    a = assess(s)
    assert unstable_gpus(a.state) == 1
    r = evaluate(s)["latency_us"]
    share = 2 * 71 / (72 * 71)  # ordered pairs with gpu07 at one end
    assert math.isclose(r["unstable_share"], share, rel_tol=1e-5)
    assert r["p50"] is not None and r["p99"] is None  # 2.8% of pairs > 1%
    d = latency_distribution(a.state)
    assert math.isclose(d["cdf"][-1], 1 - share, abs_tol=2e-4)  # the CDF never reaches 1


def test_the_mixture_is_finite_below_capacity_and_unbounded_at_it():
    import numpy as np

    below = wait_mixture(np.array([36.0, 36.0, 19.0]), 36, 1e-7, (0.35,))
    assert below.unstable_share == 0.0 and math.isfinite(below.quantile_us(0.99))
    at = wait_mixture(np.array([36.0, 36.0, 18.0]), 36, 1e-7, (0.35,))
    assert at.unstable_share > 0 and at.quantile_us(0.99) == math.inf


@pytest.mark.parametrize("rho", [0.05, 0.3, 0.7, 0.95, 0.995])
@pytest.mark.parametrize("q", [0.5, 0.99, 0.999])
def test_one_queue_quantile_is_the_closed_form(rho, q):
    """One M/M/1 queue: P(W > t) = rho exp(-(1 - rho) t / s), so the q-quantile is
    s ln(rho / (1 - q)) / (1 - rho) where rho > 1 - q, else 0."""
    s = 2e-7
    got = M._mm1_quantile(np.array([rho]), np.array([1.0]), s, q)
    want = max(0.0, s * math.log(rho / (1 - q)) / (1 - rho))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-22)


def test_a_mixture_quantile_solves_its_tail():
    """Several queues at once: the quantile t has the mixture's tail equal to 1 - q."""
    rhos, w, s = np.array([0.2, 0.6, 0.9, 0.97]), np.array([0.4, 0.3, 0.2, 0.1]), 1e-7
    for q in (0.9, 0.99, 0.9999):
        t = M._mm1_quantile(rhos, w, s, q)
        tail = float(np.sum(w * rhos * np.exp(-(1 - rhos) * t / s)))
        assert tail == pytest.approx(1 - q, rel=1e-10)
        assert t > M._mm1_quantile(rhos, w, s, q - (1 - q))  # a lower quantile comes sooner
