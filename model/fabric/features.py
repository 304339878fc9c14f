"""The seven NVLink 6 resiliency features (FACTS.md §3), each a switch, with per-fabric defaults."""

from __future__ import annotations

from dataclasses import dataclass

from model.kinds import Feature as F


@dataclass(frozen=True)
class FeatureInfo:
    """One resiliency feature: its switch, its name and what it does on and off."""

    key: F
    name: str
    on: str  # what the fabric does with it (FACTS.md §3, "on")
    off: str  # what a fabric without it does (FACTS.md §3, "off" [A])


FEATURES: tuple[FeatureInfo, ...] = (
    FeatureInfo(
        F.CP_RESILIENCE,
        "control-plane resilience",
        "a failed management controller hands over to a healthy peer; data plane untouched",
        "the lost controller's role is gone until it is repaired",
    ),
    FeatureInfo(
        F.PARTIAL_RACK,
        "operation with partially populated racks",
        "a missing or failed compute tray leaves a smaller, healthy domain",
        "any missing compute tray or GPU makes the partition UNHEALTHY until repaired",
    ),
    FeatureInfo(
        F.HOT_SWAP,
        "hot-swappable switch trays",
        "a failed switch tray is replaced while the rest runs (its planes down for the swap)",
        "replacing a switch tray takes the whole rack down for the swap",
    ),
    FeatureInfo(
        F.SDR_FALLBACK,
        "software-defined routing with management-controller fallback",
        "without a central controller, each healthy tray controller reroutes its own chips",
        "routes freeze while no central controller runs",
    ),
    FeatureInfo(
        F.REROUTE,
        "dynamic traffic rerouting",
        "a link, chip or tray fault is routed around; the job slows, it does not stop",
        "traffic on the dead plane hangs the collective: the job aborts and restarts",
    ),
    FeatureInfo(
        F.ISSU,
        "in-service software updates",
        "switch firmware is updated a tray at a time under traffic",
        "a switch update is a maintenance window for the whole rack",
    ),
    FeatureInfo(
        F.TELEMETRY,
        "fine-grained link telemetry",
        "per-link counters attribute a fault and flag a degrading link before it fails",
        "only up/down is seen: a degrading link is found when it fails",
    ),
)

FEATURE_KEYS: tuple[F, ...] = tuple(f.key for f in FEATURES)
assert FEATURE_KEYS == tuple(F), "FEATURES lists every feature of model/kinds.py, in order"

# Per-fabric defaults, and why (shown in the API and on screen).
DEFAULTS: dict[str, dict[str, tuple[bool, str]]] = {
    "vr-nvl72": {k: (True, "NVLink 6 ships it (seed article, FACTS.md §3)") for k in FEATURE_KEYS},
    "gb200-nvl72": {
        "cp-resilience": (
            True,
            "NetQ fails NMX-C/NMX-T over to an alternate management address (FACTS.md §2)",
        ),
        "partial-rack": (
            True,
            (
                "full-bandwidth mode parks lost GPUs; the rest keep full bandwidth: DEGRADED "
                "(FACTS.md §2)"
            ),
        ),
        "hot-swap": (False, "loss of a switch makes the partition UNHEALTHY (FACTS.md §2)"),
        "sdr-fallback": (False, "NMX-Controller is the only routing authority (FACTS.md §2)"),
        "reroute": (
            False,
            (
                "full-bandwidth mode, today's default: a missing link or switch is not routed "
                "around (FACTS.md §2)"
            ),
        ),
        "issu": (False, "switch firmware goes in through NVOS upgrades in a window [A]"),
        "telemetry": (
            False,
            (
                "DCGM has the counters, but health checks act only on link state; a degrading "
                "link is found when it fails (FACTS.md §3, the public GB200 case)"
            ),
        ),
    },
    "eth-x72": {
        "cp-resilience": (True, "no central controller: every switch runs its own routing [A]"),
        "partial-rack": (True, "Ethernet does not care about missing endpoints [A]"),
        "hot-swap": (True, "a switch is replaced while ECMP carries traffic elsewhere [A]"),
        "sdr-fallback": (True, "every switch routes for itself (BGP/ECMP) [A]"),
        "reroute": (True, "ECMP reconvergence, in seconds rather than milliseconds [A]"),
        "issu": (True, "rolling drain-and-reboot of one switch tray at a time [A]"),
        "telemetry": (True, "per-port FEC/CRC counters are standard on Ethernet switches [A]"),
    },
}


# Features a fabric lacks: a switch that means nothing there, and the one line why (issue 28).
# Ethernet has no central fabric manager (presets: fabric_manager=False), so there is no
# controller to hand over or to fall back from; the model never reads these two there.
LACKS: dict[str, dict[F, str]] = {
    "eth-x72": {
        F.CP_RESILIENCE: "no central controller to hand over: every switch routes for itself [A]",
        F.SDR_FALLBACK: (
            "no central controller to fall back from: every switch routes for itself (BGP/ECMP) [A]"
        ),
    },
}


def lacks(fabric_key: str) -> dict[F, str]:
    """The features the fabric lacks, each with why: nothing to switch there."""
    return LACKS.get(fabric_key, {})


def defaults_for(fabric_key: str) -> dict[str, tuple[bool, str]]:
    """The fabric's default table (on, why) per feature; vr-nvl72's for any other key."""
    return DEFAULTS.get(fabric_key, DEFAULTS["vr-nvl72"])


def default_features(fabric_key: str) -> frozenset[str]:
    """The features a fabric has on when the scenario says nothing."""
    return frozenset(k for k, (on, _why) in defaults_for(fabric_key).items() if on)


OWN = "vr-nvl72"  # the fabric whose seven features these are: each means what its name says


def meaning(fabric_key: str, key: F) -> str | None:
    """What the switch means on this fabric, in one line: that it lacks it and why, or what
    its default there stands for; None on the features' own fabric (issue 28: the boxes said
    nothing of what they mean on Ethernet and GB200)."""
    if fabric_key == OWN or fabric_key not in DEFAULTS:
        return None
    if key in lacks(fabric_key):
        return f"{fabric_key} has none: {lacks(fabric_key)[key]}"
    on, why = defaults_for(fabric_key)[key]
    return f"{fabric_key} has it: {why}" if on else f"off on {fabric_key} by default: {why}"


def fabric_row(fabric_key: str) -> str:
    """Where a fabric stands in the features table, which prices vr-nvl72's seven NVLink 6
    features (issue 28: on a GB200 or Ethernet page the table is not that fabric's own)."""
    if fabric_key == "vr-nvl72":
        return "vr-nvl72 ships all seven: its rows are this page's fabric, a feature less"
    if fabric_key not in DEFAULTS:
        return f"this page's fabric, {fabric_key}, is no row: the table prices one rack's"
    ships = [f.name for f in FEATURES if defaults_for(fabric_key)[f.key][0]]
    if fabric_key == "eth-x72":
        return (
            "this page's fabric is the row 'eth-x72, defaults': Ethernet has none of NVLink's "
            "features; its switches route for themselves (BGP/ECMP) in their place [A]"
        )
    return (
        f"this page's fabric is the row '{fabric_key}, defaults': it ships {len(ships)} of the "
        f"seven ({', '.join(ships)}); the rest are NVLink 6's"
    )
