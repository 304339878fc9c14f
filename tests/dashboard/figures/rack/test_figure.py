"""The base figure of each fabric: every cable once, every part clickable, trays in rack order, WebGL only for the cable markers, built once and copied fast."""

from __future__ import annotations

import time

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.io.json import to_json_plotly

from dashboard.figures import rack as rf
from model.fabric.presets import FABRICS
from tests.dashboard.figures.rack.helpers import (
    BASE_FIGURE_BUDGET,
    FABRIC_KEYS,
    FRONT,
    SPINE,
    ids_of,
    segments,
)


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_base_has_every_cable_once_as_a_segment_and_a_hit(fk):
    fig = rf.base_figure(fk)
    cables = fig["data"][rf.TRACES["cables"]]
    segs = segments(cables["x"], cables["y"])
    assert len(segs) == FABRICS[fk].cables == 5184
    assert all(len(s) == 2 and s[0][0] == 0 and s[1][0] == 1 for s in segs)
    hits = fig["data"][rf.TRACES["cable_hits"]]
    hx, hy = rf.as_array(hits["x"]), rf.as_array(hits["y"])
    assert len(hx) == len(hy) == len(hits["customdata"]) == 5184
    ids = list(hits["customdata"])
    assert set(ids) == ids_of(fk, "cable") and len(set(ids)) == 5184
    assert isinstance(hits["customdata"], tuple | list)  # never numpy (docs/ARCHITECTURE.md)
    assert len(set(zip(hx.tolist(), hy.tolist(), strict=True))) == 5184  # none hides another


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_hit_marker_lies_on_its_cable(fk):
    fig = rf.base_figure(fk)
    cables, hits = fig["data"][rf.TRACES["cables"]], fig["data"][rf.TRACES["cable_hits"]]
    y = rf.as_array(cables["y"]).reshape(-1, 3)
    t = rf.as_array(hits["x"])
    assert ((t > 0) & (t < 1)).all()
    on_line = y[:, 0] + t * (y[:, 1] - y[:, 0])
    # x2 is rounded to 1e-4, so y may be off by 1e-4 times the cable's rise: under 0.1 unit.
    assert np.abs(on_line - rf.as_array(hits["y"])).max() < 0.1


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_every_part_has_a_clickable_marker(fk):
    fig = rf.base_figure(fk)
    f = FABRICS[fk]
    for name, kinds in (
        ("trays", ("compute-tray", "switch-tray")),
        ("gpus", ("gpu",)),
        ("chips", ("switch-chip",)),
        ("controllers", ("controller",)),
    ):
        trace = fig["data"][rf.TRACES[name]]
        want = set().union(*(ids_of(fk, k) for k in kinds))
        assert list(trace["customdata"]) == list(rf.point_ids(fk)[rf.TRACES[name]])
        assert set(trace["customdata"]) == want and len(trace["customdata"]) == len(want)
        assert len(trace["x"]) == len(trace["y"]) == len(want)
    assert len(rf.point_ids(fk)[rf.TRACES["chips"]]) == f.chips


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_trays_in_rack_order(fk):
    f = FABRICS[fk]
    fig = rf.base_figure(fk)
    trays = fig["data"][rf.TRACES["trays"]]
    want = (
        [f"ct{t:02d}" for t in range(1, 11)]
        + [f"st{t}" for t in range(1, f.switch_trays + 1)]
        + [f"ct{t:02d}" for t in range(11, f.compute_trays + 1)]
    )
    assert list(trays["customdata"]) == want
    assert list(trays["y"]) == sorted(trays["y"])  # top to bottom (y axis reversed)
    layout = fig["layout"]
    assert layout["yaxis"]["range"][0] > layout["yaxis"]["range"][1]
    power = [s for s in layout["shapes"] if s["fillcolor"] == rf.POWER_FILL]
    assert len(power) == 2
    assert max(s["y1"] for s in power[:1]) < min(trays["y"])
    assert min(s["y0"] for s in power[1:]) > max(trays["y"])


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_nothing_is_webgl(fk):
    """Every trace SVG: software GL drew the lines in ~1.3 s a frame, and the first WebGL
    context cost the first page ~1.2 s. The hit points draw nothing (mode "none"); the
    browser finds the nearest for hover and press (assets/rack_hover.js), named by the
    layout's meta."""
    fig = rf.base_figure(fk)
    for name in (*SPINE, *FRONT):
        assert fig["data"][rf.TRACES[name]]["type"] == "scatter", name
    assert fig["data"][rf.TRACES["cable_hits"]]["mode"] == "none"
    assert fig["layout"]["meta"]["hits"] == rf.TRACES["cable_hits"]
    assert len(fig["data"]) == len(rf.TRACES)
    assert sorted(rf.TRACES.values()) == list(range(len(rf.TRACES)))


def test_spine_lines_skip_hover_and_overlays_start_empty():
    fig = rf.base_figure("vr-nvl72")
    for name in ("cables", *rf.STATUSES):
        trace = fig["data"][rf.TRACES[name]]
        assert trace["hoverinfo"] == "skip" and trace["mode"] == "lines"
        assert len(rf.as_array(trace["x"])) == 3 * 5184
    for name in rf.STATUSES:
        assert len(fig["data"][rf.TRACES[name]]["y"]) == 0
    assert "marker" not in fig["data"][rf.TRACES["cable_hits"]]  # nothing drawn


def test_layout_settings():
    lay = rf.base_figure("vr-nvl72")["layout"]
    assert lay["hovermode"] == "closest" and lay["clickmode"] == "event"
    assert lay["uirevision"] == "vr-nvl72" and lay["dragmode"] in ("zoom", "pan")
    assert lay["paper_bgcolor"] == rf.PANEL_BG and lay["font"]["color"] == rf.TEXT
    for ax in ("xaxis", "xaxis2", "yaxis"):
        assert lay[ax]["visible"] is False and lay[ax]["autorange"] is False
    cfg = rf.graph_config()
    assert cfg["displaylogo"] is False and cfg["toImageButtonOptions"]["format"] == "png"


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_plotly_accepts_the_figure(fk):
    go.Figure(rf.base_figure(fk))  # raises on any invalid property


def test_base_figure_is_a_fresh_copy():
    a = rf.base_figure("vr-nvl72")
    a["data"][rf.TRACES["failed"]]["y"] = [1, 2, 0]
    a["layout"]["shapes"].clear()
    a["data"].pop()
    b = rf.base_figure("vr-nvl72")
    assert len(b["data"]) == len(rf.TRACES)
    assert len(b["data"][rf.TRACES["failed"]]["y"]) == 0
    assert b["layout"]["shapes"]
    b["data"][0]["y"]["bdata"] = "AAAA"  # the caller's copy; the cached one is untouched
    assert rf.base_figure("vr-nvl72")["data"][0]["y"]["bdata"] != "AAAA"


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_base_figure_size(fk):
    size = len(to_json_plotly(rf.base_figure(fk)))
    print(f"\n{fk}: base figure {size / 1024:.0f} KiB")
    assert size < BASE_FIGURE_BUDGET


def test_base_figure_built_once_and_copied_fast():
    rf.base_figure("vr-nvl72")
    t = time.perf_counter()
    for _ in range(20):
        rf.base_figure("vr-nvl72")
    per_call = (time.perf_counter() - t) / 20
    assert per_call < 0.01  # measured ~0.15 ms


def test_the_key_and_the_controllers_say_what_each_fabric_has():
    """Issue 28: on eth-x72 the controllers' hover said "NVOS, NMX-Controller and
    NMX-Telemetry" and the key had a "fabric-manager leader"; the key's first line (82
    characters) clipped ">33%"."""
    from dashboard.figures.rack.front import key_lines
    from dashboard.figures.rack.geometry import KEY_LINES

    every = {label for line in KEY_LINES for _g, _c, label in line}
    for fk in FABRIC_KEYS:
        f = FABRICS[fk]
        lines = key_lines(f)
        said = {label for line in lines for _g, _c, label in line}
        leader = "fabric-manager leader"
        assert said == (every if f.fabric_manager else every - {leader}), fk
        assert max(len(" ".join(f"{g} {lab} " for g, _c, lab in line)) for line in lines) <= 60
        fig = rf.base_figure(fk)
        hover = " ".join(fig["data"][rf.TRACES["controllers"]]["hovertext"])
        assert f.controller_runs in hover
        assert ("NMX-Controller" in hover) is f.fabric_manager, fk
