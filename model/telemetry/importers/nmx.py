"""NMX-Manager's REST answers read into the scenario they describe (the twin writes its own in
model/telemetry/importers/nmx_answers.py).

The response shapes are NMX-Manager's OpenAPI 3.0.3 specification (v85.1.1000, "NMX Manager
Rest API OpenAPI specification"; docs/TELEMETRY.md §7 cites it):
- `GET /nmx/v1/partitions` (an array) or `GET /nmx/v1/partitions/{id}` (one object): a
  Partition is `ID`, `PartitionID`, `Name`, `Type` (ID_BASED / LOCATION_BASED / UNDEFINED),
  `Health` (HEALTHY, DEGRADED, DEGRADED_BANDWIDTH, UNHEALTHY, NEW, UNKNOWN), `Members` (GPU
  entity IDs, or locations {DomainUUID, ChassisID, SlotID, HostID, DeviceID}), `CreatedAt`,
  `UpdatedAt`;
- `GET /nmx/v1/gpus`: a GPU is `ID`, `LocationInfo` {ChassisID, SlotID, TrayIndex, HostID},
  `DeviceID`, `PartitionID`, `PortIDList` and `Health` (UNKNOWN, HEALTHY, DEGRADED, NO_NVLINK,
  DEGRADED_BW), with the required `ALIDList`, `DevicePcieID`, `DeviceUID`, `SystemUID`,
  `VendorID`;
- `GET /nmx/v1/ports`: a Port is `ID`, `Type` (GPU, SWITCH_ACCESS, SWITCH_TRUNK, ...),
  `PortNum`, `PhysicalState` (LINKUP, DISABLED, POLLING, ...) and `LogicalState`
  (STATE_ACTIVE, STATE_DOWN, ...), with the other required fields.
A file is one or more of these answers one after another (e.g. `curl` of each in turn).

What the specification does not say, the twin assumes [A]: a GPU's compute tray is its
`LocationInfo.TrayIndex` (else its SlotID's rank), its index on the tray is `DeviceID`, a
GPU port's link index is `PortNum`, which here is the link's plane (docs/TELEMETRY.md §2), and
its `ContainAndDrain` is set when the switch chip it faces is drained for an update; a
GPU NMX no longer reaches is UNKNOWN; the API's DEGRADED_BANDWIDTH is the documentation's
adaptive-bandwidth BANDWIDTH state. Each object is one line in the twin's answers, so a
message names the line of the object it is about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from model.fabric.presets import FABRICS, Fabric
from model.telemetry.fields import ACTIVE, INACTIVE
from model.telemetry.snapshot import Counters

PARTITION_HEALTH = ("HEALTHY", "DEGRADED", "DEGRADED_BANDWIDTH", "UNHEALTHY", "NEW", "UNKNOWN")
GPU_HEALTH = ("UNKNOWN", "HEALTHY", "DEGRADED", "NO_NVLINK", "DEGRADED_BW")
PORT_UP = {"STATE_ACTIVE", "LINKUP"}


# --- reading ---------------------------------------------------------------------------------
class NmxError(ValueError):
    """The file is not NMX-Manager JSON at all; line names where."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class Parsed:
    """What the answers said, each object with the line it starts on."""

    partitions: list[tuple[int, dict]] = field(default_factory=list)
    gpus: list[tuple[int, dict]] = field(default_factory=list)
    ports: list[tuple[int, dict]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def looks_like(lines: list[str]) -> bool:
    """A JSON answer: the first non-blank character opens an array or an object."""
    for x in lines:
        s = x.strip()
        if s:
            return s[0] in "[{"
    return False


def _kind(obj: dict) -> str | None:
    if "Members" in obj or "PartitionID" in obj and "Type" in obj and "PortNum" not in obj:
        return "partitions" if "DeviceUID" not in obj else "gpus"
    if "PortNum" in obj or "LogicalState" in obj:
        return "ports"
    if "DeviceUID" in obj or "ALIDList" in obj or "PortIDList" in obj:
        return "gpus"
    return None


def parse(text: str) -> Parsed:
    """Every answer in the text, one after another; NmxError when the JSON itself breaks."""
    dec = json.JSONDecoder()
    out = Parsed()
    line_at = np.cumsum([0] + [len(x) + 1 for x in text.split("\n")])

    def line(pos: int) -> int:
        return int(np.searchsorted(line_at, pos, side="right"))

    def ws(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        return i

    def value(i: int) -> tuple[object, int]:
        try:
            return dec.raw_decode(text, i)
        except RecursionError:
            n = line(i)
            msg = f"line {n}: the JSON is nested too deeply: expected NMX answers"
            raise NmxError(msg, n) from None
        except json.JSONDecodeError as e:
            msg = f"line {e.lineno}: {e.msg} (column {e.colno}): expected JSON"
            raise NmxError(msg, e.lineno) from None
        except ValueError as e:  # e.g. an integer of more digits than Python converts
            n = line(i)
            raise NmxError(f"line {n}: {e}: expected NMX answers' JSON", n) from None

    def take(pos: int, obj: object) -> None:
        n = line(pos)
        kind = _kind(obj) if isinstance(obj, dict) else None
        if kind is None:
            out.problems.append(
                f"line {n}: not a Partition, GPU or Port object of NMX-Manager's API "
                "(expected 'Members' and 'Health', 'DeviceUID', or 'PortNum'): skipped"
            )
            return
        getattr(out, kind).append((n, obj))

    i = ws(0)
    while i < len(text):
        if text[i] == "{":
            start = i
            obj, i = value(i)
            take(start, obj)
        elif text[i] == "[":
            i = ws(i + 1)
            while i < len(text) and text[i] != "]":
                start = i
                obj, i = value(i)
                take(start, obj)
                i = ws(i)
                if i < len(text) and text[i] == ",":
                    i = ws(i + 1)
                elif i < len(text) and text[i] != "]":
                    n = line(i)
                    raise NmxError(f"line {n}: expected ',' or ']' between array items", n)
            if i >= len(text):
                n = line(len(text))
                raise NmxError(f"line {n}: the array is not closed: expected ']'", n)
            i += 1
        else:
            n = line(i)
            raise NmxError(
                f"line {n}: expected a JSON array or object (an NMX-Manager answer), "
                f"not {text[i]!r}",
                n,
            )
        i = ws(i)
    return out


def _list(obj: dict, key: str) -> list:
    v = obj.get(key)
    return v if isinstance(v, list) else []


def _int(obj: dict, key: str) -> int | None:
    v = obj.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


@dataclass(frozen=True)
class Reading:
    """What an NMX-Manager file says: the snapshot of link states it describes, the
    partition's health, each GPU's NMX health, and the features those states imply."""

    snap: Counters
    partition: dict  # {"name", "health", "gpus"} of the partition read, or {}
    gpu_health: dict[int, str]
    features: dict[str, bool | None]  # feature -> on, off, or None: the file does not say
    ports_seen: bool


def _fabric(p: Parsed, messages: list[str]) -> Fabric:
    nums = [_int(o, "PortNum") for _n, o in p.ports if o.get("Type", "GPU") == "GPU"]
    nums = [x for x in nums if x is not None]
    lists = [len(_list(o, "PortIDList")) for _n, o in p.gpus]
    links = max(nums) + 1 if nums else max(lists, default=0)
    by_links = {36: "vr-nvl72", 18: "gb200-nvl72"}
    if links in by_links:
        return FABRICS[by_links[links]]
    names = " ".join(str(o.get("Name", "")) for _n, o in p.gpus)
    if "GB200" in names or "GB300" in names:
        return FABRICS["gb200-nvl72"]
    if "Rubin" not in names:
        messages.append(
            "the file does not tell the fabric (no GPU ports, no 36 or 18 PortIDList entries, "
            "no GPU name): taken as vr-nvl72"
        )
    return FABRICS["vr-nvl72"]


def _place(p: Parsed, f: Fabric, messages: list[str]) -> dict[str, int]:
    """GPU entity ID -> the twin's GPU index, from each GPU's location."""
    slots = sorted(
        {
            (_int(o.get("LocationInfo") or {}, "ChassisID") or 0, s)
            for _n, o in p.gpus
            if (s := _int(o.get("LocationInfo") or {}, "SlotID")) is not None
        }
    )
    rank = {k: i for i, k in enumerate(slots)}
    out: dict[str, int] = {}
    for n, o in p.gpus:
        loc = o.get("LocationInfo") if isinstance(o.get("LocationInfo"), dict) else {}
        tray = _int(loc, "TrayIndex")
        slot = _int(loc, "SlotID")
        if tray is None and slot is not None:
            tray = rank[(_int(loc, "ChassisID") or 0, slot)]
        dev = _int(o, "DeviceID")
        if tray is None or dev is None or tray >= f.compute_trays or dev >= f.gpus_per_tray:
            messages.append(
                f"line {n}: GPU {o.get('ID')!r}: expected LocationInfo.TrayIndex (or SlotID) "
                f"below {f.compute_trays} and DeviceID below {f.gpus_per_tray}: skipped"
            )
            continue
        out[str(o.get("ID"))] = tray * f.gpus_per_tray + dev
    return out


def _partition(p: Parsed, ids: dict[str, int], messages: list[str]) -> dict:
    if not p.partitions:
        messages.append("no partition answer (GET /nmx/v1/partitions): partition health not read")
        return {}
    if len(p.partitions) > 1:
        messages.append(
            f"{len(p.partitions)} partitions: the twin models one over the rack; the one with "
            "the most members is read, each one's health is in 'partition'"
        )
    n, obj = max(p.partitions, key=lambda x: len(_list(x[1], "Members")))
    health = obj.get("Health")
    if health not in PARTITION_HEALTH:
        messages.append(
            f"line {n}: Health {health!r}: expected one of {', '.join(PARTITION_HEALTH)}"
        )
        health = None
    members = _list(obj, "Members")
    known = [m for m in members if isinstance(m, str) and m in ids]
    if ids and len(known) < len(members):
        messages.append(
            f"line {n}: {len(members) - len(known)} of {len(members)} members are not GPUs of "
            "the file's GPU answer (location-based or unknown IDs): not placed"
        )
    others = [
        {"name": o.get("Name"), "health": o.get("Health"), "line": m} for m, o in p.partitions
    ]
    return {
        "name": obj.get("Name"),
        "health": health,
        "members": len(members),
        "all": others,
    }


def read(p: Parsed, messages: list[str]) -> Reading:
    """The snapshot (link states, no counters) and partition an NMX-Manager file describes."""
    f = _fabric(p, messages)
    ids = _place(p, f, messages)
    state = np.full((f.gpus, f.planes), ACTIVE, np.int8)
    health: dict[int, str] = {}
    ports: dict[str, tuple[int, int]] = {}
    for n, o in p.gpus:
        g = ids.get(str(o.get("ID")))
        if g is None:
            continue
        h = o.get("Health")
        if h not in GPU_HEALTH:
            messages.append(f"line {n}: GPU Health {h!r}: expected one of {', '.join(GPU_HEALTH)}")
            continue
        health[g] = h
        for k, pid in enumerate(_list(o, "PortIDList")):
            ports[str(pid)] = (g, k)
    ports_seen = False
    placed: set[int] = set()
    drained = np.zeros((f.gpus, f.planes), bool)
    for n, o in p.ports:
        if o.get("Type", "GPU") != "GPU":
            continue
        at = ports.get(str(o.get("ID")))
        num = _int(o, "PortNum")
        if at is None or (num if num is not None else at[1]) >= f.planes:
            messages.append(
                f"line {n}: port {o.get('ID')!r}: expected a port of a GPU of the file's GPU "
                f"answer (its PortIDList) with PortNum below {f.planes}: skipped"
            )
            continue
        g, k = at[0], num if num is not None else at[1]
        up = o.get("LogicalState") in PORT_UP or o.get("PhysicalState") in PORT_UP
        state[g, k] = ACTIVE if up else INACTIVE
        drained[g, k] = o.get("ContainAndDrain") is True
        ports_seen = True
        placed.add(g)
    if ports_seen and len(placed) < f.gpus:
        messages.append(
            f"GPU ports of {len(placed)} of {f.gpus} GPUs: the other GPUs' links are taken as "
            "ACTIVE unless their GPU is UNKNOWN"
        )
    gone = [g for g, h in health.items() if h == "UNKNOWN"]
    state[gone] = INACTIVE
    part = _partition(p, ids, messages)
    # NMX-Manager carries no counters: it says nothing of the telemetry feature.
    features: dict[str, bool | None] = {"telemetry": None}
    if any(h == "NO_NVLINK" for h in health.values()):
        features["reroute"] = False  # GPUs parked: full-bandwidth mode
    elif any(h == "DEGRADED_BW" for h in health.values()):
        features["reroute"] = True  # short of links but kept: adaptive-bandwidth mode
    if gone and part.get("health") == "DEGRADED":
        features["partial-rack"] = True  # the domain shrank and runs on
    elif gone and part.get("health") == "UNHEALTHY":
        features["partial-rack"] = False
    if not ports_seen:
        short = sorted(g for g, h in health.items() if h in ("NO_NVLINK", "DEGRADED_BW"))
        if short:
            messages.append(
                f"{len(short)} GPUs are short of links (NO_NVLINK or DEGRADED_BW) but the file "
                "has no GPU ports (GET /nmx/v1/ports): which links, it does not say"
            )
    snap = Counters(
        fabric=f,
        scenario_key="imported",
        t_s=0.0,
        onset_s=0.0,
        telemetry=False,
        state=state,
        # A plane whose every GPU port is contained and drained: an update's drained chip.
        planned=drained.all(axis=0) if ports_seen else np.zeros(f.planes, bool),
    )
    part_gpus = {g: health[g] for g in sorted(health)}
    if part:
        part["gpus"] = part_gpus
    return Reading(snap, part, part_gpus, features, ports_seen)
