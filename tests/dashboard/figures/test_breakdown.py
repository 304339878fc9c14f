"""breakdown_figure: one stacked bar a step (healthy, this scenario), a segment a named part."""

import pytest

from dashboard import figures as charts
from model.workloads.decode import BREAKDOWN_KEYS
from model.workloads.throughput import decode_curves
from tests.dashboard.figures.helpers import as_go, check_common, scenario


@pytest.mark.parametrize("q", ["fail=st3", "fabric=gb200-nvl72", "fail=st1,st2,st3,st4"])
def test_the_bars_are_the_models_parts_and_sum_to_its_step(q):
    d = decode_curves(scenario(q))
    raw = charts.breakdown_figure(d)
    check_common(raw)
    fig = as_go(raw)
    assert len(fig.data) == len(BREAKDOWN_KEYS)
    for row, key in enumerate(("healthy_breakdown", "breakdown")):
        bd = d[key]
        total = sum(t.x[row] for t in fig.data) * 1000  # ms back to us
        assert total == pytest.approx(bd["step_us"], rel=1e-3)
        # each bar names its deployment (on two lines)
        assert bd["deployment"]["label"] == fig.data[0].y[row].split("<br>", 1)[1].replace(
            "<br>", ", "
        )
    sub = fig.layout.title.subtitle.text
    assert f"{100 * d['breakdown']['exposed_share']:.1f}% of this one" in sub


def test_no_step_when_the_job_is_down():
    d = decode_curves(scenario("fail=gpu05&off=partial-rack"))
    raw = charts.breakdown_figure(d)
    assert charts.is_empty(raw) and "down" in as_go(raw).layout.meta["message"]
