"""Every constant of the collective and MoE all-to-all models, with its source, in one place.

Read by model/workloads/nccl.py (NCCL's ring and NVLS collectives, as nccl-tests reports them)
and model/workloads/moe_a2a.py (MoE dispatch and combine, as TensorRT-LLM measures them).
Tags as in FACTS.md: M measured, V vendor, D derived, A an assumption of this project. Two
kinds of number are here: NCCL's own tuning constants (src/graph/tuning.cc, topo.h and
transport/nvls.cc at NVIDIA/nccl 5067397, 2026-06), used as NCCL uses them, and the few
parameters fitted on FACTS.md §4's named points (docs/CALIBRATION.md; the tests re-run each
fit and fail if a constant here drifts from it).
"""

from __future__ import annotations

# --- nccl-tests' bus bandwidth (NVIDIA/nccl-tests src/*.cu, *GetBw; doc/PERFORMANCE.md) -------
# busbw = algbw x factor(n): all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n.
# `bytes` is nccl-tests' "size" column: the whole buffer (all_gather's output, reduce_scatter's
# input, the all-to-all's send buffer per rank); algbw = bytes / time.

# --- NCCL's effective NVLink bandwidth (topo.h) ------------------------------------------------
# SM100_NVLINK_BW 40.1 GB/s per NVLink 5 link of 50 GB/s one way: 0.802 [M, FACTS.md §4].
NCCL_LINK_EFFICIENCY = 40.1 / 50.0

# --- NCCL ring latencies on NVLink, us (tuning.cc ncclTunerConstantsDefaults) ------------------
# time = base + steps x per-step hardware latency + bytes / (1000 x algbw), per protocol.
# LL halves the bus bandwidth and caps it at llMaxBw (Blackwell, one node: 2 x 141 GB/s);
# LL128 delivers 0.92 of it (120/128 of each line carries data).
RING_BASE_US = {"LL": 6.6, "LL128": 14.0, "Simple": 8.4}
RING_STEP_US = {"LL": 0.6, "LL128": 1.9, "Simple": 3.4}
RING_BW_SHARE = {"LL": 0.5, "LL128": 0.92, "Simple": 1.0}
LL_MAX_BUS_GBS = 2 * 141.0
# NVLS (in-switch reduction), Simple protocol only: 25 us hardware latency, no base.
NVLS_LATENCY_US = 25.0
# NVLS pipelines the buffer in chunks: 24 channels (NVLS_NCHANNELS_SM100_NVL, transport/nvls.cc)
# of 128 KiB each (NCCL_NVLS_CHUNKSIZE default). [A] the pipeline fills over the n ranks, one
# chunk round per peer, before it runs at its bandwidth: fill = (n-1) x min(round, S/n) / B.
# This is what makes the measured 72-rank curve climb from 586 GB/s at 512 MB to 835-847 at
# 4-8 GB; NCCL's own tuner has no such term (its 25 us alone predicts the plateau at 512 MB).
NVLS_ROUND_BYTES = 24 * 128 * 1024

# [A] the wire-and-switch share of each latency above: one one-way hop per ring step; three
# for NVLS (a multimem load-reduce's request and response, then the multicast store). The
# rest is GPU-side (kernel launch, flags, fences) and is the same on any fabric; only the
# wire share scales with the fabric's GPU-to-GPU latency (3x on eth-x72, FACTS.md §4).
RING_STEP_WIRE_HOPS = 1
NVLS_WIRE_HOPS = 3

# --- fitted (docs/CALIBRATION.md: model.workloads.nccl.fit_nvls) ------------------------------
# NVLS efficiency on the NCCL-effective bandwidth of the planes every rank reaches, in NCCL's
# own form (algbw = eta x B x n/(n-1)). Fitted on the four gb200-nvl72 72-rank all-reduce
# points (586 GB/s at 512 MiB, 758 at 2 GiB, 839 at 4 GiB, 835-847 at 8 GiB) and the NVLS
# gain over ring of 1.22-1.30x on 8-GPU NVSwitch systems (FACTS.md §4). NCCL assumes 0.74.
ETA_NVLS = 0.602

# --- MoE dispatch and combine (TensorRT-LLM NVLinkOneSided, blog18, GB200 NVL72) --------------
# Bytes per token of hidden size h (blog18 "Post-Quant Dispatch"): BF16 2h; MXFP8 h + h/32
# (one scale byte per 32 values: 7,392 B at h = 7,168); NVFP4 h/2 + h/16 (4,032 B). Combine
# is reduced in BF16 (its default) or, optionally, sent in FP8 (its low-precision combine);
# there is no NVFP4 combine.
DISPATCH_BYTES_PER_HIDDEN = {"bf16": 2.0, "fp8": 1 + 1 / 32, "nvfp4": 0.5 + 1 / 16}
COMBINE_BYTES_PER_HIDDEN = {"bf16": 2.0, "fp8": 1 + 1 / 32}
# [A] wire-and-switch hops of the fixed floor, counted from blog18's protocol: dispatch's
# stores reach the peers (one way), then, after its release fence, its flags do (one way): 2;
# combine's flags land (one way), then it pulls (a read's request and its response): 3.
DISPATCH_WIRE_HOPS = 2
COMBINE_WIRE_HOPS = 3
# [A] small messages of the floor, each one packet whatever its size: one flag to every peer
# per barrier, and with each dispatched token two metadata payloads (its expert IDs and router
# weights, blog18 "Interface"). They cost 1 / packet rate each (a tenth the rate on eth-x72).
FLAGS_PER_PEER = 1
DISPATCH_META_PER_TOKEN_TARGET = 2
# --- fitted (docs/CALIBRATION.md: model.workloads.moe_a2a.fit) --------------------------------
# Per op: the GPU-side floor (kernel, routing, atomics, fences, polling: the same on any fabric)
# and the share of the slowest rank's one-way line rate the bulk moves at, solved from the
# EP8 BF16 points at 1 and 2,048 tokens per rank (dispatch 18.9 and 311.8 us, combine 31.0
# and 322.6 us). NVFP4 dispatch at 2,048 (101.7 us) is not used: a check of the bytes model.
A2A_GPU_US = {"dispatch": 18.06, "combine": 29.81}
A2A_ETA = {"dispatch": 0.790, "combine": 0.783}
