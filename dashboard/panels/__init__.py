"""Panels of the page: each one's layout, callbacks and component IDs (dashboard/ids.py)
together, one module a panel.

    scenario     the controls and the one callback that writes the URL's query
    below        what is below the first screen waits until it is first seen
    lazy         ... and most of it is mounted only after the first screen is drawn
    fragment     the URL's #fragment: the view options that are not the scenario
    finder       the find box's suggestions as a person types
    faults       the faults as removable chips, undo and redo
    cards        the headline cards, what happened, the readers' questions, the counts
    rack         the rack and its spine (a Patch a click), a domain's L2 tier, the hover line
    costs        decode, goodput, latency, the newest fault's timeline
    telemetry    the counter heatmap and one link's series
    clock        the simulated clock they read
    live         live mode: the banner, what to do, the drain advice, the rack's changes
    compare      a second scenario beside this one
    fleet        the fleet study, a background callback (its watchdog: fleet_watchdog)
    history_page the /fleet page: one sampled history played (its answer: history_answer)
    export       results as JSON or CSV
    assumptions  every constant on the page and its source (static)
    calibration  every published point against the model (built when opened)

dashboard/layout.py composes their layouts; `register` wires every callback.
"""

from __future__ import annotations

from typing import Any

from dash import Dash

from dashboard.panels import (
    assumptions,
    below,
    calibration,
    cards,
    clock,
    compare,
    costs,
    export,
    faults,
    finder,
    fleet,
    fragment,
    history_page,
    lazy,
    live,
    rack,
    scenario,
    telemetry,
)

__all__ = ["register"]


def register(app: Dash, background_manager: Any) -> None:
    """Every panel's callbacks on `app`; the fleet study's on the background manager."""
    scenario.register(app)
    live.register(app)
    finder.register(app)
    fragment.register(app)
    faults.register(app)
    cards.register(app)
    below.register(app)
    lazy.register(app)
    rack.register(app)
    costs.register(app)
    telemetry.register(app)
    clock.register(app)
    compare.register(app)
    export.register(app)
    calibration.register(app)
    assumptions.register(app)
    fleet.register(app, background_manager)
    history_page.register_link(app)  # the link to /fleet (the page mounts itself: app.py)
