"""Telemetry: DCGM-named counters per link (GPU side) and per NVSwitch port and lane (switch
side) over a simulated clock, each GPU's fabric health, attribution, one link's series.

The package's public names are exported here, so `from model import telemetry` reads as one
module: `telemetry.counters(s, t)`, `telemetry.attribution(snap)`, `telemetry.link_series(...)`.
"""

from model.telemetry.diagnosis import Attribution, attribute, attribution
from model.telemetry.fields import (
    ACTIVE,
    BANDWIDTH,
    BANDWIDTH_GBS,
    BER,
    COUNTERS,
    CRC_DATA,
    CRC_FLIT,
    FLAKY_TTF_S,
    GPU_TOTALS,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    IDLE,
    INACTIVE,
    LANE_BER,
    LANE_STATE,
    LINK_STATE,
    MAX_T_S,
    METRICS,
    PORT_COUNTERS,
    PORT_STATUS,
    RECOVERY,
    REPLAY,
    STATE_NAMES,
    UNITS,
    lane_crc_name,
)
from model.telemetry.forecast import Forecast, forecast
from model.telemetry.health import FabricHealth
from model.telemetry.rule import health_rule
from model.telemetry.series import link_series
from model.telemetry.snapshot import Counters, attribution_reads, counters

__all__ = [
    "ACTIVE",
    "BANDWIDTH",
    "BANDWIDTH_GBS",
    "BER",
    "COUNTERS",
    "CRC_DATA",
    "CRC_FLIT",
    "FLAKY_TTF_S",
    "GPU_TOTALS",
    "HEALTH_MASK",
    "HEALTH_SUMMARY",
    "IDLE",
    "INACTIVE",
    "LANE_BER",
    "LANE_STATE",
    "LINK_STATE",
    "MAX_T_S",
    "METRICS",
    "PORT_COUNTERS",
    "PORT_STATUS",
    "RECOVERY",
    "REPLAY",
    "STATE_NAMES",
    "UNITS",
    "Attribution",
    "Counters",
    "FabricHealth",
    "Forecast",
    "attribute",
    "attribution",
    "attribution_reads",
    "counters",
    "forecast",
    "health_rule",
    "lane_crc_name",
    "link_series",
]
