"""Live mode on the page (issue 31): the banner (the source, when it was read, how old, and
whether it is stale or down, in words), what to do now, the drain advice from the counters'
trend, and the live scenario's changes, each a link to what the rack was then.

Everything here is dashboard/infra/live.py's answer, the one GET /api/v1/live gives; the
page reads it, never works a state out. The tick (dcc.Interval) is on only when the operator
has turned live mode on, at its interval; with live mode off the banner is hidden and the
page is the twin as it always was. The URL follows the rack in panels/scenario.py (the one
callback that writes it): `follow` below says what it writes.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import ids, state
from dashboard.infra import live
from model import words
from model.query import parse_query

_STATE_WORDS = {
    "ok": ("Live", "live-ok"),
    "stale": ("Stale", "live-stale"),
    "down": ("Down", "live-down"),
    "reading": ("Live", "live-reading"),
}


def layout() -> html.Section:
    """The banner, what to do, the tick and the query last followed; hidden with live off."""
    cfg = live.source().cfg
    on = cfg is not None
    return html.Section(
        className="live",
        hidden=not on,
        children=[
            html.Div(id=ids.LIVE_BANNER, className="live-banner", role="status"),
            html.Div(id=ids.LIVE_TODO, className="live-todo"),
            dcc.Interval(
                id=ids.LIVE_TICK,
                interval=(cfg.interval_s if on else 3600) * 1000,
                disabled=not on,
            ),
            dcc.Store(id=ids.LIVE_FOLLOWED),
        ],
    )


def _same(search: str | None, query: str | None) -> bool:
    """Whether the page's URL shows the live query's scenario."""
    return query is not None and state.current(search).scenario == parse_query(query).scenario


def banner(a: dict, search: str | None) -> tuple[list[Any], str]:
    """The banner's words and its class (its colour: ok, stale, down)."""
    if not a.get("configured"):
        return [], "live-banner"
    head, tone = _STATE_WORDS.get(a["state"], ("Live", "live-reading"))
    out: list[Any] = [html.B(f"{head}: "), a["said"]]
    if a["state"] == "ok" and a.get("scrape_s"):
        out.append(
            f"; read as each scrape lands (Prometheus scrapes the rack every "
            f"{words.duration_words(a['scrape_s'])}), at least every "
            f"{words.duration_words(a['interval_s'])}."
        )
    elif a["state"] == "ok":
        out.append(f"; read every {words.duration_words(a['interval_s'])}.")
    else:
        out.append(".")
    q = a.get("query")
    if q and _same(search, q):
        out.append(
            html.Span(
                " The page follows the rack: each change is a new address in your history.",
                className="note",
            )
        )
    elif q:
        out += [
            html.Span(
                " You are looking at a what-if, not the live rack (the page does not follow "
                "while you do): ",
                className="note",
            ),
            dcc.Link("back to the live rack", href=state.url_of(parse_query(q).scenario)),
        ]
    return out, f"live-banner {tone}"


def _todo_list(live_json: dict) -> list[Any]:
    rows = live_json["what_to_do"]
    cost = live_json["cost_per_h"]
    if not rows:
        return [html.P("What to do: nothing; the live rack has no fault.")]
    risk = cost.get("risk_gpu_hours_per_h") or 0.0
    risked = (
        f", and its degrading links risk an expected {words.sig(risk)} GPU-hours an hour "
        f"more ({words.money(cost['risk_money_per_h'])} an hour) by failing before they are "
        "drained"
        if risk > 0
        else ""
    )
    return [
        html.P(
            f"What to do now, in the repair policy's order; the faults together cost "
            f"{words.sig(cost['gpu_hours_per_h'])} GPU-hours an hour "
            f"({words.money(cost['money_per_h'])} an hour){risked}:"
        ),
        html.Ol([html.Li(r["sentence"].split(". ", 1)[1]) for r in rows]),
    ]


def _drain_list(live_json: dict) -> list[Any]:
    out = []
    for d in live_json["drain"]:
        ttf = d["time_to_failure_h"]
        when = f", failure expected in {words.sig(ttf)} h" if ttf is not None else ""
        out.append(
            html.Li(
                f"{d['link']}: {d['action']}{when}: recoveries "
                f"{words.sig(d['recovery_rate_per_21_min'])} per 21 min now, "
                f"{words.sig(d['recovery_rate_before_per_21_min'])} the window before; "
                f"{words.sig(d['replays_per_min'])} replays a minute ({d['why']})"
            )
        )
    if not out:
        return []
    return [html.P("Drain advice from the counters' trend (the forecast's rule):"), html.Ul(out)]


def _erring(live_json: dict) -> list[Any]:
    rows = [html.Li(x["summary"] + f" ({x['confidence']})") for x in live_json["erring_gpus"]]
    return [html.P("GPUs whose links err (per-GPU sums):"), html.Ul(rows)] if rows else []


def _changes(a: dict) -> list[Any]:
    items = [
        html.Li(
            [
                dcc.Link(c["at"], href=state.url_of(parse_query(c["query"]).scenario)),
                f": {c['query']}",
            ]
        )
        for c in reversed(a.get("changes", []))
    ]
    if not items:
        return []
    return [
        html.Details(
            [html.Summary("The live rack's changes (each a link to it then)"), html.Ul(items)]
        )
    ]


def todo(a: dict) -> list[Any]:
    """What to do, the drain advice, the erring GPUs, the changes and the what-if hint."""
    lj = a.get("live")
    if not a.get("configured") or lj is None:
        return []
    return [
        *_todo_list(lj),
        *_drain_list(lj),
        *_erring(lj),
        html.P(
            "What if: click any part of the drawing to fail it on top of the live rack.",
            className="note",
        ),
        *_changes(a),
    ]


def show(_tick: int | None, search: str | None) -> tuple[list[Any], str, list[Any]]:
    """The banner and what to do, at each tick and each URL."""
    a = live.source().current()
    words_, cls = banner(a, search)
    return words_, cls, todo(a)


def follow(search: str | None, followed: str | None) -> str | None:
    """The live query the page should go to now, or None to stay: it follows while it shows
    the live rack it last followed (or opened bare, no scenario of its own); a what-if (any
    other scenario) is left alone until 'back to the live rack'."""
    a = live.source().current()
    q = a.get("query")
    if q is None or _same(search, q):
        return None
    following = not (search or "").strip("?") or (followed is not None and _same(search, followed))
    return q if following else None


def follow_live(_tick: int | None, search: str | None, followed: str | None) -> dict[str, Any]:
    """The page to the live rack when it changed (follow), or nothing at all.

    A callback of its own, not an input of the URL's (panels/scenario.py): Dash keeps only
    the latest answer of a callback, so a tick landing while a press's answer was on its way
    dropped the press's message (seen under load: test_a_what_if_on_top_and_back_to_live). It
    writes the URL only when the live rack changed, and the URL's callback then follows."""
    q = follow(search, followed)
    if q is None:
        raise PreventUpdate
    return {"search": state.url_of(parse_query(q).scenario), "followed": q}


def register(app: Dash) -> None:
    """The banner's and what to do's callback, and the follow (the URL's is
    panels/scenario.py's)."""
    app.callback(
        output={
            "search": Output(ids.URL, "search", allow_duplicate=True),
            "followed": Output(ids.LIVE_FOLLOWED, "data", allow_duplicate=True),
        },
        inputs={"_tick": Input(ids.LIVE_TICK, "n_intervals")},
        state={"search": State(ids.URL, "search"), "followed": State(ids.LIVE_FOLLOWED, "data")},
        prevent_initial_call=True,
    )(follow_live)
    app.callback(
        Output(ids.LIVE_BANNER, "children"),
        Output(ids.LIVE_BANNER, "className"),
        Output(ids.LIVE_TODO, "children"),
        Input(ids.LIVE_TICK, "n_intervals"),
        Input(ids.URL, "search"),
    )(show)
