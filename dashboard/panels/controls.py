"""The scenario's controls as laid out (dashboard/panels/scenario.py owns the one callback that
writes the URL and sets these from it): fabric, workload, interactivity, Ethernet, switch
update, preset, click mode, the features in the fabric's own words, the find box and where the
page says what a click did; and each control's options for a fabric."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from dashboard import ids, state
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
from model.registry import kind_named
from model.scenario import (
    AT_RANGE,
    DEFAULT_AT,
    DOMAIN_UNMODELLED,
    Scenario,
    rack_fabric,
)
from model.workloads import words as decode_words
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


def not_on_domains(what: str) -> str:
    """Why a control is disabled on a multi-rack domain (DOMAIN_UNMODELLED)."""
    return f"Disabled on multi-rack domains: {what} are not modelled there yet"


def mode_options(fabric_key: str) -> list[dict[str, Any]]:
    """The click modes; marking flaky is disabled on a multi-rack domain."""
    domain = kind_named(fabric_key).several_racks and DOMAIN_LIMITED
    return [
        {"label": "fails / repairs", "value": "fail"},
        {
            "label": html.Span(
                "marks flaky", title=not_on_domains("flaky links") if domain else ""
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
                        # Dash 4 draws its - and + inside the box: room for "1,000"
                        style={"width": "8em"},
                    ),
                    html.Span(" tokens/s per user"),
                ]
            ),
            html.Span(decode_words.interactivity(DEFAULT_AT), id=ids.AT_WORDS, className="note"),
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
    off = not_on_domains("feature switches") + ". " if domain else ""
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


def update_options(fabric: str) -> list[dict[str, str]]:
    """The switch-update menu of a fabric: none, all (rolling), each switch tray; on a
    multi-rack domain each rack's L1 trays (rNN.stK) and the L2 trays (l2.tNN)."""
    head = [{"label": "none", "value": ""}, {"label": "all trays, rolling", "value": "all"}]
    known = fabric in FABRICS or fabric in DOMAINS  # a crafted request may name any
    return head + [
        {"label": x, "value": x} for x in update_ids(fabric if known else DEFAULT_FABRIC)
    ]
