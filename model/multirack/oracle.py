"""The two-tier domain as networkx graphs: the oracle the fast path (tiers.py, pairs.py) is
tested against.

Built from the scenario's fail list on its own (not from tiers.build): failed parts remove
nodes and edges. One small directed graph a plane, as planes share no switch: GPU senders
`("tx", g)` feed their rack's L1 chip, which switches to its own GPUs' receivers
`("rx", g)` or sends up its trunks to the plane's L2 chips `("l2", s)`; an L2 chip sends
down to every rack's L1 chip. An L1 chip is split into its up side `("up", r)` and its down
side `("dn", r)`, so a route goes up once and down once (up-down routing, as the fast path
assumes; no flow turns back up through a third rack). Capacities are in links' worth of one
direction: a GPU link carries 1, an L1-L2 pair 72 / S trunks.
"""

from __future__ import annotations

import networkx as nx
from networkx.algorithms.flow import edmonds_karp

from model.ids import plane_of
from model.multirack.domains import TRUNKS_PER_L1, Domain, parse_part


class DomainGraph:
    """What is dead in a domain, read from the fail list; plane graphs built on request."""

    def __init__(self, domain: Domain, fail: list[str]) -> None:
        self.domain = domain
        f = domain.rack
        self.dead_gpus: set[int] = set()
        self.dead_l1: set[tuple[int, int]] = set()  # (rack, plane)
        self.dead_l2: set[tuple[int, int]] = set()  # (plane, index)
        self.dead_links: set[tuple[int, int]] = set()  # (gpu, plane)
        self.dead_trunks: set[tuple[int, int, int]] = set()  # (rack, plane, L2 index)
        k = f.chips_per_tray
        for token in fail:
            part = parse_part(token, domain)
            if part.l2 is not None:
                self.dead_l2.add(part.l2)
                continue
            if part.l2_tray is not None:  # index s of 4 planes, n - 1 = block x S + s
                block, s = divmod(part.l2_tray - 1, domain.l2_per_plane)
                self.dead_l2.update((block * k + j, s) for j in range(k))
                continue
            if part.trunk is not None:
                self.dead_trunks.add(part.trunk)
                continue
            r, g0 = part.rack, part.rack * f.gpus
            c = part.local
            if c is None:
                self.dead_gpus.update(range(g0, g0 + f.gpus))
                self.dead_l1.update((r, p) for p in range(f.planes))
                continue
            n = c.nums
            if c.kind == "compute-tray":
                first = g0 + (n[0] - 1) * f.gpus_per_tray
                self.dead_gpus.update(range(first, first + f.gpus_per_tray))
            elif c.kind == "gpu":
                self.dead_gpus.add(g0 + n[0])
            elif c.kind == "switch-tray":
                self.dead_l1.update((r, (n[0] - 1) * k + j) for j in range(k))
            elif c.kind == "switch-chip":
                self.dead_l1.add((r, plane_of(f, n[0], n[1])))
            elif c.kind in ("link", "cable"):
                self.dead_links.add((g0 + n[0], plane_of(f, n[1], n[2])))
        self._alive = [f.gpus] * domain.racks
        for g in self.dead_gpus:
            self._alive[self.rack(g)] -= 1

    def rack(self, g: int) -> int:
        return g // self.domain.rack.gpus

    def link_up(self, g: int, p: int) -> bool:
        """GPU g's plane-p link reaches a live L1 chip."""
        return (
            g not in self.dead_gpus
            and (g, p) not in self.dead_links
            and (self.rack(g), p) not in self.dead_l1
        )

    def core(self, p: int, racks: tuple[int, ...] | None = None) -> nx.DiGraph:
        """Plane p's switches: the live L1 chips' up and down sides (of `racks`, or every
        rack), the live L2 chips, and the trunks between them (no GPUs)."""
        d = self.domain
        per_pair = TRUNKS_PER_L1 / d.l2_per_plane
        g = nx.DiGraph()
        racks = tuple(range(d.racks)) if racks is None else racks
        live = [r for r in racks if (r, p) not in self.dead_l1]
        for r in live:
            g.add_edge(("up", r), ("dn", r))  # the chip switches its own GPUs: unbounded
        for s in range(d.l2_per_plane):
            if (p, s) in self.dead_l2:
                continue
            for r in live:
                if (r, p, s) in self.dead_trunks:
                    continue
                g.add_edge(("up", r), ("l2", s), capacity=per_pair)
                g.add_edge(("l2", s), ("dn", r), capacity=per_pair)
        return g

    def pair_links(self, a: int, b: int, p: int) -> float:
        """Max flow from GPU a to GPU b in plane p, in links' worth (one direction).

        Only a's sender, b's receiver and their racks' L1 chips are added: senders have no
        in-edges, receivers no out-edges, and another rack's L1 chip is reached only going down
        (to its own GPUs), so nothing else can carry flow between them."""
        if a == b or not (self.link_up(a, p) and self.link_up(b, p)):
            return 0.0
        g = self.core(p, tuple(sorted({self.rack(a), self.rack(b)})))
        g.add_edge(("tx", a), ("up", self.rack(a)), capacity=1.0)
        g.add_edge(("dn", self.rack(b)), ("rx", b), capacity=1.0)
        return nx.maximum_flow_value(g, ("tx", a), ("rx", b), flow_func=edmonds_karp)

    def pair_tbs(self, a: int, b: int) -> float:
        """A pair's capacity over every plane, as bidirectional TB/s. Plane p's graph for the
        pair is fixed by the two links, the two racks' L1 chips and the dead L2 chips of the
        plane, so planes alike in those are solved once."""
        f = self.domain.rack
        ra, rb = self.rack(a), self.rack(b)
        seen: dict[tuple, float] = {}
        links = 0.0
        for p in range(f.planes):
            key = (
                self.link_up(a, p),
                self.link_up(b, p),
                (ra, p) in self.dead_l1,
                (rb, p) in self.dead_l1,
                self._dead_l2_of(p),
                frozenset(t for t in self.dead_trunks if t[1] == p and t[0] in (ra, rb)),
            )
            if key not in seen:
                seen[key] = self.pair_links(a, b, p)
            links += seen[key]
        return links * f.link_gbs_bidir / 1000.0

    def injection_links(self, a: int, p: int) -> float:
        """Max flow from GPU a's plane-p link to every other live GPU at once (an unbounded
        sink behind every receiver), in links' worth."""
        if not self.link_up(a, p):
            return 0.0
        g = self.core(p)
        g.add_edge(("tx", a), ("up", self.rack(a)), capacity=1.0)
        for r in self._peer_racks(a, p):
            g.add_edge(("dn", r), "sink")
        if "sink" not in g:
            return 0.0
        return nx.maximum_flow_value(g, ("tx", a), "sink", flow_func=edmonds_karp)

    def _peer_racks(self, a: int, p: int) -> tuple[int, ...]:
        """Racks with a live GPU other than a whose plane-p link is up."""
        ra = self.rack(a)
        return tuple(r for r in range(self.domain.racks) if self.up_in_rack(r, p) > (r == ra))

    def injection_tbs(self, a: int) -> float:
        """GPU a's injection over every plane, as bidirectional TB/s; planes whose graph for a
        is the same (its link, the dead L1 and L2 chips and bundles, the racks it can reach)
        are solved once."""
        f = self.domain.rack
        seen: dict[tuple, float] = {}
        links = 0.0
        for p in range(f.planes):
            key = (
                self.link_up(a, p),
                frozenset(r for r in range(self.domain.racks) if (r, p) in self.dead_l1),
                self._dead_l2_of(p),
                frozenset(t for t in self.dead_trunks if t[1] == p),
                self._peer_racks(a, p),
            )
            if key not in seen:
                seen[key] = self.injection_links(a, p)
            links += seen[key]
        return links * f.link_gbs_bidir / 1000.0

    def _rack_gpus(self, r: int) -> range:
        n = self.domain.rack.gpus
        return range(r * n, (r + 1) * n)

    def alive_in_rack(self, r: int) -> int:
        return self._alive[r]

    def up_in_rack(self, r: int, p: int) -> int:
        """Live GPUs of rack r whose plane-p link reaches a live L1 chip, from the dead sets."""
        if (r, p) in self.dead_l1:
            return 0
        lost = sum(
            1
            for g, q in self.dead_links
            if q == p and self.rack(g) == r and g not in self.dead_gpus
        )
        return self.alive_in_rack(r) - lost

    def trunk_scales(self) -> dict[tuple[int, int], float]:
        """trunk_scale of every (rack, plane). A plane graph is fixed by its demand, its dead
        L1 racks and its dead L2 chips, so equal graphs are solved once."""
        d = self.domain
        n = d.gpus - len(self.dead_gpus)
        out: dict[tuple[int, int], float] = {}
        seen: dict[tuple, float] = {}
        for p in range(d.planes):
            dead_r = frozenset(r for r in range(d.racks) if (r, p) in self.dead_l1)
            dead_s = self._dead_l2_of(p)
            dead_t = frozenset(t for t in self.dead_trunks if t[1] == p)
            for r in range(d.racks):
                share_out = (n - self.alive_in_rack(r)) / (n - 1) if n > 1 else 0.0
                demand = share_out * self.up_in_rack(r, p)
                # live racks without a dead bundle are alike in this plane's graph
                alike = (r, p) not in self.dead_l1 and all(t[0] != r for t in dead_t)
                key = (demand, dead_r, dead_s, dead_t, None if alike else r)
                if key not in seen:
                    seen[key] = self._trunk_scale(r, p, demand)
                out[r, p] = seen[key]
        return out

    def _dead_l2_of(self, p: int) -> frozenset[int]:
        return frozenset(s for s in range(self.domain.l2_per_plane) if (p, s) in self.dead_l2)

    def _trunk_scale(self, r: int, p: int, demand: float) -> float:
        """Share of rack r's plane-p demand to other racks (links' worth) the plane's trunks
        carry: max flow from a source feeding L1 chip (r, p) to every other rack's down side,
        over the demand (1 with no demand)."""
        if demand == 0.0:
            return 1.0
        g = self.core(p)
        g.add_edge("src", ("up", r), capacity=demand)
        for r2 in range(self.domain.racks):
            if r2 != r and ("dn", r2) in g:
                g.add_edge(("dn", r2), "sink")
        if "sink" not in g or not nx.has_path(g, "src", "sink"):
            return 0.0
        return nx.maximum_flow_value(g, "src", "sink", flow_func=edmonds_karp) / demand
