"""heatmap_figure and counters_heatmap_figure: GPUs by planes, inactive links apart."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures as charts
from dashboard.figures import base
from model import telemetry as tm
from model.ids import link_id
from tests.dashboard.figures.helpers import (
    SCENARIOS,
    as_go,
    check_common,
    scenario,
)


@pytest.mark.parametrize("q", SCENARIOS)
@pytest.mark.parametrize("name", ["state", tm.REPLAY, tm.BER, tm.BANDWIDTH])
def test_heatmap_is_gpus_by_planes_with_inactive_links_apart(q, name):
    s = scenario(q)
    c = tm.counters(s, 3600.0)
    raw = charts.counters_heatmap_figure(c, name)
    # every fabric has its counters, whatever the features (gb200-nvl72 ships with the
    # telemetry feature off: the counters are drawn all the same, issue 29)
    assert c.link is not None
    fig = check_common(raw)
    f = c.fabric
    main = fig.data[0]
    assert main.type == "heatmap"
    assert np.asarray(main.z).shape == (72, f.planes)
    # Hover names the link: the row label, '-', the column label is the model's link ID.
    assert main.hovertemplate.startswith("%{y}-%{x}")
    assert f"{main.y[7]}-{main.x[9]}" == link_id(f, 7, 9)
    down = c.state == tm.INACTIVE
    overlay = [t for t in fig.data if t.type == "heatmap" and t.name == "INACTIVE"]
    assert len(overlay) == int(down.any())
    if down.any():
        assert np.array_equal(~np.isnan(np.asarray(overlay[0].z)), down)
    z = np.asarray(main.z, dtype=float)
    assert np.isnan(z[down]).all() and not np.isnan(z[~down]).any()
    if name != "state":
        raw = c.heatmap(name)[~down]
        shown = np.asarray(main.customdata if main.customdata is not None else main.z)[~down]
        assert shown == pytest.approx(raw, rel=1e-6)


def test_heatmap_uses_a_log_colour_scale_across_decades_and_says_so():
    c = tm.counters(scenario("fail=st3&flaky=gpu07-st2.sw1"), 3600.0)
    ber = as_go(charts.counters_heatmap_figure(c, tm.BER))
    assert "log colour" in ber.layout.title.subtitle.text
    ticks = ber.data[0].colorbar.tickvals
    assert (
        all(float(k).is_integer() for k in ticks) and "10<sup>" in ber.data[0].colorbar.ticktext[0]
    )
    rep = as_go(charts.counters_heatmap_figure(c, tm.REPLAY))
    assert "log10(1 + n)" in rep.layout.title.subtitle.text
    z = np.asarray(rep.data[0].z, dtype=float)
    assert z[7, 5] == pytest.approx(np.log10(1 + c.heatmap(tm.REPLAY)[7, 5]), rel=1e-6)
    # The stale tray's columns are marked above the map.
    assert sum(s.type == "rect" for s in rep.layout.shapes) == int(c.stale.sum())


def test_heatmap_figure_takes_nan_as_inactive_and_checks_its_labels():
    m = np.ones((4, 2))
    m[1, 1] = np.nan
    planes, trays = ["st1.sw0", "st1.sw1"], ["st1", "st1"]
    fig = as_go(
        charts.heatmap_figure(m, "x", "GB/s", ["g0", "g1", "g2", "g3"], planes, plane_trays=trays)
    )
    assert np.isnan(np.asarray(fig.data[1].z, dtype=float)).sum() == 7
    with pytest.raises(ValueError):
        charts.heatmap_figure(m, "x", "GB/s", ["g0"], planes, plane_trays=trays)
    with pytest.raises(ValueError):  # a tray for every plane
        charts.heatmap_figure(m, "x", "GB/s", ["g0", "g1", "g2", "g3"], planes, plane_trays=["st1"])


def test_heatmap_shows_links_drained_for_an_update_apart_from_failed_ones():
    c = tm.counters(scenario("update=st2&fail=gpu09"), 3600.0)
    fig = check_common(charts.counters_heatmap_figure(c, tm.BANDWIDTH_GBS))
    drained = next(t for t in fig.data if t.name == "INACTIVE, drained")
    failed = next(t for t in fig.data if t.name == "INACTIVE")
    dz = ~np.isnan(np.asarray(drained.z, dtype=float))
    fz = ~np.isnan(np.asarray(failed.z, dtype=float))
    assert np.array_equal(dz | fz, c.state == tm.INACTIVE) and not (dz & fz).any()
    assert dz[:, c.planned].all() and not dz[:, ~c.planned].any()


def test_heatmap_marks_stale_and_drained_planes_above_their_columns_as_before():
    m = np.arange(1.0, 17.0).reshape(4, 4)
    down = np.zeros((4, 4), bool)
    down[0, 0] = down[1, 1] = True  # plane 0 drained on purpose; (1, 1) failed
    planes = ["st1.sw0", "st1.sw1", "st2.sw0", "st2.sw1"]
    raw = charts.heatmap_figure(
        m,
        "x",
        "GB/s",
        ["g0", "g1", "g2", "g3"],
        planes,
        plane_trays=["st1", "st1", "st2", "st2"],
        inactive=down,
        stale_planes=np.array([False, False, True, True]),
        drained_planes=np.array([True, False, False, False]),
    )
    fig = check_common(raw)
    assert [t.name for t in fig.data] == [
        "x",
        "INACTIVE",
        "INACTIVE, drained",
        "INACTIVE: 1 links",
        "stale: controller down",
        "drained for an update: 1 links",
    ]
    assert [list(p) for p in fig.data[0].colorscale] == base.viridis()
    assert np.flatnonzero(~np.isnan(np.asarray(fig.data[1].z, float))).tolist() == [5]
    assert np.flatnonzero(~np.isnan(np.asarray(fig.data[2].z, float))).tolist() == [0]

    def mark(i: int, color: str) -> dict:
        return {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": i - 0.5,
            "x1": i + 0.5,
            "y0": 1.0,
            "y1": 1.025,
            "fillcolor": color,
            "line": {"width": 0},
        }

    assert fig.to_plotly_json()["layout"]["shapes"] == [
        {"type": "line", "xref": "x", "yref": "paper", "x0": 1.5, "x1": 1.5, "y0": 0, "y1": 1}
        | {"line": {"color": base.BG, "width": 2}},
        mark(2, base.COLORS["neutral"]),
        mark(3, base.COLORS["neutral"]),
        mark(0, "#0072B2"),
    ]
    assert list(fig.layout.xaxis.tickvals) == [0.5, 2.5]
    assert list(fig.layout.xaxis.ticktext) == ["st1", "st2"]
