"""evaluate(scenario) -> the result every view reads (JSON-ready, deterministic).

A serialisation of assess(scenario) (model/assess.py) and the figures built on it: nothing
here computes a state of its own. Each fabric kind writes its blocks in its own module (one
rack: rack.py, a multi-rack domain: domain.py, RoCE islands: islands.py); every result has
the same keys, RESULT_KEYS, absent blocks None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from model.evaluate import domain, islands, rack
from model.evaluate.rack import RESULT_KEYS, TELEMETRY_READ_S, scenario_block
from model.kinds import FabricKind
from model.scenario import Scenario

__all__ = ["RESULTS", "RESULT_KEYS", "TELEMETRY_READ_S", "evaluate", "scenario_block"]

# A fabric kind's result (the seam, model/registry.py): the two-tier domain model, the
# islands' data plane and decode, or one rack's.
RESULTS: Mapping[FabricKind, Callable[[Scenario], dict]] = MappingProxyType(
    {
        FabricKind.RACK: rack.evaluate_result,
        FabricKind.DOMAIN: domain.evaluate_result,
        FabricKind.ISLANDS: islands.evaluate_result,
    }
)


def evaluate(s: Scenario) -> dict:
    """Propagate the scenario's faults and compute every figure of the result."""
    r = RESULTS[s.kind](s)
    assert set(r) <= set(RESULT_KEYS), set(r) - set(RESULT_KEYS)
    return {k: r.get(k) for k in RESULT_KEYS}
