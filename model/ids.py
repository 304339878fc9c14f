"""Component IDs (docs/ARCHITECTURE.md, "Component IDs"): parse a string to a Component and back.

ct01..ct18  gpu00..gpu71  st1..st9  st1.sw0..st9.sw3  st1.mc..st9.mc
gpu07-st3.sw2 (a link)    gpu07-st3.sw2.c0 (a cable of that link)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.kinds import ComponentKind as K

KINDS = tuple(K)
KIND_ORDER = {k: i for i, k in enumerate(KINDS)}

_PATTERNS = (
    (K.COMPUTE_TRAY, re.compile(r"ct(\d{2})")),
    (K.GPU, re.compile(r"gpu(\d{2})")),
    (K.SWITCH_TRAY, re.compile(r"st(\d+)")),
    (K.SWITCH_CHIP, re.compile(r"st(\d+)\.sw(\d+)")),
    (K.CONTROLLER, re.compile(r"st(\d+)\.mc")),
    (K.LINK, re.compile(r"gpu(\d{2})-st(\d+)\.sw(\d+)")),
    (K.CABLE, re.compile(r"gpu(\d{2})-st(\d+)\.sw(\d+)\.c(\d+)")),
)

MAX_ID_LENGTH = 32


@dataclass(frozen=True, order=True)
class Component:
    """One addressable part of the rack. Numbers are as written in the ID."""

    kind: K
    nums: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", K(self.kind))  # a kind's string is accepted too

    @property
    def id(self) -> str:
        return format_id(self)

    @property
    def switch_tray(self) -> int | None:
        """1-based switch tray this part sits in or is cabled to (None for compute parts)."""
        if self.kind in (K.SWITCH_TRAY, K.SWITCH_CHIP, K.CONTROLLER):
            return self.nums[0]
        if self.kind in (K.LINK, K.CABLE):
            return self.nums[1]
        return None

    @property
    def gpu(self) -> int | None:
        """The GPU index of a GPU, a link or a cable (None otherwise)."""
        return self.nums[0] if self.kind in (K.GPU, K.LINK, K.CABLE) else None

    def link(self) -> Component:
        """The link a cable belongs to (a link is its own link)."""
        if self.kind not in (K.LINK, K.CABLE):
            raise ValueError(f"{self.id} is a {self.kind}, not a link or cable")
        return Component(K.LINK, self.nums[:3])

    def sort_key(self) -> tuple[int, tuple[int, ...]]:
        return (KIND_ORDER[self.kind], self.nums)


@lru_cache(maxsize=65536)
def format_id(c: Component) -> str:
    """The canonical string of a component (memoised: attribution and the events name the
    same parts on every evaluate)."""
    n = c.nums
    if c.kind == "compute-tray":
        return f"ct{n[0]:02d}"
    if c.kind == "gpu":
        return f"gpu{n[0]:02d}"
    if c.kind == "switch-tray":
        return f"st{n[0]}"
    if c.kind == "switch-chip":
        return f"st{n[0]}.sw{n[1]}"
    if c.kind == "controller":
        return f"st{n[0]}.mc"
    if c.kind == "link":
        return f"gpu{n[0]:02d}-st{n[1]}.sw{n[2]}"
    return f"gpu{n[0]:02d}-st{n[1]}.sw{n[2]}.c{n[3]}"


def _range_problem(token: str, kind: str, nums: tuple[int, ...], f: Fabric) -> str | None:
    def bad(what: str, lo: str, hi: str) -> str:
        return f"'{token}': {f.key} has no {what} (it has {lo}..{hi})"

    gpu_ok = 0 <= nums[0] < f.gpus
    if kind == "compute-tray":
        return (
            None
            if 1 <= nums[0] <= f.compute_trays
            else bad(f"compute tray {nums[0]}", "ct01", f"ct{f.compute_trays:02d}")
        )
    if kind in ("gpu", "link", "cable") and not gpu_ok:
        return bad(f"GPU {nums[0]}", "gpu00", f"gpu{f.gpus - 1:02d}")
    if kind == "gpu":
        return None
    tray_i = 0 if kind in ("switch-tray", "switch-chip", "controller") else 1
    tray = nums[tray_i]
    if not 1 <= tray <= f.switch_trays:
        return bad(f"switch tray {tray}", "st1", f"st{f.switch_trays}")
    if kind in ("switch-chip", "link", "cable"):
        chip = nums[tray_i + 1]
        if not 0 <= chip < f.chips_per_tray:
            return bad(f"chip sw{chip} in a switch tray", "sw0", f"sw{f.chips_per_tray - 1}")
    if kind == "cable" and not 0 <= nums[3] < f.cables_per_link:
        return bad(f"cable c{nums[3]} on a link", "c0", f"c{f.cables_per_link - 1}")
    return None


@lru_cache(maxsize=65536)
def parse_id(token: str, fabric: Fabric) -> Component:
    """Parse one ID for this fabric; ScenarioError names the token and what is wrong.

    Memoised: a pure function of its (hashable) arguments, called for every ID of every
    scenario; a bad token raises afresh every time (exceptions are not cached).
    """
    if len(token) > MAX_ID_LENGTH:
        raise ScenarioError(f"'{token[:MAX_ID_LENGTH]}...' is too long to be a component ID")
    for kind, pat in _PATTERNS:
        m = pat.fullmatch(token)
        if m:
            nums = tuple(int(g) for g in m.groups())
            problem = _range_problem(token, kind, nums, fabric)
            if problem:
                raise ScenarioError(problem, token=token)
            return Component(kind, nums)
    raise ScenarioError(
        f"'{token}' is not a component ID (expected e.g. ct01, gpu07, st3, st3.sw2, st3.mc, "
        "gpu07-st3.sw2 or gpu07-st3.sw2.c0)",
        token=token,
    )


def plane_of(fabric: Fabric, tray: int, chip: int) -> int:
    """Plane index of chip `chip` (0-based) in switch tray `tray` (1-based)."""
    return (tray - 1) * fabric.chips_per_tray + chip


def chip_id(fabric: Fabric, plane: int) -> str:
    tray, chip = divmod(plane, fabric.chips_per_tray)
    return f"st{tray + 1}.sw{chip}"


def gpu_id(gpu: int) -> str:
    return f"gpu{gpu:02d}"


def link_id(fabric: Fabric, gpu: int, plane: int) -> str:
    return f"{gpu_id(gpu)}-{chip_id(fabric, plane)}"


def compute_tray_of_gpu(fabric: Fabric, gpu: int) -> int:
    """1-based compute tray holding this GPU: gpu(4k)..gpu(4k+3) sit in tray k+1."""
    return gpu // fabric.gpus_per_tray + 1


def tray_id(tray: int) -> str:
    """The ID of 1-based switch tray `tray`."""
    return f"st{tray}"


def controller_id(tray: int) -> str:
    """The ID of the management controller of 1-based switch tray `tray`."""
    return f"st{tray}.mc"


def compute_tray_id(tray: int) -> str:
    """The ID of 1-based compute tray `tray`."""
    return f"ct{tray:02d}"
