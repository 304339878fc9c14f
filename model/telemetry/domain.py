"""Telemetry of a multi-rack domain (vr-nvl576, vr-nvl1152): each rack's own snapshot (its
DCGM, NVML and switch-tray counters, as that rack's exporters report them, IDs local to the
rack) and the domain's tier that no rack reports alone: the trunk bundles between every
rack's L1 chips and the L2 chips, and the L2 chips themselves (docs/TELEMETRY.md §9).

Everything is read from the domain's one assessment (model/multirack/assess.py): a rack's
snapshot is model.telemetry.counters of that rack's own scenario; a lost rack reports
nothing (None). A trunk bundle is up when it has not failed and both its ends are in service
(its L1 chip's rack alive and that chip not failed, its L2 chip not failed) [A]; a degrading
bundle (flaky=) is visible only with fine-grained telemetry on, as a degrading link is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.assess import assess
from model.ids import chip_id
from model.multirack.domains import Domain, l2_id, rack_id, trunk_id
from model.scenario import Scenario
from model.telemetry.lanes import check_t
from model.telemetry.snapshot import Counters, counters


@dataclass(frozen=True)
class DomainCounters:
    """A domain's telemetry at simulated time t_s: arrays [R, P] per L1 chip, [R, P, S] per
    trunk bundle, [P, S] per L2 chip, [R] per rack."""

    domain: Domain
    scenario_key: str
    t_s: float
    telemetry: bool
    racks: tuple[Counters | None, ...]  # each rack's own snapshot; None: the rack is lost
    rack_up: np.ndarray  # bool[R]
    l1_up: np.ndarray  # bool[R, P]: the L1 chip has not failed (a drained chip is up)
    l1_drained: np.ndarray  # bool[R, P]: drained on purpose (an update)
    trunk_up: np.ndarray  # bool[R, P, S]
    trunk_degrading: np.ndarray  # bool[R, P, S]: a flaky bundle, seen (telemetry on)
    l2_up: np.ndarray  # bool[P, S]
    l2_drained: np.ndarray  # bool[P, S]

    def to_json(self) -> dict:
        """JSON-ready: the tier by ID (what is down, drained or degrading) and every GPU's
        fabric health over the domain (0 for a lost rack's GPUs); each rack's own counters
        are the single-rack JSON of that rack (rack= in /api/v1/telemetry)."""
        d = self.domain

        def ids(mask: np.ndarray, name) -> list[str]:
            return [name(*map(int, ix)) for ix in zip(*np.nonzero(mask), strict=True)]

        zeros = np.zeros(d.rack.gpus, np.int64)
        health = {
            k: np.concatenate(
                [zeros if x is None else getattr(x.health, k).astype(np.int64) for x in self.racks]
            ).tolist()
            for k in ("state", "mask", "summary")
        }
        return {
            "fabric": d.key,
            "key": self.scenario_key,
            "t_s": self.t_s,
            "telemetry": self.telemetry,
            "racks": [rack_id(r) for r in range(d.racks)],
            "racks_down": ids(~self.rack_up, rack_id),
            "l1_chips_down": ids(
                ~self.l1_up & self.rack_up[:, None],
                lambda r, p: f"{rack_id(r)}.{chip_id(d.rack, p)}",
            ),
            "l1_chips_drained": ids(
                self.l1_drained, lambda r, p: f"{rack_id(r)}.{chip_id(d.rack, p)}"
            ),
            "trunks_down": ids(~self.trunk_up, lambda r, p, k: trunk_id(d, r, p, k)),
            "trunks_degrading": ids(self.trunk_degrading, lambda r, p, k: trunk_id(d, r, p, k)),
            "l2_chips_down": ids(~self.l2_up, l2_id),
            "l2_chips_drained": ids(self.l2_drained, l2_id),
            "fabric_health": health,
        }


def domain_counters(s: Scenario, t_s: float) -> DomainCounters:
    """The domain's telemetry at simulated time t_s, from its one assessment."""
    t = check_t(t_s)
    a = assess(s)
    st, d = a.state, a.fabric
    snaps = tuple(None if ra is None else counters(ra.scenario, t) for ra in st.racks)
    r_n, p_n = d.racks, d.planes
    l1_up = np.zeros((r_n, p_n), bool)
    drained = np.zeros((r_n, p_n), bool)
    for r, ra in enumerate(st.racks):
        if ra is not None:
            l1_up[r] = ~ra.state.chip_failed
            drained[r] = snaps[r].planned
    l2_up = ~st.l2_failed
    trunk_up = ~st.trunk_failed & l1_up[:, :, None] & l2_up[None, :, :]
    seen = "telemetry" in st.features
    return DomainCounters(
        domain=d,
        scenario_key=s.key(),
        t_s=t,
        telemetry=seen,
        racks=snaps,
        rack_up=~st.racks_lost,
        l1_up=l1_up,
        l1_drained=drained,
        trunk_up=trunk_up,
        trunk_degrading=st.trunk_flaky & trunk_up if seen else np.zeros_like(trunk_up),
        l2_up=l2_up,
        l2_drained=st.l2_drained.copy(),
    )
