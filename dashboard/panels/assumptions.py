"""The assumptions panel: every constant on the page with its FACTS.md row or its [A] mark,
from the model's own fact tables. Below the first screen: its tables (~38 KB of the page's
layout) are sent once that part of the page is first seen (panels/below.py), not with the
first page."""

from __future__ import annotations

from collections.abc import Iterable

from dash import Dash, Input, Output, html, no_update

from dashboard import ids
from dashboard.infra import results
from dashboard.panels.sources import cite
from model.fabric.presets import FABRICS
from model.params import PARAM_FACTS
from model.reliability.rates import RELIABILITY_FACTS
from model.workloads.decode_assumptions import ASSUMPTIONS as DECODE_ASSUMPTIONS


def _fact_rows(facts: Iterable) -> list[html.Tr]:
    return [
        html.Tr(
            [
                html.Td(f.name),
                html.Td(f"{f.value} {f.unit}".strip()),
                html.Td(f.tag),
                html.Td(cite(f.source)),
            ]
        )
        for f in facts
    ]


def tables() -> list:
    """Every constant on screen with its FACTS.md row or its [A] mark, a table a source."""
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
                        html.Td(cite(a["source"])),
                    ]
                )
                for a in DECODE_ASSUMPTIONS
            ],
            className="facts",
        )
    )
    sections.append(html.H3("Failure rates and timings (goodput)"))
    sections.append(html.Table([head, *_fact_rows(RELIABILITY_FACTS)], className="facts"))
    return [*sections, *sensitivity_table(results.calibration()["goodput_sensitivity"])]


def sensitivity_table(a: dict) -> list:
    """The model's sensitivity answer (model.reliability.sensitivity, issue 29): each [A]
    that moves goodput past the threshold, its span and the goodput at each end, as given."""
    head = html.Tr(
        [html.Th(x) for x in ("assumption", "default", "span", "goodput low", "high", "moves")]
    )
    rows = [
        html.Tr(
            [
                html.Td(r["name"]),
                html.Td(f"{r['default']:.3g} {r['unit']}"),
                html.Td(f"{r['low']:.3g} to {r['high']:.3g}: {r['span']}"),
                html.Td(f"{r['goodput_low']:.3%}"),
                html.Td(f"{r['goodput_high']:.3%}"),
                html.Td(f"{r['swing_pp']:.2f} pp"),
            ]
        )
        for r in a["rows"]
    ]
    note = (
        f"Each assumption [A] alone at both ends of its span on {a['scenario']}: goodput "
        f"{a['rows'][0]['goodput_default']:.3%} at the defaults. Shown: those that move it by "
        f"more than {a['threshold_pp']} pp. Below that: {', '.join(a['below']) or 'none'}."
        if a["rows"]
        else f"No assumption moves goodput by more than {a['threshold_pp']} pp."
    )
    return [
        html.H3("What moves goodput: each assumption across its span"),
        html.P(note),
        html.Table([head, *rows], className="facts", id=ids.SENSITIVITY),
    ]


def layout() -> html.Details:
    """The panel; its tables come once it is near the viewport (fill)."""
    return html.Details(
        id=ids.ASSUMPTIONS,
        className="panel assumptions",
        children=[
            html.Summary("Assumptions and sources: every number on this page"),
            html.P(
                [
                    (
                        "Tags: V vendor statement, M measured and published, D derived by "
                        "arithmetic, A an assumption of this project (no public figure; editable "
                        "through the API). "
                    ),
                    *cite(
                        "FACTS.md is the project's sourced fact sheet; docs/MODEL.md explains "
                        "the model; docs/CALIBRATION.md how decode is fitted."
                    ),
                    " ",
                    html.A("Every source the page cites", href="/docs/", target="_blank"),
                    ".",
                ]
            ),
            html.Div(id=ids.ASSUMPTIONS_BODY, children=html.P("Building the tables…")),
        ],
    )


def fill(seen: bool | None) -> dict:
    """The tables, once the page below the first screen has been seen (BELOW_SEEN)."""
    return {"body": tables() if seen else no_update}


def register(app: Dash) -> None:
    """The tables on BELOW_SEEN (never with the first page). Called as the panel mounts too
    (panels/lazy.py): a reader who scrolls there first sets BELOW_SEEN before it exists."""
    app.callback(
        output={"body": Output(ids.ASSUMPTIONS_BODY, "children")},
        inputs={"seen": Input(ids.BELOW_SEEN, "data")},
    )(fill)
