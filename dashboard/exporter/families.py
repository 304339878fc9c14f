"""GET /metrics's families, one row each: name, Prometheus type, HELP (with the unit), whose
series it has and where its values come from in a Reading (dashboard/exporter/metrics.py). The
tables are in scrape order: the twin, the GPU side per link and per GPU, the switch side
per port and per lane, the switch chips, trays and controllers, the partition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dashboard.exporter.reading import Reading
from model import telemetry
from model.fabric.presets import Fabric
from model.kinds import PartitionState as PS

Series = Literal[
    "link", "port", "lane", "gpu", "chip", "tray", "controller", "scenario", "partition", "one"
]
PARTITION_STATES = tuple(PS)


@dataclass(frozen=True)
class Family:
    """One metric family: name, Prometheus type, HELP (with the unit), whose series it has
    (a label set each: every link, chip, tray or controller; the scenario; or one unlabelled
    series) and where its values, in that order, come from in a Reading."""

    name: str
    kind: str
    help: str
    values: Callable[[Reading], np.ndarray | Sequence[float]]
    # exported only with the 'telemetry' feature on: what the fabric does with the counters
    # (the windowed rule), never the counters themselves, which every fabric exports
    needs_telemetry: bool = False
    series: Series = "link"


def _counter(metric: str) -> Callable[[Reading], np.ndarray]:
    return lambda r: r.snap.link[metric]  # type: ignore[index]


def _int(values: Callable[[Reading], np.ndarray]) -> Callable[[Reading], np.ndarray]:
    return lambda r: values(r).astype(np.int64)


TWIN_FAMILIES: tuple[Family, ...] = (
    Family(
        "fabric_twin_info",
        "gauge",
        "The scenario these metrics describe (unit: always 1; the labels carry the "
        "canonical scenario query and the fabric). Project name.",
        lambda r: [1],
        series="scenario",
    ),
    Family(
        "fabric_twin_simulated_time_seconds",
        "gauge",
        "The simulated clock the counters are read at (unit: seconds since the counters "
        "were cleared). Project name.",
        lambda r: [r.snap.t_s],
        series="one",
    ),
    Family(
        "fabric_twin_link_counters_available",
        "gauge",
        "Whether per-link counters (CRC, replay, recovery, bandwidth, BER) are exported "
        "(unit: 1 yes, on every fabric whatever its features: DCGM reads them on GB200 too; "
        "the telemetry feature is fabric_twin_link_telemetry_feature). Project name.",
        lambda r: [int(r.snap.link is not None)],
        series="one",
    ),
    Family(
        "fabric_twin_link_telemetry_feature",
        "gauge",
        "Whether the fabric acts on the link counters (unit: 1 the fine-grained telemetry "
        "feature is on: attribution, the windowed health rule, the forecast, drain ahead, "
        "detection in ~30 s; 0 off: the counters are exported but nothing acts on them). "
        "Project name.",
        lambda r: [int(r.snap.telemetry)],
        series="one",
    ),
)


def _help(metric: str, what: str) -> str:
    return f"{what} (unit: {telemetry.UNITS[metric]})."


LINK_FAMILIES: tuple[Family, ...] = (
    Family(
        telemetry.CRC_FLIT,
        "counter",
        _help(telemetry.CRC_FLIT, "NVLink flow-control CRC errors on this link, GPU side"),
        _counter(telemetry.CRC_FLIT),
    ),
    Family(
        telemetry.CRC_DATA,
        "counter",
        _help(telemetry.CRC_DATA, "NVLink data CRC errors on this link, GPU side"),
        _counter(telemetry.CRC_DATA),
    ),
    Family(
        telemetry.REPLAY,
        "counter",
        _help(telemetry.REPLAY, "NVLink replays (retries) on this link, GPU side"),
        _counter(telemetry.REPLAY),
    ),
    Family(
        telemetry.RECOVERY,
        "counter",
        _help(telemetry.RECOVERY, "NVLink recovery events on this link, GPU side"),
        _counter(telemetry.RECOVERY),
    ),
    Family(
        telemetry.BANDWIDTH,
        "counter",
        _help(telemetry.BANDWIDTH, "NVLink traffic on this link, all lanes, GPU side"),
        _counter(telemetry.BANDWIDTH),
    ),
    Family(
        telemetry.LINK_STATE,
        "gauge",
        "NVML link state as the GPU's driver sees it (unit: 1 ACTIVE, 0 INACTIVE).",
        lambda r: (r.snap.state == telemetry.ACTIVE).astype(np.int64),
    ),
    Family(
        telemetry.BER,
        "gauge",
        "NVML effective bit error rate of this link, the 60 s reading covering t (unit: "
        "errored bits per bit, mean of the link's lanes; NaN: the link carries nothing).",
        _counter(telemetry.BER),
    ),
    Family(
        telemetry.BANDWIDTH_GBS,
        "gauge",
        "Traffic on this link now, both directions, at the model's offered load (unit: "
        "GB/s). Project name.",
        _counter(telemetry.BANDWIDTH_GBS),
    ),
    Family(
        "fabric_twin_health_rule_flagged_windows",
        "gauge",
        "The public windowed health rule on this link: of its last 30 windows of 60 s, how "
        "many saw its replay or recovery counter rise (unit: windows; the rule fails the "
        "link above 15; exported with the telemetry feature on: the fabric runs the rule). "
        "Project name.",
        lambda r: r.flagged_windows,
        needs_telemetry=True,
    ),
)


def _gpu(name: str) -> Callable[[Reading], np.ndarray]:
    return lambda r: r.snap.gpu[name]  # type: ignore[index]


GPU_FAMILIES: tuple[Family, ...] = (
    *(
        Family(
            name,
            "counter",
            _help(metric, f"Sum over this GPU's NVLinks of {metric}"),
            _gpu(name),
            series="gpu",
        )
        for metric, name in telemetry.GPU_TOTALS.items()
    ),
    Family(
        telemetry.HEALTH_MASK,
        "gauge",
        "NVML GPU fabric health mask (unit: a bit field, 2 bits a condition: 0 not "
        "supported, 1 TRUE, 2 FALSE; DEGRADED_BW at bit 0, ROUTE_RECOVERY 2, ROUTE_UNHEALTHY "
        "4, ACCESS_TIMEOUT_RECOVERY 6; 170 = 0xAA healthy; 0: the GPU is not there).",
        lambda r: r.snap.health.mask,  # type: ignore[union-attr]
        series="gpu",
    ),
    Family(
        telemetry.HEALTH_SUMMARY,
        "gauge",
        "NVML GPU fabric health summary (unit: 1 Healthy, 2 Unhealthy, 3 Limited Capacity, "
        "0 not supported: the GPU is not there).",
        lambda r: r.snap.health.summary,  # type: ignore[union-attr]
        series="gpu",
    ),
)


def _port(metric: str) -> Callable[[Reading], np.ndarray]:
    return lambda r: r.snap.port[metric]  # type: ignore[index]


def _lane_crc(c: int) -> Callable[[Reading], np.ndarray]:
    """Lane c's CRC errors as the switch port sees them: flit and data CRC errors."""

    def values(r: Reading) -> np.ndarray:
        cab = r.snap.cable
        return (cab[telemetry.CRC_FLIT] + cab[telemetry.CRC_DATA])[:, :, c]  # type: ignore[index]

    return values


_PORT_HELP = {
    telemetry.PORT_COUNTERS[0]: "flit errors on this NVSwitch port (unit: flits)",
    telemetry.PORT_COUNTERS[1]: "CRC errors over this NVSwitch port's lanes (unit: errors)",
    telemetry.PORT_COUNTERS[2]: "replays on this NVSwitch port (unit: replays)",
    telemetry.PORT_COUNTERS[3]: "recovery events on this NVSwitch port (unit: events)",
    telemetry.PORT_COUNTERS[4]: "bytes sent by this NVSwitch port (unit: bytes, one way)",
}
_STALE = "; as last reported while the tray's controller is silent"

PORT_FAMILIES: tuple[Family, ...] = (
    *(
        Family(name, "counter", f"Total {_PORT_HELP[name]}{_STALE}.", _port(name), series="port")
        for name in telemetry.PORT_COUNTERS
    ),
    Family(
        telemetry.PORT_STATUS,
        "gauge",
        f"NVSwitch port link status (unit: 2 ACTIVE, 0 OFF){_STALE}.",
        lambda r: r.snap.port_status,  # type: ignore[return-value]
        series="port",
    ),
)


LANE_FAMILIES: tuple[Family, ...] = (
    Family(
        telemetry.LANE_STATE,
        "gauge",
        "State of each lane (cable) of a link as the switch tray's PHY diagnostics see it "
        f"(unit: 1 ACTIVE, 0 INACTIVE: failed, 2 IDLE: healthy but its link is down){_STALE}. "
        "NMX-style name of this project.",
        lambda r: r.snap.cable_state,  # type: ignore[return-value]
        series="lane",
    ),
    Family(
        telemetry.LANE_BER,
        "gauge",
        "Bit error rate of each lane (cable), the 60 s reading covering t (unit: errored bits "
        f"per bit; NaN: the lane carries nothing){_STALE}. NMX-style name of this project.",
        lambda r: r.snap.cable[telemetry.BER],  # type: ignore[index]
        series="lane",
    ),
)


def lane_families(f: Fabric) -> tuple[Family, ...]:
    """Per-lane counters and readings: DCGM's CRC family per lane of the fabric, then the
    switch tray's per-lane state and BER."""
    return *(
        Family(
            telemetry.lane_crc_name(c),
            "counter",
            f"Total CRC errors on lane {c} of this NVSwitch port (unit: errors){_STALE}.",
            _lane_crc(c),
            series="port",
        )
        for c in range(f.cables_per_link)
    ), *LANE_FAMILIES


# Switch side, as NMX-Telemetry / NMX-Manager would report it (names are this project's).
SWITCH_FAMILIES: tuple[Family, ...] = (
    Family(
        "nmx_switch_chip_up",
        "gauge",
        "NVSwitch chip health (unit: 1 up, 0 failed; a drained chip is up). NMX-style name "
        "of this project.",
        _int(lambda r: r.chip_up),
        series="chip",
    ),
    Family(
        "nmx_switch_chip_drained",
        "gauge",
        "NVSwitch chip drained on purpose, traffic moved off (unit: 1 drained for an "
        "in-service update or a maintenance window, 0 not). NMX-style name of this project.",
        _int(lambda r: r.snap.planned),
        series="chip",
    ),
    Family(
        "nmx_switch_chip_links_up",
        "gauge",
        "ACTIVE links on this NVSwitch chip's GPU-facing ports (unit: links, of one per "
        "GPU). NMX-style name of this project.",
        lambda r: (r.snap.state == telemetry.ACTIVE).sum(axis=0),
        series="chip",
    ),
    Family(
        "nmx_switch_tray_up",
        "gauge",
        "Switch tray reachable (unit: 1 up, 0 down: every chip and the controller of the "
        "tray are down). NMX-style name of this project.",
        _int(lambda r: r.tray_up),
        series="tray",
    ),
    Family(
        "nmx_controller_up",
        "gauge",
        "Switch tray management controller (NVOS CPU running NMX-Controller and "
        "NMX-Telemetry) alive (unit: 1 up, 0 down; the data plane does not depend on it). "
        "NMX-style name of this project.",
        _int(lambda r: r.state.mc_alive),
        series="controller",
    ),
    Family(
        "nmx_telemetry_stale",
        "gauge",
        "This chip's link counters are stale: its tray's NMX-Telemetry is silent, so "
        "they hold their last reported values (unit: 1 stale, 0 fresh). NMX-style name "
        "of this project.",
        _int(lambda r: r.snap.stale),  # type: ignore[arg-type,return-value]
        series="chip",
    ),
    Family(
        "nmx_telemetry_last_seen_age_seconds",
        "gauge",
        "Age of this chip's newest telemetry report at the simulated time (unit: "
        "seconds; 0 while reports flow). NMX-style name of this project.",
        lambda r: r.snap.t_s - r.snap.last_seen_s,  # type: ignore[operator]
        series="chip",
    ),
)

PARTITION_FAMILIES: tuple[Family, ...] = (
    Family(
        "nmx_partition_health",
        "gauge",
        "NMX-Manager partition health, one series per state (unit: 1 for the partition's "
        "state, 0 for the others; mode: adaptive-bandwidth or full-bandwidth). NMX-style name "
        "of this project.",
        lambda r: [int(r.partition.state is x) for x in PARTITION_STATES],
        series="partition",
    ),
)

FAMILIES: tuple[Family, ...] = (
    *TWIN_FAMILIES,
    *LINK_FAMILIES,
    *GPU_FAMILIES,
    *PORT_FAMILIES,
    *SWITCH_FAMILIES,
    *PARTITION_FAMILIES,
)


def families(f: Fabric, lanes: bool = True) -> tuple[Family, ...]:
    """Every family of a fabric, in order: FAMILIES with the per-lane ones after the ports'
    (lanes=False: without them, as a default scrape is)."""
    n = len(TWIN_FAMILIES) + len(LINK_FAMILIES) + len(GPU_FAMILIES) + len(PORT_FAMILIES)
    return (*FAMILIES[:n], *(lane_families(f) if lanes else ()), *FAMILIES[n:])
