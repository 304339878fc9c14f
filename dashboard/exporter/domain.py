"""GET /metrics on a multi-rack domain (vr-nvl576, vr-nvl1152): the domain's scrape, and one
rack's drill-down.

A domain has 20,736 or 41,472 links: one scrape of every per-link family would be ~40 or
~80 MB, which no one scrapes at once; each rack's exporters are scraped on their own. So:
- `/metrics?fabric=vr-nvl576&...`: the domain's tier and each GPU. Per GPU (every rack's):
  dcgm-exporter's per-GPU sums and NVML's fabric health, labels gpu (domain index), rack,
  Hostname ("r03.ct02"), device, fabric. Per L1 chip: nmx_switch_chip_up and _drained (chip
  "r03.st3.sw2", tray, rack). Per rack: nmx_rack_up. Per trunk bundle (72/S trunks between
  one L1 chip and one L2 chip): nmx_trunk_up and, with telemetry on,
  fabric_twin_trunk_degrading (trunk "r03.st2.sw1-l2.s3", rack, chip, l2_chip). Per L2
  chip: nmx_l2_chip_up and _drained (l2_chip "l2.p05.s3", plane, l2_tray). The domain's
  nmx_partition_health.
- `&rack=r03[&lanes=1]`: that rack's whole single-rack scrape (dashboard/exporter/metrics.py), as
  its own exporters report it, every ID prefixed with the rack ("r03.gpu07-st3.sw2") and
  `fabric` the domain's; its nmx_partition_health is the domain's partition.
Every value comes from model.telemetry.domain.domain_counters (the domain's one assessment).
Names other than DCGM's are the project's, as on one rack (docs/TELEMETRY.md §9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dashboard.exporter.families import GPU_FAMILIES, PARTITION_STATES, SWITCH_FAMILIES
from dashboard.exporter.metrics import reading_text
from dashboard.exporter.promtext import family_text, label_set, prefixes
from dashboard.exporter.reading import Reading
from model import Scenario, ScenarioError, telemetry
from model.assess import assess
from model.ids import chip_id, compute_tray_of_gpu, tray_id
from model.kinds import DomainKind
from model.multirack.domains import (
    DOMAINS,
    Domain,
    l2_id,
    l2_tray_id,
    l2_tray_of,
    rack_id,
    trunk_id,
)
from model.parts import part
from model.telemetry import names
from model.telemetry.domain import DomainCounters, domain_counters

RACK_PARAM = "rack"
_HELP = {f.name: f.help for f in (*GPU_FAMILIES, *SWITCH_FAMILIES)}


@dataclass(frozen=True)
class DomainFamily:
    """One family of the domain's scrape: name, type, HELP, whose series, where its values
    come from (in that series' order)."""

    name: str
    kind: str
    help: str
    values: Callable[[DomainCounters, object], np.ndarray]
    series: str  # gpu, l1, rack, trunk, l2, partition, scenario, one
    needs_telemetry: bool = False


def _gpus(name: str, health: bool = False) -> Callable[[DomainCounters, object], np.ndarray]:
    """Every rack's per-GPU values, rack after rack; a lost rack's GPUs report 0."""

    def values(dc: DomainCounters, _part: object) -> np.ndarray:
        n = dc.domain.rack.gpus
        out = []
        for snap in dc.racks:
            if snap is None:
                out.append(np.zeros(n, np.int64))
            elif health:
                out.append(getattr(snap.health, name).astype(np.int64))
            else:
                out.append(snap.gpu[name])  # type: ignore[index]
        return np.concatenate(out)

    return values


def _i(f: Callable[[DomainCounters], np.ndarray]) -> Callable[[DomainCounters, object], np.ndarray]:
    return lambda dc, _p: f(dc).astype(np.int64).ravel()


FAMILIES: tuple[DomainFamily, ...] = (
    DomainFamily(
        "fabric_twin_info",
        "gauge",
        "The scenario these metrics describe (unit: always 1; the labels carry the canonical "
        "scenario query and the domain). Project name.",
        lambda dc, _p: np.array([1]),
        "scenario",
    ),
    DomainFamily(
        "fabric_twin_simulated_time_seconds",
        "gauge",
        "The simulated clock the counters are read at (unit: seconds since the counters were "
        "cleared). Project name.",
        lambda dc, _p: np.array([dc.t_s]),
        "one",
    ),
    DomainFamily(
        "fabric_twin_link_counters_available",
        "gauge",
        "Whether per-link counters are exported, in each rack's drill-down (&rack=rNN) (unit: "
        "1 yes, on every domain whatever its features; the telemetry feature is "
        "fabric_twin_link_telemetry_feature). Project name.",
        lambda dc, _p: np.array([1]),
        "one",
    ),
    DomainFamily(
        "fabric_twin_link_telemetry_feature",
        "gauge",
        "Whether the domain acts on the link and trunk counters (unit: 1 the fine-grained "
        "telemetry feature is on: attribution, drain ahead, degrading trunks named; 0 off: "
        "the counters are exported but nothing acts on them). Project name.",
        lambda dc, _p: np.array([int(dc.telemetry)]),
        "one",
    ),
    *(
        DomainFamily(name, "counter", _HELP[name], _gpus(name), "gpu")
        for name in telemetry.GPU_TOTALS.values()
    ),
    DomainFamily(
        telemetry.HEALTH_MASK, "gauge", _HELP[telemetry.HEALTH_MASK], _gpus("mask", True), "gpu"
    ),
    DomainFamily(
        telemetry.HEALTH_SUMMARY,
        "gauge",
        _HELP[telemetry.HEALTH_SUMMARY],
        _gpus("summary", True),
        "gpu",
    ),
    DomainFamily(
        "nmx_rack_up",
        "gauge",
        "Rack reachable (unit: 1 up; 0 lost: its GPUs and trays report nothing). NMX-style "
        "name of this project.",
        _i(lambda dc: dc.rack_up),
        "rack",
    ),
    DomainFamily(
        "nmx_switch_chip_up", "gauge", _HELP["nmx_switch_chip_up"], _i(lambda dc: dc.l1_up), "l1"
    ),
    DomainFamily(
        "nmx_switch_chip_drained",
        "gauge",
        _HELP["nmx_switch_chip_drained"],
        _i(lambda dc: dc.l1_drained),
        "l1",
    ),
    DomainFamily(
        "nmx_trunk_up",
        "gauge",
        "Trunk bundle between an L1 chip and an L2 chip carries traffic (unit: 1 up; 0 its "
        "cables failed or an end is out). NMX-style name of this project.",
        _i(lambda dc: dc.trunk_up),
        "trunk",
    ),
    DomainFamily(
        "fabric_twin_trunk_degrading",
        "gauge",
        "Trunk bundle degrading: replaying and recovering, still up (unit: 1 degrading, 0 "
        "not; seen with fine-grained telemetry on only). Project name.",
        _i(lambda dc: dc.trunk_degrading),
        "trunk",
        needs_telemetry=True,
    ),
    DomainFamily(
        "nmx_l2_chip_up",
        "gauge",
        "L2 NVSwitch chip health (unit: 1 up, 0 failed; a drained chip is up). NMX-style name "
        "of this project.",
        _i(lambda dc: dc.l2_up),
        "l2",
    ),
    DomainFamily(
        "nmx_l2_chip_drained",
        "gauge",
        "L2 NVSwitch chip drained for an in-service update of its tray (unit: 1 drained, 0 "
        "not). NMX-style name of this project.",
        _i(lambda dc: dc.l2_drained),
        "l2",
    ),
    DomainFamily(
        "nmx_partition_health",
        "gauge",
        "NMX-Manager partition health of the domain, one series per state (unit: 1 for the "
        "partition's state, 0 for the others; mode: adaptive-bandwidth or full-bandwidth). "
        "NMX-style name of this project.",
        lambda dc, part: np.array([int(part.state is x) for x in PARTITION_STATES]),  # type: ignore[attr-defined]
        "partition",
    ),
)


@lru_cache(maxsize=len(DOMAINS))
def _labels(d: Domain) -> dict[str, tuple[str, ...]]:
    """The label sets of a domain's series, by series kind (built once per domain)."""
    f, key = d.rack, d.key
    gpu = tuple(
        label_set(
            {
                "gpu": str(r * f.gpus + g),
                "rack": rack_id(r),
                "Hostname": f"{rack_id(r)}.ct{compute_tray_of_gpu(f, g):02d}",
                "device": f"nvidia{g % f.gpus_per_tray}",
                "fabric": key,
            }
        )
        for r in range(d.racks)
        for g in range(f.gpus)
    )

    def chip(r: int, p: int) -> dict[str, str]:
        tray = f"{rack_id(r)}.{tray_id(p // f.chips_per_tray + 1)}"
        return {"chip": f"{rack_id(r)}.{chip_id(f, p)}", "tray": tray, "rack": rack_id(r)}

    l1 = tuple(
        label_set({**chip(r, p), "fabric": key}) for r in range(d.racks) for p in range(d.planes)
    )
    trunk = tuple(
        label_set(
            {
                "trunk": trunk_id(d, r, p, s),
                "rack": rack_id(r),
                "chip": chip(r, p)["chip"],
                "l2_chip": l2_id(p, s),
                "fabric": key,
            }
        )
        for r in range(d.racks)
        for p in range(d.planes)
        for s in range(d.l2_per_plane)
    )
    l2 = tuple(
        label_set(
            {
                "l2_chip": l2_id(p, s),
                "plane": str(p),
                "l2_tray": l2_tray_id(l2_tray_of(d, p, s)),
                "fabric": key,
            }
        )
        for p in range(d.planes)
        for s in range(d.l2_per_plane)
    )
    rack = tuple(label_set({"rack": rack_id(r), "fabric": key}) for r in range(d.racks))
    return {"gpu": gpu, "l1": l1, "trunk": trunk, "l2": l2, "rack": rack}


def domain_text(s: Scenario, t_s: float, spelling: str = names.TWIN) -> str:
    """The domain's scrape: its tier and every GPU (no per-link families: see rack_text), its
    DCGM names in the spelling asked for."""
    dc = domain_counters(s, t_s)
    partition = assess(s).partition
    labs = _labels(dc.domain)
    parts = []
    for fam in FAMILIES:
        if fam.needs_telemetry and not dc.telemetry:
            continue
        name = names.spelled(fam.name, spelling)
        if fam.series == "scenario":
            pre: tuple[str, ...] = (
                f"{name}{label_set({'fabric': dc.domain.key, 'scenario': dc.scenario_key})} ",
            )
        elif fam.series == "one":
            pre = (f"{name} ",)
        elif fam.series == "partition":
            mode = str(partition.mode)
            pre = tuple(
                f"{name}{label_set({'state': str(x), 'mode': mode, 'fabric': dc.domain.key})} "
                for x in PARTITION_STATES
            )
        else:
            pre = prefixes(name, labs[fam.series])
        parts.append(family_text(name, fam.kind, fam.help, pre, fam.values(dc, partition)))
    return "".join(parts)


def rack_index(s: Scenario, token: str) -> int:
    """The 0-based rack a `rack=` value names on the scenario's domain; ScenarioError else."""
    d = DOMAINS[s.fabric]
    p = part(s, token)
    if p.kind is not DomainKind.RACK or p.rack is None:
        raise ScenarioError(f"'{token}' is not a rack: expected r01..{rack_id(d.racks - 1)}", token)
    return p.rack


def rack_text(
    s: Scenario, t_s: float, rack: int, lanes: bool = False, spelling: str = names.TWIN
) -> str:
    """One rack of the domain, as its own exporters report it: the single-rack scrape with
    every ID prefixed by the rack, the domain's fabric key and partition."""
    dc = domain_counters(s, t_s)
    a = assess(s)
    ra, snap = a.racks[rack], dc.racks[rack]
    if ra is None or snap is None:
        raise ScenarioError(
            f"rack {rack_id(rack)} is lost in this scenario: it reports nothing", RACK_PARAM
        )
    r = Reading(
        snap,
        ra.state,
        a.partition,  # type: ignore[arg-type]
        telemetry.health_rule(ra.scenario, dc.t_s),
        prefix=f"{rack_id(rack)}.",
        domain_key=dc.domain.key,
        domain_scenario=dc.scenario_key,
    )
    return reading_text(r, lanes, spelling)
