"""The /fleet page's figures (issue 30), pure: the grid of a history's racks coloured by their
state at a time (one heatmap trace, its z patched as the scrubber moves: measured against
WebGL markers and an image in bench/README.md), and the job's lines over time (its state,
goodput so far, restarts, money lost; or the difference of a second history), each with a
cursor at the time shown. Input: model/reliability/history.py's answer."""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from dashboard.figures.base import BG, COLORS, FG, figure, wrap
from model.reliability.history import STATES

# A rack's colour a state (history.STATES order); Okabe-Ito, running dimmed so faults show.
STATE_COLORS = MappingProxyType(
    {
        "running": "#1f5f4c",
        "degraded": "#E69F00",
        "rerouted": "#56B4E9",
        "repair": "#CC79A7",
        "down": "#D55E00",
        "spare": "#F0E442",
    }
)
assert tuple(STATE_COLORS) == STATES
CURSOR = {"color": FG, "width": 1.5, "dash": "dot"}
SUB_WIDTH = 60  # [A] a subtitle's line, in characters: a phone's width at 10.5 px
GRID_ASPECT = 2.0  # [A] columns per row of the grid: wide, as a page is


def _top(fig: dict) -> int:
    """The top margin a figure's title and its subtitle's lines need (px)."""
    lines = fig["layout"]["title"]["subtitle"]["text"].count("<br>") + 1
    return 40 + 14 * lines


def grid_shape(n: int) -> tuple[int, int]:
    """Rows and columns of the grid of n racks: about GRID_ASPECT as wide as tall."""
    cols = max(1, min(n, math.ceil(math.sqrt(n * GRID_ASPECT))))
    return math.ceil(n / cols), cols


def states_at(rack_states: dict, n: int, t_h: float) -> list[int]:
    """Each rack's state code at t_h (hours): the last interval of its that holds t_h (they
    are sorted by rack, then time, so a later one paints over an earlier), running outside
    them. The page's scrubber does the same in the browser (panels/history_page.py)."""
    z = np.zeros(n, dtype=np.int64)
    r = np.asarray(rack_states["rack"], dtype=np.int64)
    a = np.asarray(rack_states["from_h"], dtype=float)
    b = np.asarray(rack_states["to_h"], dtype=float)
    c = np.asarray(rack_states["state"], dtype=np.int64)
    on = (a <= t_h) & (t_h < b)
    z[r[on]] = c[on]  # numpy keeps the last of repeated indices: the later interval
    return z.tolist()


def grid_z(states: list[int], cols: int) -> list[list[int | None]]:
    """The states as the heatmap's rows (the last row padded with None: no rack there)."""
    rows = math.ceil(len(states) / cols)
    pad = states + [None] * (rows * cols - len(states))
    return [pad[i * cols : (i + 1) * cols] for i in range(rows)]


def _colorscale() -> list[list]:
    """A discrete scale: each state code (0..5, zmin -0.5, zmax 5.5) its own colour."""
    n, out = len(STATES), []
    for i, name in enumerate(STATES):
        out += [[i / n, STATE_COLORS[name]], [(i + 1) / n, STATE_COLORS[name]]]
    return out


def grid_figure(n: int, panels: list[tuple[list[int], str]], sub: str) -> dict:
    """The racks as a grid of cells, rack 0 top left, row by row: one grid a history (two
    side by side, one figure, so a scrub step redraws one plot); a click names a rack, its
    trace the history."""
    rows, cols = grid_shape(n)
    racks = np.arange(rows * cols).reshape(rows, cols).tolist()
    gap = 1 if n <= 600 else 0
    fig = figure("The racks at the time shown", sub, "history-grid")
    hidden = {"visible": False, "fixedrange": True}
    width = 1.0 / len(panels)
    for i, (states, name) in enumerate(panels):
        ax = "" if i == 0 else str(i + 1)
        fig["data"].append(
            {
                "type": "heatmap",
                "z": grid_z(states, cols),
                "customdata": racks,
                "zmin": -0.5,
                "zmax": len(STATES) - 0.5,
                "colorscale": _colorscale(),
                "showscale": False,
                "xgap": gap,
                "ygap": gap,
                "xaxis": f"x{ax}",
                "yaxis": f"y{ax}",
                "hovertemplate": (f"{name}<br>" if name else "")
                + "rack %{customdata}: click for its events<extra></extra>",
            }
        )
        lo, hi = i * width + 0.01, (i + 1) * width - 0.01
        fig["layout"][f"xaxis{ax}"] = hidden | {"domain": [lo, hi], "constrain": "domain"}
        fig["layout"][f"yaxis{ax}"] = hidden | {
            "autorange": "reversed",
            "scaleanchor": f"x{ax}",
            "constrain": "domain",
        }
        if len(panels) > 1:
            note = {"text": name, "x": (lo + hi) / 2, "y": 1.0, "xref": "paper", "yref": "paper"}
            note |= {"showarrow": False, "yanchor": "bottom", "font": {"size": 11}}
            fig["layout"].setdefault("annotations", []).append(note)
    fig["layout"] |= {
        "margin": {"l": 6, "r": 6, "t": _top(fig) + 16 * (len(panels) > 1), "b": 6},
        "plot_bgcolor": BG,
        "dragmode": False,
    }
    return fig


def picked(col: float, row: float, trace: int = 0) -> dict:
    """An outline round the picked rack's cell (on the trace's grid)."""
    ax = "" if trace == 0 else str(trace + 1)
    cell = {"x0": col - 0.5, "x1": col + 0.5, "y0": row - 0.5, "y1": row + 0.5}
    line = {"color": FG, "width": 2}
    return {"type": "rect", "xref": f"x{ax}", "yref": f"y{ax}", "line": line} | cell


def _line(x: list, y: list, name: str, axis: int, color: str, dash: str = "solid") -> dict:
    return {
        "type": "scatter",
        "mode": "lines",
        "x": x,
        "y": y,
        "name": name,
        "legendgroup": name,
        "showlegend": axis == 1,
        "line": {"color": color, "width": 1.5, "dash": dash},
        "xaxis": "x" if axis == 1 else f"x{axis}",
        "yaxis": "y" if axis == 1 else f"y{axis}",
        "hovertemplate": "day %{x:.1f}: %{y}<extra>" + name + "</extra>",
    }


def _panels(fig: dict, titles: tuple[str, ...], t_h: float) -> None:
    """Stack len(titles) plots sharing the time axis, each titled, a cursor across all."""
    n = len(titles)
    step, gap = 1.0 / n, 0.06
    for i, text in enumerate(titles, start=1):
        lo = 1.0 - i * step
        suffix = "" if i == 1 else str(i)
        fig["layout"][f"yaxis{suffix}"] = {
            "domain": [lo + gap / 2, lo + step - gap / 2],
            "title": {"text": text, "font": {"size": 11}},
            "fixedrange": True,
        }
        fig["layout"][f"xaxis{suffix}"] = {
            "anchor": f"y{suffix}",
            "showticklabels": i == n,
            "fixedrange": True,
        } | ({"matches": "x"} if i > 1 else {})
    fig["layout"][f"xaxis{'' if n == 1 else n}"]["title"] = {"text": "day"}
    fig["layout"]["shapes"] = [cursor(t_h)]


def cursor(t_h: float) -> dict:
    """The cursor at t_h across every plot of a lines figure (shapes[0]: the page moves it)."""
    d = t_h / 24
    shape = {"type": "line", "x0": d, "x1": d, "y0": 0, "y1": 1, "xref": "x", "yref": "paper"}
    return shape | {"line": dict(CURSOR)}


def lines_figure(h: dict, other: dict | None, names: tuple[str, str], t_h: float) -> dict:
    """The job's state, goodput so far, restarts and money lost over time (and the second
    history's, dashed, on the same failures)."""
    fig = figure(
        "The job over time",
        wrap(
            "the share of each step of time the job ran, its goodput so far, restarts and "
            "GPU time lost from the start to each day; the dotted line is the time shown",
            SUB_WIDTH,
        ),
        "history-lines",
    )
    pairs = [(h, names[0], COLORS["scenario"], "solid")]
    if other is not None:
        pairs.append((other, names[1], COLORS["healthy"], "dash"))
    for hist, name, color, dash in pairs:
        s = hist["series"]
        days = [t / 24 for t in s["t_h"]]
        fig["data"] += [
            _line(days, [100 * r for r in s["running"]], name, 1, color, dash),
            _line(days, [100 * g for g in s["goodput"]], name, 2, color, dash),
            _line(days, s["restarts"], name, 3, color, dash),
            _line(days, s["money_lost"], name, 4, color, dash),
        ]
    _panels(fig, ("job ran %", "goodput %", "restarts", "lost $"), t_h)
    fig["layout"] |= {"legend": {"orientation": "h", "y": -0.12}, "height": 520}
    fig["layout"]["margin"] = {"l": 64, "r": 14, "t": _top(fig), "b": 40}
    return fig


def difference_figure(diff: dict, names: tuple[str, str], t_h: float) -> dict:
    """The second history minus the first, as it accumulates: goodput (pp), restarts, $."""
    fig = figure(
        "Second minus first, on the same failures",
        wrap(
            f"{names[1]} minus {names[0]}: goodput so far (percentage points), restarts "
            "and GPU time lost; below zero the second keeps less goodput, above it restarts "
            "more or loses more",
            SUB_WIDTH,
        ),
        "history-difference",
    )
    days = [t / 24 for t in diff["t_h"]]
    color = COLORS["failed"]
    fig["data"] = [
        _line(days, [100 * g for g in diff["goodput"]], "difference", 1, color),
        _line(days, diff["restarts"], "difference", 2, color),
        _line(days, diff["money_lost"], "difference", 3, color),
    ]
    _panels(fig, ("goodput pp", "restarts", "lost $"), t_h)
    fig["layout"] |= {"showlegend": False, "height": 380}
    fig["layout"]["margin"] = {"l": 64, "r": 14, "t": _top(fig), "b": 40}
    return fig


def legend_words() -> list[tuple[str, str]]:
    """(colour, state name) of each state, for the page's legend in words."""
    return [(STATE_COLORS[s], s) for s in STATES]


__all__ = [
    "CURSOR",
    "STATE_COLORS",
    "cursor",
    "difference_figure",
    "grid_figure",
    "grid_shape",
    "grid_z",
    "legend_words",
    "lines_figure",
    "picked",
    "states_at",
]
