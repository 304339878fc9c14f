"""What is broken now, as chips you can remove, and undo / redo (issue 13, "what changed").

Each fault of the scenario (a failed part, a flaky link or cable, a switch update) is a chip;
its x takes that fault alone away, through the URL like every change. Undo and redo step
through the scenarios this page has shown (the URL's query each time), kept in the browser
(a dcc.Store of this tab, HISTORY): a shared link carries the scenario, not its past.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

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


HISTORY_MAX = 50  # the newest queries undo can reach


def _valid(h: Any) -> bool:
    """A history as track() keeps it: {"stack": [queries], "at": where the page is}."""
    return (
        isinstance(h, dict)
        and isinstance(h.get("stack"), list)
        and isinstance(h.get("at"), int)
        and h["at"] < len(h["stack"])
    )


def track(search: str | None, hist: dict | None) -> dict[str, Any]:
    """The scenarios this tab has shown, on each change of the URL's query: a new one after
    where the page is (what was undone past it dropped), the newest HISTORY_MAX; an undo or
    redo landing where it stepped changes nothing. Undo and redo enabled where they lead."""
    q = search or ""
    h = hist if _valid(hist) else {"stack": [], "at": -1}
    if h["at"] >= 0 and h["stack"][h["at"]] == q:  # a step of undo or redo landing
        return {"history": no_update, "undo": h["at"] <= 0, "redo": h["at"] >= len(h["stack"]) - 1}
    stack = [*h["stack"][: h["at"] + 1], q][-HISTORY_MAX:]
    return {
        "history": {"stack": stack, "at": len(stack) - 1},
        "undo": len(stack) <= 1,
        "redo": True,
    }


def step(_undo: int | None, _redo: int | None, hist: dict | None) -> dict[str, Any]:
    """Undo or redo: the URL's query one scenario back or on, which every panel follows."""
    if not _valid(hist) or ctx.triggered_id not in (ids.UNDO, ids.REDO):
        raise PreventUpdate
    at = hist["at"] + (-1 if ctx.triggered_id == ids.UNDO else 1)
    if not 0 <= at < len(hist["stack"]):
        raise PreventUpdate
    return {"search": hist["stack"][at], "history": {"stack": hist["stack"], "at": at}}


def register(app: Dash) -> None:
    """A chip's x; undo / redo and the history they step through (track, step). The chips
    themselves come with the cards' answer (panels/cards.py)."""
    app.callback(
        output={"search": Output(ids.URL, "search", allow_duplicate=True)},
        inputs={"pick": Input(ids.CHIP_PICK, "data"), "search": State(ids.URL, "search")},
        prevent_initial_call=True,
    )(lambda pick, search: {"search": remove(pick, search)})
    app.callback(
        output={
            "history": Output(ids.HISTORY, "data"),
            "undo": Output(ids.UNDO, "disabled"),
            "redo": Output(ids.REDO, "disabled"),
        },
        inputs={"search": Input(ids.URL, "search")},
        state={"hist": State(ids.HISTORY, "data")},
    )(track)
    app.callback(
        output={
            "search": Output(ids.URL, "search", allow_duplicate=True),
            "history": Output(ids.HISTORY, "data", allow_duplicate=True),
        },
        inputs={"_undo": Input(ids.UNDO, "n_clicks"), "_redo": Input(ids.REDO, "n_clicks")},
        state={"hist": State(ids.HISTORY, "data")},
        prevent_initial_call=True,
    )(step)
