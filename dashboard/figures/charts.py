"""The page's chart figures: pure functions, model outputs in, plotly figure dicts out.

Every figure is SVG (scatter, bar, heatmap traces; never WebGL: browsers cap WebGL
contexts, DESIGN.md), shares TEMPLATE (dark, Okabe-Ito colour-blind-safe colours), titles
each quantitative axis with its unit, and says in a subtitle what it assumes and where its
numbers come from. Inputs are the model's own answers:

    decode_figure         model.throughput.decode_curves(scenario)
    goodput_figure        model.goodput.comparison()  (+ comparison_label(rows, scenario))
    latency_figure        model.metrics.latency_distribution(build_state(scenario)), x2
    heatmap_figure        model.telemetry.snapshot(scenario, t_s).heatmap(name)
                          (counters_heatmap_figure does the unpacking)
    link_series_figure    model.telemetry.link_series(scenario, link, t0, t1, step)
    timeline_figure       model.timeline.timeline(scenario)
    empty_figure          any 'no data' state, in the same template

Each is a plain dict {"data": [...], "layout": {...}} (numpy arrays as values), built with
dashboard/figures/figdraft.py's go.Figure look-alike: a go.Figure validates every property on every
call (10-30 ms a chart); the dict costs well under 1 ms. tests/unit/test_charts.py has
plotly validate each one. Nothing here holds state; no figure depends on anything but its
arguments.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from dashboard.figures.claims import VENDOR_DECODE_RATIO
from dashboard.figures.figdraft import Draft, bar, heatmap, make_subplots, scatter
from model import telemetry as tm
from model.ids import chip_id, gpu_id
from model.reliability.goodput import CAUSES
from model.reliability.timeline import goodput_at
from model.scenario import Scenario
from model.workloads.decode import REFERENCE_TOKENS_PER_S_PER_USER
from model.workloads.models import DEFAULT_WORKLOAD

# --- the shared look -------------------------------------------------------------------------
BG = "#1a222c"
FG = "#e6edf3"
GRID = "#2d3742"
MUTED = "#9aa7b4"
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'

# Okabe-Ito (colour-blind safe). The three fabrics' colours mean the same on every chart.
COLORS = {
    "scenario": "#E69F00",
    "healthy": "#56B4E9",
    "eth-x72": "#CC79A7",
    "failed": "#D55E00",
    "ok": "#009E73",
    "neutral": "#999999",
}
# Badput causes (model.goodput.CAUSES): the rest of the Okabe-Ito set, fixed per cause.
CAUSE_COLORS = {
    "repair_wait": "#D55E00",
    "degraded": "#E69F00",
    "maintenance": "#F0E442",
    "restarts": "#0072B2",
    "lost_work": "#CC79A7",
    "checkpoints": "#56B4E9",
}
# Legend name, hover name. The stack runs in CAUSE_COLORS' order: the largest cause at zero.
CAUSE_NAMES = {
    "repair_wait": ("repair wait", "rack idle: waiting for a repair, or rack-down swaps"),
    "degraded": ("degraded", "running degraded until the repair"),
    "maintenance": ("maintenance", "switch updates as rack-down windows"),
    "restarts": ("restarts", "detection and restart after each stop"),
    "lost_work": ("lost work", "work since the last checkpoint, lost at aborts"),
    "checkpoints": ("checkpoints", "blocking checkpoint writes"),
}

# Telemetry metrics: a label, a short unit and what kind of reading it is
# (model.telemetry.UNITS has the long form).
_CUM = "cumulative"
METRIC_LABELS = {
    tm.BANDWIDTH: ("bytes carried", "bytes", _CUM + ", both ways"),
    tm.CRC_FLIT: ("CRC flit errors", "count", _CUM),
    tm.CRC_DATA: ("CRC data errors", "count", _CUM),
    tm.REPLAY: ("flit replays", "count", _CUM),
    tm.RECOVERY: ("link recoveries", "count", _CUM),
    tm.BER: ("bit error rate", "errors/bit", "the 60 s reading at t"),
    tm.BANDWIDTH_GBS: ("bandwidth", "GB/s", "now, both directions"),
    "state": ("link state", "", "NVML link state"),
}

_AXIS = {
    "gridcolor": GRID,
    "zerolinecolor": GRID,
    "linecolor": GRID,
    "tickcolor": GRID,
    "automargin": True,
    "title": {"standoff": 6, "font": {"size": 12}},
    "tickfont": {"size": 11},
}

# plotly's 'Viridis' (plotly.colors.sequential), spelled out as plotly's validators spell a
# named scale: plotly.js's own 'Viridis' has other stops.
VIRIDIS = [
    [i / 9, c]
    for i, c in enumerate(
        ("#440154", "#482878", "#3e4989", "#31688e", "#26828e")
        + ("#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725")
    )
]

# A plotly template as a plain dict; every figure gets its own copy (_header).
TEMPLATE = {
    "layout": {
        "paper_bgcolor": BG,
        "plot_bgcolor": BG,
        "font": {"family": FONT, "color": FG, "size": 12},
        "colorway": [COLORS[k] for k in ("scenario", "healthy", "eth-x72", "ok", "failed")],
        "xaxis": _AXIS,
        "yaxis": _AXIS,
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
        "colorscale": {"sequential": VIRIDIS},
    }
}


def _title(text: str, sub: str) -> dict:
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


def _header(title: str, sub: str, chart: str) -> dict:
    """Every chart's template, title and subtitle, and meta naming the chart. (A Draft copies
    the dicts it is given, so no figure shares the template's.)"""
    return {"template": TEMPLATE, "title": _title(title, sub), "meta": {"chart": chart}}


def _figure(title: str, sub: str, chart: str, **layout: object) -> Draft:
    return Draft(_header(title, sub, chart) | layout)


def _legend_swatch(name: str, color: str, symbol: str = "square") -> dict:
    """A legend-only entry (for shaded areas and overlay colours)."""
    return scatter(
        x=[None],
        y=[None],
        mode="markers",
        name=name,
        marker={"symbol": symbol, "size": 11, "color": color},
        hoverinfo="skip",
    )


def _wrap(text: str, width: int = 56) -> str:
    return "<br>".join(textwrap.wrap(text, width)) or text


def _fmt_s(seconds: float) -> str:
    """A duration in the unit an operator reads it in: us, ms, s, min, h, d."""
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


def _fmt_step(seconds: float) -> str:
    """A round duration for a tick label: 30 min, 1 h, 1.5 h, 2 d."""
    if seconds < 3600:
        return f"{seconds / 60:g} min"
    if seconds < 86400:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 86400:g} d"


def empty_figure(message: str, title: str = "") -> dict:
    """A 'no data' figure in the shared template: no axes, the message in the middle."""
    fig = _figure(title, "", "empty")
    fig.update_layout(
        meta={"chart": "empty", "empty": True, "message": message},
        xaxis={"visible": False},
        yaxis={"visible": False},
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        annotations=[
            {
                "text": _wrap(message, 48),
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
                "font": {"size": 13, "color": MUTED},
            }
        ],
    )
    return fig.to_dict()


def is_empty(fig: dict) -> bool:
    """True for a figure (dict) made by empty_figure."""
    meta = (fig.get("layout") or {}).get("meta")
    return isinstance(meta, dict) and bool(meta.get("empty"))


# --- 1. decode throughput against interactivity ----------------------------------------------
def _points(pts: Sequence[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.array([p["tokens_per_s_per_user"] for p in pts], dtype=float)
    y = np.array([p["tokens_per_s_per_gpu"] for p in pts], dtype=float)
    b = np.array([p.get("batch_per_gpu", 0) for p in pts], dtype=np.int32)
    return x, y, b


def decode_figure(decode: dict) -> dict:
    """Tokens/s per GPU against tokens/s per user (log) for this scenario, its healthy rack
    and eth-x72, over a panel of the scenario-to-eth-x72 ratio; input: decode_curves()."""
    curves = decode.get("curves") or {}
    if not curves.get("scenario"):
        return empty_figure(
            "The job is down in this scenario: it decodes nothing (0 tokens/s per GPU) "
            "until it restarts.",
            "MoE decode throughput",
        )
    ref = REFERENCE_TOKENS_PER_S_PER_USER
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.64, 0.36], vertical_spacing=0.06
    )
    sub = (
        f"{decode.get('model', '')}, {decode.get('gpu', '')}; per installed GPU<br>"
        f"model/decode.py fitted to GB200 points; dotted: {ref:g}/user [A]"
    )
    fig.update_layout(
        _header("MoE decode: throughput vs interactivity", sub, "decode"),
        legend={"x": 0.01, "y": 0.4, "yanchor": "bottom", "font": {"size": 10}},
    )
    # The healthy rack as a wide pale band under the scenario: where they coincide, both show.
    style = {
        "eth-x72": ("eth-x72", COLORS["eth-x72"], 2, 1.0),
        "healthy": ("healthy rack", COLORS["healthy"], 7, 0.45),
        "scenario": ("this scenario", COLORS["scenario"], 2.5, 1.0),
    }
    for key in ("eth-x72", "healthy", "scenario"):
        pts = curves.get(key) or []
        if not pts:
            continue
        name, color, width, opacity = style[key]
        x, y, b = _points(pts)
        fig.add_trace(
            scatter(
                x=x,
                y=y,
                customdata=b,
                mode="lines",
                name=name,
                opacity=opacity,
                line={"color": color, "width": width},
                hovertemplate=(
                    f"{name}<br>%{{x:.0f}} tokens/s per user<br>%{{y:,.0f}} tokens/s per GPU"
                    "<br>batch %{customdata} per GPU<extra></extra>"
                ),
            ),
            row=1,
            col=1,
        )
    ratio = decode.get("ratio_vs_eth_x72") or []
    if ratio:
        rx = np.array([p["tokens_per_s_per_user"] for p in ratio], dtype=float)
        ry = np.array([p["ratio"] for p in ratio], dtype=float)
        fig.add_trace(
            scatter(
                x=rx,
                y=ry,
                mode="lines",
                name="this scenario ÷ eth-x72",
                showlegend=False,
                line={"color": COLORS["scenario"], "width": 2},
                hovertemplate=(
                    "%{x:.0f} tokens/s per user<br>%{y:.2f}× eth-x72's tokens/s per GPU"
                    "<extra></extra>"
                ),
            ),
            row=2,
            col=1,
        )
        top = max(float(ry.max()), VENDOR_DECODE_RATIO) * 1.2
        fig.update_yaxes(type="log", range=[math.log10(0.8), math.log10(top)], row=2, col=1)
        fig.add_hline(y=1.0, line={"color": MUTED, "width": 1}, row=2, col=1)
        fig.add_hline(
            y=VENDOR_DECODE_RATIO,
            line={"color": MUTED, "width": 1, "dash": "dot"},
            row=2,
            col=1,
        )
        fig.add_annotation(  # on a log axis an annotation's y is log10 of the value
            text=f"NVIDIA: 'up to {VENDOR_DECODE_RATIO:g}×'",
            xref="x2 domain",
            yref="y2",
            x=0.01,
            y=math.log10(VENDOR_DECODE_RATIO),
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            font={"size": 9, "color": MUTED},
        )
    else:
        fig.add_annotation(
            text="eth-x72 reaches no common interactivity: no ratio",
            xref="x2 domain",
            yref="y2 domain",
            x=0.5,
            y=0.5,
            showarrow=False,
            font={"size": 10, "color": MUTED},
        )
    fig.add_vline(x=ref, line={"color": FG, "width": 1, "dash": "dot"})
    ticks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    fig.update_xaxes(title_text="interactivity, tokens/s per user (log)", row=2, col=1)
    fig.update_yaxes(title_text="tokens/s per GPU", tickformat="~s", row=1, col=1)
    fig.update_yaxes(
        title_text="× eth-x72",
        tickvals=[1, 2, 5, 10, 20],
        ticktext=["1", "2", "5", "10", "20"],
        row=2,
        col=1,
    )
    return fig.to_dict()


# --- 2. lifetime goodput: the comparison ------------------------------------------------------
def comparison_label(rows: Sequence[dict], scenario: Scenario) -> str | None:
    """The comparison row with this scenario's fabric and feature switches, if there is one.

    Goodput is a property of the configuration, not of today's faults: faults, flaky parts,
    updates and the workload are left out of the match.
    """
    key = replace(scenario, fail=(), flaky=(), update=(), workload=DEFAULT_WORKLOAD).key()
    return next((r["label"] for r in rows if r.get("query") == key), None)


def _short_label(label: str) -> str:
    """'vr-nvl72, reroute off' -> 'VR: reroute off'; 'gb200-nvl72, defaults' -> 'gb200-nvl72'."""
    s = label.replace(", defaults", "").replace("all seven features", "all features")
    return s.replace("vr-nvl72, ", "VR: ")


def goodput_figure(rows: Sequence[dict], current_label: str | None = None) -> dict:
    """Badput by cause (hours per rack-year) as stacked horizontal bars, best configuration
    on top, goodput % at each bar's end; input: goodput.comparison() rows."""
    rows = [r for r in rows if r.get("badput_hours_per_rack_year")]
    if not rows:
        return empty_figure("No goodput comparison to show.", "Lifetime goodput")
    total = np.array([sum(r["badput_hours_per_rack_year"].values()) for r in rows])
    order = np.argsort(-total, kind="stable")  # plotly draws the first category at the bottom
    rows = [rows[i] for i in order]
    total = total[order]
    labels = [_short_label(r["label"]) for r in rows]
    full = [r["label"] for r in rows]
    present = {c for r in rows for c, v in r["badput_hours_per_rack_year"].items() if v}
    known = [c for c in (*CAUSE_COLORS, *CAUSES) if c in present]
    causes = list(dict.fromkeys(known)) + sorted(present - set(known))
    fig = _figure(
        "Lifetime goodput: what each feature saves",
        "Closed form over one rack-year (docs/GOODPUT.md): FACTS §6 failure<br>"
        "rates, [A] repair and swap times; goodput % at each bar's end",
        "goodput",
        barmode="stack",
        bargap=0.25,
        legend={
            "orientation": "h",
            "traceorder": "normal",
            "x": 0,
            "y": -0.2,
            "yanchor": "top",
            "font": {"size": 10},
            "itemwidth": 30,
        },
        margin={"l": 10, "b": 36},
    )
    for c in causes:
        hours = np.array([r["badput_hours_per_rack_year"].get(c, 0.0) for r in rows])
        short, name = CAUSE_NAMES.get(c, (c.replace("_", " "),) * 2)
        fig.add_trace(
            bar(
                x=hours,
                y=labels,
                orientation="h",
                name=short,
                customdata=full,
                marker={"color": CAUSE_COLORS.get(c, COLORS["neutral"]), "line": {"width": 0}},
                hovertemplate=(
                    f"%{{customdata}}<br>{name}: %{{x:.1f}} h per rack-year<extra></extra>"
                ),
            )
        )
    frac = np.array([r["fraction"] for r in rows])
    fig.add_trace(
        scatter(
            x=total,
            y=labels,
            mode="text",
            text=[f" {f:.2%}" for f in frac],
            textposition="middle right",
            textfont={"size": 10, "color": FG},
            showlegend=False,
            customdata=np.stack([frac * 100, total], axis=1),
            hovertemplate=(
                "%{y}<br>goodput %{customdata[0]:.2f}%<br>"
                "badput %{customdata[1]:.0f} h per rack-year<extra></extra>"
            ),
        )
    )
    ticktext = list(labels)
    if current_label in full:
        i = full.index(current_label)
        ticktext[i] = f"<b>▶ {labels[i]}</b>"
        fig.add_shape(
            type="rect",
            xref="paper",
            x0=0,
            x1=1,
            yref="y",
            y0=i - 0.5,
            y1=i + 0.5,
            fillcolor=COLORS["scenario"],
            opacity=0.16,
            line={"width": 0},
            layer="below",
        )
    fig.update_yaxes(
        title_text="configuration",
        tickmode="array",
        tickvals=labels,
        ticktext=ticktext,
        ticks="",
        showgrid=False,
    )
    fig.update_xaxes(title_text="badput, hours per rack-year", range=[0, float(total.max()) * 1.25])
    return fig.to_dict()


# --- 3. GPU-to-GPU latency distribution -------------------------------------------------------
def latency_figure(current: dict, healthy: dict | None = None, eth_x72: dict | None = None) -> dict:
    """Share of messages slower than x (log) against one-way latency (us), p50 and p99
    marked, this scenario against its healthy rack (and eth-x72 if given); input:
    metrics.latency_distribution(state) for each."""
    if not current.get("latency_us"):
        return empty_figure(
            "No GPU-to-GPU latency: the fabric carries no job traffic now "
            "(a maintenance window, or fewer than two GPUs).",
            "GPU-to-GPU latency",
        )
    kb = current.get("message_bytes", 0) / 1024
    load = current.get("offered_load", 0.0)
    fig = _figure(
        "GPU-to-GPU latency, one way, under load",
        f"{kb:g} KiB message, fabric {load:.0%} busy [A]: M/M/1 wait at the busier<br>"
        "port, over all pairs of active GPUs (docs/MODEL.md, Latency)",
        "latency",
        legend={
            "x": 0.01,
            "xanchor": "left",
            "y": 0.02,
            "yanchor": "bottom",
            "font": {"size": 10},
            "tracegroupgap": 0,
        },
    )
    xmax = 0.0
    for key, d in (("eth-x72", eth_x72), ("healthy", healthy), ("scenario", current)):
        if not d or not d.get("latency_us"):
            continue
        name = {"eth-x72": "eth-x72", "healthy": "healthy rack", "scenario": "this scenario"}[key]
        lat = np.asarray(d["latency_us"], dtype=float)
        exceed = 100.0 * (1.0 - np.asarray(d["cdf"], dtype=float))
        x = np.concatenate([[0.0, lat[0]], lat])
        y = np.concatenate([[100.0, 100.0], exceed])
        color = COLORS[key]
        fig.add_trace(
            scatter(
                x=x,
                y=y,
                mode="lines",
                name=f"{name}: p50 {d['p50']:.3g}, p99 {d['p99']:.3g} µs",
                legendgroup=key,
                line={"color": color, "width": 3 if key == "scenario" else 2},
                hovertemplate=(
                    f"{name}<br>%{{y:.3g}}% of messages take longer than %{{x:.3f}} µs"
                    "<extra></extra>"
                ),
            )
        )
        fig.add_trace(
            scatter(
                x=[d["p50"], d["p99"]],
                y=[50.0, 1.0],
                mode="markers",
                legendgroup=key,
                showlegend=False,
                marker={"color": color, "size": 9, "line": {"color": BG, "width": 1}},
                customdata=["p50", "p99"],
                hovertemplate=f"{name}<br>%{{customdata}}: %{{x:.3f}} µs<extra></extra>",
            )
        )
        xmax = max(xmax, float(d["quantiles"].get("0.999", lat[-1])))
    for level, text in ((50.0, "p50"), (1.0, "p99")):
        fig.add_hline(y=level, line={"color": MUTED, "width": 1, "dash": "dot"})
        fig.add_annotation(  # on a log axis an annotation's y is log10 of the value
            text=text,
            xref="x domain",
            x=0.995,
            y=math.log10(level),
            xanchor="right",
            yanchor="bottom",
            showarrow=False,
            font={"size": 9, "color": MUTED},
        )
    fig.update_xaxes(title_text="one-way latency, µs", range=[0, xmax * 1.05], rangemode="tozero")
    fig.update_yaxes(
        title_text="messages slower, % (log)",
        type="log",
        range=[math.log10(0.08), math.log10(130)],
        tickvals=[0.1, 1, 10, 50, 100],
        ticktext=["0.1", "1", "10", "50", "100"],
    )
    return fig.to_dict()


# --- 4. per-link counter heatmap --------------------------------------------------------------
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
    inactive: np.ndarray | None = None,
    stale_planes: np.ndarray | None = None,
    drained_planes: np.ndarray | None = None,
    note: str = "",
) -> dict:
    """GPU (rows) by plane (columns) heatmap of one counter, INACTIVE links in the 'failed'
    colour, log colour scale where values span decades, hover naming the link ID.

    matrix: float[G, P] (Counters.heatmap(name)); inactive: bool[G, P], default NaN cells;
    stale_planes: bool[P], planes whose counters are stale (their controller is silent);
    drained_planes: bool[P], planes drained on purpose (a switch update). Both are marked
    by a bar above their columns.
    """
    z = np.asarray(matrix, dtype=float)
    g, p = z.shape
    if g != len(gpu_labels) or p != len(plane_labels):
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
    fig = _figure(
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
            "colorscale": VIRIDIS,
            "colorbar": colorbar,
            "hovertemplate": f"%{{y}}-%{{x}}<br>{label}: {hover_value}{unit_txt}<extra></extra>",
        }
        if scale != "linear":
            main["customdata"] = shown.astype(np.float32)
    fig.add_trace(heatmap(**main))
    drained = np.zeros(p, bool) if drained_planes is None else np.asarray(drained_planes, bool)
    planned = down & drained[None, :]
    overlays = (
        (down & ~planned, "INACTIVE", COLORS["failed"], "the link is down"),
        (planned, "INACTIVE, drained", "#0072B2", "drained for a switch update"),
    )
    for mask, what, color, why in overlays:
        if not mask.any():
            continue
        fig.add_trace(
            heatmap(
                x=list(plane_labels),
                y=list(gpu_labels),
                z=np.where(mask, 1.0, np.nan).astype(np.float32),
                colorscale=[[0, color], [1, color]],
                showscale=False,
                hoverongaps=False,
                name=what,
                hovertemplate=f"%{{y}}-%{{x}}<br>INACTIVE: {why}<extra></extra>",
            )
        )
    if is_state:
        fig.add_trace(_legend_swatch("ACTIVE", COLORS["ok"]))
    if (down & ~planned).any() or not planned.any():
        n = int((down & ~planned).sum())
        fig.add_trace(_legend_swatch(f"INACTIVE: {n} links", COLORS["failed"]))
    trays = [lab.split(".")[0] for lab in plane_labels]
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
        fig.add_trace(_legend_swatch(what, color))
    fig.update_layout(shapes=shapes)
    ends = [*starts[1:], p]
    fig.update_xaxes(
        title_text="switch plane (tray.chip)",
        tickmode="array",
        tickvals=[(a + b - 1) / 2 for a, b in zip(starts, ends, strict=True)],
        ticktext=[trays[i] for i in starts],
        showgrid=False,
        tickangle=0,
    )
    step = 8 if g > 36 else 4
    fig.update_yaxes(
        title_text="GPU",
        tickmode="array",
        tickvals=list(gpu_labels[::step]),
        autorange="reversed",
        showgrid=False,
    )
    return fig.to_dict()


def counters_heatmap_figure(c: tm.Counters, name: str) -> dict:
    """heatmap_figure for one metric of a telemetry.counters() snapshot (or 'state')."""
    f = c.fabric
    gpus = [gpu_id(i) for i in range(f.gpus)]
    planes = [chip_id(f, p) for p in range(f.planes)]
    when = f"t = {_fmt_s(c.t_s)}"
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
        inactive=c.state == tm.INACTIVE,
        stale_planes=c.stale,
        drained_planes=c.planned,
        note=f"{when} (model/telemetry.py)",
    )


# --- 5. one link's counter over simulated time ------------------------------------------------
def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) index pairs of the True runs in a boolean array; end is exclusive."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(
        zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(), strict=True)
    )


def _time_unit(span_s: float) -> tuple[str, float]:
    if span_s > 3 * 86400:
        return "days", 86400.0
    if span_s > 2 * 3600:
        return "hours", 3600.0
    return "minutes", 60.0


def link_series_figure(series: dict, metric: str) -> dict:
    """One link's (or cable's) metric over simulated time, INACTIVE and stale spans shaded,
    state changes marked; input: telemetry.link_series()."""
    t = np.asarray(series.get("t_s") or [], dtype=float)
    lid = series.get("id", "link")
    if t.size == 0:
        return empty_figure(f"No samples of {lid} in this window.", f"{lid} over time")
    note = ""
    if metric != "state" and metric not in series:
        note = series.get("visible") or f"{metric} is not in this series"
        metric = "state"
    states = np.asarray(series.get("state") or ["ACTIVE"] * t.size, dtype=object)
    active = states == "ACTIVE"
    label, unit, kind = METRIC_LABELS.get(metric, (metric, "", ""))
    tunit, div = _time_unit(float(t[-1] - t[0]))
    x = t / div
    if metric == "state":
        y = active.astype(float)
    else:
        y = np.asarray(series[metric], dtype=float)  # None (no reading) becomes NaN
    fig = _figure(
        f"{lid}: {label}",
        (f"{note}<br>" if note else f"{metric}: {kind}<br>")
        + "simulated clock from the counters' zero; model/telemetry.py",
        "link_series",
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "font": {"size": 10}},
        margin={"t": 84},
    )
    x_end = np.append(x[1:], x[-1])

    def shade(mask: np.ndarray, color: str, opacity: float) -> bool:
        runs = _runs(mask)
        for a, b in runs:
            fig.add_vrect(
                x0=x[a],
                x1=x_end[b - 1],
                fillcolor=color,
                opacity=opacity,
                line_width=0,
                layer="below",
            )
        return bool(runs)

    if shade(~active, COLORS["failed"], 0.22):
        fig.add_trace(_legend_swatch("INACTIVE", COLORS["failed"]))
    stale = np.asarray(series.get("stale") or [False] * t.size, dtype=bool)
    if shade(stale & active, COLORS["neutral"], 0.18) or (stale & ~active).any():
        fig.add_trace(_legend_swatch("stale: controller down", COLORS["neutral"]))
    fig.add_trace(
        scatter(
            x=x,
            y=y,
            mode="lines",
            name=label,
            line={
                "color": COLORS["scenario"],
                "width": 2,
                "shape": "hv" if metric == "state" else "linear",
            },
            hovertemplate=f"%{{x:.3~f}} {tunit}<br>{label}: %{{y:.4~g}} {unit}<extra></extra>",
            showlegend=False,
        )
    )
    change = np.flatnonzero(states[1:] != states[:-1]) + 1
    if change.size:
        up = states[change] == "ACTIVE"
        fig.add_trace(
            scatter(
                x=x[change],
                y=y[change],
                mode="markers",
                name="state change",
                marker={
                    "symbol": "diamond",
                    "size": 10,
                    "color": np.where(up, COLORS["ok"], COLORS["failed"]).tolist(),
                    "line": {"color": FG, "width": 1},
                },
                customdata=[
                    f"{a} → {b}" for a, b in zip(states[change - 1], states[change], strict=True)
                ],
                hovertemplate=f"%{{x:.3~f}} {tunit}<br>%{{customdata}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text=f"simulated time, {tunit}")
    if metric == "state":
        fig.update_yaxes(
            title_text="link state",
            tickvals=[0, 1],
            ticktext=["INACTIVE", "ACTIVE"],
            range=[-0.15, 1.15],
        )
    elif metric == tm.BER:
        fig.update_yaxes(title_text=f"{label}, {unit} (log)", type="log", exponentformat="power")
    else:
        top = float(np.nanmax(y)) if np.isfinite(y).any() else 0.0
        fig.update_yaxes(
            title_text=f"{label}, {unit}",
            tickformat="~s" if top >= 1000 else ",~g",
            rangemode="tozero",
        )
        if top == 0:
            fig.update_yaxes(range=[-0.05, 1], tickvals=[0])
            fig.add_annotation(
                text="0 throughout this window",
                xref="paper",
                yref="paper",
                x=0.5,
                y=0.5,
                showarrow=False,
                font={"size": 12, "color": MUTED},
            )
    return fig.to_dict()


# --- 6. the newest fault's story --------------------------------------------------------------
_LOG_TICKS_S = (
    (1e-3, "1 ms"),
    (1.0, "1 s"),
    (60.0, "1 min"),
    (3600.0, "1 h"),
    (86400.0, "1 d"),
    (7 * 86400.0, "1 wk"),
)
_LINEAR_STEPS_S = (600.0, 1800.0, 3600.0, 7200.0, 6 * 3600.0, 12 * 3600.0, 86400.0, 2 * 86400.0)
LINEAR_WIDTH = 4.0  # decades' worth of axis for the linear part after the knee
LEAD_WIDTH = 1.5  # decades' worth of axis for the lead before the fault


class TimeAxis:
    """Microseconds to days on one axis; x is in 'decades':

    - the lead before the fault: linear, LEAD_WIDTH decades wide, ending at the fault (zero);
    - the first tau after it: linear, one decade wide (tau: the decade at or below the first
      event, so every event lands on a readable part);
    - tau to the knee: log10(t), one decade per factor of ten;
    - after the knee: linear, LINEAR_WIDTH decades wide. The knee is the first event at or
      after 1 h with the rest of the window shorter than 4x its time: the repair, in
      practice. On a pure log axis a repair at 24 h and the restart 40 min later would touch.
    """

    def __init__(self, times: np.ndarray, lead_s: float, end_s: float) -> None:
        pos = np.sort(times[times > 0])
        first = float(pos[0]) if pos.size else 1.0
        self.tau = 10.0 ** math.floor(math.log10(min(max(first, 1e-6), 1.0)))
        self.lead = max(lead_s, 1e-9)
        self.zero = math.log10(self.tau) - 1.0
        self.end = max(end_s, self.tau * 10)
        late = pos[(pos >= 3600.0) & (self.end - pos < 4 * pos) & (pos < self.end)]
        self.knee = float(late[0]) if late.size else math.inf
        if math.isfinite(self.knee):
            self.slope = LINEAR_WIDTH / (self.end - self.knee)  # decades per second
        else:
            self.slope = 0.0

    def __call__(self, t: np.ndarray | float) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        log = np.log10(np.clip(t, self.tau, self.knee))
        early = self.zero + t / self.tau
        before = self.zero + LEAD_WIDTH * t / self.lead
        x = np.where(t >= self.tau, log, np.where(t >= 0, early, before))
        if math.isfinite(self.knee):
            x = np.where(t > self.knee, math.log10(self.knee) + (t - self.knee) * self.slope, x)
        return x

    def inverse(self, x: np.ndarray) -> np.ndarray:
        """t for axis positions x (the transform is strictly increasing)."""
        x = np.asarray(x, dtype=float)
        lt = math.log10(self.tau)
        lk = math.log10(self.knee) if math.isfinite(self.knee) else math.inf
        t = np.where(
            x < self.zero, (x - self.zero) * self.lead / LEAD_WIDTH, (x - self.zero) * self.tau
        )
        t = np.where(x >= lt, 10.0 ** np.minimum(x, min(lk, 300.0)), t)
        if math.isfinite(lk):
            t = np.where(x > lk, self.knee + (x - lk) / self.slope, t)
        return t

    def ticks(self) -> tuple[list[float], list[str]]:
        """Tick positions and labels: the lead, the fault (0), decades, then '+' steps."""
        vals = [self.zero - LEAD_WIDTH, self.zero]
        text = [_fmt_s(-self.lead), "0"]
        hi = min(self.knee, self.end * 1.05)
        for s, name in _LOG_TICKS_S:
            if self.tau <= s <= hi:
                vals.append(math.log10(s))
                text.append(name)
        if math.isfinite(self.knee):
            if vals[-1] < math.log10(self.knee) - 0.5:
                vals.append(math.log10(self.knee))
                text.append(_fmt_s(self.knee))
            span = self.end - self.knee
            step = next((v for v in _LINEAR_STEPS_S if span / v <= 2), span)
            for d in np.arange(step, span + 1e-6, step).tolist():
                vals.append(float(self(self.knee + d)))
                text.append("+" + _fmt_step(d))
        return vals, text

    def decades(self) -> list[float]:
        """Positions of the decades on the log part (for minor grid lines)."""
        hi = min(self.knee, self.end)
        return list(range(math.ceil(math.log10(self.tau)), math.floor(math.log10(hi)) + 1))


def timeline_figure(tl: dict | None, now_s: float | None = None) -> dict:
    """Delivered work (a step line) and cumulative goodput, % of the healthy rack, over the
    time since the newest fault, microseconds to days on one axis, events as markers;
    input: timeline.timeline(). now_s: the simulated clock, marked as 'now'."""
    if not tl or not tl.get("series"):
        msg = (tl or {}).get("note") or "no fault in this scenario"
        return empty_figure(
            f"{msg[0].upper()}{msg[1:]}: fail a part to see what it costs, millisecond by "
            "millisecond and day by day.",
            "Timeline of the newest fault",
        )
    ser = tl["series"]
    t = np.array([p["t_s"] for p in ser], dtype=float)
    delivered = 100.0 * np.array([p["delivered"] for p in ser], dtype=float)
    events = tl.get("events") or []
    et = np.array([e["t_s"] for e in events], dtype=float)
    window = tl.get("window_s") or [float(t[0]), float(t[-1])]
    ax = TimeAxis(np.concatenate([t, et]), lead_s=-float(window[0]), end_s=float(window[1]))
    x = ax(t)
    job = tl.get("job") or {}
    rep = tl.get("repair") or {}
    scale = f"log, linear after {_fmt_s(ax.knee)}" if math.isfinite(ax.knee) else "log"
    fig = _figure(
        f"{tl.get('fault')} fails: what happens next",
        f"job {job.get('state', '?')}; repair: {rep.get('mode', '?')}, "
        f"{_fmt_s(rep.get('repair_h', 0) * 3600)} to repair; model/timeline.py<br>"
        f"time: {scale}; the {_fmt_s(ax.lead)} before, first {_fmt_s(ax.tau)} linear",
        "timeline",
        legend={"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top", "font": {"size": 10}},
        margin={"b": 36},
    )
    fig.add_vrect(
        x0=ax.zero - LEAD_WIDTH,
        x1=ax.zero,
        fillcolor=COLORS["neutral"],
        opacity=0.10,
        line_width=0,
        layer="below",
    )
    fig.add_vline(x=ax.zero, line={"color": COLORS["failed"], "width": 1.5, "dash": "dot"})
    if math.isfinite(ax.knee):
        fig.add_vline(x=math.log10(ax.knee), line={"color": MUTED, "width": 1, "dash": "dash"})
    when = [_fmt_s(v) for v in t.tolist()]
    fig.add_trace(
        scatter(
            x=x,
            y=delivered,
            mode="lines",
            name="work delivered",
            line={"color": COLORS["scenario"], "width": 2.5, "shape": "hv"},
            fill="tozeroy",
            fillcolor="rgba(230,159,0,0.18)",
            customdata=when,
            hovertemplate="t = %{customdata}<br>delivering %{y:.1f}% of healthy<extra></extra>",
        )
    )
    # Goodput on a grid even in axis space, plus the series' own points (and just before
    # each, where the delivered level steps).
    xs = np.linspace(ax.zero - LEAD_WIDTH, float(ax(window[1])), 240)
    tg = np.unique(np.concatenate([ax.inverse(xs), t, np.nextafter(t, -np.inf)[1:]]))
    tg = tg[(tg >= t[0]) & (tg <= window[1])]
    good = 100.0 * goodput_at(tl, tg)
    fig.add_trace(
        scatter(
            x=ax(tg),
            y=good,
            mode="lines",
            name="goodput so far",
            line={"color": COLORS["ok"], "width": 2, "dash": "dash"},
            customdata=[_fmt_s(v) for v in tg.tolist()],
            hovertemplate="t = %{customdata}<br>goodput so far %{y:.2f}%<extra></extra>",
        )
    )
    if events:
        uniq, inv = np.unique(et, return_inverse=True)
        texts: list[list[str]] = [[] for _ in uniq]
        for i, e in zip(inv.tolist(), events, strict=True):
            texts[i].append(_wrap(e["event"], 52))
        kinds = [
            "failed" if k == 0 else "ok" if any("restored" in s for s in ts) else "neutral"
            for k, ts in enumerate(texts)
        ]
        fig.add_trace(
            scatter(
                x=ax(uniq),
                y=np.full(uniq.size, 110.0),
                mode="markers",
                name="events",
                marker={
                    "symbol": "diamond",
                    "size": 10,
                    "color": [COLORS[k] for k in kinds],
                    "line": {"color": FG, "width": 1},
                },
                customdata=[
                    f"t = {_fmt_s(v)}<br>" + "<br>".join(ts)
                    for v, ts in zip(uniq.tolist(), texts, strict=True)
                ],
                hovertemplate="%{customdata}<extra></extra>",
            )
        )
    vals, text = ax.ticks()
    fig.update_xaxes(
        title_text="time since the fault",
        tickmode="array",
        tickvals=vals,
        ticktext=text,
        range=[ax.zero - LEAD_WIDTH - 0.05, float(ax(window[1])) + 0.1],
        tickangle=0,
        showgrid=False,
        minor={"tickmode": "array", "tickvals": ax.decades(), "showgrid": True},
        zeroline=False,
    )
    fig.update_yaxes(
        title_text="% of the healthy rack's work",
        range=[-4, 118],
        tickvals=[0, 25, 50, 75, 100],
    )
    if now_s is not None and window[0] <= now_s <= window[1]:
        fig.add_vline(
            x=float(ax(np.array([now_s]))[0]),
            line={"color": "#F0E442", "width": 1, "dash": "dot"},
            annotation={"text": "now", "font": {"color": "#F0E442", "size": 10}},
        )
    return fig.to_dict()


def _l2_ids(fabric_key: str) -> list[str]:
    from model.multirack.domains import DOMAINS

    d = DOMAINS[fabric_key]
    return [f"l2.p{p:02d}.s{k}" for p in range(d.planes) for k in range(d.l2_per_plane)]


def l2_figure(scenario) -> dict:
    """The L2 tier of a multi-rack domain: one marker per L2 chip (plane x index), failed
    ones marked; a click fails or repairs it. Plain SVG: only the spine uses WebGL."""
    from model.multirack.domains import DOMAINS

    d = DOMAINS[scenario.fabric]
    ids_ = _l2_ids(scenario.fabric)
    failed = set(scenario.fail)
    x = [p for p in range(d.planes) for _ in range(d.l2_per_plane)]
    y = [k for _ in range(d.planes) for k in range(d.l2_per_plane)]
    down = [cid in failed for cid in ids_]
    fig = _figure(
        f"The L2 tier: {d.l2_chips} switch chips, {d.l2_per_plane} per plane [A]",
        "every rack's chip of plane p sends its 72 trunks to plane p's L2 chips "
        "(docs/MULTIRACK.md); click one to fail or repair it",
        "l2",
        margin={"b": 40},
    )
    fig.add_trace(
        scatter(
            x=x,
            y=y,
            mode="markers",
            customdata=ids_,
            hovertemplate="%{customdata}<extra></extra>",
            marker={
                "symbol": ["x" if f else "square" for f in down],
                "size": 12,
                "color": [COLORS["failed"] if f else COLORS["ok"] for f in down],
            },
            showlegend=False,
        )
    )
    fig.update_xaxes(title_text="plane (0-35: st1.sw0 .. st9.sw3 in every rack)", dtick=4)
    fig.update_yaxes(title_text="L2 chip of the plane", dtick=1)
    return fig.to_dict()


def l2_click_to_id(fabric_key: str, click_data: dict | None) -> str | None:
    """The L2 chip a click names (by point number, checked), or None."""
    from model.multirack.domains import DOMAINS

    if fabric_key not in DOMAINS or not isinstance(click_data, dict):
        return None
    points = click_data.get("points")
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        return None
    n = points[0].get("pointNumber")
    table = _l2_ids(fabric_key)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < len(table):
        return None
    return table[n]
