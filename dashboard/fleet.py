"""The fleet study: lifetime goodput of many racks over years for every feature set, by seeded
Monte Carlo. Heavy enough to run as a Dash background callback, with progress and cancel:
on diskcache by default, on Celery workers when REDIS_URL is set."""

from __future__ import annotations

from dash import Dash, Input, Output, State, dcc, html

from model import goodput
from model.errors import ScenarioError

RUN = "fleet-run"
CANCEL = "fleet-cancel"
RACKS = "fleet-racks"
YEARS = "fleet-years"
PROGRESS = "fleet-progress"
PROGRESS_TEXT = "fleet-progress-text"
RESULT = "fleet-result"


def panel() -> html.Section:
    return html.Section(
        className="panel fleet",
        children=[
            html.H2("Fleet study: goodput of many racks over years (Monte Carlo)"),
            html.P(
                "Every feature set and fabric of the comparison, each a seeded Monte Carlo of "
                f"racks x years (at most {goodput.MAX_RACK_YEARS:,.0f} rack-years a row). It "
                "runs in the background: the page stays usable, and you can cancel it.",
                className="note",
            ),
            html.Div(
                className="control typed",
                children=[
                    html.Label(
                        [
                            "racks ",
                            dcc.Input(
                                id=RACKS, type="number", value=100, min=1, max=10_000, step=1
                            ),
                        ]
                    ),
                    html.Label(
                        [
                            "years ",
                            dcc.Input(id=YEARS, type="number", value=5, min=0.1, max=100, step=0.1),
                        ]
                    ),
                    html.Button("Run the study", id=RUN, n_clicks=0),
                    html.Button("Cancel", id=CANCEL, n_clicks=0, disabled=True),
                ],
            ),
            html.Progress(id=PROGRESS, value="0", max="10"),
            html.Span(id=PROGRESS_TEXT, className="note"),
            html.Div(id=RESULT),
        ],
    )


def study(set_progress, _n, racks, years) -> html.Div:
    """Run every comparison row's Monte Carlo, reporting progress after each."""
    try:
        racks = int(racks or 0)
        years = float(years or 0)
        if racks < 1 or racks > 10_000 or racks != float(racks):
            raise ScenarioError("racks must be a whole number from 1 to 10,000", "racks")
        rows = goodput.comparison_scenarios()
        done = []
        for i, (label, sc) in enumerate(rows):
            set_progress((str(i), str(len(rows)), f"{label}…"))
            r = goodput.monte_carlo(sc, years=years, racks=racks, key="fleet-study")
            done.append((label, r))
        set_progress((str(len(rows)), str(len(rows)), "done"))
    except ScenarioError as e:
        return html.Div(f"Fleet study refused: {e.message}", className="msg error")
    head = html.Tr(
        [
            html.Th(h)
            for h in (
                "configuration",
                "goodput",
                "p5 rack",
                "p95 rack",
                "largest loss, h per rack-year",
            )
        ]
    )
    body = []
    for label, r in done:
        worst = max(r["badput_hours_per_rack_year"], key=r["badput_hours_per_rack_year"].get)
        body.append(
            html.Tr(
                [
                    html.Td(label),
                    html.Td(f"{r['fraction']:.3%}"),
                    html.Td(f"{r['per_rack_fraction']['p5']:.3%}"),
                    html.Td(f"{r['per_rack_fraction']['p95']:.3%}"),
                    html.Td(
                        f"{worst.replace('_', ' ')}: {r['badput_hours_per_rack_year'][worst]:.0f}"
                    ),
                ]
            )
        )
    return html.Div(
        [
            html.P(
                f"{racks:,} racks x {years:g} years each, seeded: the same inputs give the "
                "same table.",
                className="note",
            ),
            html.Table([head, *body], className="compare-table"),
        ]
    )


def register(app: Dash, manager) -> None:
    app.callback(
        Output(RESULT, "children"),
        Input(RUN, "n_clicks"),
        State(RACKS, "value"),
        State(YEARS, "value"),
        background=True,
        manager=manager,
        running=[(Output(RUN, "disabled"), True, False), (Output(CANCEL, "disabled"), False, True)],
        cancel=[Input(CANCEL, "n_clicks")],
        progress=[
            Output(PROGRESS, "value"),
            Output(PROGRESS, "max"),
            Output(PROGRESS_TEXT, "children"),
        ],
        prevent_initial_call=True,
    )(study)
