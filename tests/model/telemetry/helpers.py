"""What the telemetry tests share: scenarios by query, the read time, the fabrics with
telemetry on."""

from collections import defaultdict
from pathlib import Path

from model.fabric.topology import topology
from model.query import parse_query
from model.scenario import Scenario

READ_AT = 3600.0  # an hour in: after the faults strike (onset 0), days before a flaky failure
FABRIC_QUERIES = {  # telemetry is off by default on gb200-nvl72: turn it on to attribute
    "vr-nvl72": "fabric=vr-nvl72",
    "gb200-nvl72": "fabric=gb200-nvl72&on=telemetry",
}
ROOT = Path(__file__).resolve().parents[3]


def sc(query: str) -> Scenario:
    return parse_query(query).scenario


def ids_by_kind(fabric: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for c in topology(sc(f"fabric={fabric}").spec())["components"]:
        out[c["kind"]].append(c["id"])
    return out
