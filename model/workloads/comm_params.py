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

# --- NCCL's tuner: which algorithm and protocol it runs (tuning.cc, search.cc) -----------------
# NCCL picks, per collective and size, the (algorithm, protocol) its own cost model finds
# fastest (ncclTopoGetAlgoTime: latency + bytes / bandwidth). Its bandwidths come from the
# topology search, not from what the run achieves; the model reproduces them here so that the
# choice is NCCL's, then prices the choice with the achieved forms (nccl.py).
# [D] the ring graph of a GB200 GPU: the search settles on 8 channels of 90 GB/s
# (sm100SpeedArrayIntra's first speed under its 18 x 40.1 GB/s), ncclTopoDupChannels doubles
# them to 16 of 45; LL128's per-channel cap (perChMaxRingLL128Bws, Blackwell: 40) binds at 640.
# nccl.ring_channels derives them so from any fabric's ring bandwidth (32 on 36 planes).
PER_CH_MAX_RING_LL128_GBS = 40.0
# Tree on one NVLink domain (one "node" to NCCL: an NVL72 is one MNNVL clique) is a chain: its
# allreduce busBw is min(0.92 x graph bw, nCh x perChMaxTreeBw 70), LL 1/3.8 of that (at most
# llMaxBw), LL128 7/9 (at most nCh x 55.6); algbw half the busBw; latency base + 2(n-1) x step.
TREE_BASE_US = {"LL": 6.8, "LL128": 14.0, "Simple": 8.4}
TREE_STEP_US = {"LL": 0.6, "LL128": 1.25, "Simple": 4.0}
PER_CH_MAX_TREE_GBS = 70.0
PER_CH_MAX_TREE_LL128_GBS = 55.6
# treeCorrectionFactor (tuning.cc): the tree's bandwidth x this, by log2(bytes / 64), 64 B-256 MB.
# fmt: off
TREE_CORRECTION = {
    "LL": (1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1),
    "LL128": (1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1,
              1),
    "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8,
               .9, .9, .9),
}
# fmt: on
# NVLS in the tuner: busBw = nCh x bw x nvlsEfficiency x (nCh-1)/nCh, x2 for allreduce (which
# pipelines its two halves), x(n-1)/n for allgather / reducescatter. nCh is the NVLS graph's
# heads, one a GPU up to NCCL_MAX_NVLS_ARITY (device.h: 32), and bw the fastest speed of
# sm100SpeedArrayIntra (search.cc) every GPU's links carry: each head's channel takes bw from
# every GPU and 2 bw from its head, so (heads + 1) x bw <= the GPU's NVLink bandwidth. NVLS
# Tree is disabled on one node (tuning.cc); PAT needs one GPU a node: neither runs here.
NVLS_TUNER_EFFICIENCY = 0.74  # nvlsEfficiency, Blackwell
NVLS_MAX_ARITY = 32
SM100_SPEEDS_GBS = (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0)

# --- NVLS as it runs (fitted: docs/CALIBRATION.md, model.workloads.nccl.fit_nvls) ------------
# An all-reduce by in-switch reduction moves (1 + 1/n) of the buffer each way on every GPU's
# links (its share of every rank's multimem load-reduce, then its multicast store; the local
# share crosses the switch too), so algbw = eta(n) x B x n/(n+1) and busbw = 2 eta(n) B
# (n-1)/(n+1): at 2 ranks a third of 72 ranks' busbw. eta(n) = ETA_NVLS / (1 + NVLS_GROUP_K x
# (n-1)) [A]: each load-reduce waits for the slowest of its n operands, so the pipeline runs
# slower as the group grows. Both fitted on the four gb200-nvl72 72-rank all-reduce points
# (586 GB/s at 512 MiB, 758 at 2 GiB, 835-847 at 4 and 8 GiB) and the NVLS gain over ring of
# 1.22-1.30x on 8-GPU NVSwitch systems (FACTS.md §4). NCCL's tuner assumes 0.74 at any n.
ETA_NVLS = 0.848
NVLS_GROUP_K = 0.0055
# [A] no NVLS point beyond one rack's 72 ranks: a domain's larger groups keep eta(72).
NVLS_GROUP_MAX = 72

# --- A tensor-parallel group's small all_reduce as serving frameworks run it -----------------
# Below a few MiB, TensorRT-LLM (AllReduceStrategy ONESHOT/AUTO, MNNVL on GB200), SGLang and
# vLLM (custom all-reduce) do not call NCCL for the attention's and the experts' all_reduce:
# each rank reads its n-1 peers' buffers over NVLink (peer memory, CUDA IPC or the NVL72's
# fabric memory) and sums them, one kernel and one flag exchange [V]. It needs load/store
# access to every peer, so a group on Ethernet or one spanning RoCE islands runs NCCL.
# time = ONE_SHOT_US + (n-1) x bytes / (NCCL-effective one-way line rate). ONE_SHOT_US is
# fitted on one published point: vLLM's device-communicator benchmark on B300 (vLLM PR 37756,
# 2026-03, SM 10.3, 8 ranks): custom all-reduce one-stage 0.007 ms at 16 KiB [M]. Checks, the
# same table: 0.008 ms at 128 KiB, 0.009 at 256 KiB, 0.011 at 512 KiB, 0.017 at 1 MiB, and
# NCCL (pynccl) 0.026-0.027 ms at 128 KiB-1 MiB (docs/CALIBRATION.md).
ONE_SHOT_US = 6.8
ONE_SHOT_POINTS = (  # (bytes, ranks, ms) of that table: the first fitted, the rest checks
    (16 * 1024, 8, 0.007),
    (128 * 1024, 8, 0.008),
    (256 * 1024, 8, 0.009),
    (512 * 1024, 8, 0.011),
    (1024 * 1024, 8, 0.017),
)
ONE_SHOT_NCCL_POINTS = ((128 * 1024, 8, 0.026), (1024 * 1024, 8, 0.027))

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
# The per-peer synchronisation (TensorRT-LLM moeAlltoAllKernels.cu, moeA2ADispatchKernel and
# the combine's barrier): one warp of 32 lanes walks the ep_size peer slots, lane i taking
# peers i, i+32, ...; so each loop over the peers takes ceil(ep / 32) passes: one up to EP32,
# two at EP64. NVLinkOneSided's kMaxRanks is 64: [A] a kernel for wider groups (EP72, a
# domain's EP over racks) gives the walk more lanes and keeps EP64's two passes.
# Dispatch's tail walks the peers three times (its send counts to each peer, its flag to each
# after the release fence, then the poll of every peer's flag), combine's head twice (flags,
# poll). [V] the structure; the cost of one extra pass of one loop is fitted below.
SYNC_LANES = 32
SYNC_MAX_RANKS = 64
SYNC_LOOPS = {"dispatch": 3, "combine": 2}
# --- fitted (docs/CALIBRATION.md: model.workloads.moe_a2a.fit) --------------------------------
# Per op: the GPU-side floor (kernel, routing, atomics, fences, polling: the same on any fabric)
# and the share of the slowest rank's one-way line rate the bulk moves at, solved from the
# EP8 BF16 points at 1 and 2,048 tokens per rank (dispatch 18.9 and 311.8 us, combine 31.0
# and 322.6 us). NVFP4 dispatch at 2,048 (101.7 us) is not used: a check of the bytes model.
A2A_GPU_US = {"dispatch": 18.06, "combine": 29.81}
A2A_ETA = {"dispatch": 0.790, "combine": 0.783}
# One extra pass of one peer loop (us): fitted on blog18's EP64 points at 1-16 tokens a rank,
# dispatch and combine together (the floor there; EP8-32 take one pass and do not move it).
SYNC_PASS_US = 1.4
