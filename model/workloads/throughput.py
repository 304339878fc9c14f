"""What a scenario does to work delivered: MoE decode throughput and the training step.

Decode runs on the GPUs the job can use now: the active ones, less any parked in
full-bandwidth mode. If the job cannot run until a repair (or until the fabric controller
is back), it delivers nothing meanwhile. Throughput is per installed GPU, so a lost GPU
counts as zero, and it is compared at one interactivity with the healthy rack and eth-x72.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from model.fabric.metrics import per_gpu_tbs
from model.fabric.presets import ETH_X72, Fabric
from model.fabric.state import FabricState
from model.scenario import Scenario
from model.workloads import decode, training
from model.workloads.decode import REFERENCE_TOKENS_PER_S_PER_USER, FabricView
from model.workloads.models import GPUS, moe_model


def usable_mask(st: FabricState, part: dict) -> np.ndarray:
    """bool[G]: GPUs that run the job: alive and not parked."""
    mask = st.gpu_alive.copy()
    for gid in part["parked_gpus"]:
        mask[int(gid[3:])] = False
    return mask


def job_runs(job: dict) -> bool:
    """The job runs now, or restarts at once on what remains."""
    return job["state"] in ("running", "degraded") or job["restart"].startswith("at once")


def view(st: FabricState, part: dict, job: dict) -> FabricView:
    """The fabric as decode sees it: usable GPUs and the slowest one's bandwidth."""
    f = st.fabric
    usable = usable_mask(st, part)
    if not job_runs(job) or not usable.any():
        return decode.fabric_view(f, 0, 0.0)
    bw = per_gpu_tbs(st)[usable]
    return decode.fabric_view(f, int(usable.sum()), float(bw.min()))


def healthy_view(f: Fabric) -> FabricView:
    return decode.fabric_view(f, f.gpus, f.gpu_tbs_bidir)


def nvls_bw(st: FabricState, usable: np.ndarray) -> float | None:
    """One-way bytes/s per GPU on planes every usable GPU reaches and whose chip reduces."""
    f = st.fabric
    if f.sharp_tflops_per_chip <= 0 or not usable.any():
        return None
    common = st.up[usable].all(axis=0).sum()
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


def curves(st: FabricState, part: dict, job: dict, workload: str) -> dict:
    """Decode curves for the scenario, its healthy rack, and healthy eth-x72."""
    f = st.fabric
    return {
        "model": moe_model(workload),
        "gpu": GPUS[f.gpu],
        "scenario": _curve(workload, f.gpu, view(st, part, job)),
        "healthy": _healthy_curve(f, workload),
        "eth-x72": _healthy_curve(ETH_X72, workload),
        "eth-x72-gpu": GPUS[ETH_X72.gpu],
    }


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def decode_result(cs: dict, job: dict) -> dict:
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
            else f"the job is down: it restarts {job['restart']}"
        ),
    }


def training_result(st: FabricState, part: dict, job: dict, workload: str) -> dict:
    """The training block: step time for the scenario against the healthy rack."""
    f = st.fabric
    m = moe_model("train" if workload == "train" else "deepseek-r1")
    g = GPUS[f.gpu]
    fv = view(st, part, job)
    usable = usable_mask(st, part)
    healthy_nvls = f.planes * f.link_gbs_bidir / 2 * 1e9 if f.sharp_tflops_per_chip > 0 else None
    h = training.step_time(m, g, healthy_view(f), healthy_nvls)
    if fv.usable_gpus == 0:
        return {
            "step_time_s": None,
            "healthy_step_time_s": round(h.step_s, 3),
            "vs_healthy": 0.0,
            "note": f"the job is down: it restarts {job['restart']}",
        }
    s = training.step_time(m, g, fv, nvls_bw(st, usable))
    # Work per step scales with the GPUs that run it: compare tokens per second.
    rate = fv.usable_gpus / s.step_s
    healthy_rate = f.gpus / h.step_s
    return {
        "step_time_s": round(s.step_s, 3),
        "healthy_step_time_s": round(h.step_s, 3),
        "vs_healthy": round(rate / healthy_rate, 4),
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
    from model.fabric.fate import job, partition
    from model.fabric.metrics import bandwidth
    from model.fabric.state import build_state

    st = build_state(s)
    part = partition(st)
    jb = job(st, part, bandwidth(st))
    cs = curves(st, part, jb, s.workload)
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
        "job_runs": job_runs(jb),
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
