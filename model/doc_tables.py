"""The writers of docs/*.md's generated regions (model/docs.py): each a pure function that
writes one table or sentence of a document from the model, so a doc quotes no number the
model does not produce (issue 29)."""

from __future__ import annotations

import numpy as np

from model import telemetry
from model.query import parse_query
from model.reliability import goodput as G
from model.reliability.accounting import visit_wait_h
from model.reliability.against import against
from model.reliability.history import history
from model.reliability.rates import DEFAULT_RATES, FAILURE_RATE_FIELDS, HOURS_PER_YEAR, Rates
from model.reliability.site import site_of
from model.scenario import Scenario
from model.telemetry import fields

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
