"""MoE decode throughput against interactivity (FACTS.md §5 "Decode step").

Data-parallel attention, expert parallelism across every usable GPU of the domain, two
micro-batches overlapped, so one MoE layer costs max(compute, dispatch + combine):

    T_a2a    = alpha x latency factor + max over GPUs (bytes / (B_out x eta), packets / pps)
    T_layer  = max(T_compute, T_dispatch + T_combine)
    TPOT     = MoE layers x T_layer + dense layers x T_dense + T_head
    tokens/s per user = tokens per step / TPOT; tokens/s per GPU = batch x GPUs / TPOT / GPUs

T_compute is the larger of FLOPs / (peak x MFU) and HBM bytes / (HBM bandwidth x eta_hbm):
attention and shared weights, the local experts a step touches, and the KV cache read.
Sweeping the batch per GPU gives the throughput-vs-interactivity curve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.fabric.presets import NVLINK_LATENCY_US, Fabric
from model.workloads.collectives import wire_time
from model.workloads.models import MoEModel

# FACTS.md §4 [M]: TensorRT-LLM one-sided all-to-all floor on GB200 NVL72, batch 1-16.
ALPHA_DISPATCH_S = 18e-6
ALPHA_COMBINE_S = 31e-6
# FACTS.md §5: eta ~0.75 all-to-all efficiency.
ETA_A2A = 0.75
# Bytes per token per MoE layer (FACTS.md §5): dispatch h in FP8 + h/32 scales; combine 2h.
DISPATCH_BYTES_PER_HIDDEN = 1 + 1 / 32
COMBINE_BYTES_PER_HIDDEN = 2.0
# [A] weights as served: routed experts in NVFP4 (4 bits + an FP8 scale per 16 values),
# attention, dense, shared experts and the head in FP8.
EXPERT_WEIGHT_BYTES = 0.5 + 1 / 16
OTHER_WEIGHT_BYTES = 1.0
# [A] mean context per decoding request: between InferenceX's 1k/1k (~1.5k mean) and
# DeepSeek's production mean KV length of 4,989 (FACTS.md §5 sources).
CONTEXT_TOKENS = 2048
# [A] share of HBM left for the KV cache after weights and activations.
HBM_USABLE = 0.9
# Calibrated once against FACTS.md §5's published points (docs/CALIBRATION.md,
# `python -m model.workloads.calibrate`): the free efficiency parameters.
MFU_DECODE = 0.14
ETA_HBM = 0.21
# Reference interactivity at which a single decode figure is quoted [A]: a responsive
# chat or agent stream.
REFERENCE_TOKENS_PER_S_PER_USER = 50.0
MAX_BATCH = 4096


@dataclass(frozen=True)
class FabricView:
    """What decode needs of a fabric in a given state."""

    usable_gpus: int  # GPUs that hold experts and run the job
    installed_gpus: int  # denominator of tokens/s per GPU: a lost GPU counts as zero
    bw_out: float  # bytes/s one way, of the slowest usable GPU
    pps: float  # packets/s one way, of the slowest usable GPU
    payload: int  # bytes per packet
    latency_factor: float  # end-to-end GPU-to-GPU latency relative to NVLink


def fabric_view(f: Fabric, usable: int, gpu_tbs_min: float) -> FabricView:
    """Build the view from a fabric and the slowest usable GPU's bidirectional TB/s."""
    share = gpu_tbs_min / f.gpu_tbs_bidir if f.gpu_tbs_bidir else 0.0
    return FabricView(
        usable_gpus=usable,
        installed_gpus=f.gpus,
        bw_out=gpu_tbs_min / 2 * 1e12,
        pps=f.packet_rate_gpps_per_gpu * 1e9 * share,
        payload=f.packet_bytes,
        latency_factor=f.latency_one_way_us / NVLINK_LATENCY_US,
    )


def max_batch(
    m: MoEModel,
    hbm_gb: float,
    n: int,
    context: int = CONTEXT_TOKENS,
    expert_bytes: float = EXPERT_WEIGHT_BYTES,
    kv_scale: float = 1.0,
) -> int:
    """Largest batch per GPU whose KV cache fits beside the weights."""
    e_local = int(np.ceil(m.experts / n))
    weights = (
        m.layers * m.attn_params_per_layer
        + m.dense_layers * m.dense_ffn_params
        + m.moe_layers * m.shared_experts * m.expert_params
        + 2 * m.vocab * m.hidden
    ) * OTHER_WEIGHT_BYTES + m.moe_layers * e_local * m.expert_params * expert_bytes
    room = hbm_gb * 1e9 * HBM_USABLE - weights
    return int(max(1, min(MAX_BATCH, room // (context * m.kv_bytes_per_token * kv_scale))))


def step_times(
    m: MoEModel,
    peak_flops: float,
    hbm_bytes_s: float,
    fv: FabricView,
    batch: np.ndarray,
    context: int = CONTEXT_TOKENS,
    mfu: float = MFU_DECODE,
    eta_hbm: float = ETA_HBM,
    expert_bytes: float = EXPERT_WEIGHT_BYTES,
    kv_scale: float = 1.0,
) -> dict[str, np.ndarray]:
    """Time per output token and its parts, for each batch per GPU (vectorised)."""
    b = np.asarray(batch, dtype=float)
    n = fv.usable_gpus
    h = m.hidden
    flops_rate = peak_flops * mfu
    mem_rate = hbm_bytes_s * eta_hbm
    e_local = np.ceil(m.experts / n)
    touched = e_local * (1 - (1 - m.top_k / m.experts) ** (b * n))
    attn_ctx = b * context * m.attn_flops_per_ctx_token
    kv = b * context * m.kv_bytes_per_token_layer * kv_scale

    moe_flops = 2 * b * (m.attn_params_per_layer + (m.shared_experts + m.top_k) * m.expert_params)
    moe_bytes = (
        (m.attn_params_per_layer + m.shared_experts * m.expert_params) * OTHER_WEIGHT_BYTES
        + touched * m.expert_params * expert_bytes
        + kv
    )
    t_moe_comp = np.maximum((moe_flops + attn_ctx) / flops_rate, moe_bytes / mem_rate)

    dense_flops = 2 * b * (m.attn_params_per_layer + m.dense_ffn_params) + attn_ctx
    dense_bytes = (m.attn_params_per_layer + m.dense_ffn_params) * OTHER_WEIGHT_BYTES + kv
    t_dense = np.maximum(dense_flops / flops_rate, dense_bytes / mem_rate)
    t_head = np.maximum(2 * b * m.vocab * h / flops_rate, m.vocab * h / mem_rate)

    remote = (n - 1) / n if n > 1 else 0.0
    msgs = b * m.top_k * remote
    d_msg, c_msg = h * DISPATCH_BYTES_PER_HIDDEN, h * COMBINE_BYTES_PER_HIDDEN
    if n > 1 and fv.bw_out > 0:
        w_d = wire_time(msgs * d_msg, msgs, d_msg, fv.bw_out, fv.pps, fv.payload, ETA_A2A)
        w_c = wire_time(msgs * c_msg, msgs, c_msg, fv.bw_out, fv.pps, fv.payload, ETA_A2A)
        t_dispatch = ALPHA_DISPATCH_S * fv.latency_factor + w_d
        t_combine = ALPHA_COMBINE_S * fv.latency_factor + w_c
    else:
        t_dispatch = t_combine = np.zeros_like(b)
    t_comm = t_dispatch + t_combine
    t_layer = np.maximum(t_moe_comp, t_comm)
    tpot = m.moe_layers * t_layer + m.dense_layers * t_dense + t_head
    return {
        "tpot_s": tpot,
        "t_moe_compute_s": t_moe_comp,
        "t_dispatch_s": np.broadcast_to(t_dispatch, b.shape),
        "t_combine_s": np.broadcast_to(t_combine, b.shape),
        "comm_bound": t_comm > t_moe_comp,
    }


def curve(
    m: MoEModel,
    peak_flops: float,
    hbm_bytes_s: float,
    hbm_gb: float,
    fv: FabricView,
    context: int = CONTEXT_TOKENS,
    tokens_per_step: float = 1.0,
    mfu: float = MFU_DECODE,
    eta_hbm: float = ETA_HBM,
    expert_bytes: float = EXPERT_WEIGHT_BYTES,
    kv_scale: float = 1.0,
) -> dict[str, np.ndarray]:
    """Throughput per installed GPU against interactivity, over a batch sweep."""
    if fv.usable_gpus < 1 or fv.bw_out <= 0:
        z = np.zeros(0)
        return {"batch_per_gpu": z, "tokens_per_s_per_user": z, "tokens_per_s_per_gpu": z}
    bmax = max_batch(m, hbm_gb, fv.usable_gpus, context, expert_bytes, kv_scale)
    batch = np.unique(np.round(np.geomspace(1, bmax, 96)))
    t = step_times(
        m, peak_flops, hbm_bytes_s, fv, batch, context, mfu, eta_hbm, expert_bytes, kv_scale
    )
    tpot = t["tpot_s"]
    return {
        "batch_per_gpu": batch,
        "tokens_per_s_per_user": tokens_per_step / tpot,
        "tokens_per_s_per_gpu": tokens_per_step * batch * fv.usable_gpus / tpot / fv.installed_gpus,
        "comm_bound": t["comm_bound"],
    }


def throughput_at(c: dict[str, np.ndarray], interactivity: np.ndarray) -> np.ndarray:
    """Tokens/s per GPU at each interactivity (tokens/s per user); NaN where unreachable."""
    x = np.asarray(interactivity, dtype=float)
    u = c["tokens_per_s_per_user"]
    if len(u) == 0:
        return np.full(x.shape, np.nan)
    order = np.argsort(u)
    lu, lg = np.log(u[order]), np.log(c["tokens_per_s_per_gpu"][order])
    out = np.exp(np.interp(np.log(x), lu, lg))
    out[(x < u.min() * (1 - 1e-9)) | (x > u.max() * (1 + 1e-9))] = np.nan
    return out


ASSUMPTIONS: tuple[dict, ...] = (
    {
        "name": "all-to-all floor",
        "value": "18 us dispatch, 31 us combine",
        "tag": "M",
        "source": "FACTS.md §4: TensorRT-LLM one-sided all-to-all on GB200 NVL72",
    },
    {
        "name": "latency scaling",
        "value": "the floor scales with end-to-end GPU-to-GPU latency",
        "tag": "A",
        "source": "NVIDIA's 3x is end-to-end (seed article): eth-x72 pays 3x",
    },
    {"name": "all-to-all efficiency", "value": ETA_A2A, "tag": "M", "source": "FACTS.md §5"},
    {
        "name": "MFU (decode)",
        "value": MFU_DECODE,
        "tag": "A",
        "source": "calibrated on published GB200 points (docs/CALIBRATION.md)",
    },
    {
        "name": "HBM efficiency",
        "value": ETA_HBM,
        "tag": "A",
        "source": "calibrated on published GB200 points (docs/CALIBRATION.md)",
    },
    {
        "name": "context per request",
        "value": CONTEXT_TOKENS,
        "tag": "A",
        "source": "between InferenceX 1k/1k and DeepSeek's 4,989 mean",
    },
    {"name": "weights", "value": "experts NVFP4, the rest FP8", "tag": "A", "source": ""},
    {
        "name": "overlap",
        "value": "two micro-batches: max(compute, dispatch + combine)",
        "tag": "D",
        "source": "FACTS.md §5",
    },
)
