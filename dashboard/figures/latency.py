"""GPU-to-GPU latency, one way, under load: the share of messages slower than x, this scenario
against its healthy rack and eth-x72, p50 and p99 marked. Input: model.fabric.metrics'
latency_distribution(state) of each."""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from dashboard.figures.base import BG, COLORS, MUTED, empty_figure, figure, hline

NAMES = MappingProxyType(
    {"eth-x72": "eth-x72", "healthy": "healthy rack", "scenario": "this scenario"}
)


def _us(x: float | None) -> str:
    """A quantile for a legend: 3 significant digits, or unbounded (an unstable queue)."""
    return "unbounded" if x is None else f"{x:.3g}"


def _traces(key: str, d: dict, name: str | None = None) -> list[dict]:
    """The distribution's curve and its p50/p99 markers (a quantile among pairs whose queue
    never clears has no marker: it is unbounded)."""
    name = name or NAMES[key]
    lat = np.asarray(d["latency_us"], dtype=float)
    exceed = 100.0 * (1.0 - np.asarray(d["cdf"], dtype=float))
    color = COLORS[key]
    curve = {
        "type": "scatter",
        "x": np.concatenate([[0.0, lat[0]], lat]),
        "y": np.concatenate([[100.0, 100.0], exceed]),
        "mode": "lines",
        "name": f"{name}: p50 {_us(d['p50'])}, p99 {_us(d['p99'])} µs",
        "legendgroup": key,
        "line": {"color": color, "width": 3 if key == "scenario" else 2},
        "hovertemplate": (
            f"{name}<br>%{{y:.3g}}% of messages take longer than %{{x:.3f}} µs<extra></extra>"
        ),
    }
    finite = [(q, x, y) for q, x, y in (("p50", d["p50"], 50.0), ("p99", d["p99"], 1.0)) if x]
    marks = {
        "type": "scatter",
        "x": [x for _, x, _ in finite],
        "y": [y for _, _, y in finite],
        "mode": "markers",
        "legendgroup": key,
        "showlegend": False,
        "marker": {"color": color, "size": 9, "line": {"color": BG, "width": 1}},
        "customdata": [q for q, _, _ in finite],
        "hovertemplate": f"{name}<br>%{{customdata}}: %{{x:.3f}} µs<extra></extra>",
    }
    return [curve, marks]


def latency_figure(current: dict, healthy: dict | None = None, eth_x72: dict | None = None) -> dict:
    """Share of messages slower than x (log) against one-way latency (us), p50 and p99
    marked, this scenario against its healthy rack (and eth-x72 if given); input:
    metrics.latency_distribution(state) for each."""
    if not current.get("latency_us"):
        return empty_figure(
            "No GPU-to-GPU latency: the fabric carries no job traffic now "
            "(a maintenance window, or fewer than two GPUs).",
            "GPU-to-GPU latency",
        )
    kb = current.get("message_bytes", 0) / 1024
    load = current.get("offered_load", 0.0)
    note = (
        f"<br>queue unstable: {current['unstable_share']:.1%} of GPU pairs wait at a port "
        "offered more than its links carry (unbounded)"
        if current.get("unstable_share")
        else ""
    )
    domain = "unloaded_across_racks_us" in current  # a multi-rack domain's distribution
    hops = "one hop in a rack, three across racks; " if domain else ""
    fig = figure(
        "GPU-to-GPU latency, one way, under load",
        f"{kb:g} KiB message, fabric {load:.0%} busy [A]: {hops}M/M/1 wait at the busier<br>"
        "port, over all pairs of active GPUs (docs/MODEL.md, Latency)" + note,
        "latency",
        legend={
            "x": 0.01,
            "xanchor": "left",
            "y": 0.02,
            "yanchor": "bottom",
            "font": {"size": 10},
            "tracegroupgap": 0,
        },
    )
    xmax = 0.0
    for key, d in (("eth-x72", eth_x72), ("healthy", healthy), ("scenario", current)):
        if not d or not d.get("latency_us"):
            continue
        fig["data"] += _traces(key, d, "healthy domain" if domain and key == "healthy" else None)
        top = d["quantiles"].get("0.999")
        xmax = max(xmax, float(top if top is not None else d["latency_us"][-1]))
    lay = fig["layout"]
    lay["shapes"] = [
        hline(level, {"color": MUTED, "width": 1, "dash": "dot"}) for level in (50.0, 1.0)
    ]
    lay["annotations"] = [
        {  # on a log axis an annotation's y is log10 of the value
            "text": text,
            "xref": "x domain",
            "x": 0.995,
            "y": math.log10(level),
            "xanchor": "right",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 9, "color": MUTED},
        }
        for level, text in ((50.0, "p50"), (1.0, "p99"))
    ]
    lay["xaxis"] = {
        "title": {"text": "one-way latency, µs"},
        "range": [0, xmax * 1.05],
        "rangemode": "tozero",
    }
    lay["yaxis"] = {
        "title": {"text": "messages slower, % (log)"},
        "type": "log",
        "range": [math.log10(0.08), math.log10(130)],
        "tickvals": [0.1, 1, 10, 50, 100],
        "ticktext": ["0.1", "1", "10", "50", "100"],
    }
    return fig
