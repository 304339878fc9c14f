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


def test_every_trunk_is_a_cell_of_the_trunk_map_in_its_state():
    """Issue 16: a trunk bundle is found, hovered and clicked like a cable: one cell a
    bundle (a row a rack, a column a plane's L1 chip to one L2 chip), its state from the
    domain's assessment, and a click on the cell names that trunk and nothing else."""
    from dashboard.figures.l2 import TRUNK_STATES, l2_click_to_id
    from model.multirack.domains import DOMAINS, parse_part

    s = scenario(
        "fabric=vr-nvl576&fail=r02.st3.sw1-l2.s1,l2.p05.s2,r03.st1&flaky=r04.st2.sw0-l2.s3"
    )
    t = charts.l2_figure(s)["data"][2]
    d = DOMAINS["vr-nvl576"]
    assert len(t["y"]) == d.racks and len(t["x"]) == d.planes * d.l2_per_plane
    state = {
        f"{r}.{c}": TRUNK_STATES[v][0]
        for r, row in zip(t["y"], t["z"], strict=True)
        for c, v in zip(t["x"], row, strict=True)
    }
    assert len(state) == d.racks * d.planes * d.l2_per_plane
    assert all(parse_part(cid, d).trunk is not None for cid in state)  # every cell a trunk ID
    assert state["r02.st3.sw1-l2.s1"] == "failed" and state["r04.st2.sw0-l2.s3"] == "flaky"
    assert state["r01.st2.sw1-l2.s2"] == "idle"  # plane 5's L2 chip s2 is down
    assert state["r03.st1.sw2-l2.s0"] == "idle"  # r03's st1 lost: its trunks idle
    assert sum(v == "up" for v in state.values()) == len(state) - 1 - 1 - 8 - 16
    click = {"points": [{"curveNumber": 2, "x": "st3.sw1-l2.s1", "y": "r02"}]}
    assert l2_click_to_id("vr-nvl576", click) == "r02.st3.sw1-l2.s1"
    for bad in (
        {"points": [{"curveNumber": 2, "x": "st9.sw9-l2.s1", "y": "r02"}]},
        {"points": [{"curveNumber": 2, "x": 3, "y": "r02"}]},
    ):
        assert l2_click_to_id("vr-nvl576", bad) is None
