"""The first page: the rack's counts and state for the URL's scenario (issue 2).

Every value is plain text in Dash components: nothing from the URL is rendered as HTML.
"""

from __future__ import annotations

from dash import dcc, html

from . import ids


def layout() -> html.Div:
    """The static shell; the callback fills it from the URL."""
    return html.Div(
        className="page",
        children=[
            dcc.Location(id=ids.URL, refresh=False),
            html.Header(
                className="header",
                children=[
                    html.H1("NVLink fabric twin"),
                    html.P(
                        "A model of an NVL72 rack's NVLink fabric: fail parts through the URL "
                        "(e.g. ?fail=st3) and read what the fabric does. Numbers cite "
                        "FACTS.md; [A] marks this project's assumptions."
                    ),
                ],
            ),
            html.Div(id=ids.MESSAGES, className="messages", role="status"),
            html.P(id=ids.SCENARIO, className="scenario"),
            html.Section(id=ids.CARDS, className="cards"),
            html.Section(
                className="two-col",
                children=[
                    html.Div([html.H2("Counts"), html.Table(id=ids.COUNTS, className="counts")]),
                    html.Div(
                        [html.H2("What happened"), html.Ol(id=ids.EVENTS, className="events")]
                    ),
                ],
            ),
        ],
    )


def card(title: str, value: str, note: str, tone: str = "") -> html.Div:
    """One headline figure with its unit and where it comes from."""
    return html.Div(
        className=f"card {tone}".strip(),
        children=[
            html.Div(title, className="card-title"),
            html.Div(value, className="card-value"),
            html.Div(note, className="card-note"),
        ],
    )


def cards(r: dict) -> list[html.Div]:
    """Headline cards for one evaluate() result."""
    bw = r["bandwidth"]
    pg = bw["per_gpu_tbs"]
    lat = r["latency_us"]
    job = r["job"]
    part = r["partition"]
    tone = {"running": "ok", "degraded": "warn"}.get(job["state"], "bad")
    lat_val = "n/a" if lat["p50"] is None else f"{lat['p50']:.3g} / {lat['p99']:.3g} us"
    return [
        card(
            "Worst GPU bandwidth",
            f"{pg['min']:g} TB/s",
            f"of {pg['healthy']:g} TB/s bidirectional; collectives run at the slowest GPU's pace",
            "warn" if pg["min"] < pg["healthy"] else "ok",
        ),
        card(
            "Rack bandwidth",
            f"{bw['aggregate_tbs']:g} TB/s",
            f"of {bw['aggregate_healthy_tbs']:g} TB/s; all-to-all {bw['all_to_all_tbs']:g} TB/s",
        ),
        card(
            "In-network compute",
            f"{r['sharp_tflops']:g} TFLOPS",
            f"of {r['sharp_healthy_tflops']:g}; SHARP on switch chips in service",
        ),
        card(
            "Latency p50 / p99",
            lat_val,
            f"one way, {lat['message_bytes']} B message at {lat['offered_load']:.0%} load [A]",
        ),
        card(
            "Partition",
            part["state"],
            f"{part['mode']} mode: {part['explanation']}",
            {"HEALTHY": "ok", "UNHEALTHY": "bad"}.get(part["state"], "warn"),
        ),
        card("Job", job["state"], f"{job['cause']}; restart: {job['restart']}", tone),
        card(
            "Control plane",
            r["control_plane"]["state"],
            r["control_plane"]["explanation"],
            "ok" if r["control_plane"]["state"] == "healthy" else "warn",
        ),
    ]


COUNT_ROWS = (
    ("GPUs active", "gpus_active", "gpus"),
    ("switch chips in service", "switch_chips_up", "switch_chips"),
    ("links up", "links_up", "links"),
    ("cables carrying traffic", "cables_up", "cables"),
    ("management controllers up", "controllers_up", "controllers"),
)


def counts_table(r: dict) -> list[html.Tr]:
    c = r["counts"]
    return [
        html.Tr([html.Td(label), html.Td(f"{c[a]:,} of {c[b]:,}")]) for label, a, b in COUNT_ROWS
    ]
