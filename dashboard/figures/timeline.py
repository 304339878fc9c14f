"""The newest fault's story: work delivered and cumulative goodput, % of the healthy rack,
from microseconds to days after the fault on one axis (TimeAxis), events as markers, the
simulated clock as 'now'. Input: model.reliability.timeline.timeline(scenario)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dashboard.figures.base import (
    COLORS,
    FG,
    MUTED,
    empty_figure,
    figure,
    fmt_s,
    vline,
    vrect,
    wrap,
)
from model.kinds import EventKind
from model.reliability.timeline import goodput_at

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
        text = [fmt_s(-self.lead), "0"]
        hi = min(self.knee, self.end * 1.05)
        for s, name in _LOG_TICKS_S:
            if self.tau <= s <= hi:
                vals.append(math.log10(s))
                text.append(name)
        if math.isfinite(self.knee):
            # after the knee every label is a time since the fault in one unit, the decade
            # at the knee too: "1 d" followed by "+1 h" read as an hour, not 25 h (issue 28)
            at = self._linear_label
            if vals[-1] < math.log10(self.knee) - 0.5:
                vals.append(math.log10(self.knee))
                text.append(at(self.knee))
            else:
                text[-1] = at(10.0 ** vals[-1])
            span = self.end - self.knee
            step = next((v for v in _LINEAR_STEPS_S if span / v <= 2), span)
            for d in np.arange(step, span + 1e-6, step).tolist():
                vals.append(float(self(self.knee + d)))
                text.append(at(self.knee + d))
        return vals, text

    def _linear_label(self, t: float) -> str:
        """A time since the fault on the linear part: hours up to four days, days beyond."""
        unit, name = (3600.0, "h") if self.end < 4 * 86400.0 else (86400.0, "d")
        return f"{round(t / unit, 2):g} {name}"

    def decades(self) -> list[float]:
        """Positions of the decades on the log part (for minor grid lines)."""
        hi = min(self.knee, self.end)
        return list(range(math.ceil(math.log10(self.tau)), math.floor(math.log10(hi)) + 1))


def _no_fault(tl: dict | None) -> dict:
    """The empty figure for a scenario without a fault (or the timeline's note on why)."""
    msg = (tl or {}).get("note") or "no fault in this scenario"
    return empty_figure(
        f"{msg[0].upper()}{msg[1:]}: fail a part to see what it costs, millisecond by "
        "millisecond and day by day.",
        "Timeline of the newest fault",
    )


def _subtitle(tl: dict, ax: TimeAxis) -> str:
    """The job's fate and the repair, then how the time axis is drawn (its parts differ)."""
    job = tl.get("job") or {}
    rep = tl.get("repair") or {}
    scale = f"log, linear after {fmt_s(ax.knee)}" if math.isfinite(ax.knee) else "log"
    return (
        f"job {job.get('state', '?')}; repair: {rep.get('mode', '?')}, "
        f"{fmt_s(rep.get('repair_h', 0) * 3600)} to repair; model/timeline.py<br>"
        f"time: {scale}; the {fmt_s(ax.lead)} before, first {fmt_s(ax.tau)} linear"
    )


def _shapes(ax: TimeAxis) -> list[dict]:
    """The lead before the fault shaded, the fault as a dotted line, the knee (where the axis
    turns linear) as a dashed one."""
    shapes = [
        vrect(ax.zero - LEAD_WIDTH, ax.zero, COLORS["neutral"], 0.10),
        vline(ax.zero, {"color": COLORS["failed"], "width": 1.5, "dash": "dot"}),
    ]
    if math.isfinite(ax.knee):
        shapes.append(vline(math.log10(ax.knee), {"color": MUTED, "width": 1, "dash": "dash"}))
    return shapes


def _delivered_trace(ax: TimeAxis, t: np.ndarray, ser: list[dict]) -> dict:
    """Work delivered, % of the healthy rack, as a filled step line at the model's points."""
    delivered = 100.0 * np.array([p["delivered"] for p in ser], dtype=float)
    return {
        "type": "scatter",
        "x": ax(t),
        "y": delivered,
        "mode": "lines",
        "name": "work delivered",
        "line": {"color": COLORS["scenario"], "width": 2.5, "shape": "hv"},
        "fill": "tozeroy",
        "fillcolor": "rgba(230,159,0,0.18)",
        "customdata": [fmt_s(v) for v in t.tolist()],
        "hovertemplate": "t = %{customdata}<br>delivering %{y:.1f}% of healthy<extra></extra>",
    }


def _goodput_trace(tl: dict, ax: TimeAxis, t: np.ndarray, window: Sequence[float]) -> dict:
    """Cumulative goodput as a dashed line: a grid even in axis space (the axis is not linear
    in time), plus the series' own points and just before each, where delivered steps."""
    xs = np.linspace(ax.zero - LEAD_WIDTH, float(ax(window[1])), 240)
    tg = np.unique(np.concatenate([ax.inverse(xs), t, np.nextafter(t, -np.inf)[1:]]))
    tg = tg[(tg >= t[0]) & (tg <= window[1])]
    return {
        "type": "scatter",
        "x": ax(tg),
        "y": 100.0 * goodput_at(tl, tg),
        "mode": "lines",
        "name": "goodput so far",
        "line": {"color": COLORS["ok"], "width": 2, "dash": "dash"},
        "customdata": [fmt_s(v) for v in tg.tolist()],
        "hovertemplate": "t = %{customdata}<br>goodput so far %{y:.2f}%<extra></extra>",
    }


def _event_groups(events: list[dict], et: np.ndarray) -> tuple[np.ndarray, list[str], list[str]]:
    """The events grouped by time (one marker a time): the times, each marker's hover text
    and its colour (the fault's own, the fabric made whole again, or a step between)."""
    uniq, inv = np.unique(et, return_inverse=True)
    texts: list[list[str]] = [[] for _ in uniq]
    restored = [False] * uniq.size
    for i, e in zip(inv.tolist(), events, strict=True):
        texts[i].append(wrap(e["event"], 52))
        restored[i] |= e.get("kind") == EventKind.RESTORED
    kinds = ["failed" if k == 0 else "ok" if r else "neutral" for k, r in enumerate(restored)]
    hover = [
        f"t = {fmt_s(v)}<br>" + "<br>".join(ts) for v, ts in zip(uniq.tolist(), texts, strict=True)
    ]
    return uniq, hover, [COLORS[k] for k in kinds]


def _events_trace(ax: TimeAxis, events: list[dict], et: np.ndarray) -> dict:
    """The events as diamonds above the lines, a marker a time, the hover listing them."""
    uniq, hover, colors = _event_groups(events, et)
    return {
        "type": "scatter",
        "x": ax(uniq),
        "y": np.full(uniq.size, 110.0),
        "mode": "markers",
        "name": "events",
        "marker": {
            "symbol": "diamond",
            "size": 10,
            "color": colors,
            "line": {"color": FG, "width": 1},
        },
        "customdata": hover,
        "hovertemplate": "%{customdata}<extra></extra>",
    }


def _axes(ax: TimeAxis, window: Sequence[float]) -> dict:
    """The time axis with TimeAxis' ticks (decades as minor grid lines) and the % axis, with
    room above 100 % for the event markers."""
    vals, text = ax.ticks()
    return {
        "xaxis": {
            "title": {"text": "time since the fault"},
            "tickmode": "array",
            "tickvals": vals,
            "ticktext": text,
            "range": [ax.zero - LEAD_WIDTH - 0.05, float(ax(window[1])) + 0.1],
            "tickangle": 0,
            "showgrid": False,
            "minor": {"tickmode": "array", "tickvals": ax.decades(), "showgrid": True},
            "zeroline": False,
        },
        "yaxis": {
            "title": {"text": "% of the healthy rack's work"},
            "range": [-4, 118],
            "tickvals": [0, 25, 50, 75, 100],
        },
    }


def _now_marker(ax: TimeAxis, now_s: float) -> tuple[dict, dict]:
    """The simulated clock: a dotted line and its 'now' label, as plotly's add_vline with an
    annotation places it (the line's top, to the right)."""
    now = float(ax(np.array([now_s]))[0])
    line = vline(now, {"color": "#F0E442", "width": 1, "dash": "dot"})
    label = {
        "text": "now",
        "font": {"color": "#F0E442", "size": 10},
        "xanchor": "left",
        "yanchor": "top",
        "x": now,
        "y": 1,
        "showarrow": False,
        "xref": "x",
        "yref": "y domain",
    }
    return line, label


def timeline_figure(tl: dict | None, now_s: float | None = None) -> dict:
    """Delivered work (a step line) and cumulative goodput, % of the healthy rack, over the
    time since the newest fault, microseconds to days on one axis, events as markers;
    input: timeline.timeline(). now_s: the simulated clock, marked as 'now'."""
    if not tl or not tl.get("series"):
        return _no_fault(tl)
    ser = tl["series"]
    t = np.array([p["t_s"] for p in ser], dtype=float)
    events = tl.get("events") or []
    et = np.array([e["t_s"] for e in events], dtype=float)
    window = tl.get("window_s") or [float(t[0]), float(t[-1])]
    ax = TimeAxis(np.concatenate([t, et]), lead_s=-float(window[0]), end_s=float(window[1]))
    fig = figure(
        f"{tl.get('fault')} fails: what happens next",
        _subtitle(tl, ax),
        "timeline",
        legend={"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top", "font": {"size": 10}},
        margin={"b": 36},
    )
    lay = fig["layout"]
    lay["shapes"] = _shapes(ax)
    fig["data"] += [_delivered_trace(ax, t, ser), _goodput_trace(tl, ax, t, window)]
    if events:
        fig["data"].append(_events_trace(ax, events, et))
    lay |= _axes(ax, window)
    if now_s is not None and window[0] <= now_s <= window[1]:
        line, label = _now_marker(ax, now_s)
        lay["shapes"].append(line)
        lay["annotations"] = [label]
    return fig
