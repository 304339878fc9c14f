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

from model import words
from model.assess import Assessment, assess
from model.fabric.islands import SCENARIO_ISLANDS, island_state
from model.fabric.presets import (
    ETH_X72,
    VR_NVL72,
    eth_ports_words,
    eth_with_bandwidth,
)
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS
from model.scenario import Scenario
from model.workloads import decode, moe_a2a, training
from model.workloads import decode_params as D
from model.workloads.decode import (
    BREAKDOWN_KEYS,
    BREAKDOWN_NAMES,
    Deployment,
    Frontier,
    Hardware,
    Workload,
    frontier,
    healthy_groups,
)
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
    return int(np.argmin(np.abs(fr.x - x)))


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


def held(fs: dict, hw: decode.Hardware, x: float) -> dict | None:
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
    hw: decode.Hardware | None = None,
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


def _why(a: Deployment, b: Deployment) -> str:
    """The knob that changed between two deployments, the one a reader looks at first."""
    if a.ep != b.ep:
        return "ep_up" if b.ep > a.ep else "ep_down"
    if a.mtp != b.mtp:
        return "mtp_on" if b.mtp else "mtp_off"
    if a.overlap != b.overlap:
        return "overlap_on" if b.overlap else "overlap_off"
    return "kv"


def deployment_changes(fr: Frontier) -> list[dict]:
    """Where along interactivity the frontier's best deployment changes (the first point of
    the new one), from what to what, and one line of why (model/words.py)."""
    out = []
    for i in range(1, len(fr.x)):
        a, b = fr.deployment_at(i - 1), fr.deployment_at(i)
        if a is None or b is None or a == b:
            continue
        why = _why(a, b)
        x = float(fr.x[i])
        out.append(
            {
                "tokens_per_s_per_user": round(x, 2),
                "tokens_per_s_per_gpu": round(float(fr.tokens_per_s_per_gpu[i]), 1),
                "from": a.label(),
                "to": b.label(),
                "why": why,
                "line": words.deployment_change(a.label(), b.label(), x, why),
            }
        )
    return out


def fault_changes(sc: Frontier, hl: Frontier) -> list[dict]:
    """Where the fault's best deployment differs from the healthy rack's at the same
    interactivity: each run of grid points with the same pair, and one line of why."""
    runs: list[dict] = []
    fits = {d.ep for d in sc.deployments}
    for i in range(len(sc.x)):
        a, b = hl.deployment_at(i), sc.deployment_at(i)
        x = float(sc.x[i])
        if a is None or b is None or a == b:
            continue
        last = runs[-1] if runs else None
        if last and last["_pair"] == (a, b) and last["_end"] == i - 1:
            last["_end"], last["to_tokens_per_s_per_user"] = i, round(x, 2)
            continue
        why = "fits" if a.ep not in fits else _why(a, b)
        runs.append(
            {
                "tokens_per_s_per_user": round(x, 2),
                "to_tokens_per_s_per_user": round(x, 2),
                "tokens_per_s_per_gpu": round(float(sc.tokens_per_s_per_gpu[i]), 1),
                "healthy": a.label(),
                "here": b.label(),
                "why": why,
                "_pair": (a, b),
                "_end": i,
            }
        )
    return [
        {k: v for k, v in r.items() if not k.startswith("_")}
        | {
            "line": words.fault_change(
                r["healthy"],
                r["here"],
                r["tokens_per_s_per_user"],
                r["to_tokens_per_s_per_user"],
                r["why"],
            )
        }
        for r in runs
    ]


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
        "assumptions": decode.ASSUMPTIONS,
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
            _index(decode.cached_frontier(m, preset_hardware(VR_NVL72), w), x)
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
