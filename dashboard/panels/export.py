"""The export panel: the scenario's results as JSON, or as CSV (a key-value DataFrame written
by pandas through dcc.send_data_frame). A download; nothing is stored."""

from __future__ import annotations

import json
from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, html

from dashboard import ids, state
from dashboard.infra import results
from dashboard.panels.tables import key_values
from model.scenario import Scenario


def layout() -> html.Section:
    """The results as JSON or CSV (the Download they fill), and the page as a printed report."""
    return html.Section(
        className="panel export",
        children=[
            html.H2("Export"),
            html.Button("Results as JSON", id=ids.EXPORT_JSON, n_clicks=0),
            html.Button("Results as CSV", id=ids.EXPORT_CSV, n_clicks=0),
            html.Button(
                "Print a report (or save it as PDF)",
                id=ids.PRINT,
                title="The browser's print: the cards, the rack, the charts, what happened and "
                "the assumptions, laid out for paper (a print style sheet, assets/style.css)",
            ),
            html.Button(
                "Download the report (HTML)",
                id=ids.REPORT_HTML,
                title="One HTML file: the cards, what happened, the rack, the cable map and "
                "every chart (as images), the readers' questions and the assumptions; it "
                "prints well and opens offline (assets/report.js)",
            ),
            html.P(
                "A PDF: Print a report, then choose Save as PDF as the printer (the browser "
                "makes it; the page's print style sheet lays it out).",
                className="note",
            ),
            html.Span("Charts: the camera icon on each chart saves a PNG.", className="note"),
            dcc.Download(id=ids.DOWNLOAD),
        ],
    )


def filename(s: Scenario) -> str:
    """A file name from the scenario's key, safe on every file system."""
    key = s.key().replace("&", "_").replace("=", "-").replace(",", "+")
    return "fabric-twin-" + key[:120]


def export(json_clicks: int | None, csv_clicks: int | None, search: str | None) -> dict[str, Any]:
    """The scenario's results as JSON or CSV."""
    s = state.current(search).scenario
    r = results.result(s)
    name = filename(s)
    if ctx.triggered_id == ids.EXPORT_JSON:
        sent = dcc.send_string(json.dumps(r, indent=2, sort_keys=True), f"{name}.json")
    else:
        sent = dcc.send_data_frame(key_values(r).to_csv, f"{name}.csv", index=False)
    return {"download": sent}


def register(app: Dash) -> None:
    """The download, on either button (never on the page's first load)."""
    app.callback(
        output={"download": Output(ids.DOWNLOAD, "data")},
        inputs={
            "json_clicks": Input(ids.EXPORT_JSON, "n_clicks"),
            "csv_clicks": Input(ids.EXPORT_CSV, "n_clicks"),
        },
        state={"search": State(ids.URL, "search")},
        prevent_initial_call=True,
    )(export)
