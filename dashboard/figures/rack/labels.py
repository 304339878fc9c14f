"""What the rack's hover labels say about a part: its state in the scenario on show (failed,
degrading, rerouted, healthy, ...) and what a click will do in the current click mode
("click to fail", "click to repair", "click to mark flaky", "click to inspect").

The words are written here from the cable statuses and part states overlay.py computes
(STATUSES, PART_STATES); nothing reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from model.kinds import ComponentKind as K
from model.scenario import Scenario

CABLE_STATE_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "failed": "failed",
        "drained": "drained (switch update)",
        "flaky": "degrading (flaky)",
        "idle": "idle (its link is down)",
        "rerouted": "rerouted (its GPU lost bandwidth)",
        "healthy": "healthy",
    }
)
# by CABLE_LEVELS (geometry.py): the statuses, a rerouted cable by its GPU's loss band
CABLE_LEVEL_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "healthy": CABLE_STATE_WORDS["healthy"],
        **{
            f"rerouted {b}": f"rerouted (its GPU lost {b} of its bandwidth)"
            for b in ("under 10%", "10 to 33%", "over a third")
        },
        **{s: CABLE_STATE_WORDS[s] for s in ("idle", "drained", "flaky", "failed")},
    }
)


def lost_words(share: float) -> str:
    """A lost share of bandwidth as people write it: 'lost 2.8% of its bandwidth'."""
    return f"lost {100 * share:.2g}% of its bandwidth"


# by PART_STATES (geometry.py): ok, rerouted, idle, flaky, drained, failed
PART_STATE_WORDS = (
    "healthy",
    "rerouted (lost bandwidth)",
    "idle (carries nothing)",
    "degrading (a flaky link)",
    "drained (switch update)",
    "failed",
)
NOT_FLAKY = "a click does nothing: only links and cables can be flaky"


def action(s: Scenario, cid: str, kind: K, failed: bool, mode: str) -> str:
    """What a click on this part does in this click mode, in words."""
    if mode == "inspect":
        return "click to inspect"
    if mode == "flaky":
        if kind not in (K.LINK, K.CABLE):
            return NOT_FLAKY
        return "click to clear flaky" if cid in s.flaky else "click to mark flaky"
    if cid in s.fail:
        return "click to repair"
    return "click to fail it too" if failed else "click to fail"


def label(s: Scenario, cid: str, kind: K, state: str, failed: bool, mode: str) -> str:
    """One line: the state in bold, then the click's effect."""
    return f"<b>{state}</b> · {action(s, cid, kind, failed, mode)}"
