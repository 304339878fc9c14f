"""Every sentence the model says to people, written from typed states in one place.

Nothing reads these back: code branches on model/kinds.py, and these strings only go into
the JSON's human-readable fields (explanation, cause, restart, action, event).
"""

from __future__ import annotations

import math

from model.kinds import ControlState, JobState, PartitionMode, RepairAction, Restart
from model.params import MAINTENANCE_WINDOW_H

# --- numbers for people: the one formatter ------------------------------------------------
MICRO = "µs"  # the unit every latency is written in, on cards, charts and tables alike


def plural(n: float, noun: str) -> str:
    """'1 GPU', '4 GPUs', '1 recovery', '505 recoveries': a count and its noun, agreeing."""
    if n == 1:
        return f"1 {noun}"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        many = noun[:-1] + "ies"
    elif noun.endswith(("s", "x", "ch", "sh")):
        many = noun + "es"
    else:
        many = noun + "s"
    return f"{count(n)} {many}"


def count(n: float) -> str:
    """A whole count with thousands separators: '5,184'."""
    return f"{round(n):,}"


def sig(x: float, figures: int = 3) -> str:
    """x to `figures` significant figures, trailing zeros kept so numbers side by side read
    alike ('0.750', '2.00', '0.394', '1.86'); whole numbers of more digits stay whole
    ('237', '3,456'), never in exponent form."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    digits = math.floor(math.log10(abs(x))) + 1
    decimals = max(0, figures - digits)
    return f"{round(x, decimals):,.{decimals}f}"


def decimal(x: float, most: int = 2, least: int = 1) -> str:
    """x to at most `most` decimals and at least `least` (zero is '0', exact): '3.0', '3.2',
    '3.59', '237.0' beside '237.1', never '3' beside '3.59' nor '237 (was 237.1)'."""
    if x == 0:
        return "0"
    whole, _, frac = f"{x:.{most}f}".partition(".")
    frac = frac.rstrip("0").ljust(least, "0")
    return f"{whole}.{frac}" if frac else whole


def quantity(x: float, unit: str, figures: int = 3) -> str:
    """A number and its unit, to `figures` significant figures: '3.20 TB/s', '0.394 µs'."""
    return f"{sig(x, figures)} {unit}"


def pair(a: float, b: float, unit: str, figures: int = 3) -> str:
    """Two numbers of one unit, each to `figures` significant figures: '0.750 / 2.00 µs'."""
    return f"{sig(a, figures)} / {sig(b, figures)} {unit}"


def money(x: float) -> str:
    """Dollars for people, to 3 significant figures: '$4.88', '$708', '$1,090', '$123 k',
    '$577 M', '$1.20 bn' (a negative amount '-$6.46 M'); a CSV keeps the whole number. An
    amount under $100 keeps its cents' figures, so a small cost never reads '$0'."""
    sign, x = ("-" if x < 0 else ""), abs(x)
    x3 = float(f"{x:.3g}")  # to 3 figures first, so $999,999 is '$1.00 M', not '$1,000 k'
    for size, at, word in ((1e9, 1e9, " bn"), (1e6, 1e6, " M"), (1e3, 1e4, " k")):
        if x3 >= at:
            return f"{sign}${sig(x3 / size)}{word}"
    if 0 < x3 < 100:
        return f"{sign}${sig(x3)}"
    return f"{sign}${round(x):,}"


def goodput_kept(
    fraction: float,
    scale: str,
    stops_per_day: float,
    faults_per_day: float,
    minutes_per_stop: float,
    detect_min: float,
    restart_min: float,
    down_share: float,
) -> str:
    """Why a job keeps the goodput it keeps, from the closed form's pieces: how often it
    stops, how long each stop holds it, the share of time it is down (stops overlap), and
    what checkpoints and lost work take of the rest."""
    if stops_per_day <= 0:
        return f"{scale} keeps {fraction:.1%}: nothing stops it"
    per, n = ("day", 1.0) if stops_per_day >= 1 else ("year", 365.25)
    planned = (stops_per_day - faults_per_day) * n
    held = f"{sig(minutes_per_stop, 2)} min ({sig(detect_min, 2)} to detect, "
    held += f"{sig(restart_min, 2)} to restart or wait)"
    overlap = "stops overlap, so " if stops_per_day * minutes_per_stop > 24 * 60 else ""
    rest = max(0.0, 1.0 - down_share - fraction)
    return (
        f"{scale} keeps {fraction:.1%}: it is stopped {sig(stops_per_day * n)} times a {per}, "
        f"once every {duration_words(86400 / stops_per_day)} ({sig(faults_per_day * n)} "
        f"unplanned{f', {sig(planned)} planned' if planned >= 0.0005 else ''}), each "
        f"holding it {held}; {overlap}it is down {down_share:.1%} of the time, and "
        f"checkpoints and the work lost since the last one take {rest:.1%} more"
    )


def duration_words(seconds: float) -> str:
    """A span for people: '16 min', '5.9 h', '31 days'."""
    if seconds < 90:
        return f"{sig(seconds, 2)} s"
    if seconds < 90 * 60:
        return f"{sig(seconds / 60, 2)} min"
    if seconds < 48 * 3600:
        return f"{sig(seconds / 3600, 2)} h"
    return f"{sig(seconds / 86400, 2)} days"


# --- partition ---------------------------------------------------------------------------
MAINTENANCE_PARTITION = "maintenance window: the switch update takes the fabric down"
ALL_LINKS = "every GPU has all its links"
FLAKY_ACTIVE = " (flaky links are still ACTIVE: they replay, they are not down)"
UNREACHABLE = "some GPU pairs share no plane that is up: they cannot reach"


def partition_missing_gpus(n: int) -> str:
    return (
        f"{plural(n, 'GPU')} missing and partial-rack operation is off: "
        "the partition cannot form without every compute tray"
    )


def partition_chips_out(n: int) -> str:
    """Said after the mode ('full-bandwidth mode: ...'), so it does not name it again."""
    return f"{plural(n, 'switch chip')} out: NMX calls the loss of a switch UNHEALTHY"


def partition_parked(n_out: int, gpus: int) -> str:
    return (
        f"{plural(n_out, 'GPU')} parked or missing (NO_NVLINK); the other "
        f"{gpus - n_out} keep full bandwidth"
    )


def partition_links_missing(short: int) -> str:
    """One rack short of links: it has no trunk links, so nothing of NMX's BANDWIDTH state."""
    return (
        f"links missing on {plural(short, 'GPU')}: every GPU still reaches every other, those "
        "at reduced bandwidth (each reports DEGRADED_BW in its fabric health)"
    )


def partition_shrunk(lost: int, gpus: int, short: int = 0) -> str:
    rest = (
        f"; {plural(short, 'GPU')} short of links (DEGRADED_BW in their fabric health)"
        if short
        else ", all at full bandwidth"
    )
    # "of the rack": a multi-rack domain quotes this per rack and says its own size after
    return f"{plural(lost, 'GPU')} out; the rack runs on its other {gpus - lost}{rest}"


# Ethernet has no NMX partition: the job's GPUs reach each other by ECMP over the ports up.
ECMP_ALL_PORTS = "every GPU has all its ports up"


def ecmp_ports_missing(short: int) -> str:
    return (
        f"ports down on {plural(short, 'GPU')}: ECMP spreads their traffic over the ports "
        "left, at reduced bandwidth"
    )


def ecmp_static(short: int) -> str:
    return (
        f"ports down on {plural(short, 'GPU')} and ECMP reconvergence is off: routes still "
        "send traffic to the dead ports until they are repaired"
    )


def ecmp_shrunk(lost: int, gpus: int) -> str:
    return f"{plural(lost, 'GPU')} out; the job's other {gpus - lost} GPUs reach each other"


# The Ethernet card's value: what ECMP does for the job, where NMX would name a state.
ECMP_HEADLINE = {
    "update": "down for the update",
    "cut": "GPUs cut off",
    "static": "dead ports in use",
    "lost": "GPUs out",
    "short": "fewer ports",
    "whole": "all ports up",
}


def partition_title(mode: PartitionMode) -> str:
    """The partition card's title: NMX's partition, or Ethernet's ECMP which has none."""
    return "ECMP routing" if mode is PartitionMode.ECMP else "Partition"


def partition_now(mode: PartitionMode, state: str, headline: str) -> str:
    """The partition in one clause of the scenario's story: NMX's state and mode, or on
    Ethernet what ECMP does (it has no NMX state to name)."""
    if mode is PartitionMode.ECMP:
        return f"ECMP routing: {headline} (no NMX partition on Ethernet)"
    return f"partition {state} ({mode_name(mode)})"


def mode_name(mode: PartitionMode) -> str:
    """The partition's mode in the fabric's words: NMX's two, or Ethernet's none."""
    return {
        PartitionMode.ADAPTIVE: "adaptive-bandwidth mode",
        PartitionMode.FULL: "full-bandwidth mode",
        PartitionMode.ECMP: "ECMP: no NMX partition on Ethernet",
    }[mode]


def partition_note(mode: PartitionMode, explanation: str) -> str:
    """The partition card's note: the mode it runs in, then why it is in its state."""
    return f"{mode_name(mode)}; {explanation}"


# --- control plane ---------------------------------------------------------------------------
NO_RESILIENCE = "control-plane resilience is off"
NO_CONTROLLER_LEFT = "no healthy controller is left"


def control_healthy(leader: str, down: int) -> str:
    extra = f"; {plural(down, 'tray controller')} down, data plane untouched" if down else ""
    return f"leader on {leader}{extra}"


def control_distributed(down: tuple[str, ...]) -> str:
    """Ethernet's control plane: no leader to lose; a management controller down costs its
    switches' management, never a route."""
    note = "no central controller: every switch runs its own routing (BGP/ECMP) [A]"
    if down:
        note += f"; management of {', '.join(down)} down, the data plane routes on"
    return note


def control_trays_lost(leader: str, down: int, trays: str) -> str:
    return (
        f"leader on {leader}; {plural(down, 'tray controller')} down and control-plane resilience is "
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
    return f"{plural(n, 'GPU')} lost: {'its rank is' if n == 1 else 'their ranks are'} gone"


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


def reroutes(how: str, stall_s: float) -> str:
    """How a fabric routes around a dead link: 'NVLink 6 dynamic rerouting in about 1 ms'."""
    return f"{how} in {duration(stall_s)}"


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


def job_headline(state: JobState, kind: Restart, usable_gpus: int) -> str:
    """The job's one state as every card tells it (issue 28: one story): running, degraded,
    restarted on what remains, or stopped until something is back."""
    if state.runs:
        return str(state)
    return {
        Restart.AT_ONCE: f"restarted on {plural(usable_gpus, 'GPU')}",
        Restart.AFTER_REPAIR: f"{state} until repair",
        Restart.AFTER_CONTROLLER: f"{state} until the controller is back",
        Restart.AFTER_WINDOW: f"{state} for the update window",
        Restart.NONE: str(state),
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
        RepairAction.IN_SERVICE_UPDATE: f"in-service update, {_trays(subject)} one at a time",
        RepairAction.RESTORE_RACK: f"restore rack {subject} (power, cooling, its trays)",
        RepairAction.REPLACE_TRUNK: f"replace the trunk cables {subject}",
    }[action]


def _trays(subject: str) -> str:
    """'1 tray', '9 trays': the number of trays an update names (a count, as a string)."""
    return plural(int(subject), "tray") if subject.isdigit() else f"{subject} trays"


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
