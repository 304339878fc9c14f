"""GET /metrics: the scenario's link and switch telemetry in the Prometheus text format.

Every family is a row of a table (dashboard/exporter/families.py: name, type, HELP,
whose label sets, where its values come from in a Reading); the label sets are built once
per fabric shape (dashboard/exporter/labels.py); this module reads a scenario and writes
the families in table order through dashboard/exporter/promtext.py.

GET /metrics?<scenario query>[&t_s=<simulated seconds>][&lanes=1] answers in the text
exposition format 0.0.4 (Content-Type: text/plain; version=0.0.4; charset=utf-8), read at
simulated time t_s (default: model.evaluate.TELEMETRY_READ_S, as the JSON API). The per-lane
families (the switch tray's cable view: what tells a cable from a port) are a drill-down,
exported with lanes=1 only: an operator's scrape every interval does without them, as
dcgm-exporter's does. On a multi-rack domain it answers the domain's tier and every GPU, and
&rack=rNN one rack's whole scrape (dashboard/exporter/domain.py). A bad query is HTTP 400
with JSON {"error", "token"}, as in the JSON API.

The names, and whose they are (docs/TELEMETRY.md has every one with its source):

- GPU side, per link: DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_PER_LINK_TOTAL
  and DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK (DCGM's per-link fields, keyed by a DCGM_FE_LINK
  entity, which scale to NVLink 6's 36 links), DCGM_FI_DEV_NVLINK_GET_STATE (NVML: 1 ACTIVE,
  0 INACTIVE) and NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER. Labels as dcgm-exporter's link
  metrics: nvlink (the link's index on its GPU, which here is its plane), gpu (the rack-wide
  index), and the project's link ("gpu07-st3.sw2") and chip ("st3.sw2").
- GPU side, per GPU: the sums over its links under dcgm-exporter's names,
  DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL and
  DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, and the NVML fabric health, DCGM_FI_DEV_FABRIC_HEALTH_MASK
  and DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY. Labels gpu, Hostname (the compute tray, "ct02"),
  device ("nvidia3", the GPU's index on its tray), compute_tray, fabric.
- Switch side, per NVSwitch port: DCGM_FI_DEV_NVSWITCH_LINK_{FLIT,CRC,REPLAY,RECOVERY}_ERROR_TOTAL,
  DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX, DCGM_FI_DEV_NVSWITCH_LINK_STATUS (2 ACTIVE, 0 OFF) and
  (lanes=1) per lane DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_L<n>_TOTAL. Labels as dcgm-exporter's: nvswitch
  ("nvswitch2", the chip's index on its tray), nvlink (the port, which faces GPU <nvlink>),
  hostname (the switch tray, "st3"; dcgm-exporter spells it so on link and switch metrics),
  and link, chip. The rack's fabric is a label of fabric_twin_info, not of every per-link
  series (dashboard/exporter/labels.py says why).
- nmx_* are this project's names for what NMX-Telemetry and NMX-Manager report and publish no
  metric names for (FACTS.md §2; research: "NMX-T metrics list NOT public"): chip, tray and
  controller up, staleness, (lanes=1) each lane's state and BER, and
  nmx_partition_health{state, mode} (1 for the partition's state, 0 for the others).
- fabric_twin_* describe the twin: fabric_twin_info{fabric, scenario},
  fabric_twin_simulated_time_seconds, fabric_twin_link_counters_available (always 1),
  fabric_twin_link_telemetry_feature, the model's traffic
  (fabric_twin_nvlink_throughput_gigabytes_per_second) and the public windowed health rule's
  flagged windows per link (fabric_twin_health_rule_flagged_windows).

Every fabric exports its counters whatever its features (DCGM reads them on a GB200 rack
too): the 'telemetry' feature is fabric_twin_link_telemetry_feature, what the fabric does with
them (attribution, the windowed rule, the forecast, drain ahead), and only the rule's own
count (fabric_twin_health_rule_flagged_windows) needs it. A tray whose controller is
down keeps its switch-side counters at their last reported values: they are exported as they
are, and nmx_telemetry_stale marks those chips; the GPU side is unaffected. BER is NaN on a
link that carries nothing. Every value comes from read(): model.telemetry.counters(scenario,
t_s), its health rule and assess(scenario); the scenario's faults are in force from t = 0.
"""

from __future__ import annotations

import numpy as np

from dashboard.exporter.families import PARTITION_STATES, Family, Series, families
from dashboard.exporter.labels import labels_for
from dashboard.exporter.promtext import family_text, label_set, prefixes
from dashboard.exporter.reading import Reading
from dashboard.infra.request import Number, Text, declare
from model import Scenario, ScenarioError, parse_query, telemetry
from model.assess import assess
from model.evaluate import TELEMETRY_READ_S
from model.telemetry import names

T_PARAM = "t_s"
LANES_PARAM = "lanes"  # 1: the per-lane families too (the switch tray's cable view)
RACK_PARAM = "rack"  # a domain's rack, read alone (dashboard/exporter/domain.py)
NAMES_PARAM = "names"  # twin | dcgm-exporter | dcgm-4.6: which DCGM spelling (names.py)
PARAMS = declare(
    **{
        T_PARAM: Number(0.0, telemetry.MAX_T_S, default=TELEMETRY_READ_S),
        LANES_PARAM: Number(0, 1, default=0, whole=True),
        RACK_PARAM: Text(),
        NAMES_PARAM: Text(default=names.TWIN),
    }
)


def spelling_of(value: object) -> str:
    """The names= value, checked: one of model.telemetry.names.SPELLINGS."""
    if value not in names.SPELLINGS:
        msg = f"{NAMES_PARAM} '{value}' must be one of {', '.join(names.SPELLINGS)}"
        raise ScenarioError(msg, NAMES_PARAM)
    return str(value)


def read(s: Scenario, t_s: float) -> Reading:
    """Everything a scrape of scenario s at t_s reports (t_s already checked in range): the
    counters, and the fabric state of the scenario's one assessment (model/assess.py), which
    the counters are computed from too; nothing is rebuilt."""
    a = assess(s)
    return Reading(telemetry.counters(s, t_s), a.state, a.partition, telemetry.health_rule(s, t_s))


def series_labels(r: Reading, series: Series) -> tuple[str, ...]:
    """The escaped label set ('{...}', or '' unlabelled) of each series of a family."""
    key = r.domain_key or r.fabric.key
    if series == "scenario":
        if r.domain_key:  # one rack of a domain: the domain's scenario, and which rack
            rack = r.prefix.rstrip(".")
            return (label_set({"fabric": key, "rack": rack, "scenario": r.domain_scenario or ""}),)
        return (label_set({"fabric": key, "scenario": r.snap.scenario_key}),)
    if series == "one":
        return ("",)
    if series == "partition":
        mode = str(r.partition.mode)
        return tuple(
            label_set({"state": str(x), "mode": mode, "fabric": key}) for x in PARTITION_STATES
        )
    return getattr(labels_for(r.fabric, r.prefix, r.domain_key), series)


def exported(r: Reading, lanes: bool = False) -> tuple[Family, ...]:
    """The families a scrape of this reading has, in order (the counters whatever the
    features, the health rule's count with the telemetry feature on; the per-lane families
    only when asked for)."""
    fams = families(r.fabric, lanes)
    return tuple(fam for fam in fams if r.snap.telemetry or not fam.needs_telemetry)


def reading_text(r: Reading, lanes: bool = False, spelling: str = names.TWIN) -> str:
    """The exposition text of a Reading: every exported family, in table order, its DCGM
    names in the spelling asked for (model/telemetry/names.py)."""
    parts = []
    for fam in exported(r, lanes):
        name = names.spelled(fam.name, spelling)
        labs = series_labels(r, fam.series)
        pre = prefixes(name, labs) if len(labs) > 1 else (f"{name}{labs[0]} ",)
        parts.append(family_text(name, fam.kind, fam.help, pre, np.asarray(fam.values(r))))
    return "".join(parts)


def render(scenario_query: str = "", t_s: float = TELEMETRY_READ_S, lanes: bool = False) -> str:
    """The exposition text of the scenario (a query string) at simulated time t_s (lanes:
    with the per-lane families).

    Raises ScenarioError (with the token) on a bad query or a t_s outside 0..MAX_T_S.
    """
    if not 0.0 <= t_s <= telemetry.MAX_T_S:
        raise ScenarioError(
            f"{T_PARAM} '{t_s:g}' must be a number from 0 to {telemetry.MAX_T_S:g}", T_PARAM
        )
    return render_scenario(parse_query(scenario_query, strict=True).scenario, t_s, lanes)


def render_scenario(
    s: Scenario, t_s: float, lanes: bool = False, spelling: str = names.TWIN
) -> str:
    """The exposition text of a parsed Scenario at simulated time t_s (in 0..MAX_T_S)."""
    return reading_text(read(s, t_s), lanes, spelling)
