"""The rack figure's look and place: colours and symbols per state, the rack's rows (y in rack
units from the top), each cable's two ends, the click markers' positions, the trace order
the callbacks patch by index, and a click's component ID.

Geometry. The y axis counts rack units from the top: power shelves, the 27 tray slots in rack
order (model/fabric/topology.py), power shelves. The front view (x axis, left) draws each
tray as a row: a tray marker with its label, then its 4 GPUs, or its switch chips and its
management controller. The spine (x2 axis, right) draws every cable as a straight line from
x2=0 at its compute tray's row to x2=1 at its switch tray's row: the left end is spread
inside the row by GPU and cable, the right end by chip, cable and compute tray, so the
cables of a tray pair form a bundle and the bundles a funnel into the switch trays.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from model.fabric.presets import FABRICS, Fabric
from model.fabric.status import CABLE_STATUSES, PART_STATUSES
from model.fabric.topology import compute_tray_slot, switch_tray_slot
from model.ids import chip_id, gpu_id

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

# Cable statuses (the model's, model/fabric/status.py) in drawing order: later draws on top.
# "healthy" is the cover trace used when most cables carry rerouted load (`overlay_data`).
STATUSES = CABLE_STATUSES
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
# A down status's lines are drawn at the width that makes their ink their share (issue 28:
# drawn over 5,184 cables at 2 px, a lost tray's 11% read as 59% of the spine). Lines far
# thinner than a pixel are drawn faint in proportion (antialiasing), so each pixel is tinted
# by how many of the cables through it are down: the spine becomes a density plot of them.
# DENSITY_WIDTH is the width at which a lost tray's ink (its colour's share of the spine's,
# by colour unmixing of Plotly.toImage's pixels) reads the tray's share of the cables in
# Chromium [M]: 11.3% for 11.1% at 1280x800, 10.6% at 1920x1080; three trays 32.0% for
# 33.3%, six 52.6% for 66.7% (tests/e2e/test_numbers.py measures them). A few cables would
# vanish at it, so FEW_INK px of width are shared among them, up to their status's own
# width (STATUS_WIDTHS): one to four cables are drawn bold, to be found; so a lost GPU's 72
# idle cables read ~5% where they are 1.4%.
DENSITY_WIDTH = 0.04  # [M] px, see above
FEW_INK = 8.0  # [A] px of line width a few down cables share
SELECTED_COLOR = "#ffffff"  # the part selected by inspecting it or typing its ID
SELECTED_WIDTH = 3.0
SELECTED_RING = 22  # px: the ring round a selected part in the front view

# Front-view part states (the model's), by rising severity (a tray shows its worst part).
PART_STATES = PART_STATUSES
PART_OK, PART_REROUTED, PART_IDLE, PART_FLAKY, PART_DRAINED, PART_FAILED = range(len(PART_STATES))
PART_COLORS = (
    OKABE_ITO["bluish_green"],
    STATUS_COLORS["rerouted"],
    STATUS_COLORS["idle"],
    STATUS_COLORS["flaky"],
    STATUS_COLORS["drained"],
    STATUS_COLORS["failed"],
)
# How much of its bandwidth a GPU has lost, in bands rising in severity (issue 13: one lost
# chip, 1/36 of every GPU's bandwidth, must not read like a lost tray, 1/9): (the band's
# upper bound on the lost share, its words, its colour). The blues of the "rerouted" status
# (its GPU lost bandwidth, so its cables carry moved traffic), dim to bright.
LOSS_BANDS = (
    (0.10, "under 10%", "#4a6f8a"),  # one cable (1/72), one chip (1/36)
    (1 / 3, "10 to 33%", STATUS_COLORS["rerouted"]),  # a switch tray (1/9), two, three
    (1.0, "over a third", "#c6e9ff"),
)
# A cable's level on the cable map and in its hover label: its status, the rerouted one by
# its GPU's loss band (z on the map = the index here).
DOWN_STATUSES = ("idle", "drained", "flaky", "failed")  # STATUSES after "rerouted"
CABLE_LEVELS = ("healthy", *(f"rerouted {b[1]}" for b in LOSS_BANDS), *DOWN_STATUSES)
CABLE_LEVEL_COLORS = (
    STATUS_COLORS["healthy"],
    *(b[2] for b in LOSS_BANDS),
    *(STATUS_COLORS[s] for s in DOWN_STATUSES),
)
# The colour key: (glyph, colour, label) per item, two lines (short enough for a phone).
KEY_LINES = (
    (
        ("━", CABLE_UP, "cable up"),
        ("●", OKABE_ITO["bluish_green"], "part healthy"),
        ("", TEXT_DIM, " rerouted, its GPU lost"),
        ("━●", LOSS_BANDS[0][2], "<10%"),
        ("━●", LOSS_BANDS[1][2], "10-33%"),
        ("━●", LOSS_BANDS[2][2], ">33%"),
    ),
    (
        ("━●", STATUS_COLORS["idle"], "idle"),
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
MASK_PX = 3  # half width of the strip over the spine's left edge (widest line 2 px)
HOVER_DISTANCE = 12  # px

# Trace indices: stable, so callbacks patch by index.
TRACE_ORDER = (
    "cables",  # all cables, one SVG lines trace (spine.segments_y)
    *STATUSES,  # overlays, one SVG lines trace per status
    "cable_hits",  # a hit point per cable, drawn as nothing: hover and click
    "trays",  # front view (SVG scatter): a marker and a label per tray
    "gpus",
    "chips",
    "controllers",
    "selected",  # the selected part's cables, drawn over every status (SVG lines)
    "selected_parts",  # rings round the selected part and its ends in the front view
)
TRACES: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(TRACE_ORDER)})
HIT_ROW = 4  # customdata of a cable marker: [cable, GPU, chip, compute tray]
CLICKABLE = ("cable_hits", "trays", "gpus", "chips", "controllers")


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


def fabric_of(fabric_key: str) -> Fabric:
    """The fabric preset of a key; ValueError naming the known ones otherwise."""
    if fabric_key not in FABRICS:
        raise ValueError(f"unknown fabric '{fabric_key}' (known: {', '.join(FABRICS)})")
    return FABRICS[fabric_key]


def slot_y(slot: int | np.ndarray) -> float | np.ndarray:
    """Centre y of a 1-based tray slot."""
    return POWER_BLOCK + (slot - 0.5) * PITCH


def y_total(f: Fabric) -> int:
    """The rack's height in y units: power shelves at both ends and every tray slot."""
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
    f = fabric_of(fabric_key)
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


# --- Clicks -------------------------------------------------------------------------------


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


def down_width(status: str, cables: int) -> float:
    """The line width (px) of `cables` drawn in a down status: the density width, or FEW_INK
    shared among a few, at most the status's own width."""
    return min(STATUS_WIDTHS[status], max(DENSITY_WIDTH, FEW_INK / max(cables, 1)))
