"""The telemetry panel: a GPU-by-plane heatmap of any DCGM counter at the simulated clock,
one link's (or cable's) series up to it with its failure forecast, and the box that reads a
rack's own telemetry file into the scenario it describes (model/telemetry/importers).
Everything from a file is shown as text: Dash writes strings as text, never as HTML."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from dash import Dash, Input, Output, State, dcc, html
from dash.development.base_component import Component

from dashboard import figures, ids, state, view
from dashboard.infra import results
from dashboard.panels import clock
from dashboard.panels.below import unseen
from dashboard.panels.common import changes, graph, place
from model import telemetry, words
from model.assess import assess
from model.errors import ScenarioError
from model.kinds import ComponentKind
from model.multirack.domains import rack_id
from model.parts import part
from model.query import parse_query
from model.registry import kind_of
from model.scenario import Scenario, rack_fabric
from model.telemetry.importers import MAX_BYTES, ImportRefused, import_text

# The public GB200 case (FACTS.md §3) as the forecast's worked example: a degrading link on a
# GB200 NVL72, read a day before the failure the model projects at five days.
GB200_CASE = "fabric=gb200-nvl72&on=telemetry&flaky=gpu07-st3.sw1"
GB200_LINK = "gpu07-st3.sw1"
GB200_READ_S = telemetry.FLAKY_TTF_S - 86400.0
UPLOAD_STYLE = {
    "border": "1px dashed currentColor",
    "borderRadius": "6px",
    "padding": "0.8em",
    "textAlign": "center",
    "cursor": "pointer",
    "margin": "0.4em 0",
}


def layout() -> list[html.Div]:
    """The counter heatmap (with the counter picker and the clock) and the one-link series,
    as the first page has them: their controls, which the URL's #fragment sets
    (panels/fragment.py), and a place for each part mounted later (LATER)."""
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
                        place(ids.LAZY_CLOCK),
                    ],
                ),
                place(ids.LAZY_HEATMAP),
            ],
        ),
        html.Div(
            className="panel",
            children=[
                html.H2("One link over time"),
                dcc.Input(
                    id=ids.LINK_INPUT,
                    type="text",
                    value=view.DEFAULTS["link"],
                    maxLength=32,
                    debounce=True,
                    spellCheck=False,
                ),
                place(ids.LAZY_SERIES),
            ],
        ),
        place(ids.LAZY_IMPORT),
    ]


def _import_panel() -> html.Div:
    """The box that reads a rack's own telemetry into the scenario it describes."""
    return html.Div(
        className="panel",
        children=[
            html.H2("Your rack's telemetry in"),
            html.P(
                "Paste or upload what your rack reports: a dcgm-exporter scrape (the "
                "Prometheus text of its /metrics), nvidia-smi nvlink --status, nvlink -e "
                "and the Fabric section of nvidia-smi -q, one host after another, or "
                "NMX-Manager's answers to GET /nmx/v1/partitions, /gpus and /ports. The twin "
                "reads it into the scenario it "
                f"describes and says how sure it is. At most {MAX_BYTES // 2**20} MiB; "
                "every line it cannot read is named.",
                className="note",
            ),
            dcc.Upload(
                id=ids.IMPORT_UPLOAD,
                children=html.Div("Drop a file here, or click to choose one"),
                className="upload",
                max_size=MAX_BYTES,
                style=UPLOAD_STYLE,
            ),
            dcc.Textarea(
                id=ids.IMPORT_TEXT,
                placeholder='or paste it: DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="0"} 1',
                className="import-text",
                style={"width": "100%", "height": "6em", "boxSizing": "border-box"},
            ),
            html.Button("Read it", id=ids.IMPORT_BUTTON, n_clicks=0),
            html.Div(id=ids.IMPORT_RESULT, className="import-result"),
        ],
    )


# What of the panels is mounted after the first screen (panels/lazy.py), by its place
LATER: dict[str, Callable[[], list[Component]]] = {
    ids.LAZY_CLOCK: lambda: [html.Span(id=ids.CLOCK_TEXT, className="clock")],
    ids.LAZY_HEATMAP: lambda: [graph(ids.HEATMAP, 420)],
    ids.LAZY_SERIES: lambda: [
        graph(ids.SERIES, 380),
        html.Div(id=ids.FORECAST, className="forecast"),
        html.P(_worked_example(), className="note"),
        html.P(_sides_note(), className="note"),
    ],
    ids.LAZY_IMPORT: lambda: [_import_panel()],
}


def _worked_example() -> str:
    """The GB200 case's forecast in one sentence (the model's numbers)."""
    f = _case_forecast()
    ttf = f["time_to_failure_h"]
    when = "no trend to extrapolate" if ttf is None else f"failure expected in {ttf:.0f} h"
    return (
        f"Worked example, the public GB200 case (FACTS.md §3): a degrading link ({GB200_LINK} "
        f"on a GB200 NVL72), read a day before it fails: {words.plural(f['recoveries'], 'recovery')} so far, "
        f"{f['recovery_rate_per_21_min']:.1f} per 21 minutes now, {f['flagged_windows']} of "
        f"the last 30 one-minute windows flagged: {f['action']} ({when}; it fails in 24 h). "
        "The case itself was found when it failed, as a link-down that faulted the rack's job."
    )


@lru_cache(maxsize=1)
def _case_forecast() -> dict:
    return telemetry.forecast(parse_query(GB200_CASE).scenario, GB200_LINK, GB200_READ_S).to_json()


def _sides_note() -> str:
    return (
        "Counter names are DCGM's, the same on this page, in /api/v1/telemetry and in /metrics "
        "(docs/TELEMETRY.md). Per-link counters are the GPU side, from the GPU driver: a switch "
        "tray whose controller is down leaves them fresh. The switch side (each NVSwitch "
        "port's counters and each lane's state and BER, which tell a cable from a port) comes "
        "through the tray's controller and holds its last report while that is down. "
        + words.TELEMETRY_FEATURE
    )


def _forecast_text(f: dict) -> list:
    ttf = f["time_to_failure_h"]
    when = "no rising trend to extrapolate" if ttf is None else f"expected failure in {ttf:.1f} h"
    return [
        html.Strong(f"Forecast for {f['link']}: {f['action']}"),
        html.Span(f" ({f['why']}; {when})."),
        html.Br(),
        html.Span(
            f"{words.plural(f['recoveries'], 'recovery')} since the counters were cleared, "
            f"{f['recovery_rate_per_21_min']:.2f} per 21 minutes now, "
            f"{words.plural(f['replays_last_hour'], 'replay')} in the last hour, "
            f"{f['flagged_windows']} of the last 30 windows flagged."
        ),
        html.Br(),
        html.Small(f"Rule: {f['rule']}. Source: {f['source']}."),
    ]


def _outputs() -> dict[str, Output]:
    return {
        "heatmap": Output(ids.HEATMAP, "figure"),
        "series": Output(ids.SERIES, "figure"),
        "forecast": Output(ids.FORECAST, "children"),
        "clock_text": Output(ids.CLOCK_TEXT, "children"),
    }


OUTPUTS = tuple(_outputs())


def telemetry_charts(
    search: str | None,
    counter: str | None,
    link: str | None,
    clock_s: float | None,
    rack: str | None = None,
    seen: bool | None = True,
) -> dict[str, Any]:
    """The GPU-by-plane heatmap of one counter at the simulated clock, and one link's series;
    on a multi-rack domain, of the rack on show (its own assessment in the domain's)."""
    unseen((search or "") if seen else None)
    s = state.current(search).scenario
    t = float(clock_s or clock.CLOCK_START_S) % telemetry.MAX_T_S
    if counter not in (*telemetry.METRICS, "state"):
        counter = telemetry.REPLAY
    link = view.link_for(rack_fabric(s), link)
    name = ""
    if kind_of(s).several_racks:  # the rack on show
        s, link, name, lost = _rack_on_show(s, rack, link)
        if lost:
            msg = f"{name} is lost: its GPUs and switch trays report nothing"
            return changes(
                OUTPUTS,
                heatmap=figures.empty_figure(msg),
                series=figures.empty_figure(msg),
                forecast="",
                clock_text=f"simulated clock: {t / 3600:.1f} h since the counters were cleared",
            )
    # Keyed on what the figures depend on: a room watching one link at one clock shares them.
    heat, line, fc = _figures(s, counter, link, t)
    heat, line = _titled(heat, name), _titled(line, name)
    return changes(
        OUTPUTS,
        heatmap=heat,
        series=line,
        forecast=_forecast_text(fc) if fc else "",
        clock_text=f"simulated clock: {t / 3600:.1f} h since the counters were cleared",
    )


def _rack_on_show(s: Scenario, rack: str | None, link: str) -> tuple[Scenario, str, str, bool]:
    """A domain's rack on show as its own single-rack scenario (the domain's assessment of
    it), the link box's ID in that rack's local form, the rack's name and whether it is
    lost."""
    try:
        r = part(s, rack or rack_id(0)).rack or 0
    except ScenarioError:
        r = 0
    name = rack_id(r)
    own = assess(s).racks[r]
    if own is None:
        return s, link, name, True
    try:
        lp = part(s, link) if link else None
        local = lp.local if lp is not None and lp.rack == r and lp.local is not None else link
    except ScenarioError:
        local = link
    return own.scenario, local, name, False


def _titled(fig: dict, name: str) -> dict:
    """A copy of a (shared, memoised) figure whose title names the domain's rack on show."""
    title = fig.get("layout", {}).get("title")
    if not name or not isinstance(title, dict) or not title.get("text"):
        return fig
    layout = {**fig["layout"], "title": {**title, "text": f"rack {name}: {title['text']}"}}
    return {**fig, "layout": layout}


def _figures(s: Scenario, counter: str, link: str, t: float) -> list:
    """The heatmap, the series and the link's forecast, built once per (scenario, counter,
    link, clock)."""
    return results.figure(
        "telemetry", [s.key(), counter, link, t], lambda: _telemetry_figures(s, counter, link, t)
    )


def _telemetry_figures(s: Scenario, counter: str, link: str, t: float) -> list:
    heat = figures.counters_heatmap_figure(telemetry.counters(s, t), counter)
    fc = None
    try:
        series = telemetry.link_series(s, link, 0.0, t, max(60.0, t / 240))
        line = figures.link_series_figure(series, counter)
        if part(s, series["id"]).kind is ComponentKind.LINK:  # a link, not a cable: forecast it
            fc = telemetry.forecast(s, link, t).to_json()
    except (ScenarioError, ValueError) as e:
        line = figures.empty_figure(f"No series: {e}")
    return [heat, line, fc]


def read_file(
    n_clicks: int, upload: str | None, pasted: str | None, search: str | None = None
) -> dict[str, Any]:
    """The import box's answer, by name (as every callback's)."""
    return {"result": _read(n_clicks, upload, pasted, state.current(search).scenario.fabric)}


def _read(n_clicks: int, upload: str | None, pasted: str | None, fabric: str | None) -> Any:
    """The import box: the uploaded file (else the pasted text) read into its scenario, shown
    as text with a link that opens it; a file that does not tell its fabric is read as the
    page's (a pasted line or two)."""
    data: bytes | None = None
    if upload:
        try:
            data = base64.b64decode(upload.partition(",")[2], validate=True)
        except (binascii.Error, ValueError):
            return html.P("The upload did not arrive whole: choose the file again.")
    elif pasted and pasted.strip():
        data = pasted.encode("utf-8", "replace")
    if data is None:
        return "" if not n_clicks else html.P("Paste a scrape or choose a file first.")
    try:
        got = import_text(data, fabric)
    except ImportRefused as e:
        return html.P(f"Not imported: {e.message}")
    items = [html.Li(m) for m in got.messages] or [html.Li("every line was read")]
    healthy = "no failed or degrading link: the GPUs below err" if got.erring_gpus else ""
    comps = ", ".join(got.components) or healthy or "nothing: a healthy rack"
    unread = [html.Li(m) for m in got.unreadable]
    erring = [html.Li(f"{x['summary']}. How sure: {x['confidence']}.") for x in got.erring_gpus]
    return [
        html.P(f"Read as {got.format} output. Found: {comps}."),
        *(
            [html.P("GPUs whose links err (per-GPU sums: not which link):"), html.Ul(erring)]
            if erring
            else []
        ),
        *([html.P("Lines that are no sample, skipped:"), html.Ul(unread)] if unread else []),
        html.P(f"How sure: {got.confidence}."),
        *(
            [html.P(f"NMX-Manager partition health: {got.partition['health']}.")]
            if got.partition.get("health")
            else []
        ),
        dcc.Link(
            "Open this scenario",
            href=f"/?{got.scenario}",
            className="open-scenario",
            style={"color": "inherit", "fontWeight": "bold", "textDecoration": "underline"},
        ),
        html.Span(f" ({got.scenario})"),
        html.Details([html.Summary(f"What was not read ({len(got.messages)})"), html.Ul(items)]),
    ]


def register(app: Dash) -> None:
    """Both charts from the URL once the page below is seen (panels/below.py), the counter,
    the link and the clock."""
    app.callback(
        output=_outputs(),
        # from the URL, not LATER (READY after the cards): a press sets the link (the
        # #fragment's callback) and, the charts below unseen, this answers nothing at once
        # rather than a round trip after the cards (issue 13's press budget)
        inputs={
            "search": Input(ids.URL, "search"),
            "seen": Input(ids.BELOW_SEEN, "data"),
            "counter": Input(ids.COUNTER, "value"),
            "link": Input(ids.LINK_INPUT, "value"),
            "clock_s": Input(ids.CLOCK, "data"),
            "rack": Input(ids.RACK_SELECT, "value"),
        },
    )(telemetry_charts)
    app.callback(
        output={"result": Output(ids.IMPORT_RESULT, "children")},
        inputs={
            "n_clicks": Input(ids.IMPORT_BUTTON, "n_clicks"),
            "upload": Input(ids.IMPORT_UPLOAD, "contents"),
            "pasted": State(ids.IMPORT_TEXT, "value"),
            "search": State(ids.URL, "search"),
        },
        prevent_initial_call=True,
    )(read_file)
