"""What a scenario changes: cable statuses, part colours and symbols, the Patch and its size."""

from __future__ import annotations

import itertools
import json
import time

import numpy as np
import pytest

from dashboard.figures import rack as rf
from dashboard.figures.rack.geometry import LOSS_BANDS
from model.fabric.presets import FABRICS
from model.ids import chip_id, gpu_id
from tests.dashboard.figures.rack.helpers import (
    FABRIC_KEYS,
    PATCH_BUDGET,
    overlay_cables,
    scenario,
)


def test_healthy_rack_has_empty_overlays():
    data = rf.overlay_data(scenario(""))
    assert data[rf.TRACES["cables"]]["line.color"] == rf.STATUS_COLORS["healthy"]
    for name in rf.STATUSES:
        assert data[rf.TRACES[name]]["y"] == []
    assert set(data[rf.TRACES["gpus"]]["marker.color"]) == {rf.PART_COLORS[rf.PART_OK]}


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_statuses_partition_the_cables(fk):
    q = f"fabric={fk}&fail=st3,gpu07-st1.sw0.c0,gpu09,st2.sw1,gpu11-st4.sw0&flaky=gpu20-st5.sw1"
    idx = rf.cable_statuses(scenario(q + "&update=st8"))
    everything = np.concatenate(list(idx.values()))
    assert len(everything) == 5184 and len(np.unique(everything)) == 5184


def test_one_cable_fails_and_its_sibling_idles():
    data = rf.overlay_data(scenario("fail=gpu07-st3.sw2.c0"))
    assert overlay_cables("vr-nvl72", data[rf.TRACES["failed"]]["y"]) == ["gpu07-st3.sw2.c0"]
    assert overlay_cables("vr-nvl72", data[rf.TRACES["idle"]]["y"]) == ["gpu07-st3.sw2.c1"]
    rerouted = overlay_cables("vr-nvl72", data[rf.TRACES["rerouted"]]["y"])
    assert len(rerouted) == 35 * 2 and all(c.startswith("gpu07-") for c in rerouted)
    assert data[rf.TRACES["cables"]]["line.color"] == rf.STATUS_COLORS["healthy"]
    gpus = data[rf.TRACES["gpus"]]["marker.color"]
    assert gpus[7] == LOSS_BANDS[0][2]  # it lost one link of 36: the slightest band
    assert data[rf.TRACES["rerouted"]]["line.color"] == LOSS_BANDS[0][2]
    assert gpus.count(rf.PART_COLORS[rf.PART_OK]) == 71


def test_gb200_cable_has_three_idle_siblings():
    data = rf.overlay_data(scenario("fabric=gb200-nvl72&fail=gpu07-st3.sw1.c2"))
    assert overlay_cables("gb200-nvl72", data[rf.TRACES["failed"]]["y"]) == ["gpu07-st3.sw1.c2"]
    idle = overlay_cables("gb200-nvl72", data[rf.TRACES["idle"]]["y"])
    assert sorted(idle) == [f"gpu07-st3.sw1.c{c}" for c in (0, 1, 3)]


def test_failed_link_fails_both_cables():
    data = rf.overlay_data(scenario("fail=gpu07-st3.sw2"))
    failed = overlay_cables("vr-nvl72", data[rf.TRACES["failed"]]["y"])
    assert sorted(failed) == ["gpu07-st3.sw2.c0", "gpu07-st3.sw2.c1"]
    assert data[rf.TRACES["idle"]]["y"] == []


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_failed_switch_tray_fails_all_its_chips_cables(fk):
    f = FABRICS[fk]
    data = rf.overlay_data(scenario(f"fabric={fk}&fail=st3"))
    failed = overlay_cables(fk, data[rf.TRACES["failed"]]["y"])
    want = {
        f"{gpu_id(g)}-st3.sw{k}.c{c}"
        for g in range(72)
        for k in range(f.chips_per_tray)
        for c in range(f.cables_per_link)
    }
    assert len(failed) == 72 * f.chips_per_tray * f.cables_per_link == 576 == len(want)
    assert set(failed) == want
    # Every other cable carries rerouted load: the base is recoloured, nothing else listed.
    assert data[rf.TRACES["cables"]]["line.color"] == rf.STATUS_COLORS["rerouted"]
    for name in ("healthy", "rerouted", "idle", "drained", "flaky"):
        assert data[rf.TRACES[name]]["y"] == [], name
    chips = data[rf.TRACES["chips"]]
    for k in range(f.chips_per_tray):
        p = 2 * f.chips_per_tray + k
        assert chips["marker.color"][p] == rf.PART_COLORS[rf.PART_FAILED]
        assert chips["marker.symbol"][p] == rf.FAILED_SYMBOL
    assert data[rf.TRACES["controllers"]]["marker.symbol"][2] == rf.FAILED_SYMBOL
    trays = rf.point_ids(fk)[rf.TRACES["trays"]]
    assert (
        data[rf.TRACES["trays"]]["marker.color"][trays.index("st3")]
        == rf.PART_COLORS[rf.PART_FAILED]
    )


def test_flaky_link_and_flaky_cable():
    data = rf.overlay_data(scenario("flaky=gpu20-st5.sw1"))
    flaky = overlay_cables("vr-nvl72", data[rf.TRACES["flaky"]]["y"])
    assert sorted(flaky) == ["gpu20-st5.sw1.c0", "gpu20-st5.sw1.c1"]
    assert data[rf.TRACES["gpus"]]["marker.color"][20] == rf.PART_COLORS[rf.PART_FLAKY]
    data = rf.overlay_data(scenario("flaky=gpu20-st5.sw1.c1"))
    assert overlay_cables("vr-nvl72", data[rf.TRACES["flaky"]]["y"]) == ["gpu20-st5.sw1.c1"]


def test_update_drains_the_trays_planes():
    data = rf.overlay_data(scenario("update=st5"))
    drained = overlay_cables("vr-nvl72", data[rf.TRACES["drained"]]["y"])
    assert len(drained) == 576 and all("-st5.sw" in c for c in drained)
    assert data[rf.TRACES["failed"]]["y"] == []
    chips = data[rf.TRACES["chips"]]["marker.color"]
    assert chips[16:20] == [rf.PART_COLORS[rf.PART_DRAINED]] * 4


def test_lost_gpu_idles_its_cables():
    data = rf.overlay_data(scenario("fail=ct02"))
    idle = overlay_cables("vr-nvl72", data[rf.TRACES["idle"]]["y"])
    assert len(idle) == 4 * 36 * 2 and {c[:5] for c in idle} == {gpu_id(g) for g in range(4, 8)}
    assert data[rf.TRACES["rerouted"]]["y"] == [] and data[rf.TRACES["failed"]]["y"] == []
    gpus = data[rf.TRACES["gpus"]]
    assert gpus["marker.symbol"][4:8] == [rf.FAILED_SYMBOL] * 4
    assert gpus["marker.symbol"][8] == rf.GPU_SYMBOL


def test_leader_moves_when_its_controller_fails():
    sym = rf.overlay_data(scenario(""))[rf.TRACES["controllers"]]["marker.symbol"]
    assert sym[0] == rf.LEADER_SYMBOL and sym.count(rf.LEADER_SYMBOL) == 1
    sym = rf.overlay_data(scenario("fail=st1.mc"))[rf.TRACES["controllers"]]["marker.symbol"]
    assert sym[0] == rf.FAILED_SYMBOL and sym[1] == rf.LEADER_SYMBOL


def test_mostly_rerouted_lists_the_smaller_set():
    # 40 GPUs lose one link each: 40 x 70 rerouted cables against 32 x 72 healthy ones.
    fails = ",".join(f"{gpu_id(g)}-{chip_id(FABRICS['vr-nvl72'], 0)}" for g in range(40))
    data = rf.overlay_data(scenario(f"fail={fails}"))
    assert data[rf.TRACES["cables"]]["line.color"] == LOSS_BANDS[0][2]  # 1/36 each
    assert data[rf.TRACES["rerouted"]]["y"] == []
    healthy = overlay_cables("vr-nvl72", data[rf.TRACES["healthy"]]["y"])
    assert len(healthy) == 32 * 72 and {c[:5] for c in healthy} == {
        gpu_id(g) for g in range(40, 72)
    }


def test_patch_is_overlay_data():
    sc = scenario("fail=st3,gpu07-st1.sw0.c0&flaky=gpu20-st5.sw1&update=st8")
    data = {**rf.overlay_data(sc), **rf.selection_data(sc.fabric, "st3.sw1")}
    ops = rf.overlay_patch(sc, "st3.sw1").to_plotly_json()["operations"]
    got = {tuple(op["location"]): op["params"]["value"] for op in ops}
    want = {
        ("data", i, *dotted.split(".")): value
        for i, props in data.items()
        for dotted, value in props.items()
    }
    assert got == want
    # Every overlay is set on every patch, so a patch never depends on the previous one.
    assert {("data", rf.TRACES[s], "y") for s in rf.STATUSES} <= set(got)
    assert len(got[("data", rf.TRACES["selected"], "y")]) == 3 * 72 * 2  # st3.sw1's cables


def test_a_selection_is_its_cables_and_rings_round_its_ends():
    sel = rf.selection_data("vr-nvl72", "gpu07-st3.sw2")
    assert len(sel[rf.TRACES["selected"]]["y"]) == 3 * 2  # the link's two cables
    assert len(sel[rf.TRACES["selected_parts"]]["x"]) == 2  # gpu07 and st3.sw2
    for nothing in (None, "", "st10", "gpu07-st3.sw5"):
        empty = rf.selection_data("vr-nvl72", nothing)
        assert empty[rf.TRACES["selected"]]["y"] == []
        assert empty[rf.TRACES["selected_parts"]] == {"x": [], "y": []}


@pytest.mark.parametrize(
    "query",
    ["fail=gpu07-st3.sw2.c0", "fail=st3", "update=st5", "fabric=gb200-nvl72&fail=st3"],
)
def test_patch_size(query):
    size = len(json.dumps(rf.overlay_patch(scenario(query)).to_plotly_json()))
    print(f"\n{query}: patch {size} B")
    assert size < PATCH_BUDGET


def test_patch_with_fifty_faults_is_fast():
    f = FABRICS["vr-nvl72"]
    rng = np.random.default_rng(7)
    ids = {
        f"{gpu_id(int(g))}-{chip_id(f, int(p))}.c{int(c)}"
        for g, p, c in zip(
            rng.integers(0, 72, 60), rng.integers(0, 36, 60), rng.integers(0, 2, 60), strict=True
        )
    }
    sc = scenario("fail=" + ",".join(sorted(ids)[:50]))
    assert len(sc.fail) == 50
    rf.overlay_patch(sc)
    t = time.perf_counter()
    for _ in range(10):
        patch = rf.overlay_patch(sc)
    per_patch = (time.perf_counter() - t) / 10
    size = len(json.dumps(patch.to_plotly_json()))
    print(f"\n50 cables: patch {per_patch * 1000:.2f} ms, {size} B")
    assert per_patch < 0.05  # measured ~0.5 ms
    failed = overlay_cables("vr-nvl72", rf.overlay_data(sc)[rf.TRACES["failed"]]["y"])
    assert sorted(failed) == sorted(sc.fail)


def test_full_figure_is_base_plus_overlay():
    sc = scenario("fabric=gb200-nvl72&fail=st3.sw1,gpu40&update=st8")
    fig = rf.full_figure(sc)
    data = rf.overlay_data(sc)
    assert fig["data"][rf.TRACES["failed"]]["y"] == data[rf.TRACES["failed"]]["y"]
    assert fig["data"][rf.TRACES["gpus"]]["marker"]["symbol"][40] == rf.FAILED_SYMBOL
    assert fig["layout"]["uirevision"] == "gb200-nvl72"
    assert len(rf.base_figure("gb200-nvl72")["data"][rf.TRACES["failed"]]["y"]) == 0


@pytest.mark.parametrize("fk", FABRIC_KEYS)
def test_a_mask_hides_the_steps_between_cables_at_any_zoom(fk):
    fig = rf.base_figure(fk)
    masks = [s for s in fig["layout"]["shapes"] if s.get("xsizemode") == "pixel"]
    assert len(masks) == 1
    m = masks[0]
    assert m["xref"] == "x2" and m["xanchor"] == rf.SPINE_LEFT and m["layer"] == "above"
    assert m["fillcolor"] == fig["layout"]["plot_bgcolor"]
    widest = max(*rf.STATUS_WIDTHS.values(), rf.BASE_LINE_WIDTH)
    assert m["x0"] <= -widest and m["x1"] >= widest  # pixels, so zoom cannot uncover it
    ys = rf.as_array(fig["data"][rf.TRACES["cables"]]["y"])
    assert m["y0"] <= ys.min() and m["y1"] >= ys.max()


def test_down_cables_are_drawn_at_their_share_a_few_bold():
    """A down status's width: bold for a few cables (to be found), the density width for
    many (so the spine's colour is their share, issue 28), and never less ink for more."""
    ink = [k * rf.down_width("failed", k) for k in range(1, 5185)]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(ink))
    assert rf.down_width("failed", 2) == rf.STATUS_WIDTHS["failed"]
    assert rf.down_width("idle", 1) == rf.STATUS_WIDTHS["idle"]
    data = rf.overlay_data(scenario("fail=st3"))
    assert data[rf.TRACES["failed"]]["line.width"] == rf.DENSITY_WIDTH
    assert "line.width" not in data[rf.TRACES["rerouted"]]  # traffic keeps its width
