"""The selected part on the rack figure: its cables drawn bright over every status, and rings
round it and its ends in the front view. A part is selected by inspecting it (the "inspect"
click mode) or by typing its ID; nothing about the scenario changes.

Like the overlays (overlay.py), the selection is two traces whose data a Patch replaces: the
spine's `selected` line trace gets y only (its x is the spine's static x), the front view's
`selected_parts` its rings' x and y.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from dashboard.figures.rack.front import front_traces
from dashboard.figures.rack.geometry import (
    SELECTED_COLOR,
    SELECTED_RING,
    SELECTED_WIDTH,
    TRACES,
    geometry,
)
from dashboard.figures.rack.spine import line_trace, segments_y
from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.ids import Component, chip_id, gpu_id, parse_id, plane_of
from model.kinds import ComponentKind as K


def selection_traces(f: Fabric) -> list[dict]:
    """The two empty selection traces of the base figure."""
    spine = line_trace("selected", f.cables, (), SELECTED_COLOR, SELECTED_WIDTH)
    rings = {
        "type": "scatter",
        "mode": "markers",
        "name": "selected parts",
        "xaxis": "x",
        "yaxis": "y",
        "x": (),
        "y": (),
        "marker": {
            "symbol": "circle-open",
            "size": SELECTED_RING,
            "color": SELECTED_COLOR,
            "line": {"width": 2, "color": SELECTED_COLOR},
        },
        "hoverinfo": "skip",
        "showlegend": False,
        "cliponaxis": False,
    }
    return [spine, rings]


@functools.lru_cache(maxsize=8)
def _front_positions(fabric_key: str) -> dict[str, tuple[float, float]]:
    """Every front-view part's (x, y), as the base figure draws it."""
    geo = geometry(fabric_key)
    where: dict[str, tuple[float, float]] = {}
    for trace in front_traces(geo.fabric, geo):
        for cid, x, y in zip(trace["customdata"], trace["x"], trace["y"], strict=True):
            where[cid] = (float(x), float(y))
    return where


def part_masks(f: Fabric, comp: Component) -> tuple[np.ndarray, list[str]]:
    """bool[G, P, C] of the part's cables, and the front-view parts to ring."""
    cables = np.zeros((f.gpus, f.planes, f.cables_per_link), bool)
    n = comp.nums
    if comp.kind in (K.LINK, K.CABLE):
        plane = plane_of(f, n[1], n[2])
        if comp.kind == K.CABLE:
            cables[n[0], plane, n[3]] = True
        else:
            cables[n[0], plane, :] = True
        return cables, [gpu_id(n[0]), chip_id(f, plane)]
    if comp.kind == K.GPU:
        cables[n[0]] = True
        return cables, [comp.id]
    if comp.kind == K.SWITCH_CHIP:
        cables[:, plane_of(f, n[0], n[1]), :] = True
        return cables, [comp.id]
    if comp.kind == K.SWITCH_TRAY:
        planes = [plane_of(f, n[0], k) for k in range(f.chips_per_tray)]
        cables[:, planes, :] = True
        return cables, [comp.id]
    if comp.kind == K.COMPUTE_TRAY:
        first = (n[0] - 1) * f.gpus_per_tray
        cables[first : first + f.gpus_per_tray] = True
        return cables, [comp.id]
    return cables, [comp.id]  # a controller: no cables of its own


def selected_cables(fabric_key: str, cid: str | None) -> np.ndarray:
    """The cable indices (the drawing's cable order, the map's row x columns + column) of a
    selected part: none for no part, an ID the fabric does not have, or a controller."""
    if not cid:
        return np.zeros(0, int)
    f = geometry(fabric_key).fabric
    try:
        comp = parse_id(cid, f)
    except ScenarioError:
        return np.zeros(0, int)
    return np.flatnonzero(part_masks(f, comp)[0].ravel())


def selection_data(fabric_key: str, cid: str | None) -> dict[int, dict[str, Any]]:
    """The selection traces' data for a selected part (empty for none, or an ID the fabric
    does not have): trace index -> {property: value}, like `overlay_data`."""
    geo = geometry(fabric_key)
    f = geo.fabric
    empty = {TRACES["selected"]: {"y": []}, TRACES["selected_parts"]: {"x": [], "y": []}}
    if not cid:
        return empty
    try:
        comp = parse_id(cid, f)
    except ScenarioError:
        return empty
    mask, parts = part_masks(f, comp)
    sel = np.flatnonzero(mask.ravel())
    xs: list[float] = []
    ys: list[float] = []
    where = _front_positions(fabric_key)
    for part in parts:
        if part in where:
            xs.append(where[part][0])
            ys.append(where[part][1])
    return {
        TRACES["selected"]: {"y": segments_y(geo.y_left[sel], geo.y_right[sel])},
        TRACES["selected_parts"]: {"x": xs, "y": ys},
    }
