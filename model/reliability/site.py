"""Where a job's faults happen: one rack, or a multi-rack domain (docs/MULTIRACK.md).

effects.py counts the components of a Site and assesses one representative fault of each
kind on it. On one rack the counts are the preset's and the representatives its own IDs
(effects.REP); on a domain the counts are every rack's, the representatives sit in r02 (a
rack without the domain's global fabric manager) or, for the leader's kinds, in r01 (the
global fabric manager's home, model/multirack/control.py), and the kinds only a domain has
(L2 chips and trays, trunks, the other racks' leaders) are added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from model.fabric.control import LEADER_HOME_TRAY
from model.ids import chip_id, controller_id, link_id, tray_id
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS, l2_id, l2_tray_id, l2_trays, trunk_id
from model.scenario import Scenario, rack_fabric

LEADER = tray_id(LEADER_HOME_TRAY)
OTHER_TRAY = tray_id(LEADER_HOME_TRAY + 2)
# Representative components of one rack (valid on every preset: >= 2 chips per tray, 72 GPUs).
REP = {
    "gpu": "gpu07",
    "compute-tray": "ct02",
    "link": f"gpu07-{OTHER_TRAY}.sw1",
    "cable": f"gpu07-{OTHER_TRAY}.sw1.c0",
    "leader-plane-link": f"gpu07-{LEADER}.sw1",
    "switch-chip": f"{OTHER_TRAY}.sw1",
    "leader-chip": f"{LEADER}.sw1",
    "switch-tray": OTHER_TRAY,
    "leader-tray": LEADER,
    "controller": controller_id(LEADER_HOME_TRAY + 2),
    "leader-controller": controller_id(LEADER_HOME_TRAY),
}
_LEADER_KINDS = ("leader-plane-link", "leader-chip", "leader-tray", "leader-controller")
HOME, OTHER = "r01", "r02"  # the global fabric manager's rack, and one without it


@dataclass(frozen=True)
class Site:
    """What effects() counts and where its representative faults are."""

    gpus: int
    compute_trays: int
    cables: int
    links: int
    chips: int  # switch chips of the first tier (L1)
    links_per_gpu: int
    chips_per_tray: int
    trays: int  # L1 switch trays, the leaders' included
    other_trays: int  # L1 trays that hold no leader (the controller and tray kinds' count)
    rep: Mapping[str, str]
    updates: tuple[tuple[str, int], ...]  # (a tray updated, how many trays are like it)
    dark_gpu: str  # prefix of the GPU whose links go dark in outcomes.dark_slowdown
    dark_racks: tuple[str, ...]  # prefixes of the racks whose chips a dark plane takes
    racks: int = 1  # NVL72 racks
    l2_chips: int = 0
    l2_trays: int = 0
    trunks: int = 0  # trunk links (L1 chip to L2 chip)


def site_of(s: Scenario) -> Site:
    """The scenario's Site: its rack, or its domain."""
    return _SITES[s.kind](s)


def _rack_site(s: Scenario) -> Site:
    """One rack's site: its own parts, one representative of each kind."""
    f = s.spec()
    return Site(
        f.gpus,
        f.compute_trays,
        f.cables,
        f.links,
        f.chips,
        f.chips,
        f.chips_per_tray,
        f.switch_trays,
        f.switch_trays - 1,
        REP,
        ((OTHER_TRAY, f.switch_trays),),
        "",
        ("",),
    )


def _domain_site(s: Scenario) -> Site:
    """A domain's site: every rack's parts, the L2 tier's, its trunks."""
    d = DOMAINS[s.fabric]
    f, r = d.rack, d.racks
    rep = {k: f"{HOME if k in _LEADER_KINDS else OTHER}.{v}" for k, v in REP.items()}
    rep |= {
        "rack-leader-tray": f"{OTHER}.{LEADER}",
        "rack-leader-controller": f"{OTHER}.{controller_id(LEADER_HOME_TRAY)}",
        "l2-chip": l2_id(5, 1),
        "l2-tray": l2_tray_id(2),
        "trunk": trunk_id(d, 1, 5, 1),
    }
    return Site(
        d.gpus,
        r * f.compute_trays,
        r * f.cables,
        r * f.links,
        r * f.chips,
        f.chips,
        f.chips_per_tray,
        r * f.switch_trays,
        r * (f.switch_trays - 1),
        rep,
        ((f"{OTHER}.{OTHER_TRAY}", r * f.switch_trays), (l2_tray_id(2), l2_trays(d))),
        f"{OTHER}.",
        tuple(f"r{k + 1:02d}." for k in range(r)),
        r,
        d.l2_chips,
        l2_trays(d),
        r * f.chips * 72,
    )


def dark_ids(s: Scenario, site: Site, links: int, planes: int) -> tuple[str, ...]:
    """`links` dark links on one GPU and `planes` planes dark for every GPU (on distinct
    chips), as fail= IDs: on a domain a dark plane is its chip in every rack [A]."""
    f = rack_fabric(s)
    dead = [f"{p}{chip_id(f, f.chips - 1 - k)}" for k in range(planes) for p in site.dark_racks]
    dark = [f"{site.dark_gpu}{link_id(f, 7, f.chips_per_tray + k)}" for k in range(links)]
    return tuple(dead + dark)


_SITES: Mapping[FabricKind, Callable[[Scenario], Site]] = MappingProxyType(
    {FabricKind.RACK: _rack_site, FabricKind.DOMAIN: _domain_site, FabricKind.ISLANDS: _rack_site}
)
