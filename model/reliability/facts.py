"""What the story of one fault reads from the model (model/reliability/timeline.py tells it):
the same facts for a rack's fault (timeline._rack_facts) and a domain's
(model/reliability/domain_story.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from model.params import CONTROLLER_RESTART_H
from model.scenario import Scenario


@dataclass(frozen=True)
class FaultFacts:
    """What the story of one fault reads from the model, for a rack or a domain alike."""

    kind: str  # the fault's ComponentKind or DomainKind
    data: bool  # a data-plane part (its loss needs a reroute)
    controller: bool  # a management controller: control plane only
    sentence: str
    a: object  # the Assessment (or DomainAssessment) with the fault
    before: float  # delivered fraction without the fault
    after: float  # and with it
    aborted: bool  # this fault (not an older one) aborts the job
    stall_s: float
    reroute_how: str
    control_explanation: str
    whole_tray: Callable[[], float]  # delivered with the part's whole switch tray out
    controller_back: Callable[[], tuple[float, float]]  # when routes are back, and the level
    visit_wait_s: float  # a deferring repair policy's mean wait for the visit
    interval_s: Callable[[], float]  # the scenario's own checkpoint interval
    whole: str = "rack"  # what the job spans: the rack, or the domain


def routes_back(
    s: Scenario,
    fixes: Iterable[Any],
    routable: Callable[[tuple[str, ...]], bool],
    delivered: Callable[[tuple[str, ...]], float],
) -> tuple[float, float]:
    """When routes can be programmed again (s from the fault) and what the job delivers then,
    for a rack or a domain alike: the repairs that bring a routing authority back (`fixes`:
    controller restarts, switch-tray swaps, racks restored) are done soonest first until,
    with the faults left, no plane is left that nobody can reroute (`routable`)."""
    gone: set[str] = set()
    wait_h = CONTROLLER_RESTART_H
    for r in sorted(fixes, key=lambda r: r.repair_h):
        gone.add(r.id)
        wait_h = r.repair_h
        if routable(_left(s, gone)):
            break
    return wait_h * 3600.0, delivered(_left(s, gone))


def _left(s: Scenario, gone: set[str]) -> tuple[str, ...]:
    return tuple(x for x in s.fail if x not in gone)
