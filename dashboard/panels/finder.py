"""The find box's suggestions (issue 13: find anything by typing): as a person types, the IDs
of the fabric on show that start with (then contain) what is typed, any case, as the box's
datalist, so the browser offers them. The box itself is the controls' (scenario.py): Enter
highlights the part found, the button does what a click does."""

from __future__ import annotations

from dash import Dash, Input, Output, State, html

from dashboard import find, ids, state


def suggestions(typed: str | None, search: str | None) -> dict[str, list[html.Option]]:
    """The datalist's options for what is in the box (none for an empty box)."""
    fabric = state.current(search).scenario.fabric
    return {"options": [html.Option(value=cid) for cid in find.suggest(fabric, typed)]}


def register(app: Dash) -> None:
    """Suggestions on every key in the find box (never on the first page: the box is empty)."""
    app.callback(
        output={"options": Output(ids.FIND_OPTIONS, "children")},
        inputs={"typed": Input(ids.ID_INPUT, "value")},
        state={"search": State(ids.URL, "search")},
        prevent_initial_call=True,
    )(suggestions)
