"""Every sentence the model says to people, written from typed states in one place.

Nothing reads these back: code branches on model/kinds.py, and these strings only go into
the JSON's human-readable fields (explanation, cause, restart, action, event).
"""

from __future__ import annotations

from model.kinds import ControlState, RepairAction, Restart
from model.params import MAINTENANCE_WINDOW_H

# --- partition ---------------------------------------------------------------------------
MAINTENANCE_PARTITION = "maintenance window: the switch update takes the fabric down"
ALL_LINKS = "every GPU has all its links"
FLAKY_ACTIVE = " (flaky links are still ACTIVE: they replay, they are not down)"
UNREACHABLE = "some GPU pairs share no plane that is up: they cannot reach"


def partition_missing_gpus(n: int) -> str:
    return (
        f"{n} GPU(s) missing and partial-rack operation is off: "
        "the partition cannot form without every compute tray"
    )


def partition_chips_out(n: int) -> str:
    return (
        f"{n} switch chip(s) out in full-bandwidth mode: NMX calls the loss of a switch UNHEALTHY"
    )


def partition_parked(n_out: int, gpus: int) -> str:
    return (
        f"{n_out} GPU(s) parked or missing (NO_NVLINK); the other "
        f"{gpus - n_out} keep full bandwidth"
    )


def partition_links_missing(short: int) -> str:
    return (
        f"links missing on {short} GPU(s): every GPU still reaches every other, those at reduced "
        "bandwidth (each reports DEGRADED_BW in its fabric health); BANDWIDTH is NMX's state "
        "for missing trunk links between racks, and one rack has none"
    )


def partition_shrunk(lost: int, gpus: int, short: int = 0) -> str:
    rest = (
        f"; {short} GPU(s) short of links (DEGRADED_BW in their fabric health)"
        if short
        else ", all at full bandwidth"
    )
    return f"{lost} GPU(s) out; the domain shrinks to {gpus - lost} GPUs{rest}"


# --- control plane ---------------------------------------------------------------------------
NO_RESILIENCE = "control-plane resilience is off"
NO_CONTROLLER_LEFT = "no healthy controller is left"


def control_healthy(leader: str, down: int) -> str:
    extra = f"; {down} tray controller(s) down, data plane untouched" if down else ""
    return f"leader on {leader}{extra}"


def control_trays_lost(leader: str, down: int, trays: str) -> str:
    return (
        f"leader on {leader}; {down} tray controller(s) down and control-plane resilience is "
        f"off: the control plane of {trays} is gone until repaired (a new fault on its chips "
        "cannot be rerouted); data plane untouched"
    )


def control_failed_over(leader: str, peer: str) -> str:
    return (
        f"leader {leader} lost; {peer} took over (control-plane resilience); data plane untouched"
    )


def control_local_fallback(leader: str, why: str, alive: int, trays: int) -> str:
    return (
        f"leader {leader} lost and {why}: no central controller; {alive} of {trays} tray "
        "controllers reroute their own chips (software-defined routing fallback)"
    )


def control_frozen(leader: str, why: str) -> str:
    return (
        f"leader {leader} lost and {why}; routing fallback is off: routes are frozen, and any "
        "new fault that needs a reroute is a hard failure"
    )


# --- job -----------------------------------------------------------------------------------
MAINTENANCE_JOB = "switch firmware update in a maintenance window (in-service updates off)"
NO_REROUTE = "dynamic rerouting is off: traffic on the dead plane hangs the collective"
FULL_BANDWIDTH = "full bandwidth"


def gpus_lost(n: int) -> str:
    return f"{n} GPU(s) lost: their ranks are gone"


def routes_stuck(control: ControlState) -> str:
    if control is ControlState.TRAYS_LOST:
        return (
            "the fault's switch tray has no controller (control-plane resilience is off): "
            "it cannot be routed around"
        )
    return f"routes are {control}: the fault cannot be routed around"


def duration(seconds: float) -> str:
    """A short stall: 'about 1 ms', 'about 2 s'."""
    if seconds < 1:
        return f"about {seconds * 1e3:g} ms"
    return f"about {seconds:g} s"


def degraded_cause(
    reroute_how: str | None,
    stall_s: float,
    updating: bool,
    flaky: bool,
    gated_tbs: float,
    healthy_tbs: float,
) -> str:
    """Why a running job is slower: rerouted, drained for an update, replaying; gated at."""
    why = []
    if reroute_how:
        why.append(f"rerouted by {reroute_how} in {duration(stall_s)}")
    if updating:
        why.append("planes drained for an in-service update")
    if flaky:
        why.append("flaky links replay")
    gated, healthy = round(gated_tbs, 4), round(healthy_tbs, 4)
    return "; ".join(why) + f"; collectives gated at {gated:g} of {healthy:g} TB/s"


def restart(kind: Restart, usable_gpus: int) -> str:
    """When the job starts again, as the page and the API say it."""
    return {
        Restart.NONE: "none",
        Restart.AT_ONCE: f"at once on the {usable_gpus} GPUs that remain",
        Restart.AFTER_REPAIR: "after repair",
        Restart.AFTER_CONTROLLER: "after the fabric controller is back",
        Restart.AFTER_WINDOW: f"after the window (~{MAINTENANCE_WINDOW_H:g} h)",
    }[kind]


# --- repairs -------------------------------------------------------------------------------
def repair_action(action: RepairAction, subject: str) -> str:
    """The service action, naming the tray it touches (or the number of trays updated)."""
    return {
        RepairAction.REPLACE_CARTRIDGE: "replace the spine cable cartridge",
        RepairAction.SWAP_SWITCH_TRAY: f"swap switch tray {subject}",
        RepairAction.RESTART_CONTROLLER: (
            "restart the controller (swap its tray's management module if dead)"
        ),
        RepairAction.REPLACE_COMPUTE_TRAY: f"replace compute tray {subject}",
        RepairAction.MAINTENANCE_UPDATE: "switch firmware update of every tray",
        RepairAction.IN_SERVICE_UPDATE: f"in-service update, {subject} tray(s) one at a time",
        RepairAction.RESTORE_RACK: f"restore rack {subject} (power, cooling, its trays)",
        RepairAction.REPLACE_TRUNK: f"replace the trunk cables {subject}",
    }[action]


# --- telemetry ---------------------------------------------------------------------------
TELEMETRY_COUNTERS = (
    "per-link CRC, replay, recovery and throughput counters, BER and link state (GPU side), "
    "NVSwitch port counters and the lanes' view (switch side)"
)
TELEMETRY_FEATURE = (
    "The counters are exported on every fabric whatever its features: DCGM reads them on a "
    "GB200 rack today. The fine-grained telemetry feature decides what the fabric does with "
    "them: attribute a fault to its cable, port, chip or tray; run the windowed health rule "
    "and the failure forecast and drain a degrading link before it fails; detect a dead link "
    "in ~30 s instead of the 10-minute timeout and find the failed part at once."
)


def telemetry_feature(on: bool) -> str:
    """What the telemetry feature does on this scenario's fabric, on or off (the counters are
    there either way)."""
    if on:
        return (
            "telemetry on: the fabric acts on the counters (attribution, the windowed rule, "
            "the forecast, drain ahead, detection in ~30 s)"
        )
    return (
        "telemetry off: the counters are exported but nothing acts on them: no attribution, "
        "no drain ahead (a degrading link is found when it fails), detection by the "
        "10-minute timeout and a day to find the failed part"
    )
