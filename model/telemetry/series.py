"""One link's (or cable's) telemetry over the simulated clock, for the page's chart: each
value what model.telemetry.snapshot.counters reports for it at that time. A link's series is
the GPU side's (never stale); a cable's is the switch port's lane view, which stops while
its tray's controller is silent (model/telemetry/snapshot.py has the clock and the noise)."""

from __future__ import annotations

import math

import numpy as np

from model.errors import ScenarioError
from model.ids import parse_id, plane_of
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
    ber_at,
    check_t,
    day_events,
    lane_model,
    lane_state,
    lanes_sum,
)


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
