"""Every state the code branches on, as a type (StrEnum: each member is also its JSON string).

Code compares members, never sentences; the sentences people read are written from these
in model/words.py. The string values are the ones the JSON API has always returned.
"""

from __future__ import annotations

from enum import StrEnum


class FabricKind(StrEnum):
    """The three kinds of fabric the twin models, each behind the same protocol
    (model/registry.py): a scenario's kind follows from its fabric's name (Scenario.kind)."""

    RACK = "rack"  # one NVL72-class rack (model/fabric)
    DOMAIN = "domain"  # racks joined by an L2 NVLink tier (model/multirack)
    ISLANDS = "islands"  # HGX islands on RoCE, the buyer's comparison (model/fabric/islands)


class ComponentKind(StrEnum):
    """What a component ID names (model/ids.py parses IDs into these)."""

    COMPUTE_TRAY = "compute-tray"
    GPU = "gpu"
    SWITCH_TRAY = "switch-tray"
    SWITCH_CHIP = "switch-chip"
    CONTROLLER = "controller"
    LINK = "link"
    CABLE = "cable"

    @property
    def data_plane(self) -> bool:
        """A part that carries traffic between GPUs (its loss needs a reroute)."""
        return self in _DATA_PLANE


_DATA_PLANE = frozenset(
    {ComponentKind.CABLE, ComponentKind.LINK, ComponentKind.SWITCH_CHIP, ComponentKind.SWITCH_TRAY}
)


class IslandKind(StrEnum):
    """Parts only an island fabric has (b200-roce, model/fabric/islands.py); its GPUs,
    switch chips and links are ComponentKinds."""

    NODE = "node"
    NIC = "nic"
    LEAF = "scale-out-switch"


class DomainKind(StrEnum):
    """What a multi-rack ID names beyond one rack's parts (model/multirack/domains.py)."""

    RACK = "rack"
    L2_CHIP = "l2-chip"
    L2_TRAY = "l2-tray"
    TRUNK = "trunk"

    @property
    def data_plane(self) -> bool:
        """Every one carries traffic between GPUs (a rack: its GPUs and L1 chips)."""
        return True


class Feature(StrEnum):
    """The seven resiliency features (FACTS.md §3), in the order the page lists them."""

    CP_RESILIENCE = "cp-resilience"
    PARTIAL_RACK = "partial-rack"
    HOT_SWAP = "hot-swap"
    SDR_FALLBACK = "sdr-fallback"
    REROUTE = "reroute"
    ISSU = "issu"
    TELEMETRY = "telemetry"


class PartitionState(StrEnum):
    """NMX-Manager's partition health (FACTS.md §2)."""

    HEALTHY = "HEALTHY"
    BANDWIDTH = "BANDWIDTH"
    DEGRADED = "DEGRADED"
    UNHEALTHY = "UNHEALTHY"


class PartitionMode(StrEnum):
    """How NMX runs the partition: rerouting around a loss, or parking GPUs that lack links."""

    ADAPTIVE = "adaptive-bandwidth"
    FULL = "full-bandwidth"
    ECMP = "ECMP"  # no NMX partition: a fabric with no fabric manager (Ethernet) routes by ECMP


class ControlState(StrEnum):
    """Who may program routes (model/fabric/control.py)."""

    HEALTHY = "healthy"
    FAILED_OVER = "failed-over"
    TRAYS_LOST = "trays-lost"  # the leader runs, but some trays' own control plane is gone
    LOCAL_FALLBACK = "local-fallback"
    FROZEN = "frozen"
    DISTRIBUTED = "distributed"  # no central fabric manager: every switch routes for itself

    @property
    def routes_stuck(self) -> bool:
        """Some tray's chips cannot be reprogrammed until a controller is back."""
        return self in (ControlState.TRAYS_LOST, ControlState.LOCAL_FALLBACK, ControlState.FROZEN)


class JobState(StrEnum):
    """What a job spanning the domain is doing now."""

    RUNNING = "running"
    DEGRADED = "degraded"
    ABORTED = "aborted"
    STOPPED = "stopped"

    @property
    def runs(self) -> bool:
        return self in (JobState.RUNNING, JobState.DEGRADED)


class Restart(StrEnum):
    """When a stopped job starts again."""

    NONE = "none"  # it did not stop
    AT_ONCE = "at-once"  # from its checkpoint, on the GPUs that remain
    AFTER_REPAIR = "after-repair"  # the partition is UNHEALTHY until the part is back
    AFTER_CONTROLLER = "after-controller"  # routes can be programmed again
    AFTER_WINDOW = "after-window"  # the maintenance window of a switch update


class RepairAction(StrEnum):
    """The service action a failed part (or an update) needs."""

    REPLACE_CARTRIDGE = "replace-cartridge"
    SWAP_SWITCH_TRAY = "swap-switch-tray"
    RESTART_CONTROLLER = "restart-controller"
    REPLACE_COMPUTE_TRAY = "replace-compute-tray"
    MAINTENANCE_UPDATE = "maintenance-update"
    IN_SERVICE_UPDATE = "in-service-update"
    RESTORE_RACK = "restore-rack"  # a multi-rack domain's whole rack (power, cooling)
    REPLACE_TRUNK = "replace-trunk"  # a trunk cable bundle between a rack and the L2 tier


class RepairMode(StrEnum):
    """How the repair is done: with the rack down, under traffic, or in place."""

    RACK_DOWN = "rack-down"
    HOT_SWAP = "hot-swap"
    IN_PLACE = "in-place"
    IN_SERVICE = "in-service"


class Meanwhile(StrEnum):
    """What the rack does until the repair is done."""

    DEGRADED = "runs degraded"
    DOWN = "down"
    WAITS_FOR_CONTROLLER = "down until the fabric controller is back, then runs degraded"
    UNTOUCHED = "data plane untouched"
    SMALLER = "the smaller domain runs"


class EventKind(StrEnum):
    """The steps of one fault's story (model/reliability/timeline.py)."""

    FAULT = "fault"
    RETRIES = "retries"
    CONTROL = "control"
    REROUTED = "rerouted"
    DEGRADED = "degraded"
    ABORTED = "aborted"
    LOST_WORK = "lost-work"
    RESTARTED = "restarted"
    WAITING = "waiting"
    DIAGNOSIS = "diagnosis"
    REPAIR = "repair"
    RESTORED = "restored"
