"""Multi-rack NVLink domain presets and their component IDs (docs/MULTIRACK.md).

Kept apart from model/multirack.py (the physics) so the scenario parser can read these IDs
without importing the fabric model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from model.errors import ScenarioError
from model.fabric.presets import VR_NVL72, Fabric
from model.ids import KIND_ORDER, Component, parse_id

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

_RACK = re.compile(r"r(\d{2})")
_L2 = re.compile(r"l2\.p(\d{2})\.s(\d+)")


@dataclass(frozen=True)
class DomainPart:
    """A parsed multi-rack ID: a whole rack, a part of one rack, or an L2 chip."""

    rack: int | None  # 0-based
    local: Component | None  # the part within its rack (NVL72 grammar)
    l2: tuple[int, int] | None  # (plane, index)

    def sort_key(self) -> tuple:
        if self.l2 is not None:
            return (1, 0, 0, self.l2)
        if self.local is None:
            return (0, self.rack, -1, ())
        return (0, self.rack, KIND_ORDER[self.local.kind], self.local.nums)


def parse_part(token: str, d: Domain) -> DomainPart:
    """rNN (a rack), rNN.<an NVL72 ID> or l2.pPP.sS; ScenarioError names what is wrong."""
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
    rack_id, _, local = token.partition(".")
    m = _RACK.fullmatch(rack_id)
    if not m or not 1 <= int(m.group(1)) <= d.racks:
        raise ScenarioError(
            f"'{token}': {d.key} IDs are r01..r{d.racks:02d} (a rack), r01.<an NVL72 ID> "
            "(e.g. r03.gpu07-st3.sw2.c0) or l2.pPP.sS (an L2 chip)",
            token,
        )
    r = int(m.group(1)) - 1
    if not local:
        return DomainPart(r, None, None)
    return DomainPart(r, parse_id(local, d.rack), None)
