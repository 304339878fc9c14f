"""A throughput-interactivity curve read from measured runs, the way InferenceX draws one.

InferenceX's frontier between two runs is not a measurement: its dashboard keeps the runs no
other run beats on both axes (the Pareto runs) and joins them by a monotone cubic Hermite
interpolation (its blog's "monotone-cubic-Hermite Pareto interpolation"). Held against it,
the model's own frontier (the best of every deployment, most never run) mixes two things: the
model's error, and the ground between runs nobody measured. `read` draws the same kind of curve
through any set of runs, so the model at InferenceX's own runs can be read exactly as
InferenceX reads its measurements (model/workloads/checks.py).
"""

from __future__ import annotations

import numpy as np


def pareto(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The (interactivity, throughput) points no other point beats on both, by interactivity."""
    pts = sorted(set(points))
    return [p for p in pts if not any(q != p and q[0] >= p[0] and q[1] >= p[1] for q in pts)]


def _end_slope(h0: float, h1: float, d0: float, d1: float) -> float:
    """Fritsch-Carlson's one-sided slope at an end, kept monotone."""
    m = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
    if np.sign(m) != np.sign(d0):
        return 0.0
    if np.sign(d0) != np.sign(d1) and abs(m) > abs(3 * d0):
        return 3 * d0
    return m


def _slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each knot's slope (Fritsch-Carlson): a weighted harmonic mean of the two secants, zero
    where they differ in sign, so the curve never overshoots its data."""
    h, d = np.diff(x), np.diff(y) / np.diff(x)
    m = np.zeros(len(x))
    if len(x) == 2:
        return np.full(2, d[0])
    for k in range(1, len(x) - 1):
        if d[k - 1] * d[k] > 0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
    m[0] = _end_slope(h[0], h[1], d[0], d[1])
    m[-1] = _end_slope(h[-1], h[-2], d[-1], d[-2])
    return m


def monotone_cubic(x, y, xq) -> np.ndarray:
    """The monotone cubic Hermite interpolant through (x, y) (x increasing) at xq; NaN
    outside [x[0], x[-1]]: a curve is not read beyond its runs."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    xq = np.atleast_1d(np.asarray(xq, dtype=float))
    m = _slopes(x, y)
    k = np.clip(np.searchsorted(x, xq) - 1, 0, len(x) - 2)
    h = x[k + 1] - x[k]
    t = (xq - x[k]) / h
    out = (
        (2 * t**3 - 3 * t**2 + 1) * y[k]
        + (t**3 - 2 * t**2 + t) * h * m[k]
        + (-2 * t**3 + 3 * t**2) * y[k + 1]
        + (t**3 - t**2) * h * m[k + 1]
    )
    return np.where((xq >= x[0]) & (xq <= x[-1]), out, np.nan)


def read(points: list[tuple[float, float]], xq) -> np.ndarray:
    """The curve through the Pareto runs of `points` ((tok/s/user, tok/s/GPU) each) at
    interactivities xq: what a frontier drawn from these runs shows there."""
    front = pareto(points)
    if len(front) < 2:
        return np.full(np.atleast_1d(xq).shape, np.nan)
    x, y = zip(*front, strict=True)
    return monotone_cubic(x, y, xq)
