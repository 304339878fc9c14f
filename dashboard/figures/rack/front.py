"""The rack's front view and its frame: a marker per tray, GPU, switch chip and controller
(clickable), the tray rows and power shelves as shapes, the labels and the colour key."""

from __future__ import annotations

from dashboard.figures.rack.geometry import (
    CHIP_MARKER_SIZE,
    CHIP_SYMBOL,
    COMPUTE_ROW_FILL,
    GPU_MARKER_SIZE,
    GPU_SYMBOL,
    KEY_LINES,
    MC_MARKER_SIZE,
    MC_SYMBOL,
    MC_X,
    PANEL_BG,
    PART_COLORS,
    PART_DX,
    PART_OK,
    PART_X0,
    POWER_BLOCK,
    POWER_FILL,
    RACK_X,
    ROW_EDGE,
    ROW_HALF,
    SPINE_RIGHT,
    SWITCH_ROW_FILL,
    TEXT,
    TEXT_DIM,
    TRACES,
    TRAY_MARKER_SIZE,
    TRAY_MARKER_X,
    TRAY_SYMBOL,
    Geometry,
    slot_y,
    y_total,
)
from dashboard.figures.rack.spine import left_edge_mask
from model.fabric.presets import Fabric
from model.fabric.topology import compute_tray_slot, switch_tray_slot
from model.ids import chip_id, gpu_id


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
        # what each part is, kept for the browser: the scenario's labels (its state and what
        # a click does) come as codes and are written after it (assets/rack_press.js)
        "meta": {"hover": tuple(hover)},
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


def front_traces(f: Fabric, geo: Geometry) -> list[dict]:
    """The front view's four clickable traces: trays, GPUs, switch chips, controllers."""
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
        f"<b>management controller st{t + 1}.mc</b><br>runs {f.controller_runs}"
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


def shapes(f: Fabric, geo: Geometry) -> list[dict]:
    """Power shelves, a row a tray, the spine's left-edge mask and the switch trays' band."""
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
    shapes.append(left_edge_mask(total))
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


def annotations(f: Fabric) -> list[dict]:
    """Labels: power shelves, the switch trays at the spine's end, the colour key, the fabric."""
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
            "text": "<br>".join(" ".join(_key(*item) for item in line) for line in key_lines(f)),
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
            "text": (
                f"<b>{f.name}</b> · spine: {f.cables:,} cables, {f.cables_per_link} per link"
                f"<br>{DOWN_DRAWN}"
            ),
            "align": "left",
            "showarrow": False,
            "font": {"size": 10, "color": TEXT_DIM},
        }
    )
    return ann


# How the spine draws a down cable (geometry.DENSITY_WIDTH), said under it.
DOWN_DRAWN = "down cables drawn faint: the spine's colour is the share down"

# The colour key's items (KEY_LINES) by label, in three lines each short enough for the rack's
# width: its two lines of 82 and 75 characters clipped ">33%" at 1280 px (issue 28).
_KEY_ORDER = (
    ("cable up", "part healthy", "failed", "flaky"),
    (" rerouted, its GPU lost", "<10%", "10-33%", ">33%"),
    ("idle", "drained (update)", "fabric-manager leader"),
)
_LEADER = "fabric-manager leader"


def key_lines(f: Fabric) -> list[list[tuple[str, str, str]]]:
    """The colour key for fabric f: a fabric with no fabric manager (Ethernet) has no leader
    to star, so its key names none."""
    items = {label: (glyph, color, label) for line in KEY_LINES for glyph, color, label in line}
    return [
        [items[label] for label in line if label != _LEADER or f.fabric_manager]
        for line in _KEY_ORDER
    ]


def _key(glyph: str, color: str, label: str) -> str:
    return f"<span style='color:{color}'>{glyph}</span> {label} "
