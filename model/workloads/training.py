"""A training step on the rack: compute, MoE all-to-all and the gradient all-reduce.

[A] The job: a DeepSeek-V3-shaped MoE (FACTS.md §5), experts spread over every usable GPU
(expert parallelism), the other parameters data-parallel with one gradient all-reduce per
step (BF16), 32K tokens per GPU per step (gradient accumulation), no overlap of
communication with compute (an upper bound on what the fabric costs). The all-reduce uses
the switches' in-network reduction (NVLS/SHARP) where the fabric has it, a ring otherwise;
a lost switch chip takes its share of in-network reduction with it (its plane is gone).

    T_step   = T_compute + T_all_to_all + T_all_reduce
    T_compute = 6 x active params x tokens / (peak x MFU)
    T_a2a     = 4 per MoE layer (dispatch and combine, forward and backward), alpha-beta
    ring      = 2(n-1) alpha + 2(n-1)/n S/B;  NVLS = alpha_nvls + (1 + 1/n) S / (B eta_nvls)
"""

from __future__ import annotations

from dataclasses import dataclass

from model.workloads.collectives import all_to_all, nvls_all_reduce, ring_all_reduce
from model.workloads.decode import ALPHA_COMBINE_S, ALPHA_DISPATCH_S, ETA_A2A, FabricView
from model.workloads.models import GPU, MoEModel

TOKENS_PER_GPU_PER_STEP = 32_768  # [A] ~DeepSeek-V3: 15,360 x 4K tokens a step over 2,048 GPUs
TRAIN_MFU = 0.40  # [M] Llama 3 BF16 MFU 38-43% (research/goodput.md)
# [A] training runs in FP8, at half the FP4 rate of FACTS.md §5 (as on Blackwell).
TRAIN_PEAK_FRACTION_OF_FP4 = 0.5
GRAD_BYTES = 2.0  # BF16 gradients
A2A_BYTES_PER_HIDDEN = 1.5  # [A] FP8 forward dispatch, BF16 combine and backward: mean
# FACTS.md §4 [M]: NCCL's effective NVLink bandwidth is 40.1 of 50 GB/s per link (0.80);
# NCCL assumes NVLS efficiency 0.74 on Blackwell; ring step latency: NCCL Simple ~3.4 us.
ETA_RING = 0.80
ETA_NVLS = 0.74
ALPHA_RING_STEP_S = 3.4e-6
ALPHA_NVLS_S = 25e-6  # NCCL NVLS Simple hardware latency (research/perf_models.md §3)


@dataclass(frozen=True)
class StepTime:
    step_s: float
    compute_s: float
    all_to_all_s: float
    all_reduce_s: float
    all_reduce_algorithm: str
    ring_s: float
    nvls_s: float | None


def step_time(m: MoEModel, gpu: GPU, fv: FabricView, nvls_bw: float | None) -> StepTime:
    """One step's time and parts.

    nvls_bw: one-way bytes/s per GPU over the planes whose in-switch reduction every usable
    GPU can join (a lost chip, or one GPU's dead link, takes that plane out of NVLS), or
    None where the fabric has no in-network reduction.
    """
    n = fv.usable_gpus
    tokens = TOKENS_PER_GPU_PER_STEP
    peak = gpu.fp4_pflops * 1e15 * TRAIN_PEAK_FRACTION_OF_FP4
    compute = 6 * m.active_params * tokens / (peak * TRAIN_MFU)
    if n < 2 or fv.bw_out <= 0:
        return StepTime(compute, compute, 0.0, 0.0, "none", 0.0, None)
    lat = fv.latency_factor
    s_a2a = tokens * m.top_k * m.hidden * A2A_BYTES_PER_HIDDEN
    alpha = (ALPHA_DISPATCH_S + ALPHA_COMBINE_S) / 2 * lat
    one = all_to_all(s_a2a, n, fv.bw_out, alpha, fv.pps, fv.payload, ETA_A2A)
    a2a = 4 * m.moe_layers * float(one)
    dense = m.total_params - m.moe_layers * m.experts * m.expert_params
    s_grad = dense * GRAD_BYTES
    ring = float(
        ring_all_reduce(s_grad, n, fv.bw_out, ALPHA_RING_STEP_S * lat, fv.pps, fv.payload, ETA_RING)
    )
    nv = None
    if nvls_bw:
        nv = float(nvls_all_reduce(s_grad, n, nvls_bw, ALPHA_NVLS_S, ETA_NVLS))
    algo, ar = ("nvls", nv) if nv is not None and nv < ring else ("ring", ring)
    return StepTime(compute + a2a + ar, compute, a2a, ar, algo, ring, nv)
