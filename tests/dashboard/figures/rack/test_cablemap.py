"""The cable map: a cell a cable, in the drawing's cable order, valid for plotly, in the
drawing's status colours."""

import plotly.graph_objects as go
import pytest

from dashboard.figures import rack as rf
from dashboard.figures.rack import cablemap
from dashboard.figures.rack.geometry import CABLE_LEVEL_COLORS, CABLE_LEVELS, LOSS_BANDS
from model.fabric.presets import FABRICS
from model.ids import gpu_id
from model.query import parse_query


@pytest.mark.parametrize("key", list(FABRICS))
def test_a_cell_is_the_drawing_s_cable_of_the_same_index(key):
    f = FABRICS[key]
    cols = cablemap.columns(f)
    cables = rf.point_ids(key)[rf.TRACES["cable_hits"]]
    assert len(cols) * f.gpus == len(cables) == f.cables
    for k in (0, 1, len(cols) - 1, len(cols), 7 * len(cols) + 5, len(cables) - 1):
        assert cables[k] == f"{gpu_id(k // len(cols))}-{cols[k % len(cols)]}"
    fig = cablemap.cable_map_figure(key)
    go.Figure(fig)  # plotly accepts every property
    t = fig["data"][0]
    assert (len(t["y"]), len(t["x"])) == (f.gpus, len(cols))
    assert fig["layout"]["meta"] == {
        "hits": rf.TRACES["cable_hits"],
        "cols": len(cols),
        "chart": "cable-map",
    }


def test_the_colours_are_the_levels_in_order():
    """z = a level's index in CABLE_LEVELS falls in a step of that level's colour."""
    scale = cablemap.cable_map_figure("vr-nvl72")["data"][0]["colorscale"]
    steps = list(zip(scale[::2], scale[1::2], strict=True))
    n = len(CABLE_LEVELS)
    for i, want in enumerate(CABLE_LEVEL_COLORS):
        (colour,) = {a[1] for a, b in steps if a[0] <= i / (n - 1) <= b[0]}
        assert colour == want


def _levels(q: str) -> list[str]:
    return [CABLE_LEVELS[int(c)] for c in rf.label_data(parse_query(q).scenario)["codes"]]


def test_a_cell_s_level_is_its_status_and_a_rerouted_one_its_gpu_s_loss():
    q = "fail=st3.sw1,gpu07-st5.sw2.c0&flaky=gpu20-st5.sw1"
    s = parse_query(q).scenario
    levels = _levels(q)
    by_status = rf.cable_statuses(s)
    for name in ("healthy", "idle", "drained", "flaky", "failed"):
        assert {i for i, x in enumerate(levels) if x == name} == set(by_status[name].tolist())
    rerouted = {i for i, x in enumerate(levels) if x.startswith("rerouted")}
    assert rerouted == set(by_status["rerouted"].tolist())


def test_severity_one_chip_is_slight_a_tray_heavier_four_trays_severe():
    """One chip lost is 1/36 of every GPU's bandwidth, a tray 1/9, four trays 4/9."""
    assert set(_levels("fail=st3.sw1")) == {"rerouted under 10%", "failed"}
    assert set(_levels("fail=st3")) == {"rerouted 10 to 33%", "failed"}
    assert set(_levels("fail=st3,st4,st5,st6")) == {"rerouted over a third", "failed"}
    gpus = rf.TRACES["gpus"]
    colours = {
        q: set(rf.overlay_data(parse_query(q).scenario)[gpus]["marker.color"])
        for q in ("fail=st3.sw1", "fail=st3", "fail=st3,st4,st5,st6")
    }
    assert [colours[q] for q in colours] == [{b[2]} for b in LOSS_BANDS]
    words = rf.label_data(parse_query("fail=st3.sw1").scenario)["parts"][str(gpus)]["words"]
    assert words == ["<b>rerouted (lost 2.8% of its bandwidth)</b> · click to fail"]
