"""What is below the first screen (the charts, the compare table, what each feature buys)
is built and drawn once that part of the page first comes near the viewport, not on the first
page (issue 13's bench: a link is interactive when its rack and cards are, and drawing nine
charts nobody has scrolled to held the browser's one thread ~2 s before the rack).

READY (the search string, once the cards are out) is copied to LATER only once BELOW_SEEN is
set (assets/later.js: an IntersectionObserver on the page below the first screen, the report
buttons, or a phone's scroll); every panel below the first screen reads LATER, so from then on
it follows each change as before. Nothing of the scenario is decided here: which panels are
drawn, never what they show.
"""

from __future__ import annotations

from dash import ClientsideFunction, Dash, Input, Output, dcc
from dash.exceptions import PreventUpdate

from dashboard import ids


def stores() -> list[dcc.Store]:
    """BELOW_SEEN and MOUNT (set by the browser) and LATER (READY, once BELOW_SEEN is set)."""
    return [dcc.Store(id=ids.BELOW_SEEN), dcc.Store(id=ids.MOUNT), dcc.Store(id=ids.LATER)]


def unseen(search: str | None) -> None:
    """PreventUpdate while nothing below the first screen has been seen (LATER unset: None;
    the healthy rack's search is '', never None)."""
    if search is None:
        raise PreventUpdate


def register(app: Dash) -> None:
    """LATER follows READY once BELOW_SEEN is set (assets/later.js)."""
    app.clientside_callback(
        ClientsideFunction(namespace="below", function_name="later"),
        [Output(ids.LATER, "data")],
        Input(ids.READY, "data"),
        Input(ids.BELOW_SEEN, "data"),
    )
