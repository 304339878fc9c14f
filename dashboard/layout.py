"""The page: each panel's layout (dashboard/panels/), composed in reading order. Static shell
only; the panels' callbacks fill it from the URL."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from dashboard import ids
from dashboard.panels import (
    below,
    cards,
    clock,
    compare,
    controls,
    faults,
    lazy,
    live,
    rack,
    telemetry,
)
from dashboard.panels.common import place
from dashboard.panels.sources import cite


def header() -> html.Header:
    """The title and how to use the page, on one line where it fits."""
    return html.Header(
        className="header",
        children=[
            html.H1("NVLink fabric twin"),
            html.P(
                [
                    (
                        "Click any cable, GPU, chip, controller or tray to fail it; click again "
                        "to repair. The URL is the whole view: share it and it opens the same "
                        "anywhere. "
                    ),
                    *cite("Numbers cite FACTS.md; [A] marks assumptions; docs/MODEL.md "),
                    "explains the model. ",
                    html.A(
                        "The AI factory over a year",
                        id=ids.HIST_OPEN,
                        href="/fleet",
                        title="This scenario's fabric and features on a job of many racks "
                        "over a year: one sampled history played, its faults as they arrive "
                        "(the /fleet page)",
                    ),
                ]
            ),
            html.Button(
                "Present",
                id=ids.PRESENT,
                title="Presentation mode: the rack and the headline cards only, large type "
                "(Esc leaves it)",
            ),
        ],
    )


def first_screen() -> html.Section:
    """What a person sees without scrolling (issue 13): the rack (its drawing and cable map)
    and, beside it, what a click did, the headline cards, the controls and what happened.
    On a phone the rack comes first, the rest under it (assets/style.css)."""
    return html.Section(
        className="top",
        children=[
            html.Div(className="top-rack", children=[rack.layout(controls.find_box())]),
            html.Div(
                className="top-side",
                children=[
                    *controls.messages(),
                    faults.layout(),
                    cards.layout(),
                    controls.layout(),
                    cards.side(),
                ],
            ),
        ],
    )


def layout() -> html.Div:
    """The page shell; the URL fills it."""
    return html.Div(
        className="page",
        id=ids.PAGE,
        children=[
            dcc.Location(id=ids.URL, refresh=False),
            dcc.Store(id=ids.RACK_FABRIC),
            dcc.Store(id=ids.RACK_VIEW),
            dcc.Store(id=ids.READY),
            *below.stores(),
            *clock.stores(),
            header(),
            live.layout(),
            first_screen(),
            html.Section(
                className="charts",
                children=[place(ids.LAZY_CHARTS), *telemetry.layout()],
            ),
            compare.layout(),
            place(ids.LAZY_PANELS),
        ],
    )


def validation_layout() -> html.Div:
    """The page with every part below the first screen mounted (panels/lazy.py): what Dash
    checks the callbacks against, and what the ID tests read."""
    page = layout()
    parts = lazy.mounted()

    def fill(node: Any) -> None:
        if getattr(node, "id", None) in parts:
            node.children = parts[node.id]
            return
        kids = getattr(node, "children", None)
        for k in kids if isinstance(kids, list | tuple) else [kids]:
            if hasattr(k, "to_plotly_json"):
                fill(k)

    fill(page)
    return page
