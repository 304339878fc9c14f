"""The Monte Carlo's random numbers: every fault's own draws, common to every feature set.

Same key, same draws, on every machine (SHA-256 seeds). Each kind of fault draws from streams
of its own, named by the physical fault it is (Effect.stream: a flaky link flagged by
telemetry and the same link left to fail are one stream), and each purpose has a stream of
its own: how many faults (one uniform a unit, turned into a Poisson count by its inverse
CDF, so a higher rate draws the same faults and more), when the k-th strikes, and which rack
of the job. A feature that changes what a fault does, or how often a kind strikes, changes
only those faults, never the numbers another fault draws (common random numbers).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from model.reliability.effects import Effect
from model.reliability.policy import WAITING

# Every stop's columns, as the walk reads them (model/reliability/walk.py).
STOP_COLS = ("rack", "t", "planned", "wait", "cause", "restart", "detect", "fault")
# [A] a Poisson count's inverse CDF is tabled over its mean +- this many standard deviations
# (the mass outside is below 1e-30: no uniform of a double lands there).
_SIGMAS = 14.0


def rng(key: str, salt: str) -> np.random.Generator:
    """A Generator seeded from a string by SHA-256 (stable across runs and processes)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def poisson_counts(mean: float, u: np.ndarray) -> np.ndarray:
    """Poisson(mean) counts by the inverse CDF at uniforms u: monotone in the mean, so on
    the same uniform a kind that strikes more often draws at least as many faults."""
    if mean <= 0.0:
        return np.zeros(u.size, dtype=np.int64)
    half = _SIGMAS * math.sqrt(mean) + 20.0
    lo, mode = max(0, int(mean - half)), int(mean)
    k = np.arange(lo, int(mean + half) + 1, dtype=np.float64)
    # log pmf relative to the mode's by running sums of log(mean / k) (no overflow at any
    # mean); the step at k = 0 cancels in every difference, so any finite value does
    c = np.cumsum(np.log(mean / np.maximum(k, 1.0)))
    at_mode = mode * math.log(mean) - mean - math.lgamma(mode + 1.0)
    cdf = np.cumsum(np.exp(c - c[mode - lo] + at_mode))
    cdf /= cdf[-1]
    return (lo + np.searchsorted(cdf, u, side="right")).astype(np.int64)


def _prefix(gen: np.random.Generator, n: np.ndarray, draw) -> np.ndarray:
    """Unit r's first n[r] values of its own column of one (most, units) table drawn row by
    row: the k-th fault of a unit gets the same number whatever the counts."""
    most = int(n.max()) if n.size else 0
    table = draw(gen, (most, n.size)).T
    return table[np.arange(most)[None, :] < n[:, None]]


def sample(
    eff: tuple[Effect, ...], units: int, hours: float, key: str, where: int = 1
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every fault of every unit over `hours` (kind index, unit, time, which of `where` racks
    of a job it struck) and the stops they cause (STOP_COLS; `fault` is a stop's row in the
    faults). Every fault's stops are charged: one beyond the horizon comes round to its
    start (wrapped). Kinds with no stops and no degraded
    running draw nothing; the bookkeeping kind of parts waiting for a visit is spread over
    time by the pace (pace.py), not drawn."""
    cols: dict[str, list[np.ndarray]] = {k: [] for k in STOP_COLS}
    faults: dict[str, list[np.ndarray]] = {"kind": [], "unit": [], "t": [], "rack": []}
    n_faults = 0
    for i, e in enumerate(eff):
        if e.rate_per_h <= 0.0 or e.name == WAITING or not (e.stops or e.degraded_h > 0.0):
            continue
        name = e.stream or e.name
        n = poisson_counts(e.rate_per_h * hours, rng(key, f"{name}:count").random(units))
        unit = np.repeat(np.arange(units, dtype=np.int64), n)
        t0 = _prefix(rng(key, f"{name}:t"), n, lambda g, sz: g.random(sz)) * hours
        struck = _prefix(rng(key, f"{name}:rack"), n, lambda g, sz: g.integers(0, where, sz))
        ids = n_faults + np.arange(unit.size, dtype=np.int64)
        n_faults += unit.size
        for k, v in (("kind", np.full(unit.size, i, np.int32)), ("unit", unit), ("t", t0)):
            faults[k].append(v)
        faults["rack"].append(struck.astype(np.int64))
        for st in e.stops:
            m = unit.size
            cols["rack"].append(unit)
            cols["t"].append(wrapped(t0 + st.offset_h, hours))
            cols["planned"].append(np.full(m, st.planned))
            cols["wait"].append(np.full(m, st.wait_h))
            cols["cause"].append(np.full(m, st.wait_cause, dtype=np.int8))
            cols["restart"].append(np.full(m, st.restart_h))
            cols["detect"].append(np.full(m, st.detect_h))
            cols["fault"].append(ids)
    stops = joined(cols, {"rack": np.int64, "planned": bool, "cause": np.int8, "fault": np.int64})
    return stops, joined(faults, {"kind": np.int32, "unit": np.int64, "rack": np.int64})


def wrapped(t: np.ndarray, hours: float) -> np.ndarray:
    """Times on a horizon that comes round: a history is one period of a job in its steady
    state, so a repair that falls past its end lands at its start, as the repair of a fault
    struck before it began. Every fault in the horizon is then charged in full, and two
    feature sets that repair the same fault at different times both pay for it (one model
    of the horizon for the closed form's steady state and for any pair of histories)."""
    return np.where(t < hours, t, np.mod(t, hours))


def joined(cols: dict[str, list[np.ndarray]], dtypes: dict[str, type]) -> dict:
    """Each column's pieces as one array (an empty one of its type when there are none)."""
    return {
        k: np.concatenate(v) if v else np.zeros(0, dtype=dtypes.get(k, float))
        for k, v in cols.items()
    }
