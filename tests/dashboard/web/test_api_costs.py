"""The cost endpoints: decode curves, the timeline; their own bounded parameters."""

import pytest


def test_decode_curves(client):
    d = client.get("/api/v1/decode?fail=st3").get_json()
    assert set(d["curves"]) == {"scenario", "healthy", "baseline"}
    assert d["baseline"] == "eth-x72"
    for pts in d["curves"].values():
        assert len(pts) > 20
        assert set(pts[0]) == {
            "tokens_per_s_per_user",
            "tokens_per_s_per_gpu",
            "batch_per_gpu",
            "deployment",
            "exposed_share",
        }
    lo, hi = d["ratio_20_200"]["min"], d["ratio_20_200"]["max"]
    assert 1.0 <= lo <= hi
    assert d["ratio_max_step_20_200"] <= 1.5
    assert all(r["ratio"] >= 1.0 - 1e-9 for r in d["ratio_vs_baseline"])
    bd = d["breakdown"]
    assert sum(bd["parts_us"].values()) == pytest.approx(bd["step_us"], rel=1e-3)
    assert d["held"]["predicted_step_us"] == pytest.approx(d["held"]["step_us"], rel=0.01)
    assert client.get("/api/v1/decode?fail=st99").status_code == 400


def test_decode_breakdown_at_any_operating_point(client):
    d = client.get("/api/v1/decode?fail=st1,st2,st3,st4&at=152.6").get_json()
    at = d["at"]
    assert at["tokens_per_s_per_user"] == 152.0  # the frontier's nearest point, 2 apart
    for key in ("scenario", "healthy", "baseline"):
        bd = at[key]["breakdown"]
        assert sum(bd["parts_us"].values()) == pytest.approx(bd["step_us"], rel=1e-3)
        assert {"dispatch_us", "combine_us", "hbm_bound_us", "exposed_share"} <= set(bd)
    # where the fabric matters: losing 4 of 9 trays exposes more communication here
    assert (
        at["scenario"]["breakdown"]["exposed_share"] > at["healthy"]["breakdown"]["exposed_share"]
    )
    bad = client.get("/api/v1/decode?at=9000")
    assert bad.status_code == 400 and "at" in bad.get_json()["error"]


def test_evaluate_has_decode_and_training(client):
    d = client.get("/api/v1/evaluate?workload=train&fail=st3").get_json()
    for key in (
        "model",
        "tokens_per_s_per_gpu",
        "tokens_per_s_per_user",
        "vs_healthy",
        "vs_baseline",
        "baseline",
        "deployment",
        "breakdown",
        "exposed_share",
    ):
        assert key in d["decode"]
    assert d["training"]["step_time_s"] > d["training"]["healthy_step_time_s"]
    assert 0 < d["training"]["vs_healthy"] < 1


def test_timeline(client):
    d = client.get("/api/v1/timeline?fail=st3,gpu01&fault=st3&checkpoint_min=30").get_json()
    assert d["fault"] == "st3"
    assert d["events"][0]["t_s"] == 0
    assert d["series"][0]["t_s"] < 0 < d["series"][-1]["t_s"]


@pytest.mark.parametrize(
    "query,token",
    [
        ("fail=st3&fault=st4", "st4"),
        ("fail=st3&checkpoint_min=0", "checkpoint_min"),
        ("fail=st3&checkpoint_min=1e9", "checkpoint_min"),
        ("fail=st3&checkpoint_min=x", "checkpoint_min"),
        ("fail=st3&fault=st3&fault=st3", "fault"),
        ("fail=st3&bogus=1", "bogus"),
    ],
)
def test_timeline_bad_parameters(client, query, token):
    r = client.get("/api/v1/timeline?" + query)
    assert r.status_code == 400
    assert r.get_json()["token"] == token


def test_goodput_endpoint(client):
    d = client.get("/api/v1/goodput?fail=st3&years=5&racks=20").get_json()
    assert 0.5 < d["fraction"] < 1
    assert set(d["badput"]) >= {"restarts", "lost_work", "degraded", "maintenance", "repair_wait"}
    assert abs(d["closed_form"]["fraction"] - d["monte_carlo"]["fraction"]) < 0.01
    again = client.get("/api/v1/goodput?fail=st3&years=5&racks=20").get_json()
    assert again["monte_carlo"] == d["monte_carlo"]  # seeded from the scenario


def test_goodput_comparison(client):
    rows = client.get("/api/v1/goodput?compare=1").get_json()["comparison"]
    by = {r["label"]: r["fraction"] for r in rows}
    top = by["vr-nvl72, all seven features"]
    for label, value in by.items():
        if "off" in label:
            assert value < top, label


@pytest.mark.parametrize(
    "query,token",
    [
        ("years=1000", "years"),
        ("years=100&racks=10000", "racks"),
        ("racks=1.5", "racks"),
        ("kappa=5", "kappa"),
        ("gpu_per_h=-1", "gpu_per_h"),
        ("checkpoint_min=0", "checkpoint_min"),
    ],
)
def test_goodput_bounds(client, query, token):
    r = client.get("/api/v1/goodput?" + query)
    assert r.status_code == 400
    assert r.get_json()["token"] == token


def test_telemetry_endpoint(client):
    d = client.get(
        "/api/v1/telemetry?fail=st3&flaky=gpu07-st2.sw1&link=gpu07-st2.sw1&t1_s=86400"
    ).get_json()
    assert d["attribution"]["components"] == ["st3", "gpu07-st2.sw1"]
    links = d["counters"]["link"]
    for name in (  # per link, GPU side: DCGM's per-link fields
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL",
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL",
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL",
        "DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK",
        "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER",
    ):
        assert len(links[name]) == 72 and len(links[name][0]) == 36
    total = d["counters"]["gpu"]["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"]
    per_link = links["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"]
    assert total == [sum(row) for row in per_link]  # a _TOTAL is the GPU's sum over links
    rec = d["series"]["DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"]
    assert rec[-1] > rec[0]
    assert d["forecast"]["link"] == "gpu07-st2.sw1" and d["forecast"]["action"] == "drain now"
    off = client.get("/api/v1/telemetry?fail=st3&off=telemetry").get_json()
    assert off["attribution"]["components"] == [] and not off["attribution"]["possible"]


@pytest.mark.parametrize(
    "query,token",
    [
        ("link=gpu99-st2.sw1", "gpu99-st2.sw1"),
        ("link=st3", "st3"),
        ("link=gpu07-st2.sw1&t0_s=100&t1_s=50", "t1_s"),
        ("link=gpu07-st2.sw1&t1_s=1000000&step_s=1", "step_s"),
        ("t_s=-1", "t_s"),
        ("cables=2", "cables"),
    ],
)
def test_telemetry_bad_parameters(client, query, token):
    r = client.get("/api/v1/telemetry?" + query)
    assert r.status_code == 400
    assert r.get_json()["token"] == token
