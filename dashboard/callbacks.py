"""Callbacks: thin. Parse the URL leniently, evaluate, render text."""

from __future__ import annotations

from dash import Dash, Input, Output, html

from model import evaluate, parse_query

from . import ids
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
    return msgs, scen, cards(r), counts_table(r), events


def register(app: Dash) -> None:
    app.callback(
        Output(ids.MESSAGES, "children"),
        Output(ids.SCENARIO, "children"),
        Output(ids.CARDS, "children"),
        Output(ids.COUNTS, "children"),
        Output(ids.EVENTS, "children"),
        Input(ids.URL, "search"),
    )(render)
