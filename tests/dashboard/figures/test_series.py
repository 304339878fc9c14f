"""link_series_figure: one link's counter over time, INACTIVE spans shaded."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures as charts
from model import telemetry as tm
from tests.dashboard.figures.helpers import (
    as_go,
    check_common,
    scenario,
    trace,
)

FLAKY = "fail=st3&flaky=gpu07-st2.sw1"


@pytest.mark.parametrize("metric", [tm.REPLAY, tm.RECOVERY, tm.BER, tm.BANDWIDTH_GBS, "state"])
def test_link_series_figure_plots_the_series_and_marks_the_failure(metric):
    ser = tm.link_series(scenario(FLAKY), "gpu07-st2.sw1", 0, 7 * 86400, 3600)
    fig = check_common(charts.link_series_figure(ser, metric))
    line = next(t for t in fig.data if t.mode == "lines")
    assert np.asarray(line.x) == pytest.approx(np.asarray(ser["t_s"]) / 86400)
    assert "days" in fig.layout.xaxis.title.text
    if metric == "state":
        assert list(line.y) == [float(s == "ACTIVE") for s in ser["state"]]
    else:
        want = np.array(ser[metric], dtype=float)
        assert np.array_equal(np.asarray(line.y), want, equal_nan=True)
    # The degrading link fails five days in: one state change, and the INACTIVE span shaded.
    change = trace(fig, "state change")
    assert len(change.x) == 1 and change.x[0] == pytest.approx(tm.FLAKY_TTF_S / 86400, abs=0.05)
    assert list(change.customdata) == ["ACTIVE → INACTIVE"]
    assert any(s.type == "rect" for s in fig.layout.shapes)
    if metric == tm.BER:
        assert fig.layout.yaxis.type == "log"


def test_link_series_with_telemetry_off_still_draws_the_counter():
    """Issue 29: the counters exist whatever the features; the series draws them."""
    ser = tm.link_series(scenario(FLAKY + "&off=telemetry"), "gpu07-st2.sw1", 0, 86400, 600)
    assert ser["telemetry_feature"] is False
    fig = check_common(charts.link_series_figure(ser, tm.REPLAY))
    assert fig.layout.yaxis.title.text != "link state"
    assert max(fig.data[0].y) > 0  # the degrading link's replays, read with the feature off
    assert "hours" in fig.layout.xaxis.title.text


def test_link_series_without_samples_is_empty():
    raw = charts.link_series_figure({"id": "gpu00-st1.sw0", "t_s": []}, "BER")
    assert charts.is_empty(raw) and not as_go(raw).data
