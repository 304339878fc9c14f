"""The control plane of a multi-rack domain: each rack's NMX-Controller for its own L1 tier,
and the domain's global fabric manager for the L2 tier and the routes between racks.

[A] (docs/MULTIRACK.md): every rack keeps the control plane of one NVL72
(model/fabric/control.py: the leader on its st1.mc, a peer takes over with control-plane
resilience); the domain's global fabric manager runs beside r01's leader. If r01 has no
leader (the rack is lost, or its controllers are), control-plane resilience hands the global
role to the next rack that has one; without it, software-defined routing's fallback lets each
L2 tray's controller route its own chips; with both off the L2 tier's routes freeze.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.kinds import ControlState, Feature
from model.multirack import words
from model.multirack.domains import Domain, rack_id

# how bad a control state is, for the domain's worst
_ORDER = (
    ControlState.DISTRIBUTED,  # a rack with no fabric manager (never in a domain today)
    ControlState.HEALTHY,
    ControlState.FAILED_OVER,
    ControlState.TRAYS_LOST,
    ControlState.LOCAL_FALLBACK,
    ControlState.FROZEN,
)
GLOBAL_HOME_RACK = 0  # r01 hosts the global fabric manager [A]


@dataclass(frozen=True)
class DomainControl:
    """Who may program routes in the domain."""

    state: ControlState  # the worst of the global role and every rack's own
    global_state: ControlState  # the global fabric manager's (the L2 tier's routes)
    leader: str | None  # the controller running the global fabric manager
    l2_authority: bool  # the L2 tier's routes can be reprogrammed
    authority: np.ndarray  # bool[R, T]: each rack's trays' chips can be reprogrammed
    controllers_down: tuple[str, ...]
    rack_states: tuple[ControlState | None, ...]  # None: the rack is lost
    explanation: str


def domain_control(d: Domain, racks: tuple, features: frozenset[str]) -> DomainControl:
    """The global role's place and each rack's own control plane (racks: Assessment | None)."""
    t = d.rack.switch_trays
    states = tuple(None if a is None else a.state.control.state for a in racks)
    auth = np.zeros((d.racks, t), bool)
    down: list[str] = []
    for r, a in enumerate(racks):
        if a is None:
            down += [f"{rack_id(r)}.st{i + 1}.mc" for i in range(t)]
            continue
        auth[r] = a.state.control.authority
        down += [f"{rack_id(r)}.{c}" for c in a.state.control.controllers_down]
    auth.flags.writeable = False

    def leader_of(r: int) -> str | None:
        a = racks[r]
        return None if a is None or a.state.control.leader is None else a.state.control.leader

    home = f"{rack_id(GLOBAL_HOME_RACK)}.st1.mc"
    here = leader_of(GLOBAL_HOME_RACK)
    if here is not None:
        g_state, leader, l2_ok = ControlState.HEALTHY, f"{rack_id(GLOBAL_HOME_RACK)}.{here}", True
        why = words.global_home(leader)
    else:
        peer = next((r for r in range(d.racks) if leader_of(r) is not None), None)
        if Feature.CP_RESILIENCE in features and peer is not None:
            leader = f"{rack_id(peer)}.{leader_of(peer)}"
            g_state, l2_ok = ControlState.FAILED_OVER, True
            why = words.global_failed_over(home, leader)
        elif Feature.SDR_FALLBACK in features:
            leader, g_state, l2_ok = None, ControlState.LOCAL_FALLBACK, True
            why = words.global_local_fallback(home)
        else:
            leader, g_state, l2_ok = None, ControlState.FROZEN, False
            why = words.global_frozen(home)
    worst = max((g_state, *(x for x in states if x is not None)), key=_ORDER.index)
    racks_not_healthy = [
        f"{rack_id(r)}: {racks[r].state.control.explanation}"
        for r, x in enumerate(states)
        if x is not None and x is not ControlState.HEALTHY
    ]
    return DomainControl(
        worst,
        g_state,
        leader,
        l2_ok,
        auth,
        tuple(down),
        states,
        words.control(why, racks_not_healthy),
    )
