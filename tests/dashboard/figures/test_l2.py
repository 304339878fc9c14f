"""l2_figure: a domain's L2 tier, failed chips marked."""

from __future__ import annotations

from dashboard import figures as charts
from dashboard.figures import base
from tests.dashboard.figures.helpers import (
    check_common,
    scenario,
)


def test_l2_figure_marks_failed_chips():
    fig = check_common(charts.l2_figure(scenario("fabric=vr-nvl576&fail=l2.p03.s1")))
    pts = fig.data[0]
    i = list(pts.customdata).index("l2.p03.s1")
    assert pts.marker.symbol[i] == "x" and pts.marker.color[i] == base.COLORS["failed"]
    assert list(pts.marker.symbol).count("x") == 1
