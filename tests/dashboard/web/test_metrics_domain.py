"""GET /metrics on a multi-rack domain (dashboard/exporter/domain.py): the domain's tier
and every GPU in one scrape, each rack's whole scrape with rack=, read back with
prometheus_client's parser and held against the domain's one assessment."""

from __future__ import annotations

import flask
import numpy as np
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from dashboard.web.blueprint import web
from model import parse_query, telemetry
from model.assess import assess
from model.evaluate import TELEMETRY_READ_S


@pytest.fixture(scope="module")
def prom_client() -> flask.testing.FlaskClient:
    app = flask.Flask(__name__)
    app.register_blueprint(web)
    return app.test_client()


def scrape(client, query: str) -> dict[str, Metric]:
    r = client.get(f"/metrics?{query}")
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    return {f.name: f for f in text_string_to_metric_families(r.get_data(as_text=True))}


def down(fam: Metric, label: str) -> set[str]:
    return {s.labels[label] for s in fam.samples if s.value == 0}


def one(fams: dict[str, Metric]) -> dict[str, str]:
    """The partition's state and mode (the series at 1)."""
    (s,) = [s for s in fams["nmx_partition_health"].samples if s.value == 1]
    return s.labels


@pytest.mark.parametrize(
    "fabric, racks, l2", [("vr-nvl576", 8, 4), ("vr-nvl1152", 16, 8)], ids=["576", "1152"]
)
def test_every_gpu_l1_chip_trunk_and_l2_chip_once(prom_client, fabric, racks, l2):
    fams = scrape(prom_client, f"fabric={fabric}")
    counts = {
        "DCGM_FI_DEV_FABRIC_HEALTH_MASK": racks * 72,
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL": racks * 72,
        "nmx_rack_up": racks,
        "nmx_switch_chip_up": racks * 36,
        "nmx_trunk_up": racks * 36 * l2,
        "nmx_l2_chip_up": 36 * l2,
        "nmx_partition_health": 4,
    }
    for name, n in counts.items():
        assert len(fams[name].samples) == n, name
    trunks = {s.labels["trunk"] for s in fams["nmx_trunk_up"].samples}
    assert len(trunks) == racks * 36 * l2 and "r03.st2.sw1-l2.s3" in trunks
    assert "DCGM_FI_DEV_NVLINK_GET_STATE" not in fams  # per link: the rack's own scrape
    assert {s.value for s in fams["DCGM_FI_DEV_FABRIC_HEALTH_MASK"].samples} == {0xAA}
    assert one(fams)["state"] == "HEALTHY"
    info = fams["fabric_twin_info"].samples[0].labels
    assert info == {"fabric": fabric, "scenario": f"fabric={fabric}"}


def test_an_l2_chip_takes_its_trunks_and_a_lost_rack_everything_it_reports(prom_client):
    q = "fabric=vr-nvl576&fail=l2.p05.s3,r02"
    fams = scrape(prom_client, q)
    a = assess(parse_query(q).scenario)
    assert down(fams["nmx_l2_chip_up"], "l2_chip") == {"l2.p05.s3"}
    assert down(fams["nmx_rack_up"], "rack") == {"r02"}
    trunks = down(fams["nmx_trunk_up"], "trunk")
    via_l2 = {f"r{r:02d}.st2.sw1-l2.s3" for r in range(1, 9)}  # plane 5 is st2.sw1
    rack2 = {t for t in trunks if t.startswith("r02.")}
    assert trunks == via_l2 | rack2 and len(rack2) == 36 * 4
    assert down(fams["nmx_switch_chip_up"], "chip") == {
        f"r02.st{t}.sw{c}" for t in range(1, 10) for c in range(4)
    }
    mask = {s.labels["gpu"]: s.value for s in fams["DCGM_FI_DEV_FABRIC_HEALTH_MASK"].samples}
    assert {g for g, v in mask.items() if v == 0} == {str(g) for g in range(72, 144)}
    assert one(fams)["state"] == str(a.partition.state) and one(fams)["mode"] == str(
        a.partition.mode
    )


def test_trunk_telemetry_needs_the_feature_and_l2_updates_drain(prom_client):
    fams = scrape(prom_client, "fabric=vr-nvl1152&flaky=r03.st2.sw1-l2.s3")
    deg = {s.labels["trunk"] for s in fams["fabric_twin_trunk_degrading"].samples if s.value}
    assert deg == {"r03.st2.sw1-l2.s3"}
    off = scrape(prom_client, "fabric=vr-nvl1152&flaky=r03.st2.sw1-l2.s3&off=telemetry")
    assert "fabric_twin_trunk_degrading" not in off
    # the counters stay (issue 29): the feature names degrading trunks, it makes no counter
    assert "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL" in off
    assert off["fabric_twin_link_counters_available"].samples[0].value == 1
    assert off["fabric_twin_link_telemetry_feature"].samples[0].value == 0
    upd = scrape(prom_client, "fabric=vr-nvl576&update=l2.t05")
    drained = {s.labels["l2_tray"] for s in upd["nmx_l2_chip_drained"].samples if s.value}
    assert drained == {"l2.t05"}
    assert sum(s.value for s in upd["nmx_l2_chip_drained"].samples) == 4
    assert not down(upd["nmx_l2_chip_up"], "l2_chip")


def test_per_gpu_values_are_each_racks_own(prom_client):
    q = "fabric=vr-nvl576&flaky=r03.gpu07-st3.sw2"
    fams = scrape(prom_client, f"{q}&t_s=86400")
    a = assess(parse_query(q).scenario)
    snap = telemetry.counters(a.racks[2].scenario, 86400.0)
    name = telemetry.GPU_TOTALS[telemetry.RECOVERY]
    got = {s.labels["gpu"]: s.value for s in fams[name].samples}
    assert got[str(2 * 72 + 7)] == snap.gpu[name][7] > 0
    assert all(got[str(g)] == 0 for g in range(72))  # rack 1: nothing degrading
    host = {s.labels["gpu"]: s.labels["Hostname"] for s in fams[name].samples}
    assert host["151"] == "r03.ct02"


def test_one_racks_scrape_has_its_ids_prefixed_and_the_domains_partition(prom_client):
    q = "fabric=vr-nvl576&fail=r03.gpu07-st3.sw2.c0"
    fams = scrape(prom_client, f"{q}&rack=r03&lanes=1")
    assert down(fams["DCGM_FI_DEV_NVLINK_GET_STATE"], "link") == {"r03.gpu07-st3.sw2"}
    lanes = {
        s.labels["lane"]: s.value
        for s in fams["nmx_nvlink_lane_state"].samples
        if s.labels["link"] == "r03.gpu07-st3.sw2"
    }
    assert lanes == {"0": 0, "1": 2}  # the failed cable INACTIVE, its sibling IDLE
    chips = {s.labels["chip"] for s in fams["nmx_switch_chip_up"].samples}
    assert chips == {f"r03.st{t}.sw{c}" for t in range(1, 10) for c in range(4)}
    assert {s.labels["fabric"] for s in fams["nmx_switch_chip_up"].samples} == {"vr-nvl576"}
    info = fams["fabric_twin_info"].samples[0].labels
    assert info == {"fabric": "vr-nvl576", "rack": "r03", "scenario": q}
    a = assess(parse_query(q).scenario)
    assert one(fams)["state"] == str(a.partition.state)
    other = scrape(prom_client, f"{q}&rack=r04")
    assert not down(other["DCGM_FI_DEV_NVLINK_GET_STATE"], "link")
    assert len(other["DCGM_FI_DEV_NVLINK_GET_STATE"].samples) == 72 * 36


@pytest.mark.parametrize(
    "query, token",
    [
        ("rack=r01", "rack"),
        ("fabric=vr-nvl576&fail=r02&rack=r02", "rack"),
        ("fabric=vr-nvl576&rack=l2.p05.s3", "l2.p05.s3"),
        ("fabric=vr-nvl576&rack=r09", "r09"),
        ("fabric=vr-nvl576&lanes=1", "lanes"),
        ("fabric=vr-nvl576&t_s=-1", "t_s"),
    ],
)
def test_a_bad_domain_query_is_400_naming_what(prom_client, query, token):
    r = prom_client.get(f"/metrics?{query}")
    assert r.status_code == 400
    assert r.get_json()["token"] == token, r.get_json()


def test_the_domain_scrape_is_read_at_the_apis_time(prom_client):
    fams = scrape(prom_client, "fabric=vr-nvl576")
    assert fams["fabric_twin_simulated_time_seconds"].samples[0].value == TELEMETRY_READ_S
    assert np.isclose(
        scrape(prom_client, "fabric=vr-nvl576&t_s=60")["fabric_twin_simulated_time_seconds"]
        .samples[0]
        .value,
        60.0,
    )
