"""Bandwidth, latency, packet rate and in-network compute from the up/efficiency masks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model import words
from model.fabric.presets import Fabric
from model.fabric.state import FabricState
from model.params import LATENCY_MESSAGE_BYTES, OFFERED_LOAD


def per_gpu_tbs(st: FabricState) -> np.ndarray:
    """float[G]: each GPU's bidirectional bandwidth in TB/s (0 for a lost GPU)."""
    return st.efficiency.sum(axis=1) * st.fabric.link_gbs_bidir / 1000.0


def pair_capacity_tbs(st: FabricState) -> np.ndarray:
    """float[G, G]: bidirectional capacity between two GPUs over planes both reach.

    Both ends of a pair need the same plane up; a flaky link delivers its efficiency.
    """
    eff = st.efficiency
    # Across a plane the pair is limited by the weaker of its two links: min(e_i, e_j).
    cap = np.minimum(eff[:, None, :], eff[None, :, :]).sum(axis=2)
    np.fill_diagonal(cap, 0.0)
    return cap * st.fabric.link_gbs_bidir / 1000.0


def _r(x: float, nd: int = 4) -> float:
    return float(round(x, nd))


def bandwidth(st: FabricState, usable: np.ndarray) -> dict:
    """Per-GPU, aggregate, all-to-all and per-switch-tray bandwidth (TB/s bidirectional).

    usable: bool[G], the GPUs in service (alive, not parked). The all-to-all runs on them,
    at the pace of the slowest; per-GPU figures are over every active GPU.
    """
    f = st.fabric
    bw = per_gpu_tbs(st)
    alive = st.gpu_alive
    n_usable = int(usable.sum())
    worst_usable = float(bw[usable].min()) if n_usable else 0.0
    active = bw[alive] if alive.any() else np.zeros(1)
    n_active = int(alive.sum())
    gated = float(active.min()) if n_active else 0.0
    in_service = st.chip_in_service
    eff = st.efficiency
    k = f.chips_per_tray
    tray = [
        _r(eff[:, i * k : (i + 1) * k].sum() * f.link_gbs_bidir / 1000.0, 3)
        for i in range(f.switch_trays)
    ]
    return {
        "unit": "TB/s, bidirectional (both directions counted, as NVIDIA quotes it)",
        "per_gpu_tbs": {
            "min": _r(gated),
            "mean": _r(float(active.mean()) if n_active else 0.0),
            "max": _r(float(active.max()) if n_active else 0.0),
            "healthy": _r(f.gpu_tbs_bidir),
            "values": [_r(float(x)) for x in bw],
            "over": "active GPUs (lost GPUs are 0 in values and left out of min/mean/max)",
            "in_service_min": _r(worst_usable),
            "parked": n_active - n_usable,
        },
        "aggregate_tbs": _r(float(bw.sum()), 3),
        "aggregate_healthy_tbs": _r(f.rack_tbs_bidir, 3),
        "all_to_all_tbs": _r(n_usable * worst_usable, 3),
        "all_to_all_gpus": n_usable,
        "all_to_all_note": (
            "an all-to-all ends in a barrier, so every GPU in service (active, not parked) "
            "moves data at the pace of the slowest: GPUs in service x the worst one's "
            "bandwidth"
        ),
        "per_switch_tray_tbs": tray,
        "per_switch_tray_healthy_tbs": _r(f.tray_tbs_bidir, 3),
        "planes_in_service": int(in_service.sum()),
        "planes": f.planes,
    }


def _mm1_quantile(rhos: np.ndarray, weights: np.ndarray, service_s: float, q: float) -> float:
    """q-quantile of waiting time in a mixture of M/M/1 queues (P(W>t)=rho e^{-(1-rho)t/s}).

    The tail is a sum of decaying exponentials (decreasing and convex), so Newton's method
    from t = 0, left of the quantile, climbs to it without overshooting and converges
    quadratically; in plain Python, the mixture has a handful of distinct components.
    """
    comps = [
        (float(w) * float(r), (1.0 - float(r)) / service_s)
        for r, w in zip(rhos, weights, strict=True)
    ]
    target = 1.0 - q

    def tail(t: float) -> tuple[float, float]:  # the tail and its slope
        terms = [(a * math.exp(-b * t), b) for a, b in comps]
        return sum(x for x, _ in terms), -sum(x * b for x, b in terms)

    v, dv = tail(0.0)
    if v <= target:
        return 0.0
    t = 0.0
    for _ in range(200):
        step = (v - target) / -dv
        t += step
        if step <= 1e-15 * t:
            break
        v, dv = tail(t)
    return t


def message_service_s(f: Fabric, nbytes: int) -> float:
    """Time one link of fabric f takes to carry a message: bandwidth- or packet-rate-bound."""
    link_bytes_s = f.link_gbs_bidir / 2 * 1e9
    link_pps = f.packet_rate_gpps_per_gpu * 1e9 / f.planes
    packets = math.ceil(nbytes / f.packet_bytes)
    return max(nbytes / link_bytes_s, packets / link_pps)


@dataclass(frozen=True)
class WaitMixture:
    """The waiting time of a message between two GPUs, as a mixture of M/M/1 queues.

    Ordered pairs (i, j), i != j, of active GPUs weigh alike; each waits at the busier of its
    two ports, P(W > t) = rho exp(-(1 - rho) t / s). GPUs are grouped by utilisation (few
    distinct values), so this stays small at any GPU count. `offsets` are the unloaded
    one-way latencies (us) of the kinds of pair and `shares` how many pairs are of each:
    one rack has one kind; a multi-rack domain two (within a rack, across racks).

    A port offered more than it carries (rho >= 1) has no steady state: its queue grows
    without bound. Such pairs are `unstable_share` of all pairs, never capped into a finite
    wait; a quantile that falls among them is infinite (None in the JSON).
    """

    rho: np.ndarray  # utilisation of each stable component (< 1)
    weight: np.ndarray  # its share of all pairs
    service_s: float
    offsets_us: tuple[float, ...]
    shares: tuple[float, ...]
    unstable_share: float = 0.0  # pairs waiting at a port offered more than it carries

    def tail(self, wait_s: float) -> float:
        """P(W > wait_s) over the waiting-time mixture (unstable pairs never get through)."""
        r, w = self.rho, self.weight
        stable = float((w * r * np.exp(-(1 - r) * wait_s / self.service_s)).sum())
        return stable + self.unstable_share

    def quantile_us(self, q: float) -> float:
        """The q-quantile of one-way latency (us): offsets plus the wait, by bisection;
        infinite when more than 1 - q of the pairs wait at an unstable port."""
        if self.unstable_share >= 1.0 - q:
            return math.inf
        if len(self.offsets_us) == 1:  # the stable part must hold the rest of the tail
            wait = _mm1_quantile(self.rho, self.weight, self.service_s, q + self.unstable_share)
            return self.offsets_us[0] + wait * 1e6

        def cdf(t_us: float) -> float:
            return sum(
                share * (1.0 - self.tail((t_us - off) * 1e-6)) if t_us >= off else 0.0
                for off, share in zip(self.offsets_us, self.shares, strict=True)
            )

        lo = min(self.offsets_us)
        top_q = min(0.9999, 1.0 - self.unstable_share - 1e-6)
        top = _mm1_quantile(self.rho, self.weight, self.service_s, top_q) * 1e6
        hi = max(self.offsets_us) + top
        for _ in range(48):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
        return hi


def wait_mixture(
    capacity: np.ndarray,
    planes: int,
    service_s: float,
    offsets_us: tuple[float, ...],
    shares: tuple[float, ...] = (1.0,),
) -> WaitMixture | None:
    """The mixture for active GPUs whose ports carry `capacity` planes' worth each (None if
    fewer than two GPUs, or one has no capacity). The same traffic on fewer planes loads
    each remaining port more: utilisation = offered load x planes / capacity, uncapped."""
    if len(capacity) < 2 or (capacity <= 0).any():
        return None
    rho = OFFERED_LOAD * planes / capacity
    u, c = np.unique(rho, return_counts=True)
    pair_w = np.outer(c, c).astype(float) - np.diag(c)
    # a pair waits at the busier port: merge pairs of equal utilisation (few distinct)
    vals, inv = np.unique(np.maximum(u[:, None], u[None, :]).ravel(), return_inverse=True)
    w = np.bincount(inv, weights=pair_w.ravel()) / pair_w.sum()
    stable = vals < 1.0
    return WaitMixture(
        vals[stable], w[stable], service_s, offsets_us, shares, float(w[~stable].sum())
    )


def unstable_gpus(st: FabricState) -> int:
    """Active GPUs whose links cannot carry the offered load: their queues grow unbounded."""
    cap = st.efficiency.sum(axis=1)[st.gpu_alive]
    return int((OFFERED_LOAD * st.fabric.planes >= cap).sum())


def _latency_mixture(st: FabricState) -> WaitMixture | None:
    """The rack's mixture: every active GPU's links at their efficiency, one kind of pair."""
    f = st.fabric
    if st.maintenance:
        return None
    cap = st.efficiency.sum(axis=1)[st.gpu_alive]
    service = message_service_s(f, LATENCY_MESSAGE_BYTES)
    return wait_mixture(cap, f.planes, service, (f.latency_one_way_us,))


def latency(st: FabricState) -> dict:
    """One-way GPU-to-GPU latency p50/p99 over all pairs of active GPUs, under load."""
    f = st.fabric
    base = f.latency_one_way_us
    out = {
        "unloaded_us": base,
        "message_bytes": LATENCY_MESSAGE_BYTES,
        "offered_load": OFFERED_LOAD,
        "model": (
            "unloaded one-hop latency plus M/M/1 queueing at the busier of the two GPU ports; "
            "the same traffic on fewer planes loads each remaining port more"
        ),
    }
    mix = _latency_mixture(st)
    if mix is None:
        return {**out, "p50": None, "p99": None}
    if mix.unstable_share > 0.0:
        out = {**out, **_unstable(st, mix)}
    return {**out, "p50": _finite(mix.quantile_us(0.50)), "p99": _finite(mix.quantile_us(0.99))}


def _finite(x: float) -> float | None:
    """A latency in us to 3 decimals, or None for an unbounded queue (JSON has no infinity)."""
    return _r(x, 3) if math.isfinite(x) else None


def _unstable(st: FabricState, mix: WaitMixture) -> dict:
    """What to say when some ports are offered more than their links carry."""
    n = unstable_gpus(st)
    return {
        "unstable_share": _r(mix.unstable_share, 6),
        "unstable": (
            f"queue unstable: {words.plural(n, 'GPU')} {'is' if n == 1 else 'are'} offered "
            f"{OFFERED_LOAD:.0%} of a healthy port's rate on fewer links than can carry it, so "
            f"{'its queue grows' if n == 1 else 'their queues grow'} without bound; "
            f"{mix.unstable_share:.1%} of GPU pairs wait at one (a quantile among them is "
            "unbounded, shown as none)"
        ),
    }


def packet_rate(st: FabricState) -> dict:
    """Packets per second each way per GPU (G), scaled by the share of its links in service."""
    f = st.fabric
    share = st.efficiency.sum(axis=1) / f.planes
    alive = st.gpu_alive
    per = f.packet_rate_gpps_per_gpu * share
    return {
        "unit": "G packets/s per GPU, each way",
        "per_gpu_min": _r(float(per[alive].min()) if alive.any() else 0.0, 3),
        "per_gpu_healthy": _r(f.packet_rate_gpps_per_gpu, 3),
        "rack_total": _r(float(per.sum()), 2),
    }


def sharp_tflops(st: FabricState) -> float:
    """In-network reduction available: switch chips in service x TFLOPS per chip."""
    return _r(float(st.chip_in_service.sum()) * st.fabric.sharp_tflops_per_chip, 3)


def empty_distribution() -> dict:
    """latency_distribution()'s keys with nothing in them (what a fabric whose latency is
    None, or whose queue is unstable, answers); fresh lists each call."""
    return {
        "unit": "µs, one way",
        "latency_us": [],
        "cdf": [],
        "no_wait_share": None,
        "quantiles": {},
        "p50": None,
        "p99": None,
    }


def latency_distribution(st: FabricState, points: int = 121) -> dict:
    """The distribution behind latency(): CDF of one-way GPU-to-GPU latency (us).

    The same model as latency(), the same mixture: every ordered pair of active GPUs weighs
    alike and waits at the busier of its two ports, an M/M/1 queue with
    P(W > t) = rho exp(-(1 - rho) t / s). `cdf[i]` is P(latency <= latency_us[i]) on a grid
    from the unloaded latency to the 99.99th percentile; a share `1 - sum(w rho)` of messages
    does not wait at all (the CDF's step at the unloaded latency). Quantiles are computed
    exactly as latency() computes p50 and p99. Empty lists when latency() gives None.
    """
    f = st.fabric
    base = f.latency_one_way_us
    out: dict = {
        "unloaded_us": base,
        "message_bytes": LATENCY_MESSAGE_BYTES,
        "offered_load": OFFERED_LOAD,
        **empty_distribution(),
    }
    mix = _latency_mixture(st)  # the same mixture as latency()
    if mix is None:
        return out
    vals, w, s = mix.rho, mix.weight, mix.service_s
    qs = {q: mix.quantile_us(q) for q in (0.5, 0.9, 0.99, 0.999, 0.9999)}
    # the grid reaches the 99.99th percentile, or as far as the stable pairs go
    reach = (
        qs[0.9999]
        if math.isfinite(qs[0.9999])
        else mix.quantile_us(1.0 - mix.unstable_share - 1e-4)
        if mix.unstable_share < 1.0 - 1e-4
        else base
    )
    wait_us = np.linspace(0.0, max(reach - base, 0.0), max(int(points), 2))
    tail = (w * vals * np.exp(-np.outer(wait_us * 1e-6, (1 - vals)) / s)).sum(axis=1)
    tail = tail + mix.unstable_share
    if mix.unstable_share > 0.0:
        out = {**out, **_unstable(st, mix)}
    return {
        **out,
        "latency_us": [_r(x, 5) for x in base + wait_us],
        "cdf": [_r(x, 7) for x in 1.0 - tail],
        "no_wait_share": _r(1.0 - float((w * vals).sum()) - mix.unstable_share, 6),
        "quantiles": {f"{q:g}": _finite(v) for q, v in qs.items()},
        "p50": _finite(qs[0.5]),
        "p99": _finite(qs[0.99]),
    }
