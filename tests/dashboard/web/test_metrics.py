"""GET /metrics: Prometheus text format, read back with prometheus_client's own parser."""

from __future__ import annotations

import math

import flask
import numpy as np
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from dashboard.exporter.families import (
    GPU_FAMILIES,
    LINK_FAMILIES,
    PORT_FAMILIES,
    SWITCH_FAMILIES,
    families,
)
from dashboard.exporter.labels import LINK_LABELS
from dashboard.exporter.promtext import CONTENT_TYPE, escape_label_value, family_text, label_set
from dashboard.web.blueprint import web
from model import parse_query, telemetry
from model.evaluate import TELEMETRY_READ_S
from model.fabric.presets import FABRICS
from model.ids import link_id

# GPU side per link: DCGM's per-link fields (dcgm_fields.h, 1525-1529).
DCGM_COUNTERS = (
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL",
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_PER_LINK_TOTAL",
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL",
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL",
    "DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK",
)
# GPU side per GPU: the sums, under dcgm-exporter's names (etc/default-counters.csv).
GPU_TOTALS = (
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
)
PORT_COUNTERS = (
    "DCGM_FI_DEV_NVSWITCH_LINK_FLIT_ERROR_TOTAL",
    "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_TOTAL",
    "DCGM_FI_DEV_NVSWITCH_LINK_REPLAY_ERROR_TOTAL",
    "DCGM_FI_DEV_NVSWITCH_LINK_RECOVERY_ERROR_TOTAL",
    "DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX",
)
UP = "DCGM_FI_DEV_NVLINK_GET_STATE"
BER = "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER"
PER_LINK = tuple(f.name for f in LINK_FAMILIES)
PER_PORT = tuple(f.name for f in PORT_FAMILIES)
# Exported whatever the features (issue 29: before, only with the telemetry feature on).
TELEMETRY_ONLY = (
    *DCGM_COUNTERS,
    *GPU_TOTALS,
    *PORT_COUNTERS,
    BER,
    "fabric_twin_nvlink_throughput_gigabytes_per_second",
    "nmx_telemetry_stale",
    "nmx_telemetry_last_seen_age_seconds",
)
SWITCH_STATE = (
    "nmx_switch_chip_up",
    "nmx_switch_chip_drained",
    "nmx_switch_chip_links_up",
    "nmx_switch_tray_up",
    "nmx_controller_up",
    "nmx_partition_health",
)
COUNTER_FAMILIES = {*DCGM_COUNTERS, *GPU_TOTALS, *PORT_COUNTERS}


@pytest.fixture(scope="module")
def prom_client() -> flask.testing.FlaskClient:
    """A fresh Flask app with only the web layer's blueprint: the tests do not depend on app.py
    (or Dash), and its one error handler is the one the real app has."""
    app = flask.Flask(__name__)
    app.register_blueprint(web)
    return app.test_client()


def scrape(client: flask.testing.FlaskClient, query: str = "") -> dict[str, Metric]:
    """GET /metrics?query: 200, the right Content-Type, parsed into {family: Metric}."""
    r = client.get(f"/metrics?{query}" if query else "/metrics")
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    assert r.headers["Content-Type"] == CONTENT_TYPE
    fams = {f.name: f for f in text_string_to_metric_families(r.get_data(as_text=True))}
    return fams


def per_link(fam: Metric) -> dict[str, float]:
    """{link ID: value} of a per-link family; each link exactly once."""
    out = {s.labels["link"]: s.value for s in fam.samples}
    assert len(out) == len(fam.samples), "a link appears twice"
    return out


def by_label(fam: Metric, label: str) -> dict[str, float]:
    """{label value: value} of a family keyed by one label."""
    return {s.labels[label]: s.value for s in fam.samples}


def all_links(fabric_key: str) -> set[str]:
    f = FABRICS[fabric_key]
    return {link_id(f, g, p) for g in range(f.gpus) for p in range(f.planes)}


# --- the format ------------------------------------------------------------------------------
def test_content_type_help_and_type(prom_client):
    r = prom_client.get("/metrics?flaky=gpu07-st3.sw2&lanes=1")
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = r.get_data(as_text=True)
    assert text.endswith("\n")
    lines = text.splitlines()
    helps = {ln.split(" ")[2] for ln in lines if ln.startswith("# HELP ")}
    types = {ln.split(" ")[2]: ln.split(" ")[3] for ln in lines if ln.startswith("# TYPE ")}
    samples = {ln.split("{")[0].split(" ")[0] for ln in lines if not ln.startswith("#")}
    assert samples <= set(types), "a sample without a TYPE line"
    assert helps == set(types)
    lanes = {telemetry.lane_crc_name(c) for c in range(2)}
    for name, kind in types.items():
        assert kind == ("counter" if name in COUNTER_FAMILIES | lanes else "gauge"), name
    # HELP comes right before TYPE, and every family has a non-empty HELP with its unit.
    for i, ln in enumerate(lines):
        if ln.startswith("# TYPE "):
            assert lines[i - 1].startswith(f"# HELP {ln.split(' ')[2]} ")
    fams = scrape(prom_client, "flaky=gpu07-st3.sw2&lanes=1")
    assert set(fams) == set(types)
    for fam in fams.values():
        assert "unit:" in fam.documentation, fam.name
        assert fam.type == types[fam.name]


def test_every_family_is_a_row_of_the_tables(prom_client):
    """What a scrape has, in its order, with its type and HELP, is the tables' rows: the
    switch side as much as the links (a family written outside them would fail here)."""
    rows_all = families(FABRICS["vr-nvl72"])
    lane_rows = set(rows_all) - set(families(FABRICS["vr-nvl72"], lanes=False))
    assert {f.series for f in lane_rows} == {"port", "lane"} and len(lane_rows) == 4
    for query, rows in (
        ("flaky=gpu07-st3.sw2&lanes=1", rows_all),
        ("flaky=gpu07-st3.sw2", [f for f in rows_all if f not in lane_rows]),
        (
            "flaky=gpu07-st3.sw2&off=telemetry",
            [f for f in rows_all if not f.needs_telemetry and f not in lane_rows],
        ),
    ):
        fams = scrape(prom_client, query)
        assert list(fams) == [f.name for f in rows], query
        for row in rows:
            assert (fams[row.name].type, fams[row.name].documentation) == (row.kind, row.help)
    assert {f.series for f in SWITCH_FAMILIES} == {"chip", "tray", "controller"}


def test_dcgm_names_and_families(prom_client):
    fams = scrape(prom_client)
    for name in (*DCGM_COUNTERS, *GPU_TOTALS, *PORT_COUNTERS):
        assert fams[name].type == "counter", name
    assert set(PER_LINK) >= {*DCGM_COUNTERS, UP, BER}
    assert {f.name for f in GPU_FAMILIES} >= set(GPU_TOTALS)
    assert set(PER_PORT) >= set(PORT_COUNTERS)
    for name in (*SWITCH_STATE, "nmx_telemetry_stale", "nmx_telemetry_last_seen_age_seconds"):
        assert fams[name].type == "gauge"
    assert fams["fabric_twin_simulated_time_seconds"].samples[0].value == TELEMETRY_READ_S
    assert fams["fabric_twin_link_counters_available"].samples[0].value == 1
    info = fams["fabric_twin_info"].samples[0].labels
    assert info == {"fabric": "vr-nvl72", "scenario": "fabric=vr-nvl72"}
    # A name the JSON API uses is the name /metrics uses: one name per counter.
    doc = telemetry.counters(parse_query("").scenario, TELEMETRY_READ_S).to_json()
    assert set(doc["link"]) <= set(fams)
    assert set(doc["gpu"]) <= set(fams) and set(doc["port"]) <= set(fams)
    assert set(doc["lane"]).isdisjoint(fams)  # a drill-down: the lanes only with lanes=1
    assert set(doc["lane"]) <= set(scrape(prom_client, "lanes=1"))
    assert set(doc["fabric_health"]) - {"state"} <= set(fams)


@pytest.mark.parametrize(
    "query, fabric, n",
    [("", "vr-nvl72", 2592), ("fabric=gb200-nvl72&on=telemetry", "gb200-nvl72", 1296)],
)
def test_every_link_in_every_per_link_family(prom_client, query, fabric, n):
    fams = scrape(prom_client, query)
    links = all_links(fabric)
    assert len(links) == n
    for name in (*PER_LINK, *PER_PORT):
        assert set(per_link(fams[name])) == links, name
        assert len(fams[name].samples) == n
    for name in GPU_TOTALS:
        assert len(fams[name].samples) == 72


def test_link_labels(prom_client):
    """The per-link and per-port series carry what places them and no more (the fabric is
    fabric_twin_info's; a link's trays are in its chip and gpu)."""
    assert LINK_LABELS == ("nvlink", "gpu", "link", "chip")
    fams = scrape(prom_client, "lanes=1")
    one = [s for s in fams[UP].samples if s.labels["link"] == "gpu07-st3.sw2"]
    assert len(one) == 1
    assert one[0].labels == {
        "nvlink": "10",  # the link's index on its GPU: its plane, (3 - 1) * 4 + 2
        "gpu": "7",
        "link": "gpu07-st3.sw2",
        "chip": "st3.sw2",
    }
    for name in PER_LINK:
        for s in fams[name].samples:
            lab = s.labels
            assert tuple(lab) == LINK_LABELS
            g = int(lab["gpu"])
            assert lab["link"] == f"gpu{g:02d}-{lab['chip']}"
    port = [s for s in fams[PORT_COUNTERS[3]].samples if s.labels["link"] == "gpu07-st3.sw2"]
    assert port[0].labels == {
        "nvswitch": "nvswitch2",
        "nvlink": "7",  # the port of st3.sw2 that faces gpu07
        "hostname": "st3",
        "link": "gpu07-st3.sw2",
        "chip": "st3.sw2",
    }
    lane = [s for s in fams["nmx_nvlink_lane_state"].samples if s.labels["link"] == "gpu07-st3.sw2"]
    assert [s.labels for s in lane] == [{"link": "gpu07-st3.sw2", "lane": str(c)} for c in (0, 1)]
    gpu7 = [s for s in fams[GPU_TOTALS[3]].samples if s.labels["gpu"] == "7"]
    assert gpu7[0].labels == {
        "gpu": "7",
        "Hostname": "ct02",
        "device": "nvidia3",
        "compute_tray": "ct02",
        "fabric": "vr-nvl72",
    }
    chips = fams["nmx_switch_chip_up"].samples
    assert len(chips) == 36
    assert all(set(s.labels) == {"chip", "tray", "fabric"} for s in chips)
    ctl = fams["nmx_controller_up"].samples
    assert {s.labels["controller"] for s in ctl} == {f"st{t}.mc" for t in range(1, 10)}


# --- what the values say ---------------------------------------------------------------------
def test_fail_switch_tray(prom_client):
    fams = scrape(prom_client, "fail=st3")
    up = per_link(fams[UP])
    down = {k for k, v in up.items() if v == 0}
    assert len(down) == 288
    assert down == {k for k in up if k.split("-")[1].startswith("st3.")}
    assert all(v == 1 for k, v in up.items() if k not in down)
    chip_up = by_label(fams["nmx_switch_chip_up"], "chip")
    assert {c for c, v in chip_up.items() if v == 0} == {f"st3.sw{i}" for i in range(4)}
    assert by_label(fams["nmx_switch_tray_up"], "tray") == {
        f"st{t}": float(t != 3) for t in range(1, 10)
    }
    assert by_label(fams["nmx_controller_up"], "tray")["st3"] == 0
    links_up = by_label(fams["nmx_switch_chip_links_up"], "chip")
    assert links_up["st3.sw1"] == 0 and links_up["st4.sw1"] == 72
    # st3's controller went with the tray: its chips' counters are stale, the rest fresh.
    stale = by_label(fams["nmx_telemetry_stale"], "chip")
    assert {c for c, v in stale.items() if v == 1} == {f"st3.sw{i}" for i in range(4)}


def test_fail_one_cable_takes_its_link_down(prom_client):
    fams = scrape(prom_client, "fail=gpu07-st3.sw2.c0")
    up = per_link(fams[UP])
    assert {k for k, v in up.items() if v == 0} == {"gpu07-st3.sw2"}
    assert sum(up.values()) == 2591
    assert by_label(fams["nmx_switch_chip_links_up"], "chip")["st3.sw2"] == 71
    assert all(v == 1 for v in by_label(fams["nmx_switch_chip_up"], "chip").values())
    ber = per_link(fams[BER])
    assert math.isnan(ber["gpu07-st3.sw2"])  # carries nothing: NaN, as the format spells it
    assert 0 < ber["gpu07-st3.sw1"] < 1e-15


def test_update_drains_chips(prom_client):
    fams = scrape(prom_client, "update=st2")
    drained = by_label(fams["nmx_switch_chip_drained"], "chip")
    assert {c for c, v in drained.items() if v == 1} == {f"st2.sw{i}" for i in range(4)}
    assert all(v == 1 for v in by_label(fams["nmx_switch_chip_up"], "chip").values())
    up = per_link(fams[UP])
    assert sum(1 for v in up.values() if v == 0) == 288


@pytest.mark.slow
def test_counters_non_negative_and_monotone_for_a_flaky_link(prom_client):
    flaky = "gpu07-st3.sw2"
    times = [0.0, 600.0, 3600.0, 86400.0, 3 * 86400.0, 6 * 86400.0]
    prev: dict[str, dict[str, float]] | None = None
    seen = []
    for t in times:
        fams = scrape(prom_client, f"flaky={flaky}&t_s={t:g}")
        now = {name: per_link(fams[name]) for name in DCGM_COUNTERS}
        for name, vals in now.items():
            assert min(vals.values()) >= 0, name
            if prev is not None:
                bad = [k for k, v in vals.items() if v < prev[name][k]]
                assert not bad, (name, t, bad[:3])
        seen.append((now["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"][flaky], fams))
        prev = now
    recoveries = [r for r, _ in seen]
    assert recoveries[0] == 0
    assert recoveries[3] > 0 and recoveries[4] > recoveries[3]
    # It degrades for telemetry.FLAKY_TTF_S (5 days), then fails: down at day 6, counters kept.
    assert per_link(seen[4][1][UP])[flaky] == 1
    assert per_link(seen[5][1][UP])[flaky] == 0
    assert recoveries[5] >= recoveries[4]


def test_values_match_the_model(prom_client):
    # read a day in: the degrading link's recoveries ramp up (19 expected by then, 0.12 by
    # two hours, so an earlier read would show none most of the time)
    q, t = "flaky=gpu09-st1.sw0&fail=gpu03", 86400.0
    fams = scrape(prom_client, f"{q}&t_s={t:g}")
    snap = telemetry.counters(parse_query(q).scenario, t)
    f = snap.fabric
    names = {
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL": telemetry.CRC_FLIT,
        "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_PER_LINK_TOTAL": telemetry.CRC_DATA,
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL": telemetry.REPLAY,
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL": telemetry.RECOVERY,
        "DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK": telemetry.BANDWIDTH,
        BER: telemetry.BER,
    }
    for prom_name, metric in names.items():
        vals = per_link(fams[prom_name])
        got = np.array([[vals[link_id(f, g, p)] for p in range(f.planes)] for g in range(f.gpus)])
        np.testing.assert_array_equal(got, snap.link[metric].astype(float), err_msg=prom_name)
    for metric, prom_name in telemetry.GPU_TOTALS.items():  # a GPU's total: its links' sum
        vals = by_label(fams[prom_name], "gpu")
        got = np.array([vals[str(g)] for g in range(f.gpus)])
        np.testing.assert_array_equal(got, snap.link[metric].sum(axis=1).astype(float))
    rec = by_label(fams["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"], "gpu")
    assert rec["9"] > 0 and sum(rec.values()) == rec["9"]  # only the flaky link recovers
    mask = by_label(fams["DCGM_FI_DEV_FABRIC_HEALTH_MASK"], "gpu")
    assert mask["3"] == 0 and mask["4"] == 0xAA  # gpu03 is gone; gpu04 is healthy
    up = per_link(fams[UP])
    assert sum(1 for v in up.values() if v == 0) == 36  # gpu03's links


def test_telemetry_off_still_exports_every_counter(prom_client):
    """Issue 29: DCGM reads the NVLink error counters on GB200 whatever the features; the
    telemetry feature says what the fabric does with them (the windowed rule's count), not
    whether they exist."""
    cases = (("off=telemetry", 2592), ("fabric=gb200-nvl72", 1296))
    for query, n in (*cases, ("fabric=eth-x72&off=telemetry", 2592)):
        fams = scrape(prom_client, query)
        on = scrape(prom_client, query.replace("off=telemetry", "") + "&on=telemetry")
        for name in TELEMETRY_ONLY:
            assert name in fams, (query, name)
        assert "fabric_twin_health_rule_flagged_windows" not in fams
        assert set(on) - set(fams) == {"fabric_twin_health_rule_flagged_windows"}, query
        assert fams["fabric_twin_link_counters_available"].samples[0].value == 1
        assert fams["fabric_twin_link_telemetry_feature"].samples[0].value == 0
        assert on["fabric_twin_link_telemetry_feature"].samples[0].value == 1
        assert len(per_link(fams[UP])) == n
        assert len(per_link(fams["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"])) == n
        for name in SWITCH_STATE:
            assert name in fams
    fams = scrape(prom_client, "off=telemetry&fail=st3")
    assert sum(1 for v in per_link(fams[UP]).values() if v == 0) == 288
    assert by_label(fams["nmx_switch_tray_up"], "tray")["st3"] == 0


def test_controller_down_marks_its_chips_stale(prom_client):
    t = 7200.0
    fams = scrape(prom_client, f"fail=st3.mc&t_s={t:g}")
    stale = by_label(fams["nmx_telemetry_stale"], "chip")
    assert {c for c, v in stale.items() if v == 1} == {f"st3.sw{i}" for i in range(4)}
    age = by_label(fams["nmx_telemetry_last_seen_age_seconds"], "chip")
    assert age["st3.sw0"] == t and age["st4.sw0"] == 0
    assert by_label(fams["nmx_controller_up"], "tray")["st3"] == 0
    assert by_label(fams["nmx_switch_tray_up"], "tray")["st3"] == 1
    # The data plane is untouched, and the stale links' counters are exported, not dropped:
    # they hold the value of the last report (the controller was down from t = 0).
    assert all(v == 1 for v in per_link(fams[UP]).values())
    st3 = {link_id(FABRICS["vr-nvl72"], g, 8) for g in range(72)}
    for name in PER_LINK:
        vals = per_link(fams[name])
        assert st3 <= set(vals), name
    # The GPU side comes from the GPU driver: fresh on st3's planes too. The switch side of
    # st3 (its ports) holds what st3 last reported, at t = 0: nothing yet.
    bw = per_link(fams["DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK"])
    assert all(bw[k] > 0 for k in st3) and bw["gpu00-st4.sw0"] > 0
    tx = per_link(fams["DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX"])
    assert all(tx[k] == 0 for k in st3) and tx["gpu00-st4.sw0"] > 0
    status = per_link(fams["DCGM_FI_DEV_NVSWITCH_LINK_STATUS"])
    assert set(status.values()) == {2.0}  # ACTIVE, as last reported and as it is


def test_partition_fabric_health_and_the_health_rule(prom_client):
    """nmx_partition_health has one series per NMX state, 1 on the partition's; a GPU with
    a link down reports DEGRADED_BW (mask 0xA9, Limited Capacity) while the partition stays
    HEALTHY in adaptive mode (DEGRADED in full-bandwidth mode); a degrading link has more
    than 15 of its last 30 windows flagged days before it fails."""
    fams = scrape(prom_client, "")
    part = by_label(fams["nmx_partition_health"], "state")
    assert part == {"HEALTHY": 1, "BANDWIDTH": 0, "DEGRADED": 0, "UNHEALTHY": 0}
    fams = scrape(prom_client, "fail=gpu07-st3.sw2&off=reroute")
    part = by_label(fams["nmx_partition_health"], "state")
    assert part["DEGRADED"] == 1 and sum(part.values()) == 1  # full-bandwidth mode: parked
    assert {s.labels["mode"] for s in fams["nmx_partition_health"].samples} == {"full-bandwidth"}
    fams = scrape(prom_client, "fail=gpu07-st3.sw2")
    part = by_label(fams["nmx_partition_health"], "state")
    assert part["HEALTHY"] == 1  # adaptive mode, one rack: no trunk links to miss
    mask = by_label(fams["DCGM_FI_DEV_FABRIC_HEALTH_MASK"], "gpu")
    assert mask["7"] == 0xA9 and mask["8"] == 0xAA
    assert by_label(fams["DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY"], "gpu")["7"] == 3
    fams = scrape(prom_client, f"flaky=gpu07-st3.sw2&t_s={4 * 86400}")
    win = per_link(fams["fabric_twin_health_rule_flagged_windows"])
    assert win["gpu07-st3.sw2"] > 15
    # A healthy link's rare CRC error flags a window now and then, far below the threshold.
    assert max(v for k, v in win.items() if k != "gpu07-st3.sw2") <= 2


# --- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query, token",
    [
        ("fail=st99", "st99"),
        ("fail=nonsense", "nonsense"),
        ("flaky=st3", "st3"),
        ("fabric=nvl576", "nvl576"),
        ("off=warp", "warp"),
        ("colour=green", "colour"),
        ("t_s=-1", "t_s"),
        ("t_s=abc", "t_s"),
        ("t_s=", "t_s"),
        ("t_s=nan", "t_s"),
        ("t_s=inf", "t_s"),
        ("t_s=1e12", "t_s"),
        ("t_s=1&t_s=2", "t_s"),
        ("fail=st3&t_s=-5", "t_s"),
        ("fabric=gb200-nvl72&fail=st1.sw3", "st1.sw3"),
        ("lanes=2", "lanes"),
        ("lanes=yes", "lanes"),
        ("lanes=0.5", "lanes"),
    ],
)
def test_bad_query_is_400_naming_the_token(prom_client, query, token):
    r = prom_client.get(f"/metrics?{query}")
    assert r.status_code == 400
    assert r.is_json
    body = r.get_json()
    assert set(body) == {"error", "token"}
    assert body["token"] == token
    assert isinstance(body["error"], str) and body["error"]


def test_bad_bytes_and_length_are_400(prom_client):
    r = prom_client.get("/metrics", environ_overrides={"QUERY_STRING": "fail=\xff"})
    assert r.status_code == 400 and r.get_json()["token"] == "query"
    r = prom_client.get("/metrics?fail=" + ",".join(["st1"] * 2000))
    assert r.status_code == 400 and r.get_json()["token"] == "query"


def test_t_s_bounds_and_encoding(prom_client):
    assert prom_client.get(f"/metrics?t_s={telemetry.MAX_T_S:.0f}").status_code == 200
    fams = scrape(prom_client, "t%5Fs=60&fail=st1")
    assert fams["fabric_twin_simulated_time_seconds"].samples[0].value == 60


# --- escaping --------------------------------------------------------------------------------
def test_label_values_are_escaped_and_round_trip():
    nasty = 'a"b\\c\nd'
    assert escape_label_value(nasty) == 'a\\"b\\\\c\\nd'
    labels = label_set({"link": nasty, "fabric": "vr-nvl72"})
    text = family_text(
        "x_gauge", "gauge", "help with a \\ and a\nnewline", [f"x_gauge{labels} "], np.array([2.5])
    )
    assert text.count("\n") == 3  # HELP, TYPE, one sample: no raw newline got through
    (fam,) = text_string_to_metric_families(text)
    assert fam.documentation == "help with a \\ and a\nnewline"
    assert fam.samples[0].labels == {"link": nasty, "fabric": "vr-nvl72"}
    assert fam.samples[0].value == 2.5


def test_special_values_are_spelt_as_prometheus_spells_them():
    text = family_text(
        "y",
        "gauge",
        "h",
        ['y{a="1"} ', 'y{a="2"} ', 'y{a="3"} '],
        np.array([np.nan, np.inf, -np.inf]),
    )
    assert text.splitlines()[2:] == ['y{a="1"} NaN', 'y{a="2"} +Inf', 'y{a="3"} -Inf']


# --- in the real app ---------------------------------------------------------------------------
def test_served_by_the_real_app():
    from app import server

    assert "web.prom" in server.blueprints
    client = server.test_client()
    r = client.get("/metrics?fail=st3")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    r = client.get("/metrics?fail=st99")
    assert r.status_code == 400 and r.get_json()["token"] == "st99"
