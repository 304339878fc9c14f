"""Telemetry snapshots: what DCGM, NVML and the switch trays report about every link at a
simulated time, one link's series, and the public windowed health rule.

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
simulated day) from a numpy Generator seeded by sha256(scenario key, stream, bucket), so the
same scenario shows the same numbers on every machine, and a counter read at t includes
exactly the events up to t: counters are monotone and a time series agrees with a snapshot.

Attribution (model/telemetry/diagnosis.py) reads a snapshot only. With fine-grained link
telemetry off only link up/down and the fabric health are visible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.ids import chip_id, gpu_id, link_id, parse_id, plane_of
from model.scenario import Scenario
from model.telemetry.fields import (
    ACTIVE,
    BANDWIDTH,
    BANDWIDTH_GBS,
    BER,
    CRC_DATA,
    CRC_FLIT,
    DATA,
    EVENT_BUCKET_S,
    FABRIC_STATE_COMPLETED,
    FABRIC_STATE_NOT_STARTED,
    FLAKY_TTF_S,
    FLIT,
    GPU_TOTALS,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    HEALTH_THRESHOLD,
    HEALTH_WINDOW_S,
    HEALTH_WINDOWS,
    IDLE,
    INACTIVE,
    LANE_BER,
    LANE_STATE,
    MASK_FALSE,
    MASK_SHIFTS,
    MASK_TRUE,
    MAX_SERIES_POINTS,
    METRICS,
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
    SUMMARY_HEALTHY,
    SUMMARY_LIMITED,
    SUMMARY_UNHEALTHY,
    UNITS,
    lane_crc_name,
)
from model.telemetry.lanes import (
    LaneModel,
    ber_at,
    check_t,
    counts_at,
    day_events,
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
class FabricHealth:
    """Each GPU's NVML fabric info as nvidia-smi -q shows it: state, health mask, summary."""

    state: np.ndarray  # int8[G]: NVML_GPU_FABRIC_STATE_* (3 COMPLETED, 1 NOT_STARTED)
    mask: np.ndarray  # int64[G]: DCGM_FI_DEV_FABRIC_HEALTH_MASK (2 bits a condition)
    summary: np.ndarray  # int8[G]: DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY (0 n/a, 1, 2, 3)

    def condition(self, name: str) -> np.ndarray:
        """int[G]: one mask field (0 NOT_SUPPORTED, 1 TRUE, 2 FALSE), e.g. 'DEGRADED_BW'."""
        return (self.mask >> MASK_SHIFTS[name]) & 3


def fabric_health(m: LaneModel, state: np.ndarray) -> FabricHealth:
    """Emulate each GPU's fabric health from its links (state int8[G, P]).

    DEGRADED_BW is TRUE when some link of a live GPU is not ACTIVE (it runs below full
    bandwidth). ROUTE_UNHEALTHY is TRUE for such a GPU when dynamic rerouting is off [A]: its
    routes still point at the dead link until the fabric manager reprograms them. Route
    recovery and access-timeout recovery are transient states the steady-state model never
    shows: FALSE. A GPU that is gone reports nothing: state NOT_STARTED, mask 0, summary 0.
    The summary follows the conditions: Healthy, Limited Capacity when the bandwidth alone is
    degraded, Unhealthy otherwise.
    """
    alive = m.gpu_alive
    degraded = alive & (state != ACTIVE).any(axis=1)
    unhealthy = degraded & (not m.reroute)
    cond = {
        "DEGRADED_BW": np.where(degraded, MASK_TRUE, MASK_FALSE),
        "ROUTE_RECOVERY": np.full(alive.shape, MASK_FALSE),
        "ROUTE_UNHEALTHY": np.where(unhealthy, MASK_TRUE, MASK_FALSE),
        "ACCESS_TIMEOUT_RECOVERY": np.full(alive.shape, MASK_FALSE),
    }
    mask = np.zeros(alive.shape, np.int64)
    for name, v in cond.items():
        mask |= v.astype(np.int64) << MASK_SHIFTS[name]
    summary = np.where(
        unhealthy, SUMMARY_UNHEALTHY, np.where(degraded, SUMMARY_LIMITED, SUMMARY_HEALTHY)
    )
    return FabricHealth(
        state=np.where(alive, FABRIC_STATE_COMPLETED, FABRIC_STATE_NOT_STARTED).astype(np.int8),
        mask=np.where(alive, mask, 0),
        summary=np.where(alive, summary, 0).astype(np.int8),
    )


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
    the lane carries nothing). None with telemetry off.
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
            raise ValueError(f"'{name}' is not visible: fine-grained link telemetry is off")
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
        if self.telemetry:
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
    t = check_t(t_s)
    m = lane_model(scenario, check_t(onset_s))
    f = m.fabric
    g, p, c = m.shape
    faults = t >= m.onset
    lanes_now = lane_state(m, t, faults)
    link_state = lanes_now.reshape(g, p, c)[:, :, 0].copy()
    link_state[link_state == IDLE] = INACTIVE
    planned = m.planned & faults
    health = fabric_health(m, link_state)
    if not m.telemetry:
        return Counters(f, m.key, t, m.onset, False, link_state, planned, health)

    # GPU side: the driver's counters, whatever the switch trays' controllers do.
    end_gpu = m.end_times(t, switch_side=False)
    ev_gpu = counts_at(m, end_gpu, t)
    active = lanes_now == ACTIVE
    ber = ber_at(m, t, active)
    per_lane = _lane_counters(m, ev_gpu, end_gpu, ber, active)
    link = {k: lanes_sum(v) for k, v in per_lane.items()}
    link[BER] = link[BER] / c
    # Switch side: as the tray last reported it while its controller is silent.
    stale = m.stale_planes(t)
    if stale.any():
        stale_lane = np.tile(np.repeat(stale, c), g)
        end_sw = m.end_times(t)
        lanes_sw = np.where(stale_lane, lane_state(m, m.onset, False), lanes_now)
        active_sw = lanes_sw == ACTIVE
        ber_sw = np.where(stale_lane, ber_at(m, m.onset, active_sw), ber)
        cable = _lane_counters(m, counts_at(m, end_sw, t), end_sw, ber_sw, active_sw)
    else:
        lanes_sw, cable = lanes_now, per_lane
    port = {
        PORT_FLIT: lanes_sum(cable[CRC_FLIT]),
        PORT_CRC: lanes_sum(cable[CRC_FLIT] + cable[CRC_DATA]),
        PORT_REPLAY: lanes_sum(cable[REPLAY]),
        PORT_RECOVERY: lanes_sum(cable[RECOVERY]),
        PORT_TX: lanes_sum(cable[BANDWIDTH]) // 2,  # one direction of the bytes both ways
    }
    port_up = (lanes_sw.reshape(g, p, c) == ACTIVE).all(axis=2)
    visible = m.flaky_link.reshape(g, p) & ~(m.down.reshape(g, p) & faults)
    return Counters(
        fabric=f,
        scenario_key=m.key,
        t_s=t,
        onset_s=m.onset,
        telemetry=True,
        state=link_state,
        planned=planned,
        health=health,
        link=link,
        gpu={name: link[k].sum(axis=1) for k, name in GPU_TOTALS.items()},
        port=port,
        port_status=np.where(port_up, PORT_STATUS_ACTIVE, PORT_STATUS_OFF).astype(np.int8),
        cable=cable,
        cable_state=lanes_sw.reshape(g, p, c),
        stale=stale,
        last_seen_s=np.where(stale, min(t, m.onset), t),
        projected_fail_s=np.where(visible, FLAKY_TTF_S, np.nan),
    )


# --- time series of one link -----------------------------------------------------------------
def link_series(
    scenario: Scenario,
    link: str,
    t0_s: float,
    t1_s: float,
    step_s: float,
    *,
    onset_s: float = 0.0,
) -> dict:
    """One link's (or cable's) metrics at t0, t0 + step, ... up to t1, for the dashboard chart.

    Each value equals what counters(scenario, t) reports for that link (or cable) at that t.
    With telemetry off only the link's state is there (a cable's own state is not visible).
    """
    t0, t1, onset = check_t(t0_s), check_t(t1_s), check_t(onset_s)
    if not step_s > 0 or t1 < t0:
        raise ValueError("need t0_s <= t1_s and step_s > 0")
    n_pts = math.floor((t1 - t0) / step_s + 1e-9) + 1
    if n_pts > MAX_SERIES_POINTS:
        raise ValueError(f"{n_pts} points; at most {MAX_SERIES_POINTS}: widen the step")
    m = lane_model(scenario, onset)
    f = m.fabric
    _g, p, c = m.shape
    comp = parse_id(link, f)
    if comp.kind not in ("link", "cable"):
        raise ScenarioError(f"'{link}' is a {comp.kind}; a series takes a link or a cable", link)
    plane = plane_of(f, comp.nums[1], comp.nums[2])
    base = (comp.nums[0] * p + plane) * c
    is_link = comp.kind == "link"
    lanes = np.arange(base, base + c) if is_link else np.array([base + comp.nums[3]])
    ts = t0 + step_s * np.arange(n_pts)
    regimes: dict[tuple[bool, bool], np.ndarray] = {}

    def state_at(tau: float) -> np.ndarray:
        key = (bool(tau >= m.onset), bool(tau >= FLAKY_TTF_S))
        if key not in regimes:
            regimes[key] = lane_state(m, tau, key[0])[base : base + c]
        return regimes[key]

    link_state = [
        "ACTIVE" if (state_at(tau) == ACTIVE).all() else "INACTIVE" for tau in ts.tolist()
    ]
    out: dict = {"id": comp.id, "t_s": ts.tolist(), "state": link_state}
    if not m.telemetry:
        out["visible"] = "up/down of the link only: fine-grained link telemetry is off"
        return out

    # Every event of these lanes up to t1, sorted per process and lane.
    found: list[list[list[np.ndarray]]] = [[[] for _ in lanes] for _ in range(3)]
    for day in range(int(t1 // EVENT_BUCKET_S) + 1):
        for proc, ln, tau in day_events(m, day, times=True):
            for j, lane in enumerate(lanes.tolist()):
                found[proc][j].append(tau[ln == lane])
    taus = [
        [np.sort(np.concatenate(x)) if x else np.empty(0) for x in per_lane] for per_lane in found
    ]
    before = lane_state(m, m.onset, False)[lanes]
    # A link's series is the GPU side's (never stale); a cable's is the switch port's lane
    # view, which stops while its tray's controller is silent.
    stale_plane = bool(m.mc_down[plane // f.chips_per_tray]) and not is_link
    upto = int(lanes.max()) + 1
    cols: dict[str, list] = {k: [] for k in (*METRICS, "stale")}
    names = np.array(STATE_NAMES)
    lane_states: list[str] = []
    for tau in ts.tolist():
        stale = stale_plane and tau >= m.onset
        seen = before if stale else state_at(tau)[lanes - base]
        end = np.minimum(np.minimum(m.freeze[lanes], m.onset if stale else math.inf), tau)
        n = [
            sum(int(np.searchsorted(taus[pr][j], end[j], side="right")) for j in range(lanes.size))
            for pr in range(3)
        ]
        active = seen == ACTIVE
        read_at = min(tau, m.onset) if stale else tau
        ber = ber_at(m, read_at, np.ones(upto, bool), upto=upto)[lanes]
        ber = np.where(active, ber, np.nan)
        ber_v = float(lanes_sum(ber[None, :])[0] / lanes.size)
        cols[BANDWIDTH].append(int(np.floor(m.gbs[lanes] * 1e9 * end).astype(np.int64).sum()))
        cols[CRC_FLIT].append(n[FLIT])
        cols[CRC_DATA].append(n[DATA])
        cols[REPLAY].append(n[FLIT] + n[DATA])
        cols[RECOVERY].append(n[REC])
        cols[BER].append(None if math.isnan(ber_v) else ber_v)
        cols[BANDWIDTH_GBS].append(float(lanes_sum(np.where(active, m.gbs[lanes], 0.0)[None])[0]))
        cols["stale"].append(stale)
        lane_states.append(str(names[seen[0]]))
    out.update(cols)
    if not is_link:
        out["state"] = lane_states  # the cable's own state, as its tray last reported it
    return out


# --- the public windowed health rule ---------------------------------------------------------
def health_rule(scenario: Scenario, t_s: float, *, onset_s: float = 0.0) -> dict:
    """FACTS.md §3's rule on every link up to t_s: which links it flags now, and from when.

    A 60 s window is flagged for a link when its replay or recovery counter rose in it; the
    link is flagged at the end of a window when more than 15 of its last 30 windows were.
    It reads the GPU side's counters, as the rule does on the compute tray: a silent switch
    tray controller does not stop them; a link that went down stops counting.
    """
    t = check_t(t_s)
    m = lane_model(scenario, check_t(onset_s))
    f = m.fabric
    rule = {
        "window_s": HEALTH_WINDOW_S,
        "windows": HEALTH_WINDOWS,
        "threshold": HEALTH_THRESHOLD,
        "source": "FACTS.md §3 (nvidia-resiliency-ext PR #302)",
    }
    out: dict = {
        "t_s": t,
        "rule": rule,
        "flagged": [],
        "recent_windows": {},
        "first_flagged_s": {},
    }
    if not m.telemetry:
        out["available"] = False
        out["reason"] = "fine-grained link telemetry is off: no replay or recovery counters"
        return out
    out["available"] = True
    end = m.end_times(t, switch_side=False)
    c = f.cables_per_link
    n_win = int(t // HEALTH_WINDOW_S)  # complete windows at t
    span = n_win + 1
    per_day = int(EVENT_BUCKET_S // HEALTH_WINDOW_S)
    keys = [np.empty(0, np.int64)]
    for day in range(int(t // EVENT_BUCKET_S) + 1):
        day_keys = [np.empty(0, np.int64)]
        for _proc, lanes, tau in day_events(m, day, times=True):
            w = (tau // HEALTH_WINDOW_S).astype(np.int64)
            ok = (tau <= end[lanes]) & (w < n_win)
            day_keys.append((lanes[ok] // c) * per_day + (w[ok] - day * per_day))
        dk = np.concatenate(day_keys)
        if dk.size > f.links * per_day // 64:  # dense day: a bitmap is cheaper than a sort
            bitmap = np.zeros(f.links * per_day, bool)
            bitmap[dk] = True
            dk = np.flatnonzero(bitmap)
        else:
            dk = np.unique(dk)
        keys.append((dk // per_day) * span + day * per_day + dk % per_day)
    flagged_w = np.sort(np.concatenate(keys))  # (link, window) pairs with events, in order
    links, wins = flagged_w // span, flagged_w % span
    j = np.arange(HEALTH_THRESHOLD, flagged_w.size)
    trip = (links[j] == links[j - HEALTH_THRESHOLD]) & (
        wins[j] - wins[j - HEALTH_THRESHOLD] < HEALTH_WINDOWS
    )
    first_links, first_at = np.unique(links[j[trip]], return_index=True)
    first_w = wins[j[trip]][first_at]
    recent = np.bincount(links[wins >= n_win - HEALTH_WINDOWS], minlength=f.links)
    p = f.planes
    out["flagged"] = [
        link_id(f, int(x) // p, int(x) % p) for x in np.flatnonzero(recent > HEALTH_THRESHOLD)
    ]
    out["recent_windows"] = {  # flagged windows among each link's last 30 (links with any)
        link_id(f, int(x) // p, int(x) % p): int(recent[x]) for x in np.flatnonzero(recent)
    }
    out["first_flagged_s"] = {
        link_id(f, int(x) // p, int(x) % p): float((w + 1) * HEALTH_WINDOW_S)
        for x, w in zip(first_links, first_w, strict=True)
    }
    return out
