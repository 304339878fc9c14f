"""What is broken now, as chips you can remove, and undo / redo (issue 13, "what changed").

Each fault of the scenario (a failed part, a flaky link or cable, a switch update) is a chip;
its x takes that fault alone away, through the URL like every change. Undo and redo step
through the scenarios this page has shown (the URL's query each time), kept in the browser
(a dcc.Store of this tab, assets/faults.js): a shared link carries the scenario, not its past.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html, no_update

from dashboard import ids, state
from model.scenario import Scenario


def layout() -> html.Div:
    """The fault chips, and undo / redo beside them."""
    return html.Div(
        className="faults",
        children=[
            html.Button(
                "Undo", id=ids.UNDO, n_clicks=0, disabled=True, title="The scenario before"
            ),
            html.Button("Redo", id=ids.REDO, n_clicks=0, disabled=True, title="The one undone"),
            html.Div(id=ids.FAULT_CHIPS, className="chips", role="list"),
            dcc.Store(id=ids.CHIP_PICK),  # the chip whose x was pressed (assets/faults.js)
            dcc.Store(id=ids.HISTORY, storage_type="session"),
        ],
    )


def _chip(kind: str, cid: str, words: str) -> html.Button:
    return html.Button(
        [html.Span(words), html.Span(" ×", className="chip-x", **{"aria-hidden": "true"})],
        className=f"chip chip-{kind}",
        **{"data-kind": kind, "data-id": cid},
        title=f"Take {cid} out of the scenario ({'repair it' if kind == 'fail' else 'clear it'})",
        role="listitem",
    )


def chips(search: str | None) -> list[Any]:
    """A chip a fault of the URL's scenario, or a line saying there is none."""
    s = state.current(search).scenario
    out = [_chip("fail", c, c) for c in s.fail]
    out += [_chip("flaky", c, f"{c} (flaky)") for c in s.flaky]
    out += [_chip("update", u, f"update {u}") for u in s.update]
    if not out:
        return [html.Span("No faults: the healthy rack.", className="note")]
    return [html.Span("Faults now:", className="note"), *out]


def without(s: Scenario, kind: str, cid: str) -> Scenario:
    """The scenario with one fault (of `kind`: fail, flaky or update) taken away."""
    if kind == "fail":
        return replace(s, fail=tuple(x for x in s.fail if x != cid))
    if kind == "flaky":
        return replace(s, flaky=tuple(x for x in s.flaky if x != cid))
    return replace(s, update=tuple(x for x in s.update if x != cid))


def remove(pick: dict | None, search: str | None) -> str:
    """A chip's x (assets/faults.js writes which): its fault out of the URL's scenario."""
    if not isinstance(pick, dict):
        return no_update
    kind, cid = pick.get("kind"), pick.get("id")
    if kind not in ("fail", "flaky", "update") or not isinstance(cid, str):
        return no_update
    s = state.current(search).scenario
    after = without(s, kind, cid)
    return no_update if after == s else state.url_of(after)  # a stale chip: nothing left


def register(app: Dash) -> None:
    """A chip's x; undo / redo and the history they step through (in the browser,
    assets/faults.js). The chips themselves come with the cards' answer (panels/cards.py)."""
    app.callback(
        output={"search": Output(ids.URL, "search", allow_duplicate=True)},
        inputs={"pick": Input(ids.CHIP_PICK, "data"), "search": State(ids.URL, "search")},
        prevent_initial_call=True,
    )(lambda pick, search: {"search": remove(pick, search)})
    app.clientside_callback(
        ClientsideFunction(namespace="faults", function_name="track"),
        [
            Output(ids.HISTORY, "data"),
            Output(ids.UNDO, "disabled"),
            Output(ids.REDO, "disabled"),
        ],
        Input(ids.URL, "search"),
        State(ids.HISTORY, "data"),
    )
    app.clientside_callback(
        ClientsideFunction(namespace="faults", function_name="step"),
        [
            Output(ids.URL, "search", allow_duplicate=True),
            Output(ids.HISTORY, "data", allow_duplicate=True),
        ],
        Input(ids.UNDO, "n_clicks"),
        Input(ids.REDO, "n_clicks"),
        State(ids.HISTORY, "data"),
        prevent_initial_call=True,
    )
