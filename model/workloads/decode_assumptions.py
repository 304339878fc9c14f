"""The decode model's assumptions as the page and /api/v1/decode list them: each value, its
tag ([M] measured, [D] derived, [A] assumed) and its source, read from decode_params and
from what step.measured() derives of DeepSeek's profile."""

from __future__ import annotations

from model.workloads import decode_params as D
from model.workloads.step import measured

ASSUMPTIONS: tuple[dict, ...] = (
    {
        "name": "HBM efficiency",
        "value": round(D.ETA_HBM, 3),
        "tag": "M",
        "source": "FlashMLA: 3,000 of 3,350 GB/s on H800 (best published memory-bound kernel)",
    },
    {
        "name": "GEMM rate in a decode step",
        "value": round(measured().eta_gemm, 3),
        "tag": "M",
        "source": (
            "DeepSeek's decode profile (H800): the routed experts' GEMMs, 128 µs for 1,024 "
            "token-expert pairs a micro-batch, as a share of FP8 peak (DeepGEMM's best: 0.78)"
        ),
    },
    {
        "name": "GEMM rate by rows",
        "value": "x 0.70 at 128 rows to x 1.44 at 4,096, against the profile's 512",
        "tag": "M",
        "source": (
            "DeepGEMM's README (H800 dense FP8 GEMMs): 0.276 of peak at 128 rows, 0.565 at "
            "4,096, on the attention projections' four shapes; log-linear between"
        ),
    },
    {
        "name": "tensor-parallel attention's all-reduces",
        "value": "two a layer, BF16 activations of the group's tokens",
        "tag": "D",
        "source": "NCCL's ring (nccl.small_all_reduce_us: its LL, LL128 and Simple protocols)",
    },
    {
        "name": "attention-core rate in a decode step",
        "value": round(measured().eta_attn, 3),
        "tag": "M",
        "source": (
            "DeepSeek's decode profile: the MLA core 255 µs for 64 requests of 2 tokens over 4K "
            "context, as a share of BF16 peak (FlashMLA's best: 0.667)"
        ),
    },
    {
        "name": "a layer's time over its kernels",
        "value": round(measured().layer_gap, 3),
        "tag": "M",
        "source": "DeepSeek's decode profile: 87.32 ms for 61 layers against the kernels above",
    },
    {
        "name": "outside the layers, a token",
        "value": f"{measured().outside_us_per_token:.3g} µs on H800 (x 3.35 TB/s / HBM elsewhere)",
        "tag": "M",
        "source": (
            "DeepSeek's decode profile: 96 ms a step, 87.32 ms in the layers; the rest beyond "
            "the head and one MTP draft, over 256 tokens"
        ),
    },
    {
        "name": "MTP acceptance",
        "value": D.MTP_ACCEPTANCE,
        "tag": "M",
        "source": "DeepSeek-V3 report: 85-90% for the second token",
    },
    {
        "name": "MTP acceptance of each later draft",
        "value": D.MTP_LATER_ACCEPTANCE,
        "tag": "D",
        "source": (
            "DeepSeek-V3's MTP module reused for 7 drafts: 3.20 tokens a step (Nebius's "
            "nebius/MTP-DeepSeek-V3-0324 card), with the first draft at 0.85"
        ),
    },
    {
        "name": "deployments tried",
        "value": (
            "EP 4-72 with data-parallel attention, TEP 4 and 8, MTP 0-3 drafts, FP8/BF16 KV, "
            "two micro-batches on/off"
        ),
        "tag": "D",
        "source": "the best at each interactivity, as a deployment would choose",
    },
    {
        "name": "context",
        "value": f"{D.ISL} in / {D.OSL} out (mean {D.ISL + D.OSL // 2})",
        "tag": "A",
        "source": "InferenceX 1k/1k; the KV cache reserves the full length",
    },
    {
        "name": "residual (the one fitted term)",
        "value": f"{D.RESIDUAL_US:g} µs a step",
        "tag": "A",
        "source": "fitted on the GB200 NVL72 InferenceX rows (docs/CALIBRATION.md)",
    },
    {
        "name": "data-parallel attention spread",
        "value": D.ATTENTION_SPREAD,
        "tag": "D",
        "source": "Poisson: the busiest rank holds b + sqrt(2 b ln ep) requests",
    },
    {
        "name": "expert load imbalance",
        "value": f"skew {D.EXPERT_SKEW:g} + sqrt(2 ln ep / pairs)",
        "tag": "D",
        "source": "random routing's spread over ep ranks; EPLB's redundant experts [A] no skew",
    },
    {
        "name": "dispatch and combine",
        "value": "moe_a2a: TensorRT-LLM one-sided all-to-all, NVFP4 dispatch, BF16 combine",
        "tag": "M",
        "source": "fitted on blog18's EP8 points (docs/CALIBRATION.md)",
    },
)
