"""The rack-and-spine figure as one plain dict, built once per fabric: the spine's traces, the
front view's, and the layout that puts them side by side."""

from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Any

from dashboard.figures.base import NO_UPLOAD, UPLOAD_BUTTONS
from dashboard.figures.rack.front import annotations, front_traces, shapes
from dashboard.figures.rack.geometry import (
    BASE_LINE_WIDTH,
    CABLE_UP,
    CLICKABLE,
    FONT_FAMILY,
    HOVER_DISTANCE,
    PAGE_BG,
    PANEL_BG,
    RACK_DOMAIN,
    RACK_X_RANGE,
    SPINE_DOMAIN,
    SPINE_X_RANGE,
    STATUS_COLORS,
    STATUS_LABELS,
    STATUS_WIDTHS,
    STATUSES,
    TEXT,
    TEXT_DIM,
    TRACES,
    Geometry,
    fabric_of,
    geometry,
    y_total,
)
from dashboard.figures.rack.selection import selection_traces
from dashboard.figures.rack.spine import cable_hits, line_trace, segments_y_array
from model.fabric.presets import FABRICS, Fabric


def frame(font_size: int, margin: dict) -> dict:
    """The rack's figures' common frame: the panel's colours, the font, the margins."""
    return {
        "paper_bgcolor": PANEL_BG,
        "plot_bgcolor": PANEL_BG,
        "font": {"color": TEXT, "family": FONT_FAMILY, "size": font_size},
        "margin": {**margin, "pad": 0},
        "autosize": True,
    }


def _layout(f: Fabric, geo: Geometry) -> dict:
    return {
        **frame(12, {"l": 6, "r": 6, "t": 44, "b": 32}),
        "xaxis": {
            "domain": list(RACK_DOMAIN),
            "range": list(RACK_X_RANGE),
            "autorange": False,
            "visible": False,
            "anchor": "y",
        },
        "xaxis2": {
            "domain": list(SPINE_DOMAIN),
            "range": list(SPINE_X_RANGE),
            "autorange": False,
            "visible": False,
            "anchor": "y",
        },
        "yaxis": {
            "range": [y_total(f), 0],
            "autorange": False,
            "visible": False,
            "anchor": "x",
        },
        # the hit points' trace, for the browser's exact nearest search (assets/rack_hover.js)
        # and the traces a press can name, for a press plotly's hover missed (rack_hover.js)
        "meta": {"hits": TRACES["cable_hits"], "clickable": [TRACES[n] for n in CLICKABLE]},
        "hovermode": "closest",
        "hoverdistance": HOVER_DISTANCE,
        "clickmode": "event",
        "dragmode": "zoom",
        # the mode bar, always shown (its button resets the zoom), stands up the right edge,
        # over the spine's empty corner, not across the colour key at the top
        "modebar": {"orientation": "v"},
        "uirevision": f.key,
        "showlegend": False,
        "hoverlabel": {
            "bgcolor": PAGE_BG,
            "bordercolor": TEXT_DIM,
            "font": {"color": TEXT, "family": FONT_FAMILY, "size": 12},
        },
        "shapes": shapes(f, geo),
        "annotations": annotations(f),
    }


@functools.lru_cache(maxsize=len(FABRICS))
def _base(fabric_key: str) -> dict:
    """The cached figure: arrays are tuples, so sharing them between copies is safe."""
    f = fabric_of(fabric_key)
    geo = geometry(fabric_key)
    n = f.cables
    cables = line_trace(
        "cables",
        n,
        segments_y_array(geo.y_left, geo.y_right),
        CABLE_UP,
        BASE_LINE_WIDTH,
    )
    overlays = [
        line_trace(STATUS_LABELS[s], n, (), STATUS_COLORS[s], STATUS_WIDTHS[s]) for s in STATUSES
    ]
    data = [cables, *overlays, cable_hits(f, geo), *front_traces(f, geo), *selection_traces(f)]
    return {"data": data, "layout": _layout(f, geo)}


def _fresh(obj: Any) -> Any:
    """Copy dicts and lists, share tuples and scalars (immutable): a cheap safe copy."""
    if isinstance(obj, MappingProxyType):  # a typed-array spec: its strings are immutable
        return dict(obj)
    if isinstance(obj, dict):
        return {k: _fresh(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_fresh(v) for v in obj]
    return obj


def base_figure(fabric_key: str) -> dict:
    """The whole static figure for a fabric, as a plain dict (a fresh copy per call).

    Arrays are tuples shared with the cache; dicts and lists are the caller's own.
    """
    return _fresh(_base(fabric_key))


def graph_config() -> dict:
    """Suggested dcc.Graph `config`: nothing in it uploads the rack anywhere (NO_UPLOAD)."""
    return {
        **NO_UPLOAD,
        "displaylogo": False,
        "responsive": True,
        "scrollZoom": False,
        # no double-click gesture: two clicks are two presses (a part failed and repaired),
        # never one taken back; zoom is reset by the mode bar's own button, always shown
        "doubleClick": False,
        "displayModeBar": True,
        "modeBarButtonsToRemove": [
            "select2d",
            "lasso2d",
            "autoScale2d",
            "toggleSpikelines",
            "hoverClosestCartesian",
            "hoverCompareCartesian",
            *UPLOAD_BUTTONS,
        ],
        "toImageButtonOptions": {
            "format": "png",
            "filename": "nvlink-rack",
            "scale": 2,
        },
    }
