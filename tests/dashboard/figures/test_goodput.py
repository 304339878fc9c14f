"""goodput_figure: badput by cause, the configuration on screen marked."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures as charts
from dashboard.figures import goodput as goodput_fig
from tests.dashboard.figures.helpers import (
    as_go,
    check_common,
    rows,
    scenario,
)


@pytest.mark.parametrize(
    "q, label",
    [
        ("", "vr-nvl72, all seven features"),
        ("fail=st3", "vr-nvl72, all seven features"),
        ("fail=st3&off=reroute", "vr-nvl72, reroute off"),
        ("fabric=gb200-nvl72", "gb200-nvl72, defaults"),
        ("fabric=eth-x72&workload=train", "eth-x72, defaults"),
        ("off=reroute,telemetry", None),
    ],
)
def test_goodput_figure_stacks_badput_by_cause_and_marks_the_current_configuration(q, label):
    r = rows()
    current = charts.comparison_label(r, scenario(q))
    assert current == label
    fig = check_common(charts.goodput_figure(r, current))
    bars = [t for t in fig.data if t.type == "bar"]
    assert fig.layout.barmode == "stack" and all(b.orientation == "h" for b in bars)
    # Each cause in its fixed colour; the legend names it.
    for b in bars:
        cause = next(c for c, (short, _) in goodput_fig.CAUSE_NAMES.items() if short == b.name)
        assert b.marker.color == goodput_fig.CAUSE_COLORS[cause]
    # The stack adds up to each row's badput; rows run from most badput (bottom) to least.
    by_label = {goodput_fig.short_label(x["label"]): x for x in r}
    total = np.sum([np.asarray(b.x) for b in bars], axis=0)
    want = [sum(by_label[y]["badput_hours_per_rack_year"].values()) for y in bars[0].y]
    assert total == pytest.approx(want)
    assert list(total) == sorted(total, reverse=True)
    assert len(bars[0].y) == len(r)
    marked = [t for t in fig.layout.yaxis.ticktext if t.startswith("<b>▶")]
    assert len(marked) == (label is not None)
    assert len(fig.layout.shapes) == (label is not None)


def test_goodput_figure_without_rows_is_empty():
    raw = charts.goodput_figure([], None)
    assert charts.is_empty(raw) and not as_go(raw).data


def test_policy_figure_plots_goodput_against_rack_down_visits_and_rings_the_best():
    from model.reliability.goodput import best_policy

    best = best_policy(scenario(""))
    fig = check_common(goodput_fig.policy_figure(best))
    names = {t.name for t in fig.data}
    assert {"repair at once", "planned window every N days", "best"} <= names
    n = sum(len(t.x) for t in fig.data if t.name != "best")
    assert n == len(best["tried"])
    ring = next(t for t in fig.data if t.name == "best")
    top = next(t for t in best["tried"] if t["policy"] == best["best"])
    assert ring.x[0] == top["rack_down_visits_per_year"]
    assert ring.y[0] == pytest.approx(top["fraction"] * 100)
    empty = goodput_fig.policy_figure({"tried": []})
    assert not empty["data"] and "No repair policy" in str(empty["layout"])
