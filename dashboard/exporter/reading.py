"""What one scrape reads (dashboard/exporter/metrics.py's read): a scenario's telemetry snapshot
and fabric state at simulated time t_s, and the switch-side numbers more than one family
(dashboard/exporter/families.py) needs. Its own module, so the families and the exporter both
import it and neither the other."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from model import telemetry
from model.fabric.fate import Partition
from model.fabric.presets import Fabric
from model.fabric.state import FabricState
from model.ids import parse_id, plane_of


@dataclass(frozen=True)
class Reading:
    """One scenario read at simulated time t_s: its telemetry snapshot and fabric state, and
    the switch-side numbers more than one family needs (computed once, on first use)."""

    snap: telemetry.Counters
    state: FabricState
    partition: Partition
    rule: dict  # model.telemetry.health_rule at the same t_s
    prefix: str = ""  # a domain's rack read alone ("r03."): before every ID of its labels
    domain_key: str | None = None  # that domain's fabric key
    domain_scenario: str | None = None  # and its scenario

    @property
    def fabric(self) -> Fabric:
        return self.snap.fabric

    @cached_property
    def chip_up(self) -> np.ndarray:
        """bool[P]: the chip has not failed (a drained chip is up)."""
        return ~self.state.chip_failed

    @cached_property
    def flagged_windows(self) -> np.ndarray:
        """int[G*P]: the health rule's flagged windows among each link's last 30."""
        f = self.fabric
        out = np.zeros(f.gpus * f.planes, np.int64)
        for lid, n in self.rule["recent_windows"].items():
            c = parse_id(lid, f)
            out[c.nums[0] * f.planes + plane_of(f, c.nums[1], c.nums[2])] = n
        return out

    @cached_property
    def tray_up(self) -> np.ndarray:
        """bool[T]: some chip of the tray, or its controller, is up."""
        k = self.fabric.chips_per_tray
        return self.chip_up.reshape(-1, k).any(axis=1) | self.state.mc_alive
