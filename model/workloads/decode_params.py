"""Every constant of the decode model (model/workloads/decode.py), with its source, in one place.

Tags as in FACTS.md: M measured, V vendor, D derived, A an assumption of this project. Three
kinds of number are here:

- kernel efficiencies, each the best a published kernel reaches (never fitted, never lower);
- the deployment choices a serving stack has (EP sizes, MTP, KV-cache precision, overlap);
- the few terms fitted on the named GB200 NVL72 points (docs/CALIBRATION.md,
  `python -m model.workloads.calibrate`; a test re-runs the fit and fails if they drift).
"""

from __future__ import annotations

import numpy as np

from model.workloads.models import DEFAULT_TOKENS_PER_S_PER_USER

# --- kernel efficiencies: the best published kernels, as a share of the GPU's peak ----------
# [M] FlashMLA (deepseek-ai/FlashMLA README, 2025-04-22): 3,000 GB/s memory-bound on H800 SXM5
# (3.35 TB/s peak) = 0.895. Applied to every memory-bound kernel (weights and KV reads) [A].
ETA_HBM = 3000 / 3350
# [M] DeepGEMM (deepseek-ai/DeepGEMM README): up to 1,550 TFLOPS FP8 on H800 (1,979 dense
# peak) = 0.78. Applied to the GEMMs at their precision's dense peak on any GPU [A].
ETA_GEMM = 1550 / 1979
# [M] FlashMLA: 660 TFLOPS compute-bound on H800 (989 BF16 dense peak) = 0.667: the
# attention core (scores and values over the context) when it is compute-bound.
ETA_ATTN = 660 / 989
# [A] the attention core's math is BF16 whatever the KV cache holds (FlashMLA and the MLA
# decode kernels dequantise an FP8 cache to BF16 before the tensor cores).
ATTENTION_MATH = "bf16"

# --- bytes of what is read ---------------------------------------------------------------------
# [A] weights as served in the FP4 recipes (InferenceX DeepSeek-R1 FP4; SGLang NVFP4 MoE):
# routed experts NVFP4 (4 bits + one FP8 scale per 16 values), attention, dense, shared
# experts and the head in FP8.
EXPERT_BYTES = {"nvfp4": 0.5 + 1 / 16, "fp8": 1 + 1 / 128}
OTHER_WEIGHT_BYTES = 1.0
# KV cache bytes per value against the model's BF16 figure (FACTS.md §5): FP8 halves it.
KV_SCALE = {"fp8": 0.5, "bf16": 1.0}
# [A] share of HBM left for weights and the KV cache after activations and workspace.
HBM_USABLE = 0.9
# [A] activation traffic of the per-token kernels (norms, residual adds, router, top-k,
# permute, quantise, RoPE): this many BF16 hidden vectors read or written per token and layer.
ACTIVATION_PASSES = 12

# --- the deployment choices a serving stack has -----------------------------------------------
# EP sizes tried (8 to 72 on one rack; a group never spans more GPUs than are in service). EP 72
# keeps ceil(256/72) = 4 experts a GPU with 32 redundant slots, as DeepSeek keeps 32 redundant
# experts (research/perf_models.md S25) [D].
# 144 to 1,152: groups of whole racks on a multi-rack domain (and DeepSeek's EP144).
EP_SIZES = (4, 8, 16, 32, 64, 72, 144, 288, 576, 1152)
# [M] MTP: DeepSeek-V3's technical report: the second token's acceptance rate is 85-90%
# (research/perf_models.md S9); 0.85 is used. One draft token a step; verifying it costs the
# main model a second token per request, and drafting costs one pass of the MTP module (one
# MoE layer and the head) per request.
MTP_ACCEPTANCE = 0.85
# [M] Later drafts: the MTP module reused for draft after draft. Nebius's model card for
# nebius/MTP-DeepSeek-V3-0324 measures DeepSeek-V3's original MTP module so reused at 7 drafts:
# a mean acceptance length of 3.20 tokens a step at temperature 0 (MT-bench, HumanEval, GSM8K).
# [D] With the first draft accepted at MTP_ACCEPTANCE and each later one at a constant rate r
# given the one before, 1 + 0.85 (1 - r^7) / (1 - r) = 3.20 gives r = 0.629.
MTP_LATER_ACCEPTANCE = 0.629
# [M] Tensor-parallel attention with EP MoE over the same GPUs (TEP), as the TensorRT-LLM
# recipes InferenceX ran at low concurrency serve DeepSeek-R1 (tep8; GLM-5's also tep4).
TEP_SIZES = (4, 8)
# Drafts a step: 0 to 3, as the TensorRT-LLM recipes InferenceX ran serve them (mtp0-mtp3).
MTP_DRAFTS = (0, 1, 2, 3)


def mtp_tokens(drafts):
    """Tokens a step delivers per request with `drafts` MTP drafts (array or int): the main
    model's token and each draft accepted while every draft before it was [D]."""
    d = np.asarray(drafts, dtype=float)
    r = MTP_LATER_ACCEPTANCE
    return 1.0 + MTP_ACCEPTANCE * (1.0 - r**d) / (1.0 - r)


KV_PRECISIONS = ("fp8", "bf16")
# Two micro-batches (DeepSeek's and SGLang's two-batch overlap): one's dispatch and combine
# run during the other's compute, but every weight is read twice. Tried on and off.
OVERLAP = (False, True)
# Dispatch precision: NVFP4 for the FP4 recipes (TensorRT-LLM blog18 post-quant dispatch),
# combine in BF16 (its default).
DISPATCH_PRECISION = "nvfp4"
COMBINE_PRECISION = "bf16"

# --- the context of a request ---------------------------------------------------------------
# [D] InferenceX 1k/1k: 1,024 tokens in, 1,024 out; a decoding request's mean context is
# 1,024 + 512. The KV cache reserves the full 2,048 for every request.
ISL, OSL = 1024, 1024

# --- measured parts: DeepSeek's own decode profile ---------------------------------------------
# [M] deepseek-ai/profile-data, decode.json (PyTorch profiler, H800, EP128, TP1, 4K prompt,
# 128 requests a GPU in two micro-batches of 64, routing simulated as perfectly balanced), per
# kernel as read off the trace (zdszero.github.io "DeepSeek profile", its H800 column):
# the whole step 96 ms, of which the 61 layers 87.32 ms; in one micro-batch's layer the MLA core
# (FlashMLA) 255 us and the routed experts' GEMMs and activation 81 + 8 + 39 = 128 us.
PROFILE_STEP_US = 96_000.0
PROFILE_LAYERS_US = 87_320.0
PROFILE_CORE_US = 255.0
PROFILE_EXPERTS_US = 81.0 + 8.0 + 39.0
PROFILE_BATCH = 128  # requests a GPU (two micro-batches of 64)
PROFILE_EP = 128
PROFILE_CONTEXT = 4096
# [A] the profile decodes with one MTP draft (DeepSeek serves with MTP): the measured core time
# is within 15% of FlashMLA's compute-bound rate only with two query tokens a request.
PROFILE_TOKENS_PER_REQUEST = 2
# From these the step derives (step.measured(), [D]): the attention core's and the GEMMs' rate in
# a real decode step (the FlashMLA and DeepGEMM peaks above are the best case), the time a layer
# spends beyond its kernels (launch gaps, small kernels, the micro-batches' hand-offs) as a
# ratio, and the time outside the layers a token costs (sampling, MTP acceptance, the
# scheduler, beyond the head and the drafting modelled), scaled with HBM bandwidth on other GPUs.

# [M] How a GEMM's rate moves with its rows (tokens): DeepGEMM's README (deepseek-ai/DeepGEMM
# at its first commit, 2025-02-25, "Normal GEMMs for dense models", H800) times the attention
# projections' four shapes (N, K: fused q/kv down 2112 x 7168, q up 24576 x 1536, kv up 32768 x
# 512, output 7168 x 16384) at M = 128 and 4096, in TFLOPS. [D] Their FLOP-weighted rate over
# H800's FP8 peak at each M (step.gemm_scale); between, log-linear in M, held at the ends. The
# profile's own rate (measured() below) stays the level; this table only moves it with M, from
# the profile's expert GEMMs' rows (PROFILE_GEMM_ROWS) [A: grouped expert GEMMs move with M as
# the dense ones do].
DEEPGEMM_SHAPES = ((2112, 7168), (24576, 1536), (32768, 512), (7168, 16384))
DEEPGEMM_TFLOPS = {128: (352.0, 535.0, 358.0, 645.0), 4096: (1058.0, 990.0, 590.0, 1358.0)}
# [D] the profile's expert GEMM rows: 64 requests x 2 tokens x 8 experts a micro-batch over a
# GPU's 2 of 256 experts at EP128
PROFILE_GEMM_ROWS = 64 * 2 * 8 / 2

# Data-parallel attention: the busiest of ep ranks holds b + spread x sqrt(2 b ln ep) requests.
# [D] 1: the Poisson scatter of requests arriving and finishing at random, nothing fitted.
ATTENTION_SPREAD = 1.0
# [A] expert load imbalance beyond random routing's spread (derived, sqrt(2 ln ep / pairs)):
# none; EPLB with redundant experts (DeepSeek keeps 32, research/perf_models.md S25).
EXPERT_SKEW = 0.0

# A single decode figure is quoted at the scenario's interactivity (at=); by default this
# one [A]: a responsive chat stream (model/workloads/models.py says why).
REFERENCE_TOKENS_PER_S_PER_USER = DEFAULT_TOKENS_PER_S_PER_USER
# --- the one fitted residual (docs/CALIBRATION.md) ------------------------------------------
# What the measured parts leave unexplained on the five named GB200 NVL72 points, as one time a
# step (us), fitted by `python -m model.workloads.calibrate` (a test re-runs the fit). Reported
# at every point as its share of the step (at most 25% at 50 tok/s/user, tested).
RESIDUAL_US = 6048.8

# The batch sweep: requests per GPU, from one request per EP group to the KV cache's limit.
# 128 points: with 96, the frontier read between sweep points moved by 2% where EP72's
# all-to-all floor bends the curve (tests/model/workloads/test_decode.py, BF16 against FP8).
BATCH_POINTS = 128
MAX_BATCH = 4096
