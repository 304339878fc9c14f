"""The twin's own NMX-Manager REST answers of a scenario: `GET /nmx/v1/partitions`, `/gpus`
and `/ports`, to NMX-Manager's OpenAPI specification (v85.1.1000), one object a line; what
the specification leaves open is assumed as model/telemetry/importers/nmx.py reads it [A]."""

from __future__ import annotations

import json

from model.fabric.fate import Partition
from model.kinds import PartitionState as PS
from model.telemetry.fields import ACTIVE, FABRIC_STATE_NOT_STARTED
from model.telemetry.snapshot import Counters

# The twin's partition states under the API's spelling (BANDWIDTH is DEGRADED_BANDWIDTH there).
API_STATE = {PS.HEALTHY: "HEALTHY", PS.DEGRADED: "DEGRADED", PS.BANDWIDTH: "DEGRADED_BANDWIDTH"}
API_STATE[PS.UNHEALTHY] = "UNHEALTHY"
GPU_NAMES = {"vr-nvl72": "NVIDIA Rubin", "gb200-nvl72": "NVIDIA GB200"}
_STAMP = "2026-01-01T00:00:00.000+00:00"
_DOMAIN = "00000000-0000-4000-8000-000000000072"


def _eid(kind: int, n: int) -> str:
    """A 24-hex-digit entity ID (the schema's EntityID pattern), one per kind and index."""
    return f"{kind:02x}{n:022x}"


def _lines(objs: list[dict]) -> str:
    body = ",\n".join(json.dumps(o, separators=(",", ":")) for o in objs)
    return "[\n" + body + "\n]\n"


def gpu_health(snap: Counters, part: Partition) -> list[str]:
    """Each GPU's NMX health: UNKNOWN when it is gone, NO_NVLINK when parked (full-bandwidth
    mode), DEGRADED_BW when short of links, else HEALTHY."""
    gone = snap.health.state == FABRIC_STATE_NOT_STARTED
    short = (snap.state != ACTIVE).any(axis=1)
    parked = set(part.parked)
    return [
        "UNKNOWN"
        if gone[g]
        else "NO_NVLINK"
        if g in parked
        else "DEGRADED_BW"
        if short[g]
        else "HEALTHY"
        for g in range(snap.fabric.gpus)
    ]


def partitions_answer(snap: Counters, part: Partition) -> str:
    """`GET /nmx/v1/partitions` of the rack: one ID-based partition holding every GPU."""
    f = snap.fabric
    obj = {
        "ID": _eid(1, 1),
        "PartitionID": 1,
        "Name": f"{f.key}-rack",
        "Type": "ID_BASED",
        "Health": API_STATE[part.state],
        "Members": [_eid(2, g) for g in range(f.gpus)],
        "CreatedAt": _STAMP,
        "UpdatedAt": _STAMP,
    }
    return _lines([obj])


def gpus_answer(snap: Counters, part: Partition) -> str:
    """`GET /nmx/v1/gpus`: every GPU with its location, ports and NMX health."""
    f = snap.fabric
    health = gpu_health(snap, part)
    out = []
    for g in range(f.gpus):
        tray, dev = divmod(g, f.gpus_per_tray)
        out.append(
            {
                "ID": _eid(2, g),
                "Name": GPU_NAMES.get(f.key, "NVIDIA GPU"),
                "DomainUUID": _DOMAIN,
                "LocationInfo": {
                    "ChassisID": 1,
                    "SlotID": tray + 1,
                    "TrayIndex": tray,
                    "HostID": 1,
                },
                "DeviceUID": 0x10000 + g,
                "DeviceID": dev,
                "DevicePcieID": dev,
                "SystemUID": 0x20000 + tray,
                "VendorID": 0x10DE,
                "ALIDList": [g + 1],
                "PartitionID": 1,
                "PortIDList": [_eid(3, g * f.planes + p) for p in range(f.planes)],
                "Health": health[g],
            }
        )
    return _lines(out)


def ports_answer(snap: Counters) -> str:
    """`GET /nmx/v1/ports`, the GPU side: every GPU port, up (LINKUP / STATE_ACTIVE) or down."""
    f = snap.fabric
    out = []
    for g in range(f.gpus):
        tray = g // f.gpus_per_tray
        for p in range(f.planes):
            up = bool(snap.state[g, p] == ACTIVE)
            out.append(
                {
                    "ID": _eid(3, g * f.planes + p),
                    "DomainUUID": _DOMAIN,
                    "LocationInfo": {"ChassisID": 1, "SlotID": tray + 1, "TrayIndex": tray},
                    "Type": "GPU",
                    "PortUID": g * f.planes + p,
                    "PortNum": p,
                    "PeerPortDeviceUID": 0x30000 + p,
                    "PeerPortNum": g,
                    "Rail": 0,
                    "Plane": p,
                    "PhysicalState": "LINKUP" if up else "DISABLED",
                    "LogicalState": "STATE_ACTIVE" if up else "STATE_DOWN",
                    "SubnetPrefix": 0,
                    "IsSDNPort": False,
                    "ContainAndDrain": bool(snap.planned[p]),
                }
            )
    return _lines(out)
