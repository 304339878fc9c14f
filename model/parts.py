"""A part of any scenario's fabric, read from its ID the same way for every fabric kind.

One rack's IDs are parsed by model/ids.py, a domain's by model/multirack/domains.py, an
island fabric's by model/fabric/islands.py; `part(s, cid)` gives what the view needs of any
of them (its kind, the rack of a domain it sits in, its ID within that rack), so the view
never parses an ID itself. ScenarioError names an ID the fabric does not have.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from model.errors import ScenarioError
from model.fabric.islands import SCENARIO_ISLANDS, parse_island_part
from model.fabric.presets import FABRICS, Fabric
from model.ids import (
    Component,
    chip_id,
    compute_tray_id,
    controller_id,
    gpu_id,
    link_id,
    parse_id,
    plane_of,
    tray_id,
)
from model.kinds import ComponentKind, DomainKind, FabricKind, IslandKind
from model.multirack import domains as dm
from model.multirack.domains import DOMAINS, parse_part, rack_id
from model.scenario import Scenario, fabric_kind

__all__ = [
    "Part",
    "default_link",
    "every_id",
    "ids_by_kind",
    "in_rack",
    "matching",
    "part",
    "rack_ids",
    "update_ids",
]


@dataclass(frozen=True)
class Part:
    """One part of a scenario's fabric."""

    id: str  # as the scenario writes it
    kind: ComponentKind | DomainKind | IslandKind
    rack: int | None  # a domain's rack it sits in (0-based; a trunk's too); None: one rack's
    local: str | None  # its ID within its rack, one rack's grammar; None: no rack part

    @property
    def rack_id(self) -> str | None:
        """The rack's ID (r01, ...) on a domain; None for one rack or the L2 tier."""
        return None if self.rack is None else rack_id(self.rack)


def _rack_part(s: Scenario, cid: str) -> Part:
    c = parse_id(cid, s.spec())
    return Part(cid, c.kind, None, c.id)


def _domain_part(s: Scenario, cid: str) -> Part:
    p = parse_part(cid, DOMAINS[s.fabric])
    rack = p.trunk[0] if p.trunk is not None else p.rack
    return Part(cid, p.kind, rack, None if p.local is None else p.local.id)


def _island_part(s: Scenario, cid: str) -> Part:
    p = parse_island_part(cid, SCENARIO_ISLANDS[s.fabric])
    return Part(p.id, p.kind, None, None)


_PARTS: Mapping[FabricKind, Callable[[Scenario, str], Part]] = MappingProxyType(
    {
        FabricKind.RACK: _rack_part,
        FabricKind.DOMAIN: _domain_part,
        FabricKind.ISLANDS: _island_part,
    }
)


def part(s: Scenario, cid: str) -> Part:
    """The part `cid` names on the scenario's fabric; ScenarioError if it has none, naming
    the parts it could mean (a partial ID's matches: issue 28's dead ends)."""
    try:
        return _PARTS[s.kind](s, cid)
    except ScenarioError as e:
        near = matching(s.fabric, cid, NEAR + 1) if cid else []
        if not near:
            raise
        raise ScenarioError(f"{e.message}; {_near_words(near)}", e.token) from e


NEAR = 5  # the matches an error names


def _near_words(near: list[str]) -> str:
    """'the one match: gpu07-st3.sw2.c0' or 'it matches gpu07, gpu70, ... (type one)'."""
    if len(near) == 1:
        return f"the one match: {near[0]}"
    more = ", ..." if len(near) > NEAR else ""
    return f"it matches {', '.join(near[:NEAR])}{more} (type one in full)"


def in_rack(rack: int, local: str) -> str:
    """The ID of one rack's part `local` in rack `rack` (0-based) of a domain."""
    return f"{rack_id(rack)}.{local}"


def rack_ids(f: Fabric) -> tuple[str, ...]:
    """Every part of one rack: trays, GPUs, chips, controllers, then links and cables."""
    K = ComponentKind
    parts = [compute_tray_id(t) for t in range(1, f.compute_trays + 1)]
    parts += [gpu_id(g) for g in range(f.gpus)]
    parts += [tray_id(t) for t in range(1, f.switch_trays + 1)]
    parts += [chip_id(f, p) for p in range(f.planes)]
    parts += [controller_id(t) for t in range(1, f.switch_trays + 1)]
    for g, p in itertools.product(range(f.gpus), range(f.planes)):
        tray, chip = divmod(p, f.chips_per_tray)
        parts.append(Component(K.LINK, (g, tray + 1, chip)).id)
        parts += [Component(K.CABLE, (g, tray + 1, chip, c)).id for c in range(f.cables_per_link)]
    return tuple(parts)


def _domain_ids(fabric: str) -> tuple[str, ...]:
    """A domain's racks, its L2 chips and trays, its trunk bundles, each rack's parts."""
    d = DOMAINS[fabric]
    local = rack_ids(d.rack)
    out = [dm.rack_id(r) for r in range(d.racks)]
    out += [dm.l2_id(p, s) for p in range(d.planes) for s in range(d.l2_per_plane)]
    out += [dm.l2_tray_id(n) for n in range(1, dm.l2_trays(d) + 1)]
    out += [
        dm.trunk_id(d, r, p, s)
        for r in range(d.racks)
        for p in range(d.planes)
        for s in range(d.l2_per_plane)
    ]
    out += [in_rack(r, cid) for r in range(d.racks) for cid in local]
    return tuple(out)


_EVERY_ID: Mapping[FabricKind, Callable[[str], tuple[str, ...]]] = MappingProxyType(
    {
        FabricKind.RACK: lambda fabric: rack_ids(FABRICS[fabric]),
        FabricKind.DOMAIN: _domain_ids,
        # not drawn on the page (its answer is the API's): nothing to find there
        FabricKind.ISLANDS: lambda fabric: (),
    }
)


@functools.lru_cache(maxsize=len(FABRICS) + len(DOMAINS) + len(SCENARIO_ISLANDS))
def every_id(fabric: str) -> tuple[str, ...]:
    """Every ID the fabric (or the multi-rack domain) `fabric` has, in the model's order."""
    return _EVERY_ID[fabric_kind(fabric)](fabric)


# The words people call each kind of part by, so a word finds them ("trunk" lists a domain's
# trunk bundles, whose IDs, r03.st1.sw0-l2.s0, never say so).
KIND_WORDS: Mapping[str, str] = MappingProxyType(
    {str(k): str(k).replace("-", " ") for k in (*ComponentKind, *DomainKind, *IslandKind)}
)


@functools.lru_cache(maxsize=len(FABRICS) + len(DOMAINS) + len(SCENARIO_ISLANDS))
def ids_by_kind(fabric: str) -> Mapping[str, tuple[str, ...]]:
    """Every ID of the fabric, by the kind of part it names, in the model's order."""
    s = Scenario(fabric=fabric)
    out: dict[str, list[str]] = {}
    for cid in every_id(fabric):
        out.setdefault(str(_PARTS[s.kind](s, cid).kind), []).append(cid)
    return MappingProxyType({k: tuple(v) for k, v in out.items()})


def matching(fabric: str, typed: str | None, n: int) -> list[str]:
    """Up to n IDs for what was typed (any case): those starting with it first, in the
    model's order, then those containing it, then the parts of a kind it names ("trunk",
    "cable", "switch chip"); nothing for an empty box or a fabric with no IDs to find."""
    tok = (typed or "").strip().lower()
    if not tok or fabric not in FABRICS and fabric not in DOMAINS:
        return []
    ids = every_id(fabric)
    out = [i for i in ids if i.startswith(tok)][:n]
    seen = set(out)
    if len(out) < n:
        out += [i for i in ids if tok in i and i not in seen][: n - len(out)]
    word = tok.replace("-", " ").replace("_", " ").removesuffix("s")  # "trunks": a trunk
    if len(out) < n and len(word) >= 3:
        kinds = ids_by_kind(fabric)
        for kind, said in KIND_WORDS.items():
            if kind in kinds and said.startswith(word):
                out += list(kinds[kind][: n - len(out)])
    return out


def _domain_updates(fabric: str) -> tuple[str, ...]:
    d = DOMAINS[fabric]
    l1 = [in_rack(r, tray_id(t)) for r in range(d.racks) for t in range(1, d.rack.switch_trays + 1)]
    return (*l1, *(dm.l2_tray_id(n) for n in range(1, dm.l2_trays(d) + 1)))


_UPDATES: Mapping[FabricKind, Callable[[str], tuple[str, ...]]] = MappingProxyType(
    {
        FabricKind.RACK: lambda fabric: tuple(
            tray_id(t) for t in range(1, FABRICS[fabric].switch_trays + 1)
        ),
        FabricKind.DOMAIN: _domain_updates,
        FabricKind.ISLANDS: lambda fabric: (),  # update= is not modelled there
    }
)


def update_ids(fabric: str) -> tuple[str, ...]:
    """The switch trays an update can name, each one: a rack's trays; a domain's, each
    rack's L1 trays (rNN.stK) and then its L2 trays (l2.tNN)."""
    return _UPDATES[fabric_kind(fabric)](fabric)


# The link the telemetry charts follow until one is chosen: GPU 7's on switch tray 3, chip 2
# (the project's example link, gpu07-st3.sw2), or the tray's last chip where it has fewer.
DEFAULT_LINK_AT = (7, 3, 2)  # (GPU, switch tray, chip)


def default_link(f: Fabric) -> str:
    """The link the charts follow by default on one rack of fabric f: one it has."""
    gpu, tray, chip = DEFAULT_LINK_AT
    return link_id(f, gpu, plane_of(f, tray, min(chip, f.chips_per_tray - 1)))
