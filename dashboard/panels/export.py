"""The export panel: the scenario's results as JSON, or as CSV (a key-value DataFrame written
by pandas through dcc.send_data_frame). A download; nothing is stored."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html import escape
from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import ids, state
from dashboard.infra import results
from dashboard.panels import assumptions, cards
from dashboard.panels.common import static_html
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
                "prints well and opens offline (built by the server, the drawings from the page)",
            ),
            html.P(
                "A PDF: Print a report, then choose Save as PDF as the printer (the browser "
                "makes it; the page's print style sheet lays it out).",
                className="note",
            ),
            html.Span("Charts: the camera icon on each chart saves a PNG.", className="note"),
            dcc.Download(id=ids.DOWNLOAD),
            dcc.Store(id=ids.REPORT_IMAGES),
            dcc.Download(id=ids.REPORT_DOWNLOAD),
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


REPORT_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111;"
    "max-width:1100px;margin:16px auto;padding:0 12px;line-height:1.35}"
    "h1{font-size:1.4rem}h2{font-size:1.1rem;margin:18px 0 6px}h3{font-size:.95rem}"
    ".note{color:#444;font-size:.85rem}"
    ".cards{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:6px}"
    ".card{border:1px solid #bbb;border-radius:6px;padding:6px 8px;break-inside:avoid}"
    ".card-title{font-size:.8rem;color:#444}.card-value{font-size:1.15rem;font-weight:600}"
    ".card-note,.card-healthy{font-size:.72rem;color:#444}"
    "table{border-collapse:collapse;width:100%;font-size:.8rem}"
    "td,th{border:1px solid #ccc;padding:2px 4px;text-align:left;vertical-align:top}"
    "figure{margin:8px 0;break-inside:avoid}figure img{max-width:100%;height:auto;"
    "border:1px solid #ddd}figcaption{font-size:.85rem;color:#444}"
    "@media print{body{margin:0;max-width:none}figure,.card,table{break-inside:avoid}}"
)
_ATTRS = {"className": "class", "title": "title", "href": "href", "colSpan": "colspan"}


def html_of(node: Any) -> str:
    """A static copy, as HTML, of html components or a static tree (common.static_html):
    text escaped, no IDs, nothing but html elements (a control or a dcc component is left
    out, as the browser's copy left out its buttons and inputs)."""
    if node is None:
        return ""
    if isinstance(node, str | int | float):
        return escape(str(node))
    if isinstance(node, list | tuple) and len(node) == 3 and isinstance(node[1], dict):
        tag, props, kids = node  # a static tree's element
        attrs = {"class": props.get("className"), "title": props.get("title")}
        attrs |= {"data-was": props.get("was"), "open": "" if props.get("open") else None}
    elif isinstance(node, list | tuple):
        return "".join(html_of(k) for k in node)
    elif getattr(node, "_namespace", None) == "dash_html_components":
        tag, kids = type(node).__name__.lower(), getattr(node, "children", None)
        attrs = {a: getattr(node, k, None) for k, a in _ATTRS.items()}
        attrs["open"] = "" if getattr(node, "open", None) else None
    else:
        return ""
    if tag in ("button", "input", "select", "textarea", "script"):
        return ""
    shown = "".join(f' {a}="{escape(str(v))}"' for a, v in attrs.items() if v is not None)
    return f"<{tag}{shown}>{html_of(kids)}</{tag}>"


def report_name(search: str | None) -> str:
    """The report's file name: the query, made safe for a file system."""
    q = re.sub(r"[^A-Za-z0-9.,=-]+", "_", (search or "").lstrip("?"))
    return ("fabric-twin-report" + (f"-{q}" if q else ""))[:120] + ".html"


def report(images: dict | None, search: str | None, href: str | None) -> dict[str, Any]:
    """The report as one HTML file with no script: the scenario, the cards, what happened,
    the counts, the page's drawings (SVG images from plotly's own export, sent by the page:
    assets/present.js), the readers' questions and the assumptions, with a print style
    sheet. The text is the model's answer for the URL's scenario, as the page shows it."""
    if not images or not images.get("images"):
        raise PreventUpdate
    out = cards.summary(search)
    static = {k: static_html(out[k]) for k in ("cards", "events", "counts", "questions")}
    figures = "".join(
        f'<figure><img alt="{escape(i["title"])}" src="{escape(i["src"])}">'
        f"<figcaption>{escape(i['title'])}</figcaption></figure>"
        for i in images["images"]
    )
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>NVLink fabric twin report</title><style>{REPORT_STYLE}</style></head><body>",
        "<h1>NVLink fabric twin: scenario report</h1>",
        (
            f'<p class="note">{escape(str(out["scenario"]))}<br>From {escape(href or "")} on '
            f"{when}. Every number is the twin's model answer for this scenario; [A] marks an "
            "assumption (see the last section).</p>"
        ),
        f'<h2>Headline figures</h2><section class="cards">{html_of(static["cards"])}</section>',
        f"<h2>What happened</h2><ol>{html_of(static['events'])}</ol>",
        f"<h2>Counts</h2><table>{html_of(static['counts'])}</table>",
        f"<h2>The rack and the charts</h2>{figures}",
        f"<h2>Readers' questions, for this scenario</h2><div>{html_of(static['questions'])}</div>",
        f"<h2>Assumptions and sources</h2><div>{html_of(assumptions.tables())}</div>",
        "</body></html>",
    ]
    return {"download": dcc.send_string("".join(body), report_name(search))}


def register(app: Dash) -> None:
    """The downloads: the results, on either button (never on the page's first load); the
    report, once the page has sent its drawings."""
    app.callback(
        output={"download": Output(ids.REPORT_DOWNLOAD, "data")},
        inputs={"images": Input(ids.REPORT_IMAGES, "data")},
        state={"search": State(ids.URL, "search"), "href": State(ids.URL, "href")},
        prevent_initial_call=True,
    )(report)
    app.callback(
        output={"download": Output(ids.DOWNLOAD, "data")},
        inputs={
            "json_clicks": Input(ids.EXPORT_JSON, "n_clicks"),
            "csv_clicks": Input(ids.EXPORT_CSV, "n_clicks"),
        },
        state={"search": State(ids.URL, "search")},
        prevent_initial_call=True,
    )(export)
