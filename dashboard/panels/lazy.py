"""The page below the first screen, mounted after the first screen (issue 13's first-screen
budget). Every component on the page costs the browser's one thread at each dispatch of
Dash's renderer, every chart an empty first draw once plotly.js is in, and a link is
interactive when its rack and cards are: so the first page's layout holds the first screen,
the controls below it that the URL's #fragment sets (panels/fragment.py: the counter, the
link, the compared scenario) and the clock's pause, and an empty place (common.place) for
each part below. assets/later.js sets MOUNT once the reader first comes near the page below
(300 px before it scrolls in) or presses a report button, and one callback fills every place;
the parts' own callbacks then run as they mount, as for any component a callback adds. Not on
the first idle moment: each component mounted costs every dispatch of the renderer (~250 a
press), and a press on the first screen paid for the ~90 below it and for the link
telemetry's request, whose charts are among them.

Rule (tests/dashboard/test_ids.py): a callback naming a component mounted later has every
output mounted later (Dash prunes a callback whose outputs are all absent, and fails one with
some absent), and its inputs there or on the first page. Nothing of the scenario is decided
here, only when what shows it is built.
"""

from __future__ import annotations

from collections.abc import Callable

from dash import Dash, Input, Output
from dash.development.base_component import Component
from dash.exceptions import PreventUpdate

from dashboard import ids
from dashboard.panels import assumptions, buys, calibration, costs, export, fleet, telemetry


def _charts() -> list[Component]:
    return [*costs.decode_and_goodput(), *costs.timeline_and_latency()]


def _panels() -> list[Component]:
    return [
        buys.layout(),
        fleet.layout(),
        export.layout(),
        assumptions.layout(),
        calibration.layout(),
    ]


PARTS: dict[str, Callable[[], list[Component]]] = {
    ids.LAZY_CHARTS: _charts,
    **telemetry.LATER,
    ids.LAZY_PANELS: _panels,
}


def mounted() -> dict[str, list[Component]]:
    """Every part's sections, by its place's ID (the mount's answer; the validation layout)."""
    return {part: build() for part, build in PARTS.items()}


def register(app: Dash) -> None:
    """MOUNT set (assets/later.js) -> every part's sections in its place, once."""

    @app.callback(
        [Output(part, "children") for part in PARTS],
        Input(ids.MOUNT, "data"),
        prevent_initial_call=True,
    )
    def mount(go: object) -> list[list[Component]]:
        if not go:
            raise PreventUpdate
        return list(mounted().values())
