"""What every panel shares: named callback outputs, the chart component, the rack click.

Callbacks declare their outputs as a dict (Dash's flexible callback signatures) and return
one: `changes(KEYS, cards=...)` names what changed and leaves every other output as it is,
so adding an output never shifts the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dash import dcc, html, no_update

from dashboard.figures import rack as rack_figure
from dashboard.figures.base import NO_UPLOAD, UPLOAD_BUTTONS, blank_figure, empty_figure
from model.errors import ScenarioError
from model.kinds import ComponentKind as K
from model.multirack.domains import rack_id
from model.parts import part
from model.registry import kind_of
from model.scenario import Scenario, rack_fabric


def graph_config() -> dict:
    """A chart's dcc.Graph config (a fresh dict): no logo, PNG at twice the size, nothing
    that uploads the chart anywhere (NO_UPLOAD)."""
    return {
        **NO_UPLOAD,
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d", *UPLOAD_BUTTONS],
    }


def changes(keys: Iterable[str], **values: Any) -> dict[str, Any]:
    """Every output named in `keys`: the ones given, and no_update for the rest. An unknown
    name raises, so a misspelt output fails in the test, not silently in the browser."""
    keys = tuple(keys)
    unknown = set(values) - set(keys)
    if unknown:
        raise KeyError(f"no such output: {', '.join(sorted(unknown))}")
    return {k: values.get(k, no_update) for k in keys}


# What a static tree may hold, and of each element only these (assets/summary.js writes no other)
STATIC_TAGS = frozenset({"Div", "Span", "P", "B", "Li", "Tr", "Td", "Details", "Summary"})
STATIC_PROPS = ("className", "title", "open")  # and "was" (mark_was)


def static_html(node: Any) -> Any:
    """A tree of html components with no callbacks on it, as data the browser writes itself
    (assets/summary.js): text as text, an element as [tag, {className, title, open}, children].
    Dash's renderer gives every component it holds a wrapper that runs at each of its
    dispatches (~250 a press) and resets each one a callback replaces: the cards, counts,
    events and questions were ~80 of them, all new at every press (issue 13's press budget).
    Anything but plain html of STATIC_TAGS raises: a control here would lose its callbacks."""
    if node is None:
        return []
    if isinstance(node, str | int | float):
        return str(node)
    if isinstance(node, list | tuple):
        return [static_html(k) for k in node if k is not None]
    kind = type(node).__name__
    if getattr(node, "_namespace", None) != "dash_html_components" or kind not in STATIC_TAGS:
        raise TypeError(f"not static html: {kind}")
    if getattr(node, "id", None) is not None:
        raise TypeError(f"a static {kind} has no ID: {node.id}")
    props = {k: getattr(node, k) for k in STATIC_PROPS if getattr(node, k, None) is not None}
    kids = getattr(node, "children", None)
    return [kind.lower(), props, static_html(kids if isinstance(kids, list | tuple) else [kids])]


def _text(node: Any) -> str:
    """A static tree's text, as the browser's textContent reads it."""
    if isinstance(node, str):
        return node
    return "".join(_text(k) for k in node[2]) if isinstance(node, list) and len(node) == 3 else ""


def _cards_of(tree: Any) -> list[tuple[str, list]]:
    """Each card's title and its value element in a static tree (cards.py: card)."""
    if not isinstance(tree, list):
        return []
    if len(tree) == 3 and isinstance(tree[0], str) and isinstance(tree[1], dict):
        kids = [k for k in tree[2] if isinstance(k, list) and len(k) == 3]
        title = [k for k in kids if k[1].get("className") == "card-title"]
        value = [k for k in kids if k[1].get("className") == "card-value"]
        if title and value:
            return [(_text(title[0]), value[0])]
        return [c for k in tree[2] for c in _cards_of(k)]
    return [c for k in tree for c in _cards_of(k)]


def mark_was(cards: list, search: str, memory: dict | None) -> dict:
    """Each headline card's value before the last change of scenario, written as its value's
    "was" (data-was, shown by style.css) where it differs (issue 13, "what changed"): both
    values are the server's text. `memory` is the page's {"search", "shown", "before"} (the
    cards of the scenario on show and of the one before it); its next state is returned."""
    m = memory if isinstance(memory, dict) else {}
    before = m.get("before") or {}
    if m.get("search") != search and "search" in m:  # a new scenario: what was shown is before
        before = m.get("shown") or {}
    shown = {}
    for title, value in _cards_of(cards):
        shown[title] = now = _text(value)
        was = before.get(title)
        if was is not None and was != now:
            value[1]["was"] = f"was {was}"
    return {"search": search, "shown": shown, "before": before}


BELOW = "Drawn when this part of the page first comes into view."


def graph(gid: str, height: int, cls: str = "chart", config: Mapping | None = None) -> dcc.Graph:
    """A chart of the page: SVG, PNG export from its toolbar, a fixed height. A chart (cls
    'chart', below the first screen: panels/below.py) says it is drawn once in view until
    it is, never an empty frame of axes; the first screen's (the rack, the cable map) are
    blank until their first answer (figures.base.blank_figure)."""
    if cls == "chart":
        figure = empty_figure(BELOW)
        figure["layout"]["meta"]["placeholder"] = True  # assets/later.js waits past it
    else:
        figure = blank_figure()
    return dcc.Graph(
        id=gid,
        figure=figure,
        config=dict(config) if config else graph_config(),
        style={"height": f"{height}px"},
        className=cls,
    )


def place(part: str) -> html.Div:
    """Where a part of the page mounted after the first screen goes (panels/lazy.py): an
    empty box laid out as if it were not there (display: contents, assets/style.css), so what
    fills it sits in the page's grid."""
    return html.Div(id=part, className="lazy", children=[])


def series_of(s: Scenario, cid: str | None) -> str | None:
    """cid if it names a link or a cable of the scenario's (single-rack) fabric, whose
    telemetry has a series; else None."""
    if not cid:
        return None
    try:
        p = part(s, cid)
    except ScenarioError:
        return None
    # a domain's rack part has its series on its rack's page (panels/telemetry.py)
    return cid if p.kind in (K.LINK, K.CABLE) and p.rack is None else None


def clicked_id(s: Scenario, click: dict | None, rack: str | None) -> str | None:
    """The component a click (or hover) on the rack figure names: on a multi-rack domain, the
    part of the rack on show (r03.gpu07-...)."""
    local = rack_figure.click_to_id(rack_fabric(s).key, click)
    if not kind_of(s).several_racks:
        return local
    return f"{rack or rack_id(0)}.{local}" if local else None
