"""The control plane as FACTS.md §3 says, for every controller (issue 14, item 6): with
control-plane resilience off a lost tray controller takes its tray's control plane with it,
so a new fault on that tray's chips cannot be rerouted; with it on a peer takes over."""

from model import assess, evaluate, parse_query
from model.kinds import ControlState, JobState, Restart
from model.reliability import effects
from model.reliability.timeline import timeline


def _a(q: str):
    return assess(parse_query(q).scenario)


def test_a_lost_tray_controller_without_resilience_loses_its_trays_routing():
    a = _a("fail=st3.mc&off=cp-resilience")
    assert a.state.control.state is ControlState.TRAYS_LOST
    assert not a.state.control.authority[2] and a.state.control.authority[[0, 1, 3]].all()
    assert a.job.state is JobState.RUNNING  # the data plane is untouched
    on = _a("fail=st3.mc")
    assert on.state.control.state is ControlState.HEALTHY and on.state.control.authority.all()


def test_a_fault_on_that_tray_then_aborts_and_waits_for_the_controller():
    a = _a("fail=st3.mc,gpu07-st3.sw2&off=cp-resilience")
    assert a.job.state is JobState.ABORTED and a.job.restart is Restart.AFTER_CONTROLLER
    assert a.repair_of("gpu07-st3.sw2").meanwhile.value.startswith("down until")
    # the same fault with resilience on, or on another tray, is routed around
    assert _a("fail=st3.mc,gpu07-st3.sw2").job.state is JobState.DEGRADED
    assert _a("fail=st3.mc,gpu07-st4.sw2&off=cp-resilience").job.state is JobState.DEGRADED
    tl = timeline(parse_query("fail=st3.mc,gpu07-st3.sw2&off=cp-resilience").scenario)
    back = next(e for e in tl["events"] if e["kind"] == "restarted")
    # the controller restart (15 min, counted from this fault: it is the older fault's
    # repair) outlasts the 30 s detection; then the 10-minute restart
    assert back["t_s"] == max(30, 0.25 * 3600) + 600
    r = evaluate(parse_query("fail=st3.mc,gpu07-st3.sw2&off=cp-resilience").scenario)
    assert "st3" not in r["control_plane"]["routing_authority"]


def test_goodput_counts_faults_that_land_on_a_tray_without_its_controller():
    names = {e.name for e in effects.effects(parse_query("off=cp-resilience").scenario)}
    assert "data fault on a tray without its controller" in names
    names_on = {e.name for e in effects.effects(parse_query("").scenario)}
    assert "data fault on a tray without its controller" not in names_on
