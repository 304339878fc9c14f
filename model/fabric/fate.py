"""Partition health, the job's fate and the repair each fault needs.

Partition states follow NMX-Manager (FACTS.md §2). With dynamic rerouting the partition runs
in adaptive-bandwidth mode (HEALTHY / BANDWIDTH / UNHEALTHY); without it, in full-bandwidth
mode, today's NVLink 5 default (HEALTHY / DEGRADED with GPUs parked / UNHEALTHY on the loss
of a switch). Lost GPUs shrink the domain (DEGRADED) only with partial-rack operation on.
"""

from __future__ import annotations

import numpy as np

from model.fabric.state import FabricState
from model.ids import compute_tray_of_gpu, gpu_id
from model.params import (
    CABLE_SWAP_RACK_DOWN_H,
    CONTROLLER_RESTART_H,
    ISSU_PER_TRAY_H,
    MAINTENANCE_WINDOW_H,
    REPAIR_CABLE_H,
    REPAIR_NODE_H,
    SWITCH_TRAY_SWAP_H,
    SWITCH_TRAY_SWAP_RACK_DOWN_H,
)


def unroutable_planes(st: FabricState) -> np.ndarray:
    """bool[P]: planes with a fault that needs a reroute nobody can do.

    A reroute needs dynamic rerouting on and a routing authority for the plane's tray.
    """
    f = st.fabric
    need = st.needs_reroute.any(axis=0)
    if "reroute" not in st.features:
        return need
    auth = np.repeat(st.control.authority, f.chips_per_tray)
    return need & ~auth


def _unreachable_pairs(st: FabricState) -> bool:
    up = st.up[st.gpu_alive]
    if len(up) < 2:
        return False
    common = up.astype(np.int32) @ up.T.astype(np.int32)
    np.fill_diagonal(common, 1)
    return bool((common == 0).any())


def partition(st: FabricState) -> dict:
    """NMX-style partition health, with the GPUs parked or absent and why."""
    f = st.fabric
    adaptive = "reroute" in st.features
    mode = "adaptive-bandwidth" if adaptive else "full-bandwidth"
    lost = [gpu_id(i) for i in np.flatnonzero(~st.gpu_alive)]
    missing_links = st.gpu_alive[:, None] & ~st.up
    short = np.flatnonzero(missing_links.any(axis=1))
    parked = [] if adaptive else [gpu_id(i) for i in short]
    chips_out = int((~st.chip_in_service).sum())
    out = {"mode": mode, "lost_gpus": lost, "parked_gpus": parked}

    def res(state: str, why: str) -> dict:
        return {**out, "state": state, "explanation": why}

    if st.maintenance:
        return res("UNHEALTHY", "maintenance window: the switch update takes the fabric down")
    if lost and "partial-rack" not in st.features:
        return res(
            "UNHEALTHY",
            f"{len(lost)} GPU(s) missing and partial-rack operation is off: "
            "the partition cannot form without every compute tray",
        )
    if not adaptive:
        if chips_out:
            return res(
                "UNHEALTHY",
                f"{chips_out} switch chip(s) out in full-bandwidth mode: NMX calls the loss "
                "of a switch UNHEALTHY",
            )
        if parked or lost:
            n = f.gpus - len(lost) - len(parked)
            return res(
                "DEGRADED",
                f"{len(parked) + len(lost)} GPU(s) parked or missing (NO_NVLINK); the other "
                f"{n} keep full bandwidth",
            )
        return res("HEALTHY", "every GPU has all its links")
    if _unreachable_pairs(st):
        return res("UNHEALTHY", "some GPU pairs share no plane that is up: they cannot reach")
    if missing_links.any():
        why = (
            f"links missing on {len(short)} GPU(s); every GPU still reaches every other at "
            "reduced bandwidth"
        )
        return res("BANDWIDTH", why + (f"; {len(lost)} GPU(s) out of the domain" if lost else ""))
    if lost:
        return res(
            "DEGRADED",
            f"{len(lost)} GPU(s) out; the domain shrinks to {f.gpus - len(lost)} GPUs, "
            "all at full bandwidth",
        )
    flaky = (
        " (flaky links are still ACTIVE: they replay, they are not down)" if st.flaky.any() else ""
    )
    return res("HEALTHY", "every GPU has all its links" + flaky)


def job(st: FabricState, part: dict, bw: dict) -> dict:
    """What happens to a job spanning the domain: running, degraded, aborted or stopped."""
    f = st.fabric
    lost = part["lost_gpus"]
    bad_planes = unroutable_planes(st)
    reroutes = st.needs_reroute.any()
    active = f.gpus - len(lost)
    usable = active - len(part["parked_gpus"])

    def restart() -> str:
        if part["state"] == "UNHEALTHY":
            return "after repair"
        if bad_planes.any() and st.control.state in ("frozen", "local-fallback"):
            return "after the fabric controller is back"
        return f"at once on the {usable} GPUs that remain"

    if st.maintenance:
        return {
            "state": "stopped",
            "cause": "switch firmware update in a maintenance window (in-service updates off)",
            "restart": f"after the window (~{MAINTENANCE_WINDOW_H:g} h)",
            "stall_s": None,
            "checkpoint_restart": True,
        }
    if lost:
        return {
            "state": "aborted",
            "cause": f"{len(lost)} GPU(s) lost: their ranks are gone",
            "restart": restart(),
            "stall_s": None,
            "checkpoint_restart": True,
        }
    if bad_planes.any():
        if "reroute" not in st.features:
            cause = "dynamic rerouting is off: traffic on the dead plane hangs the collective"
        else:
            cause = f"routes are {st.control.state}: the fault cannot be routed around"
        return {
            "state": "aborted",
            "cause": cause,
            "restart": restart(),
            "stall_s": None,
            "checkpoint_restart": True,
        }
    gated = bw["per_gpu_tbs"]["min"]
    healthy = bw["per_gpu_tbs"]["healthy"]
    if gated < healthy - 1e-9:
        why = []
        if reroutes:
            why.append(f"rerouted by {f.reroute_how} in {_dur(f.reroute_stall_s)}")
        if st.updating:
            why.append("planes drained for an in-service update")
        if st.flaky.any():
            why.append("flaky links replay")
        return {
            "state": "degraded",
            "cause": "; ".join(why) + f"; collectives gated at {gated:g} of {healthy:g} TB/s",
            "restart": "none",
            "stall_s": f.reroute_stall_s if reroutes else 0.0,
            "checkpoint_restart": False,
        }
    return {
        "state": "running",
        "cause": "full bandwidth",
        "restart": "none",
        "stall_s": 0.0,
        "checkpoint_restart": False,
    }


def _dur(seconds: float) -> str:
    if seconds < 1:
        return f"about {seconds * 1e3:g} ms"
    return f"about {seconds:g} s"


def repairs(st: FabricState) -> list[dict]:
    """The repair each failed component and each update needs, and whether the rack stops."""
    out = []
    hot = "hot-swap" in st.features
    partial = "partial-rack" in st.features
    for c in st.failed:
        if c.kind in ("cable", "link"):
            out.append(
                {
                    "id": c.id,
                    "action": "replace the spine cable cartridge",
                    "mode": "rack-down",
                    "repair_h": REPAIR_CABLE_H,
                    "rack_down_h": CABLE_SWAP_RACK_DOWN_H,
                    "until_then": "runs degraded" if "reroute" in st.features else "down",
                }
            )
        elif c.kind in ("switch-chip", "switch-tray"):
            tray = f"st{c.nums[0]}"
            out.append(
                {
                    "id": c.id,
                    "action": f"swap switch tray {tray}",
                    "mode": "hot-swap" if hot else "rack-down",
                    "repair_h": REPAIR_NODE_H,
                    "rack_down_h": 0.0 if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                    "planes_down_h": SWITCH_TRAY_SWAP_H if hot else SWITCH_TRAY_SWAP_RACK_DOWN_H,
                    "until_then": "runs degraded" if "reroute" in st.features else "down",
                }
            )
        elif c.kind == "controller":
            out.append(
                {
                    "id": c.id,
                    "action": "restart the controller (swap its tray's management module if dead)",
                    "mode": "in-place",
                    "repair_h": CONTROLLER_RESTART_H,
                    "rack_down_h": 0.0,
                    "until_then": "data plane untouched",
                }
            )
        else:
            n = c.nums[0] if c.kind == "compute-tray" else compute_tray_of_gpu(st.fabric, c.nums[0])
            ct = f"ct{n:02d}"
            out.append(
                {
                    "id": c.id,
                    "action": f"replace compute tray {ct}",
                    "mode": "hot-swap" if partial else "rack-down",
                    "repair_h": REPAIR_NODE_H,
                    "rack_down_h": 0.0 if partial else REPAIR_NODE_H,
                    "until_then": "the smaller domain runs" if partial else "down",
                }
            )
    if st.maintenance:
        out.append(
            {
                "id": "update",
                "action": "switch firmware update of every tray",
                "mode": "rack-down",
                "repair_h": MAINTENANCE_WINDOW_H,
                "rack_down_h": MAINTENANCE_WINDOW_H,
                "until_then": "down",
            }
        )
    elif st.updating:
        n = st.fabric.switch_trays if st.rolling else len(st.updating)
        out.append(
            {
                "id": "update",
                "action": f"in-service update, {n} tray(s) one at a time",
                "mode": "in-service",
                "repair_h": n * ISSU_PER_TRAY_H,
                "rack_down_h": 0.0,
                "until_then": "runs degraded",
            }
        )
    return out
