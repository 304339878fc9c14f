"""latency_figure: the distribution the model computes, p50 and p99 marked."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures as charts
from model.fabric.metrics import latency, latency_distribution
from model.fabric.state import build_state
from tests.dashboard.figures.helpers import (
    SCENARIOS,
    as_go,
    check_common,
    healthy_of,
    lat,
    scenario,
)


@pytest.mark.parametrize("q", SCENARIOS + ["fail=st3,st4,st5"])
def test_latency_distribution_is_latencys_own_mixture(q):
    st = build_state(scenario(q))
    d, ref = latency_distribution(st), latency(st)
    assert (d["p50"], d["p99"]) == (ref["p50"], ref["p99"])
    cdf = np.asarray(d["cdf"])
    assert np.all(np.diff(cdf) >= 0) and cdf[-1] == pytest.approx(0.9999, abs=1e-6)
    assert cdf[0] == pytest.approx(d["no_wait_share"], abs=1e-6)
    assert d["latency_us"][0] == pytest.approx(ref["unloaded_us"])


@pytest.mark.parametrize("q", SCENARIOS)
def test_latency_figure_draws_the_distribution_with_p50_and_p99(q):
    cur, healthy = lat(q), healthy_of(q)
    fig = check_common(charts.latency_figure(cur, healthy))
    assert fig.layout.yaxis.type == "log"
    line = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "lines")
    assert list(line.x[2:]) == cur["latency_us"]
    assert np.asarray(line.y[2:]) == pytest.approx(100 * (1 - np.asarray(cur["cdf"])))
    marks = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "markers")
    assert list(marks.x) == [cur["p50"], cur["p99"]] and list(marks.y) == [50.0, 1.0]
    assert any(t.legendgroup == "healthy" for t in fig.data)


def test_latency_figure_with_no_traffic_is_empty():
    d = lat("update=st2&off=issu")  # a maintenance window: nothing flows
    assert d["latency_us"] == [] and d["p50"] is None
    raw = charts.latency_figure(d, healthy_of(""))
    assert charts.is_empty(raw) and not as_go(raw).data


@pytest.mark.parametrize(
    "q,share",
    [
        ("fabric=gb200-nvl72&fail=st2,st3,st4,st5,st6,st7,st8,st9&on=reroute", 1.0),
        ("fail=" + ",".join(f"gpu07-st{t}.sw{c}" for t in range(1, 6) for c in range(4)), None),
    ],
)
def test_an_unstable_queue_is_drawn_as_one(q, share):
    """Ports offered more than their links carry: the legend says unbounded, no marker sits
    at an unbounded quantile, and the subtitle names the share of pairs (issue 12 item 7)."""
    cur = lat(q)
    assert cur["p99"] is None and cur["unstable_share"] > 0
    if share is not None:
        assert cur["unstable_share"] == share
    fig = check_common(charts.latency_figure(cur, healthy_of(q)))
    line = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "lines")
    assert "p99 unbounded" in line.name
    marks = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "markers")
    assert None not in list(marks.x) and len(marks.x) == (cur["p50"] is not None)
    assert "queue unstable" in fig.layout.title.subtitle.text
