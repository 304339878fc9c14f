"""The rack panel: the rack and its 5,184-cable spine, the L2 tier of a multi-rack domain, and
the hovered part with its telemetry.

The rack redraws from the URL, its request beside the cards' (not after them: a press is a
round trip less): the whole figure (and cable map) when the fabric changes, otherwise only a
dash.Patch of the overlays and of the hover labels and map cells that changed since the
scenario drawn (docs/ARCHITECTURE.md, "Fast and exact": a few KB, not 530).
"""

from __future__ import annotations

import math
from typing import Any

from dash import Dash, Input, Output, State, dcc, html, no_update
from dash.development.base_component import Component
from dash.exceptions import PreventUpdate

from dashboard import ids, state, view
from dashboard.figures import l2_figure
from dashboard.figures import rack as rack_figure
from dashboard.figures.base import blank_figure
from dashboard.figures.rack import cablemap
from dashboard.panels.clock import CLOCK_START_S
from dashboard.panels.common import changes, clicked_id, graph, graph_config, series_of
from model import telemetry
from model.errors import ScenarioError
from model.multirack.domains import rack_id
from model.parts import part
from model.query import parse_query
from model.registry import kind_of
from model.scenario import Scenario


def _rack_graph() -> dcc.Graph:
    g = graph(ids.RACK, 680, "rack", rack_figure.graph_config())
    g.clear_on_unhover = True  # the hover line clears when the pointer leaves
    return g


def _keys(box_id: str, what: str, child: Component) -> html.Div:
    """A view the keyboard can reach (Tab), whose parts the arrow keys walk and Enter presses
    (assets/present.js)."""
    return html.Div(
        id=box_id,
        className="keys",
        tabIndex="0",
        title=f"Arrow keys walk the {what}; Enter or Space does what a click does",
        **{"aria-label": f"{what}: arrow keys to walk, Enter to press"},
        children=[child],
    )


def _views() -> html.Div:
    """The physical drawing and, beside it, the cable map (a cell a cable), linked: hovering
    a cable on either lights it on both (assets/rack_press.js)."""
    cable_map = graph(ids.CABLE_MAP, 680, "cable-map", cablemap.graph_config())
    return html.Div(
        className="rack-views",
        children=[
            _keys(ids.RACK_KEYS, "rack's parts, tray by tray", _rack_graph()),
            _keys(ids.MAP_KEYS, "cable map's cables", cable_map),
        ],
    )


def layout(find: Component | None = None) -> html.Div:
    """The rack (and a domain's rack picker and L2 tier), with the hover line under it; the
    find box (controls.find_box) beside its heading, on the first screen."""
    return html.Div(
        className="panel rack-panel",
        children=[
            html.Div(
                className="rack-head",
                children=[html.H2("The rack and its scale-up spine"), *([find] if find else [])],
            ),
            html.Div(
                id=ids.RACK_SELECT_BOX,
                className="rack-select",
                style={"display": "none"},
                children=[
                    html.Span("Rack of the domain "),
                    dcc.Dropdown(
                        id=ids.RACK_SELECT,
                        options=[f"r{i:02d}" for i in range(1, 17)],
                        value="r01",
                        clearable=False,
                    ),
                ],
            ),
            _views(),
            dcc.Store(id=ids.RACK_PRESS),
            dcc.Graph(
                id=ids.L2,
                figure=blank_figure(),
                config=graph_config(),
                style={"height": "260px", "display": "none"},
                className="l2",
            ),
            html.Div(id=ids.HOVER, className="hover-line", children=HOVER_HINT),
        ],
    )


def _rack_outputs() -> dict[str, Output]:
    return {
        "figure": Output(ids.RACK, "figure"),
        "map": Output(ids.CABLE_MAP, "figure"),
        "drawn": Output(ids.RACK_FABRIC, "data"),
        "view": Output(ids.RACK_VIEW, "data"),
    }


RACK_OUTPUTS = tuple(_rack_outputs())


def rack(
    search: str | None,
    rack_shown: str | None,
    hash_: str | None,
    drawn_fabric: str | None,
    drawn_view: str | None = None,
) -> dict[str, Any]:
    """The whole base figure when the fabric changes; otherwise only a Patch of overlays
    (and of the part selected in the #fragment, on the drawing and the map). On a multi-rack
    domain, the rack on show, drawn as the NVL72 it is. Nothing when what it would draw is
    what is drawn (the #fragment changes with a press, for the link the charts follow; the
    rack redraws once a press, for the new scenario)."""
    s = state.current(search).scenario
    v = view.parse(hash_)[0]
    selected, mode = v["sel"] or None, v["mode"]
    # what a press does (the click mode) and what it puts before a part's own ID (a
    # domain's rack on show), in the figure's meta for assets/rack_press.js
    prefix = ""
    if kind_of(s).several_racks:
        shown = _rack_number(s, rack_shown)
        selected = _in_rack(s, selected, shown)  # a part of the rack on show, as its own ID
        s = state.rack_scenario(s, shown)
        mode = "fail" if mode == "flaky" else mode  # a domain has no flaky links yet
        prefix = f"{rack_id(shown - 1)}."
    drawn = f"{mode}|{prefix}|{s.fabric}|{s.key()}|{selected or ''}"
    if drawn_fabric == s.fabric and drawn_view == drawn:
        raise PreventUpdate
    labels = rack_figure.label_data(s, mode)
    cols = cablemap.columns_of(s.fabric)
    if drawn_fabric != s.fabric:
        figure = rack_figure.full_figure(s, selected)
        figure["layout"]["meta"] = {**figure["layout"]["meta"], "mode": mode, "prefix": prefix}
        cable_map = cablemap.cable_map_figure(s.fabric, selected)
        rack_figure.label_patch(figure, cable_map, labels, None, cols)
        return changes(RACK_OUTPUTS, figure=figure, map=cable_map, drawn=s.fabric, view=drawn)
    patch = rack_figure.overlay_patch(s, selected)
    if (drawn_view or "").split("|")[:2] != [mode, prefix]:  # a layout change redraws it all
        patch["layout"]["meta"]["mode"] = mode
        patch["layout"]["meta"]["prefix"] = prefix
    map_patch = cablemap.selection_patch(s.fabric, selected)
    rack_figure.label_patch(patch, map_patch, labels, _drawn_labels(drawn_view, s.fabric), cols)
    return changes(RACK_OUTPUTS, figure=patch, map=map_patch, view=drawn)


def _drawn_labels(drawn_view: str | None, fabric: str) -> dict | None:
    """The labels drawn now (label_data of the scenario and click mode in the view drawn,
    `rack`'s `drawn`), or None when that names no scenario of this fabric."""
    mode, _, drawn_fabric, key, _ = ((drawn_view or "").split("|") + [""] * 5)[:5]
    if drawn_fabric != fabric:
        return None
    parsed = parse_query(key, strict=False)
    if parsed.errors or parsed.scenario.fabric != fabric:
        return None
    return rack_figure.label_data(parsed.scenario, mode)


def _in_rack(s: Scenario, cid: str | None, shown: int) -> str | None:
    """The local ID of a domain part found or inspected, if it is in rack `shown`
    (1-based): the rack's drawing rings it; anything else is not drawn there."""
    try:
        p = part(s, cid or "")
    except ScenarioError:
        return None
    return p.local if p.rack == shown - 1 else None


def _rack_number(s: Scenario, shown: str | None) -> int:
    """The 1-based rack of the domain on show (r01 when the picker names none of it)."""
    try:
        p = part(s, shown or rack_id(0))
    except ScenarioError:
        return 1
    return 1 if p.rack is None else p.rack + 1


def _l2_outputs() -> dict[str, Output]:
    return {
        "figure": Output(ids.L2, "figure"),
        "style": Output(ids.L2, "style"),
        "picker": Output(ids.RACK_SELECT_BOX, "style"),
    }


L2_OUTPUTS = tuple(_l2_outputs())


def l2_chart(
    search: str | None, hash_: str | None = None, shown: dict | None = None
) -> dict[str, Any]:
    """The L2 tier of a multi-rack domain (clickable, the part found or inspected ringed),
    or nothing on a single rack (no answer at all while it is hidden already: `shown` is
    the chart's style as drawn)."""
    s = state.current(search).scenario
    tiers = kind_of(s).several_racks  # an L2 tier to draw
    if not tiers and isinstance(shown, dict) and shown.get("display") == "none":
        raise PreventUpdate
    visible = {"display": "block"} if tiers else {"display": "none"}
    chart = {"display": "block", "height": "520px"} if tiers else {"display": "none"}
    # hidden: nothing to draw (a figure here costs the browser a draw)
    figure = l2_figure(s, view.parse(hash_)[0]["sel"] or None) if tiers else no_update
    return changes(L2_OUTPUTS, figure=figure, style=chart, picker=visible)


def rack_and_l2(
    search: str | None,
    rack_shown: str | None,
    hash_: str | None,
    drawn_fabric: str | None,
    drawn_view: str | None = None,
    l2_shown: dict | None = None,
) -> dict[str, Any]:
    """rack(...) and l2_chart(...) in one answer (the L2 tier's outputs named l2_*): they
    follow the same URL, and every callback a press sets off costs Dash's renderer the same
    pipeline of dispatches whatever it answers, so a press is one request fewer (issue 13's
    press budget). Nothing at all when neither has anything to send."""
    try:
        drawn = rack(search, rack_shown, hash_, drawn_fabric, drawn_view)
    except PreventUpdate:
        drawn = changes(RACK_OUTPUTS)
    try:
        tier = l2_chart(search, hash_, l2_shown)
    except PreventUpdate:
        tier = changes(L2_OUTPUTS)
    out = {**drawn, **{f"l2_{k}": v for k, v in tier.items()}}
    if all(v is no_update for v in out.values()):
        raise PreventUpdate
    return out


HOVER_HINT = (
    "Hover a cable or a part to read it (or Tab, then the arrow keys); a click follows the "
    "click mode."
)
# the counters the hover line shows, in people's words (model/telemetry/fields.py: UNITS)
_SHOWN = ((telemetry.REPLAY, "replays"), (telemetry.RECOVERY, "recoveries"))
_DOWN = ("failed", "idle (its link is down)", "drained (switch update)")


def _count(v: float | None) -> str:
    return "n/a" if v is None or math.isnan(v) else f"{int(v):,}"


def ber_text(v: float | None) -> str:
    """A bit error rate as people write it: one significant digit (3e-18), 0, or n/a."""
    if v is None or math.isnan(v):
        return "n/a"
    return "0" if v == 0 else f"{v:.0e}"


def hover(
    search: str | None, hover_data: dict | None, clock: float | None
) -> dict[str, str | list[Component]]:
    """The hovered part, its state in this scenario, and a link's or cable's telemetry now;
    the hint again once the pointer leaves the rack (clear_on_unhover)."""
    s = state.current(search).scenario
    cid = clicked_id(s, hover_data, None)
    if kind_of(s).several_racks and cid:
        name = part(s, cid).local or cid
        shown = [html.B(name), html.Span(" in the rack on show")]
        return {"details": shown}
    if not cid:
        return {"details": HOVER_HINT}
    what = rack_figure.part_state(s, cid)
    parts: list[Component] = [html.B(cid), html.Span(f" · {what}")]
    if series_of(s, cid):
        t = float(clock or CLOCK_START_S)
        try:
            ser = telemetry.link_series(s, cid, t, t, 1.0)
        except (ScenarioError, ValueError):
            ser = None
        if ser:
            for m, words in _SHOWN:
                if ser.get(m) is not None:
                    parts.append(html.Span(f" · {_count(ser[m][-1])} {words}"))
            if ser.get(telemetry.BER) is not None:
                ber = "n/a (down)" if what in _DOWN else ber_text(ser[telemetry.BER][-1])
                parts.append(html.Span(f" · BER {ber}"))
    return {"details": parts}


def register(app: Dash) -> None:
    """The rack's figure or Patch, the L2 tier, the hover line."""
    app.callback(
        output={**_rack_outputs(), **{f"l2_{k}": o for k, o in _l2_outputs().items()}},
        inputs={
            "search": Input(ids.URL, "search"),
            "rack_shown": Input(ids.RACK_SELECT, "value"),
            "hash_": Input(ids.URL, "hash"),
        },
        state={
            "drawn_fabric": State(ids.RACK_FABRIC, "data"),
            "drawn_view": State(ids.RACK_VIEW, "data"),
            "l2_shown": State(ids.L2, "style"),
        },
    )(rack_and_l2)
    app.callback(
        output={"details": Output(ids.HOVER, "children")},
        inputs={"search": Input(ids.URL, "search"), "hover_data": Input(ids.RACK, "hoverData")},
        state={"clock": State(ids.CLOCK, "data")},
    )(hover)
