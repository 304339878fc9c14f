"""Each of the seven resiliency features changes the outcome of at least one scenario."""

from model import evaluate, parse_query


def ev(q):
    return evaluate(parse_query(q).scenario)


def test_reroute():
    on, off = ev("fail=st3"), ev("fail=st3&off=reroute")
    # Adaptive mode: a lost switch tray leaves every GPU short of links, the partition HEALTHY
    # (NMX's BANDWIDTH is for missing trunk links between racks, which one rack has none of).
    assert on["job"]["state"] == "degraded" and on["partition"]["state"] == "HEALTHY"
    assert "DEGRADED_BW" in on["partition"]["explanation"]
    assert off["job"]["state"] == "aborted"
    assert "dynamic rerouting is off" in off["job"]["cause"]
    assert off["partition"]["mode"] == "full-bandwidth"


def test_partial_rack():
    on, off = ev("fail=ct02"), ev("fail=ct02&off=partial-rack")
    assert on["partition"]["state"] == "DEGRADED"
    assert on["job"]["restart"] == "at once on the 68 GPUs that remain"
    assert off["partition"]["state"] == "UNHEALTHY"
    assert off["job"]["restart"] == "after repair"


def test_hot_swap():
    on, off = ev("fail=st3"), ev("fail=st3&off=hot-swap")
    assert on["repairs"][0]["mode"] == "hot-swap" and on["repairs"][0]["rack_down_h"] == 0
    assert off["repairs"][0]["mode"] == "rack-down" and off["repairs"][0]["rack_down_h"] > 0


def test_cp_resilience():
    on = ev("fail=st1")
    off = ev("fail=st1&off=cp-resilience")
    assert on["control_plane"]["state"] == "failed-over"
    assert on["control_plane"]["leader"] == "st2.mc"
    assert on["job"]["state"] == "degraded"
    # without failover, st1's planes need a reroute that only st1.mc (gone) may program
    assert off["control_plane"]["state"] == "local-fallback"
    assert off["job"]["state"] == "aborted"
    assert off["job"]["restart"] == "after the fabric controller is back"


def test_sdr_fallback():
    q = "fail=st1.mc,st3.sw0&off=cp-resilience"
    on, off = ev(q), ev(q + ",sdr-fallback")
    assert on["control_plane"]["state"] == "local-fallback"
    assert on["job"]["state"] == "degraded"
    assert off["control_plane"]["state"] == "frozen"
    assert off["job"]["state"] == "aborted"
    assert "frozen" in off["job"]["cause"]


def test_issu():
    on, off = ev("update=st3"), ev("update=st3&off=issu")
    assert on["job"]["state"] == "degraded"
    assert on["counts"]["switch_chips_drained"] == 4
    assert on["bandwidth"]["per_gpu_tbs"]["min"] == 3.2
    assert off["job"]["state"] == "stopped"
    assert off["bandwidth"]["aggregate_tbs"] == 0.0


def test_rolling_update_drains_one_tray_at_a_time():
    r = ev("update=all")
    assert r["counts"]["switch_chips_drained"] == 4
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == 3.2
    assert r["repairs"][-1]["mode"] == "in-service"


def test_telemetry():
    on, off = ev("flaky=gpu07-st3.sw2"), ev("flaky=gpu07-st3.sw2&off=telemetry")
    assert on["telemetry"]["flagged_links"] == ["gpu07-st3.sw2"]
    assert off["telemetry"]["flagged_links"] == []
    assert off["telemetry"]["degrading_unseen"] == 1
    assert any("unseen" in e for e in off["events"])


def test_controller_faults_alone_never_touch_the_data_plane():
    for q in (
        "fail=st1.mc",
        "fail=st1.mc,st2.mc&off=cp-resilience",
        "fail=st1.mc&off=cp-resilience,sdr-fallback",
    ):
        r = ev(q)
        assert r["bandwidth"]["aggregate_tbs"] == 259.2
        assert r["job"]["state"] == "running"
        assert r["partition"]["state"] == "HEALTHY"


def test_frozen_routes_turn_a_cable_into_a_hard_failure():
    r = ev("fail=st1.mc,gpu07-st3.sw2.c0&off=cp-resilience,sdr-fallback")
    assert r["job"]["state"] == "aborted"


def test_gb200_defaults_are_nvlink5_today():
    r = ev("fabric=gb200-nvl72&fail=st3.sw0")
    assert r["partition"] == {**r["partition"], "mode": "full-bandwidth", "state": "UNHEALTHY"}
    assert r["job"]["state"] == "aborted"
    link = ev("fabric=gb200-nvl72&fail=gpu07-st3.sw0")
    assert link["partition"]["state"] == "DEGRADED"
    assert link["partition"]["parked_gpus"] == ["gpu07"]
    adaptive = ev("fabric=gb200-nvl72&fail=st3.sw0&on=reroute")
    assert adaptive["job"]["state"] == "degraded"


def test_eth_reroutes_in_seconds_and_has_no_sharp():
    r = ev("fabric=eth-x72&fail=st3")
    assert r["job"]["state"] == "degraded" and r["job"]["stall_s"] >= 1
    assert r["sharp_tflops"] == 0
    nv = ev("fail=st3")
    assert nv["job"]["stall_s"] < 0.01
    assert any(a["tag"] == "A" for a in r["assumptions"])


def test_events_speak_plainly():
    r = ev("fail=st3")
    assert r["events"][0] == (
        "st3 lost: 4 of 36 planes down and its controller st3.mc; every GPU at 3.2 TB/s"
    )
    assert any("rerouted by NVLink 6 dynamic rerouting in about 1 ms" in e for e in r["events"])
