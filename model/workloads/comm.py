"""GET /api/v1/collectives' answer: one NCCL collective or one MoE dispatch / combine.

`answer(a, params)` reads the parameters a route was given (none of them defaulted by the
parser, so a parameter that does not apply to the op is named, not ignored) and returns the
JSON-ready result; every bad parameter is a ScenarioError naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from model.assess import Assessment
from model.errors import ScenarioError
from model.fabric.presets import GB200_NVL72, NVLINK_LATENCY_US
from model.kinds import FabricKind
from model.workloads import comm_params as P
from model.workloads import domain, moe_a2a, nccl
from model.workloads.models import DEEPSEEK_R1, moe_model

MAX_BYTES = 1 << 36  # 64 GiB, nccl-tests' range and then some
NCCL_KEYS = ("algo", "bytes", "ranks")
MOE_KEYS = ("tokens", "ep", "precision")
DEFAULTS = {"op": "all_reduce", "algo": "auto", "bytes": 1 << 30, "precision": "bf16"}

# A fabric kind's part of the collectives (the seam, model/registry.py): the fabric an EP
# group's all-to-all and a job's collective cross. Islands are refused before (their routes
# answer the data plane and decode only), by the rack's reader (Scenario.spec).
EP_FABRIC: Mapping[FabricKind, Callable[[Any, int], Any]] = MappingProxyType(
    {
        FabricKind.RACK: moe_a2a.ep_fabric,
        FabricKind.DOMAIN: domain.ep_fabric,
        FabricKind.ISLANDS: moe_a2a.ep_fabric,
    }
)
JOB_FABRIC: Mapping[FabricKind, Callable[[Any, int], Any]] = MappingProxyType(
    {
        FabricKind.RACK: nccl.job_fabric,
        FabricKind.DOMAIN: domain.job_fabric,
        FabricKind.ISLANDS: nccl.job_fabric,
    }
)


def _refuse_foreign(op: str, given: Mapping, foreign: tuple[str, ...]) -> None:
    for key in foreign:
        if key in given:
            takes = MOE_KEYS if op in moe_a2a.OPS else NCCL_KEYS
            raise ScenarioError(f"{key} does not apply to {op} (it takes {', '.join(takes)})", key)


def answer(a: Assessment, given: Mapping[str, object]) -> dict:
    """The collective the parameters ask for, on the scenario `a` (a rack's Assessment, or a
    domain's: its collectives cross racks through L2, model/workloads/domain.py)."""
    op = str(given.get("op", DEFAULTS["op"]))
    f = a.fabric
    base = {"scenario": a.scenario.key(), "fabric": f.key}
    if op in moe_a2a.OPS:
        _refuse_foreign(op, given, NCCL_KEYS)
        if "tokens" not in given:
            raise ScenarioError(
                f"{op} needs tokens (per rank, 1 to {moe_a2a.MAX_TOKENS})", "tokens"
            )
        tokens = int(given["tokens"])
        ep = int(given.get("ep", 8))
        precision = str(given.get("precision", DEFAULTS["precision"]))
        m = moe_model(a.scenario.workload)
        v = EP_FABRIC[a.scenario.kind](a, ep)
        return (
            base | {"workload": a.scenario.workload} | moe_a2a.moe_op(op, tokens, m, precision, v)
        )
    if op not in nccl.OPS:
        known = ", ".join((*nccl.OPS, *moe_a2a.OPS))
        raise ScenarioError(f"op '{op}' is not one of {known}", token="op")
    _refuse_foreign(op, given, MOE_KEYS)
    ranks = int(given.get("ranks", a.gpus_in_service if a.job_runs else 0))
    if ranks < 2:
        raise ScenarioError(
            "no GPU is in service: the job does not run in this scenario"
            if "ranks" not in given
            else f"ranks {ranks}: at least 2",
            token="ranks",
        )
    jf = JOB_FABRIC[a.scenario.kind](a, ranks)
    algo = str(given.get("algo", DEFAULTS["algo"]))
    return base | nccl.collective(op, algo, float(given.get("bytes", DEFAULTS["bytes"])), jf)


# --- the calibration tables of docs/CALIBRATION.md: `python -m model.workloads.comm` ------------

# Published figures the fit never saw (FACTS.md §4 and research/perf_models.md §3), each with
# the job it was measured on: (what, ranks, bytes, algo, published busbw GB/s or us, unit).
NCCL_CHECKS = (
    ("CoreWeave, GB200 NVL72, 72 ranks, all_reduce, 1 GiB", 72, 1 << 30, "auto", 681.17, "GB/s"),
    ("B300 x8 (NVLink 5), all_reduce NVLS, peak (nccl#2140)", 8, 8 << 30, "nvls", 845.0, "GB/s"),
    ("B300 x8 (NVLink 5), all_reduce ring, peak (nccl#2140)", 8, 8 << 30, "ring", 695.0, "GB/s"),
    ("8 x B200, all_reduce, 830+ GB/s (nccl#1807)", 8, 8 << 30, "auto", 830.0, "GB/s"),
    ("B200 x8, 8 B all_reduce, symmetric kernels (nccl#1940)", 8, 8, "auto", 3.0, "us"),
    # Azure ND GB200 v6 (AI-benchmarking-guide, NCCL 2.25.1): one host's 4 GPUs, all_reduce
    # in place with NCCL_ALGO=Ring (its NCCLBandwidth.py forces Ring on 4 GPUs), busbw.
    ("Azure ND GB200 v6, 4 ranks, all_reduce ring, 8 GiB", 4, 8 << 30, "ring", 679.61, "GB/s"),
    ("Azure ND GB200 v6, 4 ranks, all_reduce ring, 1 GiB", 4, 1 << 30, "ring", 646.87, "GB/s"),
    ("Azure ND GB200 v6, 4 ranks, all_reduce ring, 16 MiB", 4, 1 << 24, "ring", 331.09, "GB/s"),
    ("Azure ND GB200 v6, 4 ranks, all_reduce ring, 1 MiB", 4, 1 << 20, "ring", 80.48, "GB/s"),
    # nccl-tests#333: B200, symmetric-memory kernels (-R 2), small all_reduce latency, about
    # 9 us on 2 GPUs and 22 us on 4 (read from the text).
    ("B200 x2, 8 B all_reduce, symmetric kernels (nccl-tests#333)", 2, 8, "auto", 9.0, "us"),
    ("B200 x4, 8 B all_reduce, symmetric kernels (nccl-tests#333)", 4, 8, "auto", 22.0, "us"),
)
SYMMETRIC_WHY = (
    "NCCL 2.27's symmetric-memory kernels are not modelled (the classic ring LL costs of "
    "tuning.cc are): small collectives are not calibrated"
)
RING_MID_WHY = (
    "the ring's LL and LL128 protocols at 1-16 MiB reach less than tuning.cc's bandwidths "
    "(its model, which the ring's time follows, has no pipeline fill)"
)


# Why a MoE check misses by more than 25% (the model's two simplifications, named):
_OVERLAP = (
    "the model adds the fixed floor to the bulk; at a few hundred tokens the kernel overlaps "
    "them (the error is gone by 2,048 tokens)"
)
A2A_WHY = {
    ("combine", 8, 128): _OVERLAP,
    ("combine", 8, 256): _OVERLAP,
}
NOISY_FLOOR = (
    "blog18's EP64 dispatch at 1-16 tokens runs 20.4-29.1 us, not monotone in tokens: the "
    "per-peer sync's wait for the last of 63 peers varies run to run; the fit takes their mean"
)


ONE_SHOT_NOTE = (
    "the serving frameworks' one-shot kernel (each rank reads its peers' buffers over NVLink): "
    "what TEP decode's attention and experts all_reduce costs on NVLink"
)
SMALL_NCCL_WHY = (
    "NCCL's ring at its tuner's LL latencies; measured NCCL (pynccl) is slower at these sizes. "
    "Decode takes the faster of this and the one-shot kernel, so the one-shot rows are what it "
    "pays on NVLink; on Ethernet, or across RoCE islands, it pays this"
)


def _row(name, published, model, unit, fitted, note="") -> dict:
    return {
        "point": name,
        "published": published,
        "unit": unit,
        "model": round(model, 3),
        "error_pct": round(100 * (model / published - 1), 1),
        "fitted": fitted,
        "note": note,
    }


def calibration_rows() -> dict[str, list[dict]]:
    """The NCCL and MoE rows (fitted and check), by section: published, model, error."""
    nccl_rows = []
    for nbytes, v in nccl.ALL_REDUCE_72:
        r = nccl.collective("all_reduce", "auto", nbytes, nccl.healthy_job(GB200_NVL72, 72))
        lo, hi = nccl.ALL_REDUCE_72_RANGE.get(nbytes, (v, v))
        name = f"CoreWeave, 72 ranks, all_reduce busbw, {nbytes / (1 << 30):g} GiB"
        note = f"published {lo:g}-{hi:g}" if lo != hi else ""
        nccl_rows.append(
            _row(name, v, r["busbw_gbs"], "GB/s", True, f"{r['algo']}; {note}".strip("; "))
        )
    gain = nccl.nvls_gain(GB200_NVL72)
    lo, hi = nccl.NVLS_GAIN_8
    nccl_rows.append(
        _row("NVLS over ring, 8 ranks, 8 GiB", (lo + hi) / 2, gain, "x", True, f"{lo:.2f}-{hi:.2f}")
    )
    for name, ranks, nbytes, algo, pub, unit in NCCL_CHECKS:
        jf = nccl.healthy_job(GB200_NVL72, ranks)
        r = nccl.collective("all_reduce", algo, nbytes, jf)
        val = r["time_us"] if unit == "us" else r["busbw_gbs"]
        note = f"{r['algo']}/{r['protocol']}"
        if algo == "ring":
            auto = nccl.collective("all_reduce", "auto", nbytes, jf)
            note += f"; NCCL's own choice: {auto['algo']}/{auto['protocol']}"
        if abs(val / pub - 1) > 0.25:
            note += "; " + (SYMMETRIC_WHY if unit == "us" else RING_MID_WHY)
        nccl_rows.append(_row(name, pub, val, unit, False, note))
    tp_rows = []
    gbs = nccl.healthy_job(GB200_NVL72, 8).ring_gbs  # one GPU's NCCL-effective rate
    for i, (nbytes, ranks, ms) in enumerate(P.ONE_SHOT_POINTS):
        t = float(nccl.one_shot_all_reduce_us(nbytes, ranks, gbs, NVLINK_LATENCY_US))
        name = f"one-shot all_reduce, {ranks} ranks, {nbytes // 1024:,} KiB"
        tp_rows.append(_row(name, 1e3 * ms, t, "us", i == 0, ONE_SHOT_NOTE if i == 0 else ""))
    for nbytes, ranks, ms in P.ONE_SHOT_NCCL_POINTS:
        t = float(
            nccl.small_all_reduce_us(np.array([nbytes]), ranks, np.array([gbs]), NVLINK_LATENCY_US)[
                0
            ]
        )
        name = f"NCCL all_reduce as decode's ring, {ranks} ranks, {nbytes // 1024:,} KiB"
        tp_rows.append(_row(name, 1e3 * ms, t, "us", False, SMALL_NCCL_WHY))
    moe_rows = []
    for p in (*moe_a2a.FITTED, *moe_a2a.FLOOR_EP64, *moe_a2a.CHECKS):
        t = moe_a2a.model_us(p, DEEPSEEK_R1, GB200_NVL72)
        name = f"{p.kind}, EP{p.ep}, {p.tokens} per rank, {p.precision}"
        miss = abs(t / p.published_us - 1) > 0.25
        note = A2A_WHY.get((p.kind, p.ep, p.tokens), "") if miss else ""
        if miss and p.kind == "combine" and 64 <= p.tokens <= 512:
            note = _OVERLAP
        if p in moe_a2a.FLOOR_EP64 and abs(t / p.published_us - 1) > 0.10:
            note = NOISY_FLOOR
        moe_rows.append(_row(name, p.published_us, t, "us", p.fitted, note))
    return {
        "NCCL all-reduce (gb200-nvl72, healthy)": nccl_rows,
        "MoE dispatch and combine (TensorRT-LLM blog18, gb200-nvl72, DeepSeek-V3)": moe_rows,
        "Decode's tensor-parallel all_reduce (vLLM PR 37756, B300, 8 ranks, CUDA graphs)": tp_rows,
    }


def markdown_table(rows: list[dict]) -> str:
    """Rows as the calibration tables of docs/CALIBRATION.md print them."""
    out = ["| point | published | model | error | fitted | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        nd = 3 if r["unit"] == "x" else (2 if "ms" in r["unit"] else 1)
        out.append(
            f"| {r['point']} | {r['published']:,.{nd}f} {r['unit']} | {r['model']:,.{nd}f} | "
            f"{r['error_pct']:+.1f}% | {'yes' if r['fitted'] else 'no'} | {r['note']} |"
        )
    return "\n".join(out)


RANK_COUNTS = (2, 4, 8, 16, 32, 72)
RANK_SIZES = (1 << 20, 1 << 24, 1 << 28, 1 << 30, 8 << 30)


def rank_rows() -> list[dict]:
    """all_reduce on a healthy gb200-nvl72 by rank count: what NCCL runs at each size (its
    tuner's choice) and the busbw it achieves, with NCCL's own belief of NVLS's busbw."""
    rows = []
    for n in RANK_COUNTS:
        jf = nccl.healthy_job(GB200_NVL72, n)
        cells = [nccl.collective("all_reduce", "auto", b, jf) for b in RANK_SIZES]
        forced = nccl.collective("all_reduce", "nvls", 8 << 30, jf)
        rows.append(
            {
                "ranks": n,
                "runs": [f"{c['algo']}/{c['protocol']}" for c in cells],
                "busbw_gbs": [c["busbw_gbs"] for c in cells],
                "nvls_busbw_8gib": forced["busbw_gbs"],
                "tuner_nvls_busbw": round(nccl.nvls_tuner_busbw("all_reduce", jf), 1),
            }
        )
    return rows


def rank_table() -> str:
    """The by-rank-count table of docs/CALIBRATION.md."""
    sizes = ("1 MiB", "16 MiB", "256 MiB", "1 GiB", "8 GiB")
    head = " | ".join(sizes)
    out = [
        f"| ranks | {head} | NVLS forced, 8 GiB | NCCL's NVLS belief |",
        "|---|" + "---|" * (len(sizes) + 2),
    ]
    for r in rank_rows():
        cells = " | ".join(
            f"{bw:,.1f} ({run})" for bw, run in zip(r["busbw_gbs"], r["runs"], strict=True)
        )
        out.append(
            f"| {r['ranks']} | {cells} | {r['nvls_busbw_8gib']:,.1f} | {r['tuner_nvls_busbw']:,.1f} |"
        )
    return "\n".join(out)


def calibration_tables() -> str:
    """The NCCL and MoE tables of docs/CALIBRATION.md."""
    out = []
    for title, rows in calibration_rows().items():
        out += [f"#### {title}", "", markdown_table(rows), ""]
    out += [
        "#### all_reduce by rank count (gb200-nvl72, healthy): busbw GB/s (what NCCL runs)",
        "",
        rank_table(),
        "",
    ]
    return "\n".join(out).rstrip()


if __name__ == "__main__":
    print(calibration_tables())
