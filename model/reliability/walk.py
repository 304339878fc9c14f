"""The Monte Carlo's walk: every unit's stops in time order, and the job's runs and down
times between them, exact (overlaps, failures during restarts, the checkpoint phase);
vectorised, with no per-event Python loop. The work of each run is slowed by the degraded
spells it runs through (pace.py)."""

from __future__ import annotations

import numpy as np

from model.reliability import pace
from model.reliability.draws import STOP_COLS
from model.reliability.effects import CAUSE_OF_CODE, CAUSES, RESTARTS, Effect


def saved(span: np.ndarray | float, tau: float, w: float) -> np.ndarray:
    """Productive hours of a run of `span` hours that keeps its work (a planned stop, the
    horizon): whole segments of tau work + w write, then the partial segment's work."""
    seg = tau + w
    k = np.floor(span / seg)
    rem = span - k * seg
    return k * tau + np.minimum(rem, tau)


def _in_order(ev: dict[str, np.ndarray], hours: float) -> dict[str, np.ndarray]:
    """The stops sorted by rack, then time, with each one's rack `offset` on one shared axis
    (so one running max walks every rack at once)."""
    # One float key orders by rack, then time (span exceeds any time or end in a rack).
    span = hours + float((ev["wait"] + ev["restart"] + ev["detect"]).max()) + 1.0
    offset = ev["rack"] * span
    order = np.argsort(offset + ev["t"])
    out = {k: ev[k][order] for k in STOP_COLS}
    out["offset"] = offset[order]
    return out


def _walk(s: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """When the job is back after each stop, end_i = max(end_{i-1}, the stop's own end) within
    its rack, and the index of the stop that set it (an earlier, longer down time)."""
    shifted = s["t"] + s["detect"] + s["wait"] + s["restart"] + s["offset"]
    cm_shift = np.maximum.accumulate(shifted)
    idx = np.arange(shifted.size)
    setter = np.maximum.accumulate(np.where(shifted >= cm_shift, idx, 0))
    return cm_shift - s["offset"], setter


def _neighbours(
    rack: np.ndarray, t: np.ndarray, cm: np.ndarray, hours: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each stop: when the job was back before it (0 for a rack's first), when the next
    stop strikes (the horizon after a rack's last), and whether it is its rack's last."""
    n = t.size
    first = np.ones(n, bool)
    first[1:] = rack[1:] != rack[:-1]
    last = np.ones(n, bool)
    last[:-1] = rack[1:] != rack[:-1]
    prev_end = np.empty(n)
    prev_end[0] = 0.0
    prev_end[1:] = cm[:-1]
    prev_end[first] = 0.0
    t_next = np.empty(n)
    t_next[:-1] = t[1:]
    t_next[last] = hours
    return prev_end, t_next, last


def _runs(
    run: np.ndarray, planned: np.ndarray, tau: float, w: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run that ends at each stop, split into productive work, lost work (an unplanned
    stop loses the partial segment, a planned one saves it) and checkpoint writes."""
    seg = tau + w
    k = np.floor(run / seg)
    rem = run - k * seg
    prod = k * tau + np.where(planned, np.minimum(rem, tau), 0.0)
    lost = np.where(planned, 0.0, rem)
    return prod, lost, run - prod - lost


def _down(
    s: dict[str, np.ndarray], t_next: np.ndarray, cm: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The down time after each stop, until the next stop or the job is back, split into
    detection (the hang, until it is noticed), the wait, the restart, and the rest of an
    earlier, longer down time."""
    covered = np.maximum(np.minimum(t_next, cm) - s["t"], 0.0)
    d = np.minimum(covered, s["detect"])
    a = np.minimum(covered - d, s["wait"])
    b = np.minimum(covered - d - a, s["restart"])
    return d, a, b, covered - d - a - b


def _add(tot: dict[str, np.ndarray], name: str, rack: np.ndarray, vals: np.ndarray) -> None:
    """Add each stop's hours to its rack's total of `name`."""
    tot[name] += np.bincount(rack, weights=vals, minlength=tot[name].size)


def walked(ev: dict[str, np.ndarray], hours: float, tau: float, w: float) -> dict[str, np.ndarray]:
    """Every rack's stops walked in time order, vectorised (no per-event Python loop): the
    stops sorted by rack and time, each with when the job is back after it (`end`), the run
    before it split into productive, lost and checkpoint hours, and the down time after it
    split into detection, wait, restart and the rest of an earlier, longer down time.

    After stop i the job is back at end_i = max(end_{i-1}, t_i + wait_i + restart_i): a
    stop that lands during an earlier down time or restart extends it (Daly: a failure
    during a restart restarts it). Between end_{i-1} and t_i the job runs segments of tau
    work + w write; an unplanned stop loses the partial segment, a planned one saves it.

    The horizon comes round (draws.wrapped): a down time that runs past it holds the job at
    its start for the rest (a stop at 0 with that wait, of the fault that set it), so every
    fault's down time is charged in full.
    """
    x = _walked_once(ev, hours, tau, w)
    ls = np.flatnonzero(x["last"])
    over = x["end"][ls] - hours
    ls, over = ls[over > 0.0], over[over > 0.0]
    if not ls.size:
        return x
    m = ls.size
    carried = {
        "rack": x["rack"][ls],
        "t": np.zeros(m),
        "planned": np.ones(m, bool),
        "wait": over,
        "cause": x["extra_code"][ls].astype(np.int8),
        "restart": np.zeros(m),
        "detect": np.zeros(m),
        "fault": x["fault"][x["setter"][ls]],
    }
    return _walked_once({k: np.concatenate([carried[k], ev[k]]) for k in STOP_COLS}, hours, tau, w)


def _walked_once(
    ev: dict[str, np.ndarray], hours: float, tau: float, w: float
) -> dict[str, np.ndarray]:
    """walked, on a horizon that does not come round."""
    s = _in_order(ev, hours)
    cm, setter = _walk(s)
    prev_end, t_next, last = _neighbours(s["rack"], s["t"], cm, hours)
    prod, lost, ckpt = _runs(np.maximum(s["t"] - prev_end, 0.0), s["planned"], tau, w)
    d, a, b, extra = _down(s, t_next, cm)
    extra_code = np.where(s["wait"][setter] > 0.0, s["cause"][setter], RESTARTS)
    return s | {
        "end": cm,
        "prev_end": prev_end,
        "last": last,
        "prod": prod,
        "lost": lost,
        "ckpt": ckpt,
        "d": d,
        "a": a,
        "b": b,
        "extra": extra,
        "extra_code": extra_code,
        "setter": setter,
    }


def runs(x: dict[str, np.ndarray], units: int, hours: float, tau: float, w: float) -> dict:
    """Every run of the job: the one before each stop (from when it was back) and the last,
    from its unit's last stop (or the start) to the horizon, with its productive hours."""
    rack = x["rack"]
    last = x["last"]
    final_a = np.zeros(units)
    final_a[rack[last]] = np.minimum(x["end"][last], hours)
    final_prod = saved(hours - final_a, tau, w)
    a = np.minimum(x["prev_end"], x["t"])
    return {
        "unit": np.concatenate([rack, np.arange(units, dtype=np.int64)]),
        "a": np.concatenate([a, final_a]),
        "b": np.concatenate([x["t"], np.full(units, hours)]),
        "prod": np.concatenate([x["prod"], final_prod]),
    }


def timeline(
    ev: dict[str, np.ndarray],
    faults: dict[str, np.ndarray],
    eff: tuple[Effect, ...],
    units: int,
    clock: tuple[float, float, float],
) -> dict[str, np.ndarray]:
    """Per-unit totals (hours) of each cause and of productive work, from the walk (walked),
    and the work lost to degraded running on the path (pace.py). clock: hours, tau, w."""
    hours, tau, w = clock
    tot = {k: np.zeros(units) for k in ("productive", *CAUSES)}
    if ev["t"].size == 0:
        x = {k: np.zeros(0) for k in ("t", "prev_end", "end", "prod")}
        x["rack"], x["last"] = np.zeros(0, np.int64), np.zeros(0, bool)
    else:
        x = walked(ev, hours, tau, w)
        _add_causes(tot, x)
    r = runs(x, units, hours, tau, w)
    final = slice(r["unit"].size - units, None)
    tot["productive"] += r["prod"][final]
    tot["checkpoints"] += (r["b"] - r["a"] - r["prod"])[final]
    tab = pace.table(pace.spells(eff, faults, hours), pace.steady(eff), units, hours)
    _add(tot, "degraded", r["unit"], pace.run_losses(tab, r["unit"], r["a"], r["b"], r["prod"]))
    return tot


def _add_causes(tot: dict[str, np.ndarray], x: dict[str, np.ndarray]) -> None:
    """Each stop's run and down time added to its unit's totals by cause."""
    rack, cause, a, extra = x["rack"], x["cause"], x["a"], x["extra"]
    _add(tot, "productive", rack, x["prod"])
    _add(tot, "lost_work", rack, x["lost"])
    _add(tot, "checkpoints", rack, x["ckpt"])
    _add(tot, "restarts", rack, x["b"])
    _add(tot, "detection", rack, x["d"])
    for code, name in enumerate(CAUSE_OF_CODE):
        _add(
            tot,
            name,
            rack,
            np.where(cause == code, a, 0.0) + np.where(x["extra_code"] == code, extra, 0.0),
        )
