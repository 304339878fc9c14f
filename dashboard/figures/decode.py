"""MoE decode throughput against interactivity: the frontiers of this scenario, its healthy
rack and its like-for-like baseline (the same GPU on the other fabric), over a panel of the
scenario-to-baseline ratio; against eth-x72 the vendor's NVLink 6 claim is marked.
Input: model.workloads.throughput.decode_curves(scenario)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dashboard.figures.base import COLORS, FG, MUTED, empty_figure, header, hline, vline
from dashboard.figures.claims import VENDOR_DECODE_RATIO
from model.workloads.decode_params import REFERENCE_TOKENS_PER_S_PER_USER

# The two panels (plotly's make_subplots(rows=2, shared_xaxes=True, row_heights=[0.64,
# 0.36], vertical_spacing=0.06), computed as it computes them): the curves on top.
ROW_HEIGHTS = (0.64, 0.36)
ROW_SPACING = 0.06
LOG_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def _panels() -> dict:
    """The layout axes of the two panels: x shared (labels on the bottom one only)."""
    top, bottom = ((1.0 - ROW_SPACING) * (h / float(sum(ROW_HEIGHTS))) for h in ROW_HEIGHTS)
    y0 = bottom + ROW_SPACING
    y1 = y0 + top
    y1 = 1.0 if 1.0 < y1 < 1.01 else y1
    return {
        "xaxis": {"domain": [0.0, 1.0], "anchor": "y", "matches": "x2", "showticklabels": False},
        "yaxis": {"domain": [y0, y1], "anchor": "x"},
        "xaxis2": {"domain": [0.0, 1.0], "anchor": "y2"},
        "yaxis2": {"domain": [0.0, bottom], "anchor": "x2"},
    }


def _points(pts: Sequence[dict]) -> tuple[np.ndarray, np.ndarray, list]:
    x = np.array([p["tokens_per_s_per_user"] for p in pts], dtype=float)
    y = np.array([p["tokens_per_s_per_gpu"] for p in pts], dtype=float)
    extra = [
        [p.get("batch_per_gpu", 0), p.get("deployment", ""), 100 * p.get("exposed_share", 0)]
        for p in pts
    ]
    return x, y, extra


def _curve(key: str, pts: Sequence[dict], baseline: str) -> dict:
    """One fabric's frontier on the top panel; the hover names the deployment chosen there."""
    name, color, width, opacity = {
        "baseline": (baseline, COLORS["eth-x72"], 2, 1.0),
        # the healthy rack as a wide pale band under the scenario: where they coincide, both show
        "healthy": ("healthy rack", COLORS["healthy"], 7, 0.45),
        "scenario": ("this scenario", COLORS["scenario"], 2.5, 1.0),
    }[key]
    x, y, extra = _points(pts)
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "customdata": extra,
        "mode": "lines",
        "name": name,
        "opacity": opacity,
        "line": {"color": color, "width": width},
        "hovertemplate": (
            f"{name}<br>%{{x:.0f}} tokens/s per user<br>%{{y:,.0f}} tokens/s per GPU"
            "<br>%{customdata[1]}, %{customdata[0]:.3g} requests a GPU"
            "<br>%{customdata[2]:.1f}% of the step is exposed communication<extra></extra>"
        ),
        "xaxis": "x",
        "yaxis": "y",
    }


def decode_figure(decode: dict) -> dict:
    """Tokens/s per GPU against tokens/s per user (log) for this scenario, its healthy rack
    and its baseline, over a panel of the scenario-to-baseline ratio; input: decode_curves()."""
    curves = decode.get("curves") or {}
    if not curves.get("scenario"):
        return empty_figure(
            "The job is down in this scenario: it decodes nothing (0 tokens/s per GPU) "
            "until it restarts.",
            "MoE decode throughput",
        )
    ref = REFERENCE_TOKENS_PER_S_PER_USER
    base = decode.get("baseline", "")
    sub = (
        f"{decode.get('model', '')}, {decode.get('gpu', '')}; per installed GPU; the best "
        f"deployment at each point<br>against {base}: {decode.get('baseline_why', '')}; "
        f"dotted: {ref:g}/user [A]"
    )
    lay = _panels() | header("MoE decode: throughput vs interactivity", sub, "decode")
    lay["legend"] = {"x": 0.01, "y": 0.4, "yanchor": "bottom", "font": {"size": 10}}
    data = [
        _curve(k, curves[k], base) for k in ("baseline", "healthy", "scenario") if curves.get(k)
    ]
    shapes: list[dict] = []
    ratio = decode.get("ratio_vs_baseline") or []
    claim = base == "eth-x72"  # NVIDIA's figure is NVLink 6 against off-the-shelf Ethernet
    if ratio:
        rx = np.array([p["tokens_per_s_per_user"] for p in ratio], dtype=float)
        ry = np.array([p["ratio"] for p in ratio], dtype=float)
        data.append(
            {
                "type": "scatter",
                "x": rx,
                "y": ry,
                "mode": "lines",
                "name": f"this scenario ÷ {base}",
                "showlegend": False,
                "line": {"color": COLORS["scenario"], "width": 2},
                "hovertemplate": (
                    f"%{{x:.0f}} tokens/s per user<br>%{{y:.2f}}× {base}'s tokens/s per GPU"
                    "<extra></extra>"
                ),
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
        top = max(float(ry.max()), VENDOR_DECODE_RATIO if claim else 1.0) * 1.2
        low = min(0.8, float(ry.min()) * 0.9)
        lay["yaxis2"] |= {"type": "log", "range": [math.log10(low), math.log10(top)]}
        shapes.append(hline(1.0, {"color": MUTED, "width": 1}, "x2", "y2"))
        if claim:
            dot = {"color": MUTED, "width": 1, "dash": "dot"}
            shapes.append(hline(VENDOR_DECODE_RATIO, dot, "x2", "y2"))
        note = {  # on a log axis an annotation's y is log10 of the value
            "text": f"NVIDIA: 'up to {VENDOR_DECODE_RATIO:g}×' (NVLink 6 vs Ethernet)"
            if claim
            else f"1× = {base}",
            "xref": "x2 domain",
            "yref": "y2",
            "x": 0.01,
            "y": math.log10(VENDOR_DECODE_RATIO if claim else 1.0),
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 9, "color": MUTED},
        }
    else:
        note = {
            "text": f"{base} reaches no common interactivity: no ratio",
            "xref": "x2 domain",
            "yref": "y2 domain",
            "x": 0.5,
            "y": 0.5,
            "showarrow": False,
            "font": {"size": 10, "color": MUTED},
        }
    # The reference interactivity, on each panel that has a trace.
    ref_line = {"color": FG, "width": 1, "dash": "dot"}
    shapes.append(vline(ref, dict(ref_line), "x", "y"))
    if ratio:
        shapes.append(vline(ref, dict(ref_line), "x2", "y2"))
    ticks = {"type": "log", "tickvals": list(LOG_TICKS), "ticktext": [f"{v:g}" for v in LOG_TICKS]}
    lay["xaxis"] |= ticks
    lay["xaxis2"] |= {
        **ticks,
        "ticktext": list(ticks["ticktext"]),
        "tickvals": list(LOG_TICKS),
        "title": {"text": "interactivity, tokens/s per user (log)"},
    }
    lay["yaxis"] |= {"title": {"text": "tokens/s per GPU"}, "tickformat": "~s"}
    lay["yaxis2"] |= {
        "title": {"text": f"× {base}"},
        "tickvals": [1, 2, 5, 10, 20],
        "ticktext": ["1", "2", "5", "10", "20"],
    }
    lay["shapes"] = shapes
    lay["annotations"] = [note]
    return {"data": data, "layout": lay}
