"""assess() for a multi-rack domain: each rack's own assessment (model/assess.py), composed
with the L2 tier into one DomainAssessment that reads like one rack's Assessment.

    Scenario ─► rack Scenarios ─► assess_rack each (healthy racks share one) ─► DomainState
      (+ whole racks, L2 chips and trays, trunks, updates) ─► DomainPartition ─► usable GPUs
      ─► bandwidth (all-to-all under the trunk limit) ─► Job ─► Repairs

Memoised on the frozen Scenario; arrays read-only; states typed (model/kinds.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from model.fabric.fate import Job, Repair
from model.multirack import fate, tiers
from model.multirack.domains import Domain, parse_part, rack_id
from model.multirack.fate import DomainPartition
from model.multirack.state import DomainState, build_domain_state
from model.scenario import Scenario

# A trunk bundle's status (DomainAssessment.trunk_status): carrying traffic; failed; idle
# (an end out of service: its L1 or L2 chip, or its rack); flaky (degrading, still up).
TRUNK_STATUSES = ("up", "failed", "idle", "flaky")


@dataclass(frozen=True)
class DomainAssessment:
    """Everything the model says about one domain scenario, computed once."""

    scenario: Scenario
    state: DomainState
    partition: DomainPartition
    usable: np.ndarray  # bool[G], read-only: alive and not parked
    bandwidth: dict
    job: Job
    repairs: tuple[Repair, ...]

    @property
    def fabric(self) -> Domain:
        return self.state.domain

    @property
    def racks(self) -> tuple:
        """Each rack's own single-rack Assessment (local IDs); None for a lost rack."""
        return self.state.racks

    @property
    def gpus_in_service(self) -> int:
        return int(self.usable.sum())

    @cached_property
    def per_gpu_tbs(self) -> np.ndarray:
        """float[G]: each GPU's own bandwidth into its L1 chips, TB/s both ways."""
        return tiers.injection_tbs(self.state)

    @cached_property
    def a2a_gpu_tbs(self) -> np.ndarray:
        """float[G]: each GPU's all-to-all rate over the domain, under the trunk limit."""
        return tiers.a2a_gpu_tbs(self.state)

    @cached_property
    def trunk_status(self) -> np.ndarray:
        """int8[R, P, S]: each trunk bundle's status, its index in TRUNK_STATUSES."""
        st = self.state
        ends = st.l1_in_service[:, :, None] & st.l2_in_service[None, :, :]
        code = np.where(st.trunk_failed, 1, np.where(~ends, 2, np.where(st.trunk_flaky, 3, 0)))
        code = code.astype(np.int8)
        code.flags.writeable = False
        return code

    @property
    def worst_gpu_tbs(self) -> float:
        """The slowest GPU in service in a collective over the domain (trunk-limited)."""
        return float(self.a2a_gpu_tbs[self.usable].min()) if self.usable.any() else 0.0

    @property
    def job_runs(self) -> bool:
        return self.job.runs

    def repair_of(self, component_id: str) -> Repair | None:
        """The repair of a failed part; a part of a lost rack comes back with its rack's."""
        own = next((r for r in self.repairs if r.id == component_id), None)
        if own is not None or component_id not in self.scenario.fail:
            return own
        part = parse_part(component_id, self.fabric)
        if part.local is None or self.state.racks[part.rack] is not None:
            return None
        return next((r for r in self.repairs if r.id == rack_id(part.rack)), None)


@lru_cache(maxsize=512)
def assess_domain(s: Scenario) -> DomainAssessment:
    """The domain scenario's state, partition, usable GPUs, bandwidth, job and repairs."""
    st = build_domain_state(s)
    part = fate.partition(st)
    usable = st.gpu_alive.copy()
    usable[list(part.parked)] = False
    usable.flags.writeable = False
    a2a = tiers.a2a_gpu_tbs(st)
    bw = tiers.bandwidth(st, usable, a2a)
    worst = float(a2a[usable].min()) if usable.any() else 0.0
    jb = fate.job(st, part, usable, worst)
    return DomainAssessment(s, st, part, usable, bw, jb, fate.repairs(st, jb))


def build(domain: Domain, fail: list[str] | tuple[str, ...]) -> DomainState:
    """The state of `domain` with these parts failed (IDs as in fail=), every switch at its
    default: the assessment's own state (one propagation, model/multirack/state.py)."""
    parts = {t: parse_part(t, domain) for t in fail}  # ScenarioError names a bad token
    canon = tuple(sorted(parts, key=lambda t: parts[t].sort_key()))
    return assess_domain(Scenario(fabric=domain.key, fail=canon)).state
