"""Every published point the decode model is held against (model/workloads/calibrate.py fits
the one term; this module reads the rest): the InferenceX rows fitted and checked, the
iso-interactivity and SGLang checks, DeepSeek's own figures, each part's share of the step,
and the answer of GET /api/v1/calibration and the page's calibration panel."""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from model.query import parse_query
from model.workloads import decode as Dm
from model.workloads import decode_params as D
from model.workloads import throughput
from model.workloads.calibrate import (
    CHECK_ROWS,
    DEEPSEEK_ISL,
    DEEPSEEK_OSL,
    DEEPSEEK_TOK_S_USER,
    DEEPSEEK_WHY,
    FITTED_ROWS,
    ISO_B200,
    ISO_CHECKS,
    ISO_GB200,
    SGLANG,
    SGLANG_WHY,
    err_pct,
    fit,
    frontier_why,
    hardware_of,
    iso_frontiers,
    iso_model,
    iso_models,
    on_iso_basis,
    row_tpot,
    runs_curve,
    sensitivity,
)
from model.workloads.collectives import deepseek_decode_bound
from model.workloads.comm import calibration_rows
from model.workloads.decode import Terms, Workload, frontier
from model.workloads.hardware import H800_IB, island_hardware
from model.workloads.models import DEEPSEEK_R1, H800


def _row_points(terms: Terms) -> list[dict]:
    """The InferenceX deployments, fitted and check: each one's TPOT against the model's."""
    rows = []
    for r in (*FITTED_ROWS, *CHECK_ROWS):
        t, dep = row_tpot(r, terms)
        rows.append(
            {
                "point": r.name,
                "published": r.tpot_ms,
                "unit": "ms TPOT",
                "model": round(t, 2),
                "error_pct": round(err_pct(t, r.tpot_ms), 1),
                "fitted": r.fitted,
                "note": (f"model: {dep.label()}" if dep else "does not fit in HBM")
                + f"; ran {r.ran.label()}",
            }
        )
    return rows


def _iso_points(terms: Terms) -> list[dict]:
    """InferenceX's comparison at 125 tok/s/user: each system's frontier and their ratio."""
    rows = []
    iso, like = iso_model(terms), iso_model(terms, only_recipes=True)
    for key, pub in (("gb200-nvl72", ISO_GB200), ("b200-roce", ISO_B200), ("ratio", 4.39)):
        label = {"gb200-nvl72": "GB200 NVL72", "b200-roce": "B200 RoCE (b200-roce)"}.get(
            key, "GB200 NVL72 over B200"
        )
        rows.append(
            {
                "point": f"InferenceX frontier at 125 tok/s/user: {label}",
                "published": pub,
                "unit": "x" if key == "ratio" else "tok/s/GPU (all tokens, all GPUs)",
                "model": round(iso[key], 2 if key == "ratio" else 0),
                "error_pct": round(err_pct(iso[key], pub), 1),
                "fitted": False,
                "note": "prefill share 0.2 (GB200) and 4/44 (B200) [A]; over the deployments "
                f"its recipes serve: {_num(like[key], key)} ({err_pct(like[key], pub):+.0f}%)"
                + ("; " + frontier_why(terms) if abs(err_pct(iso[key], pub)) > 25 else ""),
            }
        )
    return rows


def _iso_check_points(terms: Terms) -> list[dict]:
    """The same comparison at the other interactivities of InferenceX's table (checks): the
    model's frontier over the deployments InferenceX's recipes serve (like for like), with
    the frontier over every deployment the model tries and the model at InferenceX's own runs
    read its way (runs_curve) in the note."""
    rows = []
    xs = np.array([float(x) for x, _, _ in ISO_CHECKS])
    at_runs = {s: runs_curve(s, xs, terms) for s in ("gb200-nvl72", "b200-roce")}
    measured = {s: runs_curve(s, xs) for s in at_runs}
    likes, everys = iso_models(terms, xs, only_recipes=True), iso_models(terms, xs)
    for i, (x, gb, b2) in enumerate(ISO_CHECKS):
        like, every = likes[i], everys[i]
        for key, pub in (("gb200-nvl72", gb), ("b200-roce", b2), ("ratio", gb / b2)):
            err = err_pct(like[key], pub)
            note = (
                f"every deployment the model tries: {_num(every[key], key)} "
                f"({err_pct(every[key], pub):+.0f}%)"
            )
            if key in at_runs:
                note += (
                    f"; at InferenceX's own runs, joined its way: {_num(at_runs[key][i], key)}"
                    f" ({err_pct(float(at_runs[key][i]), pub):+.0f}%; its published runs so "
                    f"joined: {err_pct(float(measured[key][i]), pub):+.1f}%)"
                )
            if abs(err) > 25:
                note += "; " + frontier_why(terms)
            rows.append(
                {
                    "point": f"InferenceX frontier at {x} tok/s/user: {key}, its recipes",
                    "published": round(pub, 3) if key == "ratio" else pub,
                    "unit": "x" if key == "ratio" else "tok/s/GPU",
                    "model": round(like[key], 2 if key == "ratio" else 0),
                    "error_pct": round(err, 1),
                    "fitted": False,
                    "note": note,
                }
            )
    return rows


# [M] InferenceX's GB200 NVL72 against B200 blog (InferenceX-app PR#381): DeepSeek-R1 FP4,
# Dynamo TRT-LLM, disaggregated: "B200 beats above ~250 tok/s/user", where a request fits
# an 8-GPU NVLink island. Its own table puts the crossing between 225 (1.09x) and 250
# (0.96x). The interactivity is a check, read on both frontiers over their recipes.
B200_OVERTAKES_AT = 250.0


def _crossover_point(terms: Terms) -> dict:
    """Where B200 first decodes more per GPU than GB200 NVL72 (a check), over InferenceX's
    recipes, on a 1 tok/s/user grid from 100 to 400; and from where both serve TEP8."""
    xs = np.arange(100.0, 401.0, 1.0)
    fs = iso_frontiers(terms, xs, only_recipes=True)
    gb, b2 = (on_iso_basis(s, fs[s].tokens_per_s_per_gpu) for s in ("gb200-nvl72", "b200-roce"))
    below = np.flatnonzero(gb / b2 < 1.0)
    model = float(xs[below[0]]) if below.size else float("nan")
    tep = np.array(
        [
            all((d := fr.deployment_at(i)) is not None and d.tp for fr in fs.values())
            for i in range(len(xs))
        ]
    )
    both = float(xs[np.argmax(tep)]) if tep.any() else float("nan")
    tep_rows = [r for r in CHECK_ROWS if r.system == "gb200-nvl72" and r.conc in (24, 48)]
    errs = [err_pct(row_tpot(r, terms)[0], r.tpot_ms) for r in tep_rows]
    return {
        "point": "InferenceX: interactivity above which B200 beats GB200 NVL72 per GPU",
        "published": B200_OVERTAKES_AT,
        "unit": "tok/s/user",
        "model": model,
        "error_pct": round(err_pct(model, B200_OVERTAKES_AT), 1),
        "fitted": False,
        "note": (
            "the first interactivity where the ratio of the recipes' frontiers, on "
            f"InferenceX's basis (prefill GPUs counted), falls below 1. From {both:.0f} both "
            "serve TEP8 inside 8 GPUs at one rate a decode GPU, and the ratio is the prefill "
            "shares' (GB200's runs gave 20% of their GPUs to prefill, B200's 9%). InferenceX "
            "measured GB200's TEP8 run at conc 48 8% faster than B200's at conc 45; the model "
            f"reads them alike, its TPOT at GB200's conc 24 and 48 rows {errs[0]:+.0f}% and "
            f"{errs[1]:+.0f}%"
        ),
    }


def _num(v: float, key: str) -> str:
    """A frontier figure as the rows print it."""
    if not np.isfinite(v):
        return "none"
    return f"{v:.2f}x" if key == "ratio" else f"{v:,.0f}"


# [M] TensorRT-LLM's "DeepSeek R1 MTP Implementation and Optimization" (tech blog 2, Figure 7):
# DeepSeek-R1-FP4 on 8 B200, one request (min latency), ISL/OSL 1K/2K, MLA TP8 and MoE EP2: MTP
# with three drafts decodes 2.16x as fast as without.
MTP3_SPEEDUP = 2.16


def _mtp_point(terms: Terms) -> dict:
    """The MTP speed-up at one request (a check): TPOT without drafts over TPOT with three,
    TEP8 on one B200 island at the run's context."""
    w = Workload(DEEPSEEK_R1, isl=1024, osl=2048)
    hw = hardware_of("b200-roce")
    v = hw.groups_for(8)[0][0]
    b = np.array([1.0 / 8])
    tpot = {}
    for d in (0, 3):
        dep = Dm.Deployment(8, d, "fp8", False, True)
        tpot[d] = float(Dm.step(DEEPSEEK_R1, hw.gpu, w, dep, v, b, terms)["total"][0])
        tpot[d] /= dep.tokens_per_step
    model = tpot[0] / tpot[3]
    return {
        "point": "TensorRT-LLM MTP speed-up, 3 drafts against none, one request on 8 B200",
        "published": MTP3_SPEEDUP,
        "unit": "x",
        "model": round(model, 2),
        "error_pct": round(err_pct(model, MTP3_SPEEDUP), 1),
        "fitted": False,
        "note": "TEP8 with MoE EP8 where the run had EP2; acceptance 0.85, then 0.629 a draft",
    }


def _sglang_points(terms: Terms) -> list[dict]:
    """SGLang's decode peaks on GB200 NVL72 (checks): the model's peak without MTP, at the
    runs' expert and KV precisions."""
    rows = []
    for name, pub, precision, kv in SGLANG:
        w = Workload(DEEPSEEK_R1, precision, isl=2000, osl=100)
        only = tuple(d for d in Dm.deployments(72, dominated=True) if not d.mtp and d.kv == kv)
        fr = frontier(DEEPSEEK_R1, hardware_of("gb200-nvl72"), w, np.array([2.0]), terms, only)
        model = fr.peak_tokens_per_s_per_gpu
        rows.append(
            {
                "point": name,
                "published": pub,
                "unit": "tok/s/GPU, decode peak",
                "model": round(model),
                "error_pct": round(err_pct(model, pub), 1),
                "fitted": False,
                "note": "decode GPUs only, 2,000 in / 100 out [A], no MTP"
                + (f"; {SGLANG_WHY[pub]}" if pub in SGLANG_WHY else ""),
            }
        )
    return rows


def _deepseek_point(terms: Terms) -> dict:
    """DeepSeek's production decode on H800 over InfiniBand (a check): the model's frontier
    at its interactivity and context."""
    w = Workload(DEEPSEEK_R1, "fp8", isl=DEEPSEEK_ISL, osl=DEEPSEEK_OSL)
    hw = island_hardware(H800_IB)
    fr = frontier(DEEPSEEK_R1, hw, w, np.array([DEEPSEEK_TOK_S_USER]), terms)
    model = float(fr.tokens_per_s_per_gpu[0])
    dep = fr.deployment_at(0)
    return {
        "point": "DeepSeek production decode, H800 on InfiniBand, at 20-22 tok/s/user",
        "published": 1850,
        "unit": "tok/s/GPU, decode GPUs",
        "model": round(model),
        "error_pct": round(err_pct(model, 1850), 1),
        "fitted": False,
        "note": f"h800-ib (18 nodes), mean KV 4,989, FP8 experts; {dep.label() if dep else '-'}"
        + (f"; {DEEPSEEK_WHY}" if abs(err_pct(model, 1850)) > 25 else ""),
    }


def _bound_points() -> list[dict]:
    """DeepSeek's own interactivity bounds from its communication formula (no fitted term)."""
    rows = []
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
                "error_pct": round(err_pct(model, pub), 1),
                "fitted": False,
                "note": "communication formula alone, DeepSeek's assumptions",
            }
        )
    return rows


def table(terms: Terms = Dm.FITTED) -> list[dict]:
    """Every point, fitted or check: published, model, error."""
    return [
        *_row_points(terms),
        *_iso_points(terms),
        *_iso_check_points(terms),
        _crossover_point(terms),
        _mtp_point(terms),
        *_sglang_points(terms),
        _deepseek_point(terms),
        *_bound_points(),
    ]


# The interactivities at which the calibration reports each part's share of the step.
SHARE_POINTS = (20.0, 50.0, 100.0, 150.0)


def term_shares(terms: Terms = Dm.FITTED) -> list[dict]:
    """Each part of the GB200 NVL72 step as a share of it, at SHARE_POINTS on the healthy
    frontier: the one fitted residual (|residual| / step) beside the measured parts."""
    hw = hardware_of("gb200-nvl72")
    fr = frontier(DEEPSEEK_R1, hw, Workload(DEEPSEEK_R1), np.array(SHARE_POINTS), terms)
    rows = []
    for i, x in enumerate(SHARE_POINTS):
        bd, dep = fr.breakdown_at(i), fr.deployment_at(i)
        total = bd["total"]
        parts = {k: round(bd[k] / total, 4) for k in Dm.BREAKDOWN_KEYS}
        rows.append(
            {
                "tokens_per_s_per_user": x,
                "deployment": dep.label() if dep else None,
                "step_us": round(total, 1),
                "residual": round(abs(bd["residual"]) / total, 4),
                "parts": parts,
            }
        )
    return rows


def fitted_terms(terms: Terms = Dm.FITTED) -> list[dict]:
    """Each fitted term: the fit's value, the one in decode_params.py, and its sensitivity."""
    fitted, sens = fit(), sensitivity(terms)
    return [
        {
            "term": label,
            "fitted": getattr(fitted, name),
            "used": getattr(terms, name),
            "largest_move_pct": round(sens[name], 1),
        }
        for name, label in Dm.TERM_NAMES.items()
    ]


def answer() -> dict:
    """GET /api/v1/calibration and the page's calibration panel: every section's rows, the
    fitted terms with their sensitivity, and how to read them (a fresh dict each call)."""
    return json.loads(_answer_json())


@lru_cache(maxsize=1)
def _answer_json() -> str:
    return json.dumps(
        {
            "sections": sections(),
            "fitted_terms": fitted_terms(),
            "step_shares": term_shares(),
            "reading": (
                "fitted rows set the one residual (the rest of the step is measured, so they are "
                "not matched by construction); the others are checks the fit never saw, each "
                "with its error; a check beyond 25% carries the reason in its note. "
                "step_shares: each part's share of the GB200 NVL72 step at 20, 50, 100 and 150 "
                "tok/s/user, the residual among them. Sensitivity: the residual moved 10% down "
                "and up, the largest move of any fitted point."
            ),
            "source": "docs/CALIBRATION.md; python -m model.workloads.calibrate",
        }
    )


# --- DeepSeek's production fabric (h800-ib): its published figures, checks only -------------
# [M] "DeepSeek-V3/R1 Inference System Overview" (open-source week day 6, 2025-03-01): per
# H800 node, 73.7k input tokens/s in prefill (including cache hits; 56.3% of input tokens hit
# the on-disk KV cache) and 14.8k output tokens/s in decode, at 20-22 tokens/s per user.
DEEPSEEK_NODE_PREFILL, DEEPSEEK_NODE_DECODE = 73_700, 14_800
DEEPSEEK_CACHE_HIT = 0.563
GPUS_PER_H800_NODE = 8


def _prefill_bound_per_gpu() -> float:
    """Prefill tokens a GPU computes per second if compute-bound at DeepGEMM's efficiency: the
    active weights' FLOPs (2 a parameter) and causal attention over half the prompt on
    average (DEEPSEEK_ISL [A]); communication hidden behind two micro-batches [A]. An upper
    bound: no launch gaps, load imbalance or MLA's own efficiency."""
    m = DEEPSEEK_R1
    flops = 2 * m.active_params + m.layers * m.attn_flops_per_ctx_token * DEEPSEEK_ISL / 2
    return H800.peak_flops("fp8") * D.ETA_GEMM / flops


def deepseek_production_points() -> list[dict]:
    """DeepSeek's published production figures per H800 node against the model (checks,
    never fitted): decode at its context (the decode table's DeepSeek row, per node), decode
    as the h800-ib scenario answers at 21 tokens/s per user (1k/1k), and prefill's bound."""
    ds = _deepseek_point(Dm.FITTED)
    node_ds = ds["model"] * GPUS_PER_H800_NODE
    s = parse_query(f"fabric=h800-ib&at={DEEPSEEK_TOK_S_USER:g}").scenario
    sc = throughput.island_decode(s)
    node_sc = float(sc["tokens_per_s_per_gpu"]) * GPUS_PER_H800_NODE
    pre = _prefill_bound_per_gpu() * GPUS_PER_H800_NODE / (1 - DEEPSEEK_CACHE_HIT)
    rows = [
        ("decode at DeepSeek's context (mean KV 4,989)", DEEPSEEK_NODE_DECODE, node_ds, ds["note"]),
        (
            f"decode, h800-ib scenario at {DEEPSEEK_TOK_S_USER:g} tok/s/user (1k/1k)",
            DEEPSEEK_NODE_DECODE,
            node_sc,
            f"{sc['deployment']['label']}; shorter contexts than DeepSeek's, so above it",
        ),
        (
            "prefill, input tokens incl. cache hits (compute bound)",
            DEEPSEEK_NODE_PREFILL,
            pre,
            (
                "an upper bound, not a prefill model: every GPU at DeepGEMM's FP8 efficiency "
                f"on the active weights and causal attention over a {DEEPSEEK_ISL:,}-token "
                f"prompt [A], the {DEEPSEEK_CACHE_HIT:.1%} cache hits added back"
            ),
        ),
    ]
    return [
        {
            "point": f"DeepSeek production (H800 node), {name}",
            "published": pub,
            "unit": "tok/s per H800 node",
            "model": round(model),
            "error_pct": round(err_pct(model, pub), 1),
            "fitted": False,
            "note": note,
        }
        for name, pub, model, note in rows
    ]


def sections() -> dict[str, list[dict]]:
    """Every published point the model uses, fitted or check, by section (the page's table)."""
    return (
        calibration_rows()
        | {"MoE decode (DeepSeek-R1 FP4 1k/1k unless named)": table()}
        | {"DeepSeek's production fabric (h800-ib), checks": deepseek_production_points()}
    )
