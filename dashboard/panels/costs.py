"""The costs panel: MoE decode against interactivity (and where the vendor's 2.3x falls),
goodput by cause for every feature set, GPU-to-GPU latency, and the newest fault's timeline.

Each figure comes from dashboard.infra.results.figure, keyed on the chart's input data, so a
room of viewers on one link (or on scenarios with the same curves) builds it once.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html
from dash.development.base_component import Component

from dashboard import figures, ids, state
from dashboard.figures import claims
from dashboard.figures.claims import VENDOR_DECODE_RATIO
from dashboard.infra import results
from dashboard.panels import buys
from dashboard.panels.below import unseen
from dashboard.panels.clock import CLOCK_START_S
from dashboard.panels.common import changes, graph
from model.query import parse_query
from model.registry import kind_of


def _chart(title: str, gid: str, *extra: Any, height: int = 360) -> html.Div:
    return html.Div(className="panel", children=[html.H2(title), graph(gid, height), *extra])


def decode_and_goodput() -> list[html.Div]:
    """The decode curve (with its note) and the goodput comparison."""
    return [
        _chart(
            "MoE decode: throughput against interactivity",
            ids.DECODE,
            html.P(id=ids.VERSUS, className="note"),
            height=440,  # the ratio panel under the curves tall enough to read the gap
        ),
        # taller: two bars of three-line labels above a legend that wraps on a narrow screen
        _chart("MoE decode: where a step's time goes", ids.BREAKDOWN, height=480),
        _chart("Goodput over a rack-year, by cause", ids.GOODPUT),
    ]


def timeline_and_latency() -> list[html.Div]:
    """The newest fault's timeline and the latency distribution."""
    return [
        _chart("The newest fault, second by second", ids.TIMELINE),
        _chart("GPU-to-GPU latency", ids.LATENCY),
    ]


def versus(d: dict) -> str:
    """The comparison in words (versus_parts, one paragraph)."""
    return " ".join(versus_parts(d))


def _versus_children(d: dict) -> list[Component] | str:
    """The comparison on the page: against Ethernet, the gain and its interactivity first,
    on a line of its own (the model's vendor_claim sentence), then the rest."""
    parts = versus_parts(d)
    if not d.get("vendor_claim"):
        return " ".join(parts)
    return [html.Strong(parts[0], className="claim"), html.Br(), " ".join(parts[1:])]


def versus_parts(d: dict) -> list[str]:
    """The comparison in sentences: the ratio to the same GPU on the other fabric along the
    frontier, where the vendor's NVLink 6 figure falls (or why it does not), and where the
    fabric matters: the step's exposed communication, healthy and now."""
    rng = d["ratio_20_200"]
    if rng is None:
        return ["The job is down in this scenario: no decode curve to compare."]
    base = d["baseline"]
    out = [
        (
            f"{d['model']} against {base} ({d['baseline_why']}), at the best deployment for each "
            f"at every point: between 20 and 200 tokens/s per user the throughput ratio runs from "
            f"{rng['min']:.2f}x to {rng['max']:.2f}x, its largest step between points 2 tokens/s "
            f"per user apart {d['ratio_max_step_20_200']:.3f}x (continuous: the frontiers are "
            "envelopes of smooth batch sweeps)."
        )
    ]
    claim = d.get("vendor_claim")
    if claim:  # the decode gain over Ethernet and its interactivity, first (the model's words)
        out.insert(0, claim["sentence"])
        out.append(
            "At the same per-GPU bandwidth Ethernet pays only its wire latency (3x of ~0.35 µs "
            "a hop, 2 hops a dispatch and 3 a combine) and its packet rate (a tenth, for flags "
            "and each token's metadata), while the GPU-side floor of a layer's dispatch and "
            "combine is the same on both and two micro-batches hide most of the rest behind "
            f"compute: the 'up to {VENDOR_DECODE_RATIO:g}x' needs less Ethernet bandwidth "
            "(set the Ethernet ports above), or the fastest interactivities, where Ethernet's "
            "curve ends first."
        )
    here, healthy, kept = d.get("breakdown"), d.get("healthy_breakdown"), d.get("held")
    if here and healthy:
        out.append(
            f"At {d['tokens_per_s_per_user']:g} tokens/s per user, "
            f"{here['exposed_share']:.1%} of this scenario's decode step is communication left "
            f"exposed after the overlap (healthy rack: {healthy['exposed_share']:.1%})."
        )
    if kept and kept["exposed_us_now"] != kept["exposed_us_healthy"]:
        out.append(
            f"A fault costs throughput only there: on the healthy rack's deployment "
            f"({kept['deployment']}) the exposed communication goes from "
            f"{kept['exposed_us_healthy'] / 1000:.2f} to {kept['exposed_us_now'] / 1000:.2f} ms "
            f"a step: {kept['lost']:.1%} fewer tokens/s, and as much slower per user. Held "
            f"to {d['tokens_per_s_per_user']:g} tokens/s per user, the best deployment now "
            f"delivers {d['vs_healthy_at_reference']:.1%} of the healthy rack."
        )
    worst = min(d.get("vs_healthy") or [], key=lambda p: p["ratio"], default=None)
    if worst and worst["ratio"] < 0.9995:
        out.append(
            f"Along the curve the fault costs most at {worst['tokens_per_s_per_user']:.0f} "
            f"tokens/s per user: {worst['ratio']:.1%} of the healthy rack."
        )
    return out


def _cost_outputs() -> dict[str, Output]:
    return {
        "decode": Output(ids.DECODE, "figure"),
        "versus": Output(ids.VERSUS, "children"),
        "breakdown": Output(ids.BREAKDOWN, "figure"),
        "goodput": Output(ids.GOODPUT, "figure"),
        "latency": Output(ids.LATENCY, "figure"),
    }


COST_OUTPUTS = tuple(_cost_outputs())


def cost_charts(search: str | None) -> dict[str, Any]:
    """Decode curve, goodput comparison and latency for the URL's scenario."""
    unseen(search)
    s = state.current(search).scenario
    d = claims.with_claim(s, results.decode(s))
    rows = results.comparison(kind_of(s).reliability.features_fabric(s))
    label = figures.comparison_label(rows, s)
    healthy = state.repair_all(s)
    dists = [results.latency(x) for x in (s, healthy, parse_query("fabric=eth-x72").scenario)]
    return changes(
        COST_OUTPUTS,
        # the curves, not the scenario's name, decide the figure: identical curves share it
        decode=results.figure(
            "decode",
            {k: v for k, v in d.items() if k != "scenario"},
            lambda: figures.decode_figure(d),
        ),
        versus=_versus_children(d),
        breakdown=results.figure(
            "breakdown",
            [d.get("breakdown"), d.get("healthy_breakdown")],
            lambda: figures.breakdown_figure(d),
        ),
        goodput=results.figure(
            "goodput", [rows, label], lambda: figures.goodput_figure(rows, label)
        ),
        latency=results.figure("latency", dists, lambda: figures.latency_figure(*dists)),
    )


TIMELINE_OUTPUTS = {"figure": Output(ids.TIMELINE, "figure")}


def timeline_chart(search: str | None, clock: float | None) -> dict[str, Any]:
    """The newest fault's story, with the simulated clock as 'now' (the fault at its start);
    on a multi-rack domain too (a rack part's, a whole rack's, an L2 chip's or a trunk's)."""
    unseen(search)
    s = state.current(search).scenario
    tl = results.timeline(s)
    data = tl if tl.get("fault") else None
    now = float(clock or CLOCK_START_S) - CLOCK_START_S
    window = (data or {}).get("window_s")
    if not window or not window[0] <= now <= window[1]:
        now = None  # no 'now' line to draw: one figure for every tick
    figure = results.figure(
        "timeline", [data, now], lambda: figures.timeline_figure(data, now_s=now)
    )
    return {"figure": figure}


def register(app: Dash) -> None:
    """The three cost charts from LATER (READY once below the first screen is seen:
    panels/below.py); the timeline from LATER and the clock; what each feature buys
    (panels/buys.py, the goodput panel's table)."""
    buys.register(app)
    app.callback(output=_cost_outputs(), inputs={"search": Input(ids.LATER, "data")})(cost_charts)
    app.callback(
        output=TIMELINE_OUTPUTS,
        inputs={"search": Input(ids.LATER, "data"), "clock": Input(ids.CLOCK, "data")},
    )(timeline_chart)
