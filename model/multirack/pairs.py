"""Pair capacity on a multi-rack domain: what one GPU can send another, alone on the fabric.

The fast path beside tiers.plane_rates (the all-to-all under the trunk limit). Planes are
independent, so a pair's capacity is a sum over planes. In plane p, a pair in one rack meets
at its L1 chip: one link, if both GPUs' plane-p links are up. A pair in two racks goes up
from its L1 chip to the plane's L2 chips and down to the other rack's L1 chip (up-down
routing: never down and up again through a third rack), so plane p carries
min(one link, sum over L2 chips s of min(T[ra, p, s], T[rb, p, s])), T the trunks in service
between L1 chip (r, p) and L2 chip (p, s) in links' worth. With one L2 chip of the plane
and its two bundles up that is one link (a bundle is 72 / S >= 9 trunks); with none,
nothing. A flaky link or bundle delivers its efficiency.

model/multirack/oracle.py computes the same as a max flow on the two-tier graph.
"""

from __future__ import annotations

import numpy as np

from model.multirack.domains import TRUNKS_PER_L1
from model.multirack.state import DomainState
from model.params import FLAKY_LINK_EFFICIENCY


def trunk_links(st: DomainState) -> np.ndarray:
    """float[R, P, S]: trunks in service between L1 chip (r, p) and L2 chip (p, s), in links'
    worth: the 72 / S of the bundle each L1 chip has to each L2 chip of its plane, 0 when
    either chip is out of service or the bundle failed, at its efficiency when flaky (the
    same share state.trunk_share sums)."""
    d = st.domain
    per_pair = TRUNKS_PER_L1 / d.l2_per_plane
    ok = st.l1_in_service[:, :, None] & st.l2_in_service[None, :, :] & ~st.trunk_failed
    eff = np.where(st.trunk_flaky, FLAKY_LINK_EFFICIENCY, 1.0)
    return np.where(ok, per_pair * eff, 0.0)


def pair_capacity_tbs(st: DomainState, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float[n]: bidirectional TB/s GPU a[i] can send GPU b[i] with nothing else running (0
    for a GPU with itself, or one out of service)."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    link = st.domain.rack.link_gbs_bidir / 1000.0
    rack = st.rack_of
    ends = np.minimum(st.efficiency[a], st.efficiency[b])  # [n, P]: the weaker of two links
    cross = rack[a] != rack[b]
    if cross.any():  # through L2: once per pair of racks, not per pair of GPUs
        t = trunk_links(st)
        keys, inv = np.unique(
            rack[a][cross] * st.domain.racks + rack[b][cross], return_inverse=True
        )
        ra, rb = np.divmod(keys, st.domain.racks)
        via_l2 = np.minimum(t[ra], t[rb]).sum(axis=2)  # [pairs of racks, P] links' worth
        ends[cross] = np.minimum(ends[cross], via_l2[inv.ravel()])
    cap = ends.sum(axis=1) * link
    return np.where(a == b, 0.0, cap)
