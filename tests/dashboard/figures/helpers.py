"""Shared by the figure tests: model inputs for each chart, and the checks every figure
passes (plain, valid for plotly, unchanged by it, SVG, units on its axes)."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from functools import cache

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from dashboard.figures import base
from model import parse_query
from model.fabric.metrics import latency_distribution
from model.fabric.state import build_state
from model.reliability.goodput import comparison


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


SCENARIOS = [
    "",
    "fail=st3",
    "fail=st3&off=reroute",
    "fabric=gb200-nvl72",
    "fabric=eth-x72",
]
SVG_TYPES = {"scatter", "bar", "heatmap"}
# Quantitative axes must name a unit; categorical ones (configuration, GPU, plane) a quantity.
UNITS = ("tokens/s", "×", "hours", "µs", "%", "GB/s", "count", "bytes", "errors/bit", "days")
UNITS += ("minutes", "time since", "link state", "configuration", "GPU", "plane", "ms per")
UNITS += ("rack",)  # a domain's racks, one a row (the trunk map)


def scenario(q: str):
    return parse_query(q).scenario


@cache
def rows() -> list[dict]:
    return comparison()


def lat(q: str) -> dict:
    return latency_distribution(build_state(scenario(q)))


def healthy_of(q: str) -> dict:
    s = scenario(q)
    return latency_distribution(build_state(replace(s, fail=(), flaky=(), update=())))


PLAIN = (dict, list, str, int, float, bool, type(None), np.ndarray, np.generic)


def assert_plain(o: object, path: str = "") -> None:
    """Nothing but dicts, lists, scalars and numpy arrays: no plotly object anywhere."""
    assert isinstance(o, PLAIN), (path, type(o))
    if isinstance(o, dict):
        for k, v in o.items():
            assert isinstance(k, str), (path, k)
            assert_plain(v, f"{path}.{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            assert_plain(v, f"{path}[{i}]")


def as_go(d: dict) -> go.Figure:
    """A builder's figure: a plain {'data', 'layout'} dict, which go.Figure validates (an
    invalid property raises) and takes as is: its own JSON, what Dash sends, is the validated
    figure's (numpy arrays as lists there, base64 in plotly's)."""
    assert isinstance(d, dict) and set(d) == {"data", "layout"}
    assert_plain(d)
    fig = go.Figure(d)
    assert json.loads(to_json_plotly(d)) == lists(json.loads(fig.to_json()))
    return fig


def check_common(d: dict) -> go.Figure:
    """SVG traces only, the shared template, every axis that shows data titled with a unit;
    the figure as a go.Figure."""
    fig = as_go(d)
    types = {t.type for t in fig.data}
    assert types <= SVG_TYPES, types
    assert not any("gl" in t for t in types)
    lay = fig.layout
    assert lay.template.layout.paper_bgcolor == base.BG
    assert lay.template.layout.font.color == base.FG
    assert lay.title.text and lay.title.subtitle.text
    used = {t.xaxis or "x" for t in fig.data} | {t.yaxis or "y" for t in fig.data}
    for ref in used:
        axis = lay[ref[0] + "axis" + ref[1:]]
        title = axis.title.text
        if title is None:  # a shared x axis is titled once, on the bottom panel
            assert axis.matches and lay[ref[0] + "axis" + axis.matches[1:]].title.text
            continue
        assert any(u in title for u in UNITS), (ref, title)
    assert len(fig.to_json()) < 90_000  # keep figures small
    assert len(to_json_plotly(d)) < 90_000  # as Dash sends the dict
    return fig


def trace(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)
