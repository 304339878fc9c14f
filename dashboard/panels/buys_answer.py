"""What each feature buys, as the buyer's panel writes it (dashboard/panels/buys.py reads the
model and its settings, this writes the answer): the ranked table at the panel's job scale,
why the job keeps what it keeps, every column at every scale on demand, and the optimiser's
best repair policy beside the same at three interactivities. Every number is the model's
(model.reliability.compare, goodput.best_policy); this module only formats."""

from __future__ import annotations

from typing import Any

import pandas as pd
from dash import html

from dashboard import ids
from dashboard.panels.tables import html_table
from model import words
from model.fabric import features
from model.reliability import goodput

RANKED_COLUMNS = ("goodput lost", "money a year", "restarts a year")


def own_scale(values: dict, st: dict[str, Any]) -> int:
    """The index of the panel's own job scale among the table's (compare.scales_for)."""
    return next(
        k
        for k, sc in enumerate(values["scales"])
        if (sc["job_racks"], sc["spares"]) == (st["job_racks"], st["spares"])
    )


def _short(row: dict) -> str:
    """A row by what it changes: 'reroute off', 'gb200-nvl72 instead'."""
    return f"{row['key']} off" if row["key"] in features.FEATURE_KEYS else f"{row['key']} instead"


def ranked(values: dict, k: int) -> pd.DataFrame:
    """What each feature (or fabric) buys at scale k, the few columns a buyer reads first,
    ranked by money a year (goodput points rank the same at one price): the goodput lost
    without it, the money that is, and the restarts a year it adds."""
    rows = sorted(
        values["rows"][1:], key=lambda r: (-r["at"][k]["money_per_year"], -r["at"][k]["value_pp"])
    )
    cells = [r["at"][k] for r in rows]
    return pd.DataFrame(
        dict(
            zip(
                RANKED_COLUMNS,
                (
                    [f"{a['value_pp']:+.2f} pp" for a in cells],
                    [words.money(a["money_per_year"]) for a in cells],
                    [_signed(a["extra_restarts_per_year"]) for a in cells],
                ),
                strict=True,
            )
        ),
        index=pd.Index([_short(r) for r in rows], name="without"),
        dtype=object,
    )


def _signed(x: float) -> str:
    """A change in a count, signed, to 3 significant figures ('+9,270', '-8.78', '0')."""
    return "0" if abs(x) < 0.005 else ("+" if x > 0 else "-") + words.sig(abs(x))


def kept_notes(values: dict, k: int) -> html.Ul:
    """Why the job with every feature keeps its goodput, at the panel's scale first, then
    the others (compare.kept: the closed form's stops, their length and their overlap)."""
    order = [k, *(i for i in range(len(values["scales"])) if i != k)]
    return html.Ul(
        [
            html.Li(
                values["scales"][i]["kept"]["sentence"][0].upper()
                + values["scales"][i]["kept"]["sentence"][1:]
                + "."
            )
            for i in order
        ],
        className="note kept",
    )


def frame(values: dict) -> pd.DataFrame:
    """The side-by-side as a DataFrame: a row a configuration, four columns a scale."""
    cols: dict[str, list[str]] = {}
    for k, sc in enumerate(values["scales"]):
        tag = f"{sc['job_racks']:,} rack{'s' if sc['job_racks'] > 1 else ''}"
        tag += " + spares" if sc["spares"] else ""
        cells = [row["at"][k] for row in values["rows"]]
        cols[f"{tag}: goodput"] = [f"{a['fraction']:.3%}" for a in cells]
        cols[f"{tag}: value, pp"] = [f"{a['value_pp']:+.3f}" for a in cells]
        cols[f"{tag}: GPU-h a year"] = [f"{a['gpu_hours_per_year']:,.0f}" for a in cells]
        cols[f"{tag}: $ a year"] = [words.money(a["money_per_year"]) for a in cells]
    index = pd.Index([row["label"] for row in values["rows"]], name="configuration")
    return pd.DataFrame(cols, index=index, dtype=object)


def along_table(along: list[dict]) -> html.Table:
    """The optimiser at three interactivities side by side (goodput.best_policy_along)."""
    df = pd.DataFrame(
        {
            "best repair=": [r["best"] for r in along],
            "gain over repairing at once": [f"{r['gain_vs_now'] * 100:+.3f} pp" for r in along],
            "goodput repairing at once": [f"{r['fraction_now']:.3%}" for r in along],
            "goodput at best": [f"{r['fraction_best']:.3%}" for r in along],
        },
        index=pd.Index(
            [f"{r['tokens_per_s_per_user']:g} tokens/s per user" for r in along],
            name="decode runs at",
        ),
        dtype=object,
    )
    return html_table(df)


def policy_note(
    best: dict, job_racks: int, unit: str = "rack", along: list[dict] | None = None
) -> html.Div:
    """The optimiser's answer: the best policy, its gain over repairing at once, why, and
    every policy tried with its goodput and rack-down visits a year (the trade); with
    `along`, the same optimiser at three interactivities side by side."""
    tried = pd.DataFrame(
        {
            "goodput": [f"{t['fraction']:.3%}" for t in best["tried"]],
            "rack-down visits a year": [
                f"{t['rack_down_visits_per_year']:.2f}" for t in best["tried"]
            ],
            "planned stops a year": [f"{t['planned_stops_per_year']:.2f}" for t in best["tried"]],
        },
        index=pd.Index([t["policy"] for t in best["tried"]], name="repair="),
        dtype=object,
    )
    return html.Div(
        [
            html.P(
                [
                    (
                        "Best repair policy for this scenario as a job over "
                        f"{job_racks:,} {unit}{'s' if job_racks > 1 else ''}: "
                    ),
                    html.B(f"repair={best['best']}"),
                    (
                        f" ({goodput.policy_words(best['best'])}), "
                        f"{best['gain_vs_now'] * 100:+.3f} pp over repairing at once: "
                        f"{best['why']}."
                    ),
                ]
            ),
            *(
                [
                    html.P(
                        "The same optimiser where decode runs slower or faster (at= sets it): "
                        "a fault's slowdown, and so the cost of letting parts wait for a "
                        "visit, depends on the interactivity.",
                        className="note",
                    ),
                    along_table(along),
                ]
                if along
                else []
            ),
            html.Details([html.Summary("every policy tried"), html_table(tried)]),
        ]
    )


def _wide(table: html.Table) -> html.Table:
    """The table at a width its 13 columns can be read at; a narrow screen scrolls it."""
    table.style = {"minWidth": "64em"}
    return table


def _whys(values: dict) -> html.Ul:
    k = len(values["scales"]) - 1  # the job's own scale (or 2,000 racks)
    sc = values["scales"][k]
    head = f"at {sc['job_racks']:,} rack{'s' if sc['job_racks'] > 1 else ''}"
    return html.Ul(
        [html.Li(f"{row['label']}, {head}: {row['at'][k]['why']}.") for row in values["rows"][1:]],
        className="note",
    )


def answer(values: dict, k: int, note: html.P) -> html.Div:
    """The buyer's answer at a glance: the ranked table at the panel's scale, why the job
    keeps what it keeps, then every column at every scale on demand."""
    sc = values["scales"][k]
    unit = values.get("unit", "racks").split(" ")[0]
    return html.Div(
        [
            html.P(
                f"Ranked by money a year, for a job over {sc['job_racks']:,} "
                f"{unit if sc['job_racks'] > 1 else unit.removesuffix('s')}"
                + (" with spare racks" if sc["spares"] else "")
                + f" at ${values['price_per_gpu_h']:g} per GPU-hour: what each costs when it "
                "is missing (goodput points, the money they are, and the restarts a year it "
                "adds).",
                className="note",
            ),
            html.Div(html_table(ranked(values, k), "compare-table ranked"), className="scroll-x"),
            kept_notes(values, k),
            note,
            html.Details(
                [
                    html.Summary("all columns: every scale, goodput, GPU-hours, and why"),
                    html.Div(_wide(html_table(frame(values))), style={"overflowX": "auto"}),
                    _whys(values),
                ],
                id=ids.BUYS_ALL,
            ),
        ]
    )
