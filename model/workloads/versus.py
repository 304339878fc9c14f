"""The scenario's decode against its baseline fabric (workloads/throughput.decode_curves reads
these): the ratio along interactivity, where it passes a target, and what Ethernet bandwidth a
target needs; a vendor's "up to" ratio is passed in by the view (dashboard/figures/claims.py),
never held here."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from model.fabric.presets import ETH_X72, VR_NVL72, eth_ports_words, eth_with_bandwidth
from model.scenario import Scenario
from model.workloads import decode, moe_a2a
from model.workloads.decode import Frontier, Workload, frontier
from model.workloads.groups import Hardware, healthy_groups
from model.workloads.hardware import BASELINE, preset_hardware
from model.workloads.models import GPUS, moe_model


def ratio_along(a: Frontier, b: Frontier, lo: float = 20.0, hi: float = 200.0) -> dict:
    """a over b along the frontier grid: the points, and on [lo, hi] the range and the largest
    step between neighbouring points (2 tokens/s per user apart)."""
    r = a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu
    ok = np.isfinite(r) & (b.tokens_per_s_per_gpu > 0)
    pts = [
        {"tokens_per_s_per_user": round(float(x), 2), "ratio": round(float(v), 4)}
        for x, v, k in zip(a.x, r, ok, strict=True)
        if k
    ]
    win = ok & (a.x >= lo) & (a.x <= hi)
    rw = r[win]
    steps = np.abs(np.log(rw[1:] / rw[:-1])) if len(rw) > 1 else np.zeros(0)
    return {
        "points": pts,
        "range": {"min": round(float(rw.min()), 4), "max": round(float(rw.max()), 4)}
        if len(rw)
        else None,
        "max_step": round(float(np.exp(steps.max())), 4) if len(steps) else None,
        "both_reach_to": round(float(a.x[win].max()), 1) if len(rw) else None,
    }


def where_ratio_passes(points: list[dict], target: float) -> float | None:
    """The first interactivity (tokens/s per user) at which the ratio reaches `target`
    (interpolated between the frontier's points), or None."""
    prev = None
    for p in points:
        if p["ratio"] >= target:
            if prev is None:
                return p["tokens_per_s_per_user"]
            x0, r0 = prev["tokens_per_s_per_user"], prev["ratio"]
            x1, r1 = p["tokens_per_s_per_user"], p["ratio"]
            return x0 + (target - r0) * (x1 - x0) / (r1 - r0) if r1 != r0 else x1
        prev = p
    return None


def vendor_claim(s: Scenario, ratio: list[dict], target: float) -> dict | None:
    """Where the model finds a vendor's ratio `target` (NVIDIA's 'up to' figure, FACTS.md §4
    [V]: the page passes it; the model never holds it) on vr-nvl72 against its
    Ethernet baseline (eth_bw=, NVLink 6's bandwidth by default): the ratio at the scenario's
    interactivity, the interactivity where this Ethernet's ratio reaches the target, and the
    Ethernet bandwidth a GPU at which the healthy rack reaches it at at=. None on a
    scenario not held against eth-x72."""
    if BASELINE.get(s.fabric) != ETH_X72.key or not ratio:
        return None
    bw = ETH_X72.gpu_tbs_bidir if s.eth_bw is None else s.eth_bw
    near = min(ratio, key=lambda p: abs(p["tokens_per_s_per_user"] - s.at))
    passes = where_ratio_passes(ratio, target)
    need = baseline_bandwidth_for_ratio(s.workload, target, s.at)
    here = (
        f"NVLink 6 decodes {near['ratio']:.2f}x the tokens/s per GPU of Ethernet with "
        f"{eth_ports_words(bw)} at {s.at:g} tokens/s per user"
    )
    claim = f"NVIDIA's 'up to {target:g}x'"
    if passes is None:
        there = f"; against this Ethernet the model never finds {claim}"
    elif passes <= ratio[0]["tokens_per_s_per_user"]:
        there = f"; against this Ethernet the model finds {claim} or more at every interactivity"
    else:
        there = (
            f"; against this Ethernet the model finds {claim} from {passes:.0f} tokens/s per user"
        )
    if need:
        there += f", and at {s.at:g} tokens/s per user against Ethernet of {eth_ports_words(need)}"
    return {
        "ratio": target,
        "source": "FACTS.md §4 [V]: NVIDIA, NVLink 6 vs off-the-shelf Ethernet, setup unpublished",
        "ethernet_tbs_per_gpu": bw,
        "ethernet": eth_ports_words(bw),
        "tokens_per_s_per_user": s.at,
        "ratio_at": near["ratio"],
        "passes_at_tokens_per_s_per_user": None if passes is None else round(passes, 1),
        "ethernet_tbs_for_ratio_at": need,
        "ethernet_for_ratio_at": eth_ports_words(need) if need else None,
        "sentence": here + there + ".",
    }


@lru_cache(maxsize=32)
def baseline_bandwidth_for_ratio(workload: str, target: float, x: float) -> float | None:
    """The per-GPU bandwidth (TB/s both ways) eth-x72 would need for vr-nvl72 to beat it by
    `target` at interactivity x, or None if even 1% of vr-nvl72's bandwidth is not enough:
    where a vendor's ratio would come from if not from latency and packet rate."""
    m = moe_model(workload)
    w = Workload(m)
    xs = np.array([x])
    vr = float(
        decode.cached_frontier(m, preset_hardware(VR_NVL72), w).tokens_per_s_per_gpu[
            decode.cached_frontier(m, preset_hardware(VR_NVL72), w).nearest(x)
        ]
    )

    def ratio(tbs: float) -> float:
        f = eth_with_bandwidth(tbs)
        hw = Hardware(
            f.key,
            GPUS[f.gpu],
            f.gpus,
            healthy_groups(f.gpus, lambda e: moe_a2a.share_view(f, e, 1.0)),
        )
        g = float(frontier(m, hw, w, xs).tokens_per_s_per_gpu[0])
        return vr / g if np.isfinite(g) and g > 0 else float("inf")

    lo, hi = VR_NVL72.gpu_tbs_bidir * 0.01, VR_NVL72.gpu_tbs_bidir
    if ratio(lo) < target or ratio(hi) >= target:
        return None
    for _ in range(14):  # bisection on a log scale: ratio falls as bandwidth rises
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if ratio(mid) >= target else (lo, mid)
    return round(hi, 3)
