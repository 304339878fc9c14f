"""The costs panel: MoE decode against interactivity (and where the vendor's 2.3x falls),
goodput by cause for every feature set, GPU-to-GPU latency, and the newest fault's timeline.

Each figure comes from dashboard.web.results.figure, keyed on the chart's input data, so a
room of viewers on one link (or on scenarios with the same curves) builds it once.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, html

from dashboard import figures, ids, state
from dashboard.figures.claims import VENDOR_DECODE_RATIO, where_ratio_passes
from dashboard.panels import buys
from dashboard.panels.clock import CLOCK_START_S
from dashboard.panels.common import changes, graph, single_rack
from dashboard.web import results
from model.scenario import parse_query


def _chart(title: str, gid: str, *extra: Any) -> html.Div:
    return html.Div(className="panel", children=[html.H2(title), graph(gid, 360), *extra])


def decode_and_goodput() -> list[html.Div]:
    """The decode curve (with its note) and the goodput comparison."""
    return [
        _chart(
            "MoE decode: throughput against interactivity",
            ids.DECODE,
            html.P(id=ids.VERSUS, className="note"),
        ),
        _chart("Goodput over a rack-year, by cause", ids.GOODPUT),
    ]


def timeline_and_latency() -> list[html.Div]:
    """The newest fault's timeline and the latency distribution."""
    return [
        _chart("The newest fault, second by second", ids.TIMELINE),
        _chart("GPU-to-GPU latency", ids.LATENCY),
    ]


def versus(d: dict) -> str:
    """Where the modelled NVLink-vs-Ethernet ratio runs, and where the vendor's figure falls."""
    rng = d["ratio_20_200"]
    if rng is None:
        return "The job is down in this scenario: no decode curve to compare."
    at = where_ratio_passes(d["ratio_vs_eth_x72"])
    claim = (
        f"NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' (FACTS.md §4) falls at about {at:.0f} "
        "tokens/s per user on this curve"
        if at
        else f"the ratio never reaches NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' here"
    )
    return (
        f"{d['model']}: this scenario against eth-x72 at the same per-GPU bandwidth. Between 20 "
        f"and 200 tokens/s per user (where both reach) the throughput ratio runs from "
        f"{rng['min']:.2f}x to {rng['max']:.2f}x; {claim}. The fabrics tie where a layer's "
        "compute outlasts its all-to-all; Ethernet's 3x latency caps its interactivity."
    )


def _cost_outputs() -> dict[str, Output]:
    return {
        "decode": Output(ids.DECODE, "figure"),
        "versus": Output(ids.VERSUS, "children"),
        "goodput": Output(ids.GOODPUT, "figure"),
        "latency": Output(ids.LATENCY, "figure"),
    }


COST_OUTPUTS = tuple(_cost_outputs())


@single_rack(_cost_outputs())
def cost_charts(search: str | None) -> dict[str, Any]:
    """Decode curve, goodput comparison and latency for the URL's scenario."""
    s = state.current(search).scenario
    d = results.decode(s)
    rows = results.comparison()
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
        versus=versus(d),
        goodput=results.figure(
            "goodput", [rows, label], lambda: figures.goodput_figure(rows, label)
        ),
        latency=results.figure("latency", dists, lambda: figures.latency_figure(*dists)),
    )


TIMELINE_OUTPUTS = {"figure": Output(ids.TIMELINE, "figure")}


@single_rack(TIMELINE_OUTPUTS)
def timeline_chart(search: str | None, clock: float | None) -> dict[str, Any]:
    """The newest fault's story, with the simulated clock as 'now' (the fault at its start)."""
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
    """The three cost charts from READY; the timeline from READY and the clock; what each
    feature buys (panels/buys.py, the goodput panel's table)."""
    buys.register(app)
    app.callback(output=_cost_outputs(), inputs={"search": Input(ids.READY, "data")})(cost_charts)
    app.callback(
        output=TIMELINE_OUTPUTS,
        inputs={"search": Input(ids.READY, "data"), "clock": Input(ids.CLOCK, "data")},
    )(timeline_chart)
