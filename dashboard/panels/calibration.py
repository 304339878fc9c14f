"""The calibration panel: every published point the model uses, fitted or check, model against
published with the error, and each fitted term's sensitivity (issue 12, item 8). The table is
built when the panel is opened, once for every worker (the shared cache), from
model.workloads.checks.answer(), the same answer as GET /api/v1/calibration."""

from __future__ import annotations

from dash import Dash, Input, Output, html
from dash.exceptions import PreventUpdate

from dashboard import ids
from dashboard.figures.breakdown import SHORT
from dashboard.infra import results


def layout() -> html.Details:
    """Closed until opened: the summary, and a body the callback fills."""
    return html.Details(
        id=ids.CALIBRATION,
        className="panel calibration",
        children=[
            html.Summary(
                "Calibration: every published point, model against it",
                id=ids.CALIBRATION_SUMMARY,
            ),
            html.Div(id=ids.CALIBRATION_BODY, children=html.P("Building the table…")),
        ],
    )


def _fmt(v: float, unit: str) -> str:
    nd = 3 if unit == "x" else (2 if "ms" in unit else (1 if v < 1000 else 0))
    return f"{v:,.{nd}f}"


def _table(rows: list[dict]) -> html.Table:
    head = html.Tr([html.Th(h) for h in ("point", "published", "model", "error", "fitted", "note")])
    body = [
        html.Tr(
            className="fitted" if r["fitted"] else ("off" if abs(r["error_pct"]) > 25 else None),
            children=[
                html.Td(r["point"]),
                html.Td(f"{_fmt(r['published'], r['unit'])} {r['unit']}"),
                html.Td(_fmt(r["model"], r["unit"])),
                html.Td(f"{r['error_pct']:+.1f}%"),
                html.Td("fitted" if r["fitted"] else "check"),
                html.Td(r["note"]),
            ],
        )
        for r in rows
    ]
    return html.Table([head, *body], className="facts")


def _shares(points: list[dict]) -> html.Table:
    """Each part's share of the decode step at each interactivity (issue 29): the measured
    parts, and the one fitted residual, which the table names as such."""
    parts = list(points[0]["parts"])
    head = html.Tr(
        [html.Th("tokens/s per user"), html.Th("best deployment")]
        + [html.Th(SHORT.get(p, p)) for p in parts]
    )
    rows = [
        html.Tr(
            [html.Td(f"{x['tokens_per_s_per_user']:g}"), html.Td(x["deployment"])]
            + [html.Td(f"{x['parts'][p]:.1%}") for p in parts]
        )
        for x in points
    ]
    return html.Table([head, *rows], className="facts shares")


def body(answer: dict) -> list:
    """The panel's contents from the calibration answer."""
    terms = html.Table(
        [
            html.Tr([html.Th(h) for h in ("fitted term", "value", "sensitivity")]),
            *(
                html.Tr(
                    [
                        html.Td(t["term"]),
                        html.Td(f"{t['used']:g}"),
                        html.Td(
                            f"moving it 10% moves a fitted point at most {t['largest_move_pct']:.1f}%"
                        ),
                    ]
                )
                for t in answer["fitted_terms"]
            ),
        ],
        className="facts",
    )
    out: list = [
        html.P(answer["reading"]),
        html.H3("Decode: the fitted terms"),
        terms,
        html.H3("Decode: where a step's time goes, measured parts and the fitted residual"),
        _shares(answer["step_shares"]),
    ]
    for title, rows in answer["sections"].items():
        out += [html.H3(title), _table(rows)]
    out.append(
        html.P(
            [
                f"Source: {answer['source']}. ",
                html.A("The table on its own page", href="/docs/calibration", target="_blank"),
                "; how the terms are fitted: ",
                html.A("docs/CALIBRATION.md", href="/docs/CALIBRATION.md", target="_blank"),
                ".",
            ],
            className="note",
        )
    )
    return out


def fill(clicks: int | None) -> dict:
    """The body, once the panel's summary has been clicked open (a Details element does not
    tell Dash it opened; its summary's clicks do)."""
    if not clicks:
        raise PreventUpdate
    return {"body": body(results.calibration())}


def register(app: Dash) -> None:
    """Fill the panel when it is opened (its answer is the same for every scenario)."""
    app.callback(
        output={"body": Output(ids.CALIBRATION_BODY, "children")},
        inputs={"clicks": Input(ids.CALIBRATION_SUMMARY, "n_clicks")},
        prevent_initial_call=True,
    )(fill)
