"""The timeline of one fault: reroute in ms or s, or abort, restart and lost work; repair."""

import pytest

from model import evaluate, parse_query
from model.errors import ScenarioError
from model.reliability.rates import DEFAULT_RATES
from model.reliability.timeline import events_time, timeline
from model.workloads.throughput import delivered_fraction


def tl(q, **kw):
    return timeline(parse_query(q).scenario, **kw)


def test_nvlink_reroutes_in_a_millisecond_and_ethernet_in_seconds():
    nv, eth = tl("fail=st3"), tl("fabric=eth-x72&fail=st3")
    assert events_time(nv["events"], "rerouted") == pytest.approx(1e-3)
    assert events_time(eth["events"], "rerouted") == pytest.approx(3.0)
    assert nv["lost_work_s"] == eth["lost_work_s"] == 0
    nv_end, eth_end = nv["series"][-1]["goodput"], eth["series"][-1]["goodput"]
    # both run on; each at least the rate it delivers while degraded (less Ethernet's stall;
    # goodput is rounded to 1e-6), Ethernet not above NVLink; Ethernet's seconds of
    # rerouting cost more than NVLink's millisecond
    nv_rate = delivered_fraction(parse_query("fail=st3").scenario)
    eth_rate = delivered_fraction(parse_query("fabric=eth-x72&fail=st3").scenario)
    stall = 3.0 / eth["series"][-1]["t_s"]  # Ethernet's rerouting seconds, over the window
    assert 1 >= nv_end >= nv_rate >= eth_rate and 1 > eth_end >= eth_rate - stall - 1e-6
    assert nv_end > eth_end
    # a lost tray costs decode what it exposes: where two micro-batches still hide the
    # all-to-all on 8 of 9 trays, nothing
    for q, rate in (("fail=st3", nv_rate), ("fabric=eth-x72&fail=st3", eth_rate)):
        bd = evaluate(parse_query(q).scenario)["decode"]["breakdown"]
        assert (rate < 1) == (bd["parts_us"]["exposed"] > 0)


def test_abort_loses_half_a_checkpoint_interval_and_waits_for_repair():
    t = tl("fail=st3&off=reroute", checkpoint_interval_s=1200)
    assert t["lost_work_s"] == 600
    assert events_time(t["events"], "aborted") == DEFAULT_RATES.detect_telemetry_s
    assert any(p["delivered"] == 0 and p["t_s"] > 3600 for p in t["series"])
    assert t["series"][-1]["delivered"] == t["before"]


def test_without_telemetry_detection_is_a_timeout_and_diagnosis_is_slow():
    t = tl("fail=gpu07-st3.sw2.c0&off=reroute,telemetry")
    assert events_time(t["events"], "aborted") == DEFAULT_RATES.detect_timeout_s
    assert any("to find" in e["event"] for e in t["events"])
    on = tl("fail=gpu07-st3.sw2.c0&off=reroute")
    assert t["window_s"][1] > on["window_s"][1]


def test_hot_swap_keeps_delivering_rack_down_does_not():
    hot = tl("fail=st3&workload=train")
    cold = tl("fail=st3&workload=train&off=hot-swap")
    assert min(p["delivered"] for p in hot["series"] if p["t_s"] > 1) > 0
    assert min(p["delivered"] for p in cold["series"] if p["t_s"] > 1) == 0
    assert hot["series"][-1]["goodput"] > cold["series"][-1]["goodput"]


def test_controller_fault_never_touches_delivery():
    t = tl("fail=st1.mc")
    assert all(p["delivered"] == 1.0 for p in t["series"])


def test_older_faults_are_history():
    # gpu01's abort happened before; st3's own story is a reroute
    t = tl("fail=st3,gpu01", fault="st3")
    assert any("rerouted" in e["event"] for e in t["events"])
    assert t["lost_work_s"] == 0


def test_unknown_fault_is_refused():
    with pytest.raises(ScenarioError, match="st4"):
        tl("fail=st3", fault="st4")


def test_no_fault():
    assert tl("")["fault"] is None
