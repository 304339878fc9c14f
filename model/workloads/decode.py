"""MoE decode as real deployments run it: the frontier over batch, EP size, MTP, KV precision
and overlap, with the step's time (model/workloads/step.py) broken into named parts at every
point.

The in-service GPUs form floor(n / ep) groups (the rest one smaller group); each runs at its
own slowest rank. At each interactivity the frontier takes the deployment with the most
tokens/s per installed GPU; the chosen deployment and the time breakdown are returned with
every point.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from model.workloads import decode_params as D
from model.workloads.groups import Hardware
from model.workloads.models import MoEModel
from model.workloads.serving import (
    Deployment,
    Workload,
    deployments,
    max_batch,
)
from model.workloads.step import (  # noqa: F401  (the decode API: step's names re-exported)
    BREAKDOWN_KEYS,
    BREAKDOWN_NAMES,
    FITTED,
    TERM_NAMES,
    Terms,
    finish,
    measured,
    prepare,
    step,
)

# --- the frontier ------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _prepared(m, gpu, w, ep: int, knobs: tuple, terms) -> tuple[np.ndarray, np.ndarray, dict]:
    """The fabric-independent half of several deployments' sweeps (knobs: (mtp, kv, overlap,
    tp) each): which rows fit at least one request a group, their batches (one request a group to
    the KV limit) and their prepared steps. Memoised per EP size and model: every scenario's
    groups of that size share it."""
    lo = 1.0 / ep
    bmax = np.array(
        [max_batch(m, gpu, w, Deployment(ep, d, kv, ov, tp)) for d, kv, ov, tp in knobs],
        dtype=float,
    )
    rows = np.flatnonzero(bmax >= lo)
    b = np.geomspace(lo, np.maximum(bmax[rows], lo * 1.0001), D.BATCH_POINTS).T  # rows x K
    pick = [knobs[r] for r in rows]
    mtp = np.array([k[0] for k in pick], dtype=float)[:, None]
    kv = np.array([D.KV_SCALE[k[1]] for k in pick], dtype=float)[:, None]
    ov = np.array([k[2] for k in pick], dtype=bool)[:, None]
    t = np.array([ep if k[3] else 1 for k in pick], dtype=float)[:, None]
    return rows, b, prepare(m, gpu, w, ep, mtp, kv, ov, b, terms, t) if len(rows) else {}


@lru_cache(maxsize=4096)
def _sweeps(m, gpu, w, ep: int, knobs: tuple, v, terms) -> tuple[dict | None, ...]:
    """The batch sweeps of several deployments of one EP size on one group's view (None for a
    deployment where not even one request a group fits). Memoised: a view recurs across
    scenarios (every healthy group, the healthy racks, the baselines). Arrays are read-only."""
    rows, b, pre = _prepared(m, gpu, w, ep, knobs, terms)
    if not len(rows):
        return tuple(None for _ in knobs)
    return _split(rows, b, finish(pre, m, v, terms) | {"batch": b}, len(knobs))


def _split(rows, b, out: dict, n: int) -> tuple[dict | None, ...]:
    """Per-deployment sweeps (sorted by interactivity, read-only) from rows x batches arrays.

    Every key is a view into one stacked array, SWEEP_KEYS first, so a frontier reads a
    sweep's breakdown as one block (`_stack`) without stacking it again; each sweep also
    carries its row on the frontier's grid and its two extremes (`_peak`, `_top`)."""
    result: list[dict | None] = [None] * n
    order = np.argsort(out["tokens_per_s_per_user"], axis=1)  # ascending interactivity
    rows_idx = np.arange(len(rows))[:, None]
    keys = (*SWEEP_KEYS, *(k for k in out if k not in SWEEP_KEYS))
    full = np.stack([np.broadcast_to(out[k], b.shape) for k in keys])[:, rows_idx, order]
    log_u = np.log(full[keys.index("tokens_per_s_per_user")])
    tps = full[keys.index("tokens_per_s_per_gpu")]
    # each sweep on the frontier's grid, once: every scenario whose groups share this view
    # reads it from here instead of interpolating again
    on_grid = _interp_rows(log_u, tps, LOG_GRID)
    peak, top = tps.max(axis=1), full[keys.index("tokens_per_s_per_user")][:, -1]
    for a in (full, log_u, on_grid):
        a.flags.writeable = False
    ns = len(SWEEP_KEYS)
    for i, r in enumerate(rows):
        c = {k: full[j, i] for j, k in enumerate(keys)}
        c |= {"log_u": log_u[i], "on_grid": on_grid[i], "_stack": full[:ns, i]}
        result[r] = c | {"_peak": float(peak[i]), "_top": float(top[i])}
    return tuple(result)


@lru_cache(maxsize=1024)
def _sweeps_many(m, gpu, w, ep: int, knobs: tuple, views: tuple, terms) -> tuple[tuple, ...]:
    """_sweeps for several views of one EP size at once (one scenario's groups): their
    bandwidths stacked on a leading axis, so the fabric-dependent half is one pass."""
    if len(views) == 1:
        return (_sweeps(m, gpu, w, ep, knobs, views[0], terms),)
    rows, b, pre = _prepared(m, gpu, w, ep, knobs, terms)
    if not len(rows):
        return tuple(tuple(None for _ in knobs) for _ in views)
    v0 = views[0]
    stacked = replace(
        v0,
        line_bytes_s=np.array([v.line_bytes_s for v in views])[:, None, None],
        pps=np.array([v.pps for v in views])[:, None, None],
    )
    out = finish(pre, m, stacked, terms)
    full = (len(views), *b.shape)
    per = [
        {k: np.broadcast_to(x, full)[j] for k, x in out.items()} | {"batch": b}
        for j in range(len(views))
    ]
    return tuple(_split(rows, b, o, len(knobs)) for o in per)


def group_sweep(m: MoEModel, hw: Hardware, w: Workload, dep: Deployment, v) -> dict | None:
    """The memoised sweep frontier() ran for deployment dep (one of deployments(hw.max_ep))
    on hw's group view v (one of hw.groups_for(dep.ep) of that EP size): the same call, so
    the same arrays; None where nothing fits."""
    mine = [d for d in deployments(hw.max_ep) if d.ep == dep.ep]
    knobs = tuple((d.mtp, d.kv, d.overlap, d.tp) for d in mine)
    alike = tuple(x for x, _ in hw.groups_for(dep.ep) if x.ep == dep.ep)
    return _sweeps_many(m, hw.gpu, w, dep.ep, knobs, alike, FITTED)[alike.index(v)][mine.index(dep)]


def sweep_at_batch(
    m: MoEModel, hw: Hardware, w: Workload, dep: Deployment, v, b: float, keys: tuple[str, ...]
) -> tuple[float, ...]:
    """`keys` of a deployment's (memoised) sweep on hw's group view v at b requests a GPU,
    interpolated in the log of the batch: a step at a batch the frontier chose elsewhere,
    cheaply (the frontier's own sweep of that group, group_sweep)."""
    c = group_sweep(m, hw, w, dep, v)
    if c is None:
        return tuple(float("nan") for _ in keys)
    order = np.argsort(c["batch"])
    lb = np.log(c["batch"][order])
    # a part of the step linearly (one that is zero at a sweep point is not lost), the rest
    # log-log
    return tuple(
        float(np.interp(np.log(b), lb, c[k][order]))
        if k in BREAKDOWN_KEYS
        else float(np.exp(np.interp(np.log(b), lb, np.log(np.maximum(c[k][order], 1e-30)))))
        for k in keys
    )


def _at(c: dict, log_x: np.ndarray, key: str) -> np.ndarray:
    """`key` of a sweep (sorted by interactivity) at each target log(x), log-log interpolated;
    a part of the step (BREAKDOWN_KEYS) is its linear share of the step times the step, so
    the parts sum to the step and a part that is zero at one sweep point is not lost. A
    target below the sweep's slowest point is met by that point (the largest batch the KV
    cache holds: a deployment faster than asked still serves it); NaN above its fastest."""
    lu = c["log_u"]
    out = np.exp(np.interp(log_x, lu, np.log(np.maximum(c[key], 1e-30))))
    if key in BREAKDOWN_KEYS:
        share = np.interp(log_x, lu, c[key]) / sum(
            np.interp(log_x, lu, c[k]) for k in BREAKDOWN_KEYS
        )
        out = share * np.exp(np.interp(log_x, lu, np.log(np.maximum(c["total"], 1e-30))))
    out[log_x > lu[-1] + 1e-9] = np.nan
    return out


def _at_many(cs: list[dict], log_x: np.ndarray, key: str) -> np.ndarray:
    """_at for several sweeps at once (rows x targets): each row's interactivities sorted
    ascending, searched together by offsetting every row by a constant far wider than the
    values (log tokens/s lie within +-20), then interpolated linearly in log-log."""
    return _interp_rows(np.stack([c["log_u"] for c in cs]), np.stack([c[key] for c in cs]), log_x)


def _interp_rows(lu: np.ndarray, y: np.ndarray, log_x: np.ndarray) -> np.ndarray:
    """Rows of y (each over its own ascending log interactivities lu) at the targets log_x,
    log-log: the one-pass search of _at_many."""
    ly = np.log(np.maximum(y, 1e-30))
    n, k = lu.shape
    off = (np.arange(n) * 1000.0)[:, None]
    idx = np.searchsorted((lu + off).ravel(), (log_x[None, :] + off).ravel()).reshape(n, -1)
    idx = np.clip(idx - np.arange(n)[:, None] * k, 1, k - 1)
    rows = np.arange(n)[:, None]
    x0, x1 = lu[rows, idx - 1], lu[rows, idx]
    y0, y1 = ly[rows, idx - 1], ly[rows, idx]
    span = x1 - x0
    t = np.where(span > 0, (log_x[None, :] - x0) / np.where(span > 0, span, 1.0), 1.0)
    out = np.exp(y0 + np.clip(t, 0.0, 1.0) * (y1 - y0))
    below = log_x[None, :] < lu[:, :1]
    out = np.where(below, np.exp(ly[:, :1]), out)
    return np.where(log_x[None, :] > lu[:, -1:] + 1e-9, np.nan, out)


@dataclass(frozen=True)
class Frontier:
    """Tokens/s per installed GPU at each interactivity, the deployment chosen there, and the
    chosen deployment's step breakdown on its slowest group (us per step).

    The breakdown is read from the chosen deployments' memoised sweeps (`sources`) when first
    asked for, whole (`breakdown`) or at one point (`breakdown_at`): evaluate() needs one
    point, the decode curves every one, and the two agree to the last bit (the same
    interpolation of the same sweep)."""

    x: np.ndarray  # tokens/s per user
    tokens_per_s_per_gpu: np.ndarray  # NaN where no deployment reaches x
    choice: np.ndarray  # index into deployments, -1 where unreachable
    deployments: tuple[Deployment, ...]
    sources: dict[int, dict]  # deployment index -> the sweep its breakdown is read from
    peak_tokens_per_s_per_gpu: float
    max_tokens_per_s_per_user: float
    used: dict[int, int] = field(default_factory=dict)  # deployment index -> GPUs its groups use
    serving: int = 0  # GPUs in service (Hardware.serving)

    def nearest(self, x: float) -> int:
        """The grid point nearest interactivity x (2 tokens/s per user apart)."""
        return int(np.argmin(np.abs(self.x - x)))

    def deployment_at(self, i: int) -> Deployment | None:
        c = int(self.choice[i])
        return self.deployments[c] if c >= 0 else None

    def idle_at(self, i: int) -> int | None:
        """GPUs in service the chosen deployment's groups leave idle at point i (TEP8's groups
        of 8 on 67 GPUs: 3); None where no deployment reaches it."""
        c = int(self.choice[i])
        return self.serving - self.used[c] if c >= 0 else None

    def breakdown_at(self, i: int) -> dict[str, float]:
        """The breakdown's keys (SWEEP_KEYS) at point i: NaN where no deployment reaches it."""
        c = int(self.choice[i])
        if c < 0:
            return dict.fromkeys(SWEEP_KEYS, float("nan"))
        col = _at_keys(self.sources[c], np.log(self.x[i : i + 1]))[:, 0]
        return {k: float(v) for k, v in zip(SWEEP_KEYS, col, strict=True)}

    @cached_property
    def breakdown(self) -> dict[str, np.ndarray]:
        """Every key of SWEEP_KEYS along x (read-only arrays; NaN where unreachable)."""
        bd = {k: np.full(self.x.shape, np.nan) for k in SWEEP_KEYS}
        log_x = np.log(self.x)
        for i, c in self.sources.items():
            at = self.choice == i
            if at.any():
                for k, v in zip(SWEEP_KEYS, _at_keys(c, log_x[at]), strict=True):
                    bd[k][at] = v
        for a in bd.values():
            a.flags.writeable = False
        return bd


GRID = np.arange(2.0, 602.0, 2.0)  # tokens/s per user, 2 apart
LOG_GRID = np.log(GRID)
SWEEP_KEYS = (*BREAKDOWN_KEYS, "total", "dispatch", "combine", "hbm_bound", "batch")


def _smaller_sweeps(m, gpu, w, knobs: tuple, v, n: int, terms) -> tuple[tuple, tuple]:
    """A smaller group's sweeps (GPUs left over, an elastic group: v.ep ranks, n such groups)
    and the GPUs each deployment uses in them. Tensor parallelism splits MLA's 128 heads,
    so a TEP deployment runs there at the largest TEP size the group holds (TEP4 on 7 GPUs,
    3 idle; none below 4) [D]."""
    out = _sweeps(m, gpu, w, v.ep, knobs, v, terms)
    gpus = [v.ep * n] * len(knobs)
    if v.ep in D.TEP_SIZES or not any(k[3] for k in knobs):
        return out, tuple(gpus)
    t = max((e for e in D.TEP_SIZES if e < v.ep), default=0)
    tp = [r for r, k in enumerate(knobs) if k[3]]
    tep = _sweeps(m, gpu, w, t, tuple(knobs[r] for r in tp), replace(v, ep=t), terms) if t else ()
    swept = list(out)
    for j, r in enumerate(tp):
        swept[r], gpus[r] = (tep[j] if t else None), t * n
    return tuple(swept), tuple(gpus)


def _group_sweeps(m, hw: Hardware, w, ep: int, knobs: tuple, groups, terms) -> list[tuple]:
    """(view, GPUs each deployment uses, its sweeps) for each kind of group of one EP size:
    the groups of that size in one pass (_sweeps_many), a smaller one on its own."""
    alike = tuple(v for v, _ in groups if v.ep == ep)
    many = (
        dict(zip(alike, _sweeps_many(m, hw.gpu, w, ep, knobs, alike, terms), strict=True))
        if alike
        else {}
    )
    out = []
    for v, n in groups:
        if v.ep == ep:
            out.append((v, (v.ep * n,) * len(knobs), many[v]))
        else:
            sw, gpus = _smaller_sweeps(m, hw.gpu, w, knobs, v, n, terms)
            out.append((v, gpus, sw))
    return out


def frontier(
    m: MoEModel,
    hw: Hardware,
    w: Workload | None = None,
    x: np.ndarray = GRID,
    terms: Terms = FITTED,
    only: tuple[Deployment, ...] | None = None,
) -> Frontier:
    """The best deployment at each interactivity x, on hardware `hw` in its state."""
    w = w or Workload(m)
    deps = list(only if only is not None else deployments(hw.max_ep))
    log_x = np.log(x)
    # every deployment's total on x (rows in deployment order; -inf where it is not taken)
    totals = np.full((len(deps), len(x)), -np.inf)
    source: dict[int, dict] = {}  # deployment index -> the sweep its breakdown is read from
    used: dict[int, int] = {}  # deployment index -> GPUs its groups use
    peak, top = 0.0, 0.0
    for ep in sorted({d.ep for d in deps}):
        groups = hw.groups_for(ep)
        mine = [(i, d) for i, d in enumerate(deps) if d.ep == ep]
        if not groups or not mine:
            continue
        knobs = tuple((d.mtp, d.kv, d.overlap, d.tp) for _, d in mine)
        swept = _group_sweeps(m, hw, w, ep, knobs, groups, terms)
        rows, weights, starts, taken = [], [], [], []
        for r, (i, dep) in enumerate(mine):
            live = [(v, n[r], sw[r]) for v, n, sw in swept if sw[r] is not None]
            if not live:
                continue
            # the breakdown is read on the slowest group of the deployment's size; with none
            # (the GPUs in service too few: one elastic group of them all, groups.elastic)
            # on that group, and the deployment is named by its ranks (EP71)
            for _, n, c in live:
                peak = max(peak, c["_peak"] * n / hw.installed)
                top = max(top, c["_top"])
            full = [(v, c) for v, _, c in live if v.ep == ep]
            if not full and len(live) > 1:
                continue
            slowest = min(full or [(v, c) for v, _, c in live], key=lambda t: t[0].line_bytes_s)
            if not full:
                deps[i] = replace(dep, ep=live[0][1])  # one group: the GPUs it uses
            starts.append(len(rows))
            taken.append(i)
            source[i] = slowest[1]
            used[i] = sum(n for _, n, _ in live)
            rows += [c for _, _, c in live]
            weights += [n for _, n, _ in live]
        if not rows:
            continue
        # every deployment's groups of this EP size interpolated in one pass: rows x X
        if x is GRID:  # each memoised sweep carries its own row on the grid
            g = np.stack([c["on_grid"] for c in rows])
        else:
            g = _at_many(rows, log_x, "tokens_per_s_per_gpu")
        ok = np.isfinite(g)
        part = np.where(ok, g * np.array(weights, dtype=float)[:, None], 0.0)
        total = np.add.reduceat(part, starts, axis=0) / hw.installed
        reach = np.logical_or.reduceat(ok, starts, axis=0)
        totals[taken] = np.where(reach, total, -np.inf)
    # the first deployment (in order) with the most tokens/s per GPU at each x
    if deps:
        choice = np.argmax(totals, axis=0)
        most = totals[choice, np.arange(len(x))]
    else:
        choice, most = np.zeros(len(x), dtype=int), np.full(len(x), -np.inf)
    reached = most > -np.inf
    best, choice = np.where(reached, most, np.nan), np.where(reached, choice, -1)
    chosen = set(choice.tolist())
    kept = [i for i in chosen if i >= 0]
    return Frontier(
        x,
        best,
        choice,
        tuple(deps),
        {i: source[i] for i in kept},
        peak,
        top,
        {i: used[i] for i in kept},
        hw.serving,
    )


def _at_keys(c: dict, log_x: np.ndarray) -> np.ndarray:
    """_at for every key of SWEEP_KEYS of one sweep (keys x targets): one search of the
    interactivities, every key interpolated from it, equal to _at key by key."""
    lu = c["log_u"]
    ly = np.log(np.maximum(c["_stack"], 1e-30))
    if len(lu) == 1:
        out = np.repeat(np.exp(ly[:, :1]), len(log_x), axis=1)
    else:
        idx = np.clip(np.searchsorted(lu, log_x), 1, len(lu) - 1)
        x0, x1 = lu[idx - 1], lu[idx]
        span = x1 - x0
        t = np.clip(np.where(span > 0, (log_x - x0) / np.where(span > 0, span, 1.0), 1.0), 0, 1)
        out = np.exp(ly[:, idx - 1] + t * (ly[:, idx] - ly[:, idx - 1]))
        out = np.where(log_x < lu[0], np.exp(ly[:, :1]), out)
        # the parts: linear shares of the step, times the (log-log) step: they sum to it
        y, n = c["_stack"][: len(BREAKDOWN_KEYS)], len(BREAKDOWN_KEYS)
        lin = y[:, idx - 1] + t * (y[:, idx] - y[:, idx - 1])
        lin = np.where(log_x < lu[0], y[:, :1], lin)
        out[:n] = lin / lin.sum(axis=0) * out[SWEEP_KEYS.index("total")]
    out[:, log_x > lu[-1] + 1e-9] = np.nan
    return out


@lru_cache(maxsize=256)
def cached_frontier(m: MoEModel, hw: Hardware, w: Workload, terms: Terms = FITTED) -> Frontier:
    """frontier() memoised on its (frozen) inputs; the arrays are made read-only."""
    fr = frontier(m, hw, w, GRID, terms)
    for a in (fr.tokens_per_s_per_gpu, fr.choice):
        a.flags.writeable = False
    return fr
