"""The scenario's owner: the controls, and the one callback that writes the URL's query.

Every click and control becomes a new URL (the query is the scenario), and the controls
follow the URL. The view options that are not the scenario (counter, link, compare, click
mode, the rack on show) live in the URL's #fragment, written by fragment.py. Every other
callback only reads the URL, so the view is always the link.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update
from plotly.utils import PlotlyJSONEncoder

from dashboard import ids, state
from dashboard.figures import l2_click_to_id
from dashboard.panels.common import changes
from model import words
from model.errors import ScenarioError
from model.fabric.features import FEATURES, defaults_for, lacks, meaning
from model.fabric.presets import (
    DEFAULT_FABRIC,
    ETH_PORT_CHOICES,
    ETH_X72,
    FABRICS,
    Fabric,
    eth_ports_tbs,
    eth_ports_words,
)
from model.multirack.domains import DOMAINS
from model.parts import update_ids
from model.registry import kind_named, kind_of
from model.scenario import (
    AT_RANGE,
    DEFAULT_AT,
    DOMAIN_UNMODELLED,
    ETH_BW_FABRICS,
    Scenario,
    rack_fabric,
)
from model.workloads.models import WORKLOADS


def _label(text: str, child: Any, hint: str = "", box: str | None = None) -> html.Label:
    extra = {"id": box} if box else {}
    return html.Label(className="control", title=hint, children=[html.Span(text), child], **extra)


UPDATE_HINT = "A switch firmware update: in service with ISSU on, a window without it"
WORKLOAD_HINT = "The model whose decode, training step and goodput the cards show"
MODE_HINT = "What a click on the rack (or the Apply button beside the find box) does"
FIND_HINT = (
    "Find any cable, link, GPU, chip, controller or tray by its ID, in any case: suggestions "
    "as you type; Enter highlights it on the drawing and the cable map and fails nothing"
)


# A control is disabled on a multi-rack domain only while the model says something is not
# modelled there (model.scenario.DOMAIN_UNMODELLED); with nothing left, a domain has them all.
DOMAIN_LIMITED = bool(DOMAIN_UNMODELLED)


def _not_on_domains(what: str) -> str:
    """Why a control is disabled on a multi-rack domain (DOMAIN_UNMODELLED)."""
    return f"Disabled on multi-rack domains: {what} are not modelled there yet"


def mode_options(fabric_key: str) -> list[dict[str, Any]]:
    """The click modes; marking flaky is disabled on a multi-rack domain."""
    domain = kind_named(fabric_key).several_racks and DOMAIN_LIMITED
    return [
        {"label": "fails / repairs", "value": "fail"},
        {
            "label": html.Span(
                "marks flaky", title=_not_on_domains("flaky links") if domain else ""
            ),
            "value": "flaky",
            "disabled": domain,
        },
        {"label": "inspects", "value": "inspect"},
    ]


def layout() -> html.Section:
    """Fabric, workload, features, updates, presets, click mode (the find box is the
    header's: find_box)."""
    return html.Section(
        className="controls",
        children=[
            _label(
                "Fabric",
                dcc.Dropdown(
                    id=ids.FABRIC,
                    options=[{"label": f.name, "value": k} for k, f in FABRICS.items()]
                    + [{"label": d.name, "value": k} for k, d in DOMAINS.items()],
                    value=DEFAULT_FABRIC,
                    clearable=False,
                ),
            ),
            _label(
                "Workload",
                dcc.Dropdown(
                    id=ids.WORKLOAD,
                    options=[{"label": v, "value": k} for k, v in WORKLOADS.items()],
                    value="deepseek-r1",
                    clearable=False,
                ),
                WORKLOAD_HINT,
                ids.WORKLOAD_BOX,
            ),
            _interactivity(),
            _ethernet(),
            _label(
                "Switch update",
                dcc.Dropdown(
                    id=ids.ISSU,
                    options=update_options("vr-nvl72"),
                    value="",
                    clearable=False,
                ),
                UPDATE_HINT,
                ids.ISSU_BOX,
            ),
            _label(
                "Preset",
                dcc.Dropdown(
                    id=ids.PRESET,
                    options=[
                        {"label": label, "value": k} for k, (label, _q) in state.PRESETS.items()
                    ],
                    placeholder="load a scenario…",
                ),
            ),
            _label(
                "A click",
                dcc.RadioItems(
                    id=ids.CLICK_MODE,
                    options=mode_options(DEFAULT_FABRIC),
                    value="fail",
                    inline=True,
                ),
                MODE_HINT,
            ),
            _repair_and_share(),
            html.Div(
                id=ids.FEATURES_BOX,
                className="control features",
                children=[
                    html.Span(features_title(DEFAULT_FABRIC), id=ids.FEATURES_TITLE),
                    dcc.Checklist(
                        id=ids.FEATURES,
                        options=feature_options(DEFAULT_FABRIC),
                        value=[f.key for f in FEATURES],
                        inline=True,
                    ),
                ],
            ),
        ],
    )


AT_HINT = (
    "The interactivity the deployment runs at (at=): decode's headline, the degraded rate "
    "goodput charges a fault, and the repair optimiser read the frontier there"
)
ETH_HINT = (
    "The Ethernet each GPU has (eth_bw=): eth-x72's own, and the Ethernet vr-nvl72 is held "
    "against in decode; the model spreads it over eth-x72's 36 switch planes"
)
ETH_ONLY = "Ethernet's bandwidth applies to eth-x72 and to vr-nvl72's Ethernet baseline only"


def _interactivity() -> html.Div:
    """The interactivity control: a number (tokens/s per user) and the same in words."""
    return html.Div(
        className="control typed",
        title=AT_HINT,
        children=[
            html.Label(
                [
                    html.Span("Interactivity "),
                    dcc.Input(
                        id=ids.AT,
                        type="number",
                        min=AT_RANGE[0],
                        max=AT_RANGE[1],
                        step="any",
                        value=DEFAULT_AT,
                        debounce=True,
                        className="number",
                        style={"width": "5em"},
                    ),
                    html.Span(" tokens/s per user"),
                ]
            ),
            html.Span(words.interactivity(DEFAULT_AT), id=ids.AT_WORDS, className="note"),
        ],
    )


def _ethernet() -> html.Label:
    """The Ethernet menu (eth_bw=) in Ethernet's words: ports a GPU x speed."""
    return _label(
        "Ethernet a GPU",
        dcc.Dropdown(
            id=ids.ETH_PORTS,
            options=eth_options(None),
            value=f"{ETH_X72.gpu_tbs_bidir:g}",
            clearable=False,
        ),
        ETH_HINT,
        ids.ETH_PORTS_BOX,
    )


def eth_options(eth_bw: float | None) -> list[dict[str, str]]:
    """The Ethernet menu: ports a GPU x speed (presets.ETH_PORT_CHOICES), and the URL's own
    eth_bw= when it is none of them."""
    opts = [
        {"label": eth_ports_words(eth_ports_tbs(n, g)), "value": f"{eth_ports_tbs(n, g):g}"}
        for n, g in ETH_PORT_CHOICES
    ]
    if eth_bw is not None and f"{eth_bw:g}" not in {o["value"] for o in opts}:
        opts.append({"label": f"{eth_ports_words(eth_bw)}, from the link", "value": f"{eth_bw:g}"})
    return opts


def find_box() -> html.Div:
    """The find box (beside the rack's heading, on the first screen): any ID, any case, the
    fabric's own IDs suggested (finder.py); Enter highlights the part, Apply click does what
    a click does."""
    return html.Div(
        className="control typed find",
        title=FIND_HINT,
        children=[
            dcc.Input(
                id=ids.ID_INPUT,
                type="search",
                placeholder="find: gpu07-st3.sw2.c0, Enter",
                maxLength=40,
                debounce=False,  # each key asks for suggestions; Enter finds
                spellCheck=False,
                autoComplete="off",
                list=ids.FIND_OPTIONS,
            ),
            html.Datalist(id=ids.FIND_OPTIONS),
            html.Button(
                "Apply click",
                id=ids.FAIL_BTN,
                n_clicks=0,
                title="Does to the ID in the box what a click does (fail or repair, "
                "mark flaky, inspect); Enter only finds it",
            ),
        ],
    )


def _repair_and_share() -> html.Div:
    return html.Div(
        className="control typed",
        children=[
            html.Button("Repair all", id=ids.REPAIR_ALL, n_clicks=0),
            # Dash's own clipboard (shown where the browser grants one: https or localhost);
            # what it copies is copy_link's answer, the URL as it is at the click
            dcc.Clipboard(
                id=ids.COPY_LINK,
                className="copy-link",
                title="Copy this view's link (the scenario and the view) to share it",
                children=html.Button("Copy link"),
                copied_children=html.Button("Link copied", className="copied"),
            ),
        ],
    )


def _rack_fabric(fabric_key: str) -> Fabric:
    """The fabric of one rack: the preset's, or a multi-rack domain's racks'."""
    return rack_fabric(Scenario(fabric=fabric_key))


def features_title(fabric_key: str) -> str:
    """The features' heading in the fabric's own words: NVLink 6's, NVLink 5's, or what
    Ethernet does in their place."""
    tech = _rack_fabric(fabric_key).technology
    if tech == "Ethernet":
        return "What Ethernet does in place of NVLink's resiliency features (FACTS.md §3, [A])"
    return f"{tech} resiliency features (FACTS.md §3)"


def feature_options(fabric_key: str) -> list[dict[str, Any]]:
    """The checklist's options: each feature, its title saying why this fabric has it on or
    off by default, and what it does on and off."""
    key = _rack_fabric(fabric_key).key
    why = defaults_for(key)
    lacking = lacks(key)  # nothing to switch there: disabled, with why
    domain = kind_named(fabric_key).several_racks and DOMAIN_LIMITED
    off = _not_on_domains("feature switches") + ". " if domain else ""
    return [
        {
            "label": html.Span(
                f.name,
                title=f"{off}{meaning(key, f.key) or why[f.key][1]}. On: {f.on}. Off: {f.off}",
            ),
            "value": f.key,
            "disabled": bool(domain) or f.key in lacking,
        }
        for f in FEATURES
    ]


def messages() -> list[html.Div]:
    """Where the page says what it dropped from a link, what a click did, and why."""
    return [
        html.Div(id=ids.MESSAGES, className="messages", role="status", **{"aria-live": "polite"}),
        html.Div(id=ids.ACTION, className="action", role="status"),
        html.Div(id=ids.VIEW_MESSAGE, className="action", role="status"),
    ]


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
    }


CHANGE_OUTPUTS = tuple(_change_outputs())


def update_options(fabric: str) -> list[dict[str, str]]:
    """The switch-update menu of a fabric: none, all (rolling), each switch tray; on a
    multi-rack domain each rack's L1 trays (rNN.stK) and the L2 trays (l2.tNN)."""
    head = [{"label": "none", "value": ""}, {"label": "all trays, rolling", "value": "all"}]
    known = fabric in FABRICS or fabric in DOMAINS  # a crafted request may name any
    return head + [
        {"label": x, "value": x} for x in update_ids(fabric if known else DEFAULT_FABRIC)
    ]


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
        "features_box": _not_on_domains("feature switches") if limited else "",
        "update_disabled": limited,
        "update_options": update_options(s.fabric),
        "update_box": _not_on_domains("switch updates") if limited else UPDATE_HINT,
        "workload_disabled": limited,
        "workload_box": (
            _not_on_domains("decode, training and goodput") if limited else WORKLOAD_HINT
        ),
        "mode_options": mode_options(s.fabric),
        "at": s.at,
        "at_words": words.interactivity(s.at),
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
            "typed": State(ids.ID_INPUT, "value"),
            "mode": State(ids.CLICK_MODE, "value"),
            "rack": State(ids.RACK_SELECT, "value"),
        },
    )(on_change)
