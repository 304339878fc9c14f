"""Plotly figures built as plain dicts through the part of go.Figure's API the charts use.

Why: a go.Figure validates every property on every call, and add_vline and friends run
plotly's shape machinery on top (~2.7 ms each): 10-30 ms a chart. The same figure as a
dict costs well under 1 ms, and Dash and plotly.io.json serialize it (numpy arrays
included) as they do a go.Figure. Nothing here validates: tests wrap the dicts in
go.Figure(d) to have plotly check every property (tests/unit/test_figdraft.py checks the
methods below against plotly 7.1's own output).

    Draft()               a figure: add_trace, add_shape, add_annotation, add_vline (with
                          an optional label), add_hline, add_vrect, update_layout,
                          update_xaxes, update_yaxes, to_dict; as go.Figure does them
    make_subplots(...)    a Draft on a grid of xy subplots (x axes shared or not, row
                          heights, vertical spacing), axes as plotly's make_subplots

Only what charts.py calls is here; anything else raises rather than guessing.
    scatter/bar/heatmap   trace dicts, in place of go.Scatter/go.Bar/go.Heatmap

Unlike go.Figure, a Draft has no default template ('plotly'): set one. Dicts handed in are
copied, never changed; the arrays in them (lists, numpy arrays) are shared, not copied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import product
from typing import Any

# Properties whose names hold an underscore (plotly's BaseFigure._valid_underscore_properties):
# the only keys a 'magic underscore' must not split.
_UNDERSCORE = ("error_x", "error_y", "error_z", "paper_bgcolor", "plot_bgcolor")
_UNDERSCORE += ("copy_xstyle", "copy_ystyle", "copy_zstyle")
# Compound arrays: an update merges into their elements, as plotly's does.
_ARRAYS = frozenset({"shapes", "annotations"})
# Properties of type 'any' that may hold a dict: an update replaces them whole.
_OPAQUE = frozenset({"meta"})
_AXIS_KEY = re.compile(r"^([xy])axis(\d*)$")


def _path(key: str) -> list[str]:
    """'title_font_size' -> ['title', 'font', 'size']; 'error_x_color' -> ['error_x', 'color']."""
    for name in _UNDERSCORE:
        key = key.replace(name, name.replace("_", "-"))
    return [p.replace("-", "_") for p in key.split("_") if p]


def expand(d: Mapping[str, Any]) -> dict:
    """A new dict with plotly's magic underscores spelled out as nested dicts, at every level
    plotly reads them (nested dicts, a compound array's elements; not 'meta'):
    {'title_text': 't', 'line_width': 0} -> {'title': {'text': 't'}, 'line': {'width': 0}}.
    Without it plotly.js would ignore 'font_size' where go.Figure would have read it."""
    out: dict = {}
    for k, v in d.items():
        if isinstance(v, Mapping) and k not in _OPAQUE:
            v = expand(v)
        elif k in _ARRAYS and isinstance(v, list | tuple):
            v = [expand(e) if isinstance(e, Mapping) else e for e in v]
        if "_" in k and k not in _UNDERSCORE:
            k, *rest = _path(k)
            for p in reversed(rest):
                v = {p: v}
        old = out.get(k)
        out[k] = _merge(old, v) if isinstance(old, dict) and isinstance(v, dict) else v
    return out


def _merge(dst: dict, src: Mapping) -> dict:
    """Merge src into dst as plotly's update does: dicts recursively, compound arrays element
    by element (cycling the update, appending extra elements; an empty one changes nothing),
    anything else replaced.
    Copies every dict it descends into, so dicts shared with a caller never change."""
    for k, v in src.items():
        old = dst.get(k)
        if isinstance(v, Mapping) and isinstance(old, dict) and k not in _OPAQUE:
            dst[k] = _merge(dict(old), v)
        elif k in _ARRAYS and isinstance(v, list | tuple):
            if not v:  # plotly drops an empty update, and an empty array
                continue
            if old:
                new = [_merge(dict(o), v[i % len(v)]) for i, o in enumerate(old)]
                dst[k] = new + [dict(e) for e in v[len(old) :]]
            else:
                dst[k] = v
        else:
            dst[k] = v
    return dst


def _trace(kind: str, kw: dict) -> dict:
    return {"type": kind, **expand(kw)}


def scatter(**kw: Any) -> dict:
    """A scatter trace as a dict: go.Scatter(**kw) without the validation."""
    return _trace("scatter", kw)


def bar(**kw: Any) -> dict:
    """A bar trace as a dict: go.Bar(**kw) without the validation."""
    return _trace("bar", kw)


def heatmap(**kw: Any) -> dict:
    """A heatmap trace as a dict: go.Heatmap(**kw) without the validation."""
    return _trace("heatmap", kw)


def _vline_annotation(annotation: Mapping, shape: dict) -> dict:
    """The label add_vline(..., annotation={...}) adds where plotly puts it by default ('top
    right'): anchored by its top-left corner at the line's top end; keys given are kept."""
    ann = dict(annotation)
    place = {"xanchor": "left", "yanchor": "top", "x": shape["x0"], "y": shape["y1"]}
    for k, v in (place | {"showarrow": False}).items():
        if ann.get(k) is None:
            ann[k] = v
    return ann


class Draft:
    """A figure as a dict under construction: go.Figure's methods, plotly's semantics, no
    validation. data: the trace dicts; layout: the layout dict; to_dict() hands both out."""

    __slots__ = ("_grid", "data", "layout")

    def __init__(self, layout: Mapping | None = None) -> None:
        self.data: list[dict] = []
        self.layout: dict = expand(layout or {})
        # Subplot grid (make_subplots): [row][col] -> (x label, y label), e.g. ('x2', 'y2').
        self._grid: list[list[tuple[str, str]]] | None = None

    def to_dict(self) -> dict:
        """{'data': [...], 'layout': {...}}: what Dash's Graph and plotly.io.json take."""
        return {"data": self.data, "layout": self.layout}

    # --- traces ------------------------------------------------------------------------------
    def add_trace(self, trace: Mapping, row: int | None = None, col: int | None = None) -> Draft:
        """Append a trace dict; with row and col, on that subplot's axes."""
        trace = expand(trace)
        if row is not None or col is not None:
            xl, yl = self._cell(row, col)
            trace["xaxis"], trace["yaxis"] = xl, yl
        self.data.append(trace)
        return self

    # --- layout ------------------------------------------------------------------------------
    def update_layout(self, dict1: Mapping | None = None, **kw: Any) -> Draft:
        """Deep-merge into the layout (magic underscores expanded), as go.Figure's does."""
        if dict1:
            _merge(self.layout, expand(dict1))
        if kw:
            _merge(self.layout, expand(kw))
        return self

    def update_xaxes(
        self, patch: Mapping | None = None, row: int | None = None, col: int | None = None, **kw
    ) -> Draft:
        """Deep-merge into every x axis, or the one(s) at row/col."""
        return self._update_axes("x", patch, row, col, kw)

    def update_yaxes(
        self, patch: Mapping | None = None, row: int | None = None, col: int | None = None, **kw
    ) -> Draft:
        """Deep-merge into every y axis, or the one(s) at row/col."""
        return self._update_axes("y", patch, row, col, kw)

    def _update_axes(self, xy: str, patch, row, col, kw) -> Draft:
        upd = _merge(expand(patch or {}), expand(kw))
        for key in self._axes(xy, row, col):
            old = self.layout.get(key)
            self.layout[key] = _merge(dict(old) if isinstance(old, dict) else {}, upd)
        return self

    def _axes(self, xy: str, row: int | None, col: int | None) -> list[str]:
        if row is None and col is None:  # every axis of the kind, and 'xaxis' always
            keys = {f"{xy}axis"} | {
                k for k in self.layout if (m := _AXIS_KEY.match(k)) and m[1] == xy
            }
            return sorted(keys, key=lambda k: int(k[5:] or 1))
        grid = self._need_grid()
        i = 0 if xy == "x" else 1
        return [
            _axis_key(grid[r - 1][c - 1][i])
            for r, c in product(range(1, len(grid) + 1), range(1, len(grid[0]) + 1))
            if (row is None or r == row) and (col is None or c == col)
        ]

    # --- shapes and annotations --------------------------------------------------------------
    def add_shape(
        self,
        arg: Mapping | None = None,
        row: int | str | None = None,
        col: int | str | None = None,
        exclude_empty_subplots: bool = False,
        **kw: Any,
    ) -> Draft:
        """Append a shape; with row and col, on that subplot's axes (as go.Figure.add_shape)."""
        obj = _merge(expand(arg or {}), expand(kw))
        return self._add_like("shapes", obj, row, col, exclude_empty_subplots)

    def add_annotation(
        self,
        arg: Mapping | None = None,
        row: int | str | None = None,
        col: int | str | None = None,
        exclude_empty_subplots: bool = False,
        **kw: Any,
    ) -> Draft:
        """Append an annotation; with row and col, on that subplot's axes."""
        obj = _merge(expand(arg or {}), expand(kw))
        return self._add_like("annotations", obj, row, col, exclude_empty_subplots)

    def add_vline(self, x, row="all", col="all", annotation: Mapping | None = None, **kw):
        """A vertical line at x across the plot (yref '<y> domain', y 0 to 1), on every
        non-empty subplot unless row/col say which; annotation={...} labels its top."""
        shape = {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1}
        ann = None if annotation is None else _vline_annotation(annotation, shape)
        return self._spanning("yref", shape, row, col, ann, kw)

    def add_hline(self, y, row="all", col="all", **kw):
        """A horizontal line at y across the plot (xref '<x> domain', x 0 to 1)."""
        shape = {"type": "line", "x0": 0, "x1": 1, "y0": y, "y1": y}
        return self._spanning("xref", shape, row, col, None, kw)

    def add_vrect(self, x0, x1, row="all", col="all", **kw):
        """A rectangle from x0 to x1, the plot's full height."""
        shape = {"type": "rect", "x0": x0, "x1": x1, "y0": 0, "y1": 1}
        return self._spanning("yref", shape, row, col, None, kw)

    def _spanning(self, ref: str, shape: dict, row, col, ann: dict | None, kw: dict) -> Draft:
        """plotly's _process_multiple_axis_spanning_shapes: add the shape (and its label) to
        every non-empty subplot asked for, then make the spanning ref ('xref' or 'yref')
        '<axis> domain'."""
        if any(k.startswith("annotation") for k in kw):
            raise ValueError("only add_vline(annotation={...}) labels a line here")
        if self._grid is None:  # one plot: row and col mean nothing
            row = col = None
        n_shapes = len(self.layout.get("shapes") or ())
        n_annotations = len(self.layout.get("annotations") or ())
        self.add_shape(shape, row=row, col=col, exclude_empty_subplots=True, **kw)
        if ann is not None:
            ann["yref"] = kw.get("yref", "y")
            self.add_annotation(ann, row=row, col=col, exclude_empty_subplots=True)
        for plural, before in (("shapes", n_shapes), ("annotations", n_annotations)):
            objs = self.layout.get(plural) or []
            for obj in objs[before:]:  # fresh copies, made by _add_like: ours to change
                if row is None and col is None:
                    obj.setdefault("xref", "x")
                    obj.setdefault("yref", "y")
                obj[ref] += " domain"
        return self

    def _add_like(self, plural: str, obj: dict, row, col, exclude: bool) -> Draft:
        """plotly's _add_annotation_like: append obj, on the subplot(s) at row/col if given."""
        if (row is None) != (col is None):
            raise ValueError("row and col must be specified together")
        if row is not None and (row == "all" or col == "all"):
            grid = self._need_grid()
            rows = range(1, len(grid) + 1) if row == "all" else [row]
            cols = range(1, len(grid[0]) + 1) if col == "all" else [col]
            for r, c in product(rows, cols):
                self._add_like(plural, obj, r, c, exclude)
            return self
        if row is not None:
            xl, yl = self._cell(row, col)
            yref = obj.get("yref")
            if yref is None or yref == "y" or "paper" in yref or "domain" in yref:
                xref, yref = xl, yl
            else:
                xref = xl
            if exclude and not self._subplot_not_empty(xref, yref):
                return self
            if "domain" in (obj.get("xref") or ""):
                xref += " domain"
            if "domain" in (obj.get("yref") or ""):
                yref += " domain"
            obj["xref"], obj["yref"] = xref, yref
        self.layout[plural] = [*(self.layout.get(plural) or ()), dict(obj)]
        # As plotly does: the next subplot of a row='all' call starts from no refs.
        obj.pop("xref", None)
        obj.pop("yref", None)
        return self

    def _subplot_not_empty(self, xref: str, yref: str) -> bool:
        """A trace, shape, annotation or image on exactly these axes (plotly's test)."""
        if any((t.get("xaxis") or "x", t.get("yaxis") or "y") == (xref, yref) for t in self.data):
            return True
        return any(
            (o.get("xref") or "x", o.get("yref") or "y") == (xref, yref)
            for plural in ("shapes", "annotations", "images")
            for o in self.layout.get(plural) or ()
        )

    # --- the grid ----------------------------------------------------------------------------
    def _need_grid(self) -> list[list[tuple[str, str]]]:
        if self._grid is None:
            raise ValueError("row and col need a figure made by make_subplots")
        return self._grid

    def _cell(self, row: int | None, col: int | None) -> tuple[str, str]:
        if row is None or col is None:
            raise ValueError("row and col must be specified together")
        grid = self._need_grid()
        if not (1 <= row <= len(grid) and 1 <= col <= len(grid[0])):
            raise IndexError(f"no subplot at row {row}, col {col}")
        return grid[row - 1][col - 1]


def _axis_key(label: str) -> str:
    """'x2' -> 'xaxis2', 'y' -> 'yaxis'."""
    return f"{label[0]}axis{label[1:]}"


def make_subplots(
    rows: int = 1,
    cols: int = 1,
    shared_xaxes: bool = False,
    row_heights: list[float] | None = None,
    vertical_spacing: float | None = None,
) -> Draft:
    """A Draft on a rows x cols grid of xy subplots, row 1 at the top: the layout axes
    (domains, anchors, shared x axes' 'matches' and hidden tick labels) that plotly's
    make_subplots gives with these arguments, computed the same way (same floats)."""
    if shared_xaxes not in (False, True):
        raise ValueError(f"shared_xaxes {shared_xaxes!r}: only False or True")
    vs = 0.3 / rows if vertical_spacing is None else vertical_spacing
    hs = 0.2 / cols  # plotly's default horizontal spacing
    widths = [(1.0 - hs * (cols - 1)) / cols] * cols
    if row_heights is None:
        heights = [(1.0 - vs * (rows - 1)) / rows] * rows
    else:
        total = float(sum(row_heights))
        heights = [(1.0 - vs * (rows - 1)) * (h / total) for h in row_heights][::-1]
    if len(heights) != rows:
        raise ValueError("row_heights needs one number a row")
    # plotly's grid of (x start, y start), rows counted from the top ('top-left' start cell).
    grid_xy = [
        [(sum(widths[:c]) + c * hs, sum(heights[:r]) + r * vs) for c in range(cols)]
        for r in range(rows)[::-1]
    ]
    layout: dict = {}
    grid: list[list[tuple[str, str]]] = [[("", "")] * cols for _ in range(rows)]
    for n, (r, c) in enumerate(product(range(rows), range(cols)), start=1):
        x_s, y_s = grid_xy[r][c]
        x_e, y_e = x_s + widths[c], y_s + heights[-1 - r]
        y_s, y_e = (_snap(v) for v in (y_s, y_e))
        xl, yl = f"x{n if n > 1 else ''}", f"y{n if n > 1 else ''}"
        layout[_axis_key(xl)] = {"domain": [max(0.0, x_s), min(1.0, x_e)], "anchor": yl}
        layout[_axis_key(yl)] = {"domain": [max(0.0, y_s), min(1.0, y_e)], "anchor": xl}
        grid[r][c] = (xl, yl)
    if shared_xaxes:  # plotly's: each column's x axes match its bottom one, labels only there
        for c in range(cols):
            bottom = grid[rows - 1][c][0]
            for r in range(rows - 2, -1, -1):
                axis = layout[_axis_key(grid[r][c][0])]
                axis["matches"] = bottom
                axis["showticklabels"] = False
    draft = Draft(layout)
    draft._grid = grid
    return draft


def _snap(v: float) -> float:
    """plotly's rounding of a y domain end just outside [0, 1]."""
    if -0.01 < v < 0.0:
        return 0.0
    if 1.0 < v < 1.01:
        return 1.0
    if not 0.0 <= v <= 1.0:
        raise ValueError("subplot heights and spacing do not fit in the figure")
    return v
