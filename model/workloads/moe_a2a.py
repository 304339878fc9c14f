"""MoE dispatch and combine per layer: TensorRT-LLM's one-sided all-to-all on the scenario's fabric.

Attention data-parallel, experts on `ep` ranks (the first `ep` GPUs in service), each token sent
once to each rank holding one of its top-k experts (rank-major, deduplicated: min(ep, k)
targets, 1/ep of them local; TensorRT-LLM blog18). One op's time on the slowest rank:

    T = GPU-side floor      kernel, routing, slot atomics, fences, flag polling: the same on
                            any fabric (fitted, comm_params.A2A_GPU_US)
      + per-peer sync       one warp walks the peers' flag slots 32 at a time: each loop over
                            the peers (dispatch 3, combine 2) takes ceil(ep/32) passes, every
                            pass past the first at a fitted cost (comm_params.SYNC_PASS_US)
      + wire and switch     hops x the fabric's one-way GPU-to-GPU latency (3x on eth-x72)
      + small messages      flags to every peer, and each token's expert IDs and weights, one
                            packet each at the slowest rank's packet rate (a tenth on eth-x72)
      + bulk                max(remote bytes / (line rate x eta), packets / packet rate)

remote bytes = tokens x min(ep, k) x (ep-1)/ep x bytes per token (h x the precision's bytes per
value, scales included). Pure functions of the Assessment and numbers; decode does not read
this yet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.assess import Assessment
from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.workloads import comm_params as P
from model.workloads.models import MoEModel

OPS = {"moe_dispatch": "dispatch", "moe_combine": "combine"}
PRECISIONS = ("bf16", "fp8", "nvfp4")
MAX_TOKENS = 65_536  # per rank


@dataclass(frozen=True)
class Tier:
    """One way out of a rank: one-way line bytes/s and packets/s, packet payload, latency."""

    line_bytes_s: float
    pps: float
    payload: int
    latency_one_way_us: float


@dataclass(frozen=True)
class EPFabric:
    """The slowest of the EP ranks: its scale-up tier and, where the EP group is wider than one
    scale-up island (b200-roce's 8-GPU HGX nodes), the scale-out tier between islands."""

    ep: int
    line_bytes_s: float
    pps: float
    payload: int
    latency_one_way_us: float
    island: int = 0  # ranks one scale-up island holds (itself included); 0 = the whole group
    cross: Tier | None = None  # the tier between islands
    load_store: bool = True  # the scale-up tier gives peer memory access (NVLink; not Ethernet)

    @property
    def peer_memory(self) -> bool:
        """Whether every rank reads and writes every peer's memory (NVLink, one island): what
        the serving frameworks' one-shot all_reduce needs (nccl.one_shot_all_reduce_us)."""
        return self.load_store and self.peers_far == 0

    @property
    def peers_near(self) -> int:
        """Peers reached over the scale-up tier."""
        return (min(self.island, self.ep) if self.island else self.ep) - 1

    @property
    def peers_far(self) -> int:
        """Peers reached over the scale-out tier (0 on one scale-up domain)."""
        return self.ep - 1 - self.peers_near


def share_view(f: Fabric, ep: int, share: float) -> EPFabric:
    """An EP group on fabric f whose slowest rank keeps `share` of a healthy GPU's links."""
    return EPFabric(
        ep,
        f.gpu_tbs_bidir * share / 2 * 1e12,
        f.packet_rate_gpps_per_gpu * 1e9 * share,
        f.packet_bytes,
        f.latency_one_way_us,
        load_store=not f.ethernet,
    )


def healthy_ep(f: Fabric, ep: int) -> EPFabric:
    return share_view(f, ep, 1.0)


def ep_fabric(a: Assessment, ep: int) -> EPFabric:
    """The first `ep` GPUs in service and the slowest of them (the barrier waits for it)."""
    in_service = np.flatnonzero(a.usable) if a.job_runs else np.zeros(0, dtype=int)
    if ep > len(in_service):
        why = (
            f"only {len(in_service)} GPUs are in service"
            if a.job_runs
            else "no GPU is in service: the job does not run in this scenario"
        )
        raise ScenarioError(f"ep {ep}: {why}", token="ep")
    f = a.fabric
    worst = float(a.per_gpu_tbs[in_service[:ep]].min())
    return share_view(f, ep, worst / f.gpu_tbs_bidir if f.gpu_tbs_bidir else 0.0)


def bytes_per_token(m: MoEModel, kind: str, precision: str) -> float:
    """Payload bytes of one token (scales included); a ScenarioError names `precision`."""
    table = P.DISPATCH_BYTES_PER_HIDDEN if kind == "dispatch" else P.COMBINE_BYTES_PER_HIDDEN
    if precision not in PRECISIONS:
        raise ScenarioError(
            f"precision '{precision}' is not one of {', '.join(PRECISIONS)}", token="precision"
        )
    if precision not in table:
        raise ScenarioError(
            "combine is reduced in bf16, or sent in fp8 (TensorRT-LLM's low-precision "
            f"combine); there is no {precision} combine",
            token="precision",
        )
    return m.hidden * table[precision]


def sync_us(kind: str, ep: int, pass_us: float = P.SYNC_PASS_US) -> float:
    """The per-peer synchronisation past one warp's first pass over the peers (us), held at
    the kernel's largest group (64 ranks) beyond it."""
    passes = math.ceil(min(ep, P.SYNC_MAX_RANKS) / P.SYNC_LANES)
    return (passes - 1) * P.SYNC_LOOPS[kind] * pass_us


def parts_us(
    kind: str,
    tokens,
    m: MoEModel,
    precision: str,
    v: EPFabric,
    gpu_us: float | None = None,
    eta: float | None = None,
    pass_us: float = P.SYNC_PASS_US,
) -> dict:
    """The op's time in its five parts, us (gpu_us, eta and pass_us default to the fitted
    constants).

    `tokens` (per rank) may be an array. Each token's min(ep, k) targets are spread evenly over
    the ranks, so a share peers_near / (ep - 1) of the remote ones stays on the scale-up tier
    and the rest crosses the scale-out tier; the two move at once, and the barrier waits for
    the slower; the wire part is the slower tier's latency.
    """
    gpu_us = P.A2A_GPU_US[kind] if gpu_us is None else gpu_us
    eta = P.A2A_ETA[kind] if eta is None else eta
    t = np.asarray(tokens, dtype=float)
    ep = v.ep
    remote_targets = t * min(ep, m.top_k) * (ep - 1) / ep
    bpt = bytes_per_token(m, kind, precision)
    hops = P.DISPATCH_WIRE_HOPS if kind == "dispatch" else P.COMBINE_WIRE_HOPS
    per_target = P.DISPATCH_META_PER_TOKEN_TARGET if kind == "dispatch" else 0
    tiers = [(v.peers_near, Tier(v.line_bytes_s, v.pps, v.payload, v.latency_one_way_us))]
    if v.peers_far:
        tiers.append((v.peers_far, v.cross))
    data = np.zeros_like(t)
    messages = np.zeros_like(t)
    latency = 0.0
    for peers, tier in tiers:
        if peers <= 0:
            continue
        if (
            tier is None
            or np.any(np.asarray(tier.line_bytes_s) <= 0)
            or np.any(np.asarray(tier.pps) <= 0)
        ):
            inf = np.full_like(t, np.inf)
            sync = sync_us(kind, ep, pass_us)
            return {"gpu": gpu_us, "sync": sync, "wire": float("inf"), "messages": inf, "data": inf}
        share = peers / (ep - 1)
        targets = remote_targets * share
        packets = targets * math.ceil(bpt / tier.payload)
        bulk = np.maximum(targets * bpt / (tier.line_bytes_s * eta), packets / (tier.pps * eta))
        data = np.maximum(data, bulk * 1e6)
        small = peers * P.FLAGS_PER_PEER + targets * per_target
        messages = np.maximum(messages, small / tier.pps * 1e6)
        latency = max(latency, tier.latency_one_way_us)
    scalar = np.ndim(tokens) == 0
    return {
        "gpu": gpu_us,
        "sync": sync_us(kind, ep, pass_us),
        "wire": hops * latency,
        "messages": float(messages) if scalar else messages,
        "data": float(data) if scalar else data,
    }


def moe_op(op: str, tokens: int, m: MoEModel, precision: str, v: EPFabric) -> dict:
    """One MoE layer's dispatch or combine: time, parts and bandwidths; ScenarioErrors name the
    parameter (`op`, `ep` not dividing the experts, `precision`)."""
    if op not in OPS:
        raise ScenarioError(f"op '{op}' is not one of {', '.join(OPS)}", token="op")
    if m.experts % v.ep:
        raise ScenarioError(
            f"ep {v.ep} does not divide {m.name}'s {m.experts} routed experts", token="ep"
        )
    kind = OPS[op]
    parts = parts_us(kind, tokens, m, precision, v)
    t = sum(parts.values())
    if not math.isfinite(t):
        raise ScenarioError(f"ep {v.ep}: the slowest rank has no bandwidth left", token="ep")
    bpt = bytes_per_token(m, kind, precision)
    logical = tokens * min(v.ep, m.top_k) * bpt  # TensorRT-LLM's reported "bandwidth" basis
    return {
        "op": op,
        "workload_model": m.name,
        "hidden": m.hidden,
        "top_k": m.top_k,
        "precision": precision,
        "tokens_per_rank": tokens,
        "ep": v.ep,
        "time_us": round(t, 3),
        "parts_us": {k: round(x, 4) for k, x in parts.items()},
        "bytes_per_token": round(bpt, 1),
        "remote_bytes": round(tokens * min(v.ep, m.top_k) * (v.ep - 1) / v.ep * bpt),
        "logical_gbs": round(logical / (t * 1e3), 3),
        "line_gbs": round(v.line_bytes_s / 1e9, 3),
        "note": (
            "per rank, one MoE layer; logical_gbs is TensorRT-LLM's convention (tokens x "
            "min(ep, top_k) x bytes per token / time, the local share included)"
        ),
    }


# --- calibration (docs/CALIBRATION.md) ----------------------------------------------------------


@dataclass(frozen=True)
class A2APoint:
    kind: str
    ep: int
    tokens: int
    precision: str
    published_us: float
    fitted: bool


# TensorRT-LLM blog18 [M], GB200 NVL72, DeepSeek-V3 profile (h 7168, top-8, 256 experts).
FITTED = (
    A2APoint("dispatch", 8, 1, "bf16", 18.9, True),
    A2APoint("dispatch", 8, 2048, "bf16", 311.8, True),
    A2APoint("combine", 8, 1, "bf16", 31.0, True),
    A2APoint("combine", 8, 2048, "bf16", 322.6, True),
)
# The floor at EP64 (issue 29): blog18's 1-16 token points there set the sync pass's cost.
FLOOR_EP64 = tuple(
    A2APoint(kind, 64, b, "bf16", us, True)
    for b, d, c in (
        (1, 27.8, 32.6),
        (2, 24.8, 32.2),
        (4, 29.1, 33.0),
        (8, 20.4, 33.3),
        (16, 20.6, 35.0),
    )
    for kind, us in (("dispatch", d), ("combine", c))
)
NAMED_CHECK = (A2APoint("dispatch", 8, 2048, "nvfp4", 101.7, False),)
# The rest of blog18's tables: checks the fit never saw.
_TABLE = {  # ep: (tokens, dispatch us, combine us)
    8: ((16, 18.5, 32.6), (128, 31.7, 38.1), (256, 50.8, 53.0), (512, 89.5, 91.7)),
    16: (
        (1, 18.8, 30.8),
        (16, 18.4, 33.0),
        (128, 34.6, 39.9),
        (256, 54.8, 57.0),
        (2048, 343.3, 348.4),
    ),
    32: (
        (1, 19.8, 31.4),
        (16, 18.9, 33.4),
        (128, 37.8, 41.1),
        (256, 61.5, 59.7),
        (2048, 373.7, 369.5),
    ),
    64: (
        (32, 23.1, 36.1),
        (64, 28.8, 37.7),
        (128, 41.6, 44.5),
        (256, 65.3, 62.9),
        (2048, 399.2, 372.1),
    ),
}
CHECKS = (
    *NAMED_CHECK,
    A2APoint("dispatch", 8, 2048, "fp8", 172.2, False),
    *(
        A2APoint(kind, ep, b, "bf16", us, False)
        for ep, rows in _TABLE.items()
        for b, d, c in rows
        for kind, us in (("dispatch", d), ("combine", c))
    ),
)


def model_us(p: A2APoint, m: MoEModel, f: Fabric, **kw) -> float:
    return sum(parts_us(p.kind, p.tokens, m, p.precision, healthy_ep(f, p.ep), **kw).values())


def fit(m: MoEModel, f: Fabric) -> dict[str, tuple[float, float]]:
    """Per op, (GPU-side floor us, eta) solving the two fitted EP8 points exactly: the bulk at
    1 and 2,048 tokens gives eta, the rest of the 1-token point is GPU-side."""
    out = {}
    for kind in ("dispatch", "combine"):
        lo, hi = (p for p in FITTED if p.kind == kind)
        # with eta = 1 and no GPU floor, the bulk part scales as 1/eta
        base_lo = parts_us(kind, lo.tokens, m, lo.precision, healthy_ep(f, lo.ep), 0.0, 1.0)
        base_hi = parts_us(kind, hi.tokens, m, hi.precision, healthy_ep(f, hi.ep), 0.0, 1.0)
        fixed_lo = base_lo["wire"] + base_lo["messages"]
        fixed_hi = base_hi["wire"] + base_hi["messages"]
        # hi - lo: (fixed_hi - fixed_lo) + (data_hi - data_lo) / eta
        eta = (base_hi["data"] - base_lo["data"]) / (
            hi.published_us - lo.published_us - (fixed_hi - fixed_lo)
        )
        gpu = lo.published_us - fixed_lo - base_lo["data"] / eta
        out[kind] = (gpu, eta)
    return out


def fit_sync(m: MoEModel, f: Fabric) -> float:
    """The cost of one extra pass of one peer loop (us) minimising the squared log error over
    the EP64 floor points (FLOOR_EP64), the EP8 constants held: a grid of 0.05 us."""
    grid = np.round(np.arange(0.0, 5.0001, 0.05), 2)

    def loss(c: float) -> float:
        return sum(
            math.log(model_us(p, m, f, pass_us=float(c)) / p.published_us) ** 2 for p in FLOOR_EP64
        )

    return float(min(grid, key=loss))
