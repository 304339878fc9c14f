"""What a scenario does to work delivered: MoE decode throughput and the training step.

Decode runs on the GPUs the job can use now: the active ones, less any parked in
full-bandwidth mode, cut into EP groups (model.workloads.hardware). If the job cannot run
until a repair (or until the fabric controller is back), it delivers nothing meanwhile.
Throughput is per installed GPU, so a lost GPU counts as zero. It is compared at one
interactivity with the healthy rack and with the fabric of the same GPU it is held against
(hardware.BASELINE: vr-nvl72 with eth-x72, gb200-nvl72 with b200-roce).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from model.assess import Assessment, assess
from model.fabric.islands import SCENARIO_ISLANDS, island_state
from model.fabric.presets import (
    ETH_X72,
    eth_with_bandwidth,
)
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS
from model.scenario import Scenario
from model.workloads import decode, training
from model.workloads import decode_params as D
from model.workloads.choices import deployment_changes, fault_changes
from model.workloads.decode import (
    BREAKDOWN_KEYS,
    BREAKDOWN_NAMES,
    Frontier,
    Workload,
)
from model.workloads.decode_assumptions import ASSUMPTIONS
from model.workloads.groups import Hardware
from model.workloads.hardware import (
    BASELINE,
    BASELINE_WHY,
    comparison_hardware,
    domain_hardware,
    healthy_domain_hardware,
    island_scenario_hardware,
    preset_hardware,
    scenario_hardware,
)
from model.workloads.models import GPUS, moe_model
from model.workloads.versus import ratio_along

REFERENCE_TOKENS_PER_S_PER_USER = D.REFERENCE_TOKENS_PER_S_PER_USER  # the default of at=
# NVIDIA's NVLink 6 claim against off-the-shelf Ethernet (FACTS.md §4) is located on the
# modelled ratio by dashboard.figures.claims; the model never uses it.


def _workload(s: Scenario) -> Workload:
    return Workload(moe_model(s.workload))


def frontiers(a: Assessment) -> dict:
    """The decode frontiers of the scenario, its healthy rack, and its like-for-like baseline."""
    f = a.fabric
    m = moe_model(a.scenario.workload)
    w = _workload(a.scenario)
    base = BASELINE[f.key]
    hw = scenario_hardware(a)
    return {
        "model": m,
        "gpu": GPUS[f.gpu],
        "hardware": hw,
        "scenario": decode.cached_frontier(m, hw, w),
        "healthy": decode.cached_frontier(m, preset_hardware(f), w),
        "baseline": decode.cached_frontier(m, _baseline_hardware(a.scenario, base), w),
        "baseline_key": base,
        "fabric_key": f.key,
    }


def _baseline_hardware(s: Scenario, base: str) -> Hardware:
    """The baseline's healthy hardware: eth-x72 at the scenario's eth_bw= when it sets one
    (vr-nvl72 held against Ethernet of that bandwidth), the preset otherwise."""
    if base == ETH_X72.key and s.eth_bw is not None:
        return preset_hardware(eth_with_bandwidth(s.eth_bw))
    return comparison_hardware(base)


@lru_cache(maxsize=256)
def domain_frontiers(s: Scenario) -> dict:
    """frontiers() for a multi-rack domain (hardware.domain_hardware): EP up to the domain, the
    all-to-all across racks through the L2 tier; held against one healthy NVL72 rack."""
    d = DOMAINS[s.fabric]
    m = moe_model(s.workload)
    w = _workload(s)
    hw = domain_hardware(d, s.fail, assess(s))  # the domain's assessment: its GPUs in service
    return {
        "model": m,
        "gpu": GPUS[d.rack.gpu],
        "hardware": hw,
        "scenario": decode.cached_frontier(m, hw, w),
        "healthy": decode.cached_frontier(m, healthy_domain_hardware(d), w),
        "baseline": decode.cached_frontier(m, preset_hardware(d.rack), w),
        "baseline_key": BASELINE[d.key],
        "fabric_key": d.key,
    }


def domain_decode(s: Scenario) -> dict:
    """evaluate()'s decode block for a multi-rack domain: the same keys as one rack's."""
    fs = domain_frontiers(s)
    return decode_result(fs, assess(s).job.to_json()["restart"], fs["hardware"], s.at)


@lru_cache(maxsize=256)
def island_frontiers(s: Scenario) -> dict:
    """frontiers() for an island fabric (b200-roce) in its state: EP inside an island on
    NVLink or across islands on RoCE (hardware.island_scenario_hardware); held against the
    same GPUs on one NVLink domain (hardware.BASELINE)."""
    f = SCENARIO_ISLANDS[s.fabric]
    m = moe_model(s.workload)
    # a GPU without FP4 tensor cores (h800-ib's H800) serves its experts in FP8, as DeepSeek does
    w = _workload(s) if GPUS[f.gpu].fp4 else Workload(m, "fp8")
    hw = island_scenario_hardware(island_state(f, s.fail))
    base = BASELINE[f.key]
    return {
        "model": m,
        "gpu": GPUS[f.gpu],
        "hardware": hw,
        "scenario": decode.cached_frontier(m, hw, w),
        "healthy": decode.cached_frontier(m, comparison_hardware(f.key), w),
        "baseline": decode.cached_frontier(m, comparison_hardware(base), w),
        "baseline_key": base,
        "fabric_key": f.key,
    }


def island_decode(s: Scenario) -> dict:
    """evaluate()'s decode block for an island fabric: the same keys as one rack's."""
    fs = island_frontiers(s)
    return decode_result(fs, "when a GPU is in service", fs["hardware"], s.at)


def _rack_curves(s: Scenario) -> tuple[dict, bool]:
    fs = work(s).curves
    return fs, assess(s).job_runs


def _domain_curves(s: Scenario) -> tuple[dict, bool]:
    fs = domain_frontiers(s)
    return fs, assess(s).job_runs and bool(fs["hardware"].groups)


def _island_curves(s: Scenario) -> tuple[dict, bool]:
    fs = island_frontiers(s)
    return fs, bool(fs["hardware"].groups)


@dataclass(frozen=True)
class DecodeKind:
    """A fabric kind's part of decode (the workloads layer of the seam, model/registry.py)."""

    frontiers: Callable[[Scenario], tuple[dict, bool]]  # the frontiers, and whether the job runs
    block: Callable[[Scenario], dict]  # evaluate()'s decode block


def _frontiers_of(s: Scenario) -> tuple[dict, bool]:
    """The frontiers behind /api/v1/decode for any scenario, and whether the job runs."""
    return DECODE[s.kind].frontiers(s)


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def _index(fr: Frontier, x: float) -> int:
    return fr.nearest(x)


def breakdown_at(fr: Frontier, x: float) -> dict | None:
    """The chosen deployment's step at interactivity x: each part in us per step and as a share
    of the step, dispatch and combine before the overlap, and the exposed share."""
    i = _index(fr, x)
    dep = fr.deployment_at(i)
    if dep is None:
        return None
    b = fr.breakdown_at(i)
    total = b["total"]
    return {
        "deployment": dep.to_json(),
        "batch_per_gpu": round(b["batch"], 2),
        "step_us": round(total, 1),
        "parts_us": {k: round(b[k], 1) for k in BREAKDOWN_KEYS},
        "parts_share": {k: round(b[k] / total, 4) for k in BREAKDOWN_KEYS},
        "dispatch_us": round(b["dispatch"], 1),
        "combine_us": round(b["combine"], 1),
        "hbm_bound_us": round(b["hbm_bound"], 1),
        "exposed_share": round(b["exposed"] / total, 4),
        "names": BREAKDOWN_NAMES,
    }


def held(fs: dict, hw: Hardware, x: float) -> dict | None:
    """The healthy rack's deployment and batch at interactivity x, run on the scenario's
    hardware: the step the breakdown predicts (only the exposed communication changes), and
    the throughput lost if nothing is re-chosen. None if the job is down or the EP size no
    longer fits."""
    hl = fs["healthy"]
    i = _index(hl, x)
    dep = hl.deployment_at(i)
    if dep is None:
        return None
    views = [v for v, _ in hw.groups_for(dep.ep) if v.ep == dep.ep]
    if not views:
        return None
    v = min(views, key=lambda t: t.line_bytes_s)
    m, w = fs["model"], Workload(fs["model"])
    here = hl.breakdown_at(i)
    b = here["batch"]
    t_f, e_f = decode.sweep_at_batch(m, hw, w, dep, v, b, ("total", "exposed"))
    t_h, e_h = here["total"], here["exposed"]
    return {
        "deployment": dep.label(),
        "exposed_us_healthy": round(e_h, 1),
        "exposed_us_now": round(e_f, 1),
        "predicted_step_us": round(t_h - e_h + e_f, 1),
        "step_us": round(t_f, 1),
        "lost": round(1 - t_h / t_f, 4),
    }


def decode_result(
    fs: dict,
    restart_sentence: str,
    hw: Hardware | None = None,
    ref: float = REFERENCE_TOKENS_PER_S_PER_USER,
) -> dict:
    """The decode block of evaluate(): the frontiers at the scenario's interactivity `ref`
    (at=, tokens/s per user)."""
    sc, hl = fs["scenario"], fs["healthy"]
    i = _index(sc, ref)
    at = {k: float(fs[k].tokens_per_s_per_gpu[i]) for k in ("scenario", "healthy", "baseline")}
    running = bool(np.isfinite(sc.tokens_per_s_per_gpu).any())

    def ratio(a: float, b: float) -> float | None:
        return _r(a / b, 3) if np.isfinite(a) and np.isfinite(b) and b > 0 else None

    along = sc.tokens_per_s_per_gpu / hl.tokens_per_s_per_gpu
    window = (sc.x >= 10) & (sc.x <= 400) & np.isfinite(along)
    worst = float(along[window].min()) if running and window.any() else None
    at_worst = float(sc.x[window][np.argmin(along[window])]) if worst is not None else None
    m, g = fs["model"], fs["gpu"]
    base = fs["baseline_key"]
    here = breakdown_at(sc, ref) if running else None
    return {
        "model": m.name,
        "gpu": g.name,
        "tokens_per_s_per_user": ref,
        "tokens_per_s_per_gpu": _r(at["scenario"]) if running else 0.0,
        "healthy_tokens_per_s_per_gpu": _r(at["healthy"]),
        "baseline": base,
        "baseline_why": BASELINE_WHY[fs["fabric_key"]],
        "baseline_tokens_per_s_per_gpu": _r(at["baseline"]),
        "vs_healthy": ratio(at["scenario"], at["healthy"]) if running else 0.0,
        "vs_baseline": ratio(at["scenario"], at["baseline"]) if running else 0.0,
        "max_tokens_per_s_per_user": _r(sc.max_tokens_per_s_per_user) if running else None,
        "peak_tokens_per_s_per_gpu": _r(sc.peak_tokens_per_s_per_gpu) if running else 0.0,
        "vs_healthy_worst": _r(worst, 3) if running else 0.0,
        "vs_healthy_worst_at_tokens_per_s_per_user": _r(at_worst),
        "deployment": here["deployment"] if here else None,
        "idle_gpus": sc.idle_at(i) if running else None,
        "gpus_in_service": sc.serving,
        "breakdown": here,
        "healthy_breakdown": breakdown_at(hl, ref),
        "exposed_share": here["exposed_share"] if here else None,
        "held": held(fs, hw, ref) if running and hw is not None else None,
        "running": running,
        "note": (
            f"per installed GPU (a lost GPU counts as zero), at {ref:g} tokens/s per user (at=); "
            "the best deployment there (EP size, MTP, KV precision, overlap) on the GPUs in "
            "service"
            if running
            else f"the job is down: it restarts {restart_sentence}"
        ),
    }


# --- the /api/v1/decode answer -----------------------------------------------------------------


def _points(fr: Frontier) -> list[dict]:
    out = []
    for i in np.flatnonzero(np.isfinite(fr.tokens_per_s_per_gpu)):
        dep = fr.deployment_at(int(i))
        out.append(
            {
                "tokens_per_s_per_user": round(float(fr.x[i]), 2),
                "tokens_per_s_per_gpu": round(float(fr.tokens_per_s_per_gpu[i]), 1),
                "batch_per_gpu": round(float(fr.breakdown["batch"][i]), 2),
                "deployment": dep.label(),
                "exposed_share": round(
                    float(fr.breakdown["exposed"][i] / fr.breakdown["total"][i]), 4
                ),
            }
        )
    return out


def decode_curves(s: Scenario) -> dict:
    """The /api/v1/decode answer: three frontiers, the ratio to the baseline along them, and
    the deployment and time breakdown at every point."""
    fs, runs = _frontiers_of(s)
    block = DECODE[s.kind].block(s)
    base = fs["baseline_key"]
    vs_base = ratio_along(fs["scenario"], fs["baseline"])
    vs_healthy = ratio_along(fs["scenario"], fs["healthy"])
    return {
        "scenario": s.key(),
        "model": fs["model"].name,
        "gpu": fs["gpu"].name,
        "job_runs": runs,
        "baseline": base,
        "baseline_why": BASELINE_WHY[fs["fabric_key"]],
        "curves": {
            "scenario": _points(fs["scenario"]),
            "healthy": _points(fs["healthy"]),
            "baseline": _points(fs["baseline"]),
        },
        "deployment_changes": {
            k: deployment_changes(fs[k]) for k in ("scenario", "healthy", "baseline")
        },
        "fault_changes": fault_changes(fs["scenario"], fs["healthy"]),
        "ratio_vs_baseline": vs_base["points"],
        "ratio_20_200": vs_base["range"],
        "ratio_max_step_20_200": vs_base["max_step"],
        "vs_healthy": vs_healthy["points"],
        "tokens_per_s_per_user": s.at,
        "breakdown": breakdown_at(fs["scenario"], s.at) if runs else None,
        "healthy_breakdown": breakdown_at(fs["healthy"], s.at),
        "held": block["held"],
        "vs_healthy_at_reference": block["vs_healthy"],
        # the scenario, its healthy rack and its baseline at at= (the frontier's nearest point)
        "at": decode_breakdowns(s, s.at),
        "units": (
            "tokens/s per user (interactivity) and tokens/s per installed GPU; breakdowns in us "
            "per decode step on the chosen deployment's slowest EP group"
        ),
        "assumptions": ASSUMPTIONS,
    }


def decode_breakdowns(s: Scenario, x: float) -> dict:
    """The step's breakdown at interactivity x (the frontier's nearest point, 2 tokens/s per
    user apart) for the scenario, its healthy rack and its baseline: any operating point."""
    fs, _ = _frontiers_of(s)
    i = _index(fs["scenario"], x)
    return {
        "tokens_per_s_per_user": float(fs["scenario"].x[i]),
        **{
            k: {
                "tokens_per_s_per_gpu": _r(float(fs[k].tokens_per_s_per_gpu[i])),
                "breakdown": breakdown_at(fs[k], x),
            }
            for k in ("scenario", "healthy", "baseline")
        },
    }


# --- one Work per scenario ---------------------------------------------------------------------


@dataclass(frozen=True)
class Work:
    """What the scenario's job delivers: the decode and training blocks of evaluate, and the
    two numbers every other reader takes from here (the timeline, goodput, the page)."""

    curves: dict
    decode: dict
    training: dict
    delivered: float  # the degraded rate: work per second now / the healthy rack's
    healthy_tokens_per_s: float  # the healthy rack's tokens per second (decode or training)


@lru_cache(maxsize=1024)
def work(s: Scenario) -> Work:
    """The scenario's decode and training blocks, the delivered fraction and tokens/s.

    The delivered fraction is the scenario's own workload: training tokens/s against the
    healthy rack's for `train`, decode at the scenario's interactivity (at=) otherwise.
    """
    a = assess(s)
    f = a.fabric
    fs = frontiers(a)
    dec = decode_result(fs, a.job.to_json()["restart"], fs["hardware"], s.at)
    s_step, n = training.scenario_step(a)
    tr = training.training_result(a, s_step, n)
    if s.workload == "train":
        h = training.healthy_step(f)
        delivered = training.training_ratio(f, n, s_step.step_s, h.step_s) if s_step else 0.0
        healthy_tps = f.gpus * training.TOKENS_PER_GPU_PER_STEP / h.step_s
    else:
        now = dec["tokens_per_s_per_gpu"] if dec["running"] else 0.0
        healthy = fs["healthy"].tokens_per_s_per_gpu[_index(fs["healthy"], s.at)]
        ok = now is not None and np.isfinite(healthy) and healthy > 0
        i = _index(fs["scenario"], s.at)
        raw = float(fs["scenario"].tokens_per_s_per_gpu[i]) if dec["running"] else 0.0
        delivered = raw / float(healthy) if ok and np.isfinite(raw) else 0.0
        healthy_tps = float(healthy) * f.gpus if np.isfinite(healthy) else 0.0
    return Work(fs, dec, tr, delivered, healthy_tps)


def delivered_fraction(s: Scenario) -> float:
    """The degraded rate: the share of the healthy rack's work the scenario delivers now."""
    return work(s).delivered


def healthy_tokens_per_s(s: Scenario) -> float:
    """Tokens per second the scenario's healthy rack delivers (the goodput's full rate)."""
    return work(s).healthy_tokens_per_s


DECODE: Mapping[FabricKind, DecodeKind] = MappingProxyType(
    {
        FabricKind.RACK: DecodeKind(_rack_curves, lambda s: work(s).decode),
        FabricKind.DOMAIN: DecodeKind(_domain_curves, domain_decode),
        FabricKind.ISLANDS: DecodeKind(_island_curves, island_decode),
    }
)
