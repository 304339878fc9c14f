"""Multi-rack NVLink domains (576 and 1,152 GPUs): the two-tier fabric's fast path.

The assumption is docs/MULTIRACK.md's [A]: every rack is an NVL72 as modelled in this
package; each rack-level (L1) switch chip adds 72 trunk ports, and plane p of every rack meets
at plane p's group of racks / 2 144-port L2 chips, every L1 chip spreading its 72 trunks
evenly over them. Planes stay independent; across racks a message crosses L1, L2, L1.

This module is the model core (IDs, fault propagation, bandwidth, all-to-all under the trunk
limit, latency); the scenario grammar, the API and the dashboard do not use it yet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.fabric.metrics import message_service_s, wait_mixture
from model.ids import plane_of
from model.multirack.domains import TRUNKS_PER_L1, Domain, parse_part
from model.params import LATENCY_MESSAGE_BYTES

EXTRA_HOP_US = 0.2  # [A] each extra switch traversal (L1 -> L2, L2 -> L1), one way


@dataclass(frozen=True)
class DomainState:
    domain: Domain
    gpu_alive: np.ndarray  # bool[G]
    l1_failed: np.ndarray  # bool[R, P]
    l2_failed: np.ndarray  # bool[P, S]
    link_failed: np.ndarray  # bool[G, P]

    @property
    def rack_of(self) -> np.ndarray:
        return np.arange(self.domain.gpus) // self.domain.rack.gpus

    @property
    def up(self) -> np.ndarray:
        """bool[G, P]: the GPU's link to its rack's chip of plane p carries traffic."""
        l1_ok = ~self.l1_failed[self.rack_of]
        return self.gpu_alive[:, None] & l1_ok & ~self.link_failed

    @property
    def l2_share(self) -> np.ndarray:
        """float[P]: share of each plane's L2 chips in service."""
        return 1.0 - self.l2_failed.mean(axis=1)


def build(domain: Domain, fail: list[str]) -> DomainState:
    """Propagate failed components, named rNN.<NVL72 ID>, rNN (a whole rack) or l2.pPP.sS."""
    d, f = domain, domain.rack
    g, p, k = d.gpus, d.planes, f.chips_per_tray
    gpu_alive = np.ones(g, bool)
    l1_failed = np.zeros((d.racks, p), bool)
    l2_failed = np.zeros((p, d.l2_per_plane), bool)
    link_failed = np.zeros((g, p), bool)
    for token in fail:
        part = parse_part(token, d)
        if part.l2 is not None:
            l2_failed[part.l2] = True
            continue
        r = part.rack
        g0 = r * f.gpus
        if part.local is None:  # the whole rack
            gpu_alive[g0 : g0 + f.gpus] = False
            l1_failed[r] = True
            continue
        c = part.local
        n = c.nums
        if c.kind == "compute-tray":
            gpu_alive[g0 + (n[0] - 1) * f.gpus_per_tray : g0 + n[0] * f.gpus_per_tray] = False
        elif c.kind == "gpu":
            gpu_alive[g0 + n[0]] = False
        elif c.kind == "switch-tray":
            l1_failed[r, (n[0] - 1) * k : n[0] * k] = True
        elif c.kind == "switch-chip":
            l1_failed[r, plane_of(f, n[0], n[1])] = True
        elif c.kind in ("link", "cable"):
            link_failed[g0 + n[0], plane_of(f, n[1], n[2])] = True
        # a controller: control plane only (model/control.py), no data-plane effect here
    return DomainState(d, gpu_alive, l1_failed, l2_failed, link_failed)


def plane_rates(st: DomainState) -> np.ndarray:
    """float[G, P]: share of a link's rate each GPU sustains per plane in a uniform all-to-all.

    A share f of each GPU's traffic leaves its rack; L1 chip (r, p) can send 72 x u_p links'
    worth up, u_p the share of plane p's L2 chips in service, against f x (its GPUs with the
    plane up) links of demand. Intra-rack traffic never leaves the L1 chip.
    """
    d = st.domain
    up = st.up
    n = int(st.gpu_alive.sum())
    in_rack = np.bincount(st.rack_of[st.gpu_alive], minlength=d.racks)
    f = np.where(n > 1, (n - in_rack) / max(n - 1, 1), 0.0)[st.rack_of]  # [G]
    demand = np.zeros((d.racks, d.planes))
    np.add.at(demand, st.rack_of, up * f[:, None])
    capacity = TRUNKS_PER_L1 * st.l2_share[None, :]  # [1, P] links' worth, per L1 chip
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(demand > 0, np.minimum(1.0, capacity / demand), 1.0)  # [R, P]
    rate = (1.0 - f)[:, None] + f[:, None] * scale[st.rack_of]
    return np.where(up, rate, 0.0)


def evaluate_domain(domain: Domain, fail: list[str]) -> dict:
    """Counts, bandwidth, all-to-all under the trunk limit, and latency for a domain."""
    st = build(domain, fail)
    d, f = domain, domain.rack
    link = f.link_gbs_bidir / 1000.0
    injection = st.up.sum(axis=1) * link
    alive = st.gpu_alive
    a2a = plane_rates(st).sum(axis=1) * link
    n = int(alive.sum())
    worst = float(a2a[alive].min()) if n else 0.0
    l1_in = ~st.l1_failed
    return {
        "domain": d.key,
        "counts": {
            "gpus": d.gpus,
            "gpus_active": n,
            "l1_chips": d.l1_chips,
            "l1_chips_up": int(l1_in.sum()),
            "l2_chips": d.l2_chips,
            "l2_chips_up": int((~st.l2_failed).sum()),
            "links": d.gpus * d.planes,
            "links_up": int(st.up.sum()),
        },
        "bandwidth": {
            "per_gpu_tbs": {
                "min": round(float(injection[alive].min()), 4) if n else 0.0,
                "max": round(float(injection[alive].max()), 4) if n else 0.0,
            },
            "aggregate_tbs": round(float(injection.sum()), 3),
            "all_to_all_per_gpu_tbs": round(worst, 4),
            "all_to_all_tbs": round(n * worst, 3),
        },
        "sharp_tflops": round(float(l1_in.sum()) * f.sharp_tflops_per_chip, 3),
        "latency_us": _latency(st),
    }


def _latency(st: DomainState) -> dict:
    """p50/p99 one way: intra-rack pairs cross one switch, inter-rack pairs three; the same
    waiting-time mixture as one rack's (model/fabric/metrics.py)."""
    d, f = st.domain, st.domain.rack
    alive = st.gpu_alive
    n = int(alive.sum())
    in_rack = np.bincount(st.rack_of[alive], minlength=d.racks)
    intra = float((in_rack * (in_rack - 1)).sum()) / (n * (n - 1)) if n > 1 else 1.0
    base = f.latency_one_way_us
    mix = wait_mixture(
        st.up.sum(axis=1)[alive].astype(float),
        d.planes,
        message_service_s(f, LATENCY_MESSAGE_BYTES),
        (base, base + 2 * EXTRA_HOP_US),
        (intra, 1.0 - intra),
    )
    if mix is None:
        return {"p50": None, "p99": None}
    return {name: round(mix.quantile_us(q), 3) for name, q in (("p50", 0.5), ("p99", 0.99))}


def evaluate_result(s) -> dict:
    """evaluate() for a multi-rack scenario: the data plane, with what is not modelled said."""
    from model.multirack.domains import DOMAINS
    from model.scenario import DOMAIN_UNMODELLED, to_query

    d = DOMAINS[s.fabric]
    r = evaluate_domain(d, list(s.fail))
    r["scenario"] = {
        "query": to_query(s),
        "key": s.key(),
        "fabric": s.fabric,
        "fail": list(s.fail),
        "workload": s.workload,
    }
    r["fabric"] = {
        "key": d.key,
        "name": d.name,
        "racks": d.racks,
        "gpus": d.gpus,
        "l1_chips": d.l1_chips,
        "l2_chips": d.l2_chips,
        "l2_per_plane": d.l2_per_plane,
        "gpu_tbs_bidir": d.rack.gpu_tbs_bidir,
    }
    r["not_modelled_yet"] = list(DOMAIN_UNMODELLED)
    from model.workloads.throughput import domain_decode

    r["decode"] = domain_decode(s)
    r["gpus_in_service"] = r["counts"]["gpus_active"]  # no partition model: every live GPU
    r["assumptions"] = [
        {
            "name": "racks",
            "value": d.racks,
            "unit": "NVL72 racks",
            "tag": "A",
            "source": "docs/MULTIRACK.md; FACTS.md §1 roadmap: domains up to 1,152 GPUs",
        },
        {
            "name": "trunks per L1 chip",
            "value": TRUNKS_PER_L1,
            "unit": "ports",
            "tag": "A",
            "source": "non-blocking: as many trunk ports as GPU ports",
        },
        {
            "name": "L2 chips per plane",
            "value": d.l2_per_plane,
            "unit": "144-port chips",
            "tag": "D",
            "source": "racks x 72 trunks / 144 ports",
        },
        {
            "name": "extra hop latency",
            "value": EXTRA_HOP_US,
            "unit": "us one way",
            "tag": "A",
            "source": "two more switch traversals across racks",
        },
    ]
    return r
