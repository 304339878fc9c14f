"""Fault propagation: from the scenario's IDs to boolean masks of what is up.

The crossbar makes this a 72 x planes matrix (docs/ARCHITECTURE.md, "Fast and exact"):
a switch tray takes its chips and its controller; a compute tray takes its GPUs; a GPU takes
its links; a cable takes its link down; a flaky link or cable stays up at reduced efficiency.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from model.fabric.control import ControlPlane, control_plane
from model.fabric.presets import Fabric
from model.ids import Component, parse_id, plane_of
from model.params import FLAKY_LINK_EFFICIENCY
from model.scenario import Scenario


@dataclass(frozen=True)
class FabricState:
    """Everything evaluate needs, as arrays. Arrays are read-only after construction."""

    fabric: Fabric
    features: frozenset[str]
    failed: tuple[Component, ...]
    gpu_alive: np.ndarray  # bool[G]
    chip_failed: np.ndarray  # bool[P]
    chip_drained: np.ndarray  # bool[P]: under in-service update, traffic moved off
    link_failed: np.ndarray  # bool[G, P]: the link itself or one of its cables failed
    cable_failed: np.ndarray  # bool[G, P, C]
    flaky: np.ndarray  # bool[G, P]: link degrading (itself or a cable), and up
    flaky_cable: np.ndarray  # bool[G, P, C]
    mc_alive: np.ndarray  # bool[T]
    control: ControlPlane
    maintenance: bool  # a switch update with in-service updates off: rack down
    updating: tuple[int, ...]  # 1-based switch trays being updated now
    update_blocked: tuple[int, ...]  # trays whose update cannot drain (no routing authority)
    rolling: bool  # update=all: one tray at a time

    # Derived masks, computed once per state (evaluate reads them many times). The dataclass
    # is frozen but has no __slots__, so cached_property can store into the instance __dict__.
    @cached_property
    def chip_in_service(self) -> np.ndarray:
        if self.maintenance:
            return _frozen(np.zeros_like(self.chip_failed))
        return _frozen(~self.chip_failed & ~self.chip_drained)

    @cached_property
    def up(self) -> np.ndarray:
        """bool[G, P]: link carries traffic."""
        return _frozen(self.gpu_alive[:, None] & self.chip_in_service[None, :] & ~self.link_failed)

    @cached_property
    def efficiency(self) -> np.ndarray:
        """float[G, P]: fraction of a link's rate delivered (0 down, <1 flaky)."""
        up = self.up
        eff = up.astype(float)
        eff[self.flaky & up] = FLAKY_LINK_EFFICIENCY
        return _frozen(eff)

    @property
    def needs_reroute(self) -> np.ndarray:
        """bool[G, P]: live GPU's link lost to an unplanned fault (not a planned drain)."""
        dead = self.chip_failed[None, :] | self.link_failed
        return self.gpu_alive[:, None] & dead


def _frozen(a: np.ndarray) -> np.ndarray:
    """The array, made read-only (FabricState's arrays are shared by every reader)."""
    a.flags.writeable = False
    return a


def build_state(s: Scenario) -> FabricState:
    """Propagate the scenario's faults, updates and feature switches onto the masks."""
    f = s.spec()
    g, p, c, t = f.gpus, f.planes, f.cables_per_link, f.switch_trays
    gpu_alive = np.ones(g, bool)
    chip_failed = np.zeros(p, bool)
    link_failed = np.zeros((g, p), bool)
    cable_failed = np.zeros((g, p, c), bool)
    mc_alive = np.ones(t, bool)
    failed = tuple(parse_id(x, f) for x in s.fail)
    k = f.chips_per_tray
    for comp in failed:
        n = comp.nums
        if comp.kind == "compute-tray":
            gpu_alive[(n[0] - 1) * f.gpus_per_tray : n[0] * f.gpus_per_tray] = False
        elif comp.kind == "gpu":
            gpu_alive[n[0]] = False
        elif comp.kind == "switch-tray":
            chip_failed[(n[0] - 1) * k : n[0] * k] = True
            mc_alive[n[0] - 1] = False
        elif comp.kind == "switch-chip":
            chip_failed[plane_of(f, n[0], n[1])] = True
        elif comp.kind == "controller":
            mc_alive[n[0] - 1] = False
        elif comp.kind == "link":
            link_failed[n[0], plane_of(f, n[1], n[2])] = True
        elif comp.kind == "cable":
            pl = plane_of(f, n[1], n[2])
            cable_failed[n[0], pl, n[3]] = True
            link_failed[n[0], pl] = True

    flaky = np.zeros((g, p), bool)
    flaky_cable = np.zeros((g, p, c), bool)
    for comp in (parse_id(x, f) for x in s.flaky):
        pl = plane_of(f, comp.nums[1], comp.nums[2])
        flaky[comp.nums[0], pl] = True
        if comp.kind == "cable":
            flaky_cable[comp.nums[0], pl, comp.nums[3]] = True

    features = s.features
    cp = control_plane(f, mc_alive, features)

    chip_drained = np.zeros(p, bool)
    maintenance = False
    updating: list[int] = []
    blocked: list[int] = []
    rolling = s.update == ("all",)
    if s.update:
        wanted = list(range(1, t + 1)) if rolling else [parse_id(x, f).nums[0] for x in s.update]
        if "issu" not in features:
            maintenance = True
            updating = wanted
        else:
            live = [tr for tr in wanted if not chip_failed[(tr - 1) * k : tr * k].all()]
            for tr in live[:1] if rolling else live:
                if cp.authority[tr - 1]:
                    chip_drained[(tr - 1) * k : tr * k] = True
                    updating.append(tr)
                else:
                    blocked.append(tr)
        chip_drained &= ~chip_failed

    flaky &= ~link_failed
    arrays = (gpu_alive, chip_failed, chip_drained, link_failed, cable_failed, flaky, flaky_cable)
    for a in (*arrays, mc_alive):
        _frozen(a)
    return FabricState(
        fabric=f,
        features=features,
        failed=failed,
        gpu_alive=gpu_alive,
        chip_failed=chip_failed,
        chip_drained=chip_drained,
        link_failed=link_failed,
        cable_failed=cable_failed,
        flaky=flaky,
        flaky_cable=flaky_cable,
        mc_alive=mc_alive,
        control=cp,
        maintenance=maintenance,
        updating=tuple(updating),
        update_blocked=tuple(blocked),
        rolling=rolling,
    )
