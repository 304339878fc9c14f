"""The fabric-kind registry: one rack, a multi-rack domain and RoCE islands behind one seam.

A scenario's kind follows from its fabric's name (model/scenario.py: Scenario.kind, the
catalogue in fabric/presets, multirack/domains and fabric/islands). Each kind provides the
same small protocol, `Kind`, and every endpoint and panel reads a kind's behaviour from it
(`kind_of(s)`), never by branching on the fabric. The protocol is layered as the model is:
each layer declares its part as one table keyed by FabricKind, beside the code it dispatches
(assess: model/assess.py ASSESS; decode: workloads/throughput.py DECODE; collectives:
workloads/comm.py EP_FABRIC, JOB_FABRIC; reliability: reliability/by_kind.py RELIABILITY,
site.py, timeline.py; evaluate: evaluate/__init__.py RESULTS), so a lower layer never imports
this one; `Kind` gathers them, one object a kind. tests/model/test_registry.py checks that
every table covers every kind and that no module outside them branches on the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from model.assess import ASSESS, assess
from model.errors import ScenarioError
from model.evaluate import RESULTS
from model.fabric import metrics, topology
from model.fabric.presets import FABRICS
from model.kinds import FabricKind
from model.multirack import tiers
from model.multirack.domains import DOMAINS
from model.reliability.by_kind import RELIABILITY, ReliabilityKind
from model.scenario import Scenario, fabric_kind
from model.workloads.comm import EP_FABRIC, JOB_FABRIC
from model.workloads.throughput import DECODE, DecodeKind

__all__ = ["KINDS", "Kind", "kind_named", "kind_of"]


@dataclass(frozen=True)
class Kind:
    """What every endpoint and panel asks of a fabric kind."""

    kind: FabricKind
    noun: str  # what the whole is called: "rack", "domain", "island fabric"
    several_racks: bool  # racks joined by an L2 tier (a rack to show, trunks, L2 parts)
    drawn: bool  # the page draws it (an island fabric's answer is the API's only)
    assess: Callable[[Scenario], Any]  # its Assessment (or DomainAssessment)
    evaluate: Callable[[Scenario], dict]  # evaluate()'s result, before the common keys
    decode: DecodeKind  # the decode frontiers and evaluate()'s decode block
    ep_fabric: Callable[[Any, int], Any]  # the fabric an EP group's all-to-all crosses
    job_fabric: Callable[[Any, int], Any]  # the fabric a job's collective crosses
    reliability: ReliabilityKind  # goodput's unit, rates, delivered work, extra events
    latency: Callable[[Scenario], dict]  # the latency distribution of its state
    topology: Callable[[str], dict]  # every component of the fabric named, with its place


def _rack_latency(s: Scenario) -> dict:
    return metrics.latency_distribution(assess(s).state)


def _domain_latency(s: Scenario) -> dict:
    return tiers.latency_distribution(assess(s).state)


def _rack_topology(fabric: str) -> dict:
    return topology.topology(FABRICS[fabric])


def _domain_topology(fabric: str) -> dict:
    return topology.domain_topology(DOMAINS[fabric])


def _no_topology(fabric: str) -> dict:
    raise ScenarioError(
        f"{fabric} has no drawing to place its parts on: its data plane and decode are at "
        "/api/v1/evaluate and /api/v1/decode",
        token=fabric,
    )


def _kind(
    k: FabricKind,
    noun: str,
    several: bool,
    drawn: bool,
    latency: Callable[[Scenario], dict],
    topology: Callable[[str], dict],
) -> Kind:
    return Kind(
        k,
        noun,
        several,
        drawn,
        ASSESS[k],
        RESULTS[k],
        DECODE[k],
        EP_FABRIC[k],
        JOB_FABRIC[k],
        RELIABILITY[k],
        latency,
        topology,
    )


KINDS: Mapping[FabricKind, Kind] = MappingProxyType(
    {
        FabricKind.RACK: _kind(FabricKind.RACK, "rack", False, True, _rack_latency, _rack_topology),
        FabricKind.DOMAIN: _kind(
            FabricKind.DOMAIN, "domain", True, True, _domain_latency, _domain_topology
        ),
        FabricKind.ISLANDS: _kind(
            FabricKind.ISLANDS, "island fabric", False, False, _rack_latency, _no_topology
        ),
    }
)


def kind_of(s: Scenario) -> Kind:
    """The scenario's fabric kind and everything it provides."""
    return KINDS[s.kind]


def kind_named(fabric: str) -> Kind:
    """The kind a fabric's name registers (a fabric not in the catalogue reads as a rack's,
    and is refused by name where it is parsed)."""
    return KINDS[fabric_kind(fabric)]
