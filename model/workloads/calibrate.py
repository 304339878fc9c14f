"""Calibrate the decode model's free efficiency once against FACTS.md §5's published points.

`python -m model.workloads.calibrate` fits eta_hbm (the share of the HBM roofline real serving stacks
reach) on two GB200 NVL72 points, checks the model against the others, and prints the table
kept in docs/CALIBRATION.md. The constants in model/decode.py are set from its output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.fabric.presets import GB200_NVL72
from model.workloads.collectives import deepseek_decode_bound
from model.workloads.decode import ETA_HBM, MFU_DECODE, curve, fabric_view, throughput_at
from model.workloads.models import B200, DEEPSEEK_R1

# [M] ~80-90% acceptance of one MTP draft: ~1.8 tokens per step (research/perf_models.md §7).
MTP_TOKENS_PER_STEP = 1.8
FP8_EXPERT_BYTES = 1 + 1 / 128  # FP8 with one scale per 128 values


@dataclass(frozen=True)
class Point:
    name: str
    published: float
    unit: str
    at_user_tps: float | None  # None = the curve's peak
    context: int
    tokens_per_step: float
    expert_bytes: float
    kv_scale: float  # 0.5 where the recipe keeps the KV cache in FP8
    fitted: bool
    note: str


POINTS = (
    Point(
        "InferenceX, GB200 NVL72, DeepSeek-R1 FP4, 1k/1k, MTP",
        4130,
        "tok/s/GPU at 125 tok/s/user",
        125.0,
        1536,
        MTP_TOKENS_PER_STEP,
        0.5 + 1 / 16,
        0.5,
        True,
        "their per-GPU figure counts prefill GPUs too; EP up to 32",
    ),
    Point(
        "SGLang, GB200 NVL72, NVFP4 MoE + FP8 attention, decode",
        13386,
        "tok/s/GPU, peak",
        None,
        2048,
        1.0,
        0.5 + 1 / 16,
        0.5,
        True,
        "decode GPUs only, 2,000-token inputs, FP8 KV cache",
    ),
    Point(
        "SGLang, GB200 NVL72, FP8 MoE, decode (part 1)",
        7583,
        "tok/s/GPU, peak",
        None,
        2048,
        1.0,
        FP8_EXPERT_BYTES,
        1.0,
        False,
        "check, not fitted; BF16 KV cache",
    ),
    Point(
        "InferenceX, GB200 NVL72, DeepSeek-R1 FP4, peak",
        14659,
        "tok/s/GPU, peak",
        None,
        1536,
        MTP_TOKENS_PER_STEP,
        0.5 + 1 / 16,
        0.5,
        False,
        "check, not fitted; counts prefill GPUs too",
    ),
)


def predict(p: Point, eta_hbm: float, mfu: float = MFU_DECODE) -> float:
    """The model's figure for one published point."""
    fv = fabric_view(GB200_NVL72, 72, GB200_NVL72.gpu_tbs_bidir)
    c = curve(
        DEEPSEEK_R1,
        B200.fp4_pflops * 1e15,
        B200.hbm_tbs * 1e12,
        B200.hbm_gb,
        fv,
        context=p.context,
        tokens_per_step=p.tokens_per_step,
        mfu=mfu,
        eta_hbm=eta_hbm,
        expert_bytes=p.expert_bytes,
        kv_scale=p.kv_scale,
    )
    if p.at_user_tps is None:
        return float(c["tokens_per_s_per_gpu"].max())
    return float(throughput_at(c, np.array([p.at_user_tps]))[0])


def fit(mfus: np.ndarray | None = None, etas: np.ndarray | None = None) -> tuple[float, float]:
    """(MFU, eta_hbm) minimising the squared log error over the fitted points.

    The peak points sit at large batches, where decode is compute-bound: they pin MFU. The
    point at 125 tok/s/user sits where HBM reads and the all-to-all dominate: it pins eta.
    """
    mfus = np.linspace(0.02, 0.6, 59) if mfus is None else mfus
    etas = np.linspace(0.05, 1.0, 96) if etas is None else etas
    fitted = [p for p in POINTS if p.fitted]
    best = (float("inf"), MFU_DECODE, ETA_HBM)
    for mfu in mfus:
        for eta in etas:
            preds = [predict(p, float(eta), float(mfu)) for p in fitted]
            if any(np.isnan(x) for x in preds):
                continue
            e = sum(np.log(x / p.published) ** 2 for x, p in zip(preds, fitted, strict=True))
            if e < best[0]:
                best = (e, float(mfu), float(eta))
    return best[1], best[2]


def table(eta_hbm: float = ETA_HBM, mfu: float = MFU_DECODE) -> list[dict]:
    """Model against published, with the error, at the calibrated constants."""
    rows = []
    for p in POINTS:
        model = predict(p, eta_hbm, mfu)
        rows.append(
            {
                "point": p.name,
                "published": p.published,
                "unit": p.unit,
                "model": round(model),
                "error_pct": round(100 * (model / p.published - 1), 1),
                "fitted": p.fitted,
                "note": p.note,
            }
        )
    for name, bw, pub in (
        ("DeepSeek bound, 400 Gb/s InfiniBand", 50e9, 67),
        ("DeepSeek bound, GB200 NVL72", 900e9, 1200),
    ):
        model = deepseek_decode_bound(bw)
        rows.append(
            {
                "point": name,
                "published": pub,
                "unit": "tok/s/user",
                "model": round(model, 1),
                "error_pct": round(100 * (model / pub - 1), 1),
                "fitted": False,
                "note": "communication formula alone, DeepSeek's assumptions",
            }
        )
    return rows


def main() -> None:
    mfu, eta = fit()
    print(f"fitted: MFU = {mfu:.3f}, eta_hbm = {eta:.3f}")
    print(f"model/decode.py has MFU_DECODE = {MFU_DECODE}, ETA_HBM = {ETA_HBM}\n")
    print("| point | published | model | error | fitted | note |")
    print("|---|---|---|---|---|---|")
    for r in table():
        print(
            f"| {r['point']} | {r['published']:,} {r['unit']} | {r['model']:,} | "
            f"{r['error_pct']:+.1f}% | {'yes' if r['fitted'] else 'no'} | {r['note']} |"
        )


if __name__ == "__main__":
    main()
