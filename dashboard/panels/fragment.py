"""The view's owner: the URL's #fragment, which holds what is not the scenario (the counter
and link the telemetry charts show, the compared scenario, the click mode, the rack on show,
the selected part), so a shared link opens the same charts. Split from scenario.py, which
owns the query."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, ctx

from dashboard import ids, state, view
from dashboard.panels.common import changes, series_of
from model.errors import ScenarioError
from model.scenario import rack_fabric


def _view_outputs() -> dict[str, Output]:
    return {
        "hash": Output(ids.URL, "hash"),
        "counter": Output(ids.COUNTER, "value"),
        "link": Output(ids.LINK_INPUT, "value"),
        "compare": Output(ids.COMPARE_INPUT, "value"),
        "mode": Output(ids.CLICK_MODE, "value"),
        "rack": Output(ids.RACK_SELECT, "value"),
        "message": Output(ids.VIEW_MESSAGE, "children"),
    }


VIEW_OUTPUTS = tuple(_view_outputs())


def on_view(
    hash_: str | None,
    click: dict | None,
    search: str | None,
    counter: str | None,
    link: str | None,
    compare: str | None,
    mode: str | None,
    rack: str | None,
    fail_clicks: int | None = None,
    submits: int | None = None,
    typed: str | None = None,
) -> dict[str, Any]:
    """The view options (counter, link, compare, click mode, rack on show, selected part)
    live in the URL's #fragment, so a shared link opens the same charts; a cable or link
    click selects its series, and a click in the inspect mode selects the part."""
    trig = ctx.triggered_id
    if trig == ids.URL or trig is None:
        v, problems = view.parse(hash_)
        msg = "; ".join(f"Dropped from the link: {p}" for p in problems)
        shown = {k: v[k] for k in view.DEFAULTS if k != "sel"}  # the selection is drawn, no control
        # the default link is the fabric's own (GB200's trays have no sw2)
        shown["link"] = view.link_for(rack_fabric(state.current(search).scenario), v["link"])
        return changes(VIEW_OUTPUTS, **shown, message=msg)
    sel = view.parse(hash_)[0]["sel"]
    if trig in (ids.FAIL_BTN, ids.ID_INPUT):  # Enter finds in every mode; the button inspects
        if trig == ids.FAIL_BTN and mode != "inspect":
            return changes(VIEW_OUTPUTS)
        s = state.current(search).scenario
        try:  # the one match of a partial ID is what Enter finds (issue 28: no dead end)
            sel = state.found(s, typed)
        except ScenarioError:
            return changes(VIEW_OUTPUTS)  # on_change says what is wrong, naming the matches
        rack = state.rack_of(s, sel) or rack  # on a domain, its rack is put on show
    elif trig == ids.RACK_PRESS:
        s = state.current(search).scenario
        try:  # the browser's press names a part: the model reads it
            cid = state.find(s, click["id"]) if isinstance(click, dict) else None
        except (KeyError, TypeError, ScenarioError):
            cid = None
        if mode == "inspect" and cid:
            sel = cid
        elif series_of(s, cid) is None:
            return changes(VIEW_OUTPUTS)
        link = series_of(s, cid) or link
    v = {
        "counter": counter,
        "link": link,
        "compare": compare,
        "mode": mode,
        "rack": rack,
        "sel": sel,
    }
    return changes(VIEW_OUTPUTS, hash=view.to_hash(v), link=link, rack=rack, message="")


def register(app: Dash) -> None:
    """The #fragment's callback."""
    app.callback(
        output=_view_outputs(),
        inputs={
            "hash_": Input(ids.URL, "hash"),
            "click": Input(ids.RACK_PRESS, "data"),
            "counter": Input(ids.COUNTER, "value"),
            "link": Input(ids.LINK_INPUT, "value"),
            "compare": Input(ids.COMPARE_INPUT, "value"),
            "mode": Input(ids.CLICK_MODE, "value"),
            "rack": Input(ids.RACK_SELECT, "value"),
            "fail_clicks": Input(ids.FAIL_BTN, "n_clicks"),
            "submits": Input(ids.ID_INPUT, "n_submit"),
        },
        state={"search": State(ids.URL, "search"), "typed": State(ids.ID_INPUT, "value")},
    )(on_view)
