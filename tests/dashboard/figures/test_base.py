"""The shared look and the empty figure; every builder returns a plain dict plotly takes as is.

The chart figure builders on real model outputs: SVG traces only, unit-bearing axis titles,
data equal to the model's, 'no data' states as empty figures, and small JSON.

The builders return plain dicts (dashboard/figures/base.py); as_go wraps each in go.Figure, so
plotly validates every property of every figure a test builds, and checks that the dict as
sent is what plotly makes of it (no property plotly would rename, expand or coerce)."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest
from plotly.io.json import to_json_plotly

from dashboard import figures as charts
from dashboard.figures import base
from dashboard.infra import results
from model import telemetry as tm
from model.reliability.timeline import timeline
from model.workloads.throughput import decode_curves
from tests.dashboard.figures.helpers import (
    as_go,
    check_common,
    healthy_of,
    lat,
    rows,
    scenario,
)


def test_empty_figure_shares_the_template_and_shows_the_message():
    raw = charts.empty_figure("nothing to show here", "A title")
    fig = as_go(raw)
    assert charts.is_empty(raw) and not fig.data
    assert fig.layout.template.layout.plot_bgcolor == base.BG
    assert fig.layout.annotations[0].text == "nothing to show here"
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert not charts.is_empty(charts.decode_figure(decode_curves(scenario("fail=st3"))))


def realistic() -> dict:
    """Each builder on the inputs dashboard/panels/callbacks.py gives it for '?fail=st3'."""
    s = scenario("fail=st3")
    rows_ = rows()
    dists = [lat("fail=st3"), healthy_of("fail=st3"), lat("fabric=eth-x72")]
    tl = timeline(s)
    snap = tm.counters(s, 10800.0)
    ser = tm.link_series(s, "gpu07-st3.sw2", 0.0, 10800.0, 60.0)
    return {
        "decode": lambda: charts.decode_figure(decode_curves(s)),
        "goodput": lambda: charts.goodput_figure(rows_, charts.comparison_label(rows_, s)),
        "latency": lambda: charts.latency_figure(*dists),
        "counters_heatmap": lambda: charts.counters_heatmap_figure(snap, tm.REPLAY),
        "link_series": lambda: charts.link_series_figure(ser, tm.REPLAY),
        "timeline": lambda: charts.timeline_figure(tl, now_s=7200.0),
        "l2": lambda: charts.l2_figure(scenario("fabric=vr-nvl576&fail=l2.p03.s1")),
    }


@pytest.mark.parametrize("name", list(realistic()))
def test_every_builder_returns_a_plain_dict_plotly_validates_and_takes_as_is(name):
    raw = realistic()[name]()
    fig = check_common(raw)  # as_go: plain, valid, unchanged by plotly
    assert fig.layout.meta["chart"] == name.removeprefix("counters_")
    assert not charts.is_empty(raw)
    # What results.figure caches and hands out: plotly's JSON of the dict (numpy included).
    assert results.figure(name, [name], lambda: raw) == json.loads(to_json_plotly(raw))


def test_the_template_is_plain_plotlys_viridis_and_not_shared_between_figures():
    assert base.viridis() == [list(p) for p in go.Heatmap(colorscale="Viridis").colorscale]
    t = as_go(charts.empty_figure("a")).layout.template
    assert [list(p) for p in t.layout.colorscale.sequential] == base.viridis()
    a = charts.empty_figure("a")
    a["layout"]["template"]["layout"]["font"]["size"] = 99
    assert charts.empty_figure("b")["layout"]["template"]["layout"]["font"]["size"] == 12
    assert base.template()["layout"]["font"]["size"] == 12
