"""The /fleet page (issue 30): one sampled history of a job over N racks, played. Its own Dash
app on the app's server (mount), so the rack page is untouched by it: Dash pages re-render a
page whenever the query changes, and the rack page changes its query on every press.

The link is the view: the scenario's query plus racks, days, seed, spares, policy and
against= (dashboard/infra/history_query.py reads it, as GET /api/v1/history does). One
callback keeps the controls and the link in step; history_answer.py answers the link. The
scrubber's step is in the browser: a clientside callback paints the grid from the racks'
state intervals (a Patch of the heatmap's z) and moves the lines' cursors, so a scrub never
waits for the server; the words at the time shown (the job so far, the events up to it)
come from the server, after it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, quote

from dash import Dash, Input, Output, State, ctx, dcc, html
from flask import Flask

from dashboard import ids
from dashboard.figures.base import NO_UPLOAD
from dashboard.figures.history import legend_words
from dashboard.infra.history_query import OWN_KEYS, scenario_part
from dashboard.panels import history_answer
from model.reliability.history import MAX_HISTORY_DAYS, MAX_HISTORY_RACKS, SERIES_POINTS
from model.reliability.history_words import STATE_WORDS

PATH = "/fleet"
LAST = SERIES_POINTS - 1  # the scrubber's last point: the horizon
PLAY_MS = 250  # [A] a tick of play: the scrubber moves PLAY_STEP points, ~45 s a history
PLAY_STEP = 4
# The second feature set or fabric on the same failures (a query of its own, as against=).
AGAINST = (
    ("", "nothing: this history alone"),
    ("off=reroute", "vr-nvl72, dynamic rerouting off"),
    ("off=issu", "vr-nvl72, in-service updates off"),
    ("off=telemetry", "vr-nvl72, link telemetry off"),
    ("fabric=gb200-nvl72", "gb200-nvl72 (NVLink 5)"),
    ("fabric=eth-x72", "eth-x72 (Ethernet scale-up)"),
)
DEFAULTS = {"racks": "16", "days": "365", "seed": "1", "spares": "0", "policy": "", "against": ""}


def mount(server: Flask, assets_folder: str, manager: Any) -> Dash:
    """The /fleet page as a Dash app on `server` (the rack page's), its callbacks
    registered. The stylesheet is the rack page's; its scripts are not loaded here.

    It is given the rack page's background manager though it runs no background callback:
    `dash.get_app()` (the last app made, this one) signs the rack page's fleet-study jobs,
    and an app without a manager or a server secret_key makes up its own secret per
    process ("the background job ended without a result", 1 run in 2 with two workers).
    The server's secret_key (app.signing_secret) now gives both apps one secret."""
    page = Dash(
        __name__,
        server=server,
        background_callback_manager=manager,
        url_base_pathname=PATH + "/",
        title="The AI factory over a year: NVLink fabric twin",
        update_title=None,
        compress=True,
        assets_folder=assets_folder,
        assets_ignore=r".*\.js$",
        serve_locally=True,
    )
    page.layout = layout
    register(page)
    history_answer.register(page)
    # /fleet without its slash opens the same page (the link people share)
    server.add_url_rule(PATH, "fleet_page", page.index)
    with server.app_context():
        page._setup_server()  # as create_app does for the rack page (plotly/dash#3971)
        _preload_plotly(page)
    return page


def _preload_plotly(page: Dash) -> None:
    """Fetch plotly.js from the page's first bytes: Dash loads it only when a graph first
    mounts (~0.4 s into a first visit), and on a first visit the drawing waited for it
    after the answer had arrived (bench/README.md). A preload only downloads it, in
    parallel with Dash's own scripts; the graph's loader then runs it from the cache."""
    # the URL Dash's renderer loads it from when served locally (window._dashPlotlyJSURL)
    url = f"{page.config.requests_pathname_prefix}_dash-component-suites/plotly/package_data/plotly.min.js"
    link = f'<link rel="preload" as="script" href="{url}">'
    page.index_string = page.index_string.replace("{%css%}", "{%css%}" + link, 1)


def _number(gid: str, label: str, width: int, tip: str) -> html.Label:
    return html.Label(
        title=tip,
        children=[
            label,
            dcc.Input(
                id=gid,
                type="text",
                inputMode="numeric",
                debounce=True,
                size=str(width),
                className="number",
            ),
        ],
    )


def controls() -> html.Div:
    """What the link holds besides the scenario: racks, days, seed, spares, policy, and
    the second feature set or fabric to play on the same failures."""
    return html.Div(
        className="control typed hist-controls",
        children=[
            _number(ids.HIST_RACKS, "racks ", 5, f"1 to {MAX_HISTORY_RACKS:,} racks in the job"),
            _number(ids.HIST_DAYS, "days ", 4, f"1 to {MAX_HISTORY_DAYS} days"),
            _number(ids.HIST_SEED, "seed ", 6, "the same seed draws the same failures"),
            dcc.Checklist(
                id=ids.HIST_SPARES,
                options=[{"label": " spare racks", "value": "1"}],
                value=[],
                inline=True,
            ),
            html.Label(
                title="now, window-N, dark-K or bw-P (with ,onsite for spare parts on site)",
                children=[
                    "repair policy ",
                    dcc.Input(
                        id=ids.HIST_POLICY,
                        type="text",
                        debounce=True,
                        size="10",
                        placeholder="the scenario's",
                    ),
                ],
            ),
            html.Label(
                [
                    "against, on the same failures ",
                    dcc.Dropdown(
                        id=ids.HIST_AGAINST,
                        options=_against_options(""),
                        value="",
                        clearable=False,
                        searchable=False,
                        className="hist-against",
                    ),
                ]
            ),
        ],
    )


def _against_options(current: str) -> list[dict]:
    opts = [{"label": label, "value": q} for q, label in AGAINST]
    if current and current not in {q for q, _ in AGAINST}:
        opts.append({"label": f"{current} (as the link says)", "value": current})
    return opts


def legend() -> html.Ul:
    """The grid's colours in words."""
    return html.Ul(
        id=ids.HIST_LEGEND,
        className="hist-legend",
        children=[
            html.Li([html.Span(className="swatch", style={"background": c}), STATE_WORDS[s]])
            for c, s in legend_words()
        ],
    )


def player() -> html.Div:
    """Play or pause, and the scrubber over the history (a point every 1/730 of it)."""
    return html.Div(
        className="hist-player",
        children=[
            html.Button("Play", id=ids.HIST_PLAY, n_clicks=0, title="play the history"),
            html.Div(
                className="hist-scrub",
                children=dcc.Slider(
                    id=ids.HIST_T,
                    min=0,
                    max=LAST,
                    step=1,
                    value=LAST // 2,
                    marks=None,
                    allow_direct_input=False,
                    updatemode="mouseup",
                    tooltip=None,
                ),
            ),
            dcc.Interval(id=ids.HIST_TICK, interval=PLAY_MS, disabled=True),
        ],
    )


def _boxed(graph: dcc.Graph, cls: str = "") -> html.Div:
    """A graph in a box of its own, sized by assets/style.css (class `cls`): a dcc.Graph
    fills its parent's height."""
    return html.Div(className=f"hist-box {cls}".strip(), children=graph)


def layout() -> html.Div:
    """The page shell; the link fills it."""
    config = dict(NO_UPLOAD) | {"displaylogo": False, "responsive": True}
    return html.Div(
        className="page hist-page",
        children=[
            dcc.Location(id=ids.HIST_URL, refresh=False),
            dcc.Store(id=ids.HIST_DATA),
            html.Header(
                className="header",
                children=[
                    html.H1("The AI factory over a year"),
                    html.P(
                        "One sampled history of a job over many racks: every fault as it "
                        "arrives, what the fabric did, the repair and what it cost, drawn "
                        "from the same failure rates, repair policies and fault outcomes "
                        "as the goodput model (its Monte Carlo's own sample). The link "
                        "replays it exactly; the same seed draws the same failures under "
                        "a second feature set or fabric."
                    ),
                    html.A("Back to the rack with this scenario", id=ids.HIST_BACK, href="/"),
                ],
            ),
            controls(),
            html.P(id=ids.HIST_ERROR, className="error", role="alert"),
            html.P(id=ids.HIST_SUMMARY, className="note"),
            html.Section(
                className="panel hist-question",
                children=[
                    html.H2("How often did one link failure stop the job?"),
                    html.P(id=ids.HIST_LINKS),
                ],
            ),
            html.Section(
                className="panel hist-racks",
                children=[
                    html.H2("The racks at the time shown"),
                    player(),
                    html.P(id=ids.HIST_NOW, className="note", **{"aria-live": "polite"}),
                    _boxed(dcc.Graph(id=ids.HIST_GRID, config=config), "hist-grid-box"),
                    legend(),
                    html.Div(id=ids.HIST_RACK, className="hist-events"),
                    html.H3("Events up to the time shown (newest first)"),
                    html.Div(id=ids.HIST_EVENTS, className="hist-events"),
                ],
            ),
            html.Section(
                className="panel hist-lines",
                children=[
                    _boxed(dcc.Graph(id=ids.HIST_LINES, config=config)),
                    _boxed(dcc.Graph(id=ids.HIST_DIFF, config=config)),
                    html.H3("Where the two histories part (up to the time shown)"),
                    html.Div(id=ids.HIST_PARTINGS, className="hist-events"),
                ],
            ),
        ],
    )


def link_values(search: str | None) -> dict[str, str]:
    """The link's own parameters (racks, days, ...) as the controls show them."""
    given = dict(parse_qsl((search or "").lstrip("?"), keep_blank_values=True))
    return {k: given.get(k, DEFAULTS[k]) for k in OWN_KEYS}


def link_of(search: str | None, values: dict[str, str]) -> str:
    """The link's query with its own parameters set to `values` (defaults left out), the
    scenario's query kept as it was written."""
    parts = [p for p in [scenario_part((search or "").lstrip("?"))] if p]
    for k in OWN_KEYS:
        v = str(values.get(k) or "").strip()
        if v and v != DEFAULTS[k]:
            parts.append(f"{k}={quote(v, safe=',-')}")
    return "?" + "&".join(parts) if parts else ""


def in_step(search: str | None, given: dict, from_link: bool) -> dict:
    """The link and the controls in step: the controls as the link says (from_link), or
    the link with the controls' values written in."""
    if from_link:
        v = link_values(search)
        shown = {k: v[k] for k in ("racks", "days", "seed", "policy", "against")}
        spares = ["1"] if v["spares"] == "1" else []
        return {
            "search": search,
            "options": _against_options(v["against"]),
            "spares": spares,
            **shown,
        }
    values = dict(given) | {"spares": "1" if given.get("spares") else "0"}
    return {
        "search": link_of(search, values),
        "options": _against_options(given["against"] or ""),
        **given,
    }


def register(app: Dash) -> None:
    """The controls and the link in step, and the scrubber's step in the browser."""

    controls_in = {
        "racks": Input(ids.HIST_RACKS, "value"),
        "days": Input(ids.HIST_DAYS, "value"),
        "seed": Input(ids.HIST_SEED, "value"),
        "policy": Input(ids.HIST_POLICY, "value"),
        "spares": Input(ids.HIST_SPARES, "value"),
        "against": Input(ids.HIST_AGAINST, "value"),
    }
    controls_out = {k: Output(i.component_id, "value") for k, i in controls_in.items()}

    @app.callback(
        output={
            "search": Output(ids.HIST_URL, "search"),
            "options": Output(ids.HIST_AGAINST, "options"),
            **controls_out,
        },
        inputs={"search": Input(ids.HIST_URL, "search"), **controls_in},
    )
    def sync(search, **given):
        """A control changed: write it into the link; the link changed: show it."""
        return in_step(search, given, ctx.triggered_id in (None, ids.HIST_URL))

    _register_clientside(app)


def register_link(app: Dash) -> None:
    """On the rack page: its link to /fleet carries the scenario on show (in the browser)."""
    app.clientside_callback(
        f"function (search) {{ return ['{PATH}' + (search || '')]; }}",
        [Output(ids.HIST_OPEN, "href")],
        Input(ids.URL, "search"),
    )


def _register_clientside(app: Dash) -> None:
    """Play, pause and the scrubber's step, in the browser (no round trip)."""
    app.clientside_callback(
        """function (n, playing) {
            const on = !!(n % 2);
            return [!on, on ? 'Pause' : 'Play'];
        }""",
        [Output(ids.HIST_TICK, "disabled"), Output(ids.HIST_PLAY, "children")],
        Input(ids.HIST_PLAY, "n_clicks"),
        State(ids.HIST_TICK, "disabled"),
    )
    app.clientside_callback(
        f"""function (tick, t) {{
            const next = (t >= {LAST} && tick > 0) ? 0 : Math.min({LAST}, t + {PLAY_STEP});
            return [next];
        }}""",
        [Output(ids.HIST_T, "value")],
        Input(ids.HIST_TICK, "n_intervals"),
        State(ids.HIST_T, "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        STEP_JS,
        [Output(ids.HIST_GRID, "figure", allow_duplicate=True)],
        Input(ids.HIST_T, "drag_value"),
        Input(ids.HIST_T, "value"),
        State(ids.HIST_DATA, "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(  # the cursors after the grid is drawn (so it is drawn first)
        CURSOR_JS,
        [
            Output(ids.HIST_LINES, "figure", allow_duplicate=True),
            Output(ids.HIST_DIFF, "figure", allow_duplicate=True),
        ],
        Input(ids.HIST_GRID, "figure"),
        State(ids.HIST_T, "value"),
        State(ids.HIST_DATA, "data"),
        prevent_initial_call=True,
    )


# The scrubber's step: each rack's state at the time shown, as figures.history.states_at
# computes it (tests/e2e/test_history_page.py checks the two agree), patched into the
# grids' z (a trace a history). A Patch, so nothing else is sent to plotly.
STEP_JS = """function (drag, value, data) {
    if (!data) { return [window.dash_clientside.no_update]; }
    const i = (drag === undefined || drag === null) ? value : drag;
    const t = data.t_h[i], ops = [];
    [data.a, data.b].forEach((st, trace) => {
        if (!st) { return; }
        const z = new Array(data.rows * data.cols).fill(null);
        for (let k = 0; k < data.n; k++) { z[k] = 0; }
        const r = st.rack, a = st.from_h, b = st.to_h, c = st.state;
        for (let k = 0; k < r.length; k++) {
            if (a[k] <= t && t < b[k]) { z[r[k]] = c[k]; }
        }
        const rows = [];
        for (let y = 0; y < data.rows; y++) {
            rows.push(z.slice(y * data.cols, (y + 1) * data.cols));
        }
        ops.push({operation: 'Assign', location: ['data', trace, 'z'], params: {value: rows}});
    });
    return [{__dash_patch_update: '__dash_patch_update', operations: ops}];
}"""
# The lines' cursors moved to the time shown (a Patch of shapes[0]).
CURSOR_JS = """function (_grid, value, data) {
    const nu = window.dash_clientside.no_update;
    if (!data) { return [nu, nu]; }
    const d = data.t_h[value] / 24;
    const p = {__dash_patch_update: '__dash_patch_update', operations: [
        {operation: 'Assign', location: ['layout', 'shapes', 0, 'x0'], params: {value: d}},
        {operation: 'Assign', location: ['layout', 'shapes', 0, 'x1'], params: {value: d}}]};
    return [p, data.b ? p : nu];
}"""
