"""The assumptions panel: every constant on the page with its FACTS.md row or its [A] mark.
Static: built once with the layout, from the model's own fact tables."""

from __future__ import annotations

from collections.abc import Iterable

from dash import html

from dashboard import ids
from model.fabric.presets import FABRICS
from model.params import PARAM_FACTS
from model.reliability.rates import RELIABILITY_FACTS
from model.workloads.decode import ASSUMPTIONS as DECODE_ASSUMPTIONS


def _fact_rows(facts: Iterable) -> list[html.Tr]:
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


def layout() -> html.Details:
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
