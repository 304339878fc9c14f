"""A fabric kind's part of reliability (the seam, model/registry.py): what goodput counts a
year over, the rate of work a scenario delivers, the healthy rate, the order of its fault
IDs, and the kinds of event only that kind has.

One rack's come from model/workloads/throughput.py; a domain's from
model/reliability/domain.py. An island fabric has no reliability model: its scenarios are
refused before they reach here (Scenario.spec), so it reads as one rack would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from model.fabric.presets import VR_NVL72
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS, parse_part
from model.reliability import domain
from model.reliability.rates import DOMAIN_ONLY_FIELDS
from model.scenario import Scenario
from model.workloads import throughput


@dataclass(frozen=True)
class ReliabilityKind:
    """What reliability asks of a fabric kind."""

    unit: str  # what a lifetime is counted over: one rack, or one domain
    delivered: Callable[[Scenario], float]  # the degraded rate now / the healthy one
    healthy_tokens_per_s: Callable[[Scenario], float]  # goodput's full rate
    fail_order: Callable[[Scenario, Iterable[str]], tuple[str, ...]]  # canonical fail= order
    extra_effects: Callable[..., list[Any]]  # kinds of event only this fabric kind has
    own_rates: tuple[str, ...]  # failure rates only this kind has (Rates fields)
    own_features: bool  # its seven features are priced on itself (else on vr-nvl72's)
    policy_in_chunks: bool  # the repair-policy optimiser splits into one chunk a candidate
    scales: tuple[tuple[int, bool], ...]  # what the feature values are priced at (units, spares)
    unit_gpus: Callable[[str], int]  # the GPUs of one unit of the fabric named

    def features_fabric(self, s: Scenario) -> str:
        """Whose seven features a comparison of s prices: a domain's own, or NVLink 6's
        (one rack's features are those of vr-nvl72, beside gb200-nvl72 and eth-x72)."""
        return s.fabric if self.own_features else VR_NVL72.key


RACK_GPUS = 72  # every preset in the comparison (FACTS.md §1)
# The Must-show's scales (1 rack; 2,000 racks with spares); a domain's: one 576- or 1,152-GPU
# domain.
RACK_SCALES: tuple[tuple[int, bool], ...] = ((1, False), (2_000, True))
DOMAIN_SCALES: tuple[tuple[int, bool], ...] = ((1, False),)


def _rack_order(s: Scenario, ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids))


def _domain_order(s: Scenario, ids: Iterable[str]) -> tuple[str, ...]:
    d = DOMAINS[s.fabric]
    return tuple(sorted(set(ids), key=lambda t: parse_part(t, d).sort_key()))


def _none(*_: Any) -> list[Any]:
    return []


_RACK = ReliabilityKind(
    "rack",
    throughput.delivered_fraction,
    throughput.healthy_tokens_per_s,
    _rack_order,
    _none,
    (),
    False,
    True,
    RACK_SCALES,
    lambda fabric: RACK_GPUS,
)

RELIABILITY: MappingProxyType[FabricKind, ReliabilityKind] = MappingProxyType(
    {
        FabricKind.RACK: _RACK,
        FabricKind.DOMAIN: ReliabilityKind(
            "domain",
            domain.delivered,
            domain.healthy_tokens_per_s,
            _domain_order,
            domain.extra_effects,
            DOMAIN_ONLY_FIELDS,
            True,
            False,  # a domain's optimiser stays whole (reliability/chunks.py: one rack's)
            DOMAIN_SCALES,
            lambda fabric: DOMAINS[fabric].gpus,
        ),
        FabricKind.ISLANDS: _RACK,
    }
)
