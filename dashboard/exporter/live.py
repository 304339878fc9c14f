"""Live mode's series on /metrics (when the operator has turned it on): what the live rack's
faults cost an hour, whether the reading is stale, its age, each source's state, so the
shipped alert rules (monitoring/prometheus/alerts.yml) fire on the twin's own reading.

The values are dashboard/infra/live.py's answer, the same one GET /api/v1/live and the page's
banner show; nothing is read again for them."""

from __future__ import annotations

import numpy as np

from dashboard.exporter.promtext import family_text, label_set

COST_GPU_H = "fabric_twin_live_fault_cost_gpu_hours_per_hour"
COST_MONEY = "fabric_twin_live_fault_cost_dollars_per_hour"
RISK_GPU_H = "fabric_twin_live_fault_risk_gpu_hours_per_hour"
STALE = "fabric_twin_live_reading_stale"
AGE = "fabric_twin_live_reading_age_seconds"
SOURCE_UP = "fabric_twin_live_source_up"
FAULTS = "fabric_twin_live_repairs_pending"


def _one(name: str, help_text: str, labels: dict[str, str], value: float) -> str:
    pre = (f"{name}{label_set(labels) if labels else ''} ",)
    return family_text(name, "gauge", help_text, pre, np.asarray([value], float))


def live_text(a: dict) -> str:
    """The live families of one live answer (configured); the cost and repair series only
    once a good reading is in (never a zero cost for a rack not read)."""
    out = [
        _one(
            STALE,
            "1: the live reading is stale or down (a source failed; see /api/v1/live).",
            {},
            float(a["state"] != "ok"),
        ),
    ]
    for k, src in a.get("sources", {}).items():
        help_text = "1: the live source answered at the last reading; 0: it failed."
        out.append(_one(SOURCE_UP, help_text, {"source": k}, float(src["ok"])))
    live = a.get("live")
    if live is None:
        return "".join(out)
    labels = {"scenario": live["query"]}
    cost = live["cost_per_h"]
    out += [
        _one(AGE, "Seconds since the live reading shown was read.", {}, a["age_s"]),
        _one(
            COST_GPU_H,
            "GPU-hours an hour the live rack's faults take from the healthy rack (the work share they cost x its GPUs).",
            labels,
            cost["gpu_hours_per_h"],
        ),
        _one(
            COST_MONEY,
            "Dollars an hour the live rack's faults cost at the twin's price per GPU-hour.",
            labels,
            cost["money_per_h"],
        ),
        _one(
            RISK_GPU_H,
            "Expected GPU-hours an hour the live rack's degrading links risk: the chance an hour each fails before it is drained x what failing first costs the job.",
            labels,
            cost.get("risk_gpu_hours_per_h", 0.0),
        ),
        _one(
            FAULTS,
            "Repairs the live rack needs (what to do: /api/v1/live).",
            labels,
            float(len(live["what_to_do"])),
        ),
    ]
    return "".join(out)
