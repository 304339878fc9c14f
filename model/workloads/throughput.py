"""What a scenario does to work delivered: MoE decode throughput and the training step.

Decode runs on the GPUs the job can use now: the active ones, less any parked in
full-bandwidth mode. If the job cannot run until a repair (or until the fabric controller
is back), it delivers nothing meanwhile. Throughput is per installed GPU, so a lost GPU
counts as zero, and it is compared at one interactivity with the healthy rack and eth-x72.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from model.assess import Assessment, assess
from model.fabric.presets import ETH_X72, Fabric
from model.scenario import Scenario
from model.workloads import decode, training
from model.workloads.decode import REFERENCE_TOKENS_PER_S_PER_USER, FabricView
from model.workloads.models import GPUS, moe_model


def view(a: Assessment) -> FabricView:
    """The fabric as decode sees it: the GPUs in service and the slowest one's bandwidth."""
    if not a.job_runs or a.gpus_in_service == 0:
        return decode.fabric_view(a.fabric, 0, 0.0)
    return decode.fabric_view(a.fabric, a.gpus_in_service, a.worst_gpu_tbs)


def healthy_view(f: Fabric) -> FabricView:
    return decode.fabric_view(f, f.gpus, f.gpu_tbs_bidir)


def nvls_bw(a: Assessment) -> float | None:
    """One-way bytes/s per GPU on planes every GPU in service reaches and whose chip reduces."""
    f = a.fabric
    if f.sharp_tflops_per_chip <= 0 or not a.usable.any():
        return None
    common = a.state.up[a.usable].all(axis=0).sum()
    return common * f.link_gbs_bidir / 2 * 1e9


def _curve(workload: str, gpu_name: str, fv: FabricView) -> dict:
    m, g = moe_model(workload), GPUS[gpu_name]
    return decode.curve(m, g.fp4_pflops * 1e15, g.hbm_tbs * 1e12, g.hbm_gb, fv)


@lru_cache(maxsize=64)
def _healthy_curve(f: Fabric, workload: str) -> dict:
    """A healthy fabric's curve depends only on the preset: computed once per process.

    The arrays are made read-only so the shared result cannot be changed by a caller.
    """
    c = _curve(workload, f.gpu, healthy_view(f))
    for a in c.values():
        a.flags.writeable = False
    return c


def curves(a: Assessment) -> dict:
    """Decode curves for the scenario, its healthy rack, and healthy eth-x72."""
    f = a.fabric
    workload = a.scenario.workload
    return {
        "model": moe_model(workload),
        "gpu": GPUS[f.gpu],
        "scenario": _curve(workload, f.gpu, view(a)),
        "healthy": _healthy_curve(f, workload),
        "eth-x72": _healthy_curve(ETH_X72, workload),
        "eth-x72-gpu": GPUS[ETH_X72.gpu],
    }


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def decode_result(cs: dict, restart_sentence: str) -> dict:
    """The decode block of evaluate(): figures at the reference interactivity."""
    ref = np.array([REFERENCE_TOKENS_PER_S_PER_USER])
    at = {k: float(decode.throughput_at(cs[k], ref)[0]) for k in ("scenario", "healthy", "eth-x72")}
    sc = cs["scenario"]
    running = len(sc["tokens_per_s_per_user"]) > 0

    def ratio(a: float, b: float) -> float | None:
        return _r(a / b, 3) if np.isfinite(a) and np.isfinite(b) and b > 0 else None

    m, g = cs["model"], cs["gpu"]
    grid = np.geomspace(10, 400, 64)
    along = decode.throughput_at(sc, grid) / decode.throughput_at(cs["healthy"], grid)
    worst = float(np.nanmin(along)) if running and np.isfinite(along).any() else None
    at_worst = float(grid[np.nanargmin(along)]) if worst is not None else None
    return {
        "model": m.name,
        "gpu": g.name,
        "tokens_per_s_per_user": REFERENCE_TOKENS_PER_S_PER_USER,
        "tokens_per_s_per_gpu": _r(at["scenario"]) if running else 0.0,
        "healthy_tokens_per_s_per_gpu": _r(at["healthy"]),
        "eth_x72_tokens_per_s_per_gpu": _r(at["eth-x72"]),
        "vs_healthy": ratio(at["scenario"], at["healthy"]) if running else 0.0,
        "vs_eth_x72": ratio(at["scenario"], at["eth-x72"]) if running else 0.0,
        "max_tokens_per_s_per_user": _r(sc["tokens_per_s_per_user"].max()) if running else None,
        "peak_tokens_per_s_per_gpu": _r(sc["tokens_per_s_per_gpu"].max()) if running else 0.0,
        "vs_healthy_worst": _r(worst, 3) if running else 0.0,
        "vs_healthy_worst_at_tokens_per_s_per_user": _r(at_worst),
        "eth_x72_gpu": cs["eth-x72-gpu"].name,
        "running": running,
        "note": (
            f"per installed GPU (a lost GPU counts as zero), at {REFERENCE_TOKENS_PER_S_PER_USER:g}"
            " tokens/s per user [A]; MoE decode with expert parallelism over the usable GPUs"
            if running
            else f"the job is down: it restarts {restart_sentence}"
        ),
    }


@lru_cache(maxsize=64)
def _healthy_step(f: Fabric, workload: str) -> training.StepTime:
    """The healthy rack's training step: depends only on the preset and the model."""
    m = moe_model("train" if workload == "train" else "deepseek-r1")
    healthy_nvls = f.planes * f.link_gbs_bidir / 2 * 1e9 if f.sharp_tflops_per_chip > 0 else None
    return training.step_time(m, GPUS[f.gpu], healthy_view(f), healthy_nvls)


def _training_ratio(f: Fabric, gpus: int, step_s: float, healthy_step_s: float) -> float:
    """Work per step scales with the GPUs that run it: tokens per second against healthy."""
    return (gpus / step_s) / (f.gpus / healthy_step_s)


def training_result(a: Assessment) -> dict:
    """The training block: step time for the scenario against the healthy rack."""
    f = a.fabric
    m = moe_model("train" if a.scenario.workload == "train" else "deepseek-r1")
    g = GPUS[f.gpu]
    fv = view(a)
    restart_sentence = a.job.to_json()["restart"]
    h = _healthy_step(f, a.scenario.workload)
    if fv.usable_gpus == 0:
        return {
            "step_time_s": None,
            "healthy_step_time_s": round(h.step_s, 3),
            "vs_healthy": 0.0,
            "note": f"the job is down: it restarts {restart_sentence}",
        }
    s = training.step_time(m, g, fv, nvls_bw(a))
    return {
        "step_time_s": round(s.step_s, 3),
        "healthy_step_time_s": round(h.step_s, 3),
        "vs_healthy": round(_training_ratio(f, fv.usable_gpus, s.step_s, h.step_s), 4),
        "compute_s": round(s.compute_s, 3),
        "all_to_all_s": round(s.all_to_all_s, 3),
        "all_reduce_s": round(s.all_reduce_s, 3),
        "all_reduce_algorithm": s.all_reduce_algorithm,
        "ring_all_reduce_s": round(s.ring_s, 3),
        "nvls_all_reduce_s": None if s.nvls_s is None else round(s.nvls_s, 3),
        "tokens_per_gpu_per_step": training.TOKENS_PER_GPU_PER_STEP,
        "note": (
            "vs_healthy is tokens per second against the healthy rack; [A] DeepSeek-V3 shape, "
            "32K tokens per GPU per step, no compute/communication overlap"
        ),
    }


def _points(c: dict) -> list[dict]:
    return [
        {
            "tokens_per_s_per_user": round(float(u), 2),
            "tokens_per_s_per_gpu": round(float(g), 1),
            "batch_per_gpu": int(b),
        }
        for u, g, b in zip(
            c["tokens_per_s_per_user"], c["tokens_per_s_per_gpu"], c["batch_per_gpu"], strict=True
        )
    ]


def decode_curves(s: Scenario) -> dict:
    """The /api/v1/decode answer: three curves and the scenario-to-eth-x72 ratio along them."""
    a = assess(s)
    cs = work(s).curves
    grid = np.geomspace(5, 500, 121)
    sc = decode.throughput_at(cs["scenario"], grid)
    eth = decode.throughput_at(cs["eth-x72"], grid)
    hl = decode.throughput_at(cs["healthy"], grid)
    ratio = [
        {"tokens_per_s_per_user": round(float(x), 2), "ratio": round(float(a / b), 4)}
        for x, a, b in zip(grid, sc, eth, strict=True)
        if np.isfinite(a) and np.isfinite(b) and b > 0
    ]
    window = [r["ratio"] for r in ratio if 20 <= r["tokens_per_s_per_user"] <= 200]
    return {
        "scenario": s.key(),
        "model": cs["model"].name,
        "gpu": cs["gpu"].name,
        "job_runs": a.job_runs,
        "curves": {k: _points(cs[k]) for k in ("scenario", "healthy", "eth-x72")},
        "ratio_vs_eth_x72": ratio,
        "ratio_20_200": {"min": min(window), "max": max(window)} if window else None,
        "vs_healthy": [
            {"tokens_per_s_per_user": round(float(x), 2), "ratio": round(float(a / b), 4)}
            for x, a, b in zip(grid, sc, hl, strict=True)
            if np.isfinite(a) and np.isfinite(b) and b > 0
        ],
        "units": "tokens/s per user (interactivity) and tokens/s per installed GPU",
        "assumptions": decode.ASSUMPTIONS,
    }


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
    healthy rack's for `train`, decode at the reference interactivity otherwise.
    """
    a = assess(s)
    f = a.fabric
    cs = curves(a)
    dec = decode_result(cs, a.job.to_json()["restart"])
    tr = training_result(a)
    if s.workload == "train":
        h = _healthy_step(f, s.workload)
        fv = view(a)
        if fv.usable_gpus:
            step = training.step_time(moe_model("train"), GPUS[f.gpu], fv, nvls_bw(a)).step_s
            delivered = _training_ratio(f, fv.usable_gpus, step, h.step_s)
        else:
            delivered = 0.0
        healthy_tps = f.gpus * training.TOKENS_PER_GPU_PER_STEP / h.step_s
    else:
        ref = np.array([REFERENCE_TOKENS_PER_S_PER_USER])
        now = float(decode.throughput_at(cs["scenario"], ref)[0]) if dec["running"] else 0.0
        healthy = float(decode.throughput_at(cs["healthy"], ref)[0])
        ok = np.isfinite(now) and np.isfinite(healthy) and healthy > 0
        delivered = now / healthy if ok else 0.0
        healthy_tps = healthy * f.gpus if np.isfinite(healthy) else 0.0
    return Work(cs, dec, tr, delivered, healthy_tps)


def delivered_fraction(s: Scenario) -> float:
    """The degraded rate: the share of the healthy rack's work the scenario delivers now."""
    return work(s).delivered


def healthy_tokens_per_s(s: Scenario) -> float:
    """Tokens per second the scenario's healthy rack delivers (the goodput's full rate)."""
    return work(s).healthy_tokens_per_s
