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


def _shown_metric(series: dict, metric: str) -> tuple[str, str]:
    """The metric to plot and a note on why it is not the one asked for: a series without the
    metric shows the state instead."""
    if metric != "state" and metric not in series:
        return "state", series.get("visible") or f"{metric} is not in this series"
    return metric, ""


def _bands(
    x: np.ndarray, x_end: np.ndarray, mask: np.ndarray, color: str, opacity: float
) -> list[dict]:
    """A shaded band over each run of samples where mask holds, to the next sample's time."""
    return [vrect(x[a], x_end[b - 1], color, opacity) for a, b in _runs(mask)]


def _shading(x: np.ndarray, active: np.ndarray, stale: np.ndarray) -> tuple[list[dict], list[dict]]:
    """The INACTIVE spans and the stale (controller down) ones while ACTIVE as bands, and a
    legend swatch for each kind shown (stale also when it only falls on INACTIVE spans)."""
    x_end = np.append(x[1:], x[-1])
    down = _bands(x, x_end, ~active, COLORS["failed"], 0.22)
    quiet = _bands(x, x_end, stale & active, COLORS["neutral"], 0.18)
    swatches = []
    if down:
        swatches.append(legend_swatch("INACTIVE", COLORS["failed"]))
    if quiet or (stale & ~active).any():
        swatches.append(legend_swatch("stale: controller down", COLORS["neutral"]))
    return down + quiet, swatches


def _line_trace(x: np.ndarray, y: np.ndarray, metric: str, tunit: str) -> dict:
    """The metric over time: a step line for the state, a straight one for a counter."""
    label, unit, _ = METRIC_LABELS.get(metric, (metric, "", ""))
    return {
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


def _change_trace(x: np.ndarray, y: np.ndarray, states: np.ndarray, tunit: str) -> dict | None:
    """A diamond at each state change, green back to ACTIVE, red away from it, the hover
    saying from what to what; None without a change."""
    change = np.flatnonzero(states[1:] != states[:-1]) + 1
    if not change.size:
        return None
    up = states[change] == "ACTIVE"
    return {
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


def _zero_note() -> dict:
    """Said in the plot's middle when a counter stays at 0 (a flat line at 0 reads as none)."""
    return {
        "text": "0 throughout this window",
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
        "showarrow": False,
        "font": {"size": 12, "color": MUTED},
    }


def _yaxis(metric: str, y: np.ndarray) -> tuple[dict, list[dict]]:
    """The y axis for the metric (the state as INACTIVE/ACTIVE, the BER on a log axis, a
    counter from zero) and the annotations it needs: the zero note for a counter that stays 0."""
    label, unit, _ = METRIC_LABELS.get(metric, (metric, "", ""))
    if metric == "state":
        axis = {
            "title": {"text": "link state"},
            "tickvals": [0, 1],
            "ticktext": ["INACTIVE", "ACTIVE"],
            "range": [-0.15, 1.15],
        }
        return axis, []
    if metric == tm.BER:
        axis = {
            "title": {"text": f"{label}, {unit} (log)"},
            "type": "log",
            "exponentformat": "power",
        }
        return axis, []
    top = float(np.nanmax(y)) if np.isfinite(y).any() else 0.0
    axis = {
        "title": {"text": f"{label}, {unit}"},
        "tickformat": "~s" if top >= 1000 else ",~g",
        "rangemode": "tozero",
    }
    if top != 0:
        return axis, []
    return axis | {"range": [-0.05, 1], "tickvals": [0]}, [_zero_note()]


def link_series_figure(series: dict, metric: str) -> dict:
    """One link's (or cable's) metric over simulated time, INACTIVE and stale spans shaded,
    state changes marked; input: telemetry.link_series()."""
    t = np.asarray(series.get("t_s") or [], dtype=float)
    lid = series.get("id", "link")
    if t.size == 0:
        return empty_figure(f"No samples of {lid} in this window.", f"{lid} over time")
    metric, note = _shown_metric(series, metric)
    states = np.asarray(series.get("state") or ["ACTIVE"] * t.size, dtype=object)
    active = states == "ACTIVE"
    label, _, kind = METRIC_LABELS.get(metric, (metric, "", ""))
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
    stale = np.asarray(series.get("stale") or [False] * t.size, dtype=bool)
    shapes, swatches = _shading(x, active, stale)
    for shape in shapes:
        add_shape(fig, shape)
    fig["data"] += [*swatches, _line_trace(x, y, metric, tunit)]
    change = _change_trace(x, y, states, tunit)
    if change is not None:
        fig["data"].append(change)
    lay = fig["layout"]
    lay["xaxis"] = {"title": {"text": f"simulated time, {tunit}"}}
    lay["yaxis"], notes = _yaxis(metric, y)
    for n in notes:
        add_annotation(fig, n)
    return fig
