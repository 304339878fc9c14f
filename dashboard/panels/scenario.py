"""The scenario's owner: the one callback that writes the URL's query (its controls are
controls.py's).

Every click and control becomes a new URL (the query is the scenario), and the controls
follow the URL. The view options that are not the scenario (counter, link, compare, click
mode, the rack on show) live in the URL's #fragment, written by fragment.py. Every other
callback only reads the URL, so the view is always the link.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dash import Dash, Input, Output, State, ctx, no_update
from plotly.utils import PlotlyJSONEncoder

from dashboard import ids, state
from dashboard.figures import l2_click_to_id
from dashboard.panels import live
from dashboard.panels.common import changes
from dashboard.panels.controls import (
    DOMAIN_LIMITED,
    ETH_HINT,
    ETH_ONLY,
    UPDATE_HINT,
    WORKLOAD_HINT,
    eth_options,
    feature_options,
    features_title,
    mode_options,
    not_on_domains,
    update_options,
)
from model.errors import ScenarioError
from model.fabric.presets import (
    ETH_X72,
)
from model.query import parse_query
from model.registry import kind_of
from model.scenario import (
    ETH_BW_FABRICS,
    Scenario,
)
from model.workloads import words as decode_words


def _change_outputs() -> dict[str, Output]:
    return {
        "search": Output(ids.URL, "search"),
        "fabric": Output(ids.FABRIC, "value"),
        "workload": Output(ids.WORKLOAD, "value"),
        "features": Output(ids.FEATURES, "value"),
        "features_title": Output(ids.FEATURES_TITLE, "children"),
        "feature_options": Output(ids.FEATURES, "options"),
        "features_box": Output(ids.FEATURES_BOX, "title"),
        "update_disabled": Output(ids.ISSU, "disabled"),
        "update_options": Output(ids.ISSU, "options"),
        "update_box": Output(ids.ISSU_BOX, "title"),
        "workload_disabled": Output(ids.WORKLOAD, "disabled"),
        "workload_box": Output(ids.WORKLOAD_BOX, "title"),
        "at": Output(ids.AT, "value"),
        "at_words": Output(ids.AT_WORDS, "children"),
        "eth": Output(ids.ETH_PORTS, "value"),
        "eth_options": Output(ids.ETH_PORTS, "options"),
        "eth_disabled": Output(ids.ETH_PORTS, "disabled"),
        "eth_box": Output(ids.ETH_PORTS_BOX, "title"),
        "mode_options": Output(ids.CLICK_MODE, "options"),
        "update": Output(ids.ISSU, "value"),
        "preset": Output(ids.PRESET, "value"),
        "message": Output(ids.ACTION, "children"),
        "typed": Output(ids.ID_INPUT, "value"),
        "followed": Output(ids.LIVE_FOLLOWED, "data"),
    }


CHANGE_OUTPUTS = tuple(_change_outputs())


def _controls_of(s: Scenario) -> dict[str, Any]:
    """The controls' values that show scenario s."""
    limited = kind_of(s).several_racks and DOMAIN_LIMITED
    return {
        "fabric": s.fabric,
        "workload": s.workload,
        "features": sorted(s.features),
        "features_title": features_title(s.fabric),
        "feature_options": feature_options(s.fabric),
        # what does nothing on a multi-rack domain is disabled there, and says why
        "features_box": not_on_domains("feature switches") if limited else "",
        "update_disabled": limited,
        "update_options": update_options(s.fabric),
        "update_box": not_on_domains("switch updates") if limited else UPDATE_HINT,
        "workload_disabled": limited,
        "workload_box": (
            not_on_domains("decode, training and goodput") if limited else WORKLOAD_HINT
        ),
        "mode_options": mode_options(s.fabric),
        "at": s.at,
        "at_words": decode_words.interactivity(s.at),
        "eth": f"{ETH_X72.gpu_tbs_bidir if s.eth_bw is None else s.eth_bw:g}",
        "eth_options": eth_options(s.eth_bw),
        "eth_disabled": s.fabric not in ETH_BW_FABRICS,
        "eth_box": ETH_HINT if s.fabric in ETH_BW_FABRICS else ETH_ONLY,
        "update": s.update[0] if s.update else "",
        "preset": None,
    }


def _same(a: Any, b: Any) -> bool:
    """Two control values the same as the browser gets them (components compare by identity,
    so by their JSON)."""
    return json.dumps(a, cls=PlotlyJSONEncoder) == json.dumps(b, cls=PlotlyJSONEncoder)


PRESS_MODES = ("fail", "flaky", "inspect")


def on_change(search: str | None = None, **kw: Any) -> dict[str, Any]:
    """Apply whatever changed to the scenario; the URL and the controls follow. A press on
    the rack or the map has edited the URL in the browser already (assets/rack_press.js):
    it is answered with its message alone, whatever else the URL holds by now."""
    if f"{ids.RACK_PRESS}.data" in (ctx.triggered_prop_ids or {}):
        return changes(CHANGE_OUTPUTS, message=press_message(kw.get("click")))
    followed = kw.pop("followed", None)
    if ctx.triggered_id in (None, ids.URL) and not search:
        # a page opened bare in live mode goes to the live rack (later changes of the live
        # rack are live.follow_live's, a callback of its own: see there)
        q = live.follow(search, followed)
        if q is not None:
            s = parse_query(q).scenario  # (the banner says so: the message line is a press's)
            return changes(CHANGE_OUTPUTS, search=state.url_of(s), **_controls_of(s), followed=q)
    return _on_change(search, **kw)


def press_message(press: Any) -> str:
    """What a press did, in words, from the query it was made on: failed, repaired (or
    hot-swapped), marked flaky; selected in the inspect mode; or what was wrong with it. The
    browser's press is never trusted: its ID is the model's to read."""
    if not isinstance(press, dict) or not isinstance(press.get("id"), str):
        return ""
    cid, mode = press["id"], press.get("mode")
    mode = mode if mode in PRESS_MODES else "fail"
    before = state.current(str(press.get("before") or "")).scenario
    try:
        if mode == "inspect":
            return f"{state.find(before, cid)} selected: inspecting fails nothing"
        return state.toggle(before, cid, mode)[1]
    except ScenarioError as e:
        return e.message


def _on_change(
    search: str | None,
    click: dict | None,
    l2_click: dict | None,
    fail_clicks: int | None,
    submits: int | None,
    repair_clicks: int | None,
    preset: str | None,
    fabric: str | None,
    workload: str | None,
    at: object,
    eth: str | None,
    features: list[str] | None,
    update: str | None,
    typed: str | None,
    mode: str | None,
    rack: str | None,
) -> dict[str, Any]:
    s = before = state.current(search).scenario
    trig = ctx.triggered_id
    msg = ""
    try:
        if trig == ids.L2 and l2_click:
            cid = l2_click_to_id(s.fabric, l2_click)
            if cid is None:
                return changes(CHANGE_OUTPUTS)
            if mode == "inspect":  # selects it (on_view writes the #fragment); fails nothing
                return changes(CHANGE_OUTPUTS, message=f"{cid} selected: inspecting fails nothing")
            s, msg = state.toggle(s, cid, mode or "fail")
        elif trig == ids.ID_INPUT:  # Enter: found and highlighted (on_view), never failed
            tok = state.found(s, typed)
            return changes(
                CHANGE_OUTPUTS,
                message=f"{tok} found: highlighted on the drawing and the cable map (Enter "
                "fails nothing; Apply click does what a click does)",
            )
        elif trig == ids.FAIL_BTN:  # the button: what a click does
            tok = state.typed_id(typed)
            if mode == "inspect":  # selects it (on_view writes the #fragment); fails nothing
                state.find(s, tok)
                return changes(
                    CHANGE_OUTPUTS, message=f"{tok} selected: inspecting fails nothing", typed=""
                )
            s, msg = state.toggle(s, tok, mode or "fail")
        elif trig == ids.REPAIR_ALL:
            s, msg = state.repair_all(s), "everything repaired"
        elif trig == ids.PRESET and preset:
            s = state.preset(preset)
            msg = f"preset: {state.PRESETS[preset][0]}"
        elif trig == ids.FABRIC and fabric and fabric != s.fabric:
            s, dropped = state.set_fabric(s, fabric)
            msg = "; ".join([f"fabric: {fabric}", *dropped])
        elif trig == ids.WORKLOAD:
            s = state.set_workload(s, workload)
        elif trig == ids.AT:
            s = state.set_at(s, at)
        elif trig == ids.ETH_PORTS:
            s = state.set_eth_bw(s, eth)
        elif trig == ids.FEATURES:
            s = state.set_features(s, features)
        elif trig == ids.ISSU:
            s = state.set_update(s, update)
        else:  # the URL itself: a link opened, or back/forward
            return changes(CHANGE_OUTPUTS, **_controls_of(s), message="")
    except ScenarioError as e:
        # a typed ID that is wrong stays in the box, to be corrected; the message names it
        return changes(CHANGE_OUTPUTS, preset=None, message=e.message)
    typed_out = "" if trig == ids.FAIL_BTN else no_update
    controls = _controls_of(s)
    if trig in (ids.L2, ids.FAIL_BTN):
        # a press changes the faults (or a switch update): the controls that show the same
        # as before are not sent again (each one sent re-renders it: issue 13's press budget)
        shown = _controls_of(before)
        controls = {k: v for k, v in controls.items() if not _same(shown[k], v)}
    return changes(CHANGE_OUTPUTS, search=state.url_of(s), **controls, message=msg, typed=typed_out)


def copy_link(
    _clicks: int | None, href: str | None, path: str | None, search: str | None, hash_: str | None
) -> dict[str, str]:
    """The page's link as it is now (dcc.Clipboard copies it): the origin it was opened at,
    then the path, the query (the scenario) and the #fragment (the view), which change after
    it opened."""
    origin = urlsplit(href or "")
    query = (search or "").lstrip("?")
    link = urlunsplit((origin.scheme, origin.netloc, path or "/", query, ""))
    return {"content": link + (hash_ or "")}


def register(app: Dash) -> None:
    """The URL-owning callback and what the copy-link button copies. The #fragment's is
    fragment.py's."""
    app.callback(
        output={"content": Output(ids.COPY_LINK, "content")},
        inputs={"_clicks": Input(ids.COPY_LINK, "n_clicks")},
        state={
            "href": State(ids.URL, "href"),
            "path": State(ids.URL, "pathname"),
            "search": State(ids.URL, "search"),
            "hash_": State(ids.URL, "hash"),
        },
        prevent_initial_call=True,
    )(copy_link)
    app.callback(
        output=_change_outputs(),
        inputs={
            "search": Input(ids.URL, "search"),
            "click": Input(ids.RACK_PRESS, "data"),
            "l2_click": Input(ids.L2, "clickData"),
            "fail_clicks": Input(ids.FAIL_BTN, "n_clicks"),
            "submits": Input(ids.ID_INPUT, "n_submit"),
            "repair_clicks": Input(ids.REPAIR_ALL, "n_clicks"),
            "preset": Input(ids.PRESET, "value"),
            "fabric": Input(ids.FABRIC, "value"),
            "workload": Input(ids.WORKLOAD, "value"),
            "at": Input(ids.AT, "value"),
            "eth": Input(ids.ETH_PORTS, "value"),
            "features": Input(ids.FEATURES, "value"),
            "update": Input(ids.ISSU, "value"),
        },
        state={
            "followed": State(ids.LIVE_FOLLOWED, "data"),
            "typed": State(ids.ID_INPUT, "value"),
            "mode": State(ids.CLICK_MODE, "value"),
            "rack": State(ids.RACK_SELECT, "value"),
        },
    )(on_change)
