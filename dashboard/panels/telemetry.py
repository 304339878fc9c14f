"""The telemetry panel: a GPU-by-plane heatmap of any DCGM counter at the simulated clock,
and one link's (or cable's) series up to it."""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, dcc, html

from dashboard import figures, ids, state
from dashboard.panels import clock
from dashboard.panels.common import changes, graph, single_rack
from dashboard.web import results
from model import telemetry
from model.errors import ScenarioError
from model.scenario import Scenario


def layout() -> list[html.Div]:
    """The counter heatmap (with the counter picker and the clock) and the one-link series."""
    return [
        html.Div(
            className="panel",
            children=[
                html.H2("Link telemetry (DCGM counters)"),
                html.Div(
                    className="telemetry-controls",
                    children=[
                        dcc.Dropdown(
                            id=ids.COUNTER,
                            options=[
                                {"label": m, "value": m} for m in (*telemetry.METRICS, "state")
                            ],
                            value=telemetry.REPLAY,
                            clearable=False,
                        ),
                        clock.pause_button(),
                        html.Span(id=ids.CLOCK_TEXT, className="clock"),
                    ],
                ),
                graph(ids.HEATMAP, 420),
            ],
        ),
        html.Div(
            className="panel",
            children=[
                html.H2("One link over time"),
                dcc.Input(
                    id=ids.LINK_INPUT,
                    type="text",
                    value="gpu07-st3.sw2",
                    maxLength=32,
                    debounce=True,
                    spellCheck=False,
                ),
                graph(ids.SERIES, 380),
            ],
        ),
    ]


def _outputs() -> dict[str, Output]:
    return {
        "heatmap": Output(ids.HEATMAP, "figure"),
        "series": Output(ids.SERIES, "figure"),
        "clock_text": Output(ids.CLOCK_TEXT, "children"),
    }


OUTPUTS = tuple(_outputs())


@single_rack(_outputs())
def telemetry_charts(
    search: str | None, counter: str | None, link: str | None, clock_s: float | None
) -> dict[str, Any]:
    """The GPU-by-plane heatmap of one counter at the simulated clock, and one link's series."""
    s = state.current(search).scenario
    t = float(clock_s or clock.CLOCK_START_S) % telemetry.MAX_T_S
    if counter not in (*telemetry.METRICS, "state"):
        counter = telemetry.REPLAY
    link = (link or "").strip()
    # Keyed on what the figures depend on: a room watching one link at one clock shares them.
    heat, line = _figures(s, counter, link, t)
    return changes(
        OUTPUTS,
        heatmap=heat,
        series=line,
        clock_text=f"simulated clock: {t / 3600:.1f} h since the counters were cleared",
    )


def _figures(s: Scenario, counter: str, link: str, t: float) -> list[dict]:
    """The heatmap and the series, built once per (scenario, counter, link, clock)."""
    return results.figure(
        "telemetry", [s.key(), counter, link, t], lambda: _telemetry_figures(s, counter, link, t)
    )


def _telemetry_figures(s: Scenario, counter: str, link: str, t: float) -> list[dict]:
    heat = figures.counters_heatmap_figure(telemetry.counters(s, t), counter)
    try:
        series = telemetry.link_series(s, link, 0.0, t, max(60.0, t / 240))
        line = figures.link_series_figure(series, counter)
    except (ScenarioError, ValueError) as e:
        line = figures.empty_figure(f"No series: {e}")
    return [heat, line]


def register(app: Dash) -> None:
    """Both charts from READY, the counter, the link and the clock."""
    app.callback(
        output=_outputs(),
        inputs={
            "search": Input(ids.READY, "data"),
            "counter": Input(ids.COUNTER, "value"),
            "link": Input(ids.LINK_INPUT, "value"),
            "clock_s": Input(ids.CLOCK, "data"),
        },
    )(telemetry_charts)
