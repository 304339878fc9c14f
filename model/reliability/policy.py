"""Repair policies (issue 14): when a part that the job can run without is repaired.

`repair=now` (the default): every repair visit happens when its part is on site. A visit is a
planned stop at the end of a fault's repair with the rack down: a spine cable cartridge swap,
a switch tray swapped with the rack down. `repair=window-N`: those visits wait for a planned
window every N days; the job runs as it does meanwhile (rerouted, or on the GPUs that
remain: the fault's own slowdown, from the step model or decode, not a separate constant),
and every visit pending at a window is done in one rack-down, as long as the longest of them.
Faults that stop the job until they are repaired are never deferred.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from model.errors import ScenarioError
from model.reliability.effects import REPAIR_WAIT, Effect, Stop
from model.scenario import MAX_WINDOW_DAYS

WINDOW_CANDIDATES_DAYS = (1, 2, 3, 7, 14, 30, 60, 90, 180, 365)  # what the optimiser tries


@dataclass(frozen=True)
class RepairPolicy:
    """A parsed repair policy: at once, or a planned window every `window_days` days."""

    window_days: int | None = None

    @property
    def text(self) -> str:
        """As written in repair= (the canonical form)."""
        return "now" if self.window_days is None else f"window-{self.window_days}"


def parse_policy(text: str) -> RepairPolicy:
    """'now' or 'window-N' (the scenario parser has checked it); ScenarioError otherwise."""
    if text == "now":
        return RepairPolicy()
    head, _, days = text.partition("-")
    if head != "window" or not days.isdigit() or not 1 <= int(days) <= MAX_WINDOW_DAYS:
        raise ScenarioError(f"repair '{text}' is not a policy (now or window-N)", token="repair")
    return RepairPolicy(int(days))


def _is_visit(st: Stop) -> bool:
    """A repair visit: the rack down for a swap at the end of a repair the job ran through."""
    return st.planned and st.offset_h > 0.0 and st.wait_h > 0.0


def apply_policy(eff: tuple[Effect, ...], policy: RepairPolicy) -> tuple[Effect, ...]:
    """The events under the policy: each deferred visit's part waits on site for the next
    window (half a window on average), and the windows with any visit pending are planned
    rack-downs of their own.

    While parts wait the job runs at the pace of its worst GPU (collectives are gated by
    it), so what deferral costs is the fault's slowdown for as long as at least one part is
    waiting, not the sum over parts: each waits half a window on average and parts arrive as
    Poisson processes, so the number waiting at a moment is Poisson with mean
    rate x window / 2 (rate-weighted slowdown of the deferred kinds).
    """
    if policy.window_days is None:
        return eff
    window_h = policy.window_days * 24.0
    out: list[Effect] = []
    deferred_rate, slowed, longest, restart_h = 0.0, 0.0, 0.0, 0.0
    for e in eff:
        visits = [st for st in e.stops if _is_visit(st)]
        if not visits or e.rate_per_h <= 0.0:
            out.append(e)
            continue
        out.append(replace(e, stops=tuple(st for st in e.stops if not _is_visit(st))))
        deferred_rate += e.rate_per_h
        slowed += e.rate_per_h * e.running_slowdown
        longest = max(longest, *(st.wait_h for st in visits))
        restart_h = max(restart_h, *(st.restart_h for st in visits))
    if deferred_rate > 0.0:
        pending = -math.expm1(-deferred_rate * window_h)  # P(a window has a visit to do)
        out.append(
            Effect(
                "planned repair window",
                pending / window_h,
                (Stop(0.0, True, longest, REPAIR_WAIT, restart_h),),
                0.0,
            )
        )
        waiting = -math.expm1(-deferred_rate * window_h / 2.0)  # P(a part is waiting)
        # one event an hour carrying that hour's share (the Monte Carlo adds it per event)
        out.append(
            Effect("parts waiting for the window", 1.0, (), waiting * slowed / deferred_rate)
        )
    return tuple(out)


def rack_down_visits_per_h(eff: tuple[Effect, ...]) -> float:
    """How often the rack is taken down (a stop that waits with the rack idle), per hour."""
    return sum(e.rate_per_h * sum(st.wait_h > 0.0 for st in e.stops) for e in eff)
