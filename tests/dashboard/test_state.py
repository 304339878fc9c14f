"""What clicks and controls do to the scenario (pure), and the export."""

from dataclasses import replace

import pytest

from dashboard import state
from model.errors import ScenarioError
from model.query import parse_query


def s(q=""):
    return parse_query(q).scenario


def test_click_fails_then_repairs():
    a, msg = state.toggle(s(), "gpu07-st3.sw2.c0")
    assert a.fail == ("gpu07-st3.sw2.c0",) and "failed" in msg
    b, msg = state.toggle(a, "gpu07-st3.sw2.c0")
    assert b.fail == () and "repaired" in msg


def test_switch_tray_repair_is_a_hot_swap_when_on():
    a, _ = state.toggle(s(), "st3")
    _, msg = state.toggle(a, "st3")
    assert "hot-swapped" in msg
    c, _ = state.toggle(s("off=hot-swap"), "st3")
    _, msg = state.toggle(c, "st3")
    assert "repaired" in msg


def test_flaky_mode_takes_links_and_cables_only():
    a, _ = state.toggle(s(), "gpu07-st3.sw2", "flaky")
    assert a.flaky == ("gpu07-st3.sw2",)
    with pytest.raises(ScenarioError, match="st3"):
        state.toggle(s(), "st3", "flaky")


def test_bad_typed_id_names_itself():
    with pytest.raises(ScenarioError, match="st10"):
        state.toggle(s(), "st10")


def test_fabric_change_drops_what_the_new_fabric_lacks_and_says_so():
    a, msgs = state.set_fabric(s("fail=st3.sw3,gpu01&off=reroute"), "gb200-nvl72")
    assert a.fabric == "gb200-nvl72" and a.fail == ("gpu01",)
    assert any("st3.sw3" in m for m in msgs)
    assert a.off == ()  # GB200 has no dynamic rerouting to turn off: said, not carried
    assert "off=reroute: already off on gb200-nvl72" in msgs


def test_feature_switches_survive_a_round_trip_through_another_fabric():
    """Issue 28 (2): /?fail=st3&off=reroute -> eth-x72 -> back gave /?fail=st3, silently."""
    there, msgs = state.set_fabric(s("fail=st3&off=reroute"), "eth-x72")
    assert there.off == ("reroute",) and msgs == []
    back, msgs = state.set_fabric(there, "vr-nvl72")
    assert back == s("fail=st3&off=reroute") and msgs == []
    domain, msgs = state.set_fabric(s("fail=st3&off=reroute,telemetry"), "vr-nvl576")
    assert set(domain.off) == {"reroute", "telemetry"} and msgs == []
    up, msgs = state.set_fabric(s("fabric=gb200-nvl72&on=reroute,telemetry"), "vr-nvl72")
    assert up.on == () and up.features >= {"reroute", "telemetry"}  # on there anyway
    assert msgs == ["on=reroute: already on on vr-nvl72", "on=telemetry: already on on vr-nvl72"]


def test_features_and_update_and_presets():
    a = state.set_features(s(), ["telemetry"])
    assert "reroute" in a.off and "telemetry" not in a.off
    assert state.set_update(s(), "all").update == ("all",)
    assert state.set_update(state.set_update(s(), "st3"), "").update == ()
    for name, (_label, q) in state.PRESETS.items():
        assert state.preset(name) == parse_query(q).scenario
    assert state.repair_all(s("fail=st3&flaky=gpu01-st1.sw0&update=all")).fail == ()


def test_a_round_trip_through_a_domain_keeps_what_exists_on_both():
    s = parse_query("fabric=eth-x72&fail=st3,gpu07-st3.sw2.c1&flaky=gpu20-st5.sw1").scenario
    there, msgs = state.set_fabric(s, "vr-nvl576")
    assert there.fail == ("r01.st3", "r01.gpu07-st3.sw2.c1")
    assert there.flaky == ("r01.gpu20-st5.sw1",) and msgs == []  # flaky links too (issue 16)
    back, msgs = state.set_fabric(replace(there, fail=(*there.fail, "r02.st1")), "vr-nvl72")
    assert back.fabric == "vr-nvl72" and set(back.fail) == {"st3", "gpu07-st3.sw2.c1"}
    assert back.flaky == ("gpu20-st5.sw1",)
    assert msgs == ["not on vr-nvl72, left behind: r02.st1"]
    gb, msgs = state.set_fabric(parse_query("fail=gpu07-st3.sw2.c1,st2").scenario, "gb200-nvl72")
    assert gb.fail == ("st2",) and "gpu07-st3.sw2.c1" in msgs[0]  # NVLink 5 has sw0, sw1


def test_the_repair_policy_survives_a_change_of_rack_fabric():
    s = parse_query("fail=st3&repair=window-7").scenario
    moved, _ = state.set_fabric(s, "gb200-nvl72")
    assert moved.repair == "window-7" and moved.fail == ("st3",)
    to_domain, _ = state.set_fabric(s, "vr-nvl576")  # a domain has no repair policy yet
    assert to_domain.repair == "now"
