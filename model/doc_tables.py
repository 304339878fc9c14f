"""The writers of docs/*.md's generated regions (model/docs.py): each a pure function that
writes one table or sentence of a document from the model, so a doc quotes no number the
model does not produce (issue 29)."""

from __future__ import annotations

import numpy as np

from model import evaluate, telemetry
from model.assess import assess
from model.multirack.domains import DOMAINS
from model.query import parse_query
from model.reliability import goodput as G
from model.reliability.accounting import visit_wait_h
from model.reliability.against import against
from model.reliability.history import history
from model.reliability.rates import DEFAULT_RATES, FAILURE_RATE_FIELDS, HOURS_PER_YEAR, Rates
from model.reliability.site import site_of
from model.scenario import Scenario
from model.telemetry import fields
from model.workloads import checks, comm
from model.workloads import decode as Dm
from model.workloads import decode_params as D
from model.workloads.comm import markdown_table
from model.workloads.decode import Terms
from model.workloads.models import MOE_MODELS
from model.workloads.throughput import DECODE, frontiers
from model.workloads.versus import ratio_along

MC_RACK_YEARS = 2_000  # the Monte Carlo column's sample, rack-years (DEFAULT_SAMPLE_RACK_YEARS)
SCALES = ((1, False), (16, False), (128, False), (2_000, False), (16, True), (128, True))
SCALES += ((2_000, True),)
JOB_RACKS_16K = 228  # 16,416 GPUs for the published 16,384-GPU jobs (to 0.2%)
OPTICAL = {"link_end_per_h": 3.9e-7, "cable_per_h": 0.0}  # GOODPUT.md's optical case


def _pct(x: float, d: int = 3) -> str:
    return f"{100 * x:.{d}f}%"


def results_table() -> str:
    """GOODPUT.md's results: every comparison row by both methods, and the default's badput."""
    cf = G.comparison()
    mc = G.comparison(method="monte-carlo", racks=MC_RACK_YEARS)
    lines = [
        (
            f"| row | closed form | MC, {MC_RACK_YEARS:,} rack-years | change vs VR (pp) | "
            "rack-down visits a year |"
        ),
        "|---|---|---|---|---|",
    ]
    for a, b in zip(cf, mc, strict=True):
        lines.append(
            f"| {a['label']} | {_pct(a['fraction'])} | {_pct(b['fraction'])} | "
            f"{100 * a['change_vs_vr_all']:+.3f} | {a['rack_down_visits_per_year']:.2f} |"
        )
    gap = max(abs(a["fraction"] - b["fraction"]) for a, b in zip(cf, mc, strict=True))
    h = cf[0]["badput_hours_per_rack_year"]
    parts = ", ".join(
        f"{v:.1f} h {k.replace('_', ' ')}" for k, v in sorted(h.items(), key=lambda x: -x[1]) if v
    )
    return (
        "\n".join(lines)
        + f"\n\nThe largest gap between the Monte Carlo and the closed form is {100 * gap:.3f} "
        f"pp. Badput on the default rack: {sum(h.values()):.1f} h a rack-year: {parts} "
        f"({cf[0]['rack_down_visits_per_year']:.2f} rack-down visits a year)."
    )


def scales_table() -> str:
    """GOODPUT.md's goodput of the default job at 1 to 2,000 racks, with and without spares."""
    cols = [G.comparison(job_racks=r, spares=sp) for r, sp in SCALES]
    head = [f"{r:,} rack{'s' * (r > 1)}" + (", spares" if sp else "") for r, sp in SCALES]
    lines = ["| configuration | " + " | ".join(head) + " |", "|---|" + "---|" * len(SCALES)]
    for i, row in enumerate(cols[0]):
        cells = " | ".join(_pct(c[i]["fraction"], 2) for c in cols)
        lines.append(f"| {row['label']} | {cells} |")
    return "\n".join(lines)


def _policy_line(label: str, s: Scenario, rates: Rates = DEFAULT_RATES) -> str:
    b = G.best_policy(s, rates)
    now = b["tried"][0]
    best = next(x for x in b["tried"] if x["policy"] == b["best"])
    visits = f"rack-down visits {now['rack_down_visits_per_year']:.2f} -> "
    visits += f"{best['rack_down_visits_per_year']:.2f} a year"
    gain = f"+{100 * b['gain_vs_now']:.3f} pp over repairing at once"
    return f"- {label}: best `{b['best']}`, {gain} ({visits}): {b['why']}."


def optimiser_lines() -> str:
    """GOODPUT.md's optimiser answers: the default rack, the optical link rate, training, GB200."""
    vr = parse_query("").scenario
    return "\n".join(
        (
            _policy_line("Default vr-nvl72 deepseek-r1 rack", vr),
            _policy_line(
                "The same with the optical link rate (`link_end_per_h=3.9e-7&cable_per_h=0`)",
                vr,
                DEFAULT_RATES.with_overrides(**OPTICAL),
            ),
            _policy_line("`workload=train`", parse_query("workload=train").scenario),
            _policy_line("gb200-nvl72", parse_query("fabric=gb200-nvl72").scenario),
        )
    )


def _gpu_only(per_job_h: float, restart_s: float, write_s: float, detect_s: float) -> Rates:
    """GPU failures alone, at a job rate per_job_h over the 16k-GPU job (the published cases)."""
    zero = {k: 0.0 for k in FAILURE_RATE_FIELDS}
    zero["gpu_per_h"] = per_job_h / (JOB_RACKS_16K * 72)
    return DEFAULT_RATES.with_overrides(
        **zero,
        updates_per_year=0.0,
        restart_s=restart_s,
        detect_other_s=detect_s,
        checkpoint_write_s=write_s,
    )


def _case(label: str, published: str, rates: Rates, tau_s: float | None) -> str:
    vr = parse_query("").scenario
    kw: dict = {"job_racks": JOB_RACKS_16K, "spares": True}
    if tau_s is not None:
        kw["checkpoint_interval_s"] = tau_s
    cf = G.closed_form(vr, rates, **kw)
    mc = G.monte_carlo(
        vr, rates, racks=G.default_sample_racks(1.0, JOB_RACKS_16K), key="scale", **kw
    )
    tau = (
        ""
        if tau_s is not None
        else f" (Daly's optimum, {cf['checkpoint_interval_s'] / 60:.1f} min)"
    )
    return f"| {label}{tau} | {published} | {cf['fraction']:.3f} | {mc['fraction']:.3f} |"


def jobs_table() -> str:
    """GOODPUT.md's published large jobs through the job-scale path, from their rates alone."""
    meta = 2_048 * 6.5e-3 / 24.0 * JOB_RACKS_16K * 72 / 16_384  # per hour, the 16k job
    llama = 60.0 / 185.6
    detect = DEFAULT_RATES.detect_other_s
    rows = [
        "| case | published | closed form | Monte Carlo |",
        "|---|---|---|---|",
        _case(
            "Meta RSC-1 16k job, 6.5 failures / 1,000 node-days, u0 5 min, 60-min checkpoints",
            "0.70",
            _gpu_only(meta, 300.0, 0.01, 0.0),
            3600.0,
        ),
        _case("the same, 5-min checkpoints", "0.93", _gpu_only(meta, 300.0, 0.01, 0.0), 300.0),
        _case(
            "Llama 3 405B: MTBF 185.6 min, 10-min restarts, 10 s writes, detection 0",
            "0.908 (Daly exact)",
            _gpu_only(llama, 600.0, 10.0, 0.0),
            None,
        ),
        _case(
            f"the same with the twin's default detection ({detect / 60:.0f} min)",
            "none",
            _gpu_only(llama, 600.0, 10.0, detect),
            None,
        ),
    ]
    return "\n".join(rows)


# GOODPUT.md's failure rates: what fails, its Rates field, what of a Site it counts (times).
_RATE_ROWS = (
    ("cable", "cable_per_h", "cables", 1),
    ("connector or link end", "link_end_per_h", "links", 2),
    ("switch chip", "switch_chip_per_h", "chips", 1),
    ("switch tray (PSU, board)", "switch_tray_per_h", "trays", 1),
    ("management controller", "controller_per_h", "trays", 1),
    ("GPU", "gpu_per_h", "gpus", 1),
    ("compute tray (host parts)", "compute_tray_per_h", "compute_trays", 1),
    ("software", "software_per_gpu_h", "gpus", 1),
)


def rates_table() -> str:
    """GOODPUT.md's failure rates: each default, how many of it a rack has, faults a year."""
    sites = [site_of(parse_query(f"fabric={k}").scenario) for k in ("vr-nvl72", "gb200-nvl72")]
    lines = [
        "| what fails | rate | default, per hour | count VR / GB200 | per rack-year VR / GB200 |",
        "|---|---|---|---|---|",
    ]
    for label, name, attr, times in _RATE_ROWS:
        rate = getattr(DEFAULT_RATES, name)
        n = [getattr(x, attr) * times for x in sites]
        year = [rate * k * HOURS_PER_YEAR for k in n]
        lines.append(
            f"| {label} | `{name}` | {rate:.3g} | {n[0]:,} / {n[1]:,} | "
            f"{year[0]:.2f} / {year[1]:.2f} |"
        )
    return "\n".join(lines)


def mttf_sentence() -> str:
    """GOODPUT.md's 2,000-rack job with spares: how often it restarts, and its goodput."""
    r = G.closed_form(parse_query("").scenario, job_racks=2_000, spares=True)
    return (
        f"With spares the 2,000-rack job (144,000 GPUs) restarts every "
        f"{r['mtbf_hours'] * 60:.0f} minutes on average ({r['interruptions_per_job_year']:,.0f} "
        f"interruptions a job-year), which holds its goodput at {_pct(r['fraction'], 1)}."
    )


WAIT_POLICIES = ("window-30", "dark-5", "bw-95", "bw-90")  # GOODPUT.md's examples


def waits_table() -> str:
    """GOODPUT.md's mean wait of a deferred part (the timeline's, Little's law) and how often
    the default rack loses its leader (what the routing fallback acts in)."""
    lines = ["| `repair=` on vr-nvl72 | a deferred part waits, days (mean) |", "|---|---|"]
    for p in WAIT_POLICIES:
        wait = visit_wait_h(parse_query(f"repair={p}").scenario, DEFAULT_RATES) / 24.0
        lines.append(f"| `{p}` | {wait:.0f} |")
    r = G.closed_form(parse_query("").scenario)
    lost = _kind_rate(r, "leader ")
    return "\n".join(lines) + f"\n\nThe default rack loses its leader {lost:.2f} times a year."


FORECAST_LINKS = tuple(f"gpu{g:02d}-st{g % 9 + 1}.sw{g % 4}" for g in range(0, 72, 3))


def forecast_table() -> str:
    """TELEMETRY.md's forecast measured on 24 degrading links (tests/model/telemetry's set),
    read one and two days before they fail; and the degrading link's recovery ramp."""
    s = parse_query("flaky=" + ",".join(FORECAST_LINKS)).scenario
    lines = [
        "| read before the failure | median forecast, h | 10th-90th percentile, h |",
        "|---|---|---|",
    ]
    for days in (1, 2):
        t = telemetry.FLAKY_TTF_S - days * 86400.0
        est = sorted(telemetry.forecast(s, x, t).time_to_failure_s / 3600 for x in FORECAST_LINKS)
        p10, p50, p90 = (float(np.percentile(est, q)) for q in (10, 50, 90))
        lines.append(f"| {24 * days} h | {p50:.1f} | {p10:.0f}-{p90:.0f} |")
    by = fields.flaky_recoveries_by
    ttf, per21 = fields.FLAKY_TTF_S, 21 * 60.0
    last_day = (by(ttf) - by(ttf - 86400.0)) / (86400.0 / per21)
    flat = fields.FLAKY_RECOVERY_PER_S * ttf
    return "\n".join(lines) + (
        f"\n\nThe ramp: k = {fields.FLAKY_RAMP_K:.3f} [D], {by(ttf):.0f} recoveries at the "
        f"failure (a constant rate would have made {flat:,.0f}), {last_day:.1f} per 21 minutes "
        "over the last day."
    )


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


def _kind_rate(r: dict, prefix: str) -> float:
    """Faults a year of every event kind whose name starts with `prefix` (flagged ones too)."""
    return sum(k["per_rack_year"] for k in r["kinds"] if k["kind"].startswith(prefix))


def domain_figures() -> str:
    """GOODPUT.md's domain against one rack and sixteen racks on scale-out: the numbers its
    'why the sizes are what they are' reads (closed form, all seven features, repair at once)."""
    cols = (
        ("one vr-nvl72 rack", G.closed_form(parse_query("").scenario)),
        ("16 vr-nvl72 racks, scale-out", G.closed_form(parse_query("").scenario, job_racks=16)),
        ("vr-nvl1152", G.closed_form(parse_query("fabric=vr-nvl1152").scenario)),
    )
    rows = (
        ("goodput", lambda r: _pct(r["fraction"], 1)),
        ("badput, h a year", lambda r: f"{sum(r['badput_hours_per_rack_year'].values()):.0f}"),
        (
            "of it rack-down waits, h",
            lambda r: f"{r['badput_hours_per_rack_year']['repair_wait']:.0f}",
        ),
        (
            "of it running degraded, h",
            lambda r: f"{r['badput_hours_per_rack_year']['degraded']:.0f}",
        ),
        ("rack-down visits a year", lambda r: f"{r['rack_down_visits_per_year']:.0f}"),
        ("GPU faults a year", lambda r: f"{_kind_rate(r, 'gpu'):.0f}"),
        ("trunk link faults a year", lambda r: f"{_kind_rate(r, 'trunk link'):.0f}"),
    )
    lines = [
        "| per year of the job | " + " | ".join(t for t, _ in cols) + " |",
        "|---|---|---|---|",
    ]
    for label, cell in rows:
        lines.append(f"| {label} | " + " | ".join(cell(r) for _, r in cols) + " |")
    return "\n".join(lines)


def links_sentence() -> str:
    """MODEL.md's 'what drives the numbers': link faults, rack-down hours, GB200 beside VR."""
    out = []
    for key in ("vr-nvl72", "gb200-nvl72"):
        r = G.closed_form(parse_query(f"fabric={key}").scenario)
        h = r["badput_hours_per_rack_year"]
        out.append(
            f"{key}: {r['rack_down_visits_per_year']:.2f} rack-down visits a year (cartridge "
            f"swaps, and tray swaps without hot-swap), {h['repair_wait']:.1f} h of "
            f"rack-down waits of {sum(h.values()):.1f} badput hours a rack-year, goodput "
            f"{_pct(r['fraction'])}"
        )
    return "At the default rates: " + "; ".join(out) + "."


def optical_sentence() -> str:
    """GOODPUT.md's optical case: each NVLink rack at the default and the optical link rate."""
    opt = DEFAULT_RATES.with_overrides(**OPTICAL)
    parts = []
    for key in ("vr-nvl72", "gb200-nvl72"):
        s = parse_query(f"fabric={key}").scenario
        a, b = G.closed_form(s), G.closed_form(s, opt)
        wa, wb = a["badput_hours_per_rack_year"], b["badput_hours_per_rack_year"]
        parts.append(
            f"{key} goes from {_pct(a['fraction'])} to {_pct(b['fraction'])} (rack-down waits "
            f"{wa['repair_wait']:.1f} -> {wb['repair_wait']:.1f} h a rack-year)"
        )
    return "With `link_end_per_h=3.9e-7&cable_per_h=0`: " + "; ".join(parts) + "."


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


# --- one history (model/reliability/history.py) -----------------------------------------------
# docs/GOODPUT.md's histories: a year, seed 1, at these job sizes (racks, spares).
DOC_JOBS = ((16, False), (2_000, True))
DOC_AGAINST = "off=reroute"
DOC_MEAN_SEEDS = 200  # the check: 200 histories of 16 racks against the closed form


def history_markdown() -> str:
    """One year's history at DOC_JOBS against reroute off on the same failures, and the mean
    of DOC_MEAN_SEEDS histories of 16 racks against the closed form (docs/GOODPUT.md)."""
    s = parse_query("").scenario
    other = parse_query(DOC_AGAINST).scenario
    lines = [
        (
            "| job, seed 1, 365 days | goodput | restarts (aborts) | link faults (stopped the "
            "job) | $ lost | the same failures, reroute off: goodput | restarts (aborts) | $ lost |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for racks, spares in DOC_JOBS:
        r = against(s, other, racks=racks, days=365, seed=1, spares=spares)
        cells = []
        for h in (r["history"], r["against"]):
            se, ls = h["series"], h["link_stops"]
            cells.append(
                f"{100 * h['fraction']:.2f}% | {se['restarts'][-1]:,} ({se['aborts'][-1]:,})"
                + (f" | {ls['link_faults']:,} ({ls['stopped_the_job']:,})" if not cells else "")
                + f" | ${se['money_lost'][-1] / 1e6:,.1f} M"
            )
        label = f"{racks:,} racks" + (", spares" if spares else "")
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    mean = float(
        np.mean([history(s, racks=16, days=365, seed=k)["fraction"] for k in range(DOC_MEAN_SEEDS)])
    )
    cf = G.closed_form(s, years=365 * 24 / HOURS_PER_YEAR, job_racks=16)["fraction"]
    return "\n".join(lines) + (
        f"\n\nThe mean of {DOC_MEAN_SEEDS} such histories of 16 racks (seeds 0 to "
        f"{DOC_MEAN_SEEDS - 1}): {100 * mean:.3f}% against the closed form's {100 * cf:.3f}% "
        f"({100 * (mean - cf):+.3f} pp)."
    )
