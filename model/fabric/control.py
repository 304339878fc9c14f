"""The control plane: who may program routes, given which management controllers are alive.

The fabric controller's leader (NMX-Controller: subnet manager + global fabric manager,
FACTS.md §2) runs on st1.mc. With control-plane resilience a healthy peer takes over when it
fails; without it, the leader's loss leaves no central controller. Software-defined routing
with fallback then lets each healthy tray controller reroute its own chips; with both off,
routes freeze. Controller faults never touch the data plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import words
from model.fabric.presets import Fabric
from model.ids import controller_id, tray_id
from model.kinds import ControlState, Feature

LEADER_HOME_TRAY = 1  # st1.mc hosts the leader


@dataclass(frozen=True)
class ControlPlane:
    state: ControlState
    leader: str | None  # the controller running the central fabric manager, if any
    authority: np.ndarray  # bool[T]: a routing authority can reprogram tray t's chips
    controllers_down: tuple[str, ...]
    explanation: str


def control_plane(f: Fabric, mc_alive: np.ndarray, features: frozenset[str]) -> ControlPlane:
    """Resolve the leader and the routing authority per switch tray. A fabric with no central
    fabric manager (Ethernet) has no leader: every switch routes for itself, so a lost
    management controller costs its management and never a route."""
    t = f.switch_trays
    down = tuple(controller_id(i + 1) for i in range(t) if not mc_alive[i])
    if not f.fabric_manager:
        return ControlPlane(
            ControlState.DISTRIBUTED, None, np.ones(t, bool), down, words.control_distributed(down)
        )
    home = controller_id(LEADER_HOME_TRAY)
    resilient = Feature.CP_RESILIENCE in features
    if mc_alive[LEADER_HOME_TRAY - 1]:
        if down and not resilient:  # FACTS.md §3: that tray's control plane is gone
            trays = ", ".join(tray_id(i + 1) for i in range(t) if not mc_alive[i])
            return ControlPlane(
                ControlState.TRAYS_LOST,
                home,
                mc_alive.copy(),
                down,
                words.control_trays_lost(home, len(down), trays),
            )
        return ControlPlane(
            ControlState.HEALTHY,
            home,
            np.ones(t, bool),
            down,
            words.control_healthy(home, len(down)),
        )
    alive = [i for i in range(t) if mc_alive[i]]
    if resilient and alive:
        peer = controller_id(alive[0] + 1)
        return ControlPlane(
            ControlState.FAILED_OVER,
            peer,
            np.ones(t, bool),
            down,
            words.control_failed_over(home, peer),
        )
    why = words.NO_RESILIENCE if alive else words.NO_CONTROLLER_LEFT
    if Feature.SDR_FALLBACK in features:
        n = int(mc_alive.sum())
        return ControlPlane(
            ControlState.LOCAL_FALLBACK,
            None,
            mc_alive.copy(),
            down,
            words.control_local_fallback(home, why, n, t),
        )
    return ControlPlane(
        ControlState.FROZEN,
        None,
        np.zeros(t, bool),
        down,
        words.control_frozen(home, why),
    )
