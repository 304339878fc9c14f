"""A failure forecast for a link from its recovery and replay trend: drain now, watch or fine,
with the expected time to failure, the rule that decided and its source.

The rule reads what an operator's monitoring reads: the link's GPU-side counters over the
last day (hourly), never the scenario. Sources (FACTS.md §3):
- the public windowed health rule (nvidia-resiliency-ext PR #302): a link with more than 15
  of its last 30 one-minute windows showing replays or recoveries fails the check;
- the public GB200 case: the link failed once its recoveries ran at ~3 per 21 minutes.
The time to failure is when the recovery rate reaches that pre-failure rate, the rate and its
rise read from a quadratic fitted to the recovery counter over the last two days [A: a
linearly rising rate; the case gives one rate, not its curve].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.scenario import Scenario
from model.telemetry.fields import FLAKY_RECOVERY_PER_S, RECOVERY, REPLAY
from model.telemetry.rule import health_rule
from model.telemetry.series import link_series

LOOKBACK_S = 2 * 86400.0  # [A] two days of history, read hourly
BIN_S = 3600.0
FAIL_RATE_PER_S = FLAKY_RECOVERY_PER_S  # [M] FACTS.md §3: ~3 per 21 minutes before the failure
DRAIN_HORIZON_S = 86400.0  # [A] drain when the failure is expected within a day
RULE = (
    "drain now: the windowed health rule fails the link (more than 15 of its last 30 "
    "one-minute windows with replays or recoveries), or its recovery rate, fitted over the "
    "last two days, reaches the public GB200 case's pre-failure rate (~3 per 21 minutes) within "
    "24 h; watch: recoveries, or replays above one a window, without either; fine: neither"
)
SOURCE = (
    "FACTS.md §3: the public GB200 case (505 recoveries, ~3 per 21 minutes, then a link-down "
    "that faulted the rack's job) and the windowed rule of nvidia-resiliency-ext PR #302"
)


@dataclass(frozen=True)
class Forecast:
    """One link's forecast at t_s."""

    link: str
    t_s: float
    action: str  # "drain now" | "watch" | "fine"
    why: str
    time_to_failure_s: float | None  # None: no rising trend to extrapolate
    recoveries: int  # since the counters were cleared
    recovery_rate_per_21_min: float  # fitted, now
    replays_last_hour: int
    flagged_windows: int  # of the last 30

    def to_json(self) -> dict:
        ttf = self.time_to_failure_s
        return {
            "link": self.link,
            "t_s": self.t_s,
            "action": self.action,
            "why": self.why,
            "time_to_failure_s": ttf,
            "time_to_failure_h": None if ttf is None else ttf / 3600.0,
            "recoveries": self.recoveries,
            "recovery_rate_per_21_min": self.recovery_rate_per_21_min,
            "replays_last_hour": self.replays_last_hour,
            "flagged_windows": self.flagged_windows,
            "rule": RULE,
            "source": SOURCE,
        }


def forecast(scenario: Scenario, link: str, t_s: float, *, onset_s: float = 0.0) -> Forecast:
    """The forecast for one link (an ID like 'gpu07-st3.sw2') read at simulated time t_s."""
    t0 = max(0.0, t_s - LOOKBACK_S)
    ser = link_series(scenario, link, t0, t_s, BIN_S, onset_s=onset_s)
    rec = np.asarray(ser[RECOVERY], float)
    rep = np.asarray(ser[REPLAY], float)
    if not ser["telemetry_feature"]:  # the counters are there; nothing forecasts from them
        return Forecast(
            ser["id"],
            t_s,
            "fine" if ser["state"][-1] == "ACTIVE" else "drain now",
            "the telemetry feature is off: the counters are exported, but the fabric forecasts "
            "nothing from them; a degrading link is found when it fails",
            None,
            int(rec[-1]),
            0.0,
            int(rep[-1] - rep[-2]) if rep.size > 1 else 0,
            0,
        )
    windows = health_rule(scenario, t_s, onset_s=onset_s)["recent_windows"].get(ser["id"], 0)
    if ser["state"][-1] != "ACTIVE":
        return Forecast(
            ser["id"],
            t_s,
            "drain now",
            "the link is down already",
            0.0,
            int(rec[-1]),
            0.0,
            0,
            int(windows),
        )
    rate, slope = _trend(np.asarray(ser["t_s"]), rec)
    ttf = None
    if rate >= FAIL_RATE_PER_S:
        ttf = 0.0
    elif slope > 0:
        ttf = (FAIL_RATE_PER_S - rate) / slope
    last_hour = int(rep[-1] - rep[-2]) if rep.size > 1 else 0
    tripped = windows > 15
    soon = ttf is not None and ttf <= DRAIN_HORIZON_S
    if tripped or soon:
        action = "drain now"
        why = "; ".join(
            x
            for x in (
                f"the windowed rule fails it ({windows} of 30 windows)" if tripped else "",
                f"failure expected in {ttf / 3600:.1f} h" if soon else "",
            )
            if x
        )
    elif rec[-1] > rec[0] or last_hour > 60:
        action, why = "watch", "recoveries or replays are rising, below the drain rules"
    else:
        action, why = "fine", "no recoveries and replays at the healthy background"
    return Forecast(
        ser["id"], t_s, action, why, ttf, int(rec[-1]), rate * 21 * 60, last_hour, int(windows)
    )


def _trend(ts: np.ndarray, cum: np.ndarray) -> tuple[float, float]:
    """The recovery rate now (per s) and its rise (per s^2), from a quadratic least-squares
    fit of the cumulative counter (smoother than binned rates); 0, 0 without recoveries."""
    if ts.size < 4 or cum[-1] <= cum[0]:
        return 0.0, 0.0
    x = (ts - ts[-1]) / 3600.0  # hours before now, for a well-conditioned fit
    c2, c1, _c0 = np.polyfit(x, cum, 2)
    rate = max(0.0, float(c1)) / 3600.0  # the derivative at now (x = 0)
    rise = 2.0 * float(c2) / 3600.0**2
    return rate, rise if math.isfinite(rise) else 0.0


def from_rates(
    link: str, recovery_now: float, recovery_before: float, window_s: float, replay_now: float
) -> dict:
    """The same drain rule on a live rack's measured trend: its recovery rate (per s, over the
    last window) and the window's before it (Prometheus's rate(), now and `offset` a window),
    and its replay rate. The rate's rise per s is their difference over the window; the time
    to failure is when it reaches the pre-failure rate (FAIL_RATE_PER_S), as forecast() reads
    the twin's own series. The windowed rule needs one-minute windows a live reading does
    not keep: it is not applied here (the shipped alert rules apply it in Prometheus)."""
    slope = (recovery_now - recovery_before) / window_s if window_s > 0 else 0.0
    ttf = None
    if recovery_now >= FAIL_RATE_PER_S:
        ttf = 0.0
    elif slope > 0:
        ttf = (FAIL_RATE_PER_S - recovery_now) / slope
    if ttf is not None and ttf <= DRAIN_HORIZON_S:
        action, why = "drain now", f"failure expected in {ttf / 3600:.1f} h at the rising rate"
    elif recovery_now > 0 or replay_now * 60 > 1:
        action, why = "watch", "recoveries or replays are rising, below the drain rule"
    else:
        action, why = "fine", "no recoveries and replays at the healthy background"
    return {
        "link": link,
        "action": action,
        "why": why,
        "time_to_failure_h": None if ttf is None else ttf / 3600.0,
        "recovery_rate_per_21_min": recovery_now * 21 * 60,
        "recovery_rate_before_per_21_min": recovery_before * 21 * 60,
        "replays_per_min": replay_now * 60,
        "window_s": window_s,
        "rule": RULE,
        "source": SOURCE,
    }
