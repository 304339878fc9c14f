"""The /fleet page's figures (issue 30): the grid of racks by state and the lines over time."""

from __future__ import annotations

import pytest

from dashboard.figures.history import (
    STATE_COLORS,
    cursor,
    difference_figure,
    grid_figure,
    grid_shape,
    grid_z,
    lines_figure,
    picked,
    states_at,
)
from model.query import parse_query
from model.reliability.against import against
from model.reliability.history import STATES, history
from tests.dashboard.figures.helpers import as_go, assert_plain

VR = parse_query("").scenario


@pytest.mark.parametrize("n", [1, 2, 16, 300, 2000])
def test_the_grid_holds_every_rack_about_twice_as_wide_as_tall(n):
    rows, cols = grid_shape(n)
    assert rows * cols >= n > (rows - 1) * cols
    assert n < 8 or 1.0 <= cols / rows <= 3.0


def test_a_later_interval_paints_over_an_earlier_and_a_rack_runs_outside_them():
    st = {
        "rack": [0, 0, 2],
        "from_h": [1.0, 2.0, 5.0],
        "to_h": [10.0, 3.0, 6.0],
        "state": [1, 4, 3],
    }
    assert states_at(st, 4, 0.5) == [0, 0, 0, 0]
    assert states_at(st, 4, 2.5) == [4, 0, 0, 0]  # the later interval (down) over degraded
    assert states_at(st, 4, 3.0) == [1, 0, 0, 0]  # an interval ends at its to_h
    assert states_at(st, 4, 5.5) == [1, 0, 3, 0]


def test_grid_z_pads_the_last_row_with_no_rack():
    assert grid_z([1, 2, 3, 4, 5], 3) == [[1, 2, 3], [4, 5, None]]


def test_the_grid_is_one_heatmap_a_history_with_a_colour_a_state():
    h = history(VR, racks=300, days=60, seed=2, spares=True)
    s = states_at(h["rack_states"], 300, 24.0 * 30)
    one = grid_figure(300, [(s, "")], "sub")
    two = grid_figure(300, [(s, "this scenario"), (s, "against")], "sub")
    for fig in (one, two):
        assert_plain(fig)
        as_go(fig)  # plotly validates every property
    assert [t["type"] for t in two["data"]] == ["heatmap", "heatmap"]
    assert [t["xaxis"] for t in two["data"]] == ["x", "x2"]
    scale = one["data"][0]["colorscale"]
    assert [c for _, c in scale[::2]] == [STATE_COLORS[k] for k in STATES]
    flat = [v for row in one["data"][0]["z"] for v in row if v is not None]
    assert flat == s
    assert one["data"][0]["customdata"][1][0] == grid_shape(300)[1]  # rack numbers, row by row


def test_the_lines_and_the_difference_carry_the_models_series_and_a_cursor():
    o = against(VR, parse_query("off=reroute").scenario, racks=50, days=90, seed=4)
    h, b = o["history"], o["against"]
    t_h = 24.0 * 45
    fig = lines_figure(h, b, ("a", "b"), t_h)
    as_go(fig)
    assert len(fig["data"]) == 8  # four lines a history
    assert fig["data"][1]["y"][-1] == pytest.approx(100 * h["fraction"])
    assert fig["data"][5]["y"][-1] == pytest.approx(100 * b["fraction"])
    assert fig["data"][0]["y"] == [100 * r for r in h["series"]["running"]]
    assert fig["layout"]["shapes"][0]["x0"] == cursor(t_h)["x0"] == 45.0
    diff = difference_figure(o["difference"], ("a", "b"), t_h)
    as_go(diff)
    assert diff["data"][0]["y"][-1] == pytest.approx(100 * (b["fraction"] - h["fraction"]))
    assert diff["data"][1]["y"] == o["difference"]["restarts"]


def test_the_picked_rack_is_outlined_on_its_historys_grid():
    fig = grid_figure(300, [([0] * 300, "a"), ([0] * 300, "b")], "sub")
    fig["layout"]["shapes"] = [picked(3, 2, 1)]
    as_go(fig)
    s = fig["layout"]["shapes"][0]
    assert (s["xref"], s["yref"], s["x0"], s["x1"], s["y0"], s["y1"]) == (
        "x2",
        "y2",
        2.5,
        3.5,
        1.5,
        2.5,
    )
