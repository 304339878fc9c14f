"""The page: each panel's layout (dashboard/panels/), composed in reading order. Static shell
only; the panels' callbacks fill it from the URL."""

from __future__ import annotations

from dash import dcc, html

from dashboard import ids
from dashboard.panels import (
    assumptions,
    buys,
    calibration,
    cards,
    clock,
    compare,
    costs,
    export,
    fleet,
    rack,
    scenario,
    telemetry,
)


def header() -> html.Header:
    """The title and how to use the page."""
    return html.Header(
        className="header",
        children=[
            html.H1("NVLink fabric twin"),
            html.P(
                "Click any cable, GPU, chip, controller or tray to fail it; click again "
                "to repair. Everything you do is in the URL: share it and the same view "
                "opens anywhere. Numbers cite FACTS.md; [A] marks assumptions."
            ),
        ],
    )


def layout() -> html.Div:
    """The page shell; the URL fills it."""
    return html.Div(
        className="page",
        children=[
            dcc.Location(id=ids.URL, refresh=False),
            dcc.Store(id=ids.RACK_FABRIC),
            dcc.Store(id=ids.READY),
            *clock.stores(),
            header(),
            scenario.layout(),
            *scenario.messages(),
            cards.layout(),
            html.Section(className="main", children=[rack.layout(), cards.side()]),
            html.Section(
                className="charts",
                children=[
                    *costs.decode_and_goodput(),
                    *costs.timeline_and_latency(),
                    *telemetry.layout(),
                ],
            ),
            compare.layout(),
            buys.layout(),
            fleet.layout(),
            export.layout(),
            assumptions.layout(),
            calibration.layout(),
        ],
    )
