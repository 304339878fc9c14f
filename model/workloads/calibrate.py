"""Calibrate the decode model's fitted terms on the named GB200 NVL72 points, check the rest.

`python -m model.workloads.calibrate` fits the one term of decode.Terms (the residual: what
the step's measured parts, from DeepSeek's decode profile, FlashMLA and moe_a2a, leave out) on
InferenceX's five GB200 NVL72 deployments (research/operators_and_data.md) and prints it with
its sensitivity: the residual moved 10% down and up, and how far the fitted points move. The
constant in decode_params.py is set from it; a test re-runs the fit. Every published point
against the model, fitted or check, is model/workloads/checks.py's (docs/CALIBRATION.md,
/api/v1/calibration); `python -m model.docs` writes the tables.

How the published points are read (the way they were measured): InferenceX's tok/s/GPU is
every token (input and output) over every GPU of the disaggregated deployment, prefill GPUs
included, so a row's decode rate per decode GPU is tput x (decode + prefill GPUs) / decode
GPUs / 2 (1k in, 1k out); its tok/s/user is 1 / TPOT. The batch a decode GPU held is that
rate over the interactivity, and the model is asked for the TPOT of the row's deployment
(its EP size, MTP on) at that batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from model.fabric.presets import GB200_NVL72
from model.workloads import curve
from model.workloads import decode as Dm
from model.workloads import decode_params as D
from model.workloads.decode import Deployment, Terms, Workload, frontier, step
from model.workloads.hardware import B200_ROCE, island_hardware, preset_hardware
from model.workloads.models import B200, DEEPSEEK_R1


@dataclass(frozen=True)
class Row:
    """One measured deployment: InferenceX DeepSeek-R1 FP4 1k/1k, Dynamo TRT-LLM + MTP."""

    system: str  # "gb200-nvl72" or "b200-roce"
    conc: int
    prefill_gpus: int
    decode_gpus: int
    ep: int
    tok_s_gpu: float  # every token over every GPU
    tok_s_user: float
    tpot_ms: float
    fitted: bool

    @property
    def decode_rate(self) -> float:
        """Output tokens/s per decode GPU."""
        return self.tok_s_gpu * (self.prefill_gpus + self.decode_gpus) / self.decode_gpus / 2

    @property
    def batch(self) -> float:
        """Requests a decode GPU was decoding at once."""
        return self.decode_rate / self.tok_s_user

    @property
    def ran(self) -> Ran:
        """What InferenceX ran for this row (RAN)."""
        return RAN[(self.system, self.conc)]

    @property
    def name(self) -> str:
        sys = "GB200 NVL72" if self.system == "gb200-nvl72" else "B200 RoCE"
        return (
            f"InferenceX {sys}, conc {self.conc:,}, {self.prefill_gpus}P/{self.decode_gpus}D "
            f"EP{self.ep}: TPOT at {self.batch:,.1f} requests a GPU"
        )


# Fitted: the GB200 NVL72 rows named in research/operators_and_data.md (InferenceX blog,
# run 26306422380, 2026-05-22).
FITTED_ROWS = (
    Row("gb200-nvl72", 4, 4, 32, 8, 60.7, 286.40, 3.49, True),
    Row("gb200-nvl72", 180, 4, 32, 32, 1149.1, 164.37, 6.08, True),
    Row("gb200-nvl72", 2253, 12, 32, 32, 7698.0, 90.99, 10.99, True),
    Row("gb200-nvl72", 4301, 8, 16, 16, 12659.7, 43.29, 23.10, True),
    Row("gb200-nvl72", 16130, 12, 20, 4, 14659.4, 17.82, 56.11, True),
)
# Checks: the blog's other rows (the same run), never fitted.
CHECK_ROWS = (
    Row("gb200-nvl72", 8, 4, 32, 8, 111.8, 272.64, 3.67, False),
    Row("gb200-nvl72", 12, 4, 32, 8, 165.2, 257.11, 3.89, False),
    Row("gb200-nvl72", 24, 4, 32, 8, 274.8, 222.28, 4.50, False),
    Row("gb200-nvl72", 48, 4, 32, 8, 363.3, 207.30, 4.82, False),
    Row("b200-roce", 6, 4, 40, 8, 49.3, 309.17, 3.23, False),
    Row("b200-roce", 10, 4, 40, 8, 118.7, 277.39, 3.61, False),
    Row("b200-roce", 15, 4, 40, 8, 168.9, 261.09, 3.83, False),
    Row("b200-roce", 25, 4, 40, 8, 242.4, 224.59, 4.45, False),
    Row("b200-roce", 45, 4, 40, 8, 369.9, 191.18, 5.23, False),
    Row("b200-roce", 90, 4, 40, 8, 577.3, 150.56, 6.64, False),
    Row("b200-roce", 180, 4, 40, 8, 897.9, 126.42, 7.91, False),
    Row("b200-roce", 875, 4, 40, 8, 2832.9, 101.79, 9.82, False),
    Row("b200-roce", 1214, 4, 16, 8, 7111.4, 74.04, 13.51, False),
    Row("b200-roce", 4968, 12, 32, 8, 9660.7, 56.35, 17.75, False),
    Row("b200-roce", 10860, 12, 20, 4, 12515.7, 21.34, 46.86, False),
)

# What each row ran (InferenceX's own configs, SemiAnalysisAI/InferenceX
# configs/deprecated/nvidia-1k1k-master.yaml, dsr1-fp4-{gb200,b200}-dynamo-trt, recipe files
# named ctx<P>_gen<workers>_<tep|dep><N>_batch<cap>_eplb<slots>_mtp<drafts>) [M]: tep is
# tensor-parallel attention, dep data-parallel attention; every row's MoE is EP. The model
# asks each row for EP with data-parallel attention and one MTP draft (row_tpot): the rows
# that ran three drafts or tensor-parallel attention are compared with another deployment
# than the one measured, and say so (checks.py).


@dataclass(frozen=True)
class Ran:
    """What one InferenceX run served: attention tensor- or data-parallel over `size` GPUs,
    MoE EP over the same GPUs, MTP drafts, the batch cap a GPU, redundant expert slots."""

    attention: str  # "tep" or "dep"
    size: int
    drafts: int
    cap: int
    slots: int = 0

    def label(self) -> str:
        slots = f", {self.slots} expert slots" if self.slots else ""
        return (
            f"{self.attention.upper()}{self.size}, MTP {self.drafts}, batch cap {self.cap}{slots}"
        )


RAN = {
    **{("gb200-nvl72", c): Ran("tep", 8, 3, 8) for c in (4, 8, 12, 24, 48)},
    ("gb200-nvl72", 180): Ran("dep", 32, 3, 4),
    ("gb200-nvl72", 2253): Ran("dep", 32, 1, 64, 288),
    ("gb200-nvl72", 4301): Ran("dep", 16, 1, 256, 256),
    ("gb200-nvl72", 16130): Ran("dep", 4, 1, 768),
    ("b200-roce", 6): Ran("tep", 8, 3, 1),
    **{("b200-roce", c): Ran("tep", 8, 3, 32) for c in (10, 15, 25, 45, 90, 180)},
    ("b200-roce", 875): Ran("dep", 8, 3, 16),
    ("b200-roce", 1214): Ran("dep", 8, 2, 64),
    ("b200-roce", 4968): Ran("dep", 8, 1, 128),
    ("b200-roce", 10860): Ran("dep", 4, 1, 512),
}


def runs(system: str) -> tuple[Row, ...]:
    """Every run of InferenceX's table for one system."""
    return tuple(r for r in (*FITTED_ROWS, *CHECK_ROWS) if r.system == system)


def run_point(r: Row, tpot_ms: float) -> tuple[float, float]:
    """A run as InferenceX plots it, at a TPOT: (tok/s/user, every token over every GPU) for
    the run's batch and prefill/decode split."""
    x = 1000.0 / tpot_ms
    return x, r.batch * x * 2 * r.decode_gpus / (r.decode_gpus + r.prefill_gpus)


def runs_curve(system: str, x, terms: Terms | None = None) -> np.ndarray:
    """InferenceX's curve through one system's runs at interactivities x: as measured (terms
    None: the published rows, which reproduces its table), or with the model's TPOT for each
    run at its batch (the model read the way InferenceX reads its measurements)."""
    pts = [
        run_point(r, r.tpot_ms if terms is None else row_tpot(r, terms)[0]) for r in runs(system)
    ]
    return curve.read(pts, x)


# The frontier points: InferenceX's iso-interactivity comparison at 125 tok/s/user (named in
# the issue). Their figures count prefill GPUs; [A] the prefill share of each system's
# deployments around 125 tok/s/user: GB200 between 4 of 36 and 12 of 44 (0.2), B200 4 of 44.
ISO_TOK_S_USER = 125.0
ISO_GB200, ISO_B200 = 4130.0, 941.0
PREFILL_SHARE = {"gb200-nvl72": 0.2, "b200-roce": 4 / 44}
# Checks of the comparison at other interactivities (the same table), never fitted.
# FACTS.md §5 [M]: SGLang on GB200 NVL72, decode tok/s per GPU (LMSYS blogs, parts 1 and 2).
SGLANG = (
    ("SGLang GB200 NVL72 decode, NVFP4 MoE, FP8 KV (part 2)", 13386, "nvfp4", "fp8"),
    ("SGLang GB200 NVL72 decode, FP8 MoE, BF16 KV (part 2)", 9087, "fp8", "bf16"),
    ("SGLang GB200 NVL72 decode, FP8 MoE, BF16 KV (part 1)", 7583, "fp8", "bf16"),
)
SGLANG_WHY = {
    7583: "part 1 ran June 2025's kernels; the same recipe measured 9,087 in part 2 (Sept 2025)",
    9087: "not established: the FP8 expert GEMMs run at DeepGEMM's H800 efficiency on B200 [A]",
}
# FACTS.md §5 [M]: DeepSeek's production decode (research/perf_models.md §8, S25): 14.8k
# output tok/s per H800 node (1,850 a GPU) at 20-22 tok/s per user, mean KV length 4,989.
DEEPSEEK_TOK_S_USER = 21.0
DEEPSEEK_ISL, DEEPSEEK_OSL = 3995, 1988  # [A] a mean context of 4,989
DEEPSEEK_WHY = (
    "attention is most of this step (5k contexts); the model puts the Poisson scatter of "
    "requests on the busiest rank, and DeepSeek's decode load balancer evens core-attention "
    "load across ranks (S25)"
)
# Why a frontier check can miss by more than 25%: InferenceX's curve between two measured
# deployments is an interpolation; the model's frontier is the envelope over deployments
# (EP sizes, batches) that were not run.
FRONTIER_WHY = (
    "their curve here joins measured runs (conc 180 at 164 and 2,253 at 91 tok/s/user on "
    "GB200) with nothing run between; the model's frontier over every deployment takes ones "
    "no InferenceX recipe serves (EP64-72, two micro-batches)"
)


def frontier_why(terms: Terms) -> str:
    """Why a frontier check misses: FRONTIER_WHY, and how sharply the frontier's high end
    rests on the step's floor (the model's TPOT error at InferenceX's conc-180 run)."""
    r = FITTED_ROWS[1]
    err = err_pct(row_tpot(r, terms)[0], r.tpot_ms)
    return (
        f"{FRONTIER_WHY}; above ~125 tok/s/user the step budget sits just above the "
        f"weight-read floor, so the model's {err:+.0f}% TPOT at the conc-{r.conc} run moves the "
        "batch that fits by 2-3x"
    )


ISO_CHECKS = (
    (25, 14125, 12292),
    (45, 12508, 10853),
    (60, 11017, 9185),
    (75, 9379, 6968),
    (90, 7796, 4512),
    (100, 6781, 3047),
    (150, 1922, 583),
    (175, 826, 429),
    (200, 432, 332),
    (225, 262, 241),
    (250, 186, 193),
)


def hardware_of(system: str):
    return preset_hardware(GB200_NVL72) if system == "gb200-nvl72" else island_hardware(B200_ROCE)


def row_tpot(r: Row, terms: Terms = Dm.FITTED) -> tuple[float, Deployment]:
    """The model's TPOT (ms) for the row's deployment at its batch: its EP size and MTP drafts
    as it ran them, the better KV precision and overlap choice."""
    hw = hardware_of(r.system)
    w = Workload(DEEPSEEK_R1)
    v = hw.groups_for(r.ep)[0][0]
    best = (math.inf, None)
    for kv in D.KV_PRECISIONS:
        for ov in D.OVERLAP:
            tp = r.ran.attention == "tep"
            if tp and ov:
                continue  # the recipes serve TEP in one batch
            dep = Deployment(r.ep, r.ran.drafts, kv, ov, tp)
            if Dm.max_batch(DEEPSEEK_R1, B200, w, dep) < r.batch:
                continue
            s = step(DEEPSEEK_R1, B200, w, dep, v, np.array([r.batch]), terms)
            best = min(
                best, (float(s["total"][0]) / 1000 / dep.tokens_per_step, dep), key=lambda t: t[0]
            )
    return best


def _loss(terms: Terms) -> float:
    tpots = [row_tpot(r, terms)[0] for r in FITTED_ROWS]
    if min(tpots) <= 0:  # a residual that takes a step below nothing fits no row
        return math.inf
    return sum(math.log(t / r.tpot_ms) ** 2 for t, r in zip(tpots, FITTED_ROWS, strict=True))


@lru_cache(maxsize=1)
def fit() -> Terms:
    """The residual minimising the squared log TPOT error over the fitted rows: a grid, then
    rounds of halving steps (deterministic). Every other part of the step is measured."""
    grid = [Terms(float(r)) for r in range(-3000, 15001, 250)]
    cur = min(grid, key=_loss)
    cur_loss, h = _loss(cur), 125.0
    for _ in range(8):
        for sign in (-1, 1):
            cand = Terms(cur.residual_us + sign * h)
            loss = _loss(cand)
            if loss < cur_loss:
                cur, cur_loss = cand, loss
        h /= 2
    return Terms(round(cur.residual_us, 1))


def recipes(system: str, max_ep: int) -> tuple[Deployment, ...]:
    """The deployments InferenceX's recipes serve on `system` (RAN): their attention (TEP or
    DEP) and EP sizes, their MTP drafts, in one batch (no recipe runs two micro-batches)."""
    ran = [r for (sys, _), r in RAN.items() if sys == system]
    shapes = {(r.attention == "tep", r.size) for r in ran}
    drafts = {r.drafts for r in ran}
    return tuple(
        d
        for d in Dm.deployments(max_ep)
        if (d.tp, d.ep) in shapes and d.mtp in drafts and not d.overlap
    )


def iso_frontiers(terms: Terms, xs: np.ndarray, only_recipes: bool = False) -> dict:
    """Both systems' decode frontiers at interactivities xs: over every deployment the model
    tries, or (only_recipes) over those InferenceX's recipes serve."""
    w = Workload(DEEPSEEK_R1)
    out = {}
    for system in ("gb200-nvl72", "b200-roce"):
        hw = hardware_of(system)
        only = recipes(system, hw.max_ep) if only_recipes else None
        out[system] = frontier(DEEPSEEK_R1, hw, w, xs, terms, only)
    return out


def on_iso_basis(system: str, per_decode_gpu):
    """Decode tokens/s per decode GPU on InferenceX's basis: every token (1k in, 1k out) over
    every GPU, the system's stated prefill share counted."""
    return 2 * per_decode_gpu * (1 - PREFILL_SHARE[system])


def iso_models(terms: Terms, xs, only_recipes: bool = False) -> list[dict[str, float]]:
    """Both systems' frontiers at each interactivity of xs on InferenceX's basis
    (on_iso_basis) and their ratio (iso_frontiers)."""
    fs = iso_frontiers(terms, np.asarray(xs, dtype=float), only_recipes)
    per = {s: on_iso_basis(s, fr.tokens_per_s_per_gpu) for s, fr in fs.items()}
    gb, b2 = per["gb200-nvl72"], per["b200-roce"]
    return [
        {"gb200-nvl72": float(g), "b200-roce": float(b), "ratio": float(g / b)}
        for g, b in zip(gb, b2, strict=True)
    ]


def iso_model(
    terms: Terms = Dm.FITTED, x: float = ISO_TOK_S_USER, only_recipes: bool = False
) -> dict[str, float]:
    """iso_models at one interactivity x."""
    return iso_models(terms, [x], only_recipes)[0]


def err_pct(model: float, published: float) -> float:
    """The model against a published figure, in percent (NaN where the model has none)."""
    return 100 * (model / published - 1) if np.isfinite(model) else float("nan")


def sensitivity(terms: Terms = Dm.FITTED) -> dict[str, float]:
    """Each term moved 10% down and up: the largest move of any fitted point's TPOT (%)."""
    base = [row_tpot(r, terms)[0] for r in FITTED_ROWS]
    out = {}
    for name in Dm.TERM_NAMES:
        worst = 0.0
        for f in (0.9, 1.1):
            moved = terms.moved(name, f)
            for r, b in zip(FITTED_ROWS, base, strict=True):
                worst = max(worst, abs(row_tpot(r, moved)[0] / b - 1) * 100)
        out[name] = worst
    return out


if __name__ == "__main__":
    # the fit, as decode_params.RESIDUAL_US is set from it; every table: python -m model.docs
    print(fit(), sensitivity())
