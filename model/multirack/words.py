"""The sentences a multi-rack domain's model says, written from typed states (model/words.py
holds one rack's; nothing reads either back)."""

from __future__ import annotations

from model.words import plural


def global_home(leader: str) -> str:
    return f"global fabric manager on {leader} (the L2 tier and the routes between racks)"


def global_failed_over(home: str, leader: str) -> str:
    return (
        f"global fabric manager's home {home} has no controller; {leader} took the global role "
        "over (control-plane resilience across racks)"
    )


def global_local_fallback(home: str) -> str:
    return (
        f"no global fabric manager ({home} lost, control-plane resilience off): each L2 tray's "
        "controller routes its own chips (software-defined routing fallback)"
    )


def global_frozen(home: str) -> str:
    return (
        f"no global fabric manager ({home} lost, control-plane resilience and routing fallback "
        "off): the L2 tier's routes are frozen; a fault between racks cannot be routed around"
    )


def control(why: str, racks: list[str]) -> str:
    return why + ("; " + "; ".join(racks) if racks else "")


def racks_lost(n: int, partial: bool, gpus_left: int) -> str:
    if partial:
        return f"{plural(n, 'rack')} out: the domain runs smaller, on {gpus_left} GPUs"
    return f"{plural(n, 'rack')} out and partial-rack operation is off: the partition cannot form"


def domain_shrinks(gpus_left: int) -> str:
    """Said once after the racks' own words, so the domain's size is never a rack's."""
    return f"the domain shrinks to {gpus_left} GPUs"


def rack_says(rack: str, explanation: str) -> str:
    return f"{rack}: {explanation}"


def l2_out_full_mode(n: int) -> str:
    """Said after the mode ('full-bandwidth mode: ...'), so it does not name it again."""
    return (
        f"{n} L2 {'chip or trunk bundle' if n == 1 else 'chips or trunk bundles'} out: NMX calls "
        "the loss of a switch or trunk UNHEALTHY"
    )


def trunks_missing(planes: int) -> str:
    return (
        f"trunk capacity missing on {plural(planes, 'plane')} between racks (L2 chips or trunk bundles "
        "out): every GPU still reaches every other, across racks at reduced bandwidth "
        "(NMX's BANDWIDTH state)"
    )


UNREACHABLE_ACROSS = (
    "some GPU pairs in different racks share no plane with an L2 path: they cannot reach"
)
MAINTENANCE_L2 = (
    "L2 tray update with in-service updates off: the domain goes into a maintenance window"
)
NO_REROUTE_L2 = (
    "dynamic rerouting is off: traffic through the lost L2 chip or trunk hangs the collective"
)
L2_ROUTES_STUCK = (
    "the L2 tier has no routing authority: the fault between racks cannot be routed around"
)


def rack_fault(rack: str, gpus: int) -> str:
    return f"{rack} lost: its {gpus} GPUs and its L1 switch chips go with it"


def gone_with_rack(cid: str, rack: str) -> str:
    return f"{cid} lost with its rack {rack}: the rack's repair brings it back"


def l2_chip_fault(cid: str, plane: int, left: int, s: int) -> str:
    return (
        f"{cid} lost: plane {plane} keeps {left} of {s} L2 chips; its traffic between racks "
        f"moves to them ({left}/{s} of the plane's trunks)"
    )


def l2_tray_fault(cid: str, planes: str, s: int) -> str:
    return f"{cid} lost: 4 L2 chips, 1 of {s} in each of planes {planes}"


def trunk_fault(cid: str, s: int) -> str:
    return f"trunk bundle {cid} down: its L1 chip keeps {s - 1} of {s} trunk bundles"


def update_sentence(tray: str, rolling: int | None) -> str:
    roll = f" (rolling update: 1 of {rolling} trays of the domain at a time)" if rolling else ""
    return f"{tray} drained for an in-service update: its planes carry no traffic{roll}"
