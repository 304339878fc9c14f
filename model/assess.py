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

A multi-rack domain (vr-nvl576, vr-nvl1152) is assessed by model/multirack/assess.py: each
rack's own faults through this module's single-rack pipeline (assess_rack), composed with the
L2 tier; assess(s) returns that DomainAssessment for a domain scenario.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from model.fabric import metrics
from model.fabric.fate import Job, Partition, Repair, job, partition, repairs, usable_mask
from model.fabric.presets import Fabric
from model.fabric.state import FabricState, build_state
from model.scenario import Scenario

if TYPE_CHECKING:
    from model.multirack.assess import DomainAssessment


@dataclass(frozen=True)
class Assessment:
    """Everything the model says about one scenario's fabric and job, computed once."""

    scenario: Scenario
    state: FabricState
    partition: Partition
    usable: np.ndarray  # bool[G], read-only: alive and not parked
    bandwidth: dict  # JSON-ready (model/fabric/metrics.py)
    job: Job
    repairs: tuple[Repair, ...]

    @property
    def fabric(self) -> Fabric:
        return self.state.fabric

    @property
    def gpus_in_service(self) -> int:
        """GPUs the job runs on now (or restarts on at once): alive and not parked."""
        return int(self.usable.sum())

    @cached_property
    def per_gpu_tbs(self) -> np.ndarray:
        return metrics.per_gpu_tbs(self.state)

    @property
    def worst_gpu_tbs(self) -> float:
        """The slowest GPU in service (collectives run at its pace); 0 with none."""
        return float(self.per_gpu_tbs[self.usable].min()) if self.usable.any() else 0.0

    @property
    def job_runs(self) -> bool:
        """The job runs now, or restarts at once on the GPUs that remain."""
        return self.job.runs

    def repair_of(self, component_id: str) -> Repair | None:
        return next((r for r in self.repairs if r.id == component_id), None)


def assess(s: Scenario) -> Assessment | DomainAssessment:
    """The scenario's fabric state, partition, usable GPUs, bandwidth, job and repairs.

    Pure and memoised: a Scenario is frozen and canonical (model/scenario.py), so equal
    scenarios share one Assessment; its arrays are read-only. A multi-rack domain gets its
    DomainAssessment (model/multirack/assess.py), which reads the same way.
    """
    if s.multirack:
        from model.multirack.assess import assess_domain  # composes assess_rack per rack

        return assess_domain(s)
    return assess_rack(s)


@lru_cache(maxsize=1024)
def assess_rack(s: Scenario) -> Assessment:
    """assess() of a single-rack scenario (a domain's racks each come through here)."""
    st = build_state(s)
    part = partition(st)
    usable = usable_mask(st, part)
    bw = metrics.bandwidth(st, usable)
    per = metrics.per_gpu_tbs(st)
    worst = float(per[usable].min()) if usable.any() else 0.0
    jb = job(st, part, usable, worst)
    return Assessment(s, st, part, usable, bw, jb, repairs(st, jb))
