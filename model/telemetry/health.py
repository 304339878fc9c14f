"""Each GPU's NVML fabric health (state, health mask, summary), emulated from its links: what
nvidia-smi -q's Fabric section and DCGM_FI_DEV_FABRIC_HEALTH_MASK / _SUMMARY show
(docs/TELEMETRY.md §4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.telemetry.fields import (
    ACTIVE,
    FABRIC_STATE_COMPLETED,
    FABRIC_STATE_NOT_STARTED,
    MASK_FALSE,
    MASK_SHIFTS,
    MASK_TRUE,
    SUMMARY_HEALTHY,
    SUMMARY_LIMITED,
    SUMMARY_UNHEALTHY,
)
from model.telemetry.lanes import (
    LaneModel,
)


@dataclass(frozen=True)
class FabricHealth:
    """Each GPU's NVML fabric info as nvidia-smi -q shows it: state, health mask, summary."""

    state: np.ndarray  # int8[G]: NVML_GPU_FABRIC_STATE_* (3 COMPLETED, 1 NOT_STARTED)
    mask: np.ndarray  # int64[G]: DCGM_FI_DEV_FABRIC_HEALTH_MASK (2 bits a condition)
    summary: np.ndarray  # int8[G]: DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY (0 n/a, 1, 2, 3)

    def condition(self, name: str) -> np.ndarray:
        """int[G]: one mask field (0 NOT_SUPPORTED, 1 TRUE, 2 FALSE), e.g. 'DEGRADED_BW'."""
        return (self.mask >> MASK_SHIFTS[name]) & 3


def fabric_health(m: LaneModel, state: np.ndarray) -> FabricHealth:
    """Emulate each GPU's fabric health from its links (state int8[G, P]).

    DEGRADED_BW is TRUE when some link of a live GPU is not ACTIVE (it runs below full
    bandwidth). ROUTE_UNHEALTHY is TRUE for such a GPU when dynamic rerouting is off [A]: its
    routes still point at the dead link until the fabric manager reprograms them. Route
    recovery and access-timeout recovery are transient states the steady-state model never
    shows: FALSE. A GPU that is gone reports nothing: state NOT_STARTED, mask 0, summary 0.
    The summary follows the conditions: Healthy, Limited Capacity when the bandwidth alone is
    degraded, Unhealthy otherwise.
    """
    alive = m.gpu_alive
    degraded = alive & (state != ACTIVE).any(axis=1)
    unhealthy = degraded & (not m.reroute)
    cond = {
        "DEGRADED_BW": np.where(degraded, MASK_TRUE, MASK_FALSE),
        "ROUTE_RECOVERY": np.full(alive.shape, MASK_FALSE),
        "ROUTE_UNHEALTHY": np.where(unhealthy, MASK_TRUE, MASK_FALSE),
        "ACCESS_TIMEOUT_RECOVERY": np.full(alive.shape, MASK_FALSE),
    }
    mask = np.zeros(alive.shape, np.int64)
    for name, v in cond.items():
        mask |= v.astype(np.int64) << MASK_SHIFTS[name]
    summary = np.where(
        unhealthy, SUMMARY_UNHEALTHY, np.where(degraded, SUMMARY_LIMITED, SUMMARY_HEALTHY)
    )
    return FabricHealth(
        state=np.where(alive, FABRIC_STATE_COMPLETED, FABRIC_STATE_NOT_STARTED).astype(np.int8),
        mask=np.where(alive, mask, 0),
        summary=np.where(alive, summary, 0).astype(np.int8),
    )
