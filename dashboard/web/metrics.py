"""GET /metrics: the scenario's link and switch telemetry in the Prometheus text format.

Every family is a row of a table (TWIN_FAMILIES, LINK_FAMILIES, SWITCH_FAMILIES: name,
type, HELP, whose label sets, where its values come from); render() writes them in that
order through dashboard/web/promtext.py.

GET /metrics?<scenario query>[&t_s=<simulated seconds>] answers in the text exposition
format 0.0.4 (Content-Type: text/plain; version=0.0.4; charset=utf-8), read at simulated
time t_s (default: model.evaluate.TELEMETRY_READ_S, as the JSON API). A bad query is HTTP 400
with JSON {"error", "token"}, as in the JSON API.

The names, and whose they are (docs/TELEMETRY.md has every one with its source):

- GPU side, per link: DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_PER_LINK_TOTAL
  and DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK (DCGM's per-link fields, keyed by a DCGM_FE_LINK
  entity, which scale to NVLink 6's 36 links), DCGM_FI_DEV_NVLINK_GET_STATE (NVML: 1 ACTIVE,
  0 INACTIVE) and NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER. Labels as dcgm-exporter's link
  metrics: nvlink (the link's index on its GPU, which here is its plane), gpu (the rack-wide
  index), and the project's link ("gpu07-st3.sw2"), chip, tray, compute_tray and fabric.
- GPU side, per GPU: the sums over its links under dcgm-exporter's names,
  DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL and
  DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, and the NVML fabric health, DCGM_FI_DEV_FABRIC_HEALTH_MASK
  and DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY. Labels gpu, Hostname (the compute tray, "ct02"),
  device ("nvidia3", the GPU's index on its tray), compute_tray, fabric.
- Switch side, per NVSwitch port: DCGM_FI_DEV_NVSWITCH_LINK_{FLIT,CRC,REPLAY,RECOVERY}_ERROR_TOTAL,
  DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX, DCGM_FI_DEV_NVSWITCH_LINK_STATUS (2 ACTIVE, 0 OFF) and
  per lane DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_L<n>_TOTAL. Labels as dcgm-exporter's: nvswitch
  ("nvswitch2", the chip's index on its tray), nvlink (the port, which faces GPU <nvlink>),
  hostname (the switch tray, "st3"; dcgm-exporter spells it so on link and switch metrics),
  and link, chip, fabric.
- nmx_* are this project's names for what NMX-Telemetry and NMX-Manager report and publish no
  metric names for (FACTS.md §2; research: "NMX-T metrics list NOT public"): chip, tray and
  controller up, staleness, and nmx_partition_health{state, mode} (1 for the partition's
  state, 0 for the others).
- fabric_twin_* describe the twin: fabric_twin_info{fabric, scenario},
  fabric_twin_simulated_time_seconds, fabric_twin_link_counters_available, the model's traffic
  (fabric_twin_nvlink_throughput_gigabytes_per_second) and the public windowed health rule's
  flagged windows per link (fabric_twin_health_rule_flagged_windows).

With the 'telemetry' feature off only the link state, the fabric health and the switch-side
state are exported, and fabric_twin_link_counters_available is 0. A tray whose controller is
down keeps its switch-side counters at their last reported values: they are exported as they
are, and nmx_telemetry_stale marks those chips; the GPU side is unaffected. BER is NaN on a
link that carries nothing. Every value comes from read(): model.telemetry.counters(scenario,
t_s), its health rule and assess(scenario); the scenario's faults are in force from t = 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

import numpy as np
from flask import Blueprint, Response

from dashboard.web.promtext import (
    CONTENT_TYPE,
    escape_label_value,
    family_text,
    label_set,
    prefixes,
)
from dashboard.web.request import Number, declare, scenario_request
from model import Scenario, ScenarioError, parse_query, telemetry
from model.assess import assess
from model.evaluate import TELEMETRY_READ_S
from model.fabric.fate import Partition
from model.fabric.presets import FABRICS, Fabric
from model.fabric.state import FabricState
from model.ids import chip_id, compute_tray_of_gpu, link_id, parse_id, plane_of
from model.kinds import PartitionState as PS

prom = Blueprint("prom", __name__)

LINK_LABELS = ("nvlink", "gpu", "link", "chip", "tray", "compute_tray", "fabric")
GPU_LABELS = ("gpu", "Hostname", "device", "compute_tray", "fabric")
PORT_LABELS = ("nvswitch", "nvlink", "hostname", "link", "chip", "fabric")
T_PARAM = "t_s"
PARAMS = declare(**{T_PARAM: Number(0.0, telemetry.MAX_T_S, default=TELEMETRY_READ_S)})


# --- label sets, built once per fabric shape -------------------------------------------------
@dataclass(frozen=True)
class Labels:
    """Escaped label sets ('{...}') of every link ([G*P], g-major) as the GPU and as the switch
    port sees it, every GPU, chip, tray and controller."""

    link: tuple[str, ...]
    port: tuple[str, ...]
    lane: tuple[str, ...]  # [G*P*C], g-major, then plane, then lane
    gpu: tuple[str, ...]
    chip: tuple[str, ...]
    tray: tuple[str, ...]
    controller: tuple[str, ...]


def _join(parts: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """'{k1="v1",k2="v2",...}' per element, vectorised over object arrays of escaped values."""
    out = "{" + parts[0][0] + '="' + parts[0][1]
    for k, v in parts[1:]:
        out = out + '",' + k + '="' + v
    return out + '"}'


@lru_cache(maxsize=len(FABRICS))
def _labels(f: Fabric) -> Labels:
    g, p, k = f.gpus, f.planes, f.chips_per_tray
    esc = np.frompyfunc(escape_label_value, 1, 1)

    def arr(values: list[str]) -> np.ndarray:
        return esc(np.array(values, dtype=object))

    chips = arr([chip_id(f, q) for q in range(p)])
    trays = arr([f"st{q // k + 1}" for q in range(p)])
    gpus = arr([str(x) for x in range(g)])
    cts = arr([f"ct{compute_tray_of_gpu(f, x):02d}" for x in range(g)])
    links = arr([link_id(f, x, q) for x in range(g) for q in range(p)])
    fab = np.array([escape_label_value(f.key)], dtype=object)
    link = _join(
        [
            ("nvlink", np.tile(arr([str(q) for q in range(p)]), g)),
            ("gpu", np.repeat(gpus, p)),
            ("link", links),
            ("chip", np.tile(chips, g)),
            ("tray", np.tile(trays, g)),
            ("compute_tray", np.repeat(cts, p)),
            ("fabric", fab),
        ]
    )
    port = _join(
        [
            ("nvswitch", np.tile(arr([f"nvswitch{q % k}" for q in range(p)]), g)),
            ("nvlink", np.repeat(gpus, p)),
            ("hostname", np.tile(trays, g)),
            ("link", links),
            ("chip", np.tile(chips, g)),
            ("fabric", fab),
        ]
    )
    gpu = _join(
        [
            ("gpu", gpus),
            ("Hostname", cts),
            ("device", arr([f"nvidia{x % f.gpus_per_tray}" for x in range(g)])),
            ("compute_tray", cts),
            ("fabric", fab),
        ]
    )
    c = f.cables_per_link
    lane = _join(
        [
            ("link", np.repeat(links, c)),
            ("lane", np.tile(arr([str(x) for x in range(c)]), g * p)),
            ("fabric", fab),
        ]
    )
    chip = _join([("chip", chips), ("tray", trays), ("fabric", fab)])
    tray_ids = [f"st{t + 1}" for t in range(f.switch_trays)]
    tray = tuple(label_set({"tray": t, "fabric": f.key}) for t in tray_ids)
    controller = tuple(
        label_set({"tray": t, "controller": f"{t}.mc", "fabric": f.key}) for t in tray_ids
    )
    return Labels(
        tuple(link.tolist()),
        tuple(port.tolist()),
        tuple(lane.tolist()),
        tuple(gpu.tolist()),
        tuple(chip.tolist()),
        tray,
        controller,
    )


def labels_for(f: Fabric) -> Labels:
    """The cached label sets of a fabric (labels depend on its preset's shape and key only, so
    eth-x72's bandwidth variants share its preset's entry)."""
    return _labels(FABRICS[f.key])


# --- what a scrape reads ---------------------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """One scenario read at simulated time t_s: its telemetry snapshot and fabric state, and
    the switch-side numbers more than one family needs (computed once, on first use)."""

    snap: telemetry.Counters
    state: FabricState
    partition: Partition
    rule: dict  # model.telemetry.health_rule at the same t_s

    @property
    def fabric(self) -> Fabric:
        return self.snap.fabric

    @cached_property
    def chip_up(self) -> np.ndarray:
        """bool[P]: the chip has not failed (a drained chip is up)."""
        return ~self.state.chip_failed

    @cached_property
    def flagged_windows(self) -> np.ndarray:
        """int[G*P]: the health rule's flagged windows among each link's last 30."""
        f = self.fabric
        out = np.zeros(f.gpus * f.planes, np.int64)
        for lid, n in self.rule["recent_windows"].items():
            c = parse_id(lid, f)
            out[c.nums[0] * f.planes + plane_of(f, c.nums[1], c.nums[2])] = n
        return out

    @cached_property
    def tray_up(self) -> np.ndarray:
        """bool[T]: some chip of the tray, or its controller, is up."""
        k = self.fabric.chips_per_tray
        return self.chip_up.reshape(-1, k).any(axis=1) | self.state.mc_alive


def read(s: Scenario, t_s: float) -> Reading:
    """Everything a scrape of scenario s at t_s reports (t_s already checked in range): the
    counters, and the fabric state of the scenario's one assessment (model/assess.py), which
    the counters are computed from too; nothing is rebuilt."""
    a = assess(s)
    return Reading(telemetry.counters(s, t_s), a.state, a.partition, telemetry.health_rule(s, t_s))


# --- the families ----------------------------------------------------------------------------
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
    needs_telemetry: bool = True  # exported only with the 'telemetry' feature on
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
        needs_telemetry=False,
        series="scenario",
    ),
    Family(
        "fabric_twin_simulated_time_seconds",
        "gauge",
        "The simulated clock the counters are read at (unit: seconds since the counters "
        "were cleared). Project name.",
        lambda r: [r.snap.t_s],
        needs_telemetry=False,
        series="one",
    ),
    Family(
        "fabric_twin_link_counters_available",
        "gauge",
        "Whether per-link counters (CRC, replay, recovery, bandwidth, BER) are exported "
        "(unit: 1 yes; 0 no: fine-grained link telemetry is off, so only link up/down and "
        "switch state are visible). Project name.",
        lambda r: [int(r.snap.telemetry)],
        needs_telemetry=False,
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
        needs_telemetry=False,
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
        "link above 15). Project name.",
        lambda r: r.flagged_windows,
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
        needs_telemetry=False,
        series="gpu",
    ),
    Family(
        telemetry.HEALTH_SUMMARY,
        "gauge",
        "NVML GPU fabric health summary (unit: 1 Healthy, 2 Unhealthy, 3 Limited Capacity, "
        "0 not supported: the GPU is not there).",
        lambda r: r.snap.health.summary,  # type: ignore[union-attr]
        needs_telemetry=False,
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
        needs_telemetry=False,
        series="chip",
    ),
    Family(
        "nmx_switch_chip_drained",
        "gauge",
        "NVSwitch chip drained on purpose, traffic moved off (unit: 1 drained for an "
        "in-service update or a maintenance window, 0 not). NMX-style name of this project.",
        _int(lambda r: r.snap.planned),
        needs_telemetry=False,
        series="chip",
    ),
    Family(
        "nmx_switch_chip_links_up",
        "gauge",
        "ACTIVE links on this NVSwitch chip's GPU-facing ports (unit: links, of one per "
        "GPU). NMX-style name of this project.",
        lambda r: (r.snap.state == telemetry.ACTIVE).sum(axis=0),
        needs_telemetry=False,
        series="chip",
    ),
    Family(
        "nmx_switch_tray_up",
        "gauge",
        "Switch tray reachable (unit: 1 up, 0 down: every chip and the controller of the "
        "tray are down). NMX-style name of this project.",
        _int(lambda r: r.tray_up),
        needs_telemetry=False,
        series="tray",
    ),
    Family(
        "nmx_controller_up",
        "gauge",
        "Switch tray management controller (NVOS CPU running NMX-Controller and "
        "NMX-Telemetry) alive (unit: 1 up, 0 down; the data plane does not depend on it). "
        "NMX-style name of this project.",
        _int(lambda r: r.state.mc_alive),
        needs_telemetry=False,
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
        needs_telemetry=False,
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


def families(f: Fabric) -> tuple[Family, ...]:
    """Every family of a fabric, in order: FAMILIES with the per-lane ones after the ports'."""
    n = len(TWIN_FAMILIES) + len(LINK_FAMILIES) + len(GPU_FAMILIES) + len(PORT_FAMILIES)
    return (*FAMILIES[:n], *lane_families(f), *FAMILIES[n:])


def series_labels(r: Reading, series: Series) -> tuple[str, ...]:
    """The escaped label set ('{...}', or '' unlabelled) of each series of a family."""
    if series == "scenario":
        return (label_set({"fabric": r.fabric.key, "scenario": r.snap.scenario_key}),)
    if series == "one":
        return ("",)
    if series == "partition":
        mode = str(r.partition.mode)
        return tuple(
            label_set({"state": str(x), "mode": mode, "fabric": r.fabric.key})
            for x in PARTITION_STATES
        )
    return getattr(labels_for(r.fabric), series)


def exported(r: Reading) -> tuple[Family, ...]:
    """The families a scrape of this reading has, in order (no counters with telemetry off)."""
    fams = families(r.fabric)
    return tuple(fam for fam in fams if r.snap.telemetry or not fam.needs_telemetry)


def reading_text(r: Reading) -> str:
    """The exposition text of a Reading: every exported family, in table order."""
    parts = []
    for fam in exported(r):
        labs = series_labels(r, fam.series)
        pre = prefixes(fam.name, labs) if len(labs) > 1 else (f"{fam.name}{labs[0]} ",)
        parts.append(family_text(fam.name, fam.kind, fam.help, pre, np.asarray(fam.values(r))))
    return "".join(parts)


def render(scenario_query: str = "", t_s: float = TELEMETRY_READ_S) -> str:
    """The exposition text of the scenario (a query string) at simulated time t_s.

    Raises ScenarioError (with the token) on a bad query or a t_s outside 0..MAX_T_S.
    """
    if not 0.0 <= t_s <= telemetry.MAX_T_S:
        raise ScenarioError(
            f"{T_PARAM} '{t_s:g}' must be a number from 0 to {telemetry.MAX_T_S:g}", T_PARAM
        )
    return render_scenario(parse_query(scenario_query, strict=True).scenario, t_s)


def render_scenario(s: Scenario, t_s: float) -> str:
    """The exposition text of a parsed Scenario at simulated time t_s (in 0..MAX_T_S)."""
    return reading_text(read(s, t_s))


# --- the endpoint ----------------------------------------------------------------------------
@prom.get("/metrics")
def metrics_route() -> Response:
    """GET /metrics?<scenario>[&t_s=<simulated seconds>]: Prometheus text format 0.0.4."""
    q = scenario_request(PARAMS)
    body = render_scenario(q.scenario, float(q.params[T_PARAM]))
    return Response(body, status=200, headers={"Content-Type": CONTENT_TYPE})
