"""A domain's partition health, its job's fate and the repair each fault needs (typed values,
the same types as one rack's: model/fabric/fate.py).

The domain's partition is the worst of its racks' (each rack's own NMX health, local IDs
prefixed) and of what only a domain has: whole racks out (a smaller domain with partial-rack
operation on, UNHEALTHY without), and the L2 tier. In adaptive-bandwidth mode missing trunk
capacity between racks is NMX's BANDWIDTH state; in full-bandwidth mode the loss of an L2
chip or a trunk bundle is the loss of a switch path: UNHEALTHY. The job spans the domain: a
fault that aborts one rack's job aborts it, and it restarts on what every rack allows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from model import words as rack_words
from model.fabric.fate import (
    SEVERITY,
    Job,
    JobFacts,
    Repair,
    job_of,
    maintenance_repair,
    meanwhile,
    unroutable_planes,
)
from model.fabric.presets import VR_NVL72
from model.kinds import DomainKind, Feature, Meanwhile, RepairAction, RepairMode
from model.kinds import PartitionMode as Mode
from model.kinds import PartitionState as PS
from model.multirack import words
from model.multirack.domains import l2_tray_id, l2_tray_of, l2_trays, rack_id
from model.multirack.state import DomainState
from model.params import (
    ISSU_PER_TRAY_H,
    REPAIR_CABLE_H,
    REPAIR_NODE_H,
    SWITCH_TRAY_SWAP_H,
    SWITCH_TRAY_SWAP_RACK_DOWN_H,
)

_SEVERITY = (PS.HEALTHY, PS.BANDWIDTH, PS.DEGRADED, PS.UNHEALTHY)


def _gid(g: int) -> str:
    r, i = divmod(g, VR_NVL72.gpus)
    return f"{rack_id(r)}.gpu{i:02d}"


@dataclass(frozen=True)
class DomainPartition:
    """NMX-style health of the partition spanning the domain (GPU indices over the domain)."""

    state: PS
    mode: Mode
    lost: tuple[int, ...]
    parked: tuple[int, ...]
    explanation: str
    rack_states: tuple[PS | None, ...]  # each rack's own; None: the rack is lost

    def to_json(self) -> dict:
        return {
            "mode": self.mode,
            "lost_gpus": [_gid(g) for g in self.lost],
            "parked_gpus": [_gid(g) for g in self.parked],
            "state": self.state,
            "explanation": self.explanation,
            "title": rack_words.partition_title(self.mode),
            "headline": str(self.state),
            "severity": SEVERITY[self.state],
            "note": rack_words.partition_note(self.mode, self.explanation),
            "racks": [None if x is None else str(x) for x in self.rack_states],
        }


def unreachable_across(st: DomainState) -> bool:
    """Some live pair in different racks shares no plane with both links up and an L2 path."""
    alive = st.gpu_alive
    racks = st.rack_of[alive]
    if len(racks) == 0 or racks.min() == racks.max():
        return False
    cross = st.up[alive] & st.cross_ok[racks]
    if cross.all(axis=0).any():  # one plane every GPU reaches the others on: all pairs meet
        return False
    keys = cross.astype(np.int64) @ (np.int64(1) << np.arange(cross.shape[1], dtype=np.int64))
    u, first, inv = np.unique(keys, return_index=True, return_inverse=True)  # few kinds
    rows = cross[first].astype(np.int32)
    per_rack = np.zeros((len(u), st.domain.racks), bool)
    per_rack[inv.ravel(), racks] = True
    common = rows @ rows.T
    # two kinds of row meet across racks unless every pair of them shares its rack
    n = per_rack.sum(axis=1)
    same = (per_rack[:, None, :] & per_rack[None, :, :]).sum(axis=2)
    differ = n[:, None] * n[None, :] > same
    return bool(((common == 0) & differ).any())


def partition(st: DomainState) -> DomainPartition:
    """The worst of the racks' own health and the domain's (racks out, the L2 tier)."""
    adaptive = Feature.REROUTE in st.features
    mode = Mode.ADAPTIVE if adaptive else Mode.FULL
    f = st.domain.rack
    lost, parked, rack_states = [], [], []
    for r, a in enumerate(st.racks):
        g0 = r * f.gpus
        if a is None:
            lost += range(g0, g0 + f.gpus)
            rack_states.append(None)
            continue
        lost += [g0 + g for g in a.partition.lost]
        parked += [g0 + g for g in a.partition.parked]
        rack_states.append(a.partition.state)
    n_lost_racks = int(st.racks_lost.sum())

    def res(state: PS, why: str) -> DomainPartition:
        return DomainPartition(state, mode, tuple(lost), tuple(parked), why, tuple(rack_states))

    if st.maintenance:
        return res(PS.UNHEALTHY, rack_words.MAINTENANCE_PARTITION)
    partial = Feature.PARTIAL_RACK in st.features
    if n_lost_racks and not partial:
        return res(PS.UNHEALTHY, words.racks_lost(n_lost_racks, False, 0))
    worst_rack = next(
        (r for r, x in enumerate(rack_states) if x is PS.UNHEALTHY),
        None,
    )
    if worst_rack is not None:
        why = st.racks[worst_rack].partition.explanation
        return res(PS.UNHEALTHY, words.rack_says(rack_id(worst_rack), why))
    l2_out = int((~st.l2_in_service).sum()) + int(
        (st.trunk_failed & ~st.racks_lost[:, None, None]).sum()
    )
    if not adaptive and l2_out:
        return res(PS.UNHEALTHY, words.l2_out_full_mode(l2_out))
    if adaptive and unreachable_across(st):
        return res(PS.UNHEALTHY, words.UNREACHABLE_ACROSS)
    live = ~st.racks_lost
    missing = (~st.l2_in_service[None, :, :] | st.trunk_failed)[live]  # [R', P, S]
    short_planes = int(missing.any(axis=(0, 2)).sum())
    parts = []
    state = PS.HEALTHY
    if n_lost_racks:
        state = PS.DEGRADED
        parts.append(words.racks_lost(n_lost_racks, True, st.domain.gpus - len(lost)))
    for r, x in enumerate(rack_states):
        if x is not None and x is not PS.HEALTHY:
            state = max(state, x, key=_SEVERITY.index)
            parts.append(words.rack_says(rack_id(r), st.racks[r].partition.explanation))
    if len(lost) > n_lost_racks * f.gpus:  # GPUs lost in racks still up
        parts.append(words.domain_shrinks(st.domain.gpus - len(lost)))
    if short_planes and adaptive:
        state = max(state, PS.BANDWIDTH, key=_SEVERITY.index)
        parts.append(words.trunks_missing(short_planes))
    if not parts:
        parts.append(rack_words.ALL_LINKS + (rack_words.FLAKY_ACTIVE if st.flaky_any else ""))
    return res(state, "; ".join(parts))


def l2_unroutable(st: DomainState) -> bool:
    """A fault between racks (an L2 chip, a trunk bundle) needs a reroute nobody can do."""
    if not st.l2_reroute.any():
        return False
    return Feature.REROUTE not in st.features or not st.control.l2_authority


def rack_unroutable(st: DomainState) -> bool:
    return any(a is not None and unroutable_planes(a.state).any() for a in st.racks)


def job(st: DomainState, part: DomainPartition, usable: np.ndarray, worst_tbs: float) -> Job:
    """A job spanning the domain (fabric/fate.job_of): a rack's plane or the L2 tier that
    nobody can reroute aborts it; worst_tbs: the slowest usable GPU's rate."""
    l2_bad = l2_unroutable(st)
    rack_bad = rack_unroutable(st)
    stuck = st.control.state.routes_stuck or (l2_bad and Feature.REROUTE in st.features)
    cause = None
    if rack_bad or l2_bad:
        if Feature.REROUTE not in st.features:
            cause = rack_words.NO_REROUTE if rack_bad else words.NO_REROUTE_L2
        elif rack_bad:
            cause = rack_words.routes_stuck(st.control.state)
        else:
            cause = words.L2_ROUTES_STUCK
    facts = JobFacts(
        st.domain.rack,
        int(usable.sum()),
        st.maintenance,
        part.state is PS.UNHEALTHY,
        len(part.lost),
        cause,
        (l2_bad or rack_bad) and stuck,
        bool(st.rack_reroute.any() or st.l2_reroute.any()),
        bool(st.updating),
        st.flaky_any,
    )
    return job_of(facts, worst_tbs)


def repairs(st: DomainState, jb: Job) -> tuple[Repair, ...]:
    """Each rack's repairs (IDs prefixed), then the domain's own parts and the update."""
    d = st.domain
    hot = Feature.HOT_SWAP in st.features
    partial = Feature.PARTIAL_RACK in st.features
    data = meanwhile(jb)
    out: list[Repair] = []
    updates = 0
    for r, a in enumerate(st.racks):
        if a is None:
            continue
        for rep in a.repairs:
            if rep.id == "update":
                continue
            subject = f"{rack_id(r)}.{rep.subject}" if rep.subject else ""
            mw = data if rep.meanwhile is Meanwhile.DEGRADED else rep.meanwhile
            out.append(replace(rep, id=f"{rack_id(r)}.{rep.id}", subject=subject, meanwhile=mw))
    for tok, part in st.failed:
        k = part.kind
        if k is DomainKind.RACK:
            out.append(
                Repair(
                    tok,
                    RepairAction.RESTORE_RACK,
                    tok,
                    RepairMode.HOT_SWAP if partial else RepairMode.RACK_DOWN,
                    REPAIR_NODE_H,
                    0.0 if partial else REPAIR_NODE_H,
                    Meanwhile.SMALLER if partial else Meanwhile.DOWN,
                )
            )
        elif k in (DomainKind.L2_CHIP, DomainKind.L2_TRAY):
            tray = part.l2_tray if k is DomainKind.L2_TRAY else l2_tray_of(d, *part.l2)
            out.append(
                Repair(
                    tok,
                    RepairAction.SWAP_SWITCH_TRAY,
                    l2_tray_id(tray),
                    RepairMode.HOT_SWAP if hot else RepairMode.RACK_DOWN,
                    REPAIR_NODE_H,
                    0.0 if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                    data,
                    SWITCH_TRAY_SWAP_H if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                )
            )
        elif k is DomainKind.TRUNK:
            out.append(
                Repair(
                    tok,
                    RepairAction.REPLACE_TRUNK,
                    tok,
                    RepairMode.IN_PLACE,
                    REPAIR_CABLE_H,
                    0.0,
                    data,
                )
            )
    if st.maintenance:
        out.append(maintenance_repair())
    elif st.updating:
        trays = d.racks * d.rack.switch_trays + l2_trays(d)
        updates = trays if st.rolling else len(st.updating)
        out.append(
            Repair(
                "update",
                RepairAction.IN_SERVICE_UPDATE,
                str(updates),
                RepairMode.IN_SERVICE,
                updates * ISSU_PER_TRAY_H,
                0.0,
                Meanwhile.DEGRADED,
            )
        )
    return tuple(out)
