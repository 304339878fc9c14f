"""timeline_figure and its TimeAxis: the newest fault's story, microseconds to days."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures as charts
from dashboard.figures import base
from dashboard.figures import timeline as timeline_fig
from model import parse_query
from model.reliability.timeline import timeline
from tests.dashboard.figures.helpers import (
    as_go,
    check_common,
    scenario,
    trace,
)


@pytest.mark.parametrize(
    "q",
    [
        "fail=st3",
        "fail=st3&off=reroute",
        "fabric=gb200-nvl72&fail=st3",
        "fabric=eth-x72&fail=st3",
        "fail=gpu05&off=partial-rack",
        "fail=st1.mc&off=cp-resilience",
        "fail=gpu07-st3.sw2.c0&off=reroute,telemetry",
    ],
)
def test_timeline_figure_steps_through_the_faults_story(q):
    tl = timeline(scenario(q))
    fig = check_common(charts.timeline_figure(tl))
    ser = tl["series"]
    delivered = trace(fig, "work delivered")
    assert len(delivered.x) == len(delivered.y) == len(ser)
    assert list(delivered.y) == [100 * p["delivered"] for p in ser]
    assert delivered.line.shape == "hv"
    assert np.all(np.diff(np.asarray(delivered.x)) >= 0)
    # Goodput is continuous between the model's points and equals them at the points.
    good = trace(fig, "goodput so far")
    ax = timeline_fig.TimeAxis(
        np.array([p["t_s"] for p in ser] + [e["t_s"] for e in tl["events"]]),
        lead_s=-tl["window_s"][0],
        end_s=tl["window_s"][1],
    )
    t_good = ax.inverse(np.asarray(good.x))
    for p in ser:
        i = int(np.argmin(np.abs(t_good - p["t_s"])))
        assert good.y[i] == pytest.approx(100 * p["goodput"], abs=1e-3)
    events = trace(fig, "events")
    assert len(events.x) == len({e["t_s"] for e in tl["events"]})
    text = " ".join(events.customdata)
    assert all(e["event"].split()[0] in text for e in tl["events"])
    assert fig.layout.xaxis.ticktext[1] == "0"  # the fault


def test_time_axis_is_monotone_invertible_and_puts_every_event_on_a_readable_part():
    tl = timeline(scenario("fail=st3&off=reroute"))
    et = np.array([e["t_s"] for e in tl["events"]])
    ax = timeline_fig.TimeAxis(et, lead_s=10.0, end_s=tl["window_s"][1])
    t = np.concatenate([np.linspace(-10, 0, 50), np.geomspace(1e-6, tl["window_s"][1], 400)])
    x = ax(t)
    assert np.all(np.diff(x) > 0)
    assert ax.inverse(x) == pytest.approx(t, rel=1e-9, abs=1e-12)
    assert (et[et > 0] >= ax.tau).all()
    # The repair and the restart 40 minutes later stay apart (they touch on a pure log axis).
    repair, back = sorted(set(et[et >= 86400]))[:2]
    assert ax(back) - ax(repair) > 0.5


@pytest.mark.parametrize("tl", [None, timeline(parse_query("").scenario), {"series": []}])
def test_timeline_without_a_fault_is_empty(tl):
    raw = charts.timeline_figure(tl)
    fig = as_go(raw)
    assert charts.is_empty(raw) and not fig.data
    assert "fail a part" in fig.layout.annotations[0].text


def test_timeline_figure_shades_the_lead_and_marks_fault_knee_and_now_as_plotly_does():
    tl = timeline(scenario("fail=st3"))
    lay = as_go(charts.timeline_figure(tl, now_s=7200.0)).to_plotly_json()["layout"]
    t = np.array([p["t_s"] for p in tl["series"]] + [e["t_s"] for e in tl["events"]])
    ax = timeline_fig.TimeAxis(t, lead_s=-tl["window_s"][0], end_s=tl["window_s"][1])
    now = float(ax(np.array([7200.0]))[0])
    span = {"type": "line", "y0": 0, "y1": 1, "xref": "x", "yref": "y domain"}
    assert lay["shapes"] == [
        {"type": "rect", "x0": ax.zero - timeline_fig.LEAD_WIDTH, "x1": ax.zero, "y0": 0, "y1": 1}
        | {"xref": "x", "yref": "y domain", "fillcolor": base.COLORS["neutral"]}
        | {"opacity": 0.1, "line": {"width": 0}, "layer": "below"},
        span
        | {"x0": ax.zero, "x1": ax.zero}
        | {"line": {"color": base.COLORS["failed"], "width": 1.5, "dash": "dot"}},
        span
        | {"x0": np.log10(ax.knee), "x1": np.log10(ax.knee)}
        | {"line": {"color": base.MUTED, "width": 1, "dash": "dash"}},
        span | {"x0": now, "x1": now, "line": {"color": "#F0E442", "width": 1, "dash": "dot"}},
    ]
    assert lay["annotations"] == [
        {"text": "now", "font": {"color": "#F0E442", "size": 10}, "showarrow": False}
        | {"x": now, "xanchor": "left", "xref": "x", "y": 1, "yanchor": "top", "yref": "y domain"}
    ]
