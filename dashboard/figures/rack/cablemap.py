"""The cable map: every cable of the rack as one cell, GPUs down (gpu00 at the top, as in the
drawing) and switch-chip cable slots across (chip by chip, its cables side by side: 36 chips
x 2 cables on Vera Rubin, 18 x 4 on GB200, 72 columns either way), so each of the 5,184
cables can be found, hovered and clicked at the default zoom.

The figure is static per fabric; what a scenario changes (each cell's status and its hover
label) is written from the same codes as the drawing's labels (overlay.py label_patch): whole
with the figure, then a press's Patch of the cells that changed.
A cell's colour is its cable's level (CABLE_LEVELS' index as z): its status in the drawing's
colours, a rerouted cable by how much of its bandwidth its own GPU lost (LOSS_BANDS).
"""

from __future__ import annotations

import functools

from dash import Patch

from dashboard.figures.base import NO_UPLOAD, UPLOAD_BUTTONS
from dashboard.figures.rack.figure import _fresh, frame
from dashboard.figures.rack.geometry import (
    CABLE_LEVEL_COLORS,
    CABLE_LEVELS,
    FONT_FAMILY,
    PAGE_BG,
    SELECTED_COLOR,
    TEXT,
    TEXT_DIM,
    TRACES,
    fabric_of,
)
from dashboard.figures.rack.selection import selected_cables
from model.fabric.presets import FABRICS, Fabric
from model.ids import chip_id, gpu_id

GRID_LINE = "#0f1419"  # between switch trays and compute trays: the page's background
SELECTED = 1  # the trace of the selected part's cells (outlined), after the cells'


def columns(f: Fabric) -> tuple[str, ...]:
    """Each column's cable slot, 'st3.sw2.c0': chip by chip (plane order), its cables side by
    side, so cable index = gpu x len(columns) + column (the drawing's cable order)."""
    return tuple(f"{chip_id(f, p)}.c{c}" for p in range(f.planes) for c in range(f.cables_per_link))


def _colorscale() -> list[list]:
    """A step a level: z = its index in CABLE_LEVELS, zmin 0, zmax len - 1."""
    n = len(CABLE_LEVELS)
    out: list[list] = []
    for i, colour in enumerate(CABLE_LEVEL_COLORS):
        lo, hi = max(i - 0.5, 0) / (n - 1), min(i + 0.5, n - 1) / (n - 1)
        out += [[lo, colour], [hi, colour]]
    return out


def _tray_lines(f: Fabric, cols: int) -> list[dict]:
    """Thin lines between switch trays (columns) and compute trays (rows)."""
    per_tray = f.chips_per_tray * f.cables_per_link
    line = {"color": GRID_LINE, "width": 1}
    v = [
        {"type": "line", "xref": "x", "yref": "paper", "x0": k - 0.5, "x1": k - 0.5}
        | {"y0": 0, "y1": 1, "line": line, "layer": "above"}
        for k in range(per_tray, cols, per_tray)
    ]
    h = [
        {"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": r - 0.5}
        | {"y1": r - 0.5, "line": line, "layer": "above"}
        for r in range(f.gpus_per_tray, f.gpus, f.gpus_per_tray)
    ]
    return v + h


def _cells(cols: tuple[str, ...], gpus: tuple[str, ...]) -> dict:
    """The cells: a heatmap on category axes, every cell healthy (level 0) until the browser
    writes the scenario's levels and hover labels in (overlay.py label_patch)."""
    return {
        "type": "heatmap",
        "name": "cables",
        # category axes: the hover spells the cable's ID from its row's and column's names
        "x": cols,
        "y": gpus,
        "z": tuple(tuple(0 for _ in cols) for _ in gpus),
        "zmin": 0,
        "zmax": len(CABLE_LEVELS) - 1,
        "colorscale": _colorscale(),
        "showscale": False,
        "xgap": 0,
        "ygap": 0,
        # each cell's state and what a click does (overlay.py label_patch)
        "hovertemplate": "<b>cable %{y}-%{x}</b><br>%{text}<extra></extra>",
        "hoverongaps": False,
    }


def _selected_trace() -> dict:
    """The selected part's cells, outlined, over the map (empty until a part is selected)."""
    return {
        "type": "scatter",
        "name": "selected",
        "mode": "markers",
        "x": (),
        "y": (),
        "marker": {
            "symbol": "square-open",
            "size": 8,
            "color": SELECTED_COLOR,
            "line": {"width": 1.5, "color": SELECTED_COLOR},
        },
        "hoverinfo": "skip",
        "showlegend": False,
    }


def _xaxis(f: Fabric, cols: tuple[str, ...]) -> dict:
    """The cable slots across, fixed, a switch tray's name at the middle of its columns."""
    per_tray = f.chips_per_tray * f.cables_per_link
    return {
        "range": [-0.5, len(cols) - 0.5],
        "fixedrange": True,
        "type": "category",
        "tickvals": [cols[k * per_tray + per_tray // 2] for k in range(f.switch_trays)],
        "ticktext": [f"st{k + 1}" for k in range(f.switch_trays)],
        "showgrid": False,
        "zeroline": False,
        "ticks": "",
        "color": TEXT_DIM,
        "title": {"text": "switch tray (its chips' cable slots)", "standoff": 4},
    }


def _yaxis(f: Fabric, gpus: tuple[str, ...]) -> dict:
    """The GPUs down, fixed, gpu00 at the top, every other compute tray's first GPU named."""
    ticks = [gpus[g] for g in range(0, f.gpus, 2 * f.gpus_per_tray)]
    return {
        "range": [f.gpus - 0.5, -0.5],
        "fixedrange": True,
        "type": "category",
        "tickvals": ticks,
        "ticktext": list(ticks),
        "showgrid": False,
        "zeroline": False,
        "ticks": "",
        "color": TEXT_DIM,
    }


def _layout(fabric_key: str, f: Fabric, cols: tuple[str, ...], gpus: tuple[str, ...]) -> dict:
    """The map's layout: the rack's frame and hover look, the title, the axes, no drag (a
    click selects), the tray lines, and the meta the browser maps a cell to the drawing by."""
    return {
        **frame(11, {"l": 44, "r": 6, "t": 44, "b": 40}),
        "title": {
            "text": "Cable map: a cell a cable<br><sup>a row a GPU, a column a switch chip's"
            f" cable slot ({f.gpus} x {len(cols)})</sup>",
            "x": 0.01,
            "xanchor": "left",
            "font": {"size": 13},
        },
        "xaxis": _xaxis(f, cols),
        "yaxis": _yaxis(f, gpus),
        "dragmode": False,
        "hovermode": "closest",
        "clickmode": "event",
        "uirevision": fabric_key,
        "hoverlabel": {
            "bgcolor": PAGE_BG,
            "bordercolor": TEXT_DIM,
            "font": {"color": TEXT, "family": FONT_FAMILY, "size": 12},
        },
        "shapes": _tray_lines(f, len(cols)),
        # for the browser: a cell (row, column) is the drawing's cable marker
        # (trace `hits`, point row x cols + column)
        "meta": {"hits": TRACES["cable_hits"], "cols": len(cols), "chart": "cable-map"},
    }


@functools.lru_cache(maxsize=len(FABRICS))
def _base(fabric_key: str) -> dict:
    """The fabric's map as built once (cached; cable_map_figure hands out fresh copies)."""
    f = fabric_of(fabric_key)
    cols = columns(f)
    gpus = tuple(gpu_id(g) for g in range(f.gpus))
    return {
        "data": [_cells(cols, gpus), _selected_trace()],
        "layout": _layout(fabric_key, f, cols, gpus),
    }


def selection_cells(fabric_key: str, cid: str | None) -> dict[str, list[str]]:
    """The selected part's cables as the map's cells (x its cable slot, y its GPU), for the
    selected trace: the same cables the drawing lights (selection.py)."""
    f = fabric_of(fabric_key)
    cols = columns(f)
    rows, cells = divmod(selected_cables(fabric_key, cid), len(cols))
    return {"x": [cols[c] for c in cells], "y": [gpu_id(int(g)) for g in rows]}


def selection_patch(fabric_key: str, cid: str | None) -> Patch:
    """The selected trace's cells as a dash.Patch on the map."""
    patch = Patch()
    for k, v in selection_cells(fabric_key, cid).items():
        patch["data"][SELECTED][k] = v
    return patch


def columns_of(fabric_key: str) -> int:
    """The map's cables a row (a row a GPU)."""
    return _base(fabric_key)["layout"]["meta"]["cols"]


def cable_map_figure(fabric_key: str, selected: str | None = None) -> dict:
    """The cable map of a fabric (a fresh copy), the selected part's cells outlined: every
    cell healthy until the browser writes the scenario's statuses and labels in."""
    fig = _fresh(_base(fabric_key))
    fig["data"][SELECTED] |= selection_cells(fabric_key, selected)
    return fig


def graph_config() -> dict:
    """The map's dcc.Graph config: no zoom (every cell is already in reach), a PNG export,
    nothing that uploads the map anywhere."""
    return {
        **NO_UPLOAD,
        "displaylogo": False,
        "responsive": True,
        "scrollZoom": False,
        "doubleClick": False,
        "modeBarButtonsToRemove": [
            "zoom2d",
            "pan2d",
            "select2d",
            "lasso2d",
            "zoomIn2d",
            "zoomOut2d",
            "autoScale2d",
            "resetScale2d",
            *UPLOAD_BUTTONS,
        ],
        "toImageButtonOptions": {"format": "png", "filename": "nvlink-cable-map", "scale": 2},
    }
