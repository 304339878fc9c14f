"""A click names a component from the server's own tables, never the client's customdata."""

from __future__ import annotations

import pytest

from dashboard.figures import rack as rf
from tests.dashboard.figures.rack.helpers import (
    FABRIC_KEYS,
)


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_click_round_trips_every_marker(fk):
    fig = rf.base_figure(fk)
    for name in rf.CLICKABLE:
        i = rf.TRACES[name]
        for n, custom in enumerate(fig["data"][i]["customdata"]):
            want = custom[0] if isinstance(custom, tuple | list) else custom
            click = {"points": [{"curveNumber": i, "pointNumber": n, "pointIndex": n}]}
            assert rf.click_to_id(fk, click) == want
            # With the (plain-list) customdata Dash puts in clickData, too.
            click["points"][0]["customdata"] = list(custom) if name == "cable_hits" else custom
            assert rf.click_to_id(fk, click) == want


def test_click_uses_the_server_table_not_the_client_customdata():
    click = {"points": [{"curveNumber": rf.TRACES["gpus"], "pointNumber": 3, "customdata": "st1"}]}
    assert rf.click_to_id("vr-nvl72", click) == "gpu03"
    only_custom = {"points": [{"curveNumber": rf.TRACES["gpus"], "customdata": "gpu05"}]}
    assert rf.click_to_id("vr-nvl72", only_custom) == "gpu05"
    wrong_trace = {"points": [{"curveNumber": rf.TRACES["gpus"], "customdata": "st1.sw0"}]}
    assert rf.click_to_id("vr-nvl72", wrong_trace) is None


@pytest.mark.parametrize(
    "click",
    [
        None,
        {},
        [],
        "gpu07",
        {"points": []},
        {"points": None},
        {"points": "x"},
        {"points": [None]},
        {"points": [{}]},
        {"points": [{"pointNumber": 1}]},
        {"points": [{"curveNumber": 9}]},
        {"points": [{"curveNumber": -1, "pointNumber": 0}]},
        {"points": [{"curveNumber": 9, "pointNumber": -1}]},
        {"points": [{"curveNumber": 9, "pointNumber": 72}]},
        {"points": [{"curveNumber": 9, "pointNumber": 10**12}]},
        {"points": [{"curveNumber": 7, "pointNumber": 5184}]},
        {"points": [{"curveNumber": 10**9, "pointNumber": 0}]},
        {"points": [{"curveNumber": 0, "pointNumber": 0}]},  # the lines: not clickable
        {"points": [{"curveNumber": 6, "pointNumber": 0}]},
        {"points": [{"curveNumber": "9", "pointNumber": "1"}]},
        {"points": [{"curveNumber": 9.0, "pointNumber": 1.0}]},
        {"points": [{"curveNumber": True, "pointNumber": 1}]},
        {"points": [{"curveNumber": 9, "pointNumber": [1]}]},
        {"points": [{"curveNumber": 9, "pointNumber": None, "customdata": "nope"}]},
        {"points": [{"curveNumber": 9, "customdata": ["gpu07"] * 10**3 + [None]}]},
        {"points": [{"curveNumber": 8, "customdata": {"id": "st1"}}]},
    ],
)
def test_click_rejects_garbage(click):
    assert rf.click_to_id("vr-nvl72", click) is None


def test_click_on_an_unknown_fabric():
    click = {"points": [{"curveNumber": rf.TRACES["gpus"], "pointNumber": 0}]}
    assert rf.click_to_id("nvl-9000", click) is None
