"""A multi-rack domain's state: each rack's own single-rack assessment, stacked, plus the L2
tier and its trunks (docs/MULTIRACK.md).

Every rack is an NVL72: its local faults (`rNN.<NVL72 ID>`), flaky links and L1 tray updates
go into a single-rack Scenario of its own and through model/assess.py unchanged, so one
rack's physics is written once. Healthy racks share one memoised assessment (the same
Scenario), so a 16-rack domain with one fault assesses two racks, not sixteen. What only a
domain has is added here: whole racks lost, L2 chips and trays (failed or drained for an
update), trunk bundles (failed or flaky).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from model.fabric.assess import Assessment, assess_rack
from model.kinds import DomainKind, Feature
from model.multirack.control import DomainControl, domain_control
from model.multirack.domains import (
    DOMAINS,
    TRUNKS_PER_L1,
    Domain,
    DomainPart,
    l2_tray_chips,
    l2_trays,
    parse_part,
    rack_id,
)
from model.params import FLAKY_LINK_EFFICIENCY
from model.scenario import Scenario


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class DomainState:
    """The domain's masks. Arrays are read-only; GPU g sits in rack g // 72."""

    domain: Domain
    features: frozenset[str]
    racks: tuple[Assessment | None, ...]  # each rack's own assessment; None: the rack is lost
    failed: tuple[tuple[str, DomainPart], ...]  # the scenario's fail= IDs, parsed
    gpu_alive: np.ndarray  # bool[G]
    up: np.ndarray  # bool[G, P]: the GPU's link to its rack's L1 chip of plane p carries traffic
    efficiency: np.ndarray  # float[G, P]: share of a link's rate delivered (flaky < 1)
    rack_reroute: np.ndarray  # bool[G, P]: a live GPU's link lost to an unplanned rack fault
    l1_in_service: np.ndarray  # bool[R, P]
    l2_failed: np.ndarray  # bool[P, S]
    l2_drained: np.ndarray  # bool[P, S]: under an in-service update
    trunk_failed: np.ndarray  # bool[R, P, S]
    trunk_flaky: np.ndarray  # bool[R, P, S]
    racks_lost: np.ndarray  # bool[R]
    l2_maintenance: bool  # an L2 tray update with in-service updates off: the domain down
    updating: tuple[str, ...]  # trays drained for an update now (rack-prefixed or l2.tNN)
    update_blocked: tuple[str, ...]  # trays whose update cannot drain (no routing authority)
    rolling: bool  # update=all: one tray of the domain at a time
    control: DomainControl

    @property
    def rack_of(self) -> np.ndarray:
        return np.arange(self.domain.gpus) // self.domain.rack.gpus

    @property
    def maintenance(self) -> bool:
        """A switch update in a maintenance window somewhere: the domain's job stops."""
        return self.l2_maintenance or any(a is not None and a.state.maintenance for a in self.racks)

    @property
    def l1_failed(self) -> np.ndarray:
        """bool[R, P]: L1 chips out of service (failed, drained, or their rack lost)."""
        return ~self.l1_in_service

    @cached_property
    def l2_in_service(self) -> np.ndarray:
        """bool[P, S]: L2 chips carrying traffic (not failed, not drained, no window)."""
        if self.l2_maintenance:
            return _frozen(np.zeros_like(self.l2_failed))
        return _frozen(~self.l2_failed & ~self.l2_drained)

    @property
    def l2_share(self) -> np.ndarray:
        """float[P]: share of each plane's L2 chips in service."""
        return self.l2_in_service.mean(axis=1)

    @cached_property
    def trunk_share(self) -> np.ndarray:
        """float[R, P]: L1 chip (r, p)'s trunk capacity as a share of its 72 trunks: each
        L2 chip of the plane in service carries 1/S through its bundle, a failed bundle
        none, a flaky bundle its efficiency (replays)."""
        ok = self.l2_in_service[None, :, :] & ~self.trunk_failed
        eff = np.where(self.trunk_flaky, FLAKY_LINK_EFFICIENCY, 1.0)
        return _frozen((ok * eff).mean(axis=2))

    @cached_property
    def l2_reroute(self) -> np.ndarray:
        """bool[P]: planes whose cross-rack traffic lost a path to an unplanned fault (an L2
        chip or a trunk bundle): it must be moved to the plane's other L2 chips."""
        tr = self.trunk_failed & ~self.racks_lost[:, None, None]
        return _frozen(self.l2_failed.any(axis=1) | tr.any(axis=(0, 2)))

    @cached_property
    def cross(self) -> tuple[np.ndarray, np.ndarray]:
        """The share f[G] of each GPU's uniform all-to-all traffic that leaves its rack, and
        scale[R, P]: the share of L1 chip (r, p)'s outbound demand its trunks carry.

        L1 chip (r, p) can send 72 x trunk_share[r, p] links' worth up against f x (its GPUs'
        plane-p links, at their efficiency) of demand; intra-rack traffic never leaves it.
        """
        d = self.domain
        rack = self.rack_of
        n = int(self.gpu_alive.sum())
        in_rack = np.bincount(rack[self.gpu_alive], minlength=d.racks)
        f = ((n - in_rack) / max(n - 1, 1) if n > 1 else np.zeros(d.racks))[rack]  # [G]
        demand = (self.efficiency * f[:, None]).reshape(d.racks, -1, d.planes).sum(axis=1)
        capacity = TRUNKS_PER_L1 * self.trunk_share
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(demand > 0, np.minimum(1.0, capacity / demand), 1.0)
        return _frozen(f), _frozen(scale)

    @cached_property
    def plane_rates(self) -> np.ndarray:
        """float[G, P]: share of a link's rate each GPU sustains per plane in a uniform
        all-to-all: its link's efficiency, in-rack at full rate, across racks at its L1
        chip's trunk scale (model/multirack/tiers.py)."""
        f, scale = self.cross
        per_gpu = np.repeat(scale, self.domain.rack.gpus, axis=0)
        return _frozen(self.efficiency * ((1.0 - f)[:, None] + f[:, None] * per_gpu))

    @property
    def cross_ok(self) -> np.ndarray:
        """bool[R, P]: rack r's plane p reaches the other racks (some trunk capacity left)."""
        return self.trunk_share > 0

    @property
    def flaky_any(self) -> bool:
        return bool(self.trunk_flaky.any()) or any(
            a is not None and bool(a.state.flaky.any()) for a in self.racks
        )


def rack_scenario(
    s: Scenario,
    fail: tuple[str, ...] | list[str] = (),
    flaky: tuple[str, ...] | list[str] = (),
    update: tuple[str, ...] | list[str] = (),
) -> Scenario:
    """The single-rack Scenario of one rack: its local IDs, the domain's switches."""
    d = DOMAINS[s.fabric]
    return Scenario(
        fabric=d.rack.key,
        fail=tuple(fail),
        flaky=tuple(flaky),
        off=s.off,
        on=s.on,
        workload=s.workload,
        update=tuple(update),
        repair=s.repair,
    )


def _by_rack(tokens: tuple[str, ...], d: Domain) -> tuple[dict[int, list[str]], list]:
    """Rack-local IDs grouped by rack (local form, canonical order kept), and the rest."""
    local: dict[int, list[str]] = {}
    rest = []
    for tok in tokens:
        part = parse_part(tok, d)
        if part.local is not None:
            local.setdefault(part.rack, []).append(part.local.id)
        else:
            rest.append((tok, part))
    return local, rest


def build_domain_state(s: Scenario) -> DomainState:
    """Each rack through its own assessment, then the L2 tier, trunks and updates."""
    d = DOMAINS[s.fabric]
    f = d.rack
    R, P, S = d.racks, d.planes, d.l2_per_plane
    fail_local, fail_rest = _by_rack(s.fail, d)
    flaky_local, flaky_rest = _by_rack(s.flaky, d)
    features = s.features
    issu = Feature.ISSU in features
    rolling = s.update == ("all",)
    upd_local: dict[int, list[str]] = {}
    upd_l2: list[int] = []
    gone = {p.rack for _, p in fail_rest if p.kind is DomainKind.RACK}
    if rolling:
        # one tray at a time over the whole domain: the first live rack's first tray now;
        # without in-service updates every rack (and the L2 tier) is in the window at once
        live = [r for r in range(R) if r not in gone]
        for r in live if not issu else live[:1]:
            upd_local[r] = ["all"]
        if not issu:
            upd_l2 = list(range(1, l2_trays(d) + 1))
    else:
        loc, rest = _by_rack(s.update, d)
        upd_local = loc
        upd_l2 = [p.l2_tray for _, p in rest]

    racks_lost = np.zeros(R, bool)
    l2_failed = np.zeros((P, S), bool)
    trunk_failed = np.zeros((R, P, S), bool)
    trunk_flaky = np.zeros((R, P, S), bool)
    for _tok, part in fail_rest:
        k = part.kind
        if k is DomainKind.RACK:
            racks_lost[part.rack] = True
        elif k is DomainKind.L2_CHIP:
            l2_failed[part.l2] = True
        elif k is DomainKind.L2_TRAY:
            for pl, ix in l2_tray_chips(d, part.l2_tray):
                l2_failed[pl, ix] = True
        else:
            trunk_failed[part.trunk] = True
    for _tok, part in flaky_rest:
        trunk_flaky[part.trunk] = True
    trunk_flaky &= ~trunk_failed

    racks: list[Assessment | None] = []
    for r in range(R):
        if racks_lost[r]:
            racks.append(None)
            continue
        rs = rack_scenario(s, fail_local.get(r, ()), flaky_local.get(r, ()), upd_local.get(r, ()))
        racks.append(assess_rack(rs))

    control = domain_control(d, tuple(racks), features)
    l2_drained = np.zeros((P, S), bool)
    l2_maintenance = False
    updating: list[str] = []
    blocked: list[str] = []
    for r, a in enumerate(racks):
        if a is not None and not a.state.maintenance:
            updating += [f"{rack_id(r)}.st{t}" for t in a.state.updating]
            blocked += [f"{rack_id(r)}.st{t}" for t in a.state.update_blocked]
    if upd_l2 and not issu:
        l2_maintenance = True
    else:
        for n in upd_l2:
            chips = l2_tray_chips(d, n)
            if all(l2_failed[c] for c in chips):
                continue
            if not control.l2_authority:
                blocked.append(f"l2.t{n:02d}")
                continue
            for c in chips:
                l2_drained[c] = not l2_failed[c]
            updating.append(f"l2.t{n:02d}")

    g = d.gpus
    gpu_alive = np.zeros(g, bool)
    up = np.zeros((g, P), bool)
    eff = np.zeros((g, P))
    reroute = np.zeros((g, P), bool)
    l1 = np.zeros((R, P), bool)
    for r, a in enumerate(racks):
        if a is None:
            continue
        st = a.state
        sl = slice(r * f.gpus, (r + 1) * f.gpus)
        gpu_alive[sl] = st.gpu_alive
        up[sl] = st.up
        eff[sl] = st.efficiency
        reroute[sl] = st.needs_reroute
        l1[r] = st.chip_in_service
    for a in (gpu_alive, up, eff, reroute, l1, l2_failed, l2_drained, trunk_failed, trunk_flaky):
        _frozen(a)
    _frozen(racks_lost)
    return DomainState(
        domain=d,
        features=features,
        racks=tuple(racks),
        failed=tuple((tok, parse_part(tok, d)) for tok in s.fail),
        gpu_alive=gpu_alive,
        up=up,
        efficiency=eff,
        rack_reroute=reroute,
        l1_in_service=l1,
        l2_failed=l2_failed,
        l2_drained=l2_drained,
        trunk_failed=trunk_failed,
        trunk_flaky=trunk_flaky,
        racks_lost=racks_lost,
        l2_maintenance=l2_maintenance,
        updating=tuple(updating),
        update_blocked=tuple(blocked),
        rolling=rolling,
        control=control,
    )
