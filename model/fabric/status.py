"""Every part's status in one rack's scenario: each cable, GPU, switch chip, controller and
tray, and the share of its bandwidth each GPU has lost. The rack drawing, the cable map,
the hover labels and the cards all read this (Assessment.status); none works it out again.

Cable statuses (every cable exactly one; a later one is worse):
  healthy   up, on a GPU at its full bandwidth
  rerouted  up, on a GPU whose bandwidth fell below healthy: it carries moved traffic
  idle      healthy itself, but its link is down for another reason (its GPU lost, a
            sibling cable failed, a maintenance window)
  drained   its switch chip is under a switch update (drained, or in maintenance)
  flaky     the cable, or its link, is degrading (replays) and still up
  failed    the cable, its link or its switch chip failed
Part statuses (a tray shows its worst part): ok, rerouted, idle, flaky, drained, failed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.fabric.presets import Fabric
from model.fabric.state import FabricState, _frozen
from model.ids import parse_id, plane_of
from model.kinds import ComponentKind as K
from model.scenario import Scenario

CABLE_STATUSES = ("healthy", "rerouted", "idle", "drained", "flaky", "failed")
PART_STATUSES = ("ok", "rerouted", "idle", "flaky", "drained", "failed")
OK, REROUTED, IDLE, FLAKY, DRAINED, FAILED = range(len(PART_STATUSES))
# A GPU in service has lost bandwidth below this share of its healthy bandwidth (float
# tolerance: one lost cable of 5,184 is 1/72 of one GPU's, far above it).
REROUTED_BELOW = 1.0 - 1e-9


@dataclass(frozen=True)
class RackStatus:
    """One rack's parts by status (read-only arrays, in the rack's own orders)."""

    cable: np.ndarray  # int8[G x P x C]: index in CABLE_STATUSES, cable order (gpu, plane, c)
    gpu: np.ndarray  # int8[G]: index in PART_STATUSES
    chip: np.ndarray  # int8[P]
    controller: np.ndarray  # int8[T]: the switch trays' management controllers
    compute_tray: np.ndarray  # int8[compute trays]: its worst GPU
    switch_tray: np.ndarray  # int8[T]: its worst chip or its controller
    lost_share: np.ndarray  # float[G]: bandwidth lost, 0 healthy to 1 cut off or failed
    plane_drained: np.ndarray  # bool[P]: its chip under a switch update, not failed
    leader_tray: int | None  # 0-based switch tray of the fabric-manager leader, if any

    def cables(self, status: str) -> np.ndarray:
        """The indices (cable order) of the cables in `status`."""
        return np.flatnonzero(self.cable == CABLE_STATUSES.index(status))

    def of(self, f: Fabric, cid: str) -> tuple[str, str]:
        """One part's status: ("cable", a CABLE_STATUSES name) for a cable or a link (a link
        reads as its worse cable), else ("part", a PART_STATUSES name)."""
        comp = parse_id(cid, f)
        n = comp.nums
        if comp.kind in (K.CABLE, K.LINK):
            first = (n[0] * f.planes + plane_of(f, n[1], n[2])) * f.cables_per_link
            if comp.kind is K.CABLE:
                first, last = first + n[3], first + n[3] + 1
            else:
                last = first + f.cables_per_link
            return "cable", CABLE_STATUSES[int(self.cable[first:last].max())]
        code = {
            K.GPU: lambda: self.gpu[n[0]],
            K.SWITCH_CHIP: lambda: self.chip[plane_of(f, n[0], n[1])],
            K.CONTROLLER: lambda: self.controller[n[0] - 1],
            K.COMPUTE_TRAY: lambda: self.compute_tray[n[0] - 1],
            K.SWITCH_TRAY: lambda: self.switch_tray[n[0] - 1],
        }[comp.kind]()
        return "part", PART_STATUSES[int(code)]


def _named_links(f: Fabric, ids: tuple[str, ...]) -> np.ndarray:
    """bool[G, P]: the links an ID list names directly (not through one of their cables)."""
    mask = np.zeros((f.gpus, f.planes), bool)
    for comp in (parse_id(t, f) for t in ids):
        if comp.kind is K.LINK:
            mask[comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])] = True
    return mask


def drained_planes(st: FabricState) -> np.ndarray:
    """bool[P]: planes whose chips are under a switch update (drained, or the maintenance
    window's trays), and not failed."""
    f = st.fabric
    drained = st.chip_drained.copy()
    if st.maintenance:
        k = f.chips_per_tray
        for tray in st.updating:
            drained[(tray - 1) * k : tray * k] = True
    return drained & ~st.chip_failed


def _cables(
    s: Scenario, st: FabricState, drained_p: np.ndarray, rerouted_gpu: np.ndarray
) -> np.ndarray:
    """int8[G x P x C]: each cable's status, the worst that applies."""
    f = st.fabric
    shape = (f.gpus, f.planes, f.cables_per_link)
    failed_links = _named_links(f, tuple(c.id for c in st.failed if c.kind is K.LINK))
    failed = st.cable_failed | failed_links[:, :, None] | st.chip_failed[None, :, None]
    drained = np.broadcast_to(drained_p[None, :, None], shape) & ~failed
    flaky = (st.flaky_cable | _named_links(f, s.flaky)[:, :, None]) & ~failed & ~drained
    rest = ~failed & ~drained & ~flaky
    up = np.broadcast_to(st.up[:, :, None], shape)
    moved = np.broadcast_to(rerouted_gpu[:, None, None], shape)
    code = np.zeros(shape, np.int8)  # healthy
    for name, mask in (
        ("rerouted", rest & up & moved),
        ("idle", rest & ~up),
        ("drained", drained),
        ("flaky", flaky),
        ("failed", failed),
    ):
        code[mask] = CABLE_STATUSES.index(name)
    return code.ravel()


def _gpus(st: FabricState, cable: np.ndarray, bw: np.ndarray, rerouted: np.ndarray) -> np.ndarray:
    f = st.fabric
    gpu = np.full(f.gpus, OK, np.int8)
    gpu[rerouted] = REROUTED
    flaky_cables = np.flatnonzero(cable == CABLE_STATUSES.index("flaky"))
    flaky_gpu = np.zeros(f.gpus, bool)
    flaky_gpu[flaky_cables // (f.planes * f.cables_per_link)] = True
    gpu[flaky_gpu & st.gpu_alive] = FLAKY
    gpu[st.gpu_alive & (bw <= 0)] = IDLE
    gpu[~st.gpu_alive] = FAILED
    return gpu


def rack_status(s: Scenario, st: FabricState, bw: np.ndarray) -> RackStatus:
    """Every part's status in scenario s with fabric state st and per-GPU bandwidth bw."""
    f = st.fabric
    rerouted = st.gpu_alive & (bw < f.gpu_tbs_bidir * REROUTED_BELOW)
    drained_p = drained_planes(st)
    cable = _cables(s, st, drained_p, rerouted)
    gpu = _gpus(st, cable, bw, rerouted)
    chip = np.full(f.planes, OK, np.int8)
    chip[~st.chip_in_service] = IDLE
    chip[drained_p] = DRAINED
    chip[st.chip_failed] = FAILED
    mc = np.full(f.switch_trays, OK, np.int8)
    mc[~st.control.authority] = IDLE
    mc[~st.mc_alive] = FAILED
    share = np.where(st.gpu_alive, np.clip(1.0 - bw / f.gpu_tbs_bidir, 0.0, 1.0), 1.0)
    leader = st.control.leader
    return RackStatus(
        *(
            _frozen(a)
            for a in (
                cable,
                gpu,
                chip,
                mc,
                gpu.reshape(f.compute_trays, f.gpus_per_tray).max(axis=1),
                np.maximum(chip.reshape(f.switch_trays, f.chips_per_tray).max(axis=1), mc),
                share,
                drained_p,
            )
        ),
        None if leader is None else parse_id(leader, f).nums[0] - 1,
    )
