"""The job's pace while it runs degraded, on the path itself: each fault's degraded running is
a spell in time, and it slows the job only while the job runs.

A fault the job runs through (rerouted, or restarted on fewer GPUs) costs `degraded_h`
full-rate hours over its spell, from when the job runs on (after the fault's own stop) until
the stop that ends it (the swap) or its repair. Spread evenly, the spell multiplies the pace
by 1 - s (s = degraded_h / its length); overlapping spells multiply. A spell that falls while
the job is down (another fault's restart or repair) costs nothing: the job was not running.
Over Poisson spells independent of the job's state the expected pace is exp(-sum of rate x
degraded_h), the closed form's (goodput.closed_form), whatever the spells' lengths. The
parts waiting for a repair visit (policy.WAITING) slow every hour alike: a constant factor.
"""

from __future__ import annotations

import numpy as np

from model.reliability.draws import wrapped
from model.reliability.effects import Effect
from model.reliability.policy import WAITING

# [A] a spell is never shorter than twice its cost, so no spell stops the job (s <= 1/2).
_MIN_SPELL_PER_COST = 2.0


def spell_window(e: Effect) -> tuple[float, float]:
    """When a fault's degraded running starts (hours after it: when its own stop, if any, is
    over) and how long it lasts (until the later stop that ends it, or its repair)."""
    first = e.stops[0] if e.stops and e.stops[0].offset_h == 0.0 else None
    start = first.detect_h + first.wait_h + first.restart_h if first is not None else 0.0
    later = [st.offset_h for st in e.stops if st.offset_h > 0.0]
    end = later[0] if later else max(e.repair_h, start + e.spell_h)
    return start, max(end - start, _MIN_SPELL_PER_COST * e.degraded_h)


def _pieces(e: Effect) -> tuple[tuple[float, float, float], ...]:
    """A fault's degraded running as (start, length, cost) pieces after the fault: its
    running slowdown over its spell, and a hot swap's extra over the swap's last hours
    (the parts swapped at the end of the repair), so a swap the job sits out costs it
    nothing, as a stop there would not."""
    start, length = spell_window(e)
    main = e.degraded_h - e.swap_cost_h
    out = [(start, max(length, _MIN_SPELL_PER_COST * main), main)] if main > 0.0 else []
    if e.swap_cost_h > 0.0:
        swap = max(e.swap_h, _MIN_SPELL_PER_COST * e.swap_cost_h)
        out.append((start + length - e.swap_h, swap, e.swap_cost_h))
    return tuple(out)


def spells(
    eff: tuple[Effect, ...], faults: dict[str, np.ndarray], hours: float
) -> dict[str, np.ndarray]:
    """Every fault's degraded spells (_pieces): its unit, from, to, the log of the pace factor
    each multiplies in (sigma = -log(1 - s)), and its fault's row. The part of a spell past
    the horizon comes round to its start (draws.wrapped): two rows of the same fault."""
    kind = faults["kind"]
    keep = np.array([e.name != WAITING for e in eff], bool)
    rows, off, length, cost = [], [], [], []
    for k, e in enumerate(eff):
        if not keep[k] or e.degraded_h <= 0.0:
            continue
        mine = np.flatnonzero(kind == k)
        for start, span, c in _pieces(e):
            rows.append(mine)
            off.append(np.full(len(mine), start))
            length.append(np.full(len(mine), span))
            cost.append(np.full(len(mine), c))
    if rows:
        rows_a, off_a = np.concatenate(rows), np.concatenate(off)
        len_a, cost_a = np.concatenate(length), np.concatenate(cost)
    else:
        rows_a = np.zeros(0, dtype=int)
        off_a = len_a = cost_a = np.zeros(0)
    a = wrapped(faults["t"][rows_a] + off_a, hours)
    span = np.minimum(len_a, hours)
    over = np.maximum(a + span - hours, 0.0)  # the part past the horizon comes round
    sigma = -np.log1p(-cost_a / len_a) if len(len_a) else np.zeros(0)
    two = over > 0.0
    unit = faults["unit"][rows_a]
    return {
        "unit": np.concatenate([unit, unit[two]]),
        "a": np.concatenate([a, np.zeros(int(two.sum()))]),
        "b": np.concatenate([np.minimum(a + span, hours), over[two]]),
        "sigma": np.concatenate([sigma, sigma[two]]),
        "fault": np.concatenate([rows_a, rows_a[two]]),
    }


def steady(eff: tuple[Effect, ...]) -> float:
    """The log pace of the parts waiting for a visit: every hour alike."""
    return sum(e.rate_per_h * e.degraded_h for e in eff if e.name == WAITING)


def table(sp: dict[str, np.ndarray], sigma0: float, units: int, hours: float) -> dict:
    """The job's lost pace integrated over time, C(x) = integral of 1 - pace, on one axis of
    every unit side by side (unit u at u x span): piecewise linear between its knots."""
    span = hours + 1.0
    off = sp["unit"] * span
    x = np.concatenate([sp["a"] + off, sp["b"] + off])
    ds = np.concatenate([sp["sigma"], -sp["sigma"]])
    order = np.argsort(x, kind="stable")
    x, ds = x[order], ds[order]
    level = np.maximum(np.cumsum(ds), 0.0)  # the log pace after each knot, within its unit
    knots = np.concatenate([[0.0], x, [units * span]])
    slope = -np.expm1(-(sigma0 + np.concatenate([[0.0], level])))
    c = np.concatenate([[0.0], np.cumsum(slope * np.diff(knots))])
    return {"x": knots, "c": c, "span": span, "slope0": float(-np.expm1(-sigma0))}


def lost_between(tab: dict, unit: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integral of 1 - pace over [a, b] of each unit (hours of running time lost to it)."""
    off = unit * tab["span"]
    return np.interp(b + off, tab["x"], tab["c"]) - np.interp(a + off, tab["x"], tab["c"])


def run_losses(tab: dict, unit: np.ndarray, a: np.ndarray, b: np.ndarray, prod: np.ndarray):
    """The work each run [a, b] loses to degraded running: its productive share of the run
    (prod / length: its work, not its checkpoint writes or the work a stop loses) times the
    running hours the pace lost over it."""
    length = b - a
    share = np.divide(prod, length, out=np.zeros_like(prod), where=length > 0.0)
    return share * lost_between(tab, unit, a, b)


def fault_losses(
    sp: dict[str, np.ndarray], runs: dict[str, np.ndarray], sigma0: float, total: float
) -> tuple[np.ndarray, float]:
    """One unit's degraded loss `total` shared among its spells (and the parts waiting for a
    visit): each in proportion to its log pace times the productive running hours within it.
    runs: the unit's runs in time order (a, b, share: their productive share)."""
    knots = np.column_stack([runs["a"], runs["b"]]).ravel()
    done = np.cumsum(runs["share"] * (runs["b"] - runs["a"]))
    vals = np.column_stack([done - runs["share"] * (runs["b"] - runs["a"]), done]).ravel()
    if knots.size == 0:
        return np.zeros(sp["a"].size), 0.0
    inside = np.interp(sp["b"], knots, vals) - np.interp(sp["a"], knots, vals)
    w = sp["sigma"] * inside
    w0 = sigma0 * float(vals[-1])
    whole = float(w.sum()) + w0
    if whole <= 0.0:
        return np.zeros(sp["a"].size), 0.0
    return total * w / whole, total * w0 / whole
