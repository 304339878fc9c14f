"""Telemetry's fields and constants: the counter names (DCGM and NVML), their units, the
link states, the error and BER rates a healthy and a degrading lane carry, and the bounds of
the simulated clock. Each value cites FACTS.md §3 or is marked [A]."""

from __future__ import annotations

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

FLIT, DATA, REC = 0, 1, 2
