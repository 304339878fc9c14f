"""Telemetry's fields and constants: the counter names (DCGM and NVML), their units, the
link states, the error and BER rates a healthy and a degrading lane carry, and the bounds of
the simulated clock. Each value cites FACTS.md §3 or is marked [A]."""

from __future__ import annotations

# --- counter names: one name per counter, DCGM's own (docs/TELEMETRY.md has the sources) ----
# GPU side, one value per link (NVIDIA/DCGM dcgmlib/dcgm_fields.h: field ids 1525-1529, keyed by
# a DCGM_FE_LINK entity, "so these fields scale to any number of links (e.g. 36 on Rubin)"; the
# legacy per-link fields ..._L0_TOTAL .. _L17_TOTAL stop at 18 links, NVLink 5's count). The GPU
# driver (NVML) gives them: they do not pass through any switch tray's controller.
CRC_FLIT = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL"
CRC_DATA = "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_PER_LINK_TOTAL"
REPLAY = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL"
RECOVERY = "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"
BANDWIDTH = "DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK"
# NVML's per-link effective BER (NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER, NVLink 5+, scoped to a
# link); DCGM's own DCGM_FI_DEV_NVLINK_EFFECTIVE_BER_RATIO is the GPU's aggregate.
BER = "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER"
# The model's traffic on the link now (a project name: DCGM exports a byte counter, not a rate).
BANDWIDTH_GBS = "fabric_twin_nvlink_throughput_gigabytes_per_second"
# The link state (DCGM_FI_DEV_NVLINK_GET_STATE, field 1508, per DCGM_FE_LINK entity; NVML's
# link states: 0 INACTIVE, 1 ACTIVE).
LINK_STATE = "DCGM_FI_DEV_NVLINK_GET_STATE"
COUNTERS = (BANDWIDTH, CRC_FLIT, CRC_DATA, REPLAY, RECOVERY)  # cumulative, monotone
GAUGES = (BER, BANDWIDTH_GBS)  # a reading at t
METRICS = COUNTERS + GAUGES

# GPU side, one value per GPU: the sum over the GPU's links, under the names dcgm-exporter
# exports (etc/default-counters.csv; DCGM's deprecated aliases of fields 409, 419, 429, 439;
# DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL is field 449, "total for all lanes").
GPU_TOTALS = {
    CRC_FLIT: "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
    CRC_DATA: "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
    REPLAY: "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
    RECOVERY: "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    BANDWIDTH: "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
}

# Switch side, one value per NVSwitch port (DCGM's NVSwitch link fields 784-787, 780; the
# switch tray's NVOS reads them and NMX-Telemetry streams them, so they stop when the tray's
# management controller is silent). A port sees the same link-level events as the GPU's end
# of the link [A]: each end counts what it receives, and no public figure splits them.
PORT_FLIT = "DCGM_FI_DEV_NVSWITCH_LINK_FLIT_ERROR_TOTAL"
PORT_CRC = "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_TOTAL"
PORT_REPLAY = "DCGM_FI_DEV_NVSWITCH_LINK_REPLAY_ERROR_TOTAL"
PORT_RECOVERY = "DCGM_FI_DEV_NVSWITCH_LINK_RECOVERY_ERROR_TOTAL"
PORT_TX = "DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX"
PORT_STATUS = "DCGM_FI_DEV_NVSWITCH_LINK_STATUS"  # OFF 0, SAFE 1, ACTIVE 2, ERROR 3
PORT_STATUS_ACTIVE, PORT_STATUS_OFF = 2, 0
PORT_COUNTERS = (PORT_FLIT, PORT_CRC, PORT_REPLAY, PORT_RECOVERY, PORT_TX)
# Per lane (cable) of a port: DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_L0_TOTAL .. _L7_TOTAL.


def lane_crc_name(lane: int) -> str:
    """DCGM's per-lane CRC field of an NVSwitch port (fields 809-812, 817-820)."""
    return f"DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_L{lane}_TOTAL"


# The per-lane BER the switch tray's PHY diagnostics report (NVOS link diagnostics,
# research/nvl72_facts.md §4c); DCGM has no field for it, so this is the project's name.
LANE_BER = "nmx_nvlink_lane_ber"
LANE_STATE = "nmx_nvlink_lane_state"  # per lane: 1 ACTIVE, 0 INACTIVE, 2 IDLE

# GPU fabric health (NVML nvmlGpuFabricInfo_v3_t; DCGM_FI_DEV_FABRIC_HEALTH_MASK, field 174;
# DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY, field 175). Each mask field is 2 bits: 0 NOT_SUPPORTED,
# 1 TRUE, 2 FALSE, at shifts 0 (DEGRADED_BW), 2 (ROUTE_RECOVERY), 4 (ROUTE_UNHEALTHY) and
# 6 (ACCESS_TIMEOUT_RECOVERY); a healthy GPU's mask is 0xAA.
HEALTH_MASK = "DCGM_FI_DEV_FABRIC_HEALTH_MASK"
HEALTH_SUMMARY = "DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY"
MASK_SHIFTS = {
    "DEGRADED_BW": 0,
    "ROUTE_RECOVERY": 2,
    "ROUTE_UNHEALTHY": 4,
    "ACCESS_TIMEOUT_RECOVERY": 6,
}
MASK_TRUE, MASK_FALSE = 1, 2
SUMMARY_HEALTHY, SUMMARY_UNHEALTHY, SUMMARY_LIMITED = 1, 2, 3
SUMMARY_NAMES = {1: "Healthy", 2: "Unhealthy", 3: "Limited Capacity"}
# nvidia-smi -q's fabric state (NVML_GPU_FABRIC_STATE_*): 3 COMPLETED once the fabric manager
# has registered the GPU; 1 NOT_STARTED for a GPU that is not there to register.
FABRIC_STATE_COMPLETED, FABRIC_STATE_NOT_STARTED = 3, 1

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
# [M] FACTS.md §3, the public GB200 case: a degrading link showed ~3 recovery events per 21
# minutes in its last days and 505 over its life, then failed. A healthy link has none at all:
# every other link's recovery counter was zero in the operators' sweep (research/nvl72_facts.md
# §5), so only degrading lanes draw recovery events. A constant 3 per 21 minutes over the five
# days would make ~1,029, twice the life's 505, so the rate rises: r(t) = r_end (t / TTF)^k
# from t = 0 (first degraded) to the failure at TTF. The two figures fix both parameters:
# r_end = 3 per 21 minutes, and k from the life's total, r_end TTF / (k + 1) = 505 [D].
FLAKY_RECOVERY_PER_S = 3.0 / (21.0 * 60.0)  # the rate at the end of the link's life
GB200_CASE_RECOVERIES = 505  # [M] the public case's lifetime count
# [A] Time from the start of degradation (t = 0) to the link-down: FACTS.md §3, the public case
# failed five days after it was seen degrading. The same for every flaky link: a projection.
FLAKY_TTF_S = 5 * 86400.0
FLAKY_RAMP_K = FLAKY_RECOVERY_PER_S * FLAKY_TTF_S / GB200_CASE_RECOVERIES - 1.0  # [D] ~1.04


def flaky_recoveries_by(t_s: float) -> float:
    """Expected recoveries of a degrading link from t = 0 to t_s (the ramp's integral)."""
    x = min(max(t_s, 0.0), FLAKY_TTF_S) / FLAKY_TTF_S
    return FLAKY_RECOVERY_PER_S * FLAKY_TTF_S / (FLAKY_RAMP_K + 1.0) * x ** (FLAKY_RAMP_K + 1.0)


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
