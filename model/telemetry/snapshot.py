"""Per-link telemetry: DCGM-named counters over a simulated clock, and fault attribution.

What it models (FACTS.md §3, "fine-grained link telemetry", and the paragraph after the table):
every link and every cable (lane) of the fabric carries the counters DCGM names
(NVLINK_BANDWIDTH_TOTAL, NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
NVLINK_REPLAY_ERROR_COUNT_TOTAL, NVLINK_RECOVERY_ERROR_COUNT_TOTAL), NVML's per-link BER and
state (ACTIVE / INACTIVE). NMX-Telemetry on each switch tray's controller streams them
(FACTS.md §2), so a silent controller leaves its tray's counters stale.

The clock. `t_s` is simulated seconds since the counters were cleared. A flaky (degrading)
link or cable degrades from t = 0, as the public GB200 link had when it was first seen, and
fails FLAKY_TTF_S later. The scenario's failed components and switch updates strike at
`onset_s` (0 by default: already in force when the clock starts); before onset the rack runs
whole. Counters only grow; a link that goes down keeps what it had.

Noise. Error events are Poisson processes. Each lane's events are drawn per clock bucket (a
simulated day) from a numpy Generator seeded by sha256(scenario key, stream, bucket), so the
same scenario shows the same numbers on every machine, and a counter read at t includes
exactly the events up to t: counters are monotone and a time series agrees with a snapshot.

Attribution reads a snapshot only (never the scenario's fail list) and names the smallest set
of components that explains every down, stale or degrading link: a cable, a link (GPU port),
a switch chip, a switch tray, a controller, a GPU, a compute tray, or a degrading link or
cable. With telemetry off only link up/down is visible and no component is attributed.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from model.assess import assess
from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.ids import Component, chip_id, format_id, gpu_id, link_id, parse_id, plane_of
from model.params import FLAKY_LINK_EFFICIENCY, OFFERED_LOAD
from model.scenario import Scenario

# --- counter names (FACTS.md §3: DCGM names; NVML for BER and state) -------------------------
BANDWIDTH = "NVLINK_BANDWIDTH_TOTAL"
CRC_FLIT = "NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL"
CRC_DATA = "NVLINK_CRC_DATA_ERROR_COUNT_TOTAL"
REPLAY = "NVLINK_REPLAY_ERROR_COUNT_TOTAL"
RECOVERY = "NVLINK_RECOVERY_ERROR_COUNT_TOTAL"
BER = "BER"
BANDWIDTH_GBS = "bandwidth_gbs"
COUNTERS = (BANDWIDTH, CRC_FLIT, CRC_DATA, REPLAY, RECOVERY)  # cumulative, monotone
GAUGES = (BER, BANDWIDTH_GBS)  # a reading at t
METRICS = COUNTERS + GAUGES
UNITS = {
    BANDWIDTH: "bytes since the clock's zero, both directions (a counter, as DCGM exports it)",
    CRC_FLIT: "flits that failed CRC, since the clock's zero",
    CRC_DATA: "data CRC errors, since the clock's zero",
    REPLAY: "flit replays, since the clock's zero",
    RECOVERY: "link recovery (retraining) events, since the clock's zero",
    BER: "bit error rate, the 60 s reading that covers t (NaN/None: the lane carries nothing)",
    BANDWIDTH_GBS: "GB/s now, both directions",
}

# States. ACTIVE / INACTIVE are NVML's link states (FACTS.md §3). IDLE is a lane-level state
# of this model: a healthy cable whose link is down because a sibling cable failed (the
# switch-side PHY view, NVOS `link-diagnostics`, research/nvl72_facts.md §4c); NVML has no
# per-lane state. It is what tells a cable fault from a port fault.
INACTIVE, ACTIVE, IDLE = 0, 1, 2
STATE_NAMES = ("INACTIVE", "ACTIVE", "IDLE")

# --- rates and times -------------------------------------------------------------------------
# [A] Effective BER of a healthy lane. No public figure; FACTS.md §3's operator case found the
# failing link's counter the only non-zero one in a sweep of 320 GPUs x 18 links
# (research/nvl72_facts.md §5), so healthy links must be nearly silent: at 1e-18 a VR lane at
# the offered load (2e11 bit/s) sees a CRC error every couple of months; the rack, ~100 a day.
HEALTHY_BER = 1e-18
# [A] Lane-to-lane spread of that BER: log-normal, sigma 0.5 (about x1.6), fixed per scenario.
BER_SPREAD = 0.5
# [A] Reading-to-reading jitter of the BER gauge: log-normal, sigma 0.3, per 60 s reading.
BER_JITTER = 0.3
# [A] One BER reading per 60 s: the window length of the public health rule (FACTS.md §3).
BER_READING_S = 60.0
# [A] A degrading lane's BER: 1e5 x healthy, so replays hit nearly every minute (about 3 a
# minute on a whole VR link at the offered load). No public figure for the GB200 case's CRC.
FLAKY_BER = 1e-13
# [A] Attribution calls a lane degrading above this BER: the geometric middle of HEALTHY_BER
# and FLAKY_BER: ~12 sigma above a healthy lane and ~8 below a degrading one (BER_SPREAD and
# BER_JITTER together), so neither is ever misread.
DEGRADING_BER = 1e-15
# [A] Data CRC errors per flit CRC error: no public ratio; a quarter keeps them distinct.
CRC_DATA_PER_FLIT = 0.25
# [A] Every CRC error (flit or data) makes the sender replay: replays = flit + data errors.
# [M] FACTS.md §3: the public GB200 link added ~3 recovery events per 21 minutes. A healthy
# link has none at all: every other link's recovery counter was zero in the operators' sweep
# (research/nvl72_facts.md §5), so only degrading lanes draw recovery events.
FLAKY_RECOVERY_PER_S = 3.0 / (21.0 * 60.0)
# [A] Time from the start of degradation (t = 0) to the link-down: FACTS.md §3, the public case
# failed five days after it was seen degrading. The same for every flaky link: a projection.
FLAKY_TTF_S = 5 * 86400.0
# The public windowed health rule (FACTS.md §3; nvidia-resiliency-ext PR #302,
# research/nvl72_facts.md §5): every 60 s window in which a link's replay or recovery counter
# rose is flagged; the link fails the check when more than 15 of its last 30 windows are
# flagged. (FACTS.md's "threshold 15 recovery events" is this: 15 flagged windows.)
HEALTH_WINDOW_S = 60.0
HEALTH_WINDOWS = 30
HEALTH_THRESHOLD = 15
# [A] Clock bucket that seeds the event noise: one simulated day (any length works; a day
# keeps the number of generators small over the five-day horizon of a flaky link).
EVENT_BUCKET_S = 86400.0
# [A] Bounds on the simulated clock and on one time series (the cost grows with both).
MAX_T_S = 366 * 86400.0
MAX_SERIES_POINTS = 5000

_FLIT, _DATA, _REC = 0, 1, 2


# --- the per-scenario model ------------------------------------------------------------------
def _lanes_any(a: np.ndarray) -> np.ndarray:
    """Logical or over the last (cable) axis; a loop over the 2-4 cables, fast on small axes."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        out |= a[..., i]
    return out


def _lanes_sum(a: np.ndarray) -> np.ndarray:
    """Sum over the last (cable) axis, cable by cable (the same order everywhere)."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        out += a[..., i]
    return out


def _rng(key: str, *parts: object) -> np.random.Generator:
    """A Generator seeded by sha256 of the scenario key and a stream/bucket label."""
    text = "|".join([key, *(str(p) for p in parts)])
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "little")
    return np.random.Generator(np.random.PCG64(seed))


@dataclass(frozen=True)
class _Model:
    """Everything about a scenario the counters need, flattened to lanes e = (g*P + p)*C + c."""

    key: str
    fabric: Fabric
    telemetry: bool
    onset: float
    whole: np.ndarray  # bool[L]: link down from onset for a whole-link cause
    down: np.ndarray  # bool[L]: link down from onset for any cause
    cable_failed: np.ndarray  # bool[E]
    flaky_whole: np.ndarray  # bool[L]: the link itself degrades and fails as a whole at TTF
    flaky_lane: np.ndarray  # bool[E]: lane degrading
    flaky_link: np.ndarray  # bool[L]: any lane of the link degrading
    mc_down: np.ndarray  # bool[T]
    planned: np.ndarray  # bool[P]: drained on purpose from onset (update / maintenance)
    lane_ber: np.ndarray  # float[E]: true BER of each lane
    bg_cum: np.ndarray  # float[E]: cumulative sum of the lanes' background flit-error rates (/s)
    dense: np.ndarray  # int[D]: degrading lanes
    dense_rates: np.ndarray  # float[3, D]: extra flit, data and recovery rates (/s)
    gbs: np.ndarray  # float[E]: GB/s both directions while carrying traffic
    freeze: np.ndarray  # float[E]: when the lane stops counting (inf: never)

    @property
    def shape(self) -> tuple[int, int, int]:
        f = self.fabric
        return f.gpus, f.planes, f.cables_per_link

    def stale_planes(self, t: float) -> np.ndarray:
        """bool[P]: planes whose tray controller is down at t (its counters stop)."""
        if t < self.onset:
            return np.zeros(self.fabric.planes, bool)
        return np.repeat(self.mc_down, self.fabric.chips_per_tray)

    def end_times(self, t: float) -> np.ndarray:
        """float[E]: the time up to which each lane's counters have advanced when read at t."""
        c = self.fabric.cables_per_link
        stale = np.tile(np.repeat(self.stale_planes(t), c), self.fabric.gpus)
        last = np.where(stale, min(t, self.onset), math.inf)
        return np.minimum(np.minimum(self.freeze, last), t)


def _model(s: Scenario, onset_s: float) -> _Model:
    """The scenario's assessed state (model/assess.py), flattened to lanes."""
    st = assess(s).state
    f = st.fabric
    g, p, c = f.gpus, f.planes, f.cables_per_link
    key = s.key()
    listed = np.zeros((g, p), bool)
    for comp in st.failed:
        if comp.kind == "link":
            listed[comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])] = True
    flaky_whole = np.zeros((g, p), bool)
    for comp in (parse_id(x, f) for x in s.flaky):
        if comp.kind == "link":
            flaky_whole[comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])] = True
    whole = ~st.gpu_alive[:, None] | ~st.chip_in_service[None, :] | listed
    down = whole | _lanes_any(st.cable_failed)
    flaky_lane = st.flaky_cable | flaky_whole[:, :, None]
    flaky_link = _lanes_any(flaky_lane)

    z = _rng(key, "ber-static").standard_normal(g * p * c)
    spread = np.exp(BER_SPREAD * z)
    bg_ber = HEALTHY_BER * spread
    lane_ber = np.where(flaky_lane.ravel(), FLAKY_BER * spread, bg_ber)
    bits = f.link_gbs_bidir * 8e9 * OFFERED_LOAD / c  # bit/s per lane at the offered load
    dense = np.flatnonzero(flaky_lane)
    extra = (lane_ber[dense] - bg_ber[dense]) * bits
    whole_d = np.repeat(flaky_whole.ravel(), c)[dense]
    rec = np.where(whole_d, FLAKY_RECOVERY_PER_S / c, FLAKY_RECOVERY_PER_S)
    dense_rates = np.stack([extra, extra * CRC_DATA_PER_FLIT, rec])

    gbs_link = np.where(flaky_link, FLAKY_LINK_EFFICIENCY, 1.0) * f.link_gbs_bidir * OFFERED_LOAD
    freeze_link = np.minimum(
        np.where(down, onset_s, math.inf), np.where(flaky_link, FLAKY_TTF_S, math.inf)
    )
    planned = st.chip_drained.copy() if not st.maintenance else np.ones(p, bool)
    return _Model(
        key=key,
        fabric=f,
        telemetry="telemetry" in st.features,
        onset=float(onset_s),
        whole=whole.ravel(),
        down=down.ravel(),
        cable_failed=st.cable_failed.ravel(),
        flaky_whole=flaky_whole.ravel(),
        flaky_lane=flaky_lane.ravel(),
        flaky_link=flaky_link.ravel(),
        mc_down=~st.mc_alive,
        planned=planned,
        lane_ber=lane_ber,
        bg_cum=np.cumsum(bg_ber * bits),
        dense=dense,
        dense_rates=dense_rates,
        gbs=np.repeat(gbs_link.ravel() / c, c),
        freeze=np.repeat(freeze_link.ravel(), c),
    )


def _lane_state(m: _Model, tau: float, faults: bool) -> np.ndarray:
    """int8[E]: each lane's state at tau; `faults`: the scenario's faults are in force."""
    c = m.fabric.cables_per_link
    failed_by_ttf = tau >= FLAKY_TTF_S
    whole_dead = (faults & m.whole) | (failed_by_ttf & m.flaky_whole)
    lane_dead = (faults & m.cable_failed) | (failed_by_ttf & m.flaky_lane)
    link_up = ~whole_dead & ~_lanes_any(lane_dead.reshape(-1, c))
    dead = np.repeat(whole_dead, c) | lane_dead
    return np.where(np.repeat(link_up, c), ACTIVE, np.where(dead, INACTIVE, IDLE)).astype(np.int8)


def _day_events(m: _Model, day: int, times: bool) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(process, lanes, event times or empty) of one clock bucket; draws in a fixed order."""
    out: list[tuple[int, np.ndarray, np.ndarray]] = []
    t0 = day * EVENT_BUCKET_S
    cum = m.bg_cum
    rng = _rng(m.key, "background", day)
    lams = (cum[-1] * EVENT_BUCKET_S, cum[-1] * CRC_DATA_PER_FLIT * EVENT_BUCKET_S)
    ns = [int(rng.poisson(lam)) for lam in lams]
    lanes = [np.searchsorted(cum, rng.random(n) * cum[-1], side="right") for n in ns]
    taus = [t0 + rng.random(n) * EVENT_BUCKET_S if times else np.empty(0) for n in ns]
    out += [(_FLIT, lanes[0], taus[0]), (_DATA, lanes[1], taus[1])]
    if m.dense.size:
        rng = _rng(m.key, "degrading", day)
        counts = rng.poisson(m.dense_rates * EVENT_BUCKET_S)
        for proc in (_FLIT, _DATA, _REC):
            n = counts[proc]
            tau = t0 + rng.random(int(n.sum())) * EVENT_BUCKET_S if times else np.empty(0)
            out.append((proc, np.repeat(m.dense, n), tau))
    return out


def _counts(m: _Model, end: np.ndarray, t: float) -> np.ndarray:
    """int64[3, E]: flit, data and recovery events of each lane up to its end time."""
    n_lanes = end.size
    out = np.zeros((3, n_lanes), np.int64)
    ends = {t, min(t, m.onset), min(t, FLAKY_TTF_S)}
    for day in range(int(t // EVENT_BUCKET_S) + 1):
        lo, hi = day * EVENT_BUCKET_S, (day + 1) * EVENT_BUCKET_S
        if not (end >= lo).any():
            break
        partial = any(lo <= x < hi for x in ends)
        full = end >= hi
        for proc, lanes, tau in _day_events(m, day, times=partial):
            keep = full[lanes]
            if partial:
                keep |= (end[lanes] >= lo) & (tau <= end[lanes])
            out[proc] += np.bincount(lanes[keep], minlength=n_lanes)
    return out


def _ber(m: _Model, tau: float, active: np.ndarray, upto: int | None = None) -> np.ndarray:
    """float[E] (or the first `upto` lanes): the BER reading covering tau; NaN if not ACTIVE."""
    n = m.lane_ber.size if upto is None else upto
    z = _rng(m.key, "ber", int(tau // BER_READING_S)).standard_normal(n)
    return np.where(active[:n], m.lane_ber[:n] * np.exp(BER_JITTER * z), np.nan)


def _check_t(t: float) -> float:
    t = float(t)
    if not 0.0 <= t <= MAX_T_S:
        raise ValueError(f"simulated time {t} s is outside 0..{MAX_T_S:g} s")
    return t


# --- the snapshot ----------------------------------------------------------------------------
def _jsonable(a: np.ndarray) -> list:
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), None, a.astype(object)).tolist()
    return a.tolist()


@dataclass(frozen=True)
class Counters:
    """A telemetry snapshot at simulated time t_s: numpy arrays, link [G, P], cable [G, P, C].

    `link` and `cable` map each name of METRICS to an array (None with telemetry off).
    Counters are int64; BER and bandwidth_gbs float (BER NaN where the lane carries nothing).
    `state` (link up/down) is always there: the GPU's host sees it, telemetry or not.
    """

    fabric: Fabric
    scenario_key: str  # for labels and exports; attribution never reads it
    t_s: float
    onset_s: float
    telemetry: bool
    state: np.ndarray  # int8[G, P]: ACTIVE / INACTIVE
    planned: np.ndarray  # bool[P]: planes drained on purpose (switch update, maintenance)
    link: dict[str, np.ndarray] | None = None
    cable: dict[str, np.ndarray] | None = None
    cable_state: np.ndarray | None = None  # int8[G, P, C]: ACTIVE / INACTIVE / IDLE
    stale: np.ndarray | None = None  # bool[P]: its tray's controller (NMX-Telemetry) is silent
    last_seen_s: np.ndarray | None = None  # float[P]: time of the newest reading per plane
    projected_fail_s: np.ndarray | None = None  # float[G, P]: degrading links' failure, else NaN

    def heatmap(self, name: str) -> np.ndarray:
        """float[G, P] of one metric, or of 'state' (1 ACTIVE, 0 INACTIVE), for a heatmap."""
        if name == "state":
            return (self.state == ACTIVE).astype(float)
        if self.link is None:
            raise ValueError(f"'{name}' is not visible: fine-grained link telemetry is off")
        return self.link[name].astype(float)

    def to_json(self, cables: bool = True) -> dict:
        """JSON-ready dict: nested lists [G][P] and [G][P][C]; NaN becomes null.

        cables=False leaves out the per-cable arrays (about two thirds of the ~0.5 MB).
        """
        f = self.fabric
        names = np.array(STATE_NAMES)
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
            "link": None,
            "cable": None,
            "cable_state": None,
            "stale": None,
            "last_seen_s": None,
            "projected_fail_s": None,
        }
        if self.telemetry:
            out["link"] = {k: _jsonable(v) for k, v in self.link.items()}
            if cables:
                out["cable"] = {k: _jsonable(v) for k, v in self.cable.items()}
                out["cable_state"] = names[self.cable_state].tolist()
            out["stale"] = [chip_id(f, int(p)) for p in np.flatnonzero(self.stale)]
            out["last_seen_s"] = self.last_seen_s.tolist()
            gs, ps = np.nonzero(~np.isnan(self.projected_fail_s))
            out["projected_fail_s"] = {
                link_id(f, int(g), int(p)): float(self.projected_fail_s[g, p])
                for g, p in zip(gs, ps, strict=True)
            }
        return out


def counters(
    scenario: Scenario,
    t_s: float,
    *,
    onset_s: float = 0.0,
) -> Counters:
    """Every link's and cable's counters at simulated time t_s (seconds since the clock's zero).

    onset_s: when the scenario's failures and updates strike (0: from the start).
    """
    t = _check_t(t_s)
    m = _model(scenario, _check_t(onset_s))
    f = m.fabric
    g, p, c = m.shape
    faults = t >= m.onset
    lanes_now = _lane_state(m, t, faults)
    link_state = lanes_now.reshape(g, p, c)[:, :, 0].copy()
    link_state[link_state == IDLE] = INACTIVE
    planned = m.planned & faults
    if not m.telemetry:
        return Counters(f, m.key, t, m.onset, False, link_state, planned)

    stale = m.stale_planes(t)
    stale_lane = np.tile(np.repeat(stale, c), g)
    end = m.end_times(t)
    ev = _counts(m, end, t)
    lanes = lanes_now
    if stale.any():
        lanes = np.where(stale_lane, _lane_state(m, m.onset, False), lanes_now)
    active = lanes == ACTIVE
    ber = _ber(m, t, active)
    if stale.any():
        ber = np.where(stale_lane, _ber(m, m.onset, active), ber)
    cable = {
        BANDWIDTH: np.floor(m.gbs * 1e9 * end).astype(np.int64),
        CRC_FLIT: ev[_FLIT],
        CRC_DATA: ev[_DATA],
        REPLAY: ev[_FLIT] + ev[_DATA],
        RECOVERY: ev[_REC],
        BER: ber,
        BANDWIDTH_GBS: np.where(active, m.gbs, 0.0),
    }
    cable = {k: v.reshape(g, p, c) for k, v in cable.items()}
    link = {k: _lanes_sum(v) for k, v in cable.items()}
    link[BER] = link[BER] / c
    visible = m.flaky_link.reshape(g, p) & ~(m.down.reshape(g, p) & faults)
    return Counters(
        fabric=f,
        scenario_key=m.key,
        t_s=t,
        onset_s=m.onset,
        telemetry=True,
        state=link_state,
        planned=planned,
        link=link,
        cable=cable,
        cable_state=lanes.reshape(g, p, c),
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
    t0, t1, onset = _check_t(t0_s), _check_t(t1_s), _check_t(onset_s)
    if not step_s > 0 or t1 < t0:
        raise ValueError("need t0_s <= t1_s and step_s > 0")
    n_pts = math.floor((t1 - t0) / step_s + 1e-9) + 1
    if n_pts > MAX_SERIES_POINTS:
        raise ValueError(f"{n_pts} points; at most {MAX_SERIES_POINTS}: widen the step")
    m = _model(scenario, onset)
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

    def lane_state(tau: float) -> np.ndarray:
        key = (bool(tau >= m.onset), bool(tau >= FLAKY_TTF_S))
        if key not in regimes:
            regimes[key] = _lane_state(m, tau, key[0])[base : base + c]
        return regimes[key]

    link_state = [
        "ACTIVE" if (lane_state(tau) == ACTIVE).all() else "INACTIVE" for tau in ts.tolist()
    ]
    out: dict = {"id": comp.id, "t_s": ts.tolist(), "state": link_state}
    if not m.telemetry:
        out["visible"] = "up/down of the link only: fine-grained link telemetry is off"
        return out

    # Every event of these lanes up to t1, sorted per process and lane.
    found: list[list[list[np.ndarray]]] = [[[] for _ in lanes] for _ in range(3)]
    for day in range(int(t1 // EVENT_BUCKET_S) + 1):
        for proc, ln, tau in _day_events(m, day, times=True):
            for j, lane in enumerate(lanes.tolist()):
                found[proc][j].append(tau[ln == lane])
    taus = [
        [np.sort(np.concatenate(x)) if x else np.empty(0) for x in per_lane] for per_lane in found
    ]
    before = _lane_state(m, m.onset, False)[lanes]
    stale_plane = bool(m.mc_down[plane // f.chips_per_tray])
    upto = int(lanes.max()) + 1
    cols: dict[str, list] = {k: [] for k in (*METRICS, "stale")}
    names = np.array(STATE_NAMES)
    lane_states: list[str] = []
    for tau in ts.tolist():
        stale = stale_plane and tau >= m.onset
        seen = before if stale else lane_state(tau)[lanes - base]
        end = np.minimum(np.minimum(m.freeze[lanes], m.onset if stale else math.inf), tau)
        n = [
            sum(int(np.searchsorted(taus[pr][j], end[j], side="right")) for j in range(lanes.size))
            for pr in range(3)
        ]
        active = seen == ACTIVE
        read_at = min(tau, m.onset) if stale else tau
        ber = _ber(m, read_at, np.ones(upto, bool), upto=upto)[lanes]
        ber = np.where(active, ber, np.nan)
        ber_v = float(_lanes_sum(ber[None, :])[0] / lanes.size)
        cols[BANDWIDTH].append(int(np.floor(m.gbs[lanes] * 1e9 * end).astype(np.int64).sum()))
        cols[CRC_FLIT].append(n[_FLIT])
        cols[CRC_DATA].append(n[_DATA])
        cols[REPLAY].append(n[_FLIT] + n[_DATA])
        cols[RECOVERY].append(n[_REC])
        cols[BER].append(None if math.isnan(ber_v) else ber_v)
        cols[BANDWIDTH_GBS].append(float(_lanes_sum(np.where(active, m.gbs[lanes], 0.0)[None])[0]))
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
    It reads the counters as telemetry sees them: a tray whose controller is silent stops at
    its last report, and a link that went down stops counting.
    """
    t = _check_t(t_s)
    m = _model(scenario, _check_t(onset_s))
    f = m.fabric
    rule = {
        "window_s": HEALTH_WINDOW_S,
        "windows": HEALTH_WINDOWS,
        "threshold": HEALTH_THRESHOLD,
        "source": "FACTS.md §3 (nvidia-resiliency-ext PR #302)",
    }
    out: dict = {"t_s": t, "rule": rule, "flagged": [], "first_flagged_s": {}}
    if not m.telemetry:
        out["available"] = False
        out["reason"] = "fine-grained link telemetry is off: no replay or recovery counters"
        return out
    out["available"] = True
    end = m.end_times(t)
    c = f.cables_per_link
    n_win = int(t // HEALTH_WINDOW_S)  # complete windows at t
    span = n_win + 1
    per_day = int(EVENT_BUCKET_S // HEALTH_WINDOW_S)
    keys = [np.empty(0, np.int64)]
    for day in range(int(t // EVENT_BUCKET_S) + 1):
        day_keys = [np.empty(0, np.int64)]
        for _proc, lanes, tau in _day_events(m, day, times=True):
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
    out["first_flagged_s"] = {
        link_id(f, int(x) // p, int(x) % p): float((w + 1) * HEALTH_WINDOW_S)
        for x, w in zip(first_links, first_w, strict=True)
    }
    return out


# --- attribution -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Attribution:
    """What the counters say is wrong, as component IDs (DESIGN.md "Component IDs").

    components: the smallest explanation (failed + degrading + silent controllers), sorted.
    masked: what the counters cannot show in this snapshot, in words.
    """

    possible: bool
    components: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    degrading: tuple[str, ...] = ()
    silent: tuple[str, ...] = ()  # controllers whose tray's telemetry is stale
    planned: tuple[str, ...] = ()  # chips drained on purpose: not faults
    masked: tuple[str, ...] = ()
    reason: str = ""
    updown: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "possible": self.possible,
            "components": list(self.components),
            "failed": list(self.failed),
            "degrading": list(self.degrading),
            "silent": list(self.silent),
            "planned": list(self.planned),
            "masked": list(self.masked),
            "reason": self.reason,
            "updown": self.updown,
        }


NOT_POSSIBLE = (
    "fine-grained link telemetry is off: only link up/down is visible. Up/down shows which links "
    "are down (and so whether a whole GPU's row or a whole plane is out), but not whether a "
    "cable or a port failed, not a switch tray from its chips, not a silent controller, and not "
    "a degrading link before it fails: no component is attributed."
)


def _ids(comps: list[Component]) -> tuple[str, ...]:
    return tuple(format_id(x) for x in sorted(set(comps), key=Component.sort_key))


def _short(ids: tuple[str, ...] | list[str], n: int = 6) -> str:
    ids = list(ids)
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def attribution(snap: Counters) -> Attribution:
    """Name the smallest set of components that explains every down, stale or degrading link.

    Reads the snapshot only. Rules: a GPU whose every link is down is the GPU (all four of a
    compute tray: the tray); a plane whose every link is down is its chip (all chips of a
    switch tray with its telemetry stale: the tray); stale counters with a working data plane
    are the tray's controller; any other down link is its cable(s) when the link's other cables
    are IDLE, else the link (port); an ACTIVE link with recoveries or a raised BER is degrading,
    named as the link when all its cables are, else the cable(s).
    """
    f = snap.fabric
    c_n, k, gpt = f.cables_per_link, f.chips_per_tray, f.gpus_per_tray
    down_all = snap.state != ACTIVE
    planned_ids = tuple(chip_id(f, int(p)) for p in np.flatnonzero(snap.planned))
    updown = {
        "links_down": int(down_all.sum()),
        "gpus_with_every_link_down": [gpu_id(int(g)) for g in np.flatnonzero(down_all.all(1))],
        "planes_with_every_link_down": [
            chip_id(f, int(p)) for p in np.flatnonzero(down_all.all(0))
        ],
    }
    if not snap.telemetry:
        return Attribution(False, planned=planned_ids, reason=NOT_POSSIBLE, updown=updown)

    masked: list[str] = []
    if planned_ids:
        masked.append(
            f"{_short(planned_ids)}: drained on purpose (switch update); faults on their links "
            "are hidden until they return"
        )
    open_ = ~snap.planned
    if not open_.any():
        return Attribution(
            True,
            planned=planned_ids,
            masked=tuple(masked),
            reason="every plane is drained for maintenance: the links carry nothing to read",
            updown=updown,
        )
    down = down_all & open_[None, :]
    rows = down[:, open_].all(axis=1)
    cols = down.all(axis=0) & open_
    stale_tray = snap.stale.reshape(-1, k).any(axis=1)

    def gpu_side() -> list[Component]:
        trays = rows.reshape(-1, gpt).all(axis=1)
        out = [Component("compute-tray", (int(t) + 1,)) for t in np.flatnonzero(trays)]
        loose = rows & ~np.repeat(trays, gpt)
        return out + [Component("gpu", (int(g),)) for g in np.flatnonzero(loose)]

    def switch_side() -> list[Component]:
        trays = cols.reshape(-1, k).all(axis=1) & stale_tray
        out = [Component("switch-tray", (int(t) + 1,)) for t in np.flatnonzero(trays)]
        loose = cols & ~np.repeat(trays, k)
        return out + [
            Component("switch-chip", (int(q) // k + 1, int(q) % k)) for q in np.flatnonzero(loose)
        ]

    if rows.all():
        sw, gp = switch_side(), gpu_side()
        failed = sw if len(sw) <= len(gp) else gp
        masked.append(
            "every link is down: up/down and stale counters cannot tell the GPUs from the "
            "switch chips; the smaller explanation is named"
        )
        rows = np.ones_like(rows)
        cols = open_.copy()
    else:
        failed = gpu_side() + switch_side()
    named_trays = {x.nums[0] for x in failed if x.kind == "switch-tray"}
    silent = [
        Component("controller", (int(t) + 1,))
        for t in np.flatnonzero(stale_tray)
        if int(t) + 1 not in named_trays
    ]
    if failed:
        them = "it" if len(failed) == 1 else "them"
        masked.append(
            f"the links of {_short(_ids(failed))} are down with {them}: a cable, port or "
            "degrading-link fault on those links cannot be seen"
        )
    for t in np.flatnonzero(stale_tray):
        seen = float(snap.last_seen_s[int(t) * k])
        masked.append(
            f"st{int(t) + 1}: telemetry silent since t = {seen:g} s; its chips' counters are as "
            "last reported, and a down link there cannot be narrowed to a cable"
        )

    rem = down & ~rows[:, None] & ~cols[None, :]
    gi, pi = np.nonzero(rem)
    stale_plane = np.repeat(stale_tray, k)
    inact = snap.cable_state[gi, pi] == INACTIVE
    n_in = inact.sum(axis=1)
    whole = stale_plane[pi] | (n_in == c_n) | (n_in == 0)
    for g, p, w, row in zip(gi.tolist(), pi.tolist(), whole.tolist(), inact, strict=True):
        t, ch = divmod(p, k)
        if w:
            failed.append(Component("link", (g, t + 1, ch)))
        else:
            failed += [Component("cable", (g, t + 1, ch, int(x))) for x in np.flatnonzero(row)]
    was = snap.link[RECOVERY][gi, pi] > 0
    if was.any():
        ids = [link_id(f, int(g), int(p)) for g, p in zip(gi[was], pi[was], strict=True)]
        masked.append(f"{_short(ids)}: recovery events before going down (it was degrading)")

    up = (snap.state == ACTIVE)[:, :, None] & (snap.cable_state == ACTIVE)
    with np.errstate(invalid="ignore"):
        raised = (snap.cable[RECOVERY] > 0) | (snap.cable[BER] > DEGRADING_BER)
    deg = up & raised
    degrading: list[Component] = []
    n_deg = deg.sum(axis=2)
    for g, p in zip(*np.nonzero(n_deg), strict=True):
        t, ch = divmod(int(p), k)
        if n_deg[g, p] == c_n:
            degrading.append(Component("link", (int(g), t + 1, ch)))
        else:
            degrading += [
                Component("cable", (int(g), t + 1, ch, int(x))) for x in np.flatnonzero(deg[g, p])
            ]
    return Attribution(
        True,
        components=_ids(failed + silent + degrading),
        failed=_ids(failed),
        degrading=_ids(degrading),
        silent=_ids(silent),
        planned=planned_ids,
        masked=tuple(masked),
        reason="from the counters alone",
        updown=updown,
    )


def attribute(snapshot: Counters) -> list[str]:
    """The component IDs that explain what is wrong; [] when nothing is, or telemetry is off."""
    return list(attribution(snapshot).components)
