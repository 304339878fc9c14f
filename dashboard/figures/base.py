"""What every chart shares: the look (dark, Okabe-Ito colour-blind-safe colours, plotly's
Viridis), a figure's title and subtitle, the lines and bands drawn across a plot, the 'no
data' figure, and durations as an operator reads them.

A figure is a plain dict, {"data": [trace dicts], "layout": {...}}, written out property by
property (nested dicts, never plotly's magic underscores), with numpy arrays as values: Dash
and plotly.io.json serialize it as they would a go.Figure. Why not go.Figure: it validates
every property on every call, 9-31 ms a chart where the dict costs well under 1 ms
(bench/README.md); tests/dashboard/figures wrap every figure in go.Figure, so plotly still
validates each property there. Every builder makes its own dicts: nothing is shared between
two figures, so no caller can change another's.
"""

from __future__ import annotations

import textwrap
from types import MappingProxyType
from typing import Any

# A chart's data never leaves the page from its toolbar: no "Share chart" (plotly.js 7's
# sendChartToCloud uploads the chart to Plotly Cloud), no Chart Studio, no server to send to.
# Every dcc.Graph config of the page starts from this (issue 13, problem 6).
NO_UPLOAD = MappingProxyType(
    {
        "showSendToCloud": False,
        "showEditInChartStudio": False,
        "plotlyServerURL": "",
        "showLink": False,
    }
)
UPLOAD_BUTTONS = ("sendChartToCloud", "sendDataToCloud", "editInChartStudio")

BG = "#1a222c"
FG = "#e6edf3"
GRID = "#2d3742"
MUTED = "#9aa7b4"
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'

# Okabe-Ito (colour-blind safe). The three fabrics' colours mean the same on every chart.
COLORS = MappingProxyType(
    {
        "scenario": "#E69F00",
        "healthy": "#56B4E9",
        "eth-x72": "#CC79A7",
        "failed": "#D55E00",
        "ok": "#009E73",
        "neutral": "#999999",
    }
)

# plotly's 'Viridis' (plotly.colors.sequential), spelled out as plotly's validators spell a
# named scale: plotly.js's own 'Viridis' has other stops.
VIRIDIS = tuple(
    (i / 9, c)
    for i, c in enumerate(
        ("#440154", "#482878", "#3e4989", "#31688e", "#26828e")
        + ("#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725")
    )
)


def viridis() -> list[list]:
    """VIRIDIS as a colorscale a figure may own: [[stop, colour], ...]."""
    return [list(p) for p in VIRIDIS]


def _axis() -> dict:
    return {
        "gridcolor": GRID,
        "zerolinecolor": GRID,
        "linecolor": GRID,
        "tickcolor": GRID,
        "automargin": True,
        "title": {"standoff": 6, "font": {"size": 12}},
        "tickfont": {"size": 11},
    }


def template() -> dict:
    """The charts' plotly template, as a fresh plain dict for one figure."""
    return {
        "layout": {
            "paper_bgcolor": BG,
            "plot_bgcolor": BG,
            "font": {"family": FONT, "color": FG, "size": 12},
            "colorway": [COLORS[k] for k in ("scenario", "healthy", "eth-x72", "ok", "failed")],
            "xaxis": _axis(),
            "yaxis": _axis(),
            "legend": {"bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}},
            "hoverlabel": {
                "bgcolor": "#0b1016",
                "bordercolor": GRID,
                "font": {"family": FONT, "color": FG, "size": 12},
                "align": "left",
            },
            "margin": {"l": 56, "r": 14, "t": 76, "b": 44},
            "modebar": {
                "bgcolor": "rgba(0,0,0,0)",
                "color": MUTED,
                "activecolor": FG,
                "remove": ["lasso2d", "select2d"],
            },
            "hovermode": "closest",
            "colorscale": {"sequential": viridis()},
        }
    }


def title(text: str, sub: str) -> dict:
    """A left-aligned title with a muted subtitle (what was assumed, where numbers come from)."""
    return {
        "text": text,
        "x": 0.012,
        "xanchor": "left",
        "xref": "container",
        "y": 0.985,
        "yanchor": "top",
        "yref": "container",
        "font": {"size": 14},
        "subtitle": {"text": sub, "font": {"size": 10.5, "color": MUTED}},
    }


def header(text: str, sub: str, chart: str) -> dict:
    """Every chart's layout starts here: its template, title and subtitle, and meta naming it."""
    return {"template": template(), "title": title(text, sub), "meta": {"chart": chart}}


def figure(text: str, sub: str, chart: str, **layout: Any) -> dict:
    """A figure with no traces yet: header() and the layout properties given."""
    return {"data": [], "layout": header(text, sub, chart) | layout}


def add_shape(fig: dict, shape: dict) -> None:
    """Append a shape to the figure's layout."""
    fig["layout"].setdefault("shapes", []).append(shape)


def add_annotation(fig: dict, note: dict) -> None:
    """Append an annotation to the figure's layout."""
    fig["layout"].setdefault("annotations", []).append(note)


def vline(x: float, line: dict, xref: str = "x", yref: str = "y") -> dict:
    """A vertical line at x across the plot's height (plotly's add_vline)."""
    shape = {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "line": line}
    return shape | {"xref": xref, "yref": f"{yref} domain"}


def hline(y: float, line: dict, xref: str = "x", yref: str = "y") -> dict:
    """A horizontal line at y across the plot's width (plotly's add_hline)."""
    shape = {"type": "line", "x0": 0, "x1": 1, "y0": y, "y1": y, "line": line}
    return shape | {"xref": f"{xref} domain", "yref": yref}


def vrect(x0: float, x1: float, fillcolor: str, opacity: float, layer: str = "below") -> dict:
    """A band from x0 to x1 the plot's full height, without an outline (plotly's add_vrect)."""
    band = {"type": "rect", "x0": x0, "x1": x1, "y0": 0, "y1": 1, "fillcolor": fillcolor}
    band |= {"opacity": opacity, "line": {"width": 0}, "layer": layer}
    return band | {"xref": "x", "yref": "y domain"}


def legend_swatch(name: str, color: str, symbol: str = "square") -> dict:
    """A legend-only entry (for shaded areas and overlay colours)."""
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "markers",
        "name": name,
        "marker": {"symbol": symbol, "size": 11, "color": color},
        "hoverinfo": "skip",
    }


def wrap(text: str, width: int = 56) -> str:
    """Text broken into <br>-separated lines of at most `width` characters."""
    return "<br>".join(textwrap.wrap(text, width)) or text


def fmt_s(seconds: float) -> str:
    """A duration in the unit an operator reads it in: µs, ms, s, min, h, d."""
    a = abs(seconds)
    sign = "−" if seconds < 0 else ""
    if a == 0:
        return "0"
    if a < 1e-3:
        return f"{sign}{a * 1e6:.3g} µs"
    if a < 1:
        return f"{sign}{a * 1e3:.3g} ms"
    if a < 120:
        return f"{sign}{a:.3g} s"
    if a < 2 * 3600:
        return f"{sign}{a / 60:.3g} min"
    if a < 2 * 86400:
        return f"{sign}{a / 3600:.3g} h"
    return f"{sign}{a / 86400:.3g} d"


def empty_figure(message: str, text: str = "") -> dict:
    """A 'no data' figure in the shared template: no axes, the message in the middle."""
    fig = figure(text, "", "empty")
    fig["layout"] |= {
        "meta": {"chart": "empty", "empty": True, "message": message},
        "xaxis": {"visible": False},
        "yaxis": {"visible": False},
        "margin": {"l": 10, "r": 10, "t": 40 if text else 10, "b": 10},
        "annotations": [
            {
                "text": wrap(message, 48),
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
                "font": {"size": 13, "color": MUTED},
            }
        ],
    }
    return fig


def blank_figure() -> dict:
    """What the rack, the cable map and the L2 tier hold until their first answer: the
    panel's colour, no axes, no template. dcc.Graph draws its figure as it mounts, and an
    empty figure's default axes cost each of the first screen's three charts 10-40 ms of the
    page's one thread (an open's, issue 13's first-screen budget) for a frame of axes nobody
    reads; this one draws in ~8 ms."""
    return {
        "data": [],
        "layout": {
            "paper_bgcolor": BG,
            "plot_bgcolor": BG,
            "xaxis": {"visible": False},
            "yaxis": {"visible": False},
            "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
            "meta": {"blank": True},
        },
    }


def is_empty(fig: dict) -> bool:
    """True for a figure (dict) made by empty_figure."""
    meta = (fig.get("layout") or {}).get("meta")
    return isinstance(meta, dict) and bool(meta.get("empty"))
