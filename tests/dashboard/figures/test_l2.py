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


def test_a_found_part_of_the_l2_tier_is_ringed():
    s = scenario("fabric=vr-nvl576")
    ring = charts.l2_figure(s, "l2.p03.s1")["data"][1]
    assert (ring["x"], ring["y"]) == ([3], [1])
    tray = charts.l2_figure(s, "l2.t02")["data"][1]  # an L2 tray: its four planes' chip s1
    assert (tray["x"], tray["y"]) == ([0, 1, 2, 3], [1, 1, 1, 1])
    trunk = charts.l2_figure(s, "r05.st2.sw1-l2.s3")["data"][1]  # its L2 end: plane 5, s3
    assert (trunk["x"], trunk["y"]) == ([5], [3])
    for other in (None, "r05.gpu07", "l2.p99.s0"):  # a rack's part, or nothing it has
        assert charts.l2_figure(s, other)["data"][1]["x"] == []
