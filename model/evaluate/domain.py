"""evaluate() for a multi-rack domain: every block of model/evaluate/rack.py's RESULT_KEYS, read
from the DomainAssessment (model/multirack/assess.py); nothing here computes a state."""

from __future__ import annotations

from functools import lru_cache

from model import words
from model.evaluate.rack import TELEMETRY_READ_S, scenario_block
from model.evaluate.rack import telemetry_block as rack_telemetry
from model.fabric.assess import assess_rack
from model.fabric.features import FEATURES, defaults_for
from model.kinds import DomainKind, Feature
from model.multirack import tiers
from model.multirack.assess import DomainAssessment, assess_domain
from model.multirack.domains import (
    L2_CHIPS_PER_TRAY,
    TRUNKS_PER_L1,
    l2_trays,
    rack_id,
    trunk_id,
)
from model.multirack.events import events
from model.multirack.state import rack_scenario
from model.params import PARAM_FACTS, REPAIR_CABLE_H, REPAIR_NODE_H
from model.reliability.domain_work import domain_work
from model.scenario import Scenario


def _counts(a: DomainAssessment) -> dict:
    st, d = a.state, a.fabric
    up = st.up
    live = ~st.racks_lost
    trunks = d.racks * d.planes * d.l2_per_plane
    trunk_ok = st.l2_in_service[None] & ~st.trunk_failed & live[:, None, None]
    flaky = sum(int(r.state.flaky.sum()) for r in a.racks if r is not None)
    mc_up = sum(int(r.state.mc_alive.sum()) for r in a.racks if r is not None)
    return {
        "racks": d.racks,
        "racks_up": int(live.sum()),
        "gpus": d.gpus,
        "gpus_active": int(st.gpu_alive.sum()),
        "l1_chips": d.l1_chips,
        "l1_chips_up": int(st.l1_in_service.sum()),
        "l2_chips": d.l2_chips,
        "l2_chips_up": int(st.l2_in_service.sum()),
        "l2_trays": l2_trays(d),
        "links": d.gpus * d.planes,
        "links_up": int(up.sum()),
        "links_flaky": flaky,
        "trunk_bundles": trunks,
        "trunk_bundles_up": int(trunk_ok.sum()),
        "trunk_bundles_flaky": int(st.trunk_flaky.sum()),
        "trunks_per_bundle": TRUNKS_PER_L1 // d.l2_per_plane,
        "controllers": d.racks * d.rack.switch_trays,
        "controllers_up": mc_up,
    }


def _fabric(a: DomainAssessment) -> dict:
    d, f = a.fabric, a.fabric.rack
    return {
        "key": d.key,
        "name": d.name,
        "technology": f.technology,
        "gpu": f.gpu,
        "racks": d.racks,
        "gpus": d.gpus,
        "rack": f.key,
        "l1_chips": d.l1_chips,
        "l2_chips": d.l2_chips,
        "l2_per_plane": d.l2_per_plane,
        "l2_trays": l2_trays(d),
        "links_per_gpu": f.planes,
        "link_gbs_bidir": f.link_gbs_bidir,
        "gpu_tbs_bidir": round(f.gpu_tbs_bidir, 4),
        "domain_tbs_bidir": round(d.gpus * f.gpu_tbs_bidir, 3),
        "controller_runs": f.controller_runs,
        "fabric_manager": f.fabric_manager,
        "in_network": f.in_network,
        "link_counters": f.link_counters,
        "reroutes": words.reroutes(f.reroute_how, f.reroute_stall_s),
        "sharp_tflops": round(d.l1_chips * f.sharp_tflops_per_chip, 3),
    }


def _domain(a: DomainAssessment) -> dict:
    """What only a domain has: racks out, L2 chips out or drained, trunk bundles out."""
    st, d = a.state, a.fabric
    out_l2 = [f"l2.p{p:02d}.s{s}" for p, s in zip(*(~st.l2_in_service).nonzero(), strict=True)]
    tr = [
        trunk_id(d, int(r), int(p), int(s))
        for r, p, s in zip(*st.trunk_failed.nonzero(), strict=True)
    ]
    return {
        "key": d.key,
        "racks_lost": [rack_id(int(r)) for r in st.racks_lost.nonzero()[0]],
        "l2_chips_out": out_l2,
        "trunk_bundles_down": tr,
        "trunk_share_per_plane_min": [
            round(float(x), 4)
            for x in (st.trunk_share[~st.racks_lost].min(axis=0) if (~st.racks_lost).any() else [])
        ],
        "rack_partitions": a.partition.to_json()["racks"],
    }


def _control(a: DomainAssessment) -> dict:
    c = a.state.control
    t = a.fabric.rack.switch_trays
    return {
        "state": c.state,
        "global_state": c.global_state,
        "leader": c.leader,
        "controllers_down": list(c.controllers_down),
        "routing_authority": [
            f"{rack_id(r)}.st{i + 1}"
            for r in range(a.fabric.racks)
            for i in range(t)
            if c.authority[r, i]
        ],
        "l2_routing_authority": c.l2_authority,
        "rack_states": [None if x is None else str(x) for x in c.rack_states],
        "explanation": c.explanation,
    }


def _features(a: DomainAssessment) -> dict:
    defaults = defaults_for(a.fabric.key)
    feats = a.state.features
    return {
        ft.key: {
            "name": ft.name,
            "on": ft.key in feats,
            "default": defaults[ft.key][0],
            "why_default": defaults[ft.key][1],
            "effect": ft.on if ft.key in feats else ft.off,
        }
        for ft in FEATURES
    }


@lru_cache(maxsize=256)
def _rack_telemetry(rs: Scenario) -> dict:
    """One rack's own telemetry block (model/evaluate/rack.py), once per rack scenario: a rack's
    fault recurs in many domain scenarios. Read-only by its callers."""
    return rack_telemetry(rs, assess_rack(rs).state)


def _telemetry(a: DomainAssessment) -> dict:
    """What the operator sees: each rack's own per-link counters and attribution (IDs
    prefixed), and the domain's parts (L2 chips, trunk bundles) by up/down."""
    st = a.state
    seen = Feature.TELEMETRY in st.features
    lists = {k: [] for k in ("attribution", "failed", "degrading", "silent", "masked")}
    flagged, unseen, reasons = [], 0, []
    updown: dict = {
        "links_down": 0,
        "gpus_with_every_link_down": [],
        "planes_with_every_link_down": [],
    }
    base = _rack_telemetry(rack_scenario(a.scenario))  # a healthy rack with these switches
    possible = bool(base["attribution_possible"])
    for r, ra in enumerate(st.racks):
        if ra is None or not (ra.scenario.fail or ra.scenario.flaky):
            continue
        t = _rack_telemetry(ra.scenario)
        pre = f"{rack_id(r)}."
        for k in lists:
            sep = ": " if k == "masked" else ""  # masked entries are sentences
            lists[k] += [pre.rstrip(".") + sep + x if sep else pre + x for x in t[k]]
        flagged += [pre + x for x in t["flagged_links"]]
        unseen += t["degrading_unseen"]
        ud = t["updown"] or {}
        updown["links_down"] += int(ud.get("links_down", 0))
        for k in ("gpus_with_every_link_down", "planes_with_every_link_down"):
            updown[k] += [pre + x for x in ud.get(k, [])]
        possible &= bool(t["attribution_possible"])
        if t["reason"]:
            reasons.append((rack_id(r), t["reason"]))
    for tok, part in st.failed if seen else ():  # without counters: up/down, no attribution
        if part.kind in (DomainKind.RACK, DomainKind.L2_CHIP, DomainKind.L2_TRAY, DomainKind.TRUNK):
            lists["failed"].append(tok)
            lists["attribution"].append(tok)
    if len({why for _, why in reasons}) > 1:
        reason = "; ".join(f"{rack}: {why}" for rack, why in reasons)
    else:
        reason = reasons[0][1] if reasons else base["reason"]
    unseen += 0 if seen else int(st.trunk_flaky.sum())
    if seen:
        lists["degrading"] += [
            trunk_id(a.fabric, int(r), int(p), int(s))
            for r, p, s in zip(*st.trunk_flaky.nonzero(), strict=True)
        ]

    return {
        "per_link_counters": True,  # on every fabric, whatever the features
        "feature": words.telemetry_feature(seen),
        "read_at_s": TELEMETRY_READ_S,
        "attribution_possible": possible,
        **lists,
        "reason": reason,
        "flagged_links": flagged,
        "degrading_unseen": unseen,
        "visible": words.TELEMETRY_COUNTERS,
        "updown": updown,
    }


def _assumptions(a: DomainAssessment) -> list[dict]:
    d = a.fabric
    rows = [
        ("racks", d.racks, "NVL72 racks", "A", "docs/MULTIRACK.md; FACTS.md §1 roadmap"),
        ("trunks per L1 chip", TRUNKS_PER_L1, "ports", "A", "non-blocking: as many as GPU ports"),
        ("L2 chips per plane", d.l2_per_plane, "144-port chips", "D", "racks x 72 / 144 ports"),
        ("L2 chips per L2 tray", L2_CHIPS_PER_TRAY, "chips", "A", "the rack's switch tray"),
        ("extra hop latency", tiers.EXTRA_HOP_US, "µs one way", "A", "L1 -> L2 -> L1"),
        ("rack restore", REPAIR_NODE_H, "h", "A", "a whole rack back: a node's repair (FACTS §6)"),
        (
            "trunk bundle replacement",
            REPAIR_CABLE_H,
            "h, in place",
            "A",
            "a cable's repair (FACTS §6); pluggable cables between racks, no rack down",
        ),
        (
            "global fabric manager",
            "r01's leader",
            "",
            "A",
            "each rack its own NMX-Controller; the domain's beside r01's (docs/MULTIRACK.md)",
        ),
    ]
    out = [{"name": n, "value": v, "unit": u, "tag": t, "source": src} for n, v, u, t, src in rows]
    return out + [
        {"name": x.name, "value": x.value, "unit": x.unit, "tag": x.tag, "source": x.source}
        for x in d.rack.facts + PARAM_FACTS
    ]


def evaluate_result(s: Scenario) -> dict:
    """Every block of evaluate() for a multi-rack domain."""
    a = assess_domain(s)
    st = a.state
    w = domain_work(s)
    return {
        "scenario": scenario_block(s),
        "fabric": _fabric(a),
        "domain": _domain(a),
        "counts": _counts(a),
        "bandwidth": a.bandwidth,
        "sharp_tflops": tiers.sharp_tflops(st),
        "sharp_healthy_tflops": round(a.fabric.l1_chips * a.fabric.rack.sharp_tflops_per_chip, 3),
        "latency_us": tiers.latency(st),
        "packet_rate": tiers.packet_rate(st),
        "partition": a.partition.to_json(),
        "job": a.job.to_json(),
        "gpus_in_service": a.gpus_in_service,
        "delivered_fraction": w["delivered"],
        "repairs": [r.to_json() for r in a.repairs],
        "control_plane": _control(a),
        "features": _features(a),
        "decode": w["decode"],
        "goodput": w["goodput"],
        "training": w["training"],
        "telemetry": _telemetry(a),
        "events": events(a),
        "not_modelled_yet": [k for k in ("goodput", "training") if w[k] is None],
        "assumptions": _assumptions(a),
    }
