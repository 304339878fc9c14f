"""Callbacks: thin. Parse the URL leniently, evaluate, render text."""

from __future__ import annotations

from dash import Dash, Input, Output, html

from model import evaluate, parse_query
from model.throughput import decode_curves

from . import ids
from .claims import VENDOR_DECODE_RATIO, where_ratio_passes
from .layout import cards, counts_table


def render(search: str | None) -> tuple:
    """Everything the first page shows for one URL query (bad tokens dropped and named)."""
    parsed = parse_query(search or "", strict=False)
    r = evaluate(parsed.scenario)
    msgs = [html.Div(f"Dropped from the link: {e}", className="msg error") for e in parsed.errors]
    msgs += [html.Div(n, className="msg notice") for n in parsed.notices]
    fabric = r["fabric"]["name"]
    q = r["scenario"]["query"] or "healthy rack, all defaults"
    scen = f"{fabric} · scenario: {q}"
    events = [html.Li(e) for e in r["events"]]
    return msgs, scen, cards(r), counts_table(r), events, versus(parsed.scenario)


def versus(s) -> str:
    """Where the modelled NVLink-vs-Ethernet decode ratio sits, and where the vendor's
    figure falls on it."""
    d = decode_curves(s)
    rng = d["ratio_20_200"]
    if rng is None:
        return "The scenario's job is down: no decode curve to compare."
    at = where_ratio_passes(d["ratio_vs_eth_x72"])
    claim = (
        f"NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' (FACTS.md §4) falls at about {at:.0f} "
        "tokens/s per user on this curve"
        if at
        else f"the ratio never reaches NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' here"
    )
    return (
        f"{d['model']}, this scenario against eth-x72 at the same per-GPU bandwidth: between "
        f"20 and 200 tokens/s per user (where both reach), the throughput ratio runs from "
        f"{rng['min']:.2f}x to {rng['max']:.2f}x; {claim}. The fabrics tie where a layer's "
        "compute outlasts its all-to-all; Ethernet's 3x latency caps its interactivity."
    )


def register(app: Dash) -> None:
    app.callback(
        Output(ids.MESSAGES, "children"),
        Output(ids.SCENARIO, "children"),
        Output(ids.CARDS, "children"),
        Output(ids.COUNTS, "children"),
        Output(ids.EVENTS, "children"),
        Output(ids.VERSUS, "children"),
        Input(ids.URL, "search"),
    )(render)
