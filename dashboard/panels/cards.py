"""The headline panel: the scenario's name, the cards, what happened, the readers' questions
and the counts, from the model's result; pure builders and the one callback that fills them.

This callback answers first after a click (the numbers a click is for, ~0.15 s); the rack's
request goes beside it (panels/rack.py) and the charts below the first screen start from its
READY output. Every value is plain text: nothing from the URL
is ever rendered as HTML (assets/summary.js writes the static part as text nodes).
"""

from __future__ import annotations

from typing import Any

from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html

from dashboard import ids, state
from dashboard.infra import results
from dashboard.panels import faults
from dashboard.panels.common import changes, mark_was, static_html
from dashboard.panels.questions import answers
from model import words
from model.kinds import JobState
from model.registry import kind_of
from model.workloads import words as decode_words


def card(title: str, value: str, note: str, tone: str = "") -> html.Div:
    """One headline figure with its unit and where it comes from."""
    return html.Div(
        className=f"card {tone}".strip(),
        children=[
            html.Div(title, className="card-title"),
            html.Div(value, className="card-value"),
            html.Div(note, className="card-note"),
        ],
    )


def cards(r: dict) -> list[html.Div]:
    """Headline cards for one evaluate() result (a rack's, or a multi-rack domain's: the
    same blocks, the domain's bandwidth so named)."""
    bw = r["bandwidth"]
    pg = bw["per_gpu_tbs"]
    lat = r["latency_us"]
    job = r["job"]
    part = r["partition"]
    tone = {"running": "ok"}.get(job["state"], "warn" if job["runs"] else "bad")
    tbs = words.decimal
    # the job's collectives run on the GPUs in service: parked ones (full-bandwidth mode parks
    # a GPU short of links) are out of them, and said apart
    worst, parked = pg["in_service_min"], pg["parked"]
    value_min, value_agg, note = f"{tbs(worst)} TB/s", f"{tbs(bw['aggregate_tbs'])} TB/s", ""
    aside = (
        f" {parked} parked {'GPU keeps' if parked == 1 else 'GPUs keep'} {tbs(pg['min'])} TB/s,"
        " out of service."
        if parked and pg["min"] < worst
        else ""
    )
    if not job["runs"]:
        # the fabric's bandwidth is there, but a job that is not running gets none of it: the
        # headline is the job's (issue 28), the fabric's is in the note
        value_min = value_agg = "0 TB/s"
        note = (
            f" The job is {job['state']} and restarts {job['restart']}: until then it gets"
            " none of the fabric's"
        )
    elif not JobState(job["state"]).runs:  # aborted, and restarted at once on what remains
        note = f" The job restarts {job['restart']}: this is what it gets then."
    idle = not job["runs"]
    return [
        card(
            "Worst GPU bandwidth",
            value_min,
            f"of {tbs(pg['healthy'])} TB/s bidirectional; collectives run at the slowest GPU's"
            " pace." + (f"{note} {tbs(pg['min'])} TB/s." if idle else note + aside),
            "bad" if idle else "warn" if pg["min"] < pg["healthy"] else "ok",
        ),
        card(
            "Domain bandwidth" if r.get("domain") else "Rack bandwidth",
            value_agg,
            f"of {tbs(bw['aggregate_healthy_tbs'])} TB/s; all-to-all "
            f"{tbs(bw['all_to_all_tbs'])} TB/s."
            + (f"{note} {tbs(bw['aggregate_tbs'])} TB/s." if idle else note),
            "bad" if idle else "",
        ),
        sharp_card(r),
        card(
            "Latency p50 / p99",
            _latency_text(lat),
            lat.get("unstable")
            or f"one way, {lat['message_bytes']:,} B message at {lat['offered_load']:.0%} load [A]",
            "bad" if lat.get("unstable_share") else "",
        ),
        card(
            part["title"],
            part["headline"],
            part["note"],
            part["severity"],
        ),
        job_card(job, tone),
        control_card(r),
        # each block as the model answers it; one it does not answer (yet, on a multi-rack
        # domain: None) has no card, and domain_cards says so
        *([decode_card(r["decode"], r["fabric"])] if r.get("decode") else []),
        *([training_card(r["training"])] if r.get("training") else []),
        *([goodput_card(r["goodput"])] if r.get("goodput") else []),
        *([attribution_card(r["telemetry"], r["fabric"])] if r.get("telemetry") else []),
    ]


def job_card(job: dict, tone: str) -> html.Div:
    """The job's one state (the model's headline), why, and when it starts again."""
    if JobState(job["state"]).runs:
        return card("Job", job["headline"], job["cause"], tone)
    when = "it restarted from its checkpoint" if job["runs"] else "it restarts"
    return card("Job", job["headline"], f"{job['cause']}; {when} {job['restart']}", tone)


def sharp_card(r: dict) -> html.Div:
    """In-network compute in the fabric's words: SHARP's TFLOPS on NVLink, none on Ethernet
    (the model's fabric block says what its switches reduce)."""
    if not r["sharp_healthy_tflops"]:
        return card("In-network compute", "none", r["fabric"]["in_network"])
    return card(
        "In-network compute",
        f"{words.decimal(r['sharp_tflops'])} TFLOPS",
        f"of {words.decimal(r['sharp_healthy_tflops'])} TFLOPS; {r['fabric']['in_network']}",
    )


def control_card(r: dict) -> html.Div:
    """The control plane as the model words it: NVLink's fabric manager has a leader;
    Ethernet has none, every switch routing for itself (FACTS.md §2, [A])."""
    cp = r["control_plane"]
    quiet = cp["state"] == "healthy" or (
        cp["state"] == "distributed" and not cp["controllers_down"]
    )
    return card("Control plane", cp["state"], cp["explanation"], "ok" if quiet else "warn")


def decode_card(d: dict, fabric: dict) -> html.Div:
    """Decode throughput at the reference interactivity: against the healthy rack, against the
    same GPU on the other fabric (like for like), the deployment chosen and the exposed share."""
    if not d["running"]:
        return card("MoE decode", "0 tokens/s per GPU", d["note"], "bad")
    val = f"{d['tokens_per_s_per_gpu']:,.0f} tokens/s per GPU"
    versus = f"{d['vs_baseline']:.2f}x {d['baseline']} ({d['baseline_why']})"
    note = (
        f"{d['model']} at {d['tokens_per_s_per_user']:g} tokens/s per user [A] on "
        f"{d['deployment']['label']}{decode_words.idle_clause(d['idle_gpus'], d['gpus_in_service'], ' (', ')')}: "
        f"{d['vs_healthy']:.1%} of the healthy rack, {versus}; "
        f"{d['exposed_share']:.1%} of the step is exposed communication; worst along the "
        f"curve {d['vs_healthy_worst']:.1%}"
    )
    return card("MoE decode", val, note, "ok" if d["vs_healthy"] >= 0.999 else "warn")


def training_card(t: dict) -> html.Div:
    """A training step's time for this scenario against the healthy rack."""
    if t["step_time_s"] is None:
        return card("Training step", "down", t["note"], "bad")
    # the healthy rack's step is said once, under the value (against_healthy), not again here
    note = (
        f"{t['vs_healthy']:.1%} of the healthy rack's tokens/s; gradient all-reduce by "
        f"{t['all_reduce_algorithm']} [A: DeepSeek-V3 shape]"
    )
    ok = "ok" if t["vs_healthy"] >= 0.999 else "warn"
    return card("Training step", words.quantity(t["step_time_s"], "s"), note, ok)


def goodput_card(g: dict) -> html.Div:
    """Lifetime goodput of this fabric and feature set, and its largest loss."""
    worst = max(g["badput"], key=g["badput"].get)
    note = (
        f"one rack-year with these features; largest loss: {worst.replace('_', ' ')} "
        f"({g['badput_hours_per_rack_year'][worst]:.0f} h a year); checkpoint every "
        f"{g['checkpoint_interval_s'] / 60:.0f} min (Young/Daly)"
    )
    return card("Lifetime goodput", f"{g['fraction']:.2%}", note)


def attribution_card(t: dict, fabric: dict) -> html.Div:
    """What the link counters alone say is wrong: DCGM's on NVLink, the switch ports' on
    Ethernet."""
    if not t["attribution_possible"]:
        return card("Fault attribution", "not possible", t["reason"], "warn")
    names = ", ".join(t["attribution"]) or "nothing wrong"
    return card("Fault attribution", names, f"named from {fabric['link_counters']} alone")


def against_healthy(
    now: list[html.Div], healthy: list[html.Div] | None, what: str = "healthy rack"
) -> list[html.Div]:
    """Each card with, under its value, the healthy rack's where it differs ("healthy rack:
    3.6 TB/s"): the model's answer for the same fabric, features and workload with nothing
    failed (state.repair_all), never a number worked out here. Cards are matched by title."""
    if not healthy:
        return now
    value = {c.children[0].children: c.children[1].children for c in healthy}
    for c in now:
        title, shown = c.children[0].children, c.children[1].children
        if title in value and value[title] != shown:
            c.children.insert(2, html.Div(f"{what}: {value[title]}", className="card-healthy"))
    return now


COUNT_ROWS = (
    ("GPUs active (not lost)", "gpus_active", "gpus"),
    ("GPUs in service (not parked)", "gpus_in_service", "gpus"),
    ("switch chips in service", "switch_chips_up", "switch_chips"),
    ("links up", "links_up", "links"),
    ("cables carrying traffic", "cables_up", "cables"),
    ("management controllers up", "controllers_up", "controllers"),
)


DOMAIN_COUNT_ROWS = (
    ("GPUs active (not lost)", "gpus_active", "gpus"),
    ("GPUs in service (not parked)", "gpus_in_service", "gpus"),
    ("rack (L1) switch chips in service", "l1_chips_up", "l1_chips"),
    ("L2 switch chips in service", "l2_chips_up", "l2_chips"),
    ("links up", "links_up", "links"),
)


def counts_table(r: dict, rows: tuple = COUNT_ROWS) -> list[html.Tr]:
    """'n of N' rows of an evaluate() result's counts (a domain's: DOMAIN_COUNT_ROWS)."""
    c = r["counts"] | {"gpus_in_service": r["gpus_in_service"]}
    return [html.Tr([html.Td(label), html.Td(f"{c[a]:,} of {c[b]:,}")]) for label, a, b in rows]


def _latency_text(lat: dict) -> str:
    """'0.350 / 1.63 µs' (words.sig: three significant figures each); 'unbounded' for a
    quantile among pairs whose queue never clears; n/a when nothing flows (a maintenance
    window, or fewer than two GPUs)."""
    if lat["p50"] is None and not lat.get("unstable_share"):
        return "n/a"

    def one(x: float | None) -> str:
        return "unbounded" if x is None else words.sig(x)

    return f"{one(lat['p50'])} / {one(lat['p99'])} {words.MICRO}"


def domain_cards(r: dict) -> list[html.Div]:
    """Headline cards of a multi-rack domain: every block evaluate answers for it (cards), its
    L1 and L2 switch chips, and what is not modelled there yet, if anything."""
    c = r["counts"]
    chips = card(
        "Switch chips",
        f"{c['l1_chips_up']:,} + {c['l2_chips_up']:,}",
        f"of {c['l1_chips']:,} rack (L1) + {c['l2_chips']:,} L2 chips in service [A]",
        "ok" if c["l1_chips_up"] + c["l2_chips_up"] == c["l1_chips"] + c["l2_chips"] else "warn",
    )
    blocks = {"decode": "decode", "training": "training", "goodput": "goodput"}
    missing = [
        *(r.get("not_modelled_yet") or []),
        *(f"{words} (no answer for domains yet)" for k, words in blocks.items() if not r.get(k)),
    ]
    later = [card("Not modelled yet", "see note", "; ".join(missing), "warn")] if missing else []
    out = cards(r)
    return [*out[:2], chips, *out[2:], *later]


def layout() -> html.Div:
    """The scenario's name and the cards: the page's headline, under the controls. The cards
    (and the side's events, questions and counts) are written by the browser from SUMMARY
    (static_html: panels/common.py, assets/summary.js), not held by Dash."""
    return html.Div(
        [
            html.P(id=ids.SCENARIO, className="scenario"),
            html.Section(id=ids.CARDS, className="cards"),
            dcc.Store(id=ids.SUMMARY),
            dcc.Store(id=ids.SUMMARY_DRAWN),
            dcc.Store(id=ids.CARDS_SHOWN),  # the cards shown and before (common.mark_was)
        ]
    )


def feature_notes(r: dict) -> list[html.Div]:
    """What each feature switch means on this fabric, in the model's line (features' "here"):
    nothing on the features' own fabric, whose switches mean what their names say."""
    lines = [html.Div(f"{v['name']}: {v['here']}") for v in r["features"].values() if v.get("here")]
    head = html.B(f"The feature switches above, on {r['fabric']['name']}:")
    return [head, *lines] if lines else []


def side() -> html.Div:
    """Beside the rack: what the feature switches mean here, what happened, the readers'
    questions, the counts."""
    return html.Div(
        className="panel side",
        children=[
            html.Div(id=ids.FEATURE_NOTES, className="feature-notes note"),
            html.H2("What happened"),
            html.Ol(id=ids.EVENTS, className="events"),
            html.H2("Readers' questions, for this scenario"),
            html.Div(id=ids.QUESTIONS, className="questions"),
            html.H2("Counts"),
            html.Table(id=ids.COUNTS, className="counts"),
        ],
    )


# summary()'s parts the browser writes itself (assets/summary.js), by the element they fill
STATIC = {
    "feature_notes": ids.FEATURE_NOTES,
    "cards": ids.CARDS,
    "counts": ids.COUNTS,
    "events": ids.EVENTS,
    "questions": ids.QUESTIONS,
}


def _outputs() -> dict[str, Output]:
    """The callback's outputs: what Dash sets; the static parts go as one tree (SUMMARY)."""
    return {
        "messages": Output(ids.MESSAGES, "children"),
        "scenario": Output(ids.SCENARIO, "children"),
        "ready": Output(ids.READY, "data"),
        "static": Output(ids.SUMMARY, "data"),
        "chips": Output(ids.FAULT_CHIPS, "children"),
        "shown": Output(ids.CARDS_SHOWN, "data"),
    }


OUTPUTS = ("messages", "scenario", *STATIC, "ready")  # summary()'s answer, by name


def summary(search: str | None) -> dict[str, Any]:
    """Messages, cards, counts, events and the four questions for the URL's scenario."""
    parsed = state.current(search)
    r = results.result(parsed.scenario)
    healthy_s = state.repair_all(parsed.scenario)
    healthy = results.result(healthy_s) if healthy_s != parsed.scenario else None
    msgs = [html.Div(f"Dropped from the link: {e}", className="msg error") for e in parsed.errors]
    msgs += [html.Div(n, className="msg notice") for n in parsed.notices]
    # The charts below the first screen start from READY, after this; the rack's request
    # goes beside this one (a press's round trip less: issue 13's press budget).
    if kind_of(parsed.scenario).several_racks:
        return changes(
            OUTPUTS,
            messages=msgs,
            scenario=f"{r['fabric']['name']} · scenario: {r['scenario']['query']}",
            feature_notes=feature_notes(r),
            cards=against_healthy(
                domain_cards(r), healthy and domain_cards(healthy), "healthy domain"
            ),
            counts=counts_table(r, DOMAIN_COUNT_ROWS),
            events=[html.Li(f"{cid} failed") for cid in r["scenario"]["fail"]]
            or [html.Li("nothing failed")],
            questions=[
                html.P(
                    "The readers' questions are answered for single racks so far: "
                    "this domain's model is its data plane (docs/MULTIRACK.md)."
                )
            ],
            ready=search or "",
        )
    q = r["scenario"]["query"] or "healthy rack, all defaults"
    return changes(
        OUTPUTS,
        messages=msgs,
        scenario=f"{r['fabric']['name']} · scenario: {q}",
        feature_notes=feature_notes(r),
        cards=against_healthy(cards(r), healthy and cards(healthy)),
        counts=counts_table(r),
        events=[html.Li(e) for e in r["events"]],
        questions=[
            html.Details([html.Summary(question), html.P(answer)], open=True)
            for question, answer in answers(r)
        ],
        ready=search or "",
    )


def summary_and_chips(search: str | None, shown: dict | None = None) -> dict[str, Any]:
    """summary(search) and the fault chips (panels/faults.py) in one answer: a press is one
    request fewer, and every callback a press sets off costs Dash's renderer the same
    pipeline of dispatches whatever it answers (issue 13's press budget). The cards, counts,
    events and questions go as one static tree (SUMMARY, with the search it shows), which
    assets/summary.js writes into their places."""
    out = summary(search)
    static = {STATIC[k]: static_html(out.pop(k)) for k in STATIC}
    was = mark_was(static[ids.CARDS], search or "", shown)  # each card's value before
    return {
        **out,
        "shown": was,
        "static": {"search": search or "", "html": static},
        "chips": faults.chips(search),
    }


def register(app: Dash) -> None:
    """The summary and the fault chips, on every change of the URL's scenario; the summary's
    static part written into the page by the browser (assets/summary.js)."""
    app.callback(
        output=_outputs(),
        inputs={"search": Input(ids.URL, "search")},
        state={"shown": State(ids.CARDS_SHOWN, "data")},
    )(summary_and_chips)
    app.clientside_callback(
        ClientsideFunction(namespace="summary", function_name="draw"),
        [Output(ids.SUMMARY_DRAWN, "data")],
        Input(ids.SUMMARY, "data"),
        prevent_initial_call=True,
    )
