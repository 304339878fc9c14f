"""The simulated clock the telemetry and the timeline read: a store, a tick, a pause button.

It runs in the browser (a dcc.Interval and a dcc.Store), never in a server process, so
every worker serves any tick.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, dcc, html

from dashboard import ids

TICK_MS = 3000  # the simulated clock ticks every three seconds
CLOCK_STEP_S = 1800.0  # and moves half a simulated hour a tick
CLOCK_START_S = 3600.0  # counters read an hour after they were cleared


def stores() -> list[Any]:
    """The clock's store and its ticking Interval (invisible)."""
    return [
        dcc.Store(id=ids.CLOCK, data=CLOCK_START_S),
        dcc.Interval(id=ids.TICK, interval=TICK_MS, disabled=False),
    ]


def pause_button() -> html.Button:
    """Pauses and resumes the clock (the telemetry panel shows it)."""
    return html.Button("Pause clock", id=ids.PAUSE, n_clicks=0)


def tick(n_intervals: int | None, clock: float | None) -> dict[str, float]:
    """The clock half a simulated hour on."""
    return {"clock": float(clock or CLOCK_START_S) + CLOCK_STEP_S}


def pause(n_clicks: int | None) -> dict[str, Any]:
    """Every other press pauses."""
    paused = bool(n_clicks and n_clicks % 2)
    return {"disabled": paused, "label": "Resume clock" if paused else "Pause clock"}


def register(app: Dash) -> None:
    """The tick and the pause button."""
    app.callback(
        output={"clock": Output(ids.CLOCK, "data")},
        inputs={"n_intervals": Input(ids.TICK, "n_intervals")},
        state={"clock": State(ids.CLOCK, "data")},
    )(tick)
    app.callback(
        output={"disabled": Output(ids.TICK, "disabled"), "label": Output(ids.PAUSE, "children")},
        inputs={"n_clicks": Input(ids.PAUSE, "n_clicks")},
    )(pause)
