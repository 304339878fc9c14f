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


@dataclass(frozen=True)
class _Faults:
    """The masks the failed parts clear (writable while the state is built)."""

    gpu_alive: np.ndarray  # bool[G]
    chip_failed: np.ndarray  # bool[P]
    link_failed: np.ndarray  # bool[G, P]
    cable_failed: np.ndarray  # bool[G, P, C]
    mc_alive: np.ndarray  # bool[T]


def _faults(f: Fabric, failed: tuple[Component, ...]) -> _Faults:
    """What each failed part takes down: a compute tray its GPUs, a switch tray its chips
    and controller, a cable its link."""
    g, p, c = f.gpus, f.planes, f.cables_per_link
    x = _Faults(
        np.ones(g, bool),
        np.zeros(p, bool),
        np.zeros((g, p), bool),
        np.zeros((g, p, c), bool),
        np.ones(f.switch_trays, bool),
    )
    k = f.chips_per_tray
    for comp in failed:
        n = comp.nums
        if comp.kind == "compute-tray":
            x.gpu_alive[(n[0] - 1) * f.gpus_per_tray : n[0] * f.gpus_per_tray] = False
        elif comp.kind == "gpu":
            x.gpu_alive[n[0]] = False
        elif comp.kind == "switch-tray":
            x.chip_failed[(n[0] - 1) * k : n[0] * k] = True
            x.mc_alive[n[0] - 1] = False
        elif comp.kind == "switch-chip":
            x.chip_failed[plane_of(f, n[0], n[1])] = True
        elif comp.kind == "controller":
            x.mc_alive[n[0] - 1] = False
        elif comp.kind == "link":
            x.link_failed[n[0], plane_of(f, n[1], n[2])] = True
        elif comp.kind == "cable":
            pl = plane_of(f, n[1], n[2])
            x.cable_failed[n[0], pl, n[3]] = True
            x.link_failed[n[0], pl] = True
    return x


def _flaky(f: Fabric, ids: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """bool[G, P] links degrading (themselves or a cable), bool[G, P, C] cables degrading."""
    flaky = np.zeros((f.gpus, f.planes), bool)
    flaky_cable = np.zeros((f.gpus, f.planes, f.cables_per_link), bool)
    for comp in (parse_id(x, f) for x in ids):
        pl = plane_of(f, comp.nums[1], comp.nums[2])
        flaky[comp.nums[0], pl] = True
        if comp.kind == "cable":
            flaky_cable[comp.nums[0], pl, comp.nums[3]] = True
    return flaky, flaky_cable


def _updates(
    s: Scenario, f: Fabric, chip_failed: np.ndarray, cp: ControlPlane
) -> tuple[np.ndarray, bool, list[int], list[int]]:
    """A switch update: with in-service updates, the trays wanted (one at a time when
    rolling) drained if their controller has authority, else blocked; without them, a
    maintenance window for all wanted. Returns the drained chips, the window, the trays
    updating and the trays blocked."""
    t, k = f.switch_trays, f.chips_per_tray
    chip_drained = np.zeros(f.planes, bool)
    maintenance = False
    updating: list[int] = []
    blocked: list[int] = []
    rolling = s.update == ("all",)
    if s.update:
        wanted = list(range(1, t + 1)) if rolling else [parse_id(x, f).nums[0] for x in s.update]
        if "issu" not in s.features:
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
    return chip_drained, maintenance, updating, blocked


def build_state(s: Scenario) -> FabricState:
    """Propagate the scenario's faults, updates and feature switches onto the masks."""
    f = s.spec()
    failed = tuple(parse_id(x, f) for x in s.fail)
    x = _faults(f, failed)
    flaky, flaky_cable = _flaky(f, s.flaky)
    features = s.features
    cp = control_plane(f, x.mc_alive, features)
    chip_drained, maintenance, updating, blocked = _updates(s, f, x.chip_failed, cp)
    flaky &= ~x.link_failed
    gpu_alive, chip_failed, link_failed, cable_failed, mc_alive = (
        x.gpu_alive,
        x.chip_failed,
        x.link_failed,
        x.cable_failed,
        x.mc_alive,
    )
    arrays = (gpu_alive, chip_failed, chip_drained, link_failed, cable_failed, flaky, flaky_cable)
    for a in (*arrays, mc_alive):
        _frozen(a)
    rolling = s.update == ("all",)
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
