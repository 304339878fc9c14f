"""Per-link telemetry as a GPU (rows) by plane (columns) heatmap of one DCGM counter,
INACTIVE links apart (failed, or drained for an update), planes with stale counters marked.
Input: model.telemetry.counters(scenario, t_s) (counters_heatmap_figure unpacks it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import MappingProxyType

import numpy as np

from dashboard.figures.base import (
    BG,
    COLORS,
    empty_figure,
    figure,
    fmt_s,
    legend_swatch,
    viridis,
)
from model import telemetry as tm
from model.ids import chip_id, gpu_id, parse_id, tray_id

# Telemetry metrics: a label, a short unit and what kind of reading it is
# (model.telemetry.UNITS has the long form).
_CUM = "cumulative"
METRIC_LABELS = MappingProxyType(
    {
        tm.BANDWIDTH: ("bytes carried", "bytes", _CUM + ", both ways"),
        tm.CRC_FLIT: ("CRC flit errors", "count", _CUM),
        tm.CRC_DATA: ("CRC data errors", "count", _CUM),
        tm.REPLAY: ("flit replays", "count", _CUM),
        tm.RECOVERY: ("link recoveries", "count", _CUM),
        tm.BER: ("bit error rate", "errors/bit", "the 60 s reading at t"),
        tm.BANDWIDTH_GBS: ("bandwidth", "GB/s", "now, both directions"),
        "state": ("link state", "", "NVML link state"),
    }
)


def _colour_scale(values: np.ndarray) -> str:
    """'log' for positive values over two decades or more; 'log1p' for counts with zeros
    whose non-zero values span a decade or more and reach 10; else 'linear'."""
    v = values[np.isfinite(values)]
    pos = v[v > 0]
    if pos.size == 0:
        return "linear"
    span = pos.max() / pos.min()
    if (v == 0).any():
        return "log1p" if pos.max() >= 10 and span >= 10 else "linear"
    return "log" if span >= 100 else "linear"


def _sup(k: int) -> str:
    return f"10<sup>{k}</sup>"


def _si(n: float) -> str:
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:g}{suffix}"
    return f"{n:g}"


def heatmap_figure(
    matrix: np.ndarray,
    name: str,
    unit: str,
    gpu_labels: Sequence[str],
    plane_labels: Sequence[str],
    *,
    plane_trays: Sequence[str],
    inactive: np.ndarray | None = None,
    stale_planes: np.ndarray | None = None,
    drained_planes: np.ndarray | None = None,
    note: str = "",
) -> dict:
    """GPU (rows) by plane (columns) heatmap of one counter, INACTIVE links in the 'failed'
    colour, log colour scale where values span decades, hover naming the link ID.

    matrix: float[G, P] (Counters.heatmap(name)); plane_trays: the switch tray of each plane
    (columns are grouped by it); inactive: bool[G, P], default NaN cells;
    stale_planes: bool[P], planes whose counters are stale (their controller is silent);
    drained_planes: bool[P], planes drained on purpose (a switch update). Both are marked
    by a bar above their columns.
    """
    z = np.asarray(matrix, dtype=float)
    g, p = z.shape
    if g != len(gpu_labels) or p != len(plane_labels) or p != len(plane_trays):
        raise ValueError(f"matrix is {g} x {p}; labels are {len(gpu_labels)} x {len(plane_labels)}")
    down = np.isnan(z) if inactive is None else np.asarray(inactive, dtype=bool)
    shown = np.where(down, np.nan, z)
    label = METRIC_LABELS.get(name, (name,))[0]
    is_state = name == "state"
    scale = "linear" if is_state else _colour_scale(shown)
    how = {
        "log": "log colour",
        "log1p": "log colour, log10(1 + n)",
        "linear": "linear colour",
    }[scale]
    kind = METRIC_LABELS.get(name, (name, "", ""))[2]
    if is_state:
        sub = f"{kind}<br>{note}" if note else kind
    else:
        sub = f"{name}: {kind}<br>{note + '; ' if note else ''}{how}"
    fig = figure(
        f"{label} per link" if not is_state else "Link state per link",
        sub,
        "heatmap",
        legend={"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top", "font": {"size": 10}},
        margin={"r": 10, "b": 40},
    )
    fin = shown[np.isfinite(shown)]
    colorbar: dict = {
        "title": {"text": unit, "side": "right", "font": {"size": 10}},
        "thickness": 10,
        "tickfont": {"size": 10},
        "outlinewidth": 0,
    }
    if scale == "log":
        zc = np.log10(np.where(shown > 0, shown, np.nan))
        lo, hi = math.floor(np.nanmin(zc)), math.ceil(np.nanmax(zc))
        ks = list(range(lo, hi + 1))
        step = max(1, math.ceil(len(ks) / 6))
        colorbar |= {"tickvals": ks[::step], "ticktext": [_sup(k) for k in ks[::step]]}
        zmin, zmax = float(lo), float(hi)
    elif scale == "log1p":
        zc = np.log10(1.0 + shown)
        hi = math.ceil(math.log10(float(fin.max())))
        ks = list(range(hi + 1))
        step = max(1, math.ceil(len(ks) / 6))
        tv = [0.0] + [math.log10(1 + 10**k) for k in ks[::step]]
        colorbar |= {"tickvals": tv, "ticktext": ["0"] + [_si(10**k) for k in ks[::step]]}
        zmin, zmax = 0.0, math.log10(1 + 10**hi)
    else:
        zc = shown
        zmin = float(fin.min()) if fin.size else 0.0
        zmax = float(fin.max()) if fin.size else 1.0
        if zmax <= zmin:
            zmin, zmax = zmin - 0.5, zmax + 0.5
        colorbar |= {"tickformat": "~s" if zmax >= 1e4 else ""}
    hover_value = "%{customdata:.4~g}" if scale != "linear" else "%{z:.4~g}"
    unit_txt = "" if unit in ("", "count") else f" {unit}"
    main = {
        "x": list(plane_labels),
        "y": list(gpu_labels),
        "z": zc.astype(np.float32),
        "zmin": zmin,
        "zmax": zmax,
        "hoverongaps": False,
        "name": label,
    }
    if is_state:
        main |= {
            "colorscale": [[0, COLORS["ok"]], [1, COLORS["ok"]]],
            "showscale": False,
            "hovertemplate": "%{y}-%{x}<br>ACTIVE<extra></extra>",
        }
    else:
        main |= {
            "colorscale": viridis(),
            "colorbar": colorbar,
            "hovertemplate": f"%{{y}}-%{{x}}<br>{label}: {hover_value}{unit_txt}<extra></extra>",
        }
        if scale != "linear":
            main["customdata"] = shown.astype(np.float32)
    fig["data"].append({"type": "heatmap", **main})
    drained = np.zeros(p, bool) if drained_planes is None else np.asarray(drained_planes, bool)
    planned = down & drained[None, :]
    overlays = (
        (down & ~planned, "INACTIVE", COLORS["failed"], "the link is down"),
        (planned, "INACTIVE, drained", "#0072B2", "drained for a switch update"),
    )
    for mask, what, color, why in overlays:
        if not mask.any():
            continue
        fig["data"].append(
            {
                "type": "heatmap",
                "x": list(plane_labels),
                "y": list(gpu_labels),
                "z": np.where(mask, 1.0, np.nan).astype(np.float32),
                "colorscale": [[0, color], [1, color]],
                "showscale": False,
                "hoverongaps": False,
                "name": what,
                "hovertemplate": f"%{{y}}-%{{x}}<br>INACTIVE: {why}<extra></extra>",
            }
        )
    if is_state:
        fig["data"].append(legend_swatch("ACTIVE", COLORS["ok"]))
    if (down & ~planned).any() or not planned.any():
        n = int((down & ~planned).sum())
        fig["data"].append(legend_swatch(f"INACTIVE: {n} links", COLORS["failed"]))
    trays = list(plane_trays)
    starts = [i for i, t in enumerate(trays) if i == 0 or trays[i - 1] != t]
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": i - 0.5,
            "x1": i - 0.5,
            "y0": 0,
            "y1": 1,
            "line": {"color": BG, "width": 2},
        }
        for i in starts[1:]
    ]
    marks = (
        (stale_planes, "stale: controller down", COLORS["neutral"]),
        (drained_planes, f"drained for an update: {int(planned.sum())} links", "#0072B2"),
    )
    for planes, what, color in marks:
        if planes is None or not np.asarray(planes).any():
            continue
        for i in np.flatnonzero(np.asarray(planes, dtype=bool)).tolist():
            shapes.append(
                {
                    "type": "rect",
                    "xref": "x",
                    "yref": "paper",
                    "x0": i - 0.5,
                    "x1": i + 0.5,
                    "y0": 1.0,
                    "y1": 1.025,
                    "fillcolor": color,
                    "line": {"width": 0},
                }
            )
        fig["data"].append(legend_swatch(what, color))
    lay = fig["layout"]
    if shapes:  # (as plotly: an empty list of shapes is no shapes)
        lay["shapes"] = shapes
    ends = [*starts[1:], p]
    lay["xaxis"] = {
        "title": {"text": "switch plane (tray.chip)"},
        "tickmode": "array",
        "tickvals": [(a + b - 1) / 2 for a, b in zip(starts, ends, strict=True)],
        "ticktext": [trays[i] for i in starts],
        "showgrid": False,
        "tickangle": 0,
    }
    step = 8 if g > 36 else 4
    lay["yaxis"] = {
        "title": {"text": "GPU"},
        "tickmode": "array",
        "tickvals": list(gpu_labels[::step]),
        "autorange": "reversed",
        "showgrid": False,
    }
    return fig


def counters_heatmap_figure(c: tm.Counters, name: str) -> dict:
    """heatmap_figure for one metric of a telemetry.counters() snapshot (or 'state')."""
    f = c.fabric
    gpus = [gpu_id(i) for i in range(f.gpus)]
    planes = [chip_id(f, p) for p in range(f.planes)]
    trays = [tray_id(parse_id(chip, f).nums[0]) for chip in planes]
    when = f"t = {fmt_s(c.t_s)}"
    if name != "state" and c.link is None:
        return empty_figure(
            "Per-link counters are off (link telemetry feature off): only link up/down is "
            "visible. Choose 'state'.",
            METRIC_LABELS.get(name, (name, ""))[0],
        )
    unit = METRIC_LABELS.get(name, (name, ""))[1]
    return heatmap_figure(
        c.heatmap(name),
        name,
        unit,
        gpus,
        planes,
        plane_trays=trays,
        inactive=c.state == tm.INACTIVE,
        stale_planes=c.stale,
        drained_planes=c.planned,
        note=f"{when} (model/telemetry.py)",
    )
