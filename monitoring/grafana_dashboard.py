"""The Grafana dashboard for an NVLink rack, built with Grafana's own grafana-foundation-sdk.

`python -m monitoring.grafana_dashboard` writes monitoring/grafana/nvlink-fabric.json (the
file that ships); tests/monitoring/test_prometheus.py checks the file is what this builds and
runs every panel's query against a real Prometheus scraping the twin, and each must return
data. The queries read the names of docs/TELEMETRY.md: what dcgm-exporter, NVML and the twin's
/metrics export. The datasource is a dashboard variable, so the file imports into any Grafana.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from grafana_foundation_sdk.builders import dashboard, prometheus, stat, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DataSourceRef

OUT = Path(__file__).resolve().parent / "grafana" / "nvlink-fabric.json"
DS = DataSourceRef(type_val="prometheus", uid="${datasource}")


@dataclass(frozen=True)
class PanelSpec:
    """One panel: its title, kind (stat or timeseries), PromQL, legend, unit, description."""

    title: str
    kind: str
    expr: str
    legend: str
    unit: str
    description: str
    live: bool = False  # a live-mode series: data only from a twin with live mode on


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec(
        "NVLinks down",
        "stat",
        "sum(1 - DCGM_FI_DEV_NVLINK_GET_STATE)",
        "links down",
        "none",
        "GPU links whose NVML state is INACTIVE (DCGM_FI_DEV_NVLINK_GET_STATE 0), drained or not.",
    ),
    PanelSpec(
        "GPUs with degraded fabric health",
        "stat",
        "count(DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY > 1) or vector(0)",
        "GPUs",
        "none",
        "NVML fabric health summary Unhealthy (2) or Limited Capacity (3).",
    ),
    PanelSpec(
        "Partition health",
        "stat",
        "nmx_partition_health == 1",
        "{{state}} ({{mode}})",
        "none",
        "NMX-Manager partition state: HEALTHY, DEGRADED, BANDWIDTH or UNHEALTHY.",
    ),
    PanelSpec(
        "Switch trays with silent telemetry",
        "stat",
        "count(max by (tray) (nmx_telemetry_stale) == 1) or vector(0)",
        "trays",
        "none",
        "Trays whose controller (NMX-Telemetry) is silent: their switch-side counters are "
        "stale; the GPUs' own counters are not.",
    ),
    PanelSpec(
        "Health rule: flagged windows of the worst links",
        "timeseries",
        "topk(5, fabric_twin_health_rule_flagged_windows)",
        "{{link}}",
        "none",
        "Of each link's last 30 one-minute windows, those with replays or recoveries; the "
        "public rule fails the link above 15.",
    ),
    PanelSpec(
        "Link recoveries, worst links (GPU side)",
        "timeseries",
        "topk(5, DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL)",
        "{{link}}",
        "none",
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, the links with the most.",
    ),
    PanelSpec(
        "Link replays per GPU",
        "timeseries",
        "topk(5, DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL)",
        "GPU {{gpu}} ({{Hostname}})",
        "none",
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: the sum over each GPU's links.",
    ),
    PanelSpec(
        "Effective BER, worst links",
        "timeseries",
        "topk(5, NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER)",
        "{{link}}",
        "none",
        "NVML per-link effective bit error rate (errored bits per bit).",
    ),
    PanelSpec(
        "NVSwitch port recoveries, worst ports (switch side)",
        "timeseries",
        "topk(5, DCGM_FI_DEV_NVSWITCH_LINK_RECOVERY_ERROR_TOTAL)",
        "{{chip}} port {{nvlink}}",
        "none",
        "DCGM_FI_DEV_NVSWITCH_LINK_RECOVERY_ERROR_TOTAL per port, as the switch tray reports it.",
    ),
    PanelSpec(
        "NVLink traffic per GPU",
        "timeseries",
        "topk(5, rate(DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL[1m]))",
        "GPU {{gpu}}",
        "Bps",
        "Rate of DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL (bytes both ways) over a minute of scrapes.",
    ),
    PanelSpec(
        "Live rack: what its faults cost",
        "timeseries",
        "fabric_twin_live_fault_cost_gpu_hours_per_hour",
        "GPU-hours an hour ({{scenario}})",
        "none",
        "The twin's live mode: GPU-hours an hour the live rack's faults take from the healthy "
        "rack (its /metrics, once PROMETHEUS_URL is set).",
        live=True,
    ),
    PanelSpec(
        "Live rack: what its degrading links risk",
        "timeseries",
        "fabric_twin_live_fault_risk_gpu_hours_per_hour",
        "expected GPU-hours an hour ({{scenario}})",
        "none",
        "The twin's live mode: the expected GPU-hours an hour the live rack's flaky links "
        "risk: each one's chance an hour of failing before it is drained x what failing first "
        "costs the job.",
        live=True,
    ),
    PanelSpec(
        "Live reading stale",
        "stat",
        "fabric_twin_live_reading_stale",
        "stale",
        "none",
        "1: a source of the twin's live reading failed; it shows the last good reading.",
        live=True,
    ),
)


def build() -> dict:
    """The dashboard as Grafana's JSON model."""
    board = (
        dashboard.Dashboard("NVLink fabric (DCGM, NVML, NMX)")
        .uid("nvlink-fabric-twin")
        .tags(["nvlink", "dcgm", "nmx"])
        .refresh("30s")
        .time("now-1h", "now")
        .with_variable(
            dashboard.DatasourceVariable("datasource").label("Prometheus").type("prometheus")
        )
    )
    for p in PANELS:
        target = prometheus.Dataquery().expr(p.expr).legend_format(p.legend).ref_id("A")
        builder = stat.Panel() if p.kind == "stat" else timeseries.Panel()
        builder = (
            builder.title(p.title)
            .description(p.description)
            .datasource(DS)
            .with_target(target)
            .unit(p.unit)
            .height(6 if p.kind == "stat" else 8)
            .span(6 if p.kind == "stat" else 12)
        )
        board = board.with_panel(builder)
    return json.loads(json.dumps(board.build(), cls=JSONEncoder))


def text() -> str:
    """The JSON file's text, as it ships."""
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    OUT.write_text(text())
    sys.stdout.write(f"wrote {OUT}\n")
