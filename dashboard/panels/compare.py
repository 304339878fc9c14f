"""The compare panel: key figures of the scenario on screen and of a second one, side by side,
as a pandas DataFrame (one row a figure, one column a scenario)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
from dash import Dash, Input, Output, dcc, html

from dashboard import ids, state
from dashboard.panels.tables import html_table
from dashboard.web import results
from model.errors import ScenarioError
from model.scenario import parse_query

# (row, how to read it from a result): the figures both scenarios are compared on
ROWS: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("fabric", lambda r: r["fabric"]["name"]),
    ("worst GPU, TB/s", lambda r: f"{r['bandwidth']['per_gpu_tbs']['min']:g}"),
    ("rack, TB/s", lambda r: f"{r['bandwidth']['aggregate_tbs']:g}"),
    ("in-network compute, TFLOPS", lambda r: f"{r['sharp_tflops']:g}"),
    ("latency p50 / p99, us", lambda r: f"{r['latency_us']['p50']} / {r['latency_us']['p99']}"),
    ("decode, tokens/s per GPU", lambda r: f"{r['decode']['tokens_per_s_per_gpu']:,}"),
    ("training step, s", lambda r: f"{r['training']['step_time_s']}"),
    ("goodput, rack-year", lambda r: f"{r['goodput']['fraction']:.2%}"),
    ("partition", lambda r: r["partition"]["state"]),
    ("job", lambda r: r["job"]["state"]),
)


def layout() -> html.Section:
    """The second scenario's query, and the table."""
    return html.Section(
        className="panel compare",
        children=[
            html.H2("Compare with another scenario"),
            html.P(
                "Type a scenario query (e.g. fabric=eth-x72&fail=st3) to set it beside this one."
            ),
            dcc.Input(
                id=ids.COMPARE_INPUT,
                type="text",
                value="fabric=eth-x72",
                maxLength=400,
                debounce=True,
                spellCheck=False,
            ),
            html.Div(id=ids.COMPARE),
        ],
    )


def _cell(read: Callable[[dict], str], r: dict) -> str:
    try:
        return read(r)
    except (KeyError, TypeError):  # a multi-rack domain: its data plane only so far
        return "n/a (multi-rack)"


def frame(ra: dict, rb: dict) -> pd.DataFrame:
    """The comparison: one row a figure, one column a scenario (named by its key)."""
    return pd.DataFrame(
        [[_cell(read, ra), _cell(read, rb)] for _, read in ROWS],
        index=pd.Index([name for name, _ in ROWS], name=""),
        columns=[ra["scenario"]["key"], rb["scenario"]["key"]],
        dtype=object,
    )


def compare(search: str | None, other: str | None) -> dict[str, Any]:
    """Key figures of this scenario and another, side by side."""
    a = state.current(search).scenario
    try:
        b = parse_query(other or "", strict=True).scenario
    except ScenarioError as e:
        return {"table": html.Div(f"Compare: {e.message}", className="msg error")}
    return {"table": html_table(frame(results.result(a), results.result(b)))}


def register(app: Dash) -> None:
    """The table, from READY and the second scenario's query."""
    app.callback(
        output={"table": Output(ids.COMPARE, "children")},
        inputs={"search": Input(ids.READY, "data"), "other": Input(ids.COMPARE_INPUT, "value")},
    )(compare)
