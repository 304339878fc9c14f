"""The spine's traces: every cable as one SVG line trace, one overlay trace per status, and a
hit point per cable that hover and click find.

Every line trace of the spine keeps the same static x array (0, 1, 0 per cable, for all
5,184 cables) and a patch sends y only: plotly.js draws min(len(x), len(y)) points, so an
overlay of k cables is 3k y values. The spine's lines are SVG `scatter`: a line trace is
one SVG path of 5,184 segments, which draws in ~0.1 s, where the same lines in WebGL took
~1.3 s a frame in a browser without a GPU (software GL; bench/README.md). Only points fire
hover and click, so each cable has one hit point part-way along it, at a fraction that
spreads them over the spine. The hit points are an SVG scatter that draws nothing (mode
"none"): they were WebGL markers once, for WebGL's exact nearest hover (plotly's SVG hover
calls every point within a few pixels a tie, and these sit within a pixel of each other),
and the first WebGL context cost the first page ~1.2 s. The nearest is now found in the
browser over these points (assets/rack_hover.js), for hover and press alike.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from dashboard.figures.rack.geometry import (
    MASK_PX,
    PANEL_BG,
    SPINE_LEFT,
    SPINE_RIGHT,
    Geometry,
)
from model.fabric.presets import Fabric


def readonly(a: np.ndarray) -> dict:
    """A plotly.js typed-array spec ({dtype, bdata}): what plotly.py sends for numpy arrays
    through graph objects, and a few bytes a value instead of a JSON number. An immutable
    dict view, so the cached figure cannot be changed through it."""
    return MappingProxyType(
        {"dtype": a.dtype.str.lstrip("<|="), "bdata": base64.b64encode(a.tobytes()).decode()}
    )


def as_array(v: Any) -> np.ndarray:
    """A trace array as numpy, whether a typed-array spec or a plain sequence."""
    if isinstance(v, Mapping) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray([np.nan if e is None else e for e in v], dtype=float)


def _spine_x(n: int) -> np.ndarray:
    """Static x of a spine line trace: (0, 1, 0) per cable, as int8 (Plotly sends numpy as a
    base64 typed array: 3 bytes a cable)."""
    return readonly(np.tile(np.array([SPINE_LEFT, SPINE_RIGHT, SPINE_LEFT], np.int8), n))


def segments_y(y_left: np.ndarray, y_right: np.ndarray) -> list[int]:
    """y of the cables out and back, (left, right, left) each: what a Patch sends for an
    overlay.

    One unbroken path, not segments split by NaN gaps: plotly.js draws an SVG path element
    per unbroken run, and 5,184 of them took ~0.25 s more a draw than one. Going back along
    the same cable draws nothing new; the steps from one cable's left end to the next run
    along x2 = 0, under the mask of `left_edge_mask`.
    """
    y = np.empty(3 * len(y_left), dtype=np.int64)
    y[0::3] = y_left
    y[1::3] = y_right
    y[2::3] = y_left
    return y.tolist()


def segments_y_array(y_left: np.ndarray, y_right: np.ndarray) -> np.ndarray:
    """The same as an int16 array (2 bytes a point on the wire), for the trace of every cable."""
    y = np.asarray(segments_y(y_left, y_right))
    assert y.max() < np.iinfo(np.int16).max
    return readonly(y.astype(np.int16))


def line_trace(name: str, n: int, y: tuple, color: str, width: float) -> dict:
    """A spine line trace of n cables' static x; its y is the cables it draws (or none)."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "xaxis": "x2",
        "yaxis": "y",
        "x": _spine_x(n),
        "y": y,
        "line": {"color": color, "width": width},
        "hoverinfo": "skip",
        "showlegend": False,
        "connectgaps": False,
    }


def cable_hits(f: Fabric, geo: Geometry) -> dict:
    """The hit point part-way along every cable, which hover and click find: drawn as
    nothing (mode "none"), its nearest found in the browser (assets/rack_hover.js)."""
    # customdata: the cable ID alone, a plain tuple (numpy customdata never reaches clickData,
    # docs/ARCHITECTURE.md). The ID names the GPU, the chip and the link (gpu07-st3.sw2.c0); the panel
    # under the figure spells them out with the cable's telemetry. Positions as float32
    # arrays: base64 on the wire. This trace was 300 KB as rows of four strings.
    return {
        "type": "scatter",
        "mode": "none",
        "name": "cables",
        "xaxis": "x2",
        "yaxis": "y",
        "x": readonly(geo.hit_x.astype(np.float32)),
        "y": readonly(geo.hit_y.astype(np.float32)),
        "customdata": tuple(geo.cable_ids),
        # the state and what a click does: per cable, from the scenario (overlay.py)
        "hovertext": "<b>healthy</b> · click to fail",
        "hovertemplate": "<b>cable %{customdata}</b><br>%{hovertext}<extra></extra>",
        "showlegend": False,
    }


def left_edge_mask(total: int) -> dict:
    """A strip of panel colour over x2 = 0, a few pixels wide at any zoom: it hides where a
    spine trace steps from one cable's left end to the next (`segments_y`)."""
    return {
        "type": "rect",
        "xref": "x2",
        "yref": "y",
        "xsizemode": "pixel",
        "xanchor": SPINE_LEFT,
        "x0": -MASK_PX,
        "x1": MASK_PX,
        "y0": 0,
        "y1": total,
        "fillcolor": PANEL_BG,
        "line": {"width": 0},
        "layer": "above",
    }
