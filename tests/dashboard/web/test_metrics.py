"""GET /metrics: Prometheus text format, read back with prometheus_client's own parser."""

from __future__ import annotations

import math

import flask
import numpy as np
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from dashboard.web.blueprint import web
from dashboard.web.metrics import FAMILIES, LINK_FAMILIES, LINK_LABELS, SWITCH_FAMILIES
from dashboard.web.promtext import CONTENT_TYPE, escape_label_value, family_text, label_set
from model import parse_query, telemetry
from model.evaluate import TELEMETRY_READ_S
from model.fabric.presets import FABRICS
from model.ids import link_id

DCGM_COUNTERS = (
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
)
UP = "nvml_nvlink_up"
PER_LINK = tuple(f.name for f in LINK_FAMILIES)
TELEMETRY_ONLY = (
    *DCGM_COUNTERS,
    "nvml_nvlink_ber",
    "fabric_twin_nvlink_throughput_bytes_per_second",
    "nmx_telemetry_stale",
    "nmx_telemetry_last_seen_age_seconds",
)
SWITCH_STATE = (
    "nmx_switch_chip_up",
    "nmx_switch_chip_drained",
    "nmx_switch_chip_links_up",
    "nmx_switch_tray_up",
    "nmx_controller_up",
)


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
    r = prom_client.get("/metrics?flaky=gpu07-st3.sw2")
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
    for name, kind in types.items():
        assert kind == ("counter" if name.endswith("_TOTAL") else "gauge"), name
    # HELP comes right before TYPE, and every family has a non-empty HELP with its unit.
    for i, ln in enumerate(lines):
        if ln.startswith("# TYPE "):
            assert lines[i - 1].startswith(f"# HELP {ln.split(' ')[2]} ")
    fams = scrape(prom_client, "flaky=gpu07-st3.sw2")
    assert set(fams) == set(types)
    for fam in fams.values():
        assert "unit:" in fam.documentation, fam.name
        assert fam.type == types[fam.name]


def test_every_family_is_a_row_of_the_tables(prom_client):
    """What a scrape has, in its order, with its type and HELP, is the tables' rows: the
    switch side as much as the links (a family written outside them would fail here)."""
    for query, rows in (
        ("flaky=gpu07-st3.sw2", FAMILIES),
        ("flaky=gpu07-st3.sw2&off=telemetry", [f for f in FAMILIES if not f.needs_telemetry]),
    ):
        fams = scrape(prom_client, query)
        assert list(fams) == [f.name for f in rows], query
        for row in rows:
            assert (fams[row.name].type, fams[row.name].documentation) == (row.kind, row.help)
    assert {f.series for f in SWITCH_FAMILIES} == {"chip", "tray", "controller"}


def test_dcgm_names_and_families(prom_client):
    fams = scrape(prom_client)
    for name in DCGM_COUNTERS:
        assert fams[name].type == "counter"
    assert set(PER_LINK) >= {*DCGM_COUNTERS, UP, "nvml_nvlink_ber"}
    for name in (*SWITCH_STATE, "nmx_telemetry_stale", "nmx_telemetry_last_seen_age_seconds"):
        assert fams[name].type == "gauge"
    assert fams["fabric_twin_simulated_time_seconds"].samples[0].value == TELEMETRY_READ_S
    assert fams["fabric_twin_link_counters_available"].samples[0].value == 1
    info = fams["fabric_twin_info"].samples[0].labels
    assert info == {"fabric": "vr-nvl72", "scenario": "fabric=vr-nvl72"}


@pytest.mark.parametrize(
    "query, fabric, n",
    [("", "vr-nvl72", 2592), ("fabric=gb200-nvl72&on=telemetry", "gb200-nvl72", 1296)],
)
def test_every_link_in_every_per_link_family(prom_client, query, fabric, n):
    fams = scrape(prom_client, query)
    links = all_links(fabric)
    assert len(links) == n
    for name in PER_LINK:
        assert set(per_link(fams[name])) == links, name
        assert len(fams[name].samples) == n


def test_link_labels(prom_client):
    assert LINK_LABELS == ("gpu", "link", "chip", "tray", "compute_tray", "fabric")
    fams = scrape(prom_client)
    one = [s for s in fams[UP].samples if s.labels["link"] == "gpu07-st3.sw2"]
    assert len(one) == 1
    assert one[0].labels == {
        "gpu": "7",
        "link": "gpu07-st3.sw2",
        "chip": "st3.sw2",
        "tray": "st3",
        "compute_tray": "ct02",
        "fabric": "vr-nvl72",
    }
    for name in PER_LINK:
        for s in fams[name].samples:
            lab = s.labels
            assert tuple(lab) == LINK_LABELS
            g = int(lab["gpu"])
            assert lab["link"] == f"gpu{g:02d}-{lab['chip']}"
            assert lab["tray"] == lab["chip"].split(".")[0]
            assert lab["compute_tray"] == f"ct{g // 4 + 1:02d}"
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
    ber = per_link(fams["nvml_nvlink_ber"])
    assert math.isnan(ber["gpu07-st3.sw2"])  # carries nothing: NaN, as the format spells it
    assert 0 < ber["gpu07-st3.sw1"] < 1e-15


def test_update_drains_chips(prom_client):
    fams = scrape(prom_client, "update=st2")
    drained = by_label(fams["nmx_switch_chip_drained"], "chip")
    assert {c for c, v in drained.items() if v == 1} == {f"st2.sw{i}" for i in range(4)}
    assert all(v == 1 for v in by_label(fams["nmx_switch_chip_up"], "chip").values())
    up = per_link(fams[UP])
    assert sum(1 for v in up.values() if v == 0) == 288


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
        seen.append((now["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"][flaky], fams))
        prev = now
    recoveries = [r for r, _ in seen]
    assert recoveries[0] == 0
    assert recoveries[3] > 0 and recoveries[4] > recoveries[3]
    # It degrades for telemetry.FLAKY_TTF_S (5 days), then fails: down at day 6, counters kept.
    assert per_link(seen[4][1][UP])[flaky] == 1
    assert per_link(seen[5][1][UP])[flaky] == 0
    assert recoveries[5] >= recoveries[4]


def test_values_match_the_model(prom_client):
    q, t = "flaky=gpu09-st1.sw0&fail=gpu03", 7200.0
    fams = scrape(prom_client, f"{q}&t_s={t:g}")
    snap = telemetry.counters(parse_query(q).scenario, t)
    f = snap.fabric
    names = {
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL": telemetry.CRC_FLIT,
        "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": telemetry.CRC_DATA,
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL": telemetry.REPLAY,
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL": telemetry.RECOVERY,
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL": telemetry.BANDWIDTH,
        "nvml_nvlink_ber": telemetry.BER,
    }
    for prom_name, metric in names.items():
        vals = per_link(fams[prom_name])
        got = np.array([[vals[link_id(f, g, p)] for p in range(f.planes)] for g in range(f.gpus)])
        np.testing.assert_array_equal(got, snap.link[metric].astype(float), err_msg=prom_name)
    up = per_link(fams[UP])
    assert sum(1 for v in up.values() if v == 0) == 36  # gpu03's links


def test_telemetry_off_exports_no_counters(prom_client):
    for query, n in (("off=telemetry", 2592), ("fabric=gb200-nvl72", 1296)):
        fams = scrape(prom_client, query)
        for name in TELEMETRY_ONLY:
            assert name not in fams, (query, name)
        assert not any(name.startswith("DCGM_") for name in fams)
        assert fams["fabric_twin_link_counters_available"].samples[0].value == 0
        assert "off" in fams["fabric_twin_link_counters_available"].documentation
        assert len(per_link(fams[UP])) == n
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
    bw = per_link(fams["DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"])
    assert all(bw[k] == 0 for k in st3)
    assert bw["gpu00-st4.sw0"] > 0


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
