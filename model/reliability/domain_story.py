"""What the timeline (model/reliability/timeline.py) reads for a domain's fault: the fault's
kind and sentence, the delivered fraction before and after, whether this fault (not an older
one) aborts the job, and when routes are back if it waits for a controller."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model.fabric.fate import unroutable_planes
from model.kinds import ComponentKind as K
from model.kinds import DomainKind, JobState, RepairAction
from model.multirack.assess import DomainAssessment, assess_domain
from model.multirack.domains import DOMAINS, l2_tray_id, l2_tray_of, parse_part, rack_id
from model.multirack.events import fault_line
from model.multirack.fate import l2_unroutable
from model.reliability.accounting import checkpoint_interval_s, visit_wait_h
from model.reliability.domain_work import delivered_fraction
from model.reliability.facts import FaultFacts, routes_back
from model.reliability.policy import parse_policy
from model.reliability.rates import Rates
from model.scenario import Scenario


def with_fail(s: Scenario, fail: tuple[str, ...]) -> Scenario:
    """s with these faults, in canonical order (the memo key of the assessment)."""
    d = DOMAINS[s.fabric]
    parts = {t: parse_part(t, d) for t in fail}
    return replace(s, fail=tuple(sorted(parts, key=lambda t: parts[t].sort_key())))


def unroutable(a: DomainAssessment) -> np.ndarray:
    """bool[R x P + 1]: each rack's planes with a fault nobody can reroute, and the L2 tier."""
    d = a.fabric
    out = np.zeros(d.racks * d.planes + 1, bool)
    for r, ra in enumerate(a.racks):
        if ra is not None:
            out[r * d.planes : (r + 1) * d.planes] = unroutable_planes(ra.state)
    out[-1] = l2_unroutable(a.state)
    return out


def _delivered(s: Scenario) -> float:
    """The delivered fraction (0 when the domain's training step is not modelled yet)."""
    x = delivered_fraction(s)
    return 0.0 if x is None else x


def domain_facts(s: Scenario, fid: str, rates: Rates) -> FaultFacts:
    """The timeline's FaultFacts for fault `fid` of domain scenario s."""
    d = DOMAINS[s.fabric]
    part = parse_part(fid, d)
    before_s = with_fail(s, tuple(x for x in s.fail if x != fid))
    a0, a = assess_domain(before_s), assess_domain(s)
    more_lost = len(a.partition.lost) > len(a0.partition.lost)
    new_unroutable = bool((unroutable(a) & ~unroutable(a0)).any())
    kind = part.kind
    local = part.local

    def whole_tray() -> float:
        if local is not None and local.kind in (K.SWITCH_CHIP, K.SWITCH_TRAY):
            tray = f"{rack_id(part.rack)}.st{local.switch_tray}"
        elif kind is DomainKind.L2_CHIP:
            tray = l2_tray_id(l2_tray_of(d, *part.l2))
        else:
            return _delivered(s)
        return _delivered(with_fail(s, (*before_s.fail, tray)))

    # the checkpoint interval and a deferring policy's wait: the domain's own, from its
    # lifetime's events (model/reliability/domain.py), as goodput and evaluate report them
    policy = parse_policy(s.repair)
    return FaultFacts(
        kind=kind,
        data=kind.data_plane,
        controller=kind is K.CONTROLLER,
        sentence=fault_line(a, fid, part),
        a=a,
        before=_delivered(before_s),
        after=_delivered(s),
        aborted=a.job.state is JobState.ABORTED and (more_lost or new_unroutable),
        stall_s=d.rack.reroute_stall_s,
        reroute_how=d.rack.reroute_how,
        control_explanation=a.state.control.explanation,
        whole_tray=whole_tray,
        controller_back=lambda: _controller_back(s, a),
        visit_wait_s=visit_wait_h(s, rates) * 3600.0 if policy.kind != "now" else 0.0,
        interval_s=lambda: checkpoint_interval_s(s, rates),
        whole="domain",
    )


def _controller_back(s: Scenario, a: DomainAssessment) -> tuple[float, float]:
    """When routes are back and what the job delivers then (facts.routes_back): controller
    restarts, switch tray swaps (L1 or L2) and racks restored."""
    fixes = (
        r
        for r in a.repairs
        if r.action in (RepairAction.RESTART_CONTROLLER, RepairAction.RESTORE_RACK)
        or (r.id in s.fail and _is_tray(parse_part(r.id, a.fabric)))
    )
    return routes_back(
        s,
        fixes,
        lambda left: not unroutable(assess_domain(with_fail(s, left))).any(),
        lambda left: _delivered(with_fail(s, left)),
    )


def _is_tray(part) -> bool:
    """A switch tray (L1 or L2): its swap brings its controller back."""
    return part.kind is DomainKind.L2_TRAY or part.kind is K.SWITCH_TRAY
