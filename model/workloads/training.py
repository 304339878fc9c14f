"""A training step on the rack, from the same calibrated collectives the API reports.

[A] The job: a DeepSeek-V3-shaped MoE (FACTS.md §5), experts spread over every usable GPU
(expert parallelism), the rest data-parallel with one BF16 gradient all-reduce a step, 32K
tokens per GPU a step in 4K-token micro-batches, no overlap of communication with compute (an
upper bound on what the fabric costs). The communication is NCCL's and TensorRT-LLM's, as
calibrated on the measured GB200 NVL72 points (docs/CALIBRATION.md):

    T_step    = T_compute + T_all_to_all + T_all_reduce
    T_compute = 6 x active params x tokens / (FP8 peak x MFU)
    T_a2a     = micro-batches x MoE layers x (dispatch + combine) x 2 (forward, backward):
                moe_a2a.parts_us on the EP group's slowest rank
    T_ar      = nccl.collective("all_reduce", "auto", ...): ring or NVLS, whichever NCCL's model
                picks, on the job's fabric (a lost chip takes its plane out of NVLS)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from model.assess import Assessment, assess
from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.workloads import domain as dom
from model.workloads import moe_a2a, nccl
from model.workloads.models import GPU, GPUS, MoEModel, moe_model

TOKENS_PER_GPU_PER_STEP = 32_768  # [A] ~DeepSeek-V3: 15,360 x 4K tokens a step over 2,048 GPUs
MICRO_BATCH_TOKENS = 4_096  # [A] one 4K sequence a micro-batch
TRAIN_MFU = 0.40  # [M] Llama 3 BF16 MFU 38-43% (research/goodput.md)
GRAD_BYTES = 2.0  # BF16 gradients
DISPATCH_PRECISION = "fp8"  # [A] DeepSeek-V3 trains with FP8 dispatch, BF16 combine
COMBINE_PRECISION = "bf16"


@dataclass(frozen=True)
class StepTime:
    step_s: float
    compute_s: float
    all_to_all_s: float
    all_reduce_s: float
    all_reduce_algorithm: str
    ring_s: float
    nvls_s: float | None
    expert_all_reduce_s: float = 0.0  # a domain: the racks' expert replicas (domain_step)


def gradient_bytes(m: MoEModel) -> float:
    """The data-parallel gradients: every parameter but the routed experts, in BF16."""
    return (m.total_params - m.moe_layers * m.experts * m.expert_params) * GRAD_BYTES


def step_time(
    m: MoEModel, gpu: GPU, v: moe_a2a.EPFabric | None, jf: nccl.JobFabric | None
) -> StepTime:
    """One step's time and parts: `v` the EP group's slowest rank (all usable GPUs), `jf` the
    data-parallel job's fabric (None with fewer than two GPUs)."""
    tokens = TOKENS_PER_GPU_PER_STEP
    compute = 6 * m.active_params * tokens / (gpu.peak_flops("fp8") * TRAIN_MFU)
    if v is None or jf is None or jf.ranks < 2:
        return StepTime(compute, compute, 0.0, 0.0, "none", 0.0, None)
    micro = tokens / MICRO_BATCH_TOKENS
    d = moe_a2a.parts_us("dispatch", MICRO_BATCH_TOKENS, m, DISPATCH_PRECISION, v)
    c = moe_a2a.parts_us("combine", MICRO_BATCH_TOKENS, m, COMBINE_PRECISION, v)
    a2a = micro * m.moe_layers * 2 * (sum(d.values()) + sum(c.values())) * 1e-6
    r = nccl.collective("all_reduce", "auto", gradient_bytes(m), jf)
    ar = r["time_us"] * 1e-6
    ring = (r["ring_time_us"] or 0.0) * 1e-6
    nv = None if r["nvls_time_us"] is None else r["nvls_time_us"] * 1e-6
    return StepTime(compute + a2a + ar, compute, a2a, ar, r["algo"], ring, nv)


# --- a scenario's training block (evaluate's `training`) ---------------------------------


def train_model():
    return moe_model("deepseek-r1")


def train_views(a: Assessment) -> tuple[moe_a2a.EPFabric | None, nccl.JobFabric | None, int]:
    """The EP group (every usable GPU) and the data-parallel job of a scenario."""
    n = a.gpus_in_service if a.job_runs else 0
    if n < 2:
        return None, None, n
    v = moe_a2a.ep_fabric(a, n)
    try:
        jf = nccl.job_fabric(a, n)
        nccl.collective("all_reduce", "auto", 1.0, jf)  # raises if no ring can run
    except ScenarioError:
        return v, None, n
    return v, jf, n


@lru_cache(maxsize=16)
def healthy_step(f: Fabric) -> StepTime:
    """The healthy rack's training step: depends only on the preset."""
    v = moe_a2a.healthy_ep(f, f.gpus)
    return step_time(train_model(), GPUS[f.gpu], v, nccl.healthy_job(f, f.gpus))


def training_ratio(f: Fabric, gpus: int, step_s: float, healthy_step_s: float) -> float:
    """Work per step scales with the GPUs that run it: tokens per second against healthy."""
    return (gpus / step_s) / (f.gpus / healthy_step_s)


def scenario_step(a: Assessment) -> tuple[StepTime | None, int]:
    v, jf, n = train_views(a)
    if n == 0:
        return None, 0
    if v is not None and jf is None:
        return None, n  # no ring can run among the GPUs in service
    return step_time(train_model(), GPUS[a.fabric.gpu], v, jf), n


def training_result(
    a: Assessment, s_step: StepTime | None, n: int, h: StepTime | None = None
) -> dict:
    """The training block: step time for the scenario against the healthy rack (or `h`, the
    healthy domain's step)."""
    f = a.fabric
    restart_sentence = a.job.to_json()["restart"]
    h = healthy_step(f) if h is None else h
    if s_step is None:
        why = (
            f"the job is down: it restarts {restart_sentence}"
            if n == 0
            else "two neighbouring GPUs in service share no plane: no all-reduce ring can run"
        )
        return {
            "step_time_s": None,
            "healthy_step_time_s": round(h.step_s, 3),
            "vs_healthy": 0.0,
            "note": why,
        }
    return {
        "step_time_s": round(s_step.step_s, 3),
        "healthy_step_time_s": round(h.step_s, 3),
        "vs_healthy": round(training_ratio(f, n, s_step.step_s, h.step_s), 4),
        "compute_s": round(s_step.compute_s, 3),
        "all_to_all_s": round(s_step.all_to_all_s, 3),
        "all_reduce_s": round(s_step.all_reduce_s, 4),
        "all_reduce_algorithm": s_step.all_reduce_algorithm,
        "ring_all_reduce_s": round(s_step.ring_s, 4),
        "nvls_all_reduce_s": None if s_step.nvls_s is None else round(s_step.nvls_s, 4),
        "tokens_per_gpu_per_step": TOKENS_PER_GPU_PER_STEP,
        "note": (
            "vs_healthy is tokens per second against the healthy rack; [A] DeepSeek-V3 shape, "
            "32K tokens per GPU per step; the gradient all-reduce and the MoE all-to-all are "
            "the calibrated NCCL and TensorRT-LLM models (docs/CALIBRATION.md), not overlapped"
        ),
    }


# --- a multi-rack domain (docs/MULTIRACK.md; model/workloads/domain.py) -------------------
# [A] On a domain the job keeps one rack's layout in every rack: experts spread over the
# rack's GPUs in service (an EP group a rack, its all-to-all on the rack's own links), every
# rack a data-parallel replica. A step then adds two all-reduces over the domain: the dense
# gradients over every GPU in service (one ring or NVLS group across racks through L2), and
# each GPU's share of the experts with its counterparts in the other racks (the replicas: a
# rank a rack, every GPU at once, all of it through the trunks).


def expert_gradient_bytes(m: MoEModel, ep: int) -> float:
    """The routed experts' gradients one GPU of an EP group of `ep` holds, in BF16."""
    return m.moe_layers * m.experts * m.expert_params / ep * GRAD_BYTES


def domain_step_time(
    m: MoEModel,
    gpu: GPU,
    v: moe_a2a.EPFabric,
    jf: nccl.JobFabric,
    rj: nccl.JobFabric | None,
) -> StepTime:
    """One step on a domain: step_time's parts, plus the replicas' expert all-reduce."""
    base = step_time(m, gpu, v, jf)
    if rj is None:
        return base
    r = nccl.collective("all_reduce", "auto", expert_gradient_bytes(m, v.ep), rj)
    x = r["time_us"] * 1e-6
    return replace(base, step_s=base.step_s + x, expert_all_reduce_s=x)


@lru_cache(maxsize=4)
def healthy_domain_step(d) -> StepTime:
    """The healthy domain's step: EP72 in every rack, both all-reduces over every rack."""
    f = d.rack
    v = moe_a2a.healthy_ep(f, f.gpus)
    return domain_step_time(
        train_model(), GPUS[f.gpu], v, dom.healthy_job(d, d.gpus), dom.healthy_replica_job(d)
    )


def domain_step(a) -> tuple[StepTime | None, int]:
    """A domain scenario's step and the GPUs it runs on (a: its DomainAssessment): the EP
    group is the smallest rack's GPUs in service at the slowest GPU's own links."""
    idx = dom.in_service(a)
    n = len(idx)
    if n < 2:
        return None, n
    st = a.state
    f = st.domain.rack
    per_rack = np.bincount(st.rack_of[idx], minlength=st.domain.racks)
    ep = int(per_rack[per_rack > 0].min())
    worst = float(a.per_gpu_tbs[idx].min())
    if ep < 2 or worst <= 0:
        return None, n
    v = moe_a2a.share_view(f, ep, worst / f.gpu_tbs_bidir)
    try:
        jf = dom.job_fabric(a, n)
        nccl.collective("all_reduce", "auto", 1.0, jf)  # raises if no ring can run
        rj = dom.replica_job(a)
        if rj is not None:
            nccl.collective("all_reduce", "auto", 1.0, rj)
    except ScenarioError:
        return None, n
    return domain_step_time(train_model(), GPUS[f.gpu], v, jf, rj), n


def domain_training(s) -> dict:
    """evaluate()'s training block for a multi-rack domain scenario: the same keys as one
    rack's, against the healthy domain, with the replicas' expert all-reduce beside them."""
    a = assess(s)
    s_step, n = domain_step(a)
    h = healthy_domain_step(a.fabric)
    out = training_result(a, s_step, n, h)
    out["expert_all_reduce_s"] = None if s_step is None else round(s_step.expert_all_reduce_s, 3)
    if s_step is not None:
        out["note"] = (
            "vs_healthy is tokens per second against the healthy domain; [A] one rack's job "
            "in every rack (EP over the rack, racks data-parallel): the dense gradients are "
            "all-reduced over every GPU in service across racks (L1, L2, L1), the experts' "
            "among the racks' replicas through the trunks; NCCL's and TensorRT-LLM's "
            "calibrated models (docs/CALIBRATION.md), not overlapped"
        )
    return out
