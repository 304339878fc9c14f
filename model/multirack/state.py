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
from typing import NamedTuple

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


class _Updates(NamedTuple):
    """The scenario's update= as planned: rack-local trays by rack, and L2 tray numbers."""

    local: dict[int, list[str]]
    l2: list[int]


def _planned_updates(s: Scenario, d: Domain, racks_lost: np.ndarray, issu: bool) -> _Updates:
    """Which trays update= puts in an update: named ones by rack and L2 tray, or for
    update=all one tray at a time over the whole domain (the first live rack's first tray
    now); without in-service updates every rack (and the L2 tier) is in the window at once."""
    if s.update != ("all",):
        local, rest = _by_rack(s.update, d)
        return _Updates(local, [p.l2_tray for _, p in rest])
    live = [r for r in range(d.racks) if not racks_lost[r]]
    local = {r: ["all"] for r in (live if not issu else live[:1])}
    return _Updates(local, [] if issu else list(range(1, l2_trays(d) + 1)))


class _TierFaults(NamedTuple):
    """What failed or is flaky above the racks: whole racks, L2 chips, trunk bundles."""

    racks_lost: np.ndarray  # bool[R]
    l2_failed: np.ndarray  # bool[P, S]
    trunk_failed: np.ndarray  # bool[R, P, S]
    trunk_flaky: np.ndarray  # bool[R, P, S]: flaky and not failed


def _tier_faults(d: Domain, fail_rest: list, flaky_rest: list) -> _TierFaults:
    """The domain-level fail= and flaky= parts (not rack-local) as masks: a failed L2 tray
    fails its chips; a failed trunk bundle is not also flaky."""
    R, P, S = d.racks, d.planes, d.l2_per_plane
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
    return _TierFaults(racks_lost, l2_failed, trunk_failed, trunk_flaky)


def _rack_assessments(
    s: Scenario,
    racks_lost: np.ndarray,
    fail_local: dict[int, list[str]],
    flaky_local: dict[int, list[str]],
    upd_local: dict[int, list[str]],
) -> tuple[Assessment | None, ...]:
    """Each rack through its own single-rack assessment (None for a lost rack): healthy
    racks share one Scenario, so one memoised assessment."""
    racks: list[Assessment | None] = []
    for r in range(len(racks_lost)):
        if racks_lost[r]:
            racks.append(None)
            continue
        rs = rack_scenario(s, fail_local.get(r, ()), flaky_local.get(r, ()), upd_local.get(r, ()))
        racks.append(assess_rack(rs))
    return tuple(racks)


def _rack_updates(racks: tuple[Assessment | None, ...]) -> tuple[list[str], list[str]]:
    """The rack trays drained for an update now and those whose update cannot drain, as
    rack-prefixed IDs (a rack in a maintenance window drains nothing: it is down)."""
    updating: list[str] = []
    blocked: list[str] = []
    for r, a in enumerate(racks):
        if a is not None and not a.state.maintenance:
            updating += [f"{rack_id(r)}.st{t}" for t in a.state.updating]
            blocked += [f"{rack_id(r)}.st{t}" for t in a.state.update_blocked]
    return updating, blocked


class _L2Updates(NamedTuple):
    """The L2 tier's updates now: chips drained, a maintenance window, trays by outcome."""

    drained: np.ndarray  # bool[P, S]
    maintenance: bool
    updating: list[str]
    blocked: list[str]


def _l2_updates(
    d: Domain, trays: list[int], l2_failed: np.ndarray, issu: bool, control: DomainControl
) -> _L2Updates:
    """L2 tray updates: without in-service updates any one is a window (the domain down);
    with them a tray drains its live chips if the domain has routing authority over L2, is
    blocked if not, and a tray whose chips all failed has nothing to update."""
    drained = np.zeros((d.planes, d.l2_per_plane), bool)
    if trays and not issu:
        return _L2Updates(drained, True, [], [])
    updating: list[str] = []
    blocked: list[str] = []
    for n in trays:
        chips = l2_tray_chips(d, n)
        if all(l2_failed[c] for c in chips):
            continue
        if not control.l2_authority:
            blocked.append(f"l2.t{n:02d}")
            continue
        for c in chips:
            drained[c] = not l2_failed[c]
        updating.append(f"l2.t{n:02d}")
    return _L2Updates(drained, False, updating, blocked)


class _Stacked(NamedTuple):
    """The racks' own masks stacked over the domain (zero, i.e. down, for a lost rack)."""

    gpu_alive: np.ndarray  # bool[G]
    up: np.ndarray  # bool[G, P]
    efficiency: np.ndarray  # float[G, P]
    reroute: np.ndarray  # bool[G, P]
    l1_in_service: np.ndarray  # bool[R, P]


def _stacked(d: Domain, racks: tuple[Assessment | None, ...]) -> _Stacked:
    """Rack r's GPU masks at GPUs r*72 .. r*72+71 and its chips' service at L1 row r."""
    g, gpus, P = d.gpus, d.rack.gpus, d.planes
    out = _Stacked(
        np.zeros(g, bool),
        np.zeros((g, P), bool),
        np.zeros((g, P)),
        np.zeros((g, P), bool),
        np.zeros((d.racks, P), bool),
    )
    for r, a in enumerate(racks):
        if a is None:
            continue
        st = a.state
        sl = slice(r * gpus, (r + 1) * gpus)
        out.gpu_alive[sl] = st.gpu_alive
        out.up[sl] = st.up
        out.efficiency[sl] = st.efficiency
        out.reroute[sl] = st.needs_reroute
        out.l1_in_service[r] = st.chip_in_service
    return out


def build_domain_state(s: Scenario) -> DomainState:
    """Each rack through its own assessment, then the L2 tier, trunks and updates."""
    d = DOMAINS[s.fabric]
    fail_local, fail_rest = _by_rack(s.fail, d)
    flaky_local, flaky_rest = _by_rack(s.flaky, d)
    features = s.features
    issu = Feature.ISSU in features
    tier = _tier_faults(d, fail_rest, flaky_rest)
    upd = _planned_updates(s, d, tier.racks_lost, issu)
    racks = _rack_assessments(s, tier.racks_lost, fail_local, flaky_local, upd.local)
    control = domain_control(d, racks, features)
    updating, blocked = _rack_updates(racks)
    l2 = _l2_updates(d, upd.l2, tier.l2_failed, issu, control)
    stacked = _stacked(d, racks)
    for a in (*stacked, *tier, l2.drained):
        _frozen(a)
    return DomainState(
        domain=d,
        features=features,
        racks=racks,
        failed=tuple((tok, parse_part(tok, d)) for tok in s.fail),
        gpu_alive=stacked.gpu_alive,
        up=stacked.up,
        efficiency=stacked.efficiency,
        rack_reroute=stacked.reroute,
        l1_in_service=stacked.l1_in_service,
        l2_failed=tier.l2_failed,
        l2_drained=l2.drained,
        trunk_failed=tier.trunk_failed,
        trunk_flaky=tier.trunk_flaky,
        racks_lost=tier.racks_lost,
        l2_maintenance=l2.maintenance,
        updating=tuple(updating + l2.updating),
        update_blocked=tuple(blocked + l2.blocked),
        rolling=s.update == ("all",),
        control=control,
    )
