"""GET /metrics: the scenario's link and switch telemetry in the Prometheus text format.

Every family is a row of a table (TWIN_FAMILIES, LINK_FAMILIES, SWITCH_FAMILIES: name,
type, HELP, whose label sets, where its values come from); render() writes them in that
order through dashboard/web/promtext.py.

GET /metrics?<scenario query>[&t_s=<simulated seconds>] answers in the text exposition
format 0.0.4 (Content-Type: text/plain; version=0.0.4; charset=utf-8), read at simulated
time t_s (default: model.evaluate.TELEMETRY_READ_S, as the JSON API). A bad query is HTTP 400
with JSON {"error", "token"}, as in the JSON API.

Three kinds of name, and whose they are:

- DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL and
  DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL are the field names dcgm-exporter exports, all of type
  counter (NVIDIA/dcgm-exporter, etc/default-counters.csv; FACTS.md §3). dcgm-exporter sums
  them over a GPU's links; here each series is one link, told apart by the `link` label.
  Labels: gpu (the rack-wide index, "7"; dcgm-exporter's is per host, and the host here is
  `compute_tray`), link ("gpu07-st3.sw2", the project's link ID), chip ("st3.sw2"), tray
  ("st3"), compute_tray ("ct02") and fabric ("vr-nvl72").
- nvml_nvlink_up and nvml_nvlink_ber (same labels) are this project's names for what NVML
  gives per link: the state (ACTIVE 1, INACTIVE 0) and the BER (research/nvl72_facts.md §4c).
  fabric_twin_nvlink_throughput_bytes_per_second is the model's traffic on the link now.
- nmx_* are this project's names, modelled on what NMX-Telemetry streams from each switch
  tray and NMX-Manager aggregates into its Prometheus endpoint (FACTS.md §2); NVIDIA
  publishes no metric names for them. nmx_switch_chip_up, nmx_switch_chip_drained and
  nmx_switch_chip_links_up{chip, tray, fabric}; nmx_switch_tray_up{tray, fabric};
  nmx_controller_up{tray, controller, fabric}; and, with telemetry on,
  nmx_telemetry_stale and nmx_telemetry_last_seen_age_seconds{chip, tray, fabric}.
- fabric_twin_* describe the twin: fabric_twin_info{fabric, scenario},
  fabric_twin_simulated_time_seconds and fabric_twin_link_counters_available.

With the 'telemetry' feature off only link up/down (the GPU host sees it) and the switch-side
state are exported, and fabric_twin_link_counters_available is 0. A tray whose controller is
down keeps its chips' counters at their last reported values (model.telemetry): they are
exported as they are, and nmx_telemetry_stale marks those chips. BER is NaN on a link that
carries nothing. Every value comes from read(): model.telemetry.counters(scenario, t_s) and
assess(scenario).state; the scenario's faults are in force from t = 0.
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
from model.fabric.presets import FABRICS, Fabric
from model.fabric.state import FabricState
from model.ids import chip_id, compute_tray_of_gpu, link_id

prom = Blueprint("prom", __name__)

LINK_LABELS = ("gpu", "link", "chip", "tray", "compute_tray", "fabric")
T_PARAM = "t_s"
PARAMS = declare(**{T_PARAM: Number(0.0, telemetry.MAX_T_S, default=TELEMETRY_READ_S)})


# --- label sets, built once per fabric shape -------------------------------------------------
@dataclass(frozen=True)
class Labels:
    """Escaped label sets ('{...}') of every link ([G*P], g-major), chip, tray and controller."""

    link: tuple[str, ...]
    chip: tuple[str, ...]
    tray: tuple[str, ...]
    controller: tuple[str, ...]


@lru_cache(maxsize=len(FABRICS))
def _labels(f: Fabric) -> Labels:
    g, p, k = f.gpus, f.planes, f.chips_per_tray
    esc = np.frompyfunc(escape_label_value, 1, 1)
    chips = esc(np.array([chip_id(f, q) for q in range(p)], dtype=object))
    trays = esc(np.array([f"st{q // k + 1}" for q in range(p)], dtype=object))
    gpus = esc(np.array([str(x) for x in range(g)], dtype=object))
    cts = esc(np.array([f"ct{compute_tray_of_gpu(f, x):02d}" for x in range(g)], dtype=object))
    links = esc(np.array([link_id(f, x, q) for x in range(g) for q in range(p)], dtype=object))
    fab = escape_label_value(f.key)
    # Vectorised: one object-array concatenation per label, not a dict per series.
    link = (
        '{gpu="'
        + np.repeat(gpus, p)
        + '",link="'
        + links
        + '",chip="'
        + np.tile(chips, g)
        + '",tray="'
        + np.tile(trays, g)
        + '",compute_tray="'
        + np.repeat(cts, p)
        + f'",fabric="{fab}"}}'
    )
    chip = '{chip="' + chips + '",tray="' + trays + f'",fabric="{fab}"}}'
    tray_ids = [f"st{t + 1}" for t in range(f.switch_trays)]
    tray = tuple(label_set({"tray": t, "fabric": f.key}) for t in tray_ids)
    controller = tuple(
        label_set({"tray": t, "controller": f"{t}.mc", "fabric": f.key}) for t in tray_ids
    )
    return Labels(tuple(link.tolist()), tuple(chip.tolist()), tray, controller)


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

    @property
    def fabric(self) -> Fabric:
        return self.snap.fabric

    @cached_property
    def chip_up(self) -> np.ndarray:
        """bool[P]: the chip has not failed (a drained chip is up)."""
        return ~self.state.chip_failed

    @cached_property
    def tray_up(self) -> np.ndarray:
        """bool[T]: some chip of the tray, or its controller, is up."""
        k = self.fabric.chips_per_tray
        return self.chip_up.reshape(-1, k).any(axis=1) | self.state.mc_alive


def read(s: Scenario, t_s: float) -> Reading:
    """Everything a scrape of scenario s at t_s reports (t_s already checked in range): the
    counters, and the fabric state of the scenario's one assessment (model/assess.py), which
    the counters are computed from too; nothing is rebuilt."""
    return Reading(telemetry.counters(s, t_s), assess(s).state)


# --- the families ----------------------------------------------------------------------------
Series = Literal["link", "chip", "tray", "controller", "scenario", "one"]


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

LINK_FAMILIES: tuple[Family, ...] = (
    Family(
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink flow-control CRC errors on this link (unit: flits that failed "
        "CRC, since the simulated clock's zero).",
        _counter(telemetry.CRC_FLIT),
    ),
    Family(
        "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink data CRC errors on this link (unit: errors, since the "
        "simulated clock's zero).",
        _counter(telemetry.CRC_DATA),
    ),
    Family(
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink retries on this link (unit: flit replays, since the simulated "
        "clock's zero).",
        _counter(telemetry.REPLAY),
    ),
    Family(
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink recovery errors on this link (unit: link recovery/retraining "
        "events, since the simulated clock's zero).",
        _counter(telemetry.RECOVERY),
    ),
    Family(
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
        "counter",
        "Total NVLink traffic on this link, all lanes (unit: bytes, both directions, since the "
        "simulated clock's zero).",
        _counter(telemetry.BANDWIDTH),
    ),
    Family(
        "nvml_nvlink_up",
        "gauge",
        "NVML link state as the GPU host sees it (unit: 1 ACTIVE, 0 INACTIVE). Project name.",
        lambda r: (r.snap.state == telemetry.ACTIVE).astype(np.int64),
        needs_telemetry=False,
    ),
    Family(
        "nvml_nvlink_ber",
        "gauge",
        "NVML bit error rate of this link, the 60 s reading covering t (unit: errored bits per "
        "bit, mean of the link's lanes; NaN: the link carries nothing). Project name.",
        _counter(telemetry.BER),
    ),
    Family(
        "fabric_twin_nvlink_throughput_bytes_per_second",
        "gauge",
        "Traffic on this link now, both directions, at the model's offered load (unit: "
        "bytes/s). Project name.",
        lambda r: r.snap.link[telemetry.BANDWIDTH_GBS] * 1e9,  # type: ignore[index]
    ),
)

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
        _int(lambda r: r.snap.planned & r.chip_up),
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

FAMILIES: tuple[Family, ...] = (*TWIN_FAMILIES, *LINK_FAMILIES, *SWITCH_FAMILIES)


def series_labels(r: Reading, series: Series) -> tuple[str, ...]:
    """The escaped label set ('{...}', or '' unlabelled) of each series of a family."""
    if series == "scenario":
        return (label_set({"fabric": r.fabric.key, "scenario": r.snap.scenario_key}),)
    if series == "one":
        return ("",)
    return getattr(labels_for(r.fabric), series)


def exported(r: Reading) -> tuple[Family, ...]:
    """The families a scrape of this reading has, in order (no counters with telemetry off)."""
    return tuple(fam for fam in FAMILIES if r.snap.telemetry or not fam.needs_telemetry)


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
