"""dashboard.figures.figdraft against plotly itself: the same calls on a go.Figure and on a Draft give
the same figure, property for property (plotly 7.1's add_vline, make_subplots, updates...)."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.io.json import to_json_plotly
from plotly.subplots import make_subplots

from dashboard.figures import figdraft as fd
from dashboard.figures.figdraft import Draft


def lists(o):
    """JSON with plotly's base64 typed arrays ({'dtype', 'bdata'}) read back as lists."""
    if isinstance(o, dict) and "bdata" in o:
        a = np.frombuffer(base64.b64decode(o["bdata"]), dtype=np.dtype(o["dtype"]))
        if "shape" in o:
            a = a.reshape([int(n) for n in o["shape"].split(",")])
        return json.loads(to_json_plotly(a))
    if isinstance(o, dict):
        return {k: lists(v) for k, v in o.items()}
    if isinstance(o, list):
        return [lists(v) for v in o]
    return o


def plain(text: str) -> dict:
    """A figure's JSON without plotly's default template (a Draft has none)."""
    d = json.loads(text)
    d["layout"].pop("template", None)
    return d


def same(ours: Draft, theirs: go.Figure) -> None:
    """Plotly takes the Draft's dict as is, to the same figure; and the dict's own JSON (what
    Dash sends: numpy arrays as lists, not base64) carries the same values."""
    d = ours.to_dict()
    assert plain(go.Figure(d).to_json()) == plain(theirs.to_json())
    assert plain(to_json_plotly(d)) == lists(plain(theirs.to_json()))


def one_plot(fig, scatter, bar) -> None:
    """Every Draft method on a single plot, as charts.py calls them and a few more."""
    fig.update_layout(title_text="t", title_font_size=14, paper_bgcolor="#111", meta={"a": 1})
    fig.update_layout(meta={"b": 2}, legend={"x": 0.1}, margin={"l": 5})
    fig.update_layout(legend_font_size=10, margin={"r": 3})
    fig.update_layout({"legend": {"title_text": "L", "font_color": "red"}}, legend_x=0.2)
    fig.add_trace(scatter(x=np.arange(3.0), y=[1, 2, 3], line_width=2, marker={"size": 4}))
    fig.add_trace(bar(x=[1, 2], y=["a", "b"], orientation="h", error_x_color="red"))
    fig.add_trace({"type": "scatter", "y": [1], "marker": {"line_width": 1}, "meta": {"a_b": 1}})
    fig.add_vrect(x0=0.5, x1=1.5, fillcolor="#999", opacity=0.1, line_width=0, layer="below")
    fig.add_vline(x=1.0, line={"color": "red", "width": 1.5, "dash": "dot"})
    fig.add_vline(x=2.0, line={"color": "#F0E442"}, annotation={"text": "now", "font_size": 10})
    fig.add_hline(y=50.0, line={"color": "#999", "width": 1, "dash": "dot"})
    fig.add_shape(type="rect", xref="paper", x0=0, x1=1, yref="y", y0=1, y1=2, line_width=0)
    fig.add_annotation(text="x", xref="x domain", x=0.99, y=1.0, showarrow=False, font_size=9)
    fig.update_xaxes(title_text="time", minor={"tickvals": [1, 2], "showgrid": True})
    fig.update_xaxes(minor={"showgrid": False}, range=[0, 3], tickangle=0)
    fig.update_yaxes(title_text="y", type="log", tickvals=[1, 10], title_standoff=4)


def test_a_draft_is_a_go_figure_on_one_plot():
    ours, theirs = Draft(), go.Figure()
    one_plot(ours, fd.scatter, fd.bar)
    one_plot(theirs, go.Scatter, go.Bar)
    same(ours, theirs)


def grid(fig, scatter, rows_with_traces) -> None:
    """Subplot placement: traces, lines on every non-empty subplot or one, annotations."""
    for r in rows_with_traces:
        fig.add_trace(scatter(x=[1, 10], y=[r, r + 1], name=f"r{r}"), row=r, col=1)
    fig.update_layout(legend={"x": 0.01})
    fig.add_vline(x=20, line={"color": "white", "width": 1, "dash": "dot"})
    fig.add_hline(y=1.0, line={"color": "#999", "width": 1}, row=2, col=1)
    fig.add_vline(x=30, annotation={"text": "all"})
    fig.add_hline(y=3.0, row=1, col=1)
    fig.add_vrect(x0=1, x1=2, row=2, col=1, fillcolor="red", line_width=0)
    fig.add_annotation(text="a", xref="x2 domain", yref="y2", x=0.01, y=0.5, showarrow=False)
    fig.add_annotation(text="b", xref="x domain", yref="y domain", x=0.5, y=0.5, row=2, col=1)
    fig.add_annotation(text="c", x=5, y=2, row=1, col=1)
    fig.add_shape(type="line", x0=1, x1=2, y0=0, y1=1, yref="y domain", row=2, col=1)
    fig.add_shape(type="line", x0=1, x1=2, y0=0, y1=1, row="all", col="all")
    fig.update_xaxes(type="log", tickvals=[1, 10], ticktext=["1", "10"])
    fig.update_xaxes(title_text="x (log)", row=2, col=1)
    fig.update_yaxes(title_text="top", tickformat="~s", row=1, col=1)
    fig.update_yaxes(type="log", range=[0, 1], row=2, col=1)


@pytest.mark.parametrize("rows_with_traces", [(1, 2), (1,), (2,), ()])
def test_a_draft_on_subplots_is_a_go_figure_on_subplots(rows_with_traces):
    args = {"rows": 2, "cols": 1, "shared_xaxes": True, "row_heights": [0.64, 0.36]}
    args["vertical_spacing"] = 0.06
    ours, theirs = fd.make_subplots(**args), make_subplots(**args)
    grid(ours, fd.scatter, rows_with_traces)
    grid(theirs, go.Scatter, rows_with_traces)
    same(ours, theirs)


@pytest.mark.parametrize(
    "args",
    [
        {"rows": 2, "cols": 1, "shared_xaxes": True, "row_heights": [0.64, 0.36]},
        {"rows": 3, "cols": 2, "shared_xaxes": True, "vertical_spacing": 0.05},
        {"rows": 2, "cols": 3},
        {"rows": 4, "cols": 1},
        {},
    ],
)
def test_make_subplots_gives_plotlys_axes(args):
    ours, theirs = fd.make_subplots(**args), make_subplots(**args)
    same(ours, theirs)
    theirs.update_xaxes(title_text="x", row=args.get("rows", 1), col=1)
    ours.update_xaxes(title_text="x", row=args.get("rows", 1), col=1)
    theirs.update_yaxes(dtick=1, col=1)
    ours.update_yaxes(dtick=1, col=1)
    same(ours, theirs)


def test_make_subplots_refuses_what_it_does_not_do():
    with pytest.raises(ValueError):
        fd.make_subplots(rows=2, shared_xaxes="all")
    with pytest.raises(ValueError):
        Draft().add_vline(x=1, annotation_text="not here")
    with pytest.raises(TypeError):
        fd.make_subplots(rows=2, column_widths=[1, 2])
    with pytest.raises(ValueError):
        fd.make_subplots(rows=2, row_heights=[1.0])
    with pytest.raises(ValueError):
        Draft().update_xaxes(title_text="x", row=1, col=1)
    with pytest.raises(ValueError):
        fd.make_subplots(rows=2).add_trace(fd.scatter(), row=1)
    with pytest.raises(IndexError):
        fd.make_subplots(rows=2).add_trace(fd.scatter(), row=3, col=1)


def test_updates_merge_compound_arrays_element_by_element_as_plotly_does():
    def draw(fig):
        fig.add_annotation(text="a", x=1, y=1)
        fig.add_annotation(text="b", x=2, y=2)
        fig.update_layout(annotations=[{"font": {"size": 9}}])
        fig.update_layout(annotations=[{}, {"font_color": "red"}])
        fig.update_layout(annotations=[])
        fig.update_layout(shapes=[{"type": "line", "x0": 0, "x1": 1, "y0": 0, "y1": 1}])

    ours, theirs = Draft(), go.Figure()
    draw(ours)
    draw(theirs)
    same(ours, theirs)


def test_magic_underscores_split_only_where_plotly_does():
    assert fd.expand({"title_text": "t", "title_font_size": 9}) == {
        "title": {"text": "t", "font": {"size": 9}}
    }
    assert fd.expand({"error_x_color": "red", "error_y": {"visible": True}}) == {
        "error_x": {"color": "red"},
        "error_y": {"visible": True},
    }
    assert fd.expand({"paper_bgcolor": "#000", "line_width": 0, "line": {"color": "r"}}) == {
        "paper_bgcolor": "#000",
        "line": {"width": 0, "color": "r"},
    }
    assert fd.scatter(x=[1], marker_line_width=2) == {
        "type": "scatter",
        "x": [1],
        "marker": {"line": {"width": 2}},
    }


def test_a_draft_never_changes_the_dicts_it_is_given():
    shared = {"legend": {"x": 0, "font": {"size": 10}}, "xaxis": {"title": {"text": "a"}}}
    before = json.dumps(shared, sort_keys=True)
    d = Draft(shared)
    d.update_layout(legend={"font": {"size": 12}}, legend_x=0.5)
    d.update_xaxes(title_text="b")
    line = {"color": "red"}
    d.add_vline(x=1, line=line, line_width=2)
    ann = {"text": "now"}
    d.add_vline(x=2, annotation=ann)
    assert json.dumps(shared, sort_keys=True) == before
    assert line == {"color": "red"} and ann == {"text": "now"}
    assert d.layout["legend"] == {"x": 0.5, "font": {"size": 12}}
    assert d.layout["xaxis"]["title"]["text"] == "b"
    assert d.layout["shapes"][0]["line"] == {"color": "red", "width": 2}


def test_to_dict_is_a_plain_figure_dict():
    d = Draft({"title": {"text": "t"}}).add_trace(fd.heatmap(z=np.eye(2))).to_dict()
    assert set(d) == {"data", "layout"} and isinstance(d["data"][0], dict)
    assert d["data"][0]["type"] == "heatmap"
    assert go.Figure(d).data[0].z.shape == (2, 2)
