"""The same fabric as a networkx graph: the oracle the fast numpy path is tested against.

Built independently of faults.py: failed parts are removed as nodes or edges. Each GPU is
split into a sending and a receiving node so no flow transits a GPU (GPUs do not forward on
NVLink). Capacities are one-way GB/s; a flaky link carries its efficiency.
"""

from __future__ import annotations

import networkx as nx
from networkx.algorithms.flow import edmonds_karp

from model.fabric.state import build_state
from model.ids import chip_id, gpu_id, parse_id, plane_of
from model.params import FLAKY_LINK_EFFICIENCY
from model.scenario import Scenario


def build_graph(s: Scenario) -> nx.DiGraph:
    """Directed graph: gpuNN.tx -> stT.swK -> gpuMM.rx, only for parts that are up."""
    f = s.spec()
    comps = [parse_id(x, f) for x in s.fail]
    dead_gpus: set[int] = set()
    dead_chips: set[int] = set()
    dead_links: set[tuple[int, int]] = set()
    k = f.chips_per_tray
    for c in comps:
        n = c.nums
        if c.kind == "compute-tray":
            dead_gpus.update(range((n[0] - 1) * f.gpus_per_tray, n[0] * f.gpus_per_tray))
        elif c.kind == "gpu":
            dead_gpus.add(n[0])
        elif c.kind == "switch-tray":
            dead_chips.update(range((n[0] - 1) * k, n[0] * k))
        elif c.kind == "switch-chip":
            dead_chips.add(plane_of(f, n[0], n[1]))
        elif c.kind in ("link", "cable"):
            dead_links.add((n[0], plane_of(f, n[1], n[2])))
    planned = build_state(s)  # only for which trays the update drains (a plan, not a fault)
    if planned.maintenance:
        dead_chips.update(range(f.planes))
    for tr in planned.updating:
        dead_chips.update(range((tr - 1) * k, tr * k))
    flaky = {
        (c.nums[0], plane_of(f, c.nums[1], c.nums[2])) for c in (parse_id(x, f) for x in s.flaky)
    }

    g = nx.DiGraph()
    one_way = f.link_gbs_bidir / 2
    for p in range(f.planes):
        if p in dead_chips:
            continue
        chip = chip_id(f, p)
        g.add_node(chip, kind="switch-chip")
        for gpu in range(f.gpus):
            if gpu in dead_gpus or (gpu, p) in dead_links:
                continue
            cap = one_way * (FLAKY_LINK_EFFICIENCY if (gpu, p) in flaky else 1.0)
            g.add_edge(f"{gpu_id(gpu)}.tx", chip, capacity=cap)
            g.add_edge(chip, f"{gpu_id(gpu)}.rx", capacity=cap)
    for gpu in range(f.gpus):
        if gpu not in dead_gpus:
            g.add_node(f"{gpu_id(gpu)}.tx", kind="gpu")
            g.add_node(f"{gpu_id(gpu)}.rx", kind="gpu")
    return g


def pair_capacity_tbs(g: nx.DiGraph, a: int, b: int) -> float:
    """Max flow from GPU a to GPU b, as bidirectional TB/s (both directions are symmetric)."""
    src, dst = f"{gpu_id(a)}.tx", f"{gpu_id(b)}.rx"
    if src not in g or dst not in g:
        return 0.0
    # Senders have no in-edges and receivers no out-edges, so no flow can use a third GPU:
    # the subgraph of the two GPUs and the switch chips has the same max flow, faster.
    chips = [n for n, d in g.nodes(data=True) if d.get("kind") == "switch-chip"]
    sub = g.subgraph([src, dst, *chips])
    return 2 * nx.maximum_flow_value(sub, src, dst, flow_func=edmonds_karp) / 1000.0


def with_sink(g: nx.DiGraph) -> nx.DiGraph:
    """A copy with every live GPU's receiver feeding one unbounded 'sink' node."""
    h = g.copy()
    for n in g.nodes:
        if n.endswith(".rx"):
            h.add_edge(n, "sink")  # no capacity attribute: unbounded
    return h


def gpu_bandwidth_tbs(h: nx.DiGraph, a: int) -> float:
    """Max flow from GPU a to every other live GPU at once, as bidirectional TB/s.

    `h` comes from with_sink(); a's own receiver is cut from the sink for the computation.
    """
    src, own = f"{gpu_id(a)}.tx", f"{gpu_id(a)}.rx"
    if src not in h:
        return 0.0
    h.remove_edge(own, "sink")
    try:
        return 2 * nx.maximum_flow_value(h, src, "sink", flow_func=edmonds_karp) / 1000.0
    finally:
        h.add_edge(own, "sink")
