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


def _titles(name: str, scale: str, note: str) -> tuple[str, str]:
    """The title and subtitle: the metric, what kind of reading it is, the note and which
    colour scale it is drawn on (so a log colour scale is never mistaken for a linear one)."""
    label = METRIC_LABELS.get(name, (name,))[0]
    kind = METRIC_LABELS.get(name, (name, "", ""))[2]
    if name == "state":
        return "Link state per link", f"{kind}<br>{note}" if note else kind
    how = {
        "log": "log colour",
        "log1p": "log colour, log10(1 + n)",
        "linear": "linear colour",
    }[scale]
    return f"{label} per link", f"{name}: {kind}<br>{note + '; ' if note else ''}{how}"


def _log_colours(shown: np.ndarray) -> tuple[np.ndarray, float, float, dict]:
    """log10 of positive values, whole decades as the colour bar's ticks (at most ~6)."""
    zc = np.log10(np.where(shown > 0, shown, np.nan))
    lo, hi = math.floor(np.nanmin(zc)), math.ceil(np.nanmax(zc))
    ks = list(range(lo, hi + 1))
    step = max(1, math.ceil(len(ks) / 6))
    ticks = {"tickvals": ks[::step], "ticktext": [_sup(k) for k in ks[::step]]}
    return zc, float(lo), float(hi), ticks


def _log1p_colours(shown: np.ndarray) -> tuple[np.ndarray, float, float, dict]:
    """log10(1 + n) of counts with zeros: 0 keeps a colour of its own, decades as ticks."""
    fin = shown[np.isfinite(shown)]
    zc = np.log10(1.0 + shown)
    hi = math.ceil(math.log10(float(fin.max())))
    ks = list(range(hi + 1))
    step = max(1, math.ceil(len(ks) / 6))
    tv = [0.0] + [math.log10(1 + 10**k) for k in ks[::step]]
    ticks = {"tickvals": tv, "ticktext": ["0"] + [_si(10**k) for k in ks[::step]]}
    return zc, 0.0, math.log10(1 + 10**hi), ticks


def _linear_colours(shown: np.ndarray) -> tuple[np.ndarray, float, float, dict]:
    """The values as they are, over their finite range (widened when it is a single value,
    so plotly has a range to colour), SI-suffixed ticks for large values."""
    fin = shown[np.isfinite(shown)]
    zmin = float(fin.min()) if fin.size else 0.0
    zmax = float(fin.max()) if fin.size else 1.0
    if zmax <= zmin:
        zmin, zmax = zmin - 0.5, zmax + 0.5
    return shown, zmin, zmax, {"tickformat": "~s" if zmax >= 1e4 else ""}


def _colour_values(shown: np.ndarray, scale: str) -> tuple[np.ndarray, float, float, dict]:
    """What the colours are of on `scale` ('log', 'log1p' or 'linear'): the values coloured,
    their range (zmin, zmax) and the colour bar's tick properties."""
    if scale == "log":
        return _log_colours(shown)
    if scale == "log1p":
        return _log1p_colours(shown)
    return _linear_colours(shown)


def _colorbar(unit: str, ticks: dict) -> dict:
    """A thin colour bar titled with the unit, with the scale's ticks."""
    return {
        "title": {"text": unit, "side": "right", "font": {"size": 10}},
        "thickness": 10,
        "tickfont": {"size": 10},
        "outlinewidth": 0,
    } | ticks


def _hovertemplate(label: str, unit: str, scale: str) -> str:
    """The hover: the link's ID (row label-column label) and its reading; on a log scale the
    reading is the customdata, z being its logarithm."""
    value = "%{customdata:.4~g}" if scale != "linear" else "%{z:.4~g}"
    unit_txt = "" if unit in ("", "count") else f" {unit}"
    return f"%{{y}}-%{{x}}<br>{label}: {value}{unit_txt}<extra></extra>"


def _main_trace(
    shown: np.ndarray,
    name: str,
    unit: str,
    scale: str,
    gpu_labels: Sequence[str],
    plane_labels: Sequence[str],
) -> dict:
    """The counter's own heatmap (INACTIVE cells are gaps in it): Viridis with a colour bar
    for a metric, one 'ACTIVE' colour and no bar for the link state."""
    label = METRIC_LABELS.get(name, (name,))[0]
    zc, zmin, zmax, ticks = _colour_values(shown, scale)
    trace = {
        "type": "heatmap",
        "x": list(plane_labels),
        "y": list(gpu_labels),
        "z": zc.astype(np.float32),
        "zmin": zmin,
        "zmax": zmax,
        "hoverongaps": False,
        "name": label,
    }
    if name == "state":
        return trace | {
            "colorscale": [[0, COLORS["ok"]], [1, COLORS["ok"]]],
            "showscale": False,
            "hovertemplate": "%{y}-%{x}<br>ACTIVE<extra></extra>",
        }
    trace |= {
        "colorscale": viridis(),
        "colorbar": _colorbar(unit, ticks),
        "hovertemplate": _hovertemplate(label, unit, scale),
    }
    if scale != "linear":
        trace["customdata"] = shown.astype(np.float32)
    return trace


def _inactive_traces(
    down: np.ndarray,
    planned: np.ndarray,
    gpu_labels: Sequence[str],
    plane_labels: Sequence[str],
) -> list[dict]:
    """The INACTIVE links over the main heatmap, one flat-coloured layer each for the failed
    and the drained ones (a drain is planned, a failure is not); none for a kind not there."""
    overlays = (
        (down & ~planned, "INACTIVE", COLORS["failed"], "the link is down"),
        (planned, "INACTIVE, drained", "#0072B2", "drained for a switch update"),
    )
    return [
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
        for mask, what, color, why in overlays
        if mask.any()
    ]


def _plane_marks(
    stale_planes: np.ndarray | None, drained_planes: np.ndarray | None, planned: np.ndarray
) -> list[tuple[list[int], str, str]]:
    """The planes marked by a bar above their columns, stale ones first, then drained ones:
    (their column indices, the legend's words, the colour), for each kind that has any."""
    marks = (
        (stale_planes, "stale: controller down", COLORS["neutral"]),
        (drained_planes, f"drained for an update: {int(planned.sum())} links", "#0072B2"),
    )
    return [
        (np.flatnonzero(np.asarray(planes, dtype=bool)).tolist(), what, color)
        for planes, what, color in marks
        if planes is not None and np.asarray(planes).any()
    ]


def _legend(
    is_state: bool,
    down: np.ndarray,
    planned: np.ndarray,
    marks: Sequence[tuple[list[int], str, str]],
) -> list[dict]:
    """Legend-only swatches: ACTIVE (for the link state), the failed links' count (also when
    there are none, unless every INACTIVE link is drained), and each kind of marked plane."""
    out = [legend_swatch("ACTIVE", COLORS["ok"])] if is_state else []
    if (down & ~planned).any() or not planned.any():
        n = int((down & ~planned).sum())
        out.append(legend_swatch(f"INACTIVE: {n} links", COLORS["failed"]))
    return out + [legend_swatch(what, color) for _, what, color in marks]


def _tray_starts(trays: Sequence[str]) -> list[int]:
    """The first column of each switch tray (columns are grouped by tray)."""
    return [i for i, t in enumerate(trays) if i == 0 or trays[i - 1] != t]


def _shapes(starts: Sequence[int], marks: Sequence[tuple[list[int], str, str]]) -> list[dict]:
    """A line between switch trays' columns, then a bar above each marked plane's column."""
    dividers = [
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
    bars = [
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
        for columns, _, color in marks
        for i in columns
    ]
    return dividers + bars


def _axes(trays: Sequence[str], starts: Sequence[int], gpu_labels: Sequence[str]) -> dict:
    """The x axis labelled a switch tray a group of columns (at its middle), the y axis every
    4th GPU (every 8th past 36 rows), gpu00 at the top."""
    ends = [*starts[1:], len(trays)]
    step = 8 if len(gpu_labels) > 36 else 4
    return {
        "xaxis": {
            "title": {"text": "switch plane (tray.chip)"},
            "tickmode": "array",
            "tickvals": [(a + b - 1) / 2 for a, b in zip(starts, ends, strict=True)],
            "ticktext": [trays[i] for i in starts],
            "showgrid": False,
            "tickangle": 0,
        },
        "yaxis": {
            "title": {"text": "GPU"},
            "tickmode": "array",
            "tickvals": list(gpu_labels[::step]),
            "autorange": "reversed",
            "showgrid": False,
        },
    }


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
    is_state = name == "state"
    scale = "linear" if is_state else _colour_scale(shown)
    fig = figure(
        *_titles(name, scale, note),
        "heatmap",
        legend={"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top", "font": {"size": 10}},
        margin={"r": 10, "b": 40},
    )
    drained = np.zeros(p, bool) if drained_planes is None else np.asarray(drained_planes, bool)
    planned = down & drained[None, :]
    marks = _plane_marks(stale_planes, drained_planes, planned)
    fig["data"] += [
        _main_trace(shown, name, unit, scale, gpu_labels, plane_labels),
        *_inactive_traces(down, planned, gpu_labels, plane_labels),
        *_legend(is_state, down, planned, marks),
    ]
    trays = list(plane_trays)
    starts = _tray_starts(trays)
    lay = fig["layout"]
    shapes = _shapes(starts, marks)
    if shapes:  # (as plotly: an empty list of shapes is no shapes)
        lay["shapes"] = shapes
    lay |= _axes(trays, starts, gpu_labels)
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
            "This snapshot has no per-link counters (a file read without them): only link "
            "up/down is known. Choose 'state'.",
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
