"""assess(scenario): the one pipeline every answer is read from.

    Scenario ─► FabricState ─► Partition ─► usable GPUs ─► bandwidth ─► Job ─► Repairs
                (faults,        (NMX         (alive, not    (per GPU,     (state,   (action,
                 control plane)  health)      parked)        all-to-all)   restart)  meanwhile)

Built once per scenario (memoised on the frozen, canonical Scenario) and returned frozen.
evaluate, decode, training, goodput, the timeline, telemetry and /metrics all read it; none
of them rebuilds the state. Where two of them need the same derived number, it is a
property here (GPUs in service, the worst GPU's bandwidth, whether the job runs) or one
function beside the work it needs (model/workloads/throughput.py: the delivered fraction
and tokens per second; model/reliability/goodput.py: the checkpoint interval).

One rack is assessed by model/fabric/assess.py (Assessment, assess_rack); a multi-rack domain
(vr-nvl576, vr-nvl1152) by model/multirack/assess.py: each rack's own faults through the
single-rack pipeline, composed with the L2 tier; assess(s) returns that DomainAssessment for a
domain scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from model.fabric.assess import Assessment, assess_rack
from model.kinds import FabricKind
from model.multirack.assess import DomainAssessment, assess_domain
from model.scenario import Scenario

__all__ = ["Assessment", "DomainAssessment", "assess", "assess_rack"]


def assess(s: Scenario) -> Assessment | DomainAssessment:
    """The scenario's fabric state, partition, usable GPUs, bandwidth, job and repairs.

    Pure and memoised: a Scenario is frozen and canonical (model/scenario.py), so equal
    scenarios share one Assessment; its arrays are read-only. A multi-rack domain gets its
    DomainAssessment (model/multirack/assess.py), which reads the same way.
    """
    return ASSESS[s.kind](s)


# A fabric kind's assessment (the seam, model/registry.py). A domain's composes assess_rack
# per rack; an island fabric has none (its data plane is model/fabric/islands.py), and
# assess_rack refuses it naming what it models (Scenario.spec).
ASSESS: Mapping[FabricKind, Callable[[Scenario], Assessment | DomainAssessment]] = MappingProxyType(
    {
        FabricKind.RACK: assess_rack,
        FabricKind.DOMAIN: assess_domain,
        FabricKind.ISLANDS: assess_rack,
    }
)
