"""MoE decode throughput against interactivity: the frontiers of this scenario, its healthy
rack and its like-for-like baseline (the same GPU on the other fabric), over a panel of the
scenario-to-baseline ratio; against eth-x72 the vendor's NVLink 6 claim is marked; a diamond
where the best deployment changes along a curve and a cross where the fault moves it off the
healthy rack's, each hover the model's line of why.
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
RATIO_TICKS = (0.5, 1, 1.5, 2, 3, 5, 10, 20)  # the ratio panel: 1.5 so a small gap reads


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


def _changes(key: str, changes: Sequence[dict]) -> dict:
    """Where the model's best deployment changes along one curve: a marker on the curve, its
    hover the model's line of why (model/workloads/choices.deployment_changes)."""
    name, color, symbol = {
        "healthy": ("deployment changes (healthy)", COLORS["healthy"], "diamond"),
        "scenario": ("deployment changes (this scenario)", COLORS["scenario"], "diamond"),
        "fault": ("the fault moves the deployment", COLORS["scenario"], "x"),
    }[key]
    return {
        "type": "scatter",
        "x": np.array([c["tokens_per_s_per_user"] for c in changes], dtype=float),
        "y": np.array([c["tokens_per_s_per_gpu"] for c in changes], dtype=float),
        "text": [c["line"] for c in changes],
        "mode": "markers",
        "name": name,
        "marker": {"symbol": symbol, "size": 8, "color": color, "line": {"color": FG}},
        "hovertemplate": "%{text}<extra></extra>",
        "xaxis": "x",
        "yaxis": "y",
    }


def _subtitle(decode: dict) -> str:
    """The model, the GPU, what each point is and why this baseline."""
    return (
        f"{decode.get('model', '')}, {decode.get('gpu', '')}; per installed GPU; the best "
        f"deployment at each point<br>against {decode.get('baseline', '')}: "
        f"{decode.get('baseline_why', '')}<br>dotted: {_at(decode):g}/user, the "
        "interactivity set (at=)"
    )


def _ratio_trace(ratio: Sequence[dict], base: str) -> dict:
    """The scenario-to-baseline ratio of tokens/s per GPU on the bottom panel."""
    return {
        "type": "scatter",
        "x": np.array([p["tokens_per_s_per_user"] for p in ratio], dtype=float),
        "y": np.array([p["ratio"] for p in ratio], dtype=float),
        "mode": "lines",
        "name": f"this scenario ÷ {base}",
        "showlegend": False,
        "line": {"color": COLORS["scenario"], "width": 2},
        "fill": "tonexty",  # down to the parity trace drawn just before: the gap, shaded
        "fillcolor": "rgba(230, 159, 0, 0.25)",
        "hovertemplate": (
            f"%{{x:.0f}} tokens/s per user<br>%{{y:.2f}}× {base}'s tokens/s per GPU<extra></extra>"
        ),
        "xaxis": "x2",
        "yaxis": "y2",
    }


def _parity_trace(ratio: Sequence[dict]) -> dict:
    """1× under the ratio on the bottom panel, drawn only so the ratio can fill down to it:
    the shaded band is the gap between the two fabrics (none where they are equal)."""
    x = np.array([p["tokens_per_s_per_user"] for p in ratio], dtype=float)
    return {
        "type": "scatter",
        "x": x,
        "y": np.ones_like(x),
        "mode": "lines",
        "name": "parity",
        "showlegend": False,
        "hoverinfo": "skip",
        "line": {"width": 0, "color": MUTED},
        "xaxis": "x2",
        "yaxis": "y2",
    }


def _ratio_at(ratio: Sequence[dict], at: float, base: str) -> dict:
    """The ratio at the interactivity set (at=), marked and labelled on the bottom panel: the
    model's point nearest at= (as vendor_claim's ratio_at reads it)."""
    near = min(ratio, key=lambda p: abs(p["tokens_per_s_per_user"] - at))
    xs = [math.log(p["tokens_per_s_per_user"]) for p in ratio]
    right = (math.log(near["tokens_per_s_per_user"]) - xs[0]) < 0.6 * (xs[-1] - xs[0])
    return {
        "type": "scatter",
        "x": [near["tokens_per_s_per_user"]],
        "y": [near["ratio"]],
        "mode": "markers+text",
        "name": "at the interactivity set",
        "showlegend": False,
        "text": [f"{near['ratio']:.2f}× {base} at {at:g}/user"],
        "textposition": "top right" if right else "top left",  # inside the panel
        "textfont": {"size": 10, "color": FG},
        "marker": {"size": 8, "color": COLORS["scenario"], "line": {"color": FG, "width": 1}},
        "hovertemplate": (
            f"%{{x:.0f}} tokens/s per user (at=)<br>%{{y:.3f}}× {base}'s tokens/s per GPU"
            "<extra></extra>"
        ),
        "xaxis": "x2",
        "yaxis": "y2",
    }


def _ratio_range(ratio: Sequence[dict], claim: bool) -> dict:
    """The bottom panel's log range: the ratios, 1× and (against Ethernet) the vendor's claim
    in view, with a margin."""
    ry = np.array([p["ratio"] for p in ratio], dtype=float)
    top = max(float(ry.max()), VENDOR_DECODE_RATIO if claim else 1.0) * 1.2
    low = min(0.8, float(ry.min()) * 0.9)
    return {"type": "log", "range": [math.log10(low), math.log10(top)]}


def _ratio_lines(claim: bool) -> list[dict]:
    """Parity (1×) on the bottom panel, and the vendor's claim dotted when it applies."""
    lines = [hline(1.0, {"color": MUTED, "width": 1}, "x2", "y2")]
    if claim:
        lines.append(
            hline(VENDOR_DECODE_RATIO, {"color": MUTED, "width": 1, "dash": "dot"}, "x2", "y2")
        )
    return lines


def _ratio_note(base: str, claim: bool) -> dict:
    """The label on the bottom panel's line: the vendor's claim, or what 1× is."""
    return {  # on a log axis an annotation's y is log10 of the value
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


def _no_ratio_note(base: str) -> dict:
    """Said in the bottom panel when the baseline shares no interactivity with the scenario."""
    return {
        "text": f"{base} reaches no common interactivity: no ratio",
        "xref": "x2 domain",
        "yref": "y2 domain",
        "x": 0.5,
        "y": 0.5,
        "showarrow": False,
        "font": {"size": 10, "color": MUTED},
    }


def _at(decode: dict) -> float:
    """The interactivity the scenario runs at (at=), as the model's answer says."""
    return float(decode.get("tokens_per_s_per_user") or REFERENCE_TOKENS_PER_S_PER_USER)


def _reference_lines(with_ratio: bool, ref: float) -> list[dict]:
    """The interactivity set (at=), dotted, on each panel that has a trace."""
    ref_line = {"color": FG, "width": 1, "dash": "dot"}
    lines = [vline(ref, dict(ref_line), "x", "y")]
    if with_ratio:
        lines.append(vline(ref, dict(ref_line), "x2", "y2"))
    return lines


def _log_ticks() -> dict:
    """The interactivity axis: log, ticked at 1-2-5 steps."""
    return {
        "type": "log",
        "tickvals": list(LOG_TICKS),
        "ticktext": [f"{v:g}" for v in LOG_TICKS],
    }


def _label_axes(lay: dict, base: str) -> None:
    """Both panels' ticks and titles, x titled on the bottom panel only (it is shared)."""
    lay["xaxis"] |= _log_ticks()
    lay["xaxis2"] |= _log_ticks() | {"title": {"text": "interactivity, tokens/s per user (log)"}}
    lay["yaxis"] |= {"title": {"text": "tokens/s per GPU"}, "tickformat": "~s"}
    lay["yaxis2"] |= {
        "title": {"text": f"× {base}"},
        "tickvals": list(RATIO_TICKS),
        "ticktext": [f"{v:g}" for v in RATIO_TICKS],
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
    base = decode.get("baseline", "")
    lay = _panels() | header("MoE decode: throughput vs interactivity", _subtitle(decode), "decode")
    lay["legend"] = {"x": 0.01, "y": 0.4, "yanchor": "bottom", "font": {"size": 10}}
    data = [
        _curve(k, curves[k], base) for k in ("baseline", "healthy", "scenario") if curves.get(k)
    ]
    marks = decode.get("deployment_changes") or {}
    data += [_changes(k, marks[k]) for k in ("healthy", "scenario") if marks.get(k)]
    if decode.get("fault_changes"):
        data.append(_changes("fault", decode["fault_changes"]))
    ratio = decode.get("ratio_vs_baseline") or []
    claim = base == "eth-x72"  # NVIDIA's figure is NVLink 6 against off-the-shelf Ethernet
    if ratio:
        data += [
            _parity_trace(ratio),
            _ratio_trace(ratio, base),
            _ratio_at(ratio, _at(decode), base),
        ]
        lay["yaxis2"] |= _ratio_range(ratio, claim)
        shapes, note = _ratio_lines(claim), _ratio_note(base, claim)
    else:
        shapes, note = [], _no_ratio_note(base)
    _label_axes(lay, base)
    lay["shapes"] = shapes + _reference_lines(bool(ratio), _at(decode))
    lay["annotations"] = [note]
    return {"data": data, "layout": lay}
