"""The writers of docs/*.md's generated regions on decode, collectives and multi-rack domains
(model/docs.py): MODEL.md's decode step, CALIBRATION.md's decode, exposed, islands and ratio
regions, and MULTIRACK.md's worked examples. Each is a pure function of the model, so a doc
quotes no number the model does not produce (issue 29). The goodput and telemetry regions'
writers are model/doc_tables.py's."""

from __future__ import annotations

import numpy as np

from model import evaluate
from model.assess import assess
from model.multirack.domains import DOMAINS
from model.query import parse_query
from model.workloads import checks, comm
from model.workloads import decode as Dm
from model.workloads import decode_params as D
from model.workloads.comm import markdown_table
from model.workloads.decode import Terms
from model.workloads.models import MOE_MODELS
from model.workloads.throughput import DECODE, frontiers
from model.workloads.versus import ratio_along

GIB = 1 << 30


def _plane5(fabric: str) -> str:
    """A domain with every L2 chip of plane 5 lost."""
    n = DOMAINS[fabric].l2_per_plane
    return f"fabric={fabric}&fail=" + ",".join(f"l2.p05.s{k}" for k in range(n))


def _collective(q: str, op: str, ranks: int) -> float:
    a = assess(parse_query(q).scenario)
    return comm.answer(a, {"op": op, "bytes": GIB, "ranks": ranks})["time_us"]


def domain_examples() -> str:
    """MULTIRACK.md's worked examples: SHARP, p99 latency and two 1 GiB collectives on a
    domain, healthy and with L2 chips lost (evaluate and /api/v1/collectives' answers)."""

    def ev(q: str) -> dict:
        return evaluate(parse_query(q).scenario)

    three = "fabric=vr-nvl576&fail=" + ",".join(
        f"l2.p{p:02d}.s{k}" for p in range(DOMAINS["vr-nvl576"].planes) for k in (1, 2, 3)
    )
    rows = [
        (
            "vr-nvl576, plane 5's L2 chips lost: in-network compute, TFLOPS",
            ev("fabric=vr-nvl576")["sharp_tflops"],
            ev(_plane5("vr-nvl576"))["sharp_tflops"],
            ".1f",
        ),
    ]
    for f in ("vr-nvl576", "vr-nvl1152"):
        rows.append(
            (
                f"{f}, plane 5's L2 chips lost: p99 latency, us",
                ev(f"fabric={f}")["latency_us"]["p99"],
                ev(_plane5(f))["latency_us"]["p99"],
                ".3f",
            )
        )
    for ranks in (144, 72):
        rows.append(
            (
                f"vr-nvl1152, plane 5's L2 chips lost: 1 GiB all-reduce, {ranks} ranks, us",
                _collective("fabric=vr-nvl1152", "all_reduce", ranks),
                _collective(_plane5("vr-nvl1152"), "all_reduce", ranks),
                ",.0f",
            )
        )
    for ranks in (576, 72):
        rows.append(
            (
                f"vr-nvl576, 3 of 4 L2 chips of every plane lost: 1 GiB all-to-all, {ranks} ranks, us",
                _collective("fabric=vr-nvl576", "all_to_all", ranks),
                _collective(three, "all_to_all", ranks),
                ",.0f",
            )
        )
    lines = ["| example | healthy | with the fault | change |", "|---|---|---|---|"]
    for label, a, b, fmt in rows:
        lines.append(f"| {label} | {a:{fmt}} | {b:{fmt}} | {100 * (b / a - 1):+.1f}% |")
    return "\n".join(lines)


def _decode_at(q: str, x: float) -> tuple[float, str]:
    """The scenario's decode frontier at interactivity x: tokens/s per GPU and deployment."""
    s = parse_query(q).scenario
    fr = DECODE[s.kind].frontiers(s)[0]["scenario"]
    i = int(np.argmin(np.abs(fr.x - x)))
    dep = fr.deployment_at(i)
    return float(fr.tokens_per_s_per_gpu[i]), dep.label() if dep else "does not run"


ISLAND_ROWS = (
    ("b200-roce healthy", "fabric=b200-roce"),
    ("`fail=node03` (8 GPUs)", "fabric=b200-roce&fail=node03"),
    ("`fail=node03.sw1` (half of one node's NVLink)", "fabric=b200-roce&fail=node03.sw1"),
    ("`fail=gpu17.nic`", "fabric=b200-roce&fail=gpu17.nic"),
    ("`fail=leaf`", "fabric=b200-roce&fail=leaf"),
    ("gb200-nvl72 healthy", "fabric=gb200-nvl72"),
    ("gb200-nvl72 `fail=ct03` (4 GPUs)", "fabric=gb200-nvl72&fail=ct03"),
)


def islands_table() -> str:
    """CALIBRATION.md's b200-roce table: DeepSeek-R1 tokens/s per GPU at 50, 125 and 200
    tokens/s per user, and the deployment at 125, for the HGX cluster and GB200 NVL72."""
    out = ["| scenario | 50 | 125 | 200 | deployment at 125 |", "|---|---|---|---|---|"]
    for label, q in ISLAND_ROWS:
        at = [_decode_at(q + "&workload=deepseek-r1", x) for x in (50.0, 125.0, 200.0)]
        cells = " | ".join(f"{v:,.0f}" if np.isfinite(v) else "-" for v, _ in at)
        out.append(f"| {label} | {cells} | {at[1][1]} |")
    return "\n".join(out)


def exposed_sentence() -> str:
    """CALIBRATION.md's 'a fault costs what is exposed': the held step at the reference for one
    and four lost trays on vr-nvl72, and the re-chosen deployment's delivery."""
    out = []
    for q, what in (("fail=st3", "losing st3"), ("fail=st1,st2,st3,st4", "losing four trays")):
        d = evaluate(parse_query(q).scenario)["decode"]
        h = d["held"]
        out.append(
            f"{what} moves the exposed communication of the healthy deployment "
            f"({h['deployment']}) from {h['exposed_us_healthy'] / 1000:.3f} to "
            f"{h['exposed_us_now'] / 1000:.3f} ms a step ({100 * h['lost']:.2f}% fewer tokens/s "
            f"held), and the re-chosen deployment ({d['deployment']['label']}) delivers "
            f"{100 * d['vs_healthy']:.1f}% of the healthy rack"
        )
    ref = evaluate(parse_query("").scenario)["decode"]["tokens_per_s_per_user"]
    return f"On vr-nvl72 at {ref:g} tokens/s per user, " + "; ".join(out) + "."


def ratio_sentence() -> str:
    """CALIBRATION.md's NVLink 6 against eth-x72: the ratio's range over 20-200 tokens/s per
    user for each MoE workload, and its largest step between neighbouring points."""
    parts, steps = [], []
    for w in sorted(MOE_MODELS):
        fs = frontiers(assess(parse_query(f"workload={w}").scenario))
        r = ratio_along(fs["scenario"], fs["baseline"])
        parts.append(f"{r['range']['min']:.2f}-{r['range']['max']:.2f}x for {w}")
        steps.append(r["max_step"])
    return (
        "Over 20-200 tokens/s per user the ratio is "
        + ", ".join(parts)
        + f"; its largest step between points 2 tokens/s per user apart is {max(steps):.3f}x."
    )


# --- the decode calibration (model/workloads/checks.py) ---------------------------------------
def shares_markdown(terms: Terms = Dm.FITTED) -> str:
    """The share table of docs/CALIBRATION.md: each part of the step at SHARE_POINTS."""
    keys = Dm.BREAKDOWN_KEYS
    out = [
        "| tok/s/user | deployment | step (µs) | " + " | ".join(keys) + " |",
        "|---|---|---|" + "---|" * len(keys),
    ]
    for r in checks.term_shares(terms):
        cells = " | ".join(f"{100 * r['parts'][k]:.1f}%" for k in keys)
        out.append(
            f"| {r['tokens_per_s_per_user']:g} | {r['deployment']} | {r['step_us']:,.0f} | {cells} |"
        )
    return "\n".join(out)


def step_markdown(terms: Terms = Dm.FITTED) -> str:
    """docs/MODEL.md's decode region: the step's parts, the measured values, the residual and
    each part's share on the GB200 NVL72 frontier (all from the model)."""
    k = Dm.measured()
    rates = (
        f"- attention-core rate {k.eta_attn:.3f} of BF16 peak, GEMM rate {k.eta_gemm:.3f} of "
        f"FP8 peak, a layer's time over its kernels {k.layer_gap:.3f}, outside the layers "
        f"{k.outside_us_per_token:.3g} us a token on H800: all from DeepSeek's decode profile "
        "[M] (decode_params.PROFILE_*)."
    )
    others = (
        f"- HBM efficiency {D.ETA_HBM:.3f} (FlashMLA [M]); the busiest attention rank holds the "
        "Poisson scatter of requests [D]; dispatch and combine from moe_a2a [M]."
    )
    residual = (
        f"- the one fitted residual: {terms.residual_us:g} us a step, fitted on the five named "
        "GB200 NVL72 InferenceX rows (docs/CALIBRATION.md)."
    )
    lines = [
        "    step = 58 x MoE layer + 3 x dense layer + head + MTP drafting + exposed all-to-all",
        "           + outside the layers + residual",
        "    layer = its kernels x (a layer's time over its kernels), every kernel",
        "            max(FLOPs / (peak x rate), HBM bytes / (HBM x eta_hbm))",
        "",
        rates,
        others,
        residual,
        "",
        shares_markdown(terms),
    ]
    return "\n".join(lines)


def decode_markdown(terms: Terms = Dm.FITTED) -> str:
    """The decode tables of docs/CALIBRATION.md."""
    out = [
        "#### The fitted term",
        "",
        "| term | fitted | in decode_params.py | largest move of a fitted point, term -10% / +10% |",
        "|---|---|---|---|",
    ]
    for r in checks.fitted_terms(terms):
        out.append(
            f"| {r['term']} | {r['fitted']:g} | {r['used']:g} | {r['largest_move_pct']:.1f}% |"
        )
    out += [
        "",
        "#### Each part's share of the GB200 NVL72 step (healthy frontier; residual = the fit)",
        "",
        shares_markdown(terms),
        "",
        "#### Decode: model against published",
        "",
        markdown_table(checks.table(terms)),
        "",
        "#### DeepSeek's production fabric (h800-ib), checks",
        "",
        markdown_table(checks.deepseek_production_points()),
    ]
    return "\n".join(out)
