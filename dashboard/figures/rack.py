"""The rack-and-spine figure: the front view of the rack and its 5,184-cable NVLink spine.

Pure functions, data in and figure or Patch out (DESIGN.md "Fast and exact"):

- `base_figure(fabric_key)`: the static figure as a plain dict, built once per fabric.
- `overlay_data(scenario)` / `overlay_patch(scenario)`: what a scenario changes, as plain data
  and as a `dash.Patch`: the cable overlays' y arrays, the base spine's colour and the
  front-view markers' colours and symbols. `full_figure(scenario)`: both at once, for the
  first render or a change of fabric (a new base).
- `click_to_id(fabric_key, click_data)`: a Dash clickData to a component ID, or None.

Geometry. The y axis counts rack units from the top: power shelves, the 27 tray slots in rack
order (model/topology.py), power shelves. The front view (x axis, left) draws each tray as a
row: a tray marker with its label, then its 4 GPUs, or its switch chips and its management
controller. The spine (x2 axis, right) draws every cable as a straight line from x2=0 at its
compute tray's row to x2=1 at its switch tray's row: the left end is spread inside the row by
GPU and cable, the right end by chip, cable and compute tray, so the cables of a tray pair
form a bundle and the bundles a funnel into the switch trays.

Every line trace of the spine keeps the same static x array (0, 1, NaN per cable, for all
5,184 cables) and a patch sends y only: plotly.js draws min(len(x), len(y)) points, so an
overlay of k cables is 3k y values. The spine's lines are SVG `scatter`: a line trace is
one SVG path of 5,184 segments, which draws in ~0.1 s, where the same lines in WebGL took
~1.3 s a frame in a browser without a GPU (software GL; bench/README.md). Only points fire
hover and click, so each cable has one transparent marker part-way along it, at a fraction
that spreads the markers over the spine. Those 5,184 markers stay WebGL (`scattergl`): its
hover picks the truly nearest marker, where SVG hover calls every marker within 3 px a tie
and names the first, so a press could fail the neighbour of the cable under the pointer.
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from dash import Patch

from model.fabric.metrics import per_gpu_tbs
from model.fabric.presets import FABRICS, Fabric
from model.fabric.state import FabricState, build_state
from model.fabric.topology import compute_tray_slot, switch_tray_slot
from model.ids import chip_id, gpu_id, parse_id, plane_of
from model.scenario import Scenario

# --- Theme: dark, for a projector; Okabe-Ito colours (Okabe & Ito 2008, colour-blind safe).
PAGE_BG = "#0f1419"
PANEL_BG = "#1a222c"
TEXT = "#e6edf3"
TEXT_DIM = "#8b98a5"
OKABE_ITO = MappingProxyType(
    {
        "black": "#000000",
        "orange": "#E69F00",
        "sky_blue": "#56B4E9",
        "bluish_green": "#009E73",
        "yellow": "#F0E442",
        "blue": "#0072B2",
        "vermillion": "#D55E00",
        "reddish_purple": "#CC79A7",
    }
)
CABLE_UP = "#3c4b5c"  # a healthy cable: dim neutral, so the statuses stand out
COMPUTE_ROW_FILL = "#232d39"
SWITCH_ROW_FILL = "#2a2f45"
ROW_EDGE = "#34414f"
POWER_FILL = "#5b6470"
FONT_FAMILY = "Inter, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"

# Cable statuses in drawing order (later draws on top). "healthy" is the cover trace used
# when most cables carry rerouted load (see `overlay_data`).
STATUSES = ("healthy", "rerouted", "idle", "drained", "flaky", "failed")
STATUS_COLORS = MappingProxyType(
    {
        "healthy": CABLE_UP,
        "rerouted": OKABE_ITO["sky_blue"],
        "idle": OKABE_ITO["blue"],
        "drained": OKABE_ITO["reddish_purple"],
        "flaky": OKABE_ITO["yellow"],
        "failed": OKABE_ITO["vermillion"],
    }
)
STATUS_LABELS = MappingProxyType(
    {
        "healthy": "up",
        "rerouted": "up, rerouted load",
        "idle": "idle (link down)",
        "drained": "drained (update)",
        "flaky": "flaky",
        "failed": "failed",
    }
)
STATUS_WIDTHS = MappingProxyType(
    {"healthy": 1.0, "rerouted": 1.0, "idle": 1.5, "drained": 1.5, "flaky": 2.0, "failed": 2.0}
)
BASE_LINE_WIDTH = 1.0

# Front-view part states, by rising severity (a tray shows its worst part).
PART_STATES = ("ok", "rerouted", "idle", "flaky", "drained", "failed")
PART_OK, PART_REROUTED, PART_IDLE, PART_FLAKY, PART_DRAINED, PART_FAILED = range(len(PART_STATES))
PART_COLORS = (
    OKABE_ITO["bluish_green"],
    STATUS_COLORS["rerouted"],
    STATUS_COLORS["idle"],
    STATUS_COLORS["flaky"],
    STATUS_COLORS["drained"],
    STATUS_COLORS["failed"],
)
# The colour key: (glyph, colour, label) per item, two lines (short enough for a phone).
KEY_LINES = (
    (
        ("━", CABLE_UP, "cable up"),
        ("●", OKABE_ITO["bluish_green"], "part healthy"),
        ("━●", STATUS_COLORS["rerouted"], "rerouted load / GPU lost bandwidth"),
        ("━●", STATUS_COLORS["idle"], "idle"),
    ),
    (
        ("━●", STATUS_COLORS["drained"], "drained (update)"),
        ("━●", STATUS_COLORS["flaky"], "flaky"),
        ("━✕", STATUS_COLORS["failed"], "failed"),
        ("★", OKABE_ITO["bluish_green"], "fabric-manager leader"),
    ),
)
FAILED_SYMBOL = "x"
GPU_SYMBOL = "circle"
CHIP_SYMBOL = "square"
MC_SYMBOL = "diamond"
LEADER_SYMBOL = "star"
TRAY_SYMBOL = "square"

# --- Geometry (y in rack units from the top; integers keep the patches short).
PITCH = 32  # y units per tray slot
POWER_BLOCK = 40  # y units of power shelves at the top and at the bottom
BAND = 24  # y span of the cable ends inside a slot
ROW_HALF = 14  # half height of a tray row's background
RACK_DOMAIN = (0.0, 0.36)  # paper x of the front view
SPINE_DOMAIN = (0.375, 1.0)  # paper x of the spine
RACK_X_RANGE = (0.0, 100.0)
RACK_X = (1.5, 98.5)  # tray rows' left and right edges
TRAY_MARKER_X = 5.0
PART_X0 = 36.0  # first GPU or chip
PART_DX = 15.0  # between GPUs or chips
MC_X = 93.0
SPINE_X_RANGE = (-0.01, 1.09)
SPINE_LEFT, SPINE_RIGHT = 0, 1
HIT_T_RANGE = (0.05, 0.8)  # click markers sit this far along their cable
GOLDEN = (math.sqrt(5) - 1) / 2
Y_DECIMALS = 2  # click markers' y (unique positions: tested)
T_DECIMALS = 4  # click markers' x2

TRAY_MARKER_SIZE = 11
GPU_MARKER_SIZE = 12
CHIP_MARKER_SIZE = 11
MC_MARKER_SIZE = 12
HIT_MARKER_SIZE = 7
MASK_PX = 3  # half width of the strip over the spine's left edge (widest line 2 px)
HOVER_DISTANCE = 12  # px

# Trace indices: stable, so callbacks patch by index.
TRACE_ORDER = (
    "cables",  # all cables, one Scattergl lines trace, NaN-separated
    *STATUSES,  # overlays, one Scattergl lines trace per status
    "cable_hits",  # a transparent Scattergl marker per cable: hover and click
    "trays",  # front view (SVG scatter): a marker and a label per tray
    "gpus",
    "chips",
    "controllers",
)
TRACES: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(TRACE_ORDER)})
HIT_ROW = 4  # customdata of a cable marker: [cable, GPU, chip, compute tray]
CLICKABLE = ("cable_hits", "trays", "gpus", "chips", "controllers")
# A GPU has lost bandwidth below this fraction of its healthy bandwidth (float tolerance).
DEGRADED_BELOW = 1.0 - 1e-9


@dataclass(frozen=True)
class Geometry:
    """Static per-fabric arrays: cable ends in cable order and the front view's parts."""

    fabric: Fabric
    cable_ids: tuple[str, ...]  # cable order: (gpu * planes + plane) * cables + cable
    y_left: np.ndarray  # int[N]
    y_right: np.ndarray  # int[N]
    hit_x: np.ndarray  # float[N], x2 units
    hit_y: np.ndarray  # float[N]
    tray_ids: tuple[str, ...]  # rack order, top to bottom
    tray_ct: np.ndarray  # int[27]: compute tray index (0-based) or -1
    tray_st: np.ndarray  # int[27]: switch tray index (0-based) or -1
    point_ids: Mapping[int, tuple[str, ...]]  # trace index -> ID per point


def _fabric(fabric_key: str) -> Fabric:
    if fabric_key not in FABRICS:
        raise ValueError(f"unknown fabric '{fabric_key}' (known: {', '.join(FABRICS)})")
    return FABRICS[fabric_key]


def slot_y(slot: int | np.ndarray) -> float | np.ndarray:
    """Centre y of a 1-based tray slot."""
    return POWER_BLOCK + (slot - 0.5) * PITCH


def y_total(f: Fabric) -> int:
    return 2 * POWER_BLOCK + (f.compute_trays + f.switch_trays) * PITCH


def _cable_ends(f: Fabric) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer y of each cable's left (compute) and right (switch) end, and its indices."""
    g, p, c = np.meshgrid(
        np.arange(f.gpus), np.arange(f.planes), np.arange(f.cables_per_link), indexing="ij"
    )
    g, p, c = g.ravel(), p.ravel(), c.ravel()
    ct = g // f.gpus_per_tray  # 0-based compute tray
    ct_slot = np.array([compute_tray_slot(f, t + 1) for t in range(f.compute_trays)])[ct]
    n_left = f.gpus_per_tray * f.cables_per_link
    j_left = c * f.gpus_per_tray + g % f.gpus_per_tray
    y_left = slot_y(ct_slot) + BAND * (j_left / (n_left - 1) - 0.5)
    tray, chip = p // f.chips_per_tray, p % f.chips_per_tray
    st_slot = np.array([switch_tray_slot(f, t + 1) for t in range(f.switch_trays)])[tray]
    n_right = f.chips_per_tray * f.cables_per_link
    # The compute tray's share keeps the bundles from the top trays above those from below.
    share = ct / f.compute_trays
    j_right = c * f.chips_per_tray + chip + share
    span = n_right - 1 + (f.compute_trays - 1) / f.compute_trays
    y_right = slot_y(st_slot) + BAND * (j_right / span - 0.5)
    return np.rint(y_left).astype(np.int64), np.rint(y_right).astype(np.int64), g, p


@functools.lru_cache(maxsize=len(FABRICS))
def geometry(fabric_key: str) -> Geometry:
    """The static geometry of one fabric (cached; arrays read-only)."""
    f = _fabric(fabric_key)
    y_left, y_right, g, p = _cable_ends(f)
    n = f.cables
    # Click markers: each cable's at its own fraction along it, a golden-ratio sequence over
    # the cables of one compute-tray/switch-tray pair, so the markers spread over the spine.
    per_pair = f.gpus_per_tray * f.chips_per_tray * f.cables_per_link
    within = (
        (g % f.gpus_per_tray) * f.chips_per_tray + p % f.chips_per_tray
    ) * f.cables_per_link + np.arange(n) % f.cables_per_link
    pair = (g // f.gpus_per_tray) * f.switch_trays + p // f.chips_per_tray
    frac = ((within + 0.5) / per_pair + pair * GOLDEN) % 1.0
    t = HIT_T_RANGE[0] + (HIT_T_RANGE[1] - HIT_T_RANGE[0]) * frac
    hit_x = np.round(SPINE_LEFT + t * (SPINE_RIGHT - SPINE_LEFT), T_DECIMALS)
    hit_y = np.round(y_left + t * (y_right - y_left), Y_DECIMALS)
    cable_ids = tuple(
        f"{gpu_id(gi)}-{chip_id(f, pi)}.c{ci}"
        for gi in range(f.gpus)
        for pi in range(f.planes)
        for ci in range(f.cables_per_link)
    )
    slots = f.compute_trays + f.switch_trays
    tray_ids: list[str] = [""] * slots
    tray_ct = np.full(slots, -1)
    tray_st = np.full(slots, -1)
    for t_ in range(f.compute_trays):
        s = compute_tray_slot(f, t_ + 1) - 1
        tray_ids[s], tray_ct[s] = f"ct{t_ + 1:02d}", t_
    for t_ in range(f.switch_trays):
        s = switch_tray_slot(f, t_ + 1) - 1
        tray_ids[s], tray_st[s] = f"st{t_ + 1}", t_
    point_ids = {
        TRACES["cable_hits"]: cable_ids,
        TRACES["trays"]: tuple(tray_ids),
        TRACES["gpus"]: tuple(gpu_id(i) for i in range(f.gpus)),
        TRACES["chips"]: tuple(chip_id(f, i) for i in range(f.planes)),
        TRACES["controllers"]: tuple(f"st{i + 1}.mc" for i in range(f.switch_trays)),
    }
    arrays = (y_left, y_right, hit_x, hit_y, tray_ct, tray_st)
    for a in arrays:
        a.flags.writeable = False
    return Geometry(
        fabric=f,
        cable_ids=cable_ids,
        y_left=y_left,
        y_right=y_right,
        hit_x=hit_x,
        hit_y=hit_y,
        tray_ids=tuple(tray_ids),
        tray_ct=tray_ct,
        tray_st=tray_st,
        point_ids=MappingProxyType(point_ids),
    )


def point_ids(fabric_key: str) -> Mapping[int, tuple[str, ...]]:
    """Clickable trace index -> the component ID of each of its points."""
    return geometry(fabric_key).point_ids


# --- The base figure ------------------------------------------------------------------------


def _readonly(a: np.ndarray) -> dict:
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
    return _readonly(np.tile(np.array([SPINE_LEFT, SPINE_RIGHT, SPINE_LEFT], np.int8), n))


def _segments_y(y_left: np.ndarray, y_right: np.ndarray) -> list[int]:
    """y of the cables out and back, (left, right, left) each: what a Patch sends for an
    overlay.

    One unbroken path, not segments split by NaN gaps: plotly.js draws an SVG path element
    per unbroken run, and 5,184 of them took ~0.25 s more a draw than one. Going back along
    the same cable draws nothing new; the steps from one cable's left end to the next run
    along x2 = 0, under the mask of `_left_edge_mask`.
    """
    y = np.empty(3 * len(y_left), dtype=np.int64)
    y[0::3] = y_left
    y[1::3] = y_right
    y[2::3] = y_left
    return y.tolist()


def _segments_y_array(y_left: np.ndarray, y_right: np.ndarray) -> np.ndarray:
    """The same as an int16 array (2 bytes a point on the wire), for the trace of every cable."""
    y = np.asarray(_segments_y(y_left, y_right))
    assert y.max() < np.iinfo(np.int16).max
    return _readonly(y.astype(np.int16))


def _line_trace(name: str, n: int, y: tuple, color: str, width: float) -> dict:
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


def _part_trace(
    name: str,
    ids_: tuple[str, ...],
    x: list[float],
    y: list[float],
    symbol: str,
    size: int,
    hover: list[str],
    text: list[str] | None = None,
) -> dict:
    trace = {
        "type": "scatter",
        "mode": "markers+text" if text else "markers",
        "name": name,
        "xaxis": "x",
        "yaxis": "y",
        "x": tuple(x),
        "y": tuple(y),
        "customdata": ids_,
        "hovertext": tuple(hover),
        "hovertemplate": "%{hovertext}<extra></extra>",
        "marker": {
            "symbol": (symbol,) * len(ids_),
            "size": size,
            "color": (PART_COLORS[PART_OK],) * len(ids_),
            "line": {"width": 1, "color": PANEL_BG},
        },
        "showlegend": False,
        "cliponaxis": False,
    }
    if text:
        trace["text"] = tuple(text)
        trace["textposition"] = "middle right"
        trace["textfont"] = {"color": TEXT, "size": 11}
    return trace


def _front_traces(f: Fabric, geo: Geometry) -> list[dict]:
    slots = len(geo.tray_ids)
    tray_y = [float(slot_y(s + 1)) for s in range(slots)]
    tray_hover = []
    for s, tid in enumerate(geo.tray_ids):
        if geo.tray_ct[s] >= 0:
            t = int(geo.tray_ct[s])
            first = t * f.gpus_per_tray
            last = first + f.gpus_per_tray - 1
            tray_hover.append(
                f"<b>compute tray {tid}</b><br>slot {s + 1} · {gpu_id(first)}..{gpu_id(last)}"
            )
        else:
            tray_hover.append(
                f"<b>switch tray {tid}</b><br>slot {s + 1} · "
                f"{f.chips_per_tray} {f.technology} switch chips + {tid}.mc"
            )
    trays = _part_trace(
        "trays",
        geo.tray_ids,
        [TRAY_MARKER_X] * slots,
        tray_y,
        TRAY_SYMBOL,
        TRAY_MARKER_SIZE,
        tray_hover,
        text=list(geo.tray_ids),
    )
    gx, gy, gh = [], [], []
    for g in range(f.gpus):
        t = g // f.gpus_per_tray
        gx.append(PART_X0 + PART_DX * (g % f.gpus_per_tray))
        gy.append(float(slot_y(compute_tray_slot(f, t + 1))))
        gh.append(f"<b>GPU {gpu_id(g)}</b><br>in compute tray ct{t + 1:02d} · {f.gpu}")
    gpus = _part_trace(
        "gpus", geo.point_ids[TRACES["gpus"]], gx, gy, GPU_SYMBOL, GPU_MARKER_SIZE, gh
    )
    cx, cy, ch = [], [], []
    for p in range(f.planes):
        t, k = divmod(p, f.chips_per_tray)
        cx.append(PART_X0 + PART_DX * k)
        cy.append(float(slot_y(switch_tray_slot(f, t + 1))))
        ch.append(
            f"<b>switch chip {chip_id(f, p)}</b><br>plane {p} · {f.gpus} links · "
            f"in switch tray st{t + 1}"
        )
    chips = _part_trace(
        "chips", geo.point_ids[TRACES["chips"]], cx, cy, CHIP_SYMBOL, CHIP_MARKER_SIZE, ch
    )
    mx = [MC_X] * f.switch_trays
    my = [float(slot_y(switch_tray_slot(f, t + 1))) for t in range(f.switch_trays)]
    mh = [
        f"<b>management controller st{t + 1}.mc</b><br>NVOS, NMX-Controller and NMX-Telemetry"
        for t in range(f.switch_trays)
    ]
    mcs = _part_trace(
        "controllers",
        geo.point_ids[TRACES["controllers"]],
        mx,
        my,
        MC_SYMBOL,
        MC_MARKER_SIZE,
        mh,
    )
    return [trays, gpus, chips, mcs]


def _cable_hits(f: Fabric, geo: Geometry) -> dict:
    # customdata: the cable ID alone, a plain tuple (numpy customdata never reaches clickData,
    # DESIGN.md). The ID names the GPU, the chip and the link (gpu07-st3.sw2.c0); the panel
    # under the figure spells them out with the cable's telemetry. Positions as float32
    # arrays: base64 on the wire. This trace was 300 KB as rows of four strings.
    return {
        "type": "scattergl",
        "mode": "markers",
        "name": "cables",
        "xaxis": "x2",
        "yaxis": "y",
        "x": _readonly(geo.hit_x.astype(np.float32)),
        "y": _readonly(geo.hit_y.astype(np.float32)),
        "customdata": tuple(geo.cable_ids),
        "hovertemplate": (
            "<b>cable %{customdata}</b><br>GPU-chip.cable: click to fail or repair<extra></extra>"
        ),
        "marker": {"size": HIT_MARKER_SIZE, "color": "rgba(0,0,0,0)"},
        "showlegend": False,
    }


def _left_edge_mask(total: int) -> dict:
    """A strip of panel colour over x2 = 0, a few pixels wide at any zoom: it hides where a
    spine trace steps from one cable's left end to the next (`_segments_y`)."""
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


def _shapes(f: Fabric, geo: Geometry) -> list[dict]:
    total = y_total(f)
    pad = 4
    shapes = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "y",
            "x0": RACK_X[0],
            "x1": RACK_X[1],
            "y0": y0,
            "y1": y1,
            "fillcolor": POWER_FILL,
            "line": {"width": 0},
            "layer": "below",
        }
        for y0, y1 in ((pad, POWER_BLOCK - pad), (total - POWER_BLOCK + pad, total - pad))
    ]
    for s in range(len(geo.tray_ids)):
        cy = float(slot_y(s + 1))
        switch = geo.tray_st[s] >= 0
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "y",
                "x0": RACK_X[0],
                "x1": RACK_X[1],
                "y0": cy - ROW_HALF,
                "y1": cy + ROW_HALF,
                "fillcolor": SWITCH_ROW_FILL if switch else COMPUTE_ROW_FILL,
                "line": {"width": 1, "color": ROW_EDGE},
                "layer": "below",
            }
        )
    shapes.append(_left_edge_mask(total))
    # The switch trays' band at the spine's right end.
    first = float(slot_y(switch_tray_slot(f, 1))) - ROW_HALF
    last = float(slot_y(switch_tray_slot(f, f.switch_trays))) + ROW_HALF
    shapes.append(
        {
            "type": "rect",
            "xref": "x2",
            "yref": "y",
            "x0": SPINE_RIGHT,
            "x1": SPINE_RIGHT + 0.012,
            "y0": first,
            "y1": last,
            "fillcolor": SWITCH_ROW_FILL,
            "line": {"width": 1, "color": ROW_EDGE},
            "layer": "below",
        }
    )
    return shapes


def _annotations(f: Fabric) -> list[dict]:
    total = y_total(f)
    ann = [
        {
            "xref": "x",
            "yref": "y",
            "x": (RACK_X[0] + RACK_X[1]) / 2,
            "y": y,
            "text": "power shelves",
            "showarrow": False,
            "font": {"size": 10, "color": PANEL_BG},
        }
        for y in (POWER_BLOCK / 2, total - POWER_BLOCK / 2)
    ]
    for t in range(f.switch_trays):
        ann.append(
            {
                "xref": "x2",
                "yref": "y",
                "x": SPINE_RIGHT + 0.016,
                "y": float(slot_y(switch_tray_slot(f, t + 1))),
                "text": f"st{t + 1}",
                "showarrow": False,
                "xanchor": "left",
                "font": {"size": 10, "color": TEXT_DIM},
            }
        )
    ann.append(
        {
            "xref": "paper",
            "yref": "paper",
            "x": 0,
            "y": 1,
            "yanchor": "bottom",
            "xanchor": "left",
            "text": "<br>".join(" ".join(_key(*item) for item in line) for line in KEY_LINES),
            "showarrow": False,
            "align": "left",
            "font": {"size": 10, "color": TEXT},
        }
    )
    ann.append(
        {
            "xref": "paper",
            "yref": "paper",
            "x": 0,
            "y": 0,
            "yanchor": "top",
            "xanchor": "left",
            "text": (f"<b>{f.name}</b> · spine: {f.cables:,} cables, {f.cables_per_link} per link"),
            "showarrow": False,
            "font": {"size": 10, "color": TEXT_DIM},
        }
    )
    return ann


def _key(glyph: str, color: str, label: str) -> str:
    return f"<span style='color:{color}'>{glyph}</span> {label} "


def _layout(f: Fabric, geo: Geometry) -> dict:
    return {
        "paper_bgcolor": PANEL_BG,
        "plot_bgcolor": PANEL_BG,
        "font": {"color": TEXT, "family": FONT_FAMILY, "size": 12},
        "margin": {"l": 6, "r": 6, "t": 44, "b": 20, "pad": 0},
        "autosize": True,
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
        "hovermode": "closest",
        "hoverdistance": HOVER_DISTANCE,
        "clickmode": "event",
        "dragmode": "zoom",
        "uirevision": f.key,
        "showlegend": False,
        "hoverlabel": {
            "bgcolor": PAGE_BG,
            "bordercolor": TEXT_DIM,
            "font": {"color": TEXT, "family": FONT_FAMILY, "size": 12},
        },
        "shapes": _shapes(f, geo),
        "annotations": _annotations(f),
    }


@functools.lru_cache(maxsize=len(FABRICS))
def _base(fabric_key: str) -> dict:
    """The cached figure: arrays are tuples, so sharing them between copies is safe."""
    f = _fabric(fabric_key)
    geo = geometry(fabric_key)
    n = f.cables
    cables = _line_trace(
        "cables",
        n,
        _segments_y_array(geo.y_left, geo.y_right),
        CABLE_UP,
        BASE_LINE_WIDTH,
    )
    overlays = [
        _line_trace(STATUS_LABELS[s], n, (), STATUS_COLORS[s], STATUS_WIDTHS[s]) for s in STATUSES
    ]
    data = [cables, *overlays, _cable_hits(f, geo), *_front_traces(f, geo)]
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
    """Suggested dcc.Graph `config`."""
    return {
        "displaylogo": False,
        "responsive": True,
        "scrollZoom": False,
        "doubleClick": "reset",
        "modeBarButtonsToRemove": [
            "select2d",
            "lasso2d",
            "autoScale2d",
            "toggleSpikelines",
            "hoverClosestCartesian",
            "hoverCompareCartesian",
        ],
        "toImageButtonOptions": {
            "format": "png",
            "filename": "nvlink-rack",
            "scale": 2,
        },
    }


# --- The scenario overlay -------------------------------------------------------------------


def _link_mask(f: Fabric, ids_: tuple[str, ...] | list[str]) -> np.ndarray:
    """bool[G, P]: the links named directly (not through a cable) in a list of IDs."""
    mask = np.zeros((f.gpus, f.planes), bool)
    for token in ids_:
        if "-" in token and token.count(".") == 1:
            comp = parse_id(token, f)
            if comp.kind == "link":
                n = comp.nums
                mask[n[0], plane_of(f, n[1], n[2])] = True
    return mask


def _drained_planes(st: FabricState) -> np.ndarray:
    """bool[P]: planes whose chips are under a switch update (drained, or in maintenance)."""
    f = st.fabric
    drained = st.chip_drained.copy()
    if st.maintenance:
        k = f.chips_per_tray
        for tray in st.updating:
            drained[(tray - 1) * k : tray * k] = True
    return drained & ~st.chip_failed


def _statuses(scenario: Scenario) -> tuple[FabricState, dict[str, np.ndarray], np.ndarray]:
    st = build_state(scenario)
    f = st.fabric
    shape = (f.gpus, f.planes, f.cables_per_link)
    direct = _link_mask(f, [c.id for c in st.failed if c.kind == "link"])
    failed = st.cable_failed | direct[:, :, None] | st.chip_failed[None, :, None]
    drained = np.broadcast_to(_drained_planes(st)[None, :, None], shape) & ~failed
    flaky_links = _link_mask(f, scenario.flaky)
    flaky = (st.flaky_cable | flaky_links[:, :, None]) & ~failed & ~drained
    rest = ~failed & ~drained & ~flaky
    up = np.broadcast_to(st.up[:, :, None], shape)
    bw = per_gpu_tbs(st)
    degraded = st.gpu_alive & (bw < f.gpu_tbs_bidir * DEGRADED_BELOW)
    lost = np.broadcast_to(degraded[:, None, None], shape)
    masks = {
        "failed": failed,
        "drained": drained,
        "flaky": flaky,
        "idle": rest & ~up,
        "rerouted": rest & up & lost,
        "healthy": rest & up & ~lost,
    }
    return st, {k: np.flatnonzero(v.ravel()) for k, v in masks.items()}, bw


def cable_statuses(scenario: Scenario) -> dict[str, np.ndarray]:
    """Cable indices (cable order of `geometry`) per status; every cable in exactly one.

    failed: the cable, its link or its switch chip failed. drained: its chip is under a switch
    update. flaky: the cable or its link is degrading. idle: healthy, but its link is down for
    another reason (its GPU is lost, its sibling cable failed, a maintenance window).
    rerouted: up, on a GPU whose bandwidth fell below healthy, so carrying moved traffic.
    healthy: up, on a GPU at full bandwidth.
    """
    return _statuses(scenario)[1]


def _part_states(st: FabricState, flaky_cables: np.ndarray, bw: np.ndarray) -> dict:
    """Per-part state codes (PART_*) for GPUs, chips, controllers and trays (rack order)."""
    f = st.fabric
    gpu = np.full(f.gpus, PART_OK)
    degraded = st.gpu_alive & (bw < f.gpu_tbs_bidir * DEGRADED_BELOW)
    gpu[degraded] = PART_REROUTED
    flaky_gpu = np.zeros(f.gpus, bool)
    flaky_gpu[flaky_cables // (f.planes * f.cables_per_link)] = True
    gpu[flaky_gpu & st.gpu_alive] = PART_FLAKY
    gpu[st.gpu_alive & (bw <= 0)] = PART_IDLE
    gpu[~st.gpu_alive] = PART_FAILED
    chip = np.full(f.planes, PART_OK)
    chip[~st.chip_in_service] = PART_IDLE
    chip[_drained_planes(st)] = PART_DRAINED
    chip[st.chip_failed] = PART_FAILED
    mc = np.full(f.switch_trays, PART_OK)
    mc[~st.control.authority] = PART_IDLE
    mc[~st.mc_alive] = PART_FAILED
    ct = gpu.reshape(f.compute_trays, f.gpus_per_tray).max(axis=1)
    stray = np.maximum(chip.reshape(f.switch_trays, f.chips_per_tray).max(axis=1), mc)
    return {"gpu": gpu, "chip": chip, "mc": mc, "ct": ct, "st": stray}


def _colors(codes: np.ndarray) -> list[str]:
    return [PART_COLORS[i] for i in codes.tolist()]


def _symbols(codes: np.ndarray, normal: str) -> list[str]:
    return [FAILED_SYMBOL if i == PART_FAILED else normal for i in codes.tolist()]


def overlay_data(scenario: Scenario) -> dict[int, dict[str, Any]]:
    """Everything a scenario changes, as trace index -> {dotted property: value}.

    The overlays get y only (their x is static, see the module docstring). When more cables
    carry rerouted load than not, the base spine is recoloured as rerouted and the "healthy"
    overlay covers the rest, so the patch lists the smaller set.
    """
    geo = geometry(scenario.fabric)
    st, idx, bw = _statuses(scenario)
    invert = len(idx["rerouted"]) > len(idx["healthy"])
    out: dict[int, dict[str, Any]] = {
        TRACES["cables"]: {
            "line.color": STATUS_COLORS["rerouted"] if invert else STATUS_COLORS["healthy"]
        }
    }
    for s in STATUSES:
        sel = idx[s]
        if (s == "healthy" and not invert) or (s == "rerouted" and invert):
            sel = sel[:0]
        out[TRACES[s]] = {"y": _segments_y(geo.y_left[sel], geo.y_right[sel])}
    parts = _part_states(st, idx["flaky"], bw)
    tray_codes = np.where(
        geo.tray_ct >= 0, parts["ct"][geo.tray_ct], parts["st"][np.maximum(geo.tray_st, 0)]
    )
    mc_symbols = _symbols(parts["mc"], MC_SYMBOL)
    if st.control.leader is not None:
        leader = int(st.control.leader.split(".")[0][2:]) - 1
        if mc_symbols[leader] != FAILED_SYMBOL:
            mc_symbols[leader] = LEADER_SYMBOL
    out[TRACES["trays"]] = {"marker.color": _colors(tray_codes)}
    out[TRACES["gpus"]] = {
        "marker.color": _colors(parts["gpu"]),
        "marker.symbol": _symbols(parts["gpu"], GPU_SYMBOL),
    }
    out[TRACES["chips"]] = {
        "marker.color": _colors(parts["chip"]),
        "marker.symbol": _symbols(parts["chip"], CHIP_SYMBOL),
    }
    out[TRACES["controllers"]] = {
        "marker.color": _colors(parts["mc"]),
        "marker.symbol": mc_symbols,
    }
    return out


def _apply(root: Any, data: dict[int, dict[str, Any]]) -> None:
    """Set each trace's dotted properties ("line.color") on a figure dict or a Patch."""
    for index, props in data.items():
        for dotted, value in props.items():
            target = root["data"][index]
            *path, last = dotted.split(".")
            for key in path:
                target = target[key]
            target[last] = value


def overlay_patch(scenario: Scenario) -> Patch:
    """`overlay_data` as a dash.Patch on the base figure (idempotent: sets every overlay)."""
    patch = Patch()
    _apply(patch, overlay_data(scenario))
    return patch


def full_figure(scenario: Scenario) -> dict:
    """The base figure with the scenario applied: for the first render or a fabric change."""
    fig = base_figure(scenario.fabric)
    _apply(fig, overlay_data(scenario))
    return fig


# --- Clicks ---------------------------------------------------------------------------------


def _index(value: Any) -> int | None:
    """An int index from the client, or None (bools, floats and strings are refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def click_to_id(fabric_key: str, click_data: dict | None) -> str | None:
    """The component ID of a Dash clickData on the rack figure, or None.

    curveNumber + pointNumber are looked up in the server's own tables (never trusting the
    client's customdata); a customdata string alone is accepted only if it is exactly an ID
    of that trace.
    """
    if fabric_key not in FABRICS or not isinstance(click_data, dict):
        return None
    points = click_data.get("points")
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        return None
    point = points[0]
    curve = _index(point.get("curveNumber"))
    table = point_ids(fabric_key).get(curve) if curve is not None else None
    if table is None:
        return None
    number = _index(point.get("pointNumber", point.get("pointIndex")))
    if number is not None:
        return table[number] if 0 <= number < len(table) else None
    custom = point.get("customdata")
    if curve == TRACES["cable_hits"] and isinstance(custom, list) and len(custom) == HIT_ROW:
        custom = custom[0]  # the row [cable, GPU, chip, compute tray]
    if isinstance(custom, str) and custom in _id_set(fabric_key, curve):
        return custom
    return None


@functools.lru_cache(maxsize=64)
def _id_set(fabric_key: str, curve: int) -> frozenset[str]:
    return frozenset(point_ids(fabric_key)[curve])
