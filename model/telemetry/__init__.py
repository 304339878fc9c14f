"""Telemetry: DCGM-named counters per link over a simulated clock, attribution, one link's series.

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
    IDLE,
    INACTIVE,
    MAX_T_S,
    METRICS,
    RECOVERY,
    REPLAY,
    STATE_NAMES,
    UNITS,
)
from model.telemetry.snapshot import Counters, counters, health_rule, link_series

__all__ = [
    "ACTIVE",
    "BANDWIDTH",
    "BANDWIDTH_GBS",
    "BER",
    "COUNTERS",
    "CRC_DATA",
    "CRC_FLIT",
    "FLAKY_TTF_S",
    "IDLE",
    "INACTIVE",
    "MAX_T_S",
    "METRICS",
    "RECOVERY",
    "REPLAY",
    "STATE_NAMES",
    "UNITS",
    "Attribution",
    "Counters",
    "attribute",
    "attribution",
    "counters",
    "health_rule",
    "link_series",
]
