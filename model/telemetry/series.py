"""One link's (or cable's) telemetry over the simulated clock, for the page's chart: each
value what model.telemetry.snapshot.counters reports for it at that time. A link's series is
the GPU side's (never stale); a cable's is the switch port's lane view, which stops while
its tray's controller is silent (model/telemetry/snapshot.py has the clock and the noise)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.errors import ScenarioError
from model.ids import Component, parse_id, plane_of
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
    FLAKY_TTF_S,
    FLIT,
    MAX_SERIES_POINTS,
    METRICS,
    REC,
    RECOVERY,
    REPLAY,
    STATE_NAMES,
)
from model.telemetry.lanes import (
    LaneModel,
    ber_at,
    check_t,
    day_events,
    lane_model,
    lane_state,
    lanes_sum,
)


@dataclass(frozen=True)
class _Target:
    """What a series reads: the link or cable, its plane, the flat index of its link's first
    lane, and the lanes it sums (the link's every lane, or the cable's one)."""

    comp: Component
    plane: int
    base: int
    lanes: np.ndarray

    @property
    def is_link(self) -> bool:
        """A link's series (the GPU side's), not a cable's (the switch port's lane view)."""
        return self.comp.kind == "link"


class _States:
    """The lane states of the target's link at any time, each regime computed once: they
    change only at onset and when a flaky link fails (lane_state is costly, and a series
    asks at every point)."""

    def __init__(self, m: LaneModel, tg: _Target) -> None:
        self.m, self.base, self.c = m, tg.base, m.shape[2]
        self.regimes: dict[tuple[bool, bool], np.ndarray] = {}

    def at(self, tau: float) -> np.ndarray:
        """int8[C]: the link's lanes' states at tau."""
        key = (bool(tau >= self.m.onset), bool(tau >= FLAKY_TTF_S))
        if key not in self.regimes:
            self.regimes[key] = lane_state(self.m, tau, key[0])[self.base : self.base + self.c]
        return self.regimes[key]


def _times(t0: float, t1: float, step_s: float) -> np.ndarray:
    """The series' times t0, t0 + step, ... up to t1; ValueError for an empty window, a step
    that is not positive, or more than MAX_SERIES_POINTS points."""
    if not step_s > 0 or t1 < t0:
        raise ValueError("need t0_s <= t1_s and step_s > 0")
    n_pts = math.floor((t1 - t0) / step_s + 1e-9) + 1
    if n_pts > MAX_SERIES_POINTS:
        raise ValueError(f"{n_pts} points; at most {MAX_SERIES_POINTS}: widen the step")
    return t0 + step_s * np.arange(n_pts)


def _target(m: LaneModel, link: str) -> _Target:
    """The link or cable an ID names, with its lanes; ScenarioError for any other ID."""
    f = m.fabric
    _g, p, c = m.shape
    comp = parse_id(link, f)
    if comp.kind not in ("link", "cable"):
        raise ScenarioError(f"'{link}' is a {comp.kind}; a series takes a link or a cable", link)
    plane = plane_of(f, comp.nums[1], comp.nums[2])
    base = (comp.nums[0] * p + plane) * c
    lanes = np.arange(base, base + c) if comp.kind == "link" else np.array([base + comp.nums[3]])
    return _Target(comp, plane, base, lanes)


def _event_times(m: LaneModel, lanes: np.ndarray, t1: float) -> list[list[np.ndarray]]:
    """Every event of these lanes up to t1's clock bucket: per process, per lane, sorted."""
    found: list[list[list[np.ndarray]]] = [[[] for _ in lanes] for _ in range(3)]
    for day in range(int(t1 // EVENT_BUCKET_S) + 1):
        for proc, ln, tau in day_events(m, day, times=True):
            for j, lane in enumerate(lanes.tolist()):
                found[proc][j].append(tau[ln == lane])
    return [
        [np.sort(np.concatenate(x)) if x else np.empty(0) for x in per_lane] for per_lane in found
    ]


def _metrics(
    m: LaneModel, tg: _Target, ts: np.ndarray, states: _States, taus: list[list[np.ndarray]]
) -> tuple[dict[str, list], list[str]]:
    """Each metric's column (and whether the reading is stale) at each time, and the lanes'
    state as read there: what counters() reports for the target at each t.

    A link's series is the GPU side's (never stale); a cable's is the switch port's lane
    view, which stops while its tray's controller is silent.
    """
    lanes = tg.lanes
    before = lane_state(m, m.onset, False)[lanes]
    stale_plane = bool(m.mc_down[tg.plane // m.fabric.chips_per_tray]) and not tg.is_link
    upto = int(lanes.max()) + 1
    cols: dict[str, list] = {k: [] for k in (*METRICS, "stale")}
    names = np.array(STATE_NAMES)
    lane_states: list[str] = []
    for tau in ts.tolist():
        stale = stale_plane and tau >= m.onset
        seen = before if stale else states.at(tau)[lanes - tg.base]
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
    return cols, lane_states


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
    The counters are there whatever the features (as in the snapshot); `telemetry_feature`
    says whether the fabric acts on them (the forecast reads it).
    """
    t0, t1, onset = check_t(t0_s), check_t(t1_s), check_t(onset_s)
    ts = _times(t0, t1, step_s)
    m = lane_model(scenario, onset)
    tg = _target(m, link)
    states = _States(m, tg)
    link_state = [
        "ACTIVE" if (states.at(tau) == ACTIVE).all() else "INACTIVE" for tau in ts.tolist()
    ]
    out: dict = {"id": tg.comp.id, "t_s": ts.tolist(), "state": link_state}
    out["telemetry_feature"] = m.telemetry
    cols, lane_states = _metrics(m, tg, ts, states, _event_times(m, tg.lanes, t1))
    out.update(cols)
    if not tg.is_link:
        out["state"] = lane_states  # the cable's own state, as its tray last reported it
    return out
