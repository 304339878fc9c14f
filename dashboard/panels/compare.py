"""The compare panel: key figures of the scenario on screen and of a second one, side by side,
as a pandas DataFrame (one row a figure, one column a scenario)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
from dash import Dash, Input, Output, dcc, html

from dashboard import ids, state
from dashboard.infra import results
from dashboard.panels.below import unseen
from dashboard.panels.tables import html_table
from model import words
from model.errors import ScenarioError
from model.query import parse_query

DASH = "—"  # what does not apply to a scenario (a fabric without SHARP, a job that is down)
DIFFERS = "differs"


def _num(v: float | None, fmt: str) -> str:
    """A number for people, or the dash when there is none."""
    return DASH if v is None else format(v, fmt)


def _sig(v: float | None) -> str:
    """Three significant figures, trailing zeros kept (the cards' formatter), or the dash."""
    return DASH if v is None else words.sig(v)


def _sharp(r: dict) -> str:
    if not r["sharp_healthy_tflops"]:  # the fabric has no in-network compute at all
        return f"{DASH} (none on {r['fabric']['technology']})"
    return _num(r["sharp_tflops"], ",.4g")


def _decode(r: dict) -> str:
    d = r["decode"]
    return _num(d["tokens_per_s_per_gpu"], ",.0f") if d["running"] else f"0 ({r['job']['state']})"


def _step(r: dict) -> str:
    t = r["training"]["step_time_s"]
    return f"{DASH} (job {r['job']['state']})" if t is None else f"{t:.3g}"


# (row, how to read it from a result): the figures both scenarios are compared on
ROWS: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("fabric", lambda r: r["fabric"]["name"]),
    (
        "worst GPU in service, TB/s",
        lambda r: _num(r["bandwidth"]["per_gpu_tbs"]["in_service_min"], ".3g"),
    ),
    ("rack, TB/s", lambda r: _num(r["bandwidth"]["aggregate_tbs"], ",.4g")),
    ("in-network compute, TFLOPS", _sharp),
    (
        f"latency p50 / p99, {words.MICRO}",
        lambda r: f"{_sig(r['latency_us']['p50'])} / {_sig(r['latency_us']['p99'])}",
    ),
    ("decode, tokens/s per GPU", _decode),
    ("training step, s", _step),
    ("goodput, rack-year", lambda r: _num(r["goodput"]["fraction"], ".2%")),
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
        return f"{DASH} (not modelled on multi-rack domains yet)"


def frame(ra: dict, rb: dict) -> pd.DataFrame:
    """The comparison: one row a figure, one column a scenario (named by its key), and a
    last column marking the rows where the two differ."""
    rows = []
    for _, read in ROWS:
        a, b = _cell(read, ra), _cell(read, rb)
        rows.append([a, b, DIFFERS if a != b else ""])
    key_a, key_b = ra["scenario"]["key"], rb["scenario"]["key"]
    return pd.DataFrame(
        rows,
        index=pd.Index([name for name, _ in ROWS], name=""),
        columns=[key_a or "healthy rack", key_b or "healthy rack", ""],
        dtype=object,
    )


def compare(search: str | None, other: str | None) -> dict[str, Any]:
    """Key figures of this scenario and another, side by side."""
    unseen(search)
    a = state.current(search).scenario
    try:
        b = parse_query(other or "", strict=True).scenario
    except ScenarioError as e:
        return {"table": html.Div(f"Compare: {e.message}", className="msg error")}
    return {"table": html_table(frame(results.result(a), results.result(b)), mark=DIFFERS)}


def register(app: Dash) -> None:
    """The table, from LATER (panels/below.py) and the second scenario's query."""
    app.callback(
        output={"table": Output(ids.COMPARE, "children")},
        inputs={"search": Input(ids.LATER, "data"), "other": Input(ids.COMPARE_INPUT, "value")},
    )(compare)
