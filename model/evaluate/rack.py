"""evaluate() for one rack: every block of the result (RESULT_KEYS), a serialisation of its
assessment (model/fabric/assess.py) and the figures built on it; and the blocks a domain's
result shares (the scenario block, the telemetry block of each of its racks)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from model import telemetry, words
from model.assess import assess
from model.events import events
from model.fabric import metrics
from model.fabric.features import FEATURES, defaults_for, lacks, meaning
from model.fabric.presets import Fabric
from model.fabric.state import FabricState
from model.ids import link_id, parse_id
from model.kinds import Feature
from model.params import PARAM_FACTS
from model.reliability import goodput
from model.scenario import Scenario, to_query
from model.workloads import throughput

# Telemetry is read an hour after the counters were cleared [A]: long enough for a
# degrading link's replays and recoveries to show, days before it fails (FACTS.md §3).
TELEMETRY_READ_S = 3600.0


def telemetry_block(s: Scenario, st: FabricState) -> dict:
    """What the operator can see: per-link counters and the attribution they allow."""
    f = st.fabric
    flaky = [link_id(f, int(g), int(p)) for g, p in zip(*np.nonzero(st.flaky), strict=True)]
    seen = Feature.TELEMETRY in st.features
    a = telemetry.attribution(telemetry.attribution_reads(s, TELEMETRY_READ_S))
    return {
        "per_link_counters": True,  # on every fabric, whatever the features
        "feature": words.telemetry_feature(seen),
        "read_at_s": TELEMETRY_READ_S,
        "attribution_possible": a.possible,
        "attribution": list(a.components),
        "failed": list(a.failed),
        "degrading": list(a.degrading),
        "silent": list(a.silent),
        "masked": list(a.masked),
        "reason": a.reason,
        # links telemetry flags to drain: degrading links, and the links of degrading cables
        "flagged_links": sorted({parse_id(d, f).link().id for d in a.degrading}),
        "degrading_unseen": 0 if seen else len(flaky),
        "visible": words.TELEMETRY_COUNTERS,
        "updown": a.updown,
    }


def _goodput(s: Scenario) -> dict:
    """Lifetime goodput of this fabric and feature set (closed form; faults of now aside)."""
    g = _lifetime(replace(s, fail=(), flaky=(), update=()))
    return {k: dict(v) if isinstance(v, dict) else v for k, v in g.items()}  # the memo's own


@lru_cache(maxsize=256)
def _lifetime(s: Scenario) -> dict:
    """Memoised on the scenario without its faults of now, which the lifetime figure does
    not read (tests/model/reliability: the same answer with and without them)."""
    return goodput.summary(s)


# The one result type: every domain size answers with these keys. What a multi-rack domain
# does not model is None there and named, once, in not_modelled_yet (empty on one rack).
RESULT_KEYS = (
    "scenario",
    "fabric",
    "domain",
    "counts",
    "bandwidth",
    "sharp_tflops",
    "sharp_healthy_tflops",
    "latency_us",
    "packet_rate",
    "partition",
    "job",
    "gpus_in_service",
    "delivered_fraction",
    "repairs",
    "control_plane",
    "features",
    "decode",
    "goodput",
    "training",
    "telemetry",
    "events",
    "not_modelled_yet",
    "assumptions",
)


def scenario_block(s: Scenario) -> dict:
    """The result's scenario block: the canonical query and every field of the scenario."""
    return {
        "query": to_query(s),
        "key": s.key(),
        "fabric": s.fabric,
        "fail": list(s.fail),
        "flaky": list(s.flaky),
        "off": list(s.off),
        "on": list(s.on),
        "workload": s.workload,
        "update": list(s.update),
        "eth_bw": s.eth_bw,
        "at": s.at,
    }


def _fabric_block(f: Fabric) -> dict:
    """The fabric block: the rack's shape and its healthy rates, as built."""
    return {
        "key": f.key,
        "name": f.name,
        "technology": f.technology,
        "gpu": f.gpu,
        "compute_trays": f.compute_trays,
        "switch_trays": f.switch_trays,
        "chips_per_tray": f.chips_per_tray,
        "links_per_gpu": f.planes,
        "cables_per_link": f.cables_per_link,
        "link_gbs_bidir": f.link_gbs_bidir,
        "gpu_tbs_bidir": round(f.gpu_tbs_bidir, 4),
        "rack_tbs_bidir": round(f.rack_tbs_bidir, 3),
        "switch_tray_tbs_bidir": round(f.tray_tbs_bidir, 3),
        "controller_runs": f.controller_runs,
        "fabric_manager": f.fabric_manager,
        "in_network": f.in_network,
        "link_counters": f.link_counters,
        "reroutes": words.reroutes(f.reroute_how, f.reroute_stall_s),
        "sharp_tflops": round(f.sharp_tflops, 3),
    }


def _counts_block(st: FabricState) -> dict:
    """The counts block: each kind of part, how many there are and how many are up (a
    drained chip that also failed counts as failed)."""
    f = st.fabric
    links_up = int(st.up.sum())
    return {
        "gpus": f.gpus,
        "gpus_active": int(st.gpu_alive.sum()),
        "switch_chips": f.chips,
        "switch_chips_up": int(st.chip_in_service.sum()),
        "switch_chips_failed": int(st.chip_failed.sum()),
        "switch_chips_drained": int((st.chip_drained & ~st.chip_failed).sum()),
        "links": f.links,
        "links_up": links_up,
        "links_flaky": int(st.flaky.sum()),
        "cables": f.cables,
        "cables_up": links_up * f.cables_per_link,
        "cables_failed": int(st.cable_failed.sum()),
        "controllers": f.switch_trays,
        "controllers_up": int(st.mc_alive.sum()),
    }


def _control_plane_block(st: FabricState) -> dict:
    """The control-plane block: its state, leader, controllers down and the trays whose
    routing it can still change."""
    c = st.control
    return {
        "state": c.state,
        "leader": c.leader,
        "controllers_down": list(c.controllers_down),
        "routing_authority": [f"st{i + 1}" for i, ok in enumerate(c.authority) if ok],
        "explanation": c.explanation,
    }


def _features_block(st: FabricState) -> dict:
    """The features block: each feature on or off here, its default on this fabric and
    why, and what it does in the state it is in."""
    defaults, missing = defaults_for(st.fabric.key), lacks(st.fabric.key)
    return {
        ft.key: {
            "name": ft.name,
            "lacks": missing.get(ft.key),  # why the fabric has no such switch; None: it has
            "here": meaning(st.fabric.key, ft.key),  # what it means on this fabric, in a line
            "on": ft.key in st.features,
            "default": defaults[ft.key][0],
            "why_default": defaults[ft.key][1],
            "effect": missing.get(ft.key) or (ft.on if ft.key in st.features else ft.off),
        }
        for ft in FEATURES
    }


def _assumptions(f: Fabric) -> list[dict]:
    """The assumptions block: the fabric's facts and the model's parameters, each tagged."""
    return [
        {"name": x.name, "value": x.value, "unit": x.unit, "tag": x.tag, "source": x.source}
        for x in f.facts + PARAM_FACTS
    ]


def evaluate_result(s: Scenario) -> dict:
    """Every block of the result for one rack, from its assessment."""
    a = assess(s)
    st, f = a.state, a.fabric
    w = throughput.work(s)
    return {
        "scenario": scenario_block(s),
        "fabric": _fabric_block(f),
        "counts": _counts_block(st),
        "bandwidth": a.bandwidth,
        "sharp_tflops": metrics.sharp_tflops(st),
        "sharp_healthy_tflops": round(f.sharp_tflops, 3),
        "latency_us": metrics.latency(st),
        "packet_rate": metrics.packet_rate(st),
        "partition": a.partition.to_json(),
        "job": a.job.to_json(),
        "gpus_in_service": a.gpus_in_service,
        "delivered_fraction": w.delivered,
        "repairs": [r.to_json() for r in a.repairs],
        "control_plane": _control_plane_block(st),
        "features": _features_block(st),
        "decode": w.decode,
        "goodput": _goodput(s),
        "training": w.training,
        "telemetry": telemetry_block(s, st),
        "events": events(a),
        "not_modelled_yet": [],
        "assumptions": _assumptions(f),
    }
