"""One link's (or cable's) counter over simulated time, INACTIVE and stale spans shaded, state
changes marked. Input: model.telemetry.link_series(scenario, link, t0, t1, step)."""

from __future__ import annotations

import numpy as np

from dashboard.figures.base import (
    COLORS,
    FG,
    MUTED,
    add_annotation,
    add_shape,
    empty_figure,
    figure,
    legend_swatch,
    vrect,
)
from dashboard.figures.heatmap import METRIC_LABELS
from model import telemetry as tm


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) index pairs of the True runs in a boolean array; end is exclusive."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(
        zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(), strict=True)
    )


def _time_unit(span_s: float) -> tuple[str, float]:
    if span_s > 3 * 86400:
        return "days", 86400.0
    if span_s > 2 * 3600:
        return "hours", 3600.0
    return "minutes", 60.0


def link_series_figure(series: dict, metric: str) -> dict:
    """One link's (or cable's) metric over simulated time, INACTIVE and stale spans shaded,
    state changes marked; input: telemetry.link_series()."""
    t = np.asarray(series.get("t_s") or [], dtype=float)
    lid = series.get("id", "link")
    if t.size == 0:
        return empty_figure(f"No samples of {lid} in this window.", f"{lid} over time")
    note = ""
    if metric != "state" and metric not in series:
        note = series.get("visible") or f"{metric} is not in this series"
        metric = "state"
    states = np.asarray(series.get("state") or ["ACTIVE"] * t.size, dtype=object)
    active = states == "ACTIVE"
    label, unit, kind = METRIC_LABELS.get(metric, (metric, "", ""))
    tunit, div = _time_unit(float(t[-1] - t[0]))
    x = t / div
    if metric == "state":
        y = active.astype(float)
    else:
        y = np.asarray(series[metric], dtype=float)  # None (no reading) becomes NaN
    fig = figure(
        f"{lid}: {label}",
        (f"{note}<br>" if note else f"{metric}: {kind}<br>")
        + "simulated clock from the counters' zero; model/telemetry.py",
        "link_series",
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "font": {"size": 10}},
        margin={"t": 84},
    )
    x_end = np.append(x[1:], x[-1])

    def shade(mask: np.ndarray, color: str, opacity: float) -> bool:
        runs = _runs(mask)
        for a, b in runs:
            add_shape(fig, vrect(x[a], x_end[b - 1], color, opacity))
        return bool(runs)

    if shade(~active, COLORS["failed"], 0.22):
        fig["data"].append(legend_swatch("INACTIVE", COLORS["failed"]))
    stale = np.asarray(series.get("stale") or [False] * t.size, dtype=bool)
    if shade(stale & active, COLORS["neutral"], 0.18) or (stale & ~active).any():
        fig["data"].append(legend_swatch("stale: controller down", COLORS["neutral"]))
    fig["data"].append(
        {
            "type": "scatter",
            "x": x,
            "y": y,
            "mode": "lines",
            "name": label,
            "line": {
                "color": COLORS["scenario"],
                "width": 2,
                "shape": "hv" if metric == "state" else "linear",
            },
            "hovertemplate": f"%{{x:.3~f}} {tunit}<br>{label}: %{{y:.4~g}} {unit}<extra></extra>",
            "showlegend": False,
        }
    )
    change = np.flatnonzero(states[1:] != states[:-1]) + 1
    if change.size:
        up = states[change] == "ACTIVE"
        fig["data"].append(
            {
                "type": "scatter",
                "x": x[change],
                "y": y[change],
                "mode": "markers",
                "name": "state change",
                "marker": {
                    "symbol": "diamond",
                    "size": 10,
                    "color": np.where(up, COLORS["ok"], COLORS["failed"]).tolist(),
                    "line": {"color": FG, "width": 1},
                },
                "customdata": [
                    f"{a} → {b}" for a, b in zip(states[change - 1], states[change], strict=True)
                ],
                "hovertemplate": f"%{{x:.3~f}} {tunit}<br>%{{customdata}}<extra></extra>",
            }
        )
    lay = fig["layout"]
    lay["xaxis"] = {"title": {"text": f"simulated time, {tunit}"}}
    if metric == "state":
        lay["yaxis"] = {
            "title": {"text": "link state"},
            "tickvals": [0, 1],
            "ticktext": ["INACTIVE", "ACTIVE"],
            "range": [-0.15, 1.15],
        }
    elif metric == tm.BER:
        lay["yaxis"] = {
            "title": {"text": f"{label}, {unit} (log)"},
            "type": "log",
            "exponentformat": "power",
        }
    else:
        top = float(np.nanmax(y)) if np.isfinite(y).any() else 0.0
        lay["yaxis"] = {
            "title": {"text": f"{label}, {unit}"},
            "tickformat": "~s" if top >= 1000 else ",~g",
            "rangemode": "tozero",
        }
        if top == 0:
            lay["yaxis"] |= {"range": [-0.05, 1], "tickvals": [0]}
            add_annotation(
                fig,
                {
                    "text": "0 throughout this window",
                    "xref": "paper",
                    "yref": "paper",
                    "x": 0.5,
                    "y": 0.5,
                    "showarrow": False,
                    "font": {"size": 12, "color": MUTED},
                },
            )
    return fig
