"""One rack's assessment: the pipeline of model/assess.py for a single NVL72 (or any one-rack
fabric), and the Assessment every reader takes its facts from.

    Scenario ─► FabricState ─► Partition ─► usable GPUs ─► bandwidth ─► Job ─► Repairs

A multi-rack domain's racks each come through assess_rack too (model/multirack/state.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from model.fabric import metrics
from model.fabric.fate import Job, Partition, Repair, job, partition, repairs, usable_mask
from model.fabric.presets import Fabric
from model.fabric.state import FabricState, build_state
from model.fabric.status import RackStatus, rack_status
from model.scenario import Scenario


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

    @cached_property
    def status(self) -> RackStatus:
        """Every part's status (fabric/status.py): what the drawing and the labels show."""
        return rack_status(self.scenario, self.state, self.per_gpu_tbs)

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
