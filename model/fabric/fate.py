"""Partition health, the job's fate and the repair each fault needs, as typed values.

Partition states follow NMX-Manager (FACTS.md §2). With dynamic rerouting the partition runs
in adaptive-bandwidth mode (HEALTHY / BANDWIDTH / UNHEALTHY; BANDWIDTH is for missing trunk
links between racks, so one rack short of GPU links stays HEALTHY, its GPUs' own fabric health
DEGRADED_BW: docs/TELEMETRY.md); without it, in full-bandwidth
mode, today's NVLink 5 default (HEALTHY / DEGRADED with GPUs parked / UNHEALTHY on the loss
of a switch). Lost GPUs shrink the domain (DEGRADED) only with partial-rack operation on.
The decisions are made here on types (model/kinds.py); model/words.py writes the sentences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import words
from model.fabric.presets import Fabric
from model.fabric.state import FabricState
from model.ids import compute_tray_id, compute_tray_of_gpu, gpu_id, tray_id
from model.kinds import ComponentKind as K
from model.kinds import (
    ControlState,
    Feature,
    JobState,
    Meanwhile,
    RepairAction,
    RepairMode,
    Restart,
)
from model.kinds import PartitionMode as Mode
from model.kinds import PartitionState as PS
from model.params import (
    CABLE_SWAP_RACK_DOWN_H,
    CONTROLLER_RESTART_H,
    ISSU_PER_TRAY_H,
    MAINTENANCE_WINDOW_H,
    REPAIR_CABLE_H,
    REPAIR_NODE_H,
    SWITCH_TRAY_SWAP_H,
    SWITCH_TRAY_SWAP_RACK_DOWN_H,
)

# How a partition's state reads (the card's tone): NMX's four states, and on Ethernet, which
# has no NMX state, what ECMP does for the job (words.ECMP_HEADLINE): fewer ports up is
# bandwidth lost on those GPUs, as NVLink's BANDWIDTH is.
SEVERITY = {PS.HEALTHY: "ok", PS.BANDWIDTH: "warn", PS.DEGRADED: "warn", PS.UNHEALTHY: "bad"}
ECMP_SEVERITY = {
    "whole": "ok",
    "short": "warn",
    "lost": "warn",
    "static": "bad",
    "cut": "bad",
    "update": "bad",
}


@dataclass(frozen=True)
class Partition:
    """NMX-style partition health, with the GPUs parked (full-bandwidth mode) or lost."""

    state: PS
    mode: Mode
    lost: tuple[int, ...]
    parked: tuple[int, ...]
    explanation: str
    headline: str = ""  # the card's value in the fabric's words, where NMX's state is not
    severity: str = ""  # ok, warn or bad where NMX's state does not say (ECMP); else its

    def to_json(self) -> dict:
        return {
            "mode": self.mode,
            "lost_gpus": [gpu_id(g) for g in self.lost],
            "parked_gpus": [gpu_id(g) for g in self.parked],
            "state": self.state,
            "explanation": self.explanation,
            "title": words.partition_title(self.mode),
            "headline": self.headline or str(self.state),
            # how the card reads it: NMX's state as NMX grades it, or ECMP's own grade
            "severity": self.severity or SEVERITY[self.state],
            "note": words.partition_note(self.mode, self.explanation),
        }


@dataclass(frozen=True)
class Job:
    """What happens to a job spanning the domain, and when it starts again."""

    state: JobState
    restart: Restart
    cause: str
    stall_s: float | None
    usable_gpus: int  # the GPUs it runs on now, or restarts on

    @property
    def checkpoint_restart(self) -> bool:
        return not self.state.runs

    @property
    def runs(self) -> bool:
        """It runs now, or restarts at once on what remains."""
        return self.state.runs or self.restart is Restart.AT_ONCE

    def to_json(self) -> dict:
        return {
            "state": self.state,
            "headline": words.job_headline(self.state, self.restart, self.usable_gpus),
            "cause": self.cause,
            "restart": words.restart(self.restart, self.usable_gpus),
            "restart_kind": self.restart,
            "runs": self.runs,  # now, or restarted at once on what remains: what it gets
            "stall_s": self.stall_s,
            "checkpoint_restart": self.checkpoint_restart,
        }


@dataclass(frozen=True)
class Repair:
    """The service one failed part (or a switch update) needs, and the rack meanwhile."""

    id: str
    action: RepairAction
    subject: str  # the tray the action names, or the number of trays of an update
    mode: RepairMode
    repair_h: float
    rack_down_h: float
    meanwhile: Meanwhile
    planes_down_h: float | None = None  # switch trays: their planes out for the swap

    def to_json(self) -> dict:
        out = {
            "id": self.id,
            "action": words.repair_action(self.action, self.subject),
            "mode": self.mode,
            "repair_h": self.repair_h,
            "rack_down_h": self.rack_down_h,
            "until_then": self.meanwhile,
        }
        if self.planes_down_h is not None:
            out["planes_down_h"] = self.planes_down_h
        return out


def unroutable_planes(st: FabricState) -> np.ndarray:
    """bool[P]: planes with a fault that needs a reroute nobody can do.

    A reroute needs dynamic rerouting on and a routing authority for the plane's tray. With
    the leader running but a tray's own controller gone (trays-lost), the leader still drops
    a dead chip's plane from every GPU's routes; only a live chip on that tray cannot be
    reprogrammed (FACTS.md §3: a new fault on its chips cannot be rerouted).
    """
    f = st.fabric
    need = st.needs_reroute.any(axis=0)
    if Feature.REROUTE not in st.features:
        return need
    auth = np.repeat(st.control.authority, f.chips_per_tray)
    stuck = need & ~auth
    if st.control.state is ControlState.TRAYS_LOST:
        stuck &= ~st.chip_failed
    return stuck


def _unreachable_pairs(st: FabricState) -> bool:
    up = st.up[st.gpu_alive]
    if len(up) < 2:
        return False
    u = up.astype(np.float32)  # planes in common: small integers, exact in float32 (BLAS)
    common = u @ u.T
    np.fill_diagonal(common, 1)
    return bool((common == 0).any())


def _ecmp_partition(st: FabricState) -> Partition:
    """A fabric with no fabric manager (Ethernet): no NMX partition and nothing parked; the
    job's GPUs reach each other by ECMP over the ports up, or some pairs cannot."""
    lost = tuple(int(i) for i in np.flatnonzero(~st.gpu_alive))
    short = np.flatnonzero((st.gpu_alive[:, None] & ~st.up).any(axis=1))

    def res(state: PS, why: str, say: str) -> Partition:
        return Partition(
            state, Mode.ECMP, lost, (), why, words.ECMP_HEADLINE[say], ECMP_SEVERITY[say]
        )

    if st.maintenance:
        return res(PS.UNHEALTHY, words.MAINTENANCE_PARTITION, "update")
    if _unreachable_pairs(st):
        return res(PS.UNHEALTHY, words.UNREACHABLE, "cut")
    if len(short) and Feature.REROUTE not in st.features:
        return res(PS.UNHEALTHY, words.ecmp_static(len(short)), "static")
    if lost:
        return res(PS.DEGRADED, words.ecmp_shrunk(len(lost), st.fabric.gpus), "lost")
    if len(short):
        return res(PS.HEALTHY, words.ecmp_ports_missing(len(short)), "short")
    why = words.ECMP_ALL_PORTS + (words.FLAKY_ACTIVE if st.flaky.any() else "")
    return res(PS.HEALTHY, why, "whole")


def partition(st: FabricState) -> Partition:
    """NMX-style partition health, with the GPUs parked or absent and why (a fabric with no
    fabric manager: _ecmp_partition)."""
    f = st.fabric
    if not f.fabric_manager:
        return _ecmp_partition(st)
    adaptive = Feature.REROUTE in st.features
    mode = Mode.ADAPTIVE if adaptive else Mode.FULL
    lost = tuple(int(i) for i in np.flatnonzero(~st.gpu_alive))
    missing_links = st.gpu_alive[:, None] & ~st.up
    short = tuple(int(i) for i in np.flatnonzero(missing_links.any(axis=1)))
    parked = () if adaptive else short
    chips_out = int((~st.chip_in_service).sum())

    def res(state: PS, why: str) -> Partition:
        return Partition(state, mode, lost, parked, why)

    if st.maintenance:
        return res(PS.UNHEALTHY, words.MAINTENANCE_PARTITION)
    if lost and Feature.PARTIAL_RACK not in st.features:
        return res(PS.UNHEALTHY, words.partition_missing_gpus(len(lost)))
    if not adaptive:
        if chips_out:
            return res(PS.UNHEALTHY, words.partition_chips_out(chips_out))
        if parked or lost:
            return res(PS.DEGRADED, words.partition_parked(len(parked) + len(lost), f.gpus))
        return res(PS.HEALTHY, words.ALL_LINKS)
    if _unreachable_pairs(st):
        return res(PS.UNHEALTHY, words.UNREACHABLE)
    if lost:
        why = words.partition_shrunk(len(lost), f.gpus, len(short))
        return res(PS.DEGRADED, why)
    if missing_links.any():
        # NMX-Manager's BANDWIDTH state is for missing trunk links between racks
        # (docs/TELEMETRY.md), which one rack has none of, so its words do not name it. Its
        # GPUs short of links stay in the partition and report DEGRADED_BW in their health.
        return res(PS.HEALTHY, words.partition_links_missing(len(short)))
    return res(PS.HEALTHY, words.ALL_LINKS + (words.FLAKY_ACTIVE if st.flaky.any() else ""))


def usable_mask(st: FabricState, part: Partition) -> np.ndarray:
    """bool[G], read-only: the GPUs that run the job: alive and not parked."""
    mask = st.gpu_alive.copy()
    mask[list(part.parked)] = False
    mask.flags.writeable = False
    return mask


@dataclass(frozen=True)
class JobFacts:
    """What a job's fate reads from a rack's state or a domain's: the same ladder for both
    (job_of), each kind saying what it has lost and why its routes are out."""

    fabric: Fabric  # the rack: its healthy per-GPU rate and how it reroutes
    gpus: int  # usable now
    maintenance: bool  # a switch update's maintenance window: the job is stopped
    unhealthy: bool  # the partition is UNHEALTHY: a restart waits for the repair
    lost: int  # GPUs the partition lost
    unroutable_cause: str | None  # why a plane nobody can reroute aborts the job; None: none
    waits_for_controller: bool  # a plane is unroutable and its routes are stuck until then
    reroutes: bool  # some traffic takes another path now
    updating: bool  # trays under an in-service update
    flaky: bool  # a link degrading, still up


def job_of(x: JobFacts, worst_tbs: float) -> Job:
    """What happens to a job spanning the rack or the domain: running, degraded, aborted
    or stopped; worst_tbs: the slowest usable GPU's bandwidth (collectives run at its pace)."""
    n = x.gpus
    if x.unhealthy:
        restart = Restart.AFTER_REPAIR
    elif x.waits_for_controller:
        restart = Restart.AFTER_CONTROLLER
    else:
        restart = Restart.AT_ONCE
    if x.maintenance:
        return Job(JobState.STOPPED, Restart.AFTER_WINDOW, words.MAINTENANCE_JOB, None, n)
    if x.lost:
        return Job(JobState.ABORTED, restart, words.gpus_lost(x.lost), None, n)
    if x.unroutable_cause is not None:
        return Job(JobState.ABORTED, restart, x.unroutable_cause, None, n)
    f = x.fabric
    healthy = f.gpu_tbs_bidir
    if worst_tbs < healthy - 1e-9:
        how = f.reroute_how if x.reroutes else None
        cause = words.degraded_cause(
            how, f.reroute_stall_s, x.updating, x.flaky, worst_tbs, healthy
        )
        stall = f.reroute_stall_s if x.reroutes else 0.0
        return Job(JobState.DEGRADED, Restart.NONE, cause, stall, n)
    return Job(JobState.RUNNING, Restart.NONE, words.FULL_BANDWIDTH, 0.0, n)


def job(st: FabricState, part: Partition, usable: np.ndarray, worst_tbs: float) -> Job:
    """One rack's job (job_of): a plane nobody can reroute aborts it, for want of rerouting
    or with routes stuck while the control plane is out."""
    bad = bool(unroutable_planes(st).any())
    cause = None
    if bad:
        cause = (
            words.NO_REROUTE
            if Feature.REROUTE not in st.features
            else words.routes_stuck(st.control.state)
        )
    facts = JobFacts(
        st.fabric,
        int(usable.sum()),
        st.maintenance,
        part.state is PS.UNHEALTHY,
        len(part.lost),
        cause,
        bad and st.control.state.routes_stuck,
        bool(st.needs_reroute.any()),
        bool(st.updating),
        bool(st.flaky.any()),
    )
    return job_of(facts, worst_tbs)


def meanwhile(jb: Job) -> Meanwhile:
    """Until a data-plane part is repaired, what the job does: degraded if it runs (routed
    around), on the GPUs that remain if it restarted at once without them (parked), down
    until the fabric controller is back, or down until the repair."""
    if jb.state.runs:
        return Meanwhile.DEGRADED
    return {
        Restart.AT_ONCE: Meanwhile.SMALLER,
        Restart.AFTER_CONTROLLER: Meanwhile.WAITS_FOR_CONTROLLER,
    }.get(jb.restart, Meanwhile.DOWN)


def maintenance_repair() -> Repair:
    """A switch update with in-service updates off: the rack (or domain) down for the
    maintenance window."""
    return Repair(
        "update",
        RepairAction.MAINTENANCE_UPDATE,
        "",
        RepairMode.RACK_DOWN,
        MAINTENANCE_WINDOW_H,
        MAINTENANCE_WINDOW_H,
        Meanwhile.DOWN,
    )


def repairs(st: FabricState, jb: Job) -> tuple[Repair, ...]:
    """The repair each failed component and each update needs, and whether the rack stops."""
    out = []
    hot = Feature.HOT_SWAP in st.features
    partial = Feature.PARTIAL_RACK in st.features
    data_meanwhile = meanwhile(jb)
    for c in st.failed:
        if c.kind in (K.CABLE, K.LINK):
            out.append(
                Repair(
                    c.id,
                    RepairAction.REPLACE_CARTRIDGE,
                    "",
                    RepairMode.RACK_DOWN,
                    REPAIR_CABLE_H,
                    CABLE_SWAP_RACK_DOWN_H,
                    data_meanwhile,
                )
            )
        elif c.kind in (K.SWITCH_CHIP, K.SWITCH_TRAY):
            out.append(
                Repair(
                    c.id,
                    RepairAction.SWAP_SWITCH_TRAY,
                    tray_id(c.switch_tray),
                    RepairMode.HOT_SWAP if hot else RepairMode.RACK_DOWN,
                    REPAIR_NODE_H,
                    0.0 if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                    data_meanwhile,
                    SWITCH_TRAY_SWAP_H if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                )
            )
        elif c.kind is K.CONTROLLER:
            out.append(
                Repair(
                    c.id,
                    RepairAction.RESTART_CONTROLLER,
                    "",
                    RepairMode.IN_PLACE,
                    CONTROLLER_RESTART_H,
                    0.0,
                    Meanwhile.UNTOUCHED,
                )
            )
        else:
            n = c.nums[0] if c.kind is K.COMPUTE_TRAY else compute_tray_of_gpu(st.fabric, c.gpu)
            out.append(
                Repair(
                    c.id,
                    RepairAction.REPLACE_COMPUTE_TRAY,
                    compute_tray_id(n),
                    RepairMode.HOT_SWAP if partial else RepairMode.RACK_DOWN,
                    REPAIR_NODE_H,
                    0.0 if partial else REPAIR_NODE_H,
                    Meanwhile.SMALLER if partial else Meanwhile.DOWN,
                )
            )
    if st.maintenance:
        out.append(maintenance_repair())
    elif st.updating:
        n = st.fabric.switch_trays if st.rolling else len(st.updating)
        out.append(
            Repair(
                "update",
                RepairAction.IN_SERVICE_UPDATE,
                str(n),
                RepairMode.IN_SERVICE,
                n * ISSU_PER_TRAY_H,
                0.0,
                Meanwhile.DEGRADED,
            )
        )
    return tuple(out)
