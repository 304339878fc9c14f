"""The rack-and-spine figure: counts, click targets, clicks, overlays and sizes."""

from __future__ import annotations

import json
import time

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.io.json import to_json_plotly

from dashboard.figures import rack as rf
from model.fabric.presets import FABRICS
from model.fabric.topology import topology
from model.ids import chip_id, gpu_id
from model.scenario import parse_query

FABRIC_KEYS = tuple(FABRICS)
SPINE = ("cables", *rf.STATUSES, "cable_hits")
FRONT = ("trays", "gpus", "chips", "controllers")
PATCH_BUDGET = 16 * 1024  # bytes of json.dumps(patch.to_plotly_json())
# Measured 702 KiB (vr-nvl72, plotly's serializer, as Dash sends it); 63 KiB gzipped.
BASE_FIGURE_BUDGET = 900 * 1024


def scenario(query: str):
    return parse_query(query).scenario


def segments(x: list | tuple, y: list | tuple) -> list[tuple]:
    """The cables a spine line trace draws, over min(len(x), len(y)) points: each is out
    and back, (x2 0, y left) -> (1, y right) -> (0, y left); the steps between them run
    along x2 = 0 (under the left-edge mask)."""
    x, y = rf.as_array(x), rf.as_array(y)
    n = min(len(x), len(y))
    assert n % 3 == 0 and not np.isnan(x[:n]).any() and not np.isnan(y[:n]).any()
    out = []
    for i in range(0, n, 3):
        (a, b, c), (ya, yb, yc) = x[i : i + 3], y[i : i + 3]
        assert (a, b, c) == (0, 1, 0) and ya == yc, "not out and back along one cable"
        out.append(((a, ya), (b, yb)))
    return out


def overlay_cables(fabric_key: str, y: list) -> list[str]:
    """Cable IDs drawn by an overlay's y, matched on (left y, right y) of the geometry."""
    geo = rf.geometry(fabric_key)
    by_ends = {
        (a, b): cid
        for a, b, cid in zip(geo.y_left.tolist(), geo.y_right.tolist(), geo.cable_ids, strict=True)
    }
    assert len(by_ends) == len(geo.cable_ids), "cable ends are not unique"
    assert len(y) % 3 == 0
    return [by_ends[(y[i], y[i + 1])] for i in range(0, len(y), 3)]


def ids_of(fabric_key: str, kind: str) -> set[str]:
    return {c["id"] for c in topology(FABRICS[fabric_key])["components"] if c["kind"] == kind}


# --- The base figure ------------------------------------------------------------------------


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
    assert isinstance(hits["customdata"], tuple | list)  # never numpy (DESIGN.md)
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
def test_only_the_cable_markers_are_webgl(fk):
    """SVG lines (software GL drew them in ~1.3 s a frame); WebGL markers (exact hover)."""
    fig = rf.base_figure(fk)
    for name in (*SPINE, *FRONT):
        want = "scattergl" if name == "cable_hits" else "scatter"
        assert fig["data"][rf.TRACES[name]]["type"] == want, name
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
    assert fig["data"][rf.TRACES["cable_hits"]]["marker"]["color"] == "rgba(0,0,0,0)"


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


# --- Clicks ---------------------------------------------------------------------------------


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


# --- Overlays -------------------------------------------------------------------------------


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
    assert gpus[7] == rf.PART_COLORS[rf.PART_REROUTED]
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
    assert data[rf.TRACES["cables"]]["line.color"] == rf.STATUS_COLORS["rerouted"]
    assert data[rf.TRACES["rerouted"]]["y"] == []
    healthy = overlay_cables("vr-nvl72", data[rf.TRACES["healthy"]]["y"])
    assert len(healthy) == 32 * 72 and {c[:5] for c in healthy} == {
        gpu_id(g) for g in range(40, 72)
    }


def test_patch_is_overlay_data():
    sc = scenario("fail=st3,gpu07-st1.sw0.c0&flaky=gpu20-st5.sw1&update=st8")
    data = rf.overlay_data(sc)
    ops = rf.overlay_patch(sc).to_plotly_json()["operations"]
    got = {tuple(op["location"]): op["params"]["value"] for op in ops}
    want = {
        ("data", i, *dotted.split(".")): value
        for i, props in data.items()
        for dotted, value in props.items()
    }
    assert got == want
    # Every overlay is set on every patch, so a patch never depends on the previous one.
    assert {("data", rf.TRACES[s], "y") for s in rf.STATUSES} <= set(got)


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
