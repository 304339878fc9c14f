"""GET /metrics: the scenario's link and switch telemetry in the Prometheus text format.

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
carries nothing. Every value comes from model.telemetry.snapshot(scenario, t_s) and
model.faults.build_state(scenario); the scenario's faults are in force from t = 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from flask import Blueprint, Response

from dashboard.web.api import bad_request, raw_query, split_query
from model import Scenario, ScenarioError, parse_query, telemetry
from model.evaluate import TELEMETRY_READ_S
from model.fabric.presets import FABRICS, Fabric
from model.fabric.state import build_state
from model.ids import chip_id, compute_tray_of_gpu, link_id

prom = Blueprint("prom", __name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LINK_LABELS = ("gpu", "link", "chip", "tray", "compute_tray", "fabric")
T_PARAM = "t_s"


# --- the text format -------------------------------------------------------------------------
def escape_label_value(value: str) -> str:
    """A label value as the text format wants it: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text as the text format wants it: backslash and newline escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def label_set(labels: dict[str, str]) -> str:
    """'{a="x",b="y"}' with the values escaped ('' when there are no labels)."""
    if not labels:
        return ""
    inner = ",".join(f'{k}="{escape_label_value(v)}"' for k, v in labels.items())
    return "{" + inner + "}"


def format_values(values: np.ndarray) -> list[str]:
    """Sample values as text: integers exact, floats shortest round-trip, NaN and +/-Inf spelt
    as Prometheus spells them."""
    flat = values.ravel()
    if flat.dtype.kind in "biu":
        return list(map(str, flat.astype(np.int64).tolist()))
    out = list(map(repr, flat.astype(float).tolist()))
    bad = ~np.isfinite(flat)
    if bad.any():
        for i in np.flatnonzero(bad).tolist():
            x = float(flat[i])
            out[i] = "NaN" if math.isnan(x) else ("+Inf" if x > 0 else "-Inf")
    return out


def family_text(
    name: str, kind: str, help_text: str, prefixes: Sequence[str], values: np.ndarray
) -> str:
    """One family: HELP, TYPE and a line per series. prefixes[i] is 'name{labels} '."""
    head = f"# HELP {name} {escape_help(help_text)}\n# TYPE {name} {kind}\n"
    body = "\n".join(map(str.__add__, prefixes, format_values(values)))
    return head + body + "\n" if body else head


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


@lru_cache(maxsize=256)
def _prefixes(name: str, labels: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{name}{lab} " for lab in labels)


# --- the families ----------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkFamily:
    """A per-link family: name, Prometheus type, HELP (with the unit) and where its [G, P]
    values come from in a telemetry snapshot."""

    name: str
    kind: str
    help: str
    values: Callable[[telemetry.Counters], np.ndarray]
    needs_telemetry: bool = True


def _counter(metric: str) -> Callable[[telemetry.Counters], np.ndarray]:
    return lambda snap: snap.link[metric]  # type: ignore[index]


LINK_FAMILIES: tuple[LinkFamily, ...] = (
    LinkFamily(
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink flow-control CRC errors on this link (unit: flits that failed "
        "CRC, since the simulated clock's zero).",
        _counter(telemetry.CRC_FLIT),
    ),
    LinkFamily(
        "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink data CRC errors on this link (unit: errors, since the "
        "simulated clock's zero).",
        _counter(telemetry.CRC_DATA),
    ),
    LinkFamily(
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink retries on this link (unit: flit replays, since the simulated "
        "clock's zero).",
        _counter(telemetry.REPLAY),
    ),
    LinkFamily(
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
        "counter",
        "Total number of NVLink recovery errors on this link (unit: link recovery/retraining "
        "events, since the simulated clock's zero).",
        _counter(telemetry.RECOVERY),
    ),
    LinkFamily(
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
        "counter",
        "Total NVLink traffic on this link, all lanes (unit: bytes, both directions, since the "
        "simulated clock's zero).",
        _counter(telemetry.BANDWIDTH),
    ),
    LinkFamily(
        "nvml_nvlink_up",
        "gauge",
        "NVML link state as the GPU host sees it (unit: 1 ACTIVE, 0 INACTIVE). Project name.",
        lambda snap: (snap.state == telemetry.ACTIVE).astype(np.int64),
        needs_telemetry=False,
    ),
    LinkFamily(
        "nvml_nvlink_ber",
        "gauge",
        "NVML bit error rate of this link, the 60 s reading covering t (unit: errored bits per "
        "bit, mean of the link's lanes; NaN: the link carries nothing). Project name.",
        _counter(telemetry.BER),
    ),
    LinkFamily(
        "fabric_twin_nvlink_throughput_bytes_per_second",
        "gauge",
        "Traffic on this link now, both directions, at the model's offered load (unit: "
        "bytes/s). Project name.",
        lambda snap: snap.link[telemetry.BANDWIDTH_GBS] * 1e9,  # type: ignore[index]
    ),
)


def _family_lines(
    name: str, kind: str, help_text: str, labels: tuple[str, ...], values: np.ndarray | list
) -> str:
    return family_text(name, kind, help_text, _prefixes(name, labels), np.asarray(values))


def render(scenario_query: str = "", t_s: float = TELEMETRY_READ_S) -> str:
    """The exposition text of the scenario (a query string) at simulated time t_s.

    Raises ScenarioError (with the token) on a bad query or a t_s outside 0..MAX_T_S.
    """
    if not 0.0 <= t_s <= telemetry.MAX_T_S:
        raise ScenarioError(
            f"{T_PARAM} '{t_s:g}' must be a number from 0 to {telemetry.MAX_T_S:g}", T_PARAM
        )
    s = parse_query(scenario_query, strict=True).scenario
    return render_scenario(s, t_s)


def render_scenario(s: Scenario, t_s: float) -> str:
    """The exposition text of a parsed Scenario at simulated time t_s."""
    snap = telemetry.counters(s, t_s)  # t_s in range: render checks it
    st = build_state(s)
    f = snap.fabric
    lab = labels_for(f)
    k = f.chips_per_tray
    parts: list[str] = []
    gauge = "gauge"

    parts.append(
        _family_lines(
            "fabric_twin_info",
            gauge,
            "The scenario these metrics describe (unit: always 1; the labels carry the "
            "canonical scenario query and the fabric). Project name.",
            (label_set({"fabric": f.key, "scenario": snap.scenario_key}),),
            [1],
        )
    )
    parts.append(
        _family_lines(
            "fabric_twin_simulated_time_seconds",
            gauge,
            "The simulated clock the counters are read at (unit: seconds since the counters "
            "were cleared). Project name.",
            ("",),
            [snap.t_s],
        )
    )
    parts.append(
        _family_lines(
            "fabric_twin_link_counters_available",
            gauge,
            "Whether per-link counters (CRC, replay, recovery, bandwidth, BER) are exported "
            "(unit: 1 yes; 0 no: fine-grained link telemetry is off, so only link up/down and "
            "switch state are visible). Project name.",
            ("",),
            [int(snap.telemetry)],
        )
    )
    for fam in LINK_FAMILIES:
        if fam.needs_telemetry and not snap.telemetry:
            continue
        parts.append(_family_lines(fam.name, fam.kind, fam.help, lab.link, fam.values(snap)))

    # Switch side, as NMX-Telemetry / NMX-Manager would report it (names are this project's).
    chip_up = ~st.chip_failed
    drained = snap.planned & chip_up
    links_up = (snap.state == telemetry.ACTIVE).sum(axis=0)
    mc_up = st.mc_alive
    tray_up = chip_up.reshape(-1, k).any(axis=1) | mc_up
    parts.append(
        _family_lines(
            "nmx_switch_chip_up",
            gauge,
            "NVSwitch chip health (unit: 1 up, 0 failed; a drained chip is up). NMX-style name "
            "of this project.",
            lab.chip,
            chip_up.astype(np.int64),
        )
    )
    parts.append(
        _family_lines(
            "nmx_switch_chip_drained",
            gauge,
            "NVSwitch chip drained on purpose, traffic moved off (unit: 1 drained for an "
            "in-service update or a maintenance window, 0 not). NMX-style name of this project.",
            lab.chip,
            drained.astype(np.int64),
        )
    )
    parts.append(
        _family_lines(
            "nmx_switch_chip_links_up",
            gauge,
            "ACTIVE links on this NVSwitch chip's GPU-facing ports (unit: links, of one per "
            "GPU). NMX-style name of this project.",
            lab.chip,
            links_up,
        )
    )
    parts.append(
        _family_lines(
            "nmx_switch_tray_up",
            gauge,
            "Switch tray reachable (unit: 1 up, 0 down: every chip and the controller of the "
            "tray are down). NMX-style name of this project.",
            lab.tray,
            tray_up.astype(np.int64),
        )
    )
    parts.append(
        _family_lines(
            "nmx_controller_up",
            gauge,
            "Switch tray management controller (NVOS CPU running NMX-Controller and "
            "NMX-Telemetry) alive (unit: 1 up, 0 down; the data plane does not depend on it). "
            "NMX-style name of this project.",
            lab.controller,
            mc_up.astype(np.int64),
        )
    )
    if snap.telemetry:
        parts.append(
            _family_lines(
                "nmx_telemetry_stale",
                gauge,
                "This chip's link counters are stale: its tray's NMX-Telemetry is silent, so "
                "they hold their last reported values (unit: 1 stale, 0 fresh). NMX-style name "
                "of this project.",
                lab.chip,
                snap.stale.astype(np.int64),  # type: ignore[union-attr]
            )
        )
        parts.append(
            _family_lines(
                "nmx_telemetry_last_seen_age_seconds",
                gauge,
                "Age of this chip's newest telemetry report at the simulated time (unit: "
                "seconds; 0 while reports flow). NMX-style name of this project.",
                lab.chip,
                snap.t_s - snap.last_seen_s,  # type: ignore[operator]
            )
        )
    return "".join(parts)


# --- the endpoint ----------------------------------------------------------------------------
@prom.errorhandler(ScenarioError)
def _scenario_error(e: ScenarioError) -> tuple[Response, int]:
    return bad_request(e)


@prom.get("/metrics")
def metrics_route() -> Response:
    """GET /metrics?<scenario>[&t_s=<simulated seconds>]: Prometheus text format 0.0.4."""
    rest, own = split_query(raw_query(), {T_PARAM: (0.0, telemetry.MAX_T_S)})
    body = render(rest, float(own.get(T_PARAM, TELEMETRY_READ_S)))
    return Response(body, status=200, headers={"Content-Type": CONTENT_TYPE})
