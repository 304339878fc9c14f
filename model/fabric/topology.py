"""Every component of a fabric with its ID, kind, parent and rack position.

Rack order top to bottom (FACTS.md §1): power shelves, compute trays 1-10, switch trays 1-9,
compute trays 11-18, power shelves. `slot` counts the 27 trays from the top (1..27).
"""

from __future__ import annotations

from model.fabric.presets import COMPUTE_TRAYS_ABOVE_SWITCHES, Fabric
from model.ids import chip_id, compute_tray_of_gpu, gpu_id, link_id


def compute_tray_slot(f: Fabric, tray: int) -> int:
    """1-based slot from the top of the rack for compute tray `tray` (1-based)."""
    if tray <= COMPUTE_TRAYS_ABOVE_SWITCHES:
        return tray
    return tray + f.switch_trays


def switch_tray_slot(f: Fabric, tray: int) -> int:
    return COMPUTE_TRAYS_ABOVE_SWITCHES + tray


def topology(f: Fabric) -> dict:
    """The component list the API serves and the dashboard draws."""
    comps: list[dict] = []
    for t in range(1, f.compute_trays + 1):
        comps.append(
            {
                "id": f"ct{t:02d}",
                "kind": "compute-tray",
                "parent": None,
                "slot": compute_tray_slot(f, t),
            }
        )
    for t in range(1, f.switch_trays + 1):
        comps.append(
            {"id": f"st{t}", "kind": "switch-tray", "parent": None, "slot": switch_tray_slot(f, t)}
        )
        comps.append(
            {
                "id": f"st{t}.mc",
                "kind": "controller",
                "parent": f"st{t}",
                "slot": switch_tray_slot(f, t),
                "leader": t == 1,
            }
        )
        for k in range(f.chips_per_tray):
            comps.append(
                {
                    "id": f"st{t}.sw{k}",
                    "kind": "switch-chip",
                    "parent": f"st{t}",
                    "slot": switch_tray_slot(f, t),
                    "index": k,
                }
            )
    for g in range(f.gpus):
        tray = compute_tray_of_gpu(f, g)
        comps.append(
            {
                "id": gpu_id(g),
                "kind": "gpu",
                "parent": f"ct{tray:02d}",
                "slot": compute_tray_slot(f, tray),
                "index": g % f.gpus_per_tray,
            }
        )
    for g in range(f.gpus):
        for p in range(f.planes):
            link = link_id(f, g, p)
            comps.append(
                {
                    "id": link,
                    "kind": "link",
                    "parent": gpu_id(g),
                    "ends": [gpu_id(g), chip_id(f, p)],
                }
            )
            for c in range(f.cables_per_link):
                comps.append({"id": f"{link}.c{c}", "kind": "cable", "parent": link})
    counts: dict[str, int] = {}
    for c in comps:
        counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    return {
        "fabric": f.key,
        "rack_order": "top to bottom: power shelves, ct01-ct10, st1-st9, ct11-ct18, power shelves",
        "slots": f.compute_trays + f.switch_trays,
        "counts": counts,
        "components": comps,
    }


def domain_topology(d) -> dict:
    """A multi-rack domain's components: each rack's as topology() gives them (prefixed
    rNN.), without links and cables (41,472 and 82,944 of them: ask per rack), plus the L2
    chips. `d` is a model.domains.Domain."""
    comps: list[dict] = []
    per_rack = [c for c in topology(d.rack)["components"] if c["kind"] not in ("link", "cable")]
    for r in range(1, d.racks + 1):
        rid = f"r{r:02d}"
        comps.append({"id": rid, "kind": "rack", "parent": None, "slot": None})
        for c in per_rack:
            comps.append(
                {
                    **c,
                    "id": f"{rid}.{c['id']}",
                    "parent": f"{rid}.{c['parent']}" if c["parent"] else rid,
                    "rack": rid,
                }
            )
    for p in range(d.planes):
        for k in range(d.l2_per_plane):
            comps.append({"id": f"l2.p{p:02d}.s{k}", "kind": "l2-chip", "parent": None, "plane": p})
    counts: dict[str, int] = {}
    for c in comps:
        counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    counts["link"] = d.gpus * d.planes
    counts["cable"] = counts["link"] * d.rack.cables_per_link
    return {
        "fabric": d.key,
        "rack_order": "each rack as vr-nvl72; racks r01..; L2 chips l2.pPP.sS per plane",
        "counts": counts,
        "components": comps,
        "omitted": "links and cables are not listed for multi-rack domains (counts only)",
    }
