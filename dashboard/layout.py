"""The page: controls, the rack and its spine, headline cards, charts, questions, compare,
export and the assumptions panel. Static shell only; callbacks fill it from the URL.
"""

from __future__ import annotations

from dash import dcc, html

from dashboard import ids
from dashboard.figures import rack as rack_figure
from dashboard.panels import fleet
from dashboard.state import PRESETS
from model import telemetry
from model.fabric.features import FEATURES
from model.fabric.presets import DEFAULT_FABRIC, FABRICS
from model.multirack.domains import DOMAINS
from model.params import PARAM_FACTS
from model.reliability.rates import RELIABILITY_FACTS
from model.workloads.decode import ASSUMPTIONS as DECODE_ASSUMPTIONS
from model.workloads.models import WORKLOADS

TICK_MS = 3000  # the simulated clock ticks every three seconds
CLOCK_STEP_S = 1800.0  # and moves half a simulated hour a tick
CLOCK_START_S = 3600.0  # counters read an hour after they were cleared

GRAPH_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["lasso2d", "select2d"],
}


def _label(text: str, child, hint: str = "") -> html.Label:
    return html.Label(className="control", title=hint, children=[html.Span(text), child])


def controls() -> html.Section:
    """Fabric, workload, features, updates, presets, click mode, typed IDs, repair, export."""
    return html.Section(
        className="controls",
        children=[
            _label(
                "Fabric",
                dcc.Dropdown(
                    id=ids.FABRIC,
                    options=[{"label": f.name, "value": k} for k, f in FABRICS.items()]
                    + [{"label": d.name, "value": k} for k, d in DOMAINS.items()],
                    value=DEFAULT_FABRIC,
                    clearable=False,
                ),
            ),
            _label(
                "Workload",
                dcc.Dropdown(
                    id=ids.WORKLOAD,
                    options=[{"label": v, "value": k} for k, v in WORKLOADS.items()],
                    value="deepseek-r1",
                    clearable=False,
                ),
            ),
            _label(
                "Switch update",
                dcc.Dropdown(
                    id=ids.ISSU,
                    options=[
                        {"label": "none", "value": ""},
                        {"label": "all trays, rolling", "value": "all"},
                    ]
                    + [{"label": f"st{i}", "value": f"st{i}"} for i in range(1, 10)],
                    value="",
                    clearable=False,
                ),
                "A switch firmware update: in service with ISSU on, a window without it",
            ),
            _label(
                "Preset",
                dcc.Dropdown(
                    id=ids.PRESET,
                    options=[{"label": label, "value": k} for k, (label, _q) in PRESETS.items()],
                    placeholder="load a scenario…",
                ),
            ),
            _label(
                "A click",
                dcc.RadioItems(
                    id=ids.CLICK_MODE,
                    options=[
                        {"label": "fails / repairs", "value": "fail"},
                        {"label": "marks flaky", "value": "flaky"},
                    ],
                    value="fail",
                    inline=True,
                ),
            ),
            html.Div(
                className="control typed",
                children=[
                    dcc.Input(
                        id=ids.ID_INPUT,
                        type="text",
                        placeholder="gpu07-st3.sw2.c0",
                        maxLength=32,
                        debounce=True,
                        spellCheck=False,
                    ),
                    html.Button("Fail / repair ID", id=ids.FAIL_BTN, n_clicks=0),
                    html.Button("Repair all", id=ids.REPAIR_ALL, n_clicks=0),
                ],
            ),
            html.Div(
                className="control features",
                children=[
                    html.Span("NVLink 6 resiliency features (FACTS.md §3)"),
                    dcc.Checklist(
                        id=ids.FEATURES,
                        options=[
                            {
                                "label": html.Span(f.name, title=f"on: {f.on}. off: {f.off}"),
                                "value": f.key,
                            }
                            for f in FEATURES
                        ],
                        value=[f.key for f in FEATURES],
                        inline=True,
                    ),
                ],
            ),
        ],
    )


def graph(gid: str, height: int, cls: str = "chart", config: dict | None = None) -> dcc.Graph:
    return dcc.Graph(
        id=gid, config=config or GRAPH_CONFIG, style={"height": f"{height}px"}, className=cls
    )


def _fact_rows(facts) -> list[html.Tr]:
    return [
        html.Tr(
            [
                html.Td(f.name),
                html.Td(f"{f.value} {f.unit}".strip()),
                html.Td(f.tag),
                html.Td(f.source),
            ]
        )
        for f in facts
    ]


def assumptions() -> html.Details:
    """Every constant on screen with its FACTS.md row or its [A] mark."""
    head = html.Tr([html.Th("what"), html.Th("value"), html.Th("tag"), html.Th("source")])
    sections = []
    for f in FABRICS.values():
        sections.append(html.H3(f.name))
        sections.append(html.Table([head, *_fact_rows(f.facts)], className="facts"))
    sections.append(html.H3("Faults, repairs, latency"))
    sections.append(html.Table([head, *_fact_rows(PARAM_FACTS)], className="facts"))
    sections.append(html.H3("Decode model"))
    sections.append(
        html.Table(
            [head]
            + [
                html.Tr(
                    [
                        html.Td(a["name"]),
                        html.Td(str(a["value"])),
                        html.Td(a["tag"]),
                        html.Td(a["source"]),
                    ]
                )
                for a in DECODE_ASSUMPTIONS
            ],
            className="facts",
        )
    )
    sections.append(html.H3("Failure rates and timings (goodput)"))
    sections.append(html.Table([head, *_fact_rows(RELIABILITY_FACTS)], className="facts"))
    return html.Details(
        id=ids.ASSUMPTIONS,
        className="panel assumptions",
        children=[
            html.Summary("Assumptions and sources: every number on this page"),
            html.P(
                "Tags: V vendor statement, M measured and published, D derived by arithmetic, "
                "A an assumption of this project (no public figure; editable through the API). "
                "FACTS.md is the project's sourced fact sheet; docs/MODEL.md explains the model."
            ),
            *sections,
        ],
    )


def layout() -> html.Div:
    """The page shell; the URL fills it."""
    return html.Div(
        className="page",
        children=[
            dcc.Location(id=ids.URL, refresh=False),
            dcc.Store(id=ids.RACK_FABRIC),
            dcc.Store(id=ids.READY),
            dcc.Store(id=ids.CLOCK, data=CLOCK_START_S),
            dcc.Interval(id=ids.TICK, interval=TICK_MS, disabled=False),
            dcc.Download(id=ids.DOWNLOAD),
            html.Header(
                className="header",
                children=[
                    html.H1("NVLink fabric twin"),
                    html.P(
                        "Click any cable, GPU, chip, controller or tray to fail it; click again "
                        "to repair. Everything you do is in the URL: share it and the same view "
                        "opens anywhere. Numbers cite FACTS.md; [A] marks assumptions."
                    ),
                ],
            ),
            controls(),
            html.Div(
                id=ids.MESSAGES, className="messages", role="status", **{"aria-live": "polite"}
            ),
            html.Div(id=ids.ACTION, className="action", role="status"),
            html.Div(id=ids.VIEW_MESSAGE, className="action", role="status"),
            html.P(id=ids.SCENARIO, className="scenario"),
            html.Section(id=ids.CARDS, className="cards"),
            html.Section(
                className="main",
                children=[
                    html.Div(
                        className="panel rack-panel",
                        children=[
                            html.H2("The rack and its NVLink spine"),
                            html.Div(
                                id=ids.RACK_SELECT + "-box",
                                className="rack-select",
                                style={"display": "none"},
                                children=[
                                    html.Span("Rack of the domain "),
                                    dcc.Dropdown(
                                        id=ids.RACK_SELECT,
                                        options=[f"r{i:02d}" for i in range(1, 17)],
                                        value="r01",
                                        clearable=False,
                                    ),
                                ],
                            ),
                            graph(ids.RACK, 680, "rack", rack_figure.graph_config()),
                            dcc.Graph(
                                id=ids.L2,
                                config=GRAPH_CONFIG,
                                style={"height": "260px", "display": "none"},
                                className="l2",
                            ),
                            html.Div(id=ids.HOVER, className="hover"),
                        ],
                    ),
                    html.Div(
                        className="panel side",
                        children=[
                            html.H2("What happened"),
                            html.Ol(id=ids.EVENTS, className="events"),
                            html.H2("Readers' questions, for this scenario"),
                            html.Div(id=ids.QUESTIONS, className="questions"),
                            html.H2("Counts"),
                            html.Table(id=ids.COUNTS, className="counts"),
                        ],
                    ),
                ],
            ),
            html.Section(
                className="charts",
                children=[
                    html.Div(
                        className="panel",
                        children=[
                            html.H2("MoE decode: throughput against interactivity"),
                            graph(ids.DECODE, 360),
                            html.P(id=ids.VERSUS, className="note"),
                        ],
                    ),
                    html.Div(
                        className="panel",
                        children=[
                            html.H2("Goodput over a rack-year, by cause"),
                            graph(ids.GOODPUT, 360),
                        ],
                    ),
                    html.Div(
                        className="panel",
                        children=[
                            html.H2("The newest fault, second by second"),
                            graph(ids.TIMELINE, 360),
                        ],
                    ),
                    html.Div(
                        className="panel",
                        children=[html.H2("GPU-to-GPU latency"), graph(ids.LATENCY, 360)],
                    ),
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
                                            {"label": m, "value": m}
                                            for m in (*telemetry.METRICS, "state")
                                        ],
                                        value=telemetry.REPLAY,
                                        clearable=False,
                                    ),
                                    html.Button("Pause clock", id=ids.PAUSE, n_clicks=0),
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
                ],
            ),
            html.Section(
                className="panel compare",
                children=[
                    html.H2("Compare with another scenario"),
                    html.P(
                        "Type a scenario query (e.g. fabric=eth-x72&fail=st3) to set it beside "
                        "this one."
                    ),
                    dcc.Input(
                        id=ids.COMPARE_INPUT,
                        type="text",
                        value="fabric=eth-x72",
                        maxLength=400,
                        debounce=True,
                        spellCheck=False,
                    ),
                    html.Div(id=ids.COMPARE),
                ],
            ),
            fleet.panel(),
            html.Section(
                className="panel export",
                children=[
                    html.H2("Export"),
                    html.Button("Results as JSON", id=ids.EXPORT_JSON, n_clicks=0),
                    html.Button("Results as CSV", id=ids.EXPORT_CSV, n_clicks=0),
                    html.Span(
                        "Charts: the camera icon on each chart saves a PNG.", className="note"
                    ),
                ],
            ),
            assumptions(),
        ],
    )
