"""Multi-rack NVLink domains (576 and 1,152 GPUs): the two-tier data plane's fast path.

The assumption is docs/MULTIRACK.md's [A]: every rack is an NVL72 as modelled in this
package; each rack-level (L1) switch chip adds 72 trunk ports, and plane p of every rack meets
at plane p's group of racks / 2 144-port L2 chips, every L1 chip spreading its 72 trunks
evenly over them. Planes stay independent; across racks a message crosses L1, L2, L1.

Everything here reads a DomainState (model/multirack/state.py, built once per scenario by
model/multirack/assess.py): the all-to-all under the trunk limit, bandwidth, in-network
reduction over two tiers, latency (pairs across racks wait at their trunk-limited capacity)
and packet rate.
"""

from __future__ import annotations

import math

import numpy as np

from model.fabric.metrics import WaitMixture, empty_distribution, message_service_s
from model.multirack.state import DomainState
from model.params import LATENCY_MESSAGE_BYTES, OFFERED_LOAD

EXTRA_HOP_US = 0.2  # [A] each extra switch traversal (L1 -> L2, L2 -> L1), one way

__all__ = ["EXTRA_HOP_US", "DomainState", "plane_rates"]


def cross_scale(st: DomainState) -> tuple[np.ndarray, np.ndarray]:
    """f[G], the share of each GPU's uniform all-to-all traffic that leaves its rack, and
    scale[R, P], the share of L1 chip (r, p)'s outbound demand its trunks carry
    (DomainState.cross, computed once per state)."""
    return st.cross


def plane_rates(st: DomainState) -> np.ndarray:
    """float[G, P]: share of a link's rate each GPU sustains per plane in a uniform all-to-all:
    its link's efficiency, in-rack at full rate, across racks at its L1 chip's trunk scale
    (DomainState.plane_rates, computed once per state; read-only)."""
    return st.plane_rates


def a2a_gpu_tbs(st: DomainState) -> np.ndarray:
    """float[G]: each GPU's all-to-all rate over the domain, TB/s both ways (0 if lost)."""
    return plane_rates(st).sum(axis=1) * st.domain.rack.link_gbs_bidir / 1000.0


def injection_tbs(st: DomainState) -> np.ndarray:
    """float[G]: each GPU's own bandwidth into its L1 chips, TB/s both ways."""
    return st.efficiency.sum(axis=1) * st.domain.rack.link_gbs_bidir / 1000.0


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def bandwidth(st: DomainState, usable: np.ndarray, a2a: np.ndarray | None = None) -> dict:
    """Per-GPU, aggregate and all-to-all bandwidth over the domain (TB/s bidirectional)."""
    d, f = st.domain, st.domain.rack
    inj = injection_tbs(st)
    a2a = a2a_gpu_tbs(st) if a2a is None else a2a
    alive = st.gpu_alive
    n, n_use = int(alive.sum()), int(usable.sum())
    worst = float(a2a[usable].min()) if n_use else 0.0
    act = inj[alive] if n else np.zeros(1)
    per_rack = inj.reshape(d.racks, -1).sum(axis=1)
    live = ~st.racks_lost
    return {
        "unit": "TB/s, bidirectional (both directions counted, as NVIDIA quotes it)",
        "per_gpu_tbs": {
            "min": _r(float(act.min()) if n else 0.0),
            "mean": _r(float(act.mean()) if n else 0.0),
            "max": _r(float(act.max()) if n else 0.0),
            "healthy": _r(f.gpu_tbs_bidir),
            "values": np.round(inj, 4).tolist(),
            "over": "active GPUs (lost GPUs are 0 in values and left out of min/mean/max)",
            "in_service_min": _r(float(inj[usable].min()) if n_use else 0.0),
            "parked": n - n_use,
        },
        "aggregate_tbs": _r(float(inj.sum()), 3),
        "aggregate_healthy_tbs": _r(d.gpus * f.gpu_tbs_bidir, 3),
        "all_to_all_per_gpu_tbs": _r(worst),
        "all_to_all_tbs": _r(n_use * worst, 3),
        "all_to_all_gpus": n_use,
        "all_to_all_note": (
            "an all-to-all over the domain ends in a barrier: every GPU in service moves data "
            "at the pace of the slowest, whose traffic to other racks crosses L1, L2, L1 and "
            "is held to its L1 chips' trunk capacity"
        ),
        "per_rack_tbs": [_r(float(x), 3) for x in per_rack],
        "per_rack_healthy_tbs": _r(f.rack_tbs_bidir, 3),
        "trunk_share_min": _r(float(st.trunk_share[live].min()) if live.any() else 0.0),
        "l2_chips_in_service": int(st.l2_in_service.sum()),
        "planes_in_service": int((st.l1_in_service[live].any(axis=0)).sum()),
        "planes": d.planes,
    }


def sharp_tflops(st: DomainState) -> float:
    """In-network reduction over two tiers: an L1 chip's reduction counts for a domain-wide
    collective only if its partial result can cross to the other racks (some trunk capacity
    to an L2 chip of its plane in service). [D] The L2 tier itself never binds: reducing R
    partials over S chips takes (R - 1) / (71 S) of the L1 chips' work per element."""
    ok = st.l1_in_service & st.cross_ok
    return _r(float(ok.sum()) * st.domain.rack.sharp_tflops_per_chip, 3)


def _pair_mixture(
    rho: np.ndarray, rack: np.ndarray, racks: int, same_rack: bool, service_s: float, off: float
) -> tuple[WaitMixture | None, float]:
    """The waiting-time mixture of ordered pairs (i != j) in one rack or in two, each waiting
    at the busier of its two ends (utilisation rho, inf for no capacity), and how many pairs."""
    u, inv = np.unique(rho, return_inverse=True)
    c = np.zeros((racks, len(u)))
    np.add.at(c, (rack, inv.ravel()), 1.0)
    tot = c.sum(axis=0)
    same = c.T @ c - np.diag(tot)
    w = same if same_rack else np.outer(tot, tot) - c.T @ c
    total = float(w.sum())
    if total <= 0:
        return None, 0.0
    vals = np.maximum(u[:, None], u[None, :]).ravel()
    w = w.ravel() / total
    ok = vals < 1.0
    return WaitMixture(vals[ok], w[ok], service_s, (off,), (1.0,), float(w[~ok].sum())), total


def _cdf(mixes: list[tuple[float, float, WaitMixture]], t_us: np.ndarray) -> np.ndarray:
    """P(one-way latency <= t) over (share, offset us, mixture) classes of pairs."""
    out = np.zeros(t_us.shape)
    for sh, off, m in mixes:
        w = np.maximum(t_us - off, 0.0)[:, None] * 1e-6
        tail = (m.weight * m.rho * np.exp(-(1 - m.rho) * w / m.service_s)).sum(axis=1)
        out += np.where(t_us >= off, sh * (1.0 - tail - m.unstable_share), 0.0)
    return out


def _quantiles_us(
    mixes: list[tuple[float, float, WaitMixture]], qs: tuple[float, ...]
) -> list[float]:
    """q-quantiles of one-way latency over (share, offset us, mixture) classes of pairs:
    the CDF on a grid of 65 points, the bracket of each q refined five times (to ~1e-9 of
    the span), vectorised; infinite where unstable pairs hold more than 1 - q."""
    stuck = sum(sh * m.unstable_share for sh, _, m in mixes)
    lo0 = min(off for _, off, _ in mixes)
    hi0 = max(off for _, off, _ in mixes) + 1.0
    res = []
    for q in qs:
        if stuck >= 1.0 - q:
            res.append(math.inf)
            continue
        hi = hi0
        while _cdf(mixes, np.array([hi]))[0] < q:
            hi = lo0 + 2 * (hi - lo0)
        lo = lo0
        for _ in range(5):
            grid = np.linspace(lo, hi, 65)
            i = int(np.searchsorted(_cdf(mixes, grid) >= q, True))  # first grid point past q
            lo, hi = grid[max(i - 1, 0)], grid[min(i, 64)]
        res.append(float(hi))
    return res


def _mixtures(st: DomainState) -> tuple[dict, list[tuple[float, float, WaitMixture]] | None]:
    """latency()'s description and its classes of pairs (share, offset, mixture); None
    when nothing waits in a steady state (a maintenance window, fewer than two GPUs)."""
    d, f = st.domain, st.domain.rack
    base = f.latency_one_way_us
    cross = base + 2 * EXTRA_HOP_US
    out = {
        "unloaded_us": base,
        "unloaded_across_racks_us": round(cross, 3),
        "message_bytes": LATENCY_MESSAGE_BYTES,
        "offered_load": OFFERED_LOAD,
        "model": (
            "one hop in a rack, three (L1, L2, L1) across racks, plus M/M/1 queueing at the "
            "busier end: the same traffic on less capacity (fewer planes, or trunks held by "
            "a degraded L2 group) loads each remaining port more"
        ),
    }
    alive = st.gpu_alive
    if st.maintenance or alive.sum() < 2:
        return out, None
    _f, scale = cross_scale(st)
    rack = st.rack_of[alive]
    cap_in = st.efficiency[alive].sum(axis=1)
    cap_x = (st.efficiency[alive] * scale[rack]).sum(axis=1)
    service = message_service_s(f, LATENCY_MESSAGE_BYTES)
    with np.errstate(divide="ignore"):
        rho_in = np.where(cap_in > 0, OFFERED_LOAD * d.planes / cap_in, np.inf)
        rho_x = np.where(cap_x > 0, OFFERED_LOAD * d.planes / cap_x, np.inf)
    a, n_a = _pair_mixture(rho_in, rack, d.racks, True, service, base)
    b, n_b = _pair_mixture(rho_x, rack, d.racks, False, service, cross)
    mixes = [(n / (n_a + n_b), off, m) for n, off, m in ((n_a, base, a), (n_b, cross, b)) if m]
    return out, mixes


def latency(st: DomainState) -> dict:
    """p50/p99 one way over all pairs of active GPUs, under load. A pair in one rack crosses
    one switch and waits at the busier of its two GPU ports (as on one rack); a pair in two
    racks crosses three and waits at the busier of its two ends' capacity toward other racks:
    each plane's link held to its L1 chip's trunk scale, so a degraded L2 group or trunk
    loads the ports whose traffic must cross it."""
    out, mixes = _mixtures(st)
    if mixes is None:
        return {**out, "p50": None, "p99": None}
    stuck = sum(sh * m.unstable_share for sh, _, m in mixes)
    if stuck > 0:
        out["unstable_share"] = _r(stuck, 6)
    p50, p99 = _quantiles_us(mixes, (0.5, 0.99))
    q = {"p50": p50, "p99": p99}
    return {**out, **{k: _r(v, 3) if math.isfinite(v) else None for k, v in q.items()}}


def latency_distribution(st: DomainState, points: int = 200) -> dict:
    """The CDF of one-way latency behind latency(), for the page's chart: the same keys as
    one rack's (model.fabric.metrics.latency_distribution), the same mixtures and quantiles;
    two steps at the unloaded latencies (in a rack, across racks) instead of one."""
    out, mixes = _mixtures(st)
    out = {**out, **empty_distribution()}
    if mixes is None:
        return out
    levels = (0.5, 0.9, 0.99, 0.999, 0.9999)
    qs = dict(zip(levels, _quantiles_us(mixes, levels), strict=True))
    finite = [v for v in qs.values() if math.isfinite(v)]
    lo = min(off for _, off, _ in mixes)
    grid = np.linspace(lo, max([lo, *finite]), max(int(points), 2))
    stuck = sum(sh * m.unstable_share for sh, _, m in mixes)
    waits = sum(sh * float((m.weight * m.rho).sum()) for sh, _, m in mixes)
    return {
        **out,
        "latency_us": [_r(float(x), 5) for x in grid],
        "cdf": [_r(float(x), 7) for x in _cdf(mixes, grid)],
        "no_wait_share": _r(1.0 - waits - stuck, 6),
        "quantiles": {f"{q:g}": _r(v, 3) if math.isfinite(v) else None for q, v in qs.items()},
        "p50": _r(qs[0.5], 3) if math.isfinite(qs[0.5]) else None,
        "p99": _r(qs[0.99], 3) if math.isfinite(qs[0.99]) else None,
        **({"unstable_share": _r(stuck, 6)} if stuck > 0 else {}),
    }


def packet_rate(st: DomainState) -> dict:
    """Packets per second each way per GPU (G), scaled by the share of its links in service."""
    f = st.domain.rack
    per = f.packet_rate_gpps_per_gpu * st.efficiency.sum(axis=1) / f.planes
    alive = st.gpu_alive
    return {
        "unit": "G packets/s per GPU, each way",
        "per_gpu_min": _r(float(per[alive].min()) if alive.any() else 0.0, 3),
        "per_gpu_healthy": _r(f.packet_rate_gpps_per_gpu, 3),
        "domain_total": _r(float(per.sum()), 2),
    }
