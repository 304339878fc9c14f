"""evaluate() for an island fabric (b200-roce, model/fabric/islands.py): its data plane from
the island state, decode from model/workloads/throughput.py, and what is not modelled named."""

from __future__ import annotations

import numpy as np

from model.fabric.islands import (
    ISLANDS_UNMODELLED,
    SCENARIO_ISLANDS,
    IslandFabric,
    IslandState,
    all_to_all_gbs,
    island_state,
)
from model.fabric.presets import GB200_NVL72, NVLINK_LATENCY_US
from model.scenario import Scenario, to_query
from model.workloads.throughput import island_decode


def _scenario_block(s: Scenario) -> dict:
    """The scenario block: the canonical query and the fields an island fabric takes."""
    return {
        "query": to_query(s),
        "key": s.key(),
        "fabric": s.fabric,
        "fail": list(s.fail),
        "workload": s.workload,
        "at": s.at,
    }


def _scale_out_tbs(f: IslandFabric) -> float:
    """A GPU's healthy scale-out (RoCE) bandwidth, both directions, in TB/s."""
    return 2 * f.nic_gbs_one_way / 1000.0


def _fabric_block(f: IslandFabric) -> dict:
    """The fabric block: the island fabric's shape and its healthy per-GPU rates."""
    return {
        "key": f.key,
        "name": f.name,
        "gpus": f.gpus,
        "islands": f.islands,
        "gpus_per_island": f.gpus_per_island,
        "gpu_tbs_bidir": f.gpu_tbs_bidir,
        "scale_out_tbs_bidir": _scale_out_tbs(f),
    }


def _counts_block(f: IslandFabric, st: IslandState) -> dict:
    """The counts block: each kind of part, how many there are and how many are up."""
    alive = st.gpu_alive
    return {
        "gpus": f.gpus,
        "gpus_active": int(alive.sum()),
        "switch_chips": f.islands * f.switches_per_island,
        "switch_chips_up": int(st.chips_up.sum()),
        "links": f.gpus * f.links_per_gpu,
        "links_up": int(st.links_up[alive].sum()),
        "nics": f.gpus,
        "nics_up": int((st.nic_up & alive).sum()),
        "scale_out_switch_up": st.leaf_up,
    }


def _span(x: np.ndarray, alive: np.ndarray) -> dict:
    """The least and most of a per-GPU figure over the GPUs in service (0 if none)."""
    n = int(alive.sum())
    return {
        "min": round(float(x[alive].min()), 4) if n else 0.0,
        "max": round(float(x[alive].max()), 4) if n else 0.0,
    }


def _bandwidth_block(f: IslandFabric, st: IslandState) -> dict:
    """The bandwidth block: NVLink in a node, RoCE across nodes, and the all-to-all the
    slowest GPU's RoCE share paces."""
    alive = st.gpu_alive
    n = int(alive.sum())
    nv_tbs = st.nvlink_share * f.gpu_tbs_bidir
    so_tbs = st.scale_out_share * 2 * f.nic_gbs_one_way / 1000.0
    a2a = all_to_all_gbs(st) * 2 / 1000.0
    return {
        "per_gpu_tbs": {
            **_span(nv_tbs, alive),
            "healthy": f.gpu_tbs_bidir,
            "over": "NVLink, in its node",
        },
        "scale_out_per_gpu_tbs": {
            **_span(so_tbs, alive),
            "healthy": _scale_out_tbs(f),
            "over": "RoCE, to other nodes (its share of its node's NICs)",
        },
        "aggregate_tbs": round(float(nv_tbs.sum()), 3),
        "all_to_all_per_gpu_tbs": round(a2a, 4),
        "all_to_all_tbs": round(n * a2a, 3),
        "all_to_all_note": (
            "a uniform all-to-all over every GPU in service ends in a barrier: the slowest "
            "GPU's pace, set by the share of its traffic that leaves its node over RoCE"
        ),
    }


def _sharp_tflops(chips: int) -> float:
    """In-network reduction of this many NVLink switch chips, at an NVL72 chip's rate."""
    return round(chips * GB200_NVL72.sharp_tflops_per_chip, 3)


def _pairs_in_node(st: IslandState) -> float:
    """The share of ordered pairs of GPUs in service that sit in one node (1 if < 2 GPUs)."""
    alive = st.gpu_alive
    n = int(alive.sum())
    if n <= 1:
        return 1.0
    per_node = np.bincount(st.node_of[alive])
    return float((per_node * (per_node - 1)).sum()) / (n * (n - 1))


def _latency_block(f: IslandFabric, st: IslandState) -> dict:
    """The latency block: unloaded one-way latency in and across nodes, and the p50/p99 of
    a random pair of GPUs in service, from the share of pairs in one node."""
    pairs_in_node = _pairs_in_node(st)
    return {
        "in_node_us": NVLINK_LATENCY_US,
        "across_nodes_us": f.nic_latency_us,
        "pairs_in_node": round(pairs_in_node, 4),
        "p50": NVLINK_LATENCY_US if pairs_in_node >= 0.5 else f.nic_latency_us,
        "p99": f.nic_latency_us if pairs_in_node < 0.99 else NVLINK_LATENCY_US,
        "model": (
            "unloaded one-way latency of a GPU pair: NVLink inside a node, NIC + PCIe + "
            "switch across nodes [A]; queueing is not modelled on this fabric"
        ),
    }


def evaluate_result(s: Scenario) -> dict:
    """evaluate() for an island-fabric scenario: its data plane and decode, the rest named."""
    f = SCENARIO_ISLANDS[s.fabric]
    st = island_state(f, s.fail)
    return {
        "scenario": _scenario_block(s),
        "fabric": _fabric_block(f),
        "counts": _counts_block(f, st),
        "bandwidth": _bandwidth_block(f, st),
        "sharp_tflops": _sharp_tflops(int(st.chips_up.sum())),
        "sharp_healthy_tflops": _sharp_tflops(f.islands * f.switches_per_island),
        "latency_us": _latency_block(f, st),
        "decode": island_decode(s),
        "gpus_in_service": int(st.gpu_alive.sum()),
        "not_modelled_yet": list(ISLANDS_UNMODELLED),
        "assumptions": [
            {"name": x.name, "value": x.value, "unit": x.unit, "tag": x.tag, "source": x.source}
            for x in f.facts
        ],
    }
