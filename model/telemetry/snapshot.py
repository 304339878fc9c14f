"""Telemetry snapshots: what DCGM, NVML and the switch trays report about every link at a
simulated time. One link's series over the clock is model/telemetry/series.py, the public
windowed health rule model/telemetry/rule.py, each GPU's fabric health health.py.

Two sides, as the real stack has them (docs/TELEMETRY.md). The GPU side (NVML, read by DCGM on
the compute tray: per-link DCGM_FI_DEV_NVLINK_*_PER_LINK_TOTAL fields, their per-GPU sums
DCGM_FI_DEV_NVLINK_*_COUNT_TOTAL, the link state, the per-link effective BER and each GPU's
fabric health mask) comes from the GPU driver: it never passes through a switch tray, so a
silent tray controller leaves it fresh; it stops only with its GPU. The switch side (each
NVSwitch port's DCGM_FI_DEV_NVSWITCH_LINK_* counters and status, and the per-lane CRC and BER
that tell a cable from a port) is read by the switch tray's NVOS and streamed by NMX-Telemetry
on the tray's controller (FACTS.md §2): a silent controller leaves it as last reported.

The clock. `t_s` is simulated seconds since the counters were cleared. A flaky (degrading)
link or cable degrades from t = 0, as the public GB200 link had when it was first seen, and
fails FLAKY_TTF_S later. The scenario's failed components and switch updates strike at
`onset_s` (0 by default: already in force when the clock starts); before onset the rack runs
whole. Counters only grow; a link that goes down keeps what it had.

Noise. Error events are Poisson processes. Each lane's events are drawn per clock bucket (a
simulated day) from a numpy Generator seeded by sha256(key, stream, bucket), so the same
scenario shows the same numbers on every machine, and a counter read at t includes exactly
the events up to t: counters are monotone and a time series agrees with a snapshot. The
lanes' own noise (static BER spread, each reading's jitter, background CRC errors) is keyed
by the fabric, the degrading lanes' events by the scenario (lanes.lane_noise): two scenarios
read the same wherever their faults do not differ.

Attribution (model/telemetry/diagnosis.py) reads a snapshot only. The counters exist on every
fabric whatever its features (DCGM reads them on a GB200 rack too); the 'telemetry' feature
decides what the fabric does with them (attribution, the windowed rule's drain ahead, the
forecast), not whether they are there: `Counters.telemetry` is that feature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.fabric.presets import Fabric
from model.ids import chip_id, gpu_id, link_id
from model.scenario import Scenario
from model.telemetry.fields import (
    ACTIVE,
    BANDWIDTH,
    BANDWIDTH_GBS,
    BER,
    CRC_DATA,
    CRC_FLIT,
    DATA,
    FLAKY_TTF_S,
    FLIT,
    GPU_TOTALS,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    IDLE,
    INACTIVE,
    LANE_BER,
    LANE_STATE,
    PORT_CRC,
    PORT_FLIT,
    PORT_RECOVERY,
    PORT_REPLAY,
    PORT_STATUS,
    PORT_STATUS_ACTIVE,
    PORT_STATUS_OFF,
    PORT_TX,
    REC,
    RECOVERY,
    REPLAY,
    STATE_NAMES,
    UNITS,
    lane_crc_name,
)
from model.telemetry.health import FabricHealth, fabric_health
from model.telemetry.lanes import (
    LaneModel,
    ber_at,
    check_t,
    counts_at,
    lane_model,
    lane_state,
    lanes_sum,
)


# --- the snapshot ----------------------------------------------------------------------------
def _jsonable(a: np.ndarray) -> list:
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), None, a.astype(object)).tolist()
    return a.tolist()


@dataclass(frozen=True)
class Counters:
    """A telemetry snapshot at simulated time t_s: numpy arrays, link [G, P], cable [G, P, C].

    GPU side (fresh unless its GPU is gone): `link` maps each name of METRICS to [G, P];
    `gpu` maps each per-GPU total (fields.GPU_TOTALS' values) to [G]; `state` (link up/down)
    is always there, telemetry or not, as is `health` (the GPU's fabric health). Switch side
    (as last reported while its tray's controller is silent, `stale`): `port` maps each
    NVSwitch port counter to [G, P] (the port of chip p facing GPU g), `port_status` [G, P],
    and `cable` maps the same names as `link` to [G, P, C]: each lane as the switch port's PHY
    sees it, with `cable_state`. Counters are int64; BER and throughput float (BER NaN where
    the lane carries nothing). `telemetry` is the fabric's fine-grained telemetry feature: the
    counters are there either way, and it says whether the fabric acts on them (attribution,
    drain ahead, forecast). None only in a snapshot read from a file that lacks them.
    """

    fabric: Fabric
    scenario_key: str  # for labels and exports; attribution never reads it
    t_s: float
    onset_s: float
    telemetry: bool
    state: np.ndarray  # int8[G, P]: ACTIVE / INACTIVE, as the GPU's driver sees it
    planned: np.ndarray  # bool[P]: planes drained on purpose (switch update, maintenance)
    health: FabricHealth | None = None
    link: dict[str, np.ndarray] | None = None
    gpu: dict[str, np.ndarray] | None = None
    port: dict[str, np.ndarray] | None = None
    port_status: np.ndarray | None = None  # int8[G, P]: DCGM_FI_DEV_NVSWITCH_LINK_STATUS
    cable: dict[str, np.ndarray] | None = None
    cable_state: np.ndarray | None = None  # int8[G, P, C]: ACTIVE / INACTIVE / IDLE
    stale: np.ndarray | None = None  # bool[P]: its tray's controller (NMX-Telemetry) is silent
    last_seen_s: np.ndarray | None = None  # float[P]: time of the newest switch-side reading
    projected_fail_s: np.ndarray | None = None  # float[G, P]: degrading links' failure, else NaN

    def heatmap(self, name: str) -> np.ndarray:
        """float[G, P] of one metric, or of 'state' (1 ACTIVE, 0 INACTIVE), for a heatmap."""
        if name == "state":
            return (self.state == ACTIVE).astype(float)
        if self.link is None:
            raise ValueError(f"'{name}' is not in this snapshot (a file without counters)")
        return self.link[name].astype(float)

    def to_json(self, cables: bool = True) -> dict:
        """JSON-ready dict: nested lists [G][P] and [G][P][C]; NaN becomes null. Every
        counter under its DCGM (or NVML, or project) name, the one /metrics uses.

        cables=False leaves out the per-lane arrays (about two thirds of the ~0.5 MB).
        """
        f = self.fabric
        names = np.array(STATE_NAMES)
        h = self.health
        out: dict = {
            "fabric": f.key,
            "key": self.scenario_key,
            "t_s": self.t_s,
            "onset_s": self.onset_s,
            "telemetry": self.telemetry,
            "shape": {"gpus": f.gpus, "planes": f.planes, "cables_per_link": f.cables_per_link},
            "gpus": [gpu_id(g) for g in range(f.gpus)],
            "planes": [chip_id(f, p) for p in range(f.planes)],
            "units": UNITS,
            "state": names[self.state].tolist(),
            "planned": [chip_id(f, int(p)) for p in np.flatnonzero(self.planned)],
            "fabric_health": {
                "state": h.state.tolist(),
                HEALTH_MASK: h.mask.tolist(),
                HEALTH_SUMMARY: h.summary.tolist(),
            },
            "link": None,
            "gpu": None,
            "port": None,
            "lane": None,
            "stale": None,
            "last_seen_s": None,
            "projected_fail_s": None,
        }
        if self.link is not None:
            out["link"] = {k: _jsonable(v) for k, v in self.link.items()}
            out["gpu"] = {k: v.tolist() for k, v in self.gpu.items()}
            out["port"] = {k: v.tolist() for k, v in self.port.items()}
            out["port"][PORT_STATUS] = self.port_status.tolist()
            if cables:
                crc = self.cable[CRC_FLIT] + self.cable[CRC_DATA]
                lane = {lane_crc_name(c): crc[:, :, c].tolist() for c in range(f.cables_per_link)}
                lane[LANE_BER] = _jsonable(self.cable[BER])
                lane[LANE_STATE] = names[self.cable_state].tolist()
                out["lane"] = lane
            out["stale"] = [chip_id(f, int(p)) for p in np.flatnonzero(self.stale)]
            out["last_seen_s"] = self.last_seen_s.tolist()
            gs, ps = np.nonzero(~np.isnan(self.projected_fail_s))
            out["projected_fail_s"] = {
                link_id(f, int(g), int(p)): float(self.projected_fail_s[g, p])
                for g, p in zip(gs, ps, strict=True)
            }
        return out


def _lane_counters(m: LaneModel, ev: np.ndarray, end: np.ndarray, ber, active) -> dict:
    g, p, c = m.shape
    out = {
        BANDWIDTH: np.floor(m.gbs * 1e9 * end).astype(np.int64),
        CRC_FLIT: ev[FLIT],
        CRC_DATA: ev[DATA],
        REPLAY: ev[FLIT] + ev[DATA],
        RECOVERY: ev[REC],
        BER: ber,
        BANDWIDTH_GBS: np.where(active, m.gbs, 0.0),
    }
    return {k: v.reshape(g, p, c) for k, v in out.items()}


def counters(
    scenario: Scenario,
    t_s: float,
    *,
    onset_s: float = 0.0,
) -> Counters:
    """Every link's and cable's counters at simulated time t_s (seconds since the clock's zero).

    onset_s: when the scenario's failures and updates strike (0: from the start).
    """
    return _snapshot(scenario, check_t(t_s), check_t(onset_s), whole=True)


def attribution_reads(scenario: Scenario, t_s: float) -> Counters:
    """The part of counters(scenario, t_s) attribution reads, alone: link state, the GPU
    side's recoveries and BER, each lane's BER and state, the stale trays. Every array in it
    equals counters()' (tests/model/telemetry: the same attribution on random scenarios);
    the CRC, throughput and port families and the GPUs' fabric health are left out (None),
    so evaluate() does not pay for what it does not show."""
    return _snapshot(scenario, check_t(t_s), 0.0, whole=False)


@dataclass(frozen=True)
class _Side:
    """One side's view of every lane [E] at t: when its counters stop, each lane's state,
    whether it is ACTIVE, and its BER reading."""

    end: np.ndarray
    lanes: np.ndarray
    active: np.ndarray
    ber: np.ndarray


def _link_states(m: LaneModel, t: float, faults: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each lane's state at t, and each link's as the GPU's driver sees it: its first lane's
    (a link's lanes are ACTIVE together), an IDLE link read as INACTIVE."""
    g, p, c = m.shape
    lanes_now = lane_state(m, t, faults)
    link_state = lanes_now.reshape(g, p, c)[:, :, 0].copy()
    link_state[link_state == IDLE] = INACTIVE
    return lanes_now, link_state


def _gpu_view(m: LaneModel, t: float, lanes_now: np.ndarray) -> _Side:
    """The GPU side: the driver's counters, whatever the switch trays' controllers do."""
    active = lanes_now == ACTIVE
    return _Side(m.end_times(t, switch_side=False), lanes_now, active, ber_at(m, t, active))


def _switch_view(m: LaneModel, t: float, stale: np.ndarray, gpu: _Side) -> _Side:
    """The switch side: as the tray last reported it while its controller is silent; the
    GPU side's own view (the same object) when no tray is stale."""
    if not stale.any():
        return gpu
    g, _p, c = m.shape
    stale_lane = np.tile(np.repeat(stale, c), g)
    end_sw = m.end_times(t)
    lanes_sw = np.where(stale_lane, lane_state(m, m.onset, False), gpu.lanes)
    active_sw = lanes_sw == ACTIVE
    ber_sw = np.where(stale_lane, ber_at(m, m.onset, active_sw), gpu.ber)
    return _Side(end_sw, lanes_sw, active_sw, ber_sw)


def _common(
    m: LaneModel,
    t: float,
    link_state: np.ndarray,
    planned: np.ndarray,
    stale: np.ndarray,
    sw: _Side,
) -> dict:
    """What both snapshots, whole or attribution's, hold alike."""
    return {
        "fabric": m.fabric,
        "scenario_key": m.key,
        "t_s": t,
        "onset_s": m.onset,
        "telemetry": m.telemetry,
        "state": link_state,
        "planned": planned,
        "cable_state": sw.lanes.reshape(m.shape),
        "stale": stale,
        "last_seen_s": np.where(stale, min(t, m.onset), t),
    }


def _attribution_only(m: LaneModel, t: float, common: dict, gpu: _Side, sw: _Side) -> Counters:
    """attribution_reads()' snapshot: the GPU side's recoveries and BER per link, the switch
    side's BER per lane; no other family."""
    g, p, c = m.shape
    rec = counts_at(m, gpu.end, t, procs=(REC,))[REC]
    return Counters(
        **common,
        link={
            RECOVERY: lanes_sum(rec.reshape(g, p, c)),
            BER: lanes_sum(gpu.ber.reshape(g, p, c)) / c,
        },
        cable={BER: sw.ber.reshape(g, p, c)},
    )


def _port_sums(cable: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each NVSwitch port's counters: the sums of its lanes as the switch side saw them."""
    return {
        PORT_FLIT: lanes_sum(cable[CRC_FLIT]),
        PORT_CRC: lanes_sum(cable[CRC_FLIT] + cable[CRC_DATA]),
        PORT_REPLAY: lanes_sum(cable[REPLAY]),
        PORT_RECOVERY: lanes_sum(cable[RECOVERY]),
        PORT_TX: lanes_sum(cable[BANDWIDTH]) // 2,  # one direction of the bytes both ways
    }


def _ports_as_links(link: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each NVSwitch port's counters when no tray is stale: the switch side sees what the GPU
    side does, so they are the links' own sums."""
    return {
        PORT_FLIT: link[CRC_FLIT],
        PORT_CRC: link[CRC_FLIT] + link[CRC_DATA],
        PORT_REPLAY: link[REPLAY],
        PORT_RECOVERY: link[RECOVERY],
        PORT_TX: link[BANDWIDTH] // 2,
    }


def _whole(
    m: LaneModel,
    t: float,
    faults: bool,
    common: dict,
    health: FabricHealth | None,
    gpu: _Side,
    sw: _Side,
) -> Counters:
    """counters()' snapshot: every family of both sides, the GPUs' totals and fabric health,
    and when each degrading link will fail."""
    g, p, c = m.shape
    per_lane = _lane_counters(m, counts_at(m, gpu.end, t), gpu.end, gpu.ber, gpu.active)
    link = {k: lanes_sum(v) for k, v in per_lane.items()}
    link[BER] = link[BER] / c
    if sw is gpu:  # no tray is stale
        cable, port = per_lane, _ports_as_links(link)
    else:
        cable = _lane_counters(m, counts_at(m, sw.end, t), sw.end, sw.ber, sw.active)
        port = _port_sums(cable)
    # a link's lanes are ACTIVE together (lane_state), so its port is up with its first lane
    port_up = sw.lanes.reshape(g, p, c)[:, :, 0] == ACTIVE
    visible = m.flaky_link.reshape(g, p) & ~(m.down.reshape(g, p) & faults)
    return Counters(
        **common,
        health=health,
        link=link,
        gpu={name: link[k].sum(axis=1) for k, name in GPU_TOTALS.items()},
        port=port,
        port_status=np.where(port_up, PORT_STATUS_ACTIVE, PORT_STATUS_OFF).astype(np.int8),
        cable=cable,
        projected_fail_s=np.where(visible, FLAKY_TTF_S, np.nan),
    )


def _snapshot(scenario: Scenario, t: float, onset_s: float, whole: bool) -> Counters:
    """The snapshot at t: counters()' whole one, or (whole=False) attribution_reads()'."""
    m = lane_model(scenario, onset_s)
    faults = t >= m.onset
    lanes_now, link_state = _link_states(m, t, faults)
    planned = m.planned & faults
    health = fabric_health(m, link_state) if whole else None
    if not (whole or m.telemetry):  # attribution reads nothing more with the feature off
        return Counters(m.fabric, m.key, t, m.onset, False, link_state, planned, health)
    gpu = _gpu_view(m, t, lanes_now)
    stale = m.stale_planes(t)
    sw = _switch_view(m, t, stale, gpu)
    common = _common(m, t, link_state, planned, stale, sw)
    if not whole:
        return _attribution_only(m, t, common, gpu, sw)
    return _whole(m, t, faults, common, health, gpu, sw)
