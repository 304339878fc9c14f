"""The /fleet page's answer (issue 30): its link read (dashboard/infra/history_query.py), the
history computed once and cached by its link (dashboard/infra/results.py), and everything on
the page written from it in words (model/reliability/history_words.py): the summary, the
readers' question, the grids and lines, the job so far and the events up to the time shown,
a picked rack's events, and where a second history on the same failures parts from it."""

from __future__ import annotations

from bisect import bisect_right

from dash import Dash, Input, Output, Patch, State, html
from dash.exceptions import PreventUpdate

from dashboard import ids
from dashboard.figures.base import empty_figure, wrap
from dashboard.figures.history import (
    SUB_WIDTH,
    difference_figure,
    grid_figure,
    grid_shape,
    lines_figure,
    picked,
    states_at,
)
from dashboard.infra import results
from dashboard.infra.history_query import HistoryLink, read_history
from model.errors import ScenarioError
from model.reliability import history_words as W
from model.reliability.against import partings_between
from model.scenario import to_query
from model.words import count, plural

EVENTS_SHOWN = 12  # [A] the newest events listed at the time shown
RACK_EVENTS_SHOWN = 40  # [A] a picked rack's events listed (all are counted)
PARTINGS_SHOWN = 10  # [A] the newest partings listed at the time shown
PARTINGS_SPAN_H = 7 * 24.0  # [A] ... from this span before it (hours)
HIDE = {"display": "none"}


def answer(search: str | None) -> tuple[HistoryLink, dict, dict | None, dict | None]:
    """The link's history (and the second one's, and their difference and partings)."""
    link = read_history((search or "").lstrip("?"))
    out = results.history(link.scenario, link.other, **link.kw)
    if link.other is None:
        return link, out, None, None
    return link, out["history"], out["against"], out


def names(link: HistoryLink) -> tuple[str, str]:
    """What the two histories are called on the page: their scenarios' queries."""
    a = to_query(link.scenario, include_fabric=True)
    b = to_query(link.other, include_fabric=True) if link.other else ""
    return a, b


def store(h: dict, other: dict | None) -> dict:
    """What the scrubber reads in the browser: the grid's shape, the lines' times and each
    history's rack state intervals."""
    rows, cols = grid_shape(h["racks"])
    return {
        "n": h["racks"],
        "rows": rows,
        "cols": cols,
        "t_h": h["series"]["t_h"],
        "a": h["rack_states"],
        "b": other["rack_states"] if other else None,
    }


def _grid(hs: list[tuple[dict, str]], t_h: float) -> dict:
    """The grid of each history's racks at t_h (two side by side: this link's on the left)."""
    n = hs[0][0]["racks"]
    sides = ("this scenario", "against") if len(hs) > 1 else ("",)
    panels = [
        (states_at(h["rack_states"], n, t_h), side) for (h, _), side in zip(hs, sides, strict=True)
    ]
    sub = f"{n:,} racks, one cell each, coloured by its state at the time shown"
    if len(hs) > 1:
        sub += f"; left: {hs[0][1]}; right, on the same failures: {hs[1][1]}"
    return grid_figure(n, panels, wrap(sub, SUB_WIDTH))


ANSWER = {
    "error": Output(ids.HIST_ERROR, "children"),
    "summary": Output(ids.HIST_SUMMARY, "children"),
    "links": Output(ids.HIST_LINKS, "children"),
    "data": Output(ids.HIST_DATA, "data"),
    "grid": Output(ids.HIST_GRID, "figure"),
    "lines": Output(ids.HIST_LINES, "figure"),
    "diff": Output(ids.HIST_DIFF, "figure"),
    "diff_style": Output(ids.HIST_DIFF, "style"),
    "back": Output(ids.HIST_BACK, "href"),
    "marks": Output(ids.HIST_T, "marks"),
}


def _error(e: ScenarioError) -> dict:
    said = f"{e.token}: {e.message}" if e.token else e.message
    blank = empty_figure("No history: fix the link above.")
    return {
        "error": f"This link cannot be played. {said}",
        "summary": "",
        "links": "",
        "data": None,
        "grid": blank,
        "lines": blank,
        "diff": blank,
        "diff_style": HIDE,
        "back": "/",
        "marks": None,
    }


def page_answer(search: str | None, t: int) -> dict:
    """Every part of the page the link decides (or a message naming the bad parameter), by
    the name of its output (ANSWER)."""
    try:
        link, h, other, both = answer(search)
    except ScenarioError as e:
        return _error(e)
    a, b = names(link)
    t_h = h["series"]["t_h"][t]
    hs = [(h, a)]
    if both is not None:
        diff, diff_style = difference_figure(both["difference"], (a, b), t_h), {}
        hs.append((other, b))
    else:
        diff, diff_style = empty_figure(""), HIDE
    back = "/?" + to_query(link.scenario)
    return {
        "error": "",
        "summary": W.summary(h),
        "links": W.link_answer(h),
        "data": store(h, other),
        "grid": _grid(hs, t_h),
        "lines": lines_figure(h, other, (a, b), t_h),
        "diff": diff,
        "diff_style": diff_style,
        "back": back.rstrip("?"),
        "marks": marks(h),
    }


def marks(h: dict) -> dict[int, str]:
    """The scrubber's marks: the start, each quarter of the history and its end, in days."""
    last = len(h["series"]["t_h"]) - 1
    return {round(last * q / 4): W.when(h["series"]["t_h"][round(last * q / 4)]) for q in range(5)}


def event_items(h: dict, picked: list[int]) -> html.Ol:
    """Events as a list, each in words."""
    return html.Ol([html.Li(W.event_sentence(h, i)) for i in picked], className="events")


def at_time(search: str | None, t: int) -> tuple:
    """The job so far, the events up to the time shown and where the two histories part."""
    try:
        link, h, other, both = answer(search)
    except ScenarioError:
        return "", "", ""
    t_h = h["series"]["t_h"][t]
    n = bisect_right(h["events"]["t_h"], t_h)
    newest = list(range(n - 1, max(-1, n - 1 - EVENTS_SHOWN), -1))
    events = [html.P(f"{plural(n, 'fault')} so far."), event_items(h, newest)]
    if both is None:
        return W.so_far(h, t), events, ""
    a, b = names(link)
    parts = partings_between(h, other, max(0.0, t_h - PARTINGS_SPAN_H), t_h)
    shown = [html.Li(W.parting_sentence(p, a, b)) for p in parts[::-1][:PARTINGS_SHOWN]]
    head = html.P(
        f"{plural(both['partings']['count'], 'fault')} met another way over the history; "
        f"{count(len(parts))} in the {plural(PARTINGS_SPAN_H / 24, 'day')} up to the time "
        f"shown{', the newest listed' if parts else ''}."
    )
    return W.so_far(h, t) + " " + W.so_far_against(other, t, b), events, [head, html.Ol(shown)]


def rack_events(search: str | None, click: dict | None) -> list:
    """A picked rack's events, in time order (of the history whose grid was clicked)."""
    if not click or not click.get("points"):
        return [html.P("Click a rack on the grid for its events.", className="note")]
    point = click["points"][0]
    rack = int(point["customdata"])
    link, h, other, _ = answer(search)
    name = names(link)[0]
    if point.get("curveNumber") == 1 and other is not None:
        h, name = other, names(link)[1]
    if rack >= h["racks"]:
        raise PreventUpdate
    mine = [i for i, r in enumerate(h["events"]["rack"]) if r == rack]
    shown = "" if len(mine) <= RACK_EVENTS_SHOWN else f" (the first {RACK_EVENTS_SHOWN})"
    return [
        html.H3(f"Rack {rack} under {name}: {plural(len(mine), 'event')} over the history{shown}"),
        event_items(h, mine[:RACK_EVENTS_SHOWN]),
    ]


def register(app: Dash) -> None:
    """The answer to the link, the words at the time shown, and a picked rack's events."""

    @app.callback(
        output=ANSWER,
        inputs={"search": Input(ids.HIST_URL, "search")},
        state={"t": State(ids.HIST_T, "value")},
    )
    def on_link(search, t):
        return page_answer(search, int(t or 0))

    @app.callback(
        output={
            "now": Output(ids.HIST_NOW, "children"),
            "events": Output(ids.HIST_EVENTS, "children"),
            "partings": Output(ids.HIST_PARTINGS, "children"),
        },
        inputs={
            "t": Input(ids.HIST_T, "value"),
            "_summary": Input(ids.HIST_SUMMARY, "children"),  # a new answer (not its 1 MB store)
        },
        state={"search": State(ids.HIST_URL, "search")},
    )
    def on_time(t, _summary, search):
        now, events, partings = at_time(search, int(t or 0))
        return {"now": now, "events": events, "partings": partings}

    @app.callback(
        output={
            "rack": Output(ids.HIST_RACK, "children"),
            "mark": Output(ids.HIST_GRID, "figure", allow_duplicate=True),
        },
        inputs={"click": Input(ids.HIST_GRID, "clickData")},
        state={"search": State(ids.HIST_URL, "search")},
        prevent_initial_call=True,
    )
    def on_pick(click, search):
        try:
            events = rack_events(search, click)
        except ScenarioError:
            raise PreventUpdate from None
        point = click["points"][0]
        mark = Patch()
        mark["layout"]["shapes"] = [picked(point["x"], point["y"], point.get("curveNumber", 0))]
        return {"rack": events, "mark": mark}
