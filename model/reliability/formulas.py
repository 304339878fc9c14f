"""Checkpoint and restart formulas (research/goodput.md F2, F3): Young, Daly, Meta.

Pure functions of numbers; the rack model uses daly_interval for its checkpoint interval
and the tests check the Monte Carlo against daly_ettr.
"""

from __future__ import annotations

import math


def young_interval(w: float, m: float) -> float:
    """Young's optimum checkpoint interval sqrt(2 w M) (w write time, M MTBF; same units)."""
    return math.sqrt(2.0 * w * m)


def daly_interval(w: float, m: float, r: float = 0.0, *, higher_order: bool = False) -> float:
    """Daly's optimum interval: first order sqrt(2 w (M + R)); or his higher-order form.

    Higher order (Daly 2006): sqrt(2wM) [1 + sqrt(w/2M)/3 + (w/2M)/9] - w for w < 2M, else M.
    """
    if not higher_order:
        return math.sqrt(2.0 * w * (m + r))
    if w >= 2.0 * m:
        return m
    x = w / (2.0 * m)
    return math.sqrt(2.0 * w * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - w


def daly_expected_wall_time(ts: float, tau: float, w: float, m: float, r: float) -> float:
    """Daly's exact expected wall time for solve time ts: M e^(R/M) (e^((tau+w)/M) - 1) ts/tau.

    Exponential failures with MTBF m, checkpoint every tau of work, write w, restart r.
    """
    return m * math.exp(r / m) * math.expm1((tau + w) / m) * ts / tau


def daly_ettr(tau: float, w: float, m: float, r: float) -> float:
    """Effective training time ratio under Daly's exact model: ts / expected wall time."""
    return 1.0 / daly_expected_wall_time(1.0, tau, w, m, r)


def meta_ettr(lam: float, u0: float, tau: float, w: float) -> float:
    """Meta's closed form E[ETTR] = (1 - lam (u0 + tau/2)) / (1 + w/tau) (small losses)."""
    return (1.0 - lam * (u0 + tau / 2.0)) / (1.0 + w / tau)
