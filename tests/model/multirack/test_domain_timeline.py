"""The timeline of a domain's newest fault (model/reliability/timeline.py reading the
DomainAssessment): a rack part, a whole rack, an L2 chip, a trunk."""

import pytest

from model import evaluate, parse_query
from model.errors import ScenarioError
from model.kinds import EventKind as E
from model.reliability.timeline import timeline


def _tl(q: str, fault: str | None = None) -> dict:
    return timeline(parse_query(q).scenario, fault)


def _kinds(t: dict) -> list[str]:
    return [e["kind"] for e in t["events"]]


def test_a_rack_switch_tray_is_rerouted_and_hot_swapped():
    t = _tl("fabric=vr-nvl1152&fail=r03.st2")
    assert t["kind"] == "switch-tray" and t["job"]["state"] == "degraded"
    assert E.REROUTED in _kinds(t) and E.ABORTED not in _kinds(t)
    assert t["repair"]["mode"] == "hot-swap" and "r03.st2" in t["repair"]["action"]
    assert t["events"][0]["event"].startswith("r03: st2 lost")
    assert t["series"][-1]["delivered"] == t["before"] == 1.0


def test_a_whole_rack_aborts_and_restarts_smaller_at_once():
    q = "fabric=vr-nvl1152&fail=r03"
    t = _tl(q)
    assert t["kind"] == "rack" and E.ABORTED in _kinds(t) and t["lost_work_s"] > 0
    restarted = [e for e in t["events"] if e["kind"] == E.RESTARTED]
    assert "1080 GPUs" in restarted[0]["event"]
    r = evaluate(parse_query(q).scenario)
    assert t["degraded"] == r["delivered_fraction"]  # one answer
    assert 0.9 < t["degraded"] < 1.0  # 15 of 16 racks, per installed GPU
    # without partial-rack operation the domain waits for the rack
    off = _tl(q + "&off=partial-rack")
    assert off["job"]["restart_kind"] == "after-repair" and off["degraded"] == 0.0
    assert off["repair"]["rack_down_h"] == 24.0


def test_an_l2_chip_reroutes_or_hangs():
    t = _tl("fabric=vr-nvl576&fail=l2.p05.s1")
    assert t["kind"] == "l2-chip" and E.REROUTED in _kinds(t)
    assert t["repair"]["action"] == "swap switch tray l2.t06"
    hang = _tl("fabric=vr-nvl576&fail=l2.p05.s1&off=reroute")
    assert E.ABORTED in _kinds(hang) and hang["job"]["restart_kind"] == "after-repair"
    down = [p for p in hang["series"] if p["t_s"] > 0]
    assert down[0]["delivered"] == 0.0 and hang["series"][-1]["delivered"] == 1.0


def test_the_newest_fault_not_an_older_one_aborts():
    # r01 is old news; the L2 chip lost with no global fabric manager cannot be rerouted
    q = "fabric=vr-nvl576&fail=r01,l2.p00.s0&off=cp-resilience,sdr-fallback"
    t = _tl(q)
    assert E.ABORTED in _kinds(t) and t["job"]["restart_kind"] == "after-controller"
    waiting = [e for e in t["events"] if e["kind"] == E.WAITING]
    assert waiting and "24.0 h" in waiting[0]["event"]  # until r01 is restored
    # with resilience on, a peer rack holds the global role: the L2 loss is routed around
    ok = _tl("fabric=vr-nvl576&fail=r01,l2.p00.s0")
    assert E.ABORTED not in _kinds(ok) and E.REROUTED in _kinds(ok)
    # the older fault, asked for by name
    assert _tl(q, "r01")["kind"] == "rack"


def test_a_trunk_bundle_is_replaced_in_place():
    t = _tl("fabric=vr-nvl576&fail=r03.st2.sw1-l2.s3")
    assert t["kind"] == "trunk" and t["repair"]["mode"] == "in-place"
    assert t["repair"]["action"] == "replace the trunk cables r03.st2.sw1-l2.s3"


def test_a_fault_not_in_the_scenario_is_named():
    with pytest.raises(ScenarioError) as e:
        _tl("fabric=vr-nvl576&fail=r03", "r04")
    assert e.value.token == "r04"
    assert _tl("fabric=vr-nvl576")["fault"] is None
