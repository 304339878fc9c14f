"""Multi-rack NVLink domain presets and their component IDs (docs/MULTIRACK.md).

Kept apart from model/multirack/tiers.py (the physics) so the scenario parser can read these IDs
without importing the fabric model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from model.errors import ScenarioError
from model.fabric.presets import VR_NVL72, Fabric
from model.ids import KIND_ORDER, Component, parse_id
from model.kinds import ComponentKind, DomainKind

L2_PORTS = 144  # [A] the 144-port configuration of the same switch chip
TRUNKS_PER_L1 = 72  # [A] as many trunk ports as GPU ports: non-blocking


@dataclass(frozen=True)
class Domain:
    """A multi-rack NVLink domain of identical racks."""

    key: str
    name: str
    racks: int
    rack: Fabric = VR_NVL72

    @property
    def gpus(self) -> int:
        return self.racks * self.rack.gpus

    @property
    def planes(self) -> int:
        return self.rack.planes

    @property
    def l2_per_plane(self) -> int:
        return self.racks * TRUNKS_PER_L1 // L2_PORTS

    @property
    def l1_chips(self) -> int:
        return self.racks * self.planes

    @property
    def l2_chips(self) -> int:
        return self.planes * self.l2_per_plane


VR_NVL576 = Domain("vr-nvl576", "8 Vera Rubin NVL72 racks, one NVLink domain [A]", 8)
VR_NVL1152 = Domain("vr-nvl1152", "16 Vera Rubin NVL72 racks, one NVLink domain [A]", 16)
DOMAINS: dict[str, Domain] = {d.key: d for d in (VR_NVL576, VR_NVL1152)}

L2_CHIPS_PER_TRAY = 4  # [A] an L2 tray is the rack's switch tray: 4 chips, as on L1

_RACK = re.compile(r"r(\d{2})")
_L2 = re.compile(r"l2\.p(\d{2})\.s(\d+)")
_L2_TRAY = re.compile(r"l2\.t(\d{2})")
_TRUNK = re.compile(r"r(\d{2})\.st(\d+)\.sw(\d+)-l2\.s(\d+)")


def l2_trays(d: Domain) -> int:
    """L2 trays: 4 chips each (36 on the 576-GPU domain, 72 on the 1,152)."""
    return d.l2_chips // L2_CHIPS_PER_TRAY


def l2_tray_chips(d: Domain, n: int) -> tuple[tuple[int, int], ...]:
    """(plane, index) of the chips of L2 tray n (1-based): index s of planes 4b..4b+3, where
    n - 1 = b x S + s (S L2 chips per plane) [A]: like an L1 tray, a tray holds 4 planes, so
    losing or updating one costs 4 planes 1/S of their trunks, never a whole plane's group."""
    b, s = divmod(n - 1, d.l2_per_plane)
    return tuple((b * L2_CHIPS_PER_TRAY + j, s) for j in range(L2_CHIPS_PER_TRAY))


def l2_tray_of(d: Domain, plane: int, index: int) -> int:
    """The 1-based L2 tray holding chip l2.pPP.sS."""
    return (plane // L2_CHIPS_PER_TRAY) * d.l2_per_plane + index + 1


def rack_id(r: int) -> str:
    """The ID of 0-based rack r: r01..r16."""
    return f"r{r + 1:02d}"


def l2_id(plane: int, index: int) -> str:
    return f"l2.p{plane:02d}.s{index}"


def l2_tray_id(n: int) -> str:
    return f"l2.t{n:02d}"


@dataclass(frozen=True)
class DomainPart:
    """A parsed multi-rack ID: a whole rack, a part of one rack, an L2 chip or tray, or a
    trunk bundle (the 72/S trunk cables between one L1 chip and one L2 chip)."""

    rack: int | None  # 0-based
    local: Component | None  # the part within its rack (NVL72 grammar)
    l2: tuple[int, int] | None  # (plane, index)
    l2_tray: int | None = None  # 1-based
    trunk: tuple[int, int, int] | None = None  # (rack, plane, L2 index)

    @property
    def kind(self) -> ComponentKind | DomainKind:
        """What it names: a rack part's own kind, or a DomainKind."""
        if self.trunk is not None:
            return DomainKind.TRUNK
        if self.l2_tray is not None:
            return DomainKind.L2_TRAY
        if self.l2 is not None:
            return DomainKind.L2_CHIP
        if self.local is None:
            return DomainKind.RACK
        return self.local.kind

    def sort_key(self) -> tuple:
        if self.trunk is not None:
            return (0, self.trunk[0], len(KIND_ORDER), self.trunk)
        if self.l2_tray is not None:
            return (1, 1, 0, (self.l2_tray,))
        if self.l2 is not None:
            return (1, 0, 0, self.l2)
        if self.local is None:
            return (0, self.rack, -1, ())
        return (0, self.rack, KIND_ORDER[self.local.kind], self.local.nums)


def parse_part(token: str, d: Domain) -> DomainPart:
    """rNN (a rack), rNN.<an NVL72 ID>, l2.pPP.sS (an L2 chip), l2.tNN (an L2 tray) or
    rNN.stK.swJ-l2.sS (a trunk bundle); ScenarioError names what is wrong."""
    m = _L2.fullmatch(token)
    if m:
        p, s = int(m.group(1)), int(m.group(2))
        if not (0 <= p < d.planes and 0 <= s < d.l2_per_plane):
            raise ScenarioError(
                f"'{token}': {d.key} has L2 chips l2.p00.s0..l2.p{d.planes - 1:02d}."
                f"s{d.l2_per_plane - 1}",
                token,
            )
        return DomainPart(None, None, (p, s))
    m = _L2_TRAY.fullmatch(token)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= l2_trays(d):
            raise ScenarioError(f"'{token}': {d.key} has L2 trays l2.t01..l2.t{l2_trays(d)}", token)
        return DomainPart(None, None, None, l2_tray=n)
    m = _TRUNK.fullmatch(token)
    if m:
        r, tray, chip, s = (int(x) for x in m.groups())
        k = d.rack.chips_per_tray
        if not (1 <= r <= d.racks and 1 <= tray <= d.rack.switch_trays and 0 <= chip < k):
            raise ScenarioError(
                f"'{token}': a trunk is rNN.stK.swJ-l2.sS with r01..r{d.racks:02d}, "
                f"st1..st{d.rack.switch_trays}, sw0..sw{k - 1}",
                token,
            )
        if not 0 <= s < d.l2_per_plane:
            raise ScenarioError(
                f"'{token}': {d.key} has L2 chips s0..s{d.l2_per_plane - 1} in each plane", token
            )
        return DomainPart(None, None, None, trunk=(r - 1, (tray - 1) * k + chip, s))
    rack_id_, _, local = token.partition(".")
    m = _RACK.fullmatch(rack_id_)
    if not m or not 1 <= int(m.group(1)) <= d.racks:
        raise ScenarioError(
            f"'{token}': {d.key} IDs are r01..r{d.racks:02d} (a rack), r01.<an NVL72 ID> "
            "(e.g. r03.gpu07-st3.sw2.c0), l2.pPP.sS (an L2 chip), l2.tNN (an L2 tray) or "
            "rNN.stK.swJ-l2.sS (a trunk)",
            token,
        )
    r = int(m.group(1)) - 1
    if not local:
        return DomainPart(r, None, None)
    return DomainPart(r, parse_id(local, d.rack), None)


def trunk_port(d: Domain, plane: int, index: int) -> str:
    """A trunk bundle's name within its rack: the L1 chip of `plane` to L2 chip `index`
    ('st3.sw2-l2.s1'); the trunk's ID is its rack's ID, a dot, and this."""
    tray, chip = divmod(plane, d.rack.chips_per_tray)
    return f"st{tray + 1}.sw{chip}-l2.s{index}"


def trunk_id(d: Domain, rack: int, plane: int, index: int) -> str:
    """The ID of the trunk bundle between rack's L1 chip of `plane` and L2 chip `index`."""
    return f"{rack_id(rack)}.{trunk_port(d, plane, index)}"


def l2_chips_of(d: Domain, cid: str) -> tuple[tuple[int, int], ...]:
    """(plane, index) of the L2 chips a part names: an L2 chip itself, an L2 tray's chips, a
    trunk's L2 end; none for a rack or a rack's own part. ScenarioError for a bad ID."""
    part = parse_part(cid, d)
    if part.trunk is not None:
        return ((part.trunk[1], part.trunk[2]),)
    if part.l2_tray is not None:
        return l2_tray_chips(d, part.l2_tray)
    return (part.l2,) if part.l2 is not None else ()
