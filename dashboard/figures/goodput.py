"""Lifetime goodput, what each feature saves: badput by cause (hours per rack-year) as stacked
bars, one a configuration, the one on screen marked. Input: model.reliability.goodput's
comparison() rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from dashboard.figures.base import COLORS, FG, empty_figure, figure
from model.multirack.domains import DOMAINS
from model.reliability.goodput import CAUSES
from model.scenario import Scenario
from model.workloads.models import DEFAULT_WORKLOAD

# Badput causes (model.goodput.CAUSES): the rest of the Okabe-Ito set, fixed per cause.
CAUSE_COLORS = MappingProxyType(
    {
        "repair_wait": "#D55E00",
        "degraded": "#E69F00",
        "maintenance": "#F0E442",
        "detection": "#009E73",
        "restarts": "#0072B2",
        "lost_work": "#CC79A7",
        "checkpoints": "#56B4E9",
    }
)
# Legend name, hover name. The stack runs in CAUSE_COLORS' order: the largest cause at zero.
CAUSE_NAMES = MappingProxyType(
    {
        "repair_wait": ("repair wait", "rack idle: waiting for a repair, or rack-down swaps"),
        "degraded": ("degraded", "running degraded until the repair"),
        "maintenance": ("maintenance", "switch updates as rack-down windows"),
        "detection": ("detection", "a hang waiting to be detected (timeout or telemetry)"),
        "restarts": ("restarts", "restart after each stop"),
        "lost_work": ("lost work", "work since the last checkpoint, lost at aborts"),
        "checkpoints": ("checkpoints", "blocking checkpoint writes"),
    }
)


def comparison_label(rows: Sequence[dict], scenario: Scenario) -> str | None:
    """The comparison row with this scenario's fabric and feature switches, if there is one.

    Goodput is a property of the configuration, not of today's faults: faults, flaky parts,
    updates, the workload and the repair policy (every row has the page's) are left out of
    the match.
    """
    key = replace(
        scenario, fail=(), flaky=(), update=(), workload=DEFAULT_WORKLOAD, repair="now"
    ).key()
    return next((r["label"] for r in rows if r.get("query") == key), None)


def short_label(label: str) -> str:
    """'vr-nvl72, reroute off' -> 'VR: reroute off'; 'gb200-nvl72, defaults' -> 'gb200-nvl72'."""
    s = label.replace(", defaults", "").replace("all seven features", "all features")
    return s.replace("vr-nvl72, ", "VR: ")


def _cause_bar(cause: str, rows: Sequence[dict], labels: list[str], full: list[str]) -> dict:
    hours = np.array([r["badput_hours_per_rack_year"].get(cause, 0.0) for r in rows])
    short, name = CAUSE_NAMES.get(cause, (cause.replace("_", " "),) * 2)
    return {
        "type": "bar",
        "x": hours,
        "y": labels,
        "orientation": "h",
        "name": short,
        "customdata": full,
        "marker": {"color": CAUSE_COLORS.get(cause, COLORS["neutral"]), "line": {"width": 0}},
        "hovertemplate": f"%{{customdata}}<br>{name}: %{{x:.1f}} h per rack-year<extra></extra>",
    }


def _by_badput(rows: Sequence[dict]) -> tuple[list[dict], np.ndarray]:
    """The rows from most badput to least (plotly draws the first category at the bottom, so
    the best configuration ends on top) and their total badput, hours."""
    total = np.array([sum(r["badput_hours_per_rack_year"].values()) for r in rows])
    order = np.argsort(-total, kind="stable")
    return [rows[i] for i in order], total[order]


def _causes(rows: Sequence[dict]) -> list[str]:
    """The causes with any badput, in CAUSE_COLORS' order (the stack's), then the model's,
    then any other by name."""
    present = {c for r in rows for c, v in r["badput_hours_per_rack_year"].items() if v}
    known = [c for c in (*CAUSE_COLORS, *CAUSES) if c in present]
    return list(dict.fromkeys(known)) + sorted(present - set(known))


def _domain_of(rows: Sequence[dict]) -> str | None:
    """The multi-rack domain the rows are of, or None for the rack comparison."""
    return next(
        (d for d in DOMAINS if any(r.get("query", "").startswith(f"fabric={d}") for r in rows)),
        None,
    )


def _frame(domain: str | None) -> dict:
    """The figure without traces: the title, the subtitle (what is assumed: per rack-year or
    per domain-year), stacked bars, the legend below."""
    unit = f"{domain}-year (the domain's one job)" if domain else "rack-year"
    links = "copper in racks, optical trunks" if domain else "copper links"
    return figure(
        "Lifetime goodput: what each feature saves",
        f"Closed form over one {unit}, repair at once (docs/GOODPUT.md): FACTS §6<br>"
        f"and [A] failure rates ({links}), [A] swap times; goodput % at each bar's end",
        "goodput",
        barmode="stack",
        bargap=0.25,
        legend={
            "orientation": "h",
            "traceorder": "normal",
            "x": 0,
            "y": -0.2,
            "yanchor": "top",
            "font": {"size": 10},
            "itemwidth": 30,
        },
        margin={"l": 10, "b": 36},
    )


def _goodput_text(rows: Sequence[dict], total: np.ndarray, labels: list[str]) -> dict:
    """Each row's goodput % as text at its bar's end, the hover adding its badput."""
    frac = np.array([r["fraction"] for r in rows])
    return {
        "type": "scatter",
        "x": total,
        "y": labels,
        "mode": "text",
        "text": [f" {f:.2%}" for f in frac],
        "textposition": "middle right",
        "textfont": {"size": 10, "color": FG},
        "showlegend": False,
        "customdata": np.stack([frac * 100, total], axis=1),
        "hovertemplate": (
            "%{y}<br>goodput %{customdata[0]:.2f}%<br>"
            "badput %{customdata[1]:.0f} h per rack-year<extra></extra>"
        ),
    }


def _current_band(i: int) -> dict:
    """A band behind row i, the configuration on screen."""
    return {
        "type": "rect",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": i - 0.5,
        "y1": i + 0.5,
        "fillcolor": COLORS["scenario"],
        "opacity": 0.16,
        "line": {"width": 0},
        "layer": "below",
    }


def _axes(labels: list[str], ticktext: list[str], total: np.ndarray, domain: str | None) -> dict:
    """The configurations down (ticks as given: the current one marked), badput across with
    room at the right for the goodput text."""
    return {
        "yaxis": {
            "title": {"text": "configuration"},
            "tickmode": "array",
            "tickvals": labels,
            "ticktext": ticktext,
            "ticks": "",
            "showgrid": False,
        },
        "xaxis": {
            "title": {"text": f"badput, hours per {'domain' if domain else 'rack'}-year"},
            "range": [0, float(total.max()) * 1.25],
        },
    }


def goodput_figure(rows: Sequence[dict], current_label: str | None = None) -> dict:
    """Badput by cause (hours per rack-year) as stacked horizontal bars, best configuration
    on top, goodput % at each bar's end; input: goodput.comparison() rows."""
    rows = [r for r in rows if r.get("badput_hours_per_rack_year")]
    if not rows:
        return empty_figure("No goodput comparison to show.", "Lifetime goodput")
    rows, total = _by_badput(rows)
    labels = [short_label(r["label"]) for r in rows]
    full = [r["label"] for r in rows]
    domain = _domain_of(rows)
    fig = _frame(domain)
    fig["data"] = [_cause_bar(c, rows, labels, full) for c in _causes(rows)]
    fig["data"].append(_goodput_text(rows, total, labels))
    ticktext = list(labels)
    lay = fig["layout"]
    if current_label in full:
        i = full.index(current_label)
        ticktext[i] = f"<b>▶ {labels[i]}</b>"
        lay["shapes"] = [_current_band(i)]
    lay |= _axes(labels, ticktext, total, domain)
    return fig


# The optimiser's policy kinds, each its own trace (model.reliability.policy).
POLICY_KINDS = MappingProxyType(
    {
        "now": ("repair at once", COLORS["scenario"]),
        "window": ("planned window every N days", COLORS["healthy"]),
        "dark": ("when K links are dark", "#009E73"),
        "bw": ("when the worst GPU falls below P%", "#CC79A7"),
    }
)


def policy_figure(best: dict) -> dict:
    """The optimiser's trade: goodput against rack-down visits a year for every repair policy
    tried, the best ringed; input: model.reliability.goodput.best_policy()."""
    tried = best.get("tried") or []
    if not tried:
        return empty_figure("No repair policy tried.", "Repair policy")
    fig = figure(
        "Repair policy: goodput against the stops it takes",
        f"Every policy the optimiser tried (closed form); best: repair={best['best']}, "
        f"{best['gain_vs_now'] * 100:+.3f} pp over repairing at once",
        "policy",
        legend={"orientation": "h", "x": 0, "y": -0.25, "yanchor": "top", "font": {"size": 10}},
        margin={"l": 10, "b": 40},
    )
    # with spare racks no visit holds a rack down (a spare takes its place): the trade is
    # then in the job's planned stops (visits and swaps)
    visits = any(t["rack_down_visits_per_year"] > 0 for t in tried)
    xkey = "rack_down_visits_per_year" if visits else "planned_stops_per_year"
    xname = "rack-down visits a year" if visits else "planned stops a year (spares take the visits)"
    for kind, (name, color) in POLICY_KINDS.items():
        pts = [t for t in tried if t["policy"].split(",")[0].split("-")[0] == kind]
        if not pts:
            continue
        fig["data"].append(
            {
                "type": "scatter",
                "mode": "markers+text" if kind != "now" else "markers",
                "name": name,
                "x": [t[xkey] for t in pts],
                "y": [t["fraction"] * 100 for t in pts],
                "text": [t["policy"].split(",")[0].partition("-")[2] for t in pts],
                "textposition": "top center",
                "textfont": {"size": 9, "color": FG},
                "marker": {"color": color, "size": 9},
                "customdata": [t["policy"] for t in pts],
                "hovertemplate": (
                    "repair=%{customdata}<br>goodput %{y:.3f}%<br>"
                    f"%{{x:.2f}} {xname}<extra></extra>"
                ),
            }
        )
    top = next(t for t in tried if t["policy"] == best["best"])
    fig["data"].append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "best",
            "x": [top[xkey]],
            "y": [top["fraction"] * 100],
            "marker": {"size": 18, "color": "rgba(0,0,0,0)", "line": {"width": 2, "color": FG}},
            "hoverinfo": "skip",
        }
    )
    lay = fig["layout"]
    lay["xaxis"] = {"title": {"text": f"{xname} (count)"}, "rangemode": "tozero"}
    lay["yaxis"] = {"title": {"text": "goodput (%)"}}
    return fig
