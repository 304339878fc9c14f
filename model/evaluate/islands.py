"""evaluate() for an island fabric (b200-roce, model/fabric/islands.py): its data plane from
the island state, decode from model/workloads/throughput.py, and what is not modelled named."""

from __future__ import annotations

import numpy as np

from model.fabric.islands import (
    ISLANDS_UNMODELLED,
    SCENARIO_ISLANDS,
    all_to_all_gbs,
    island_state,
)
from model.fabric.presets import GB200_NVL72, NVLINK_LATENCY_US
from model.scenario import Scenario, to_query
from model.workloads.throughput import island_decode


def evaluate_result(s: Scenario) -> dict:
    """evaluate() for an island-fabric scenario: its data plane and decode, the rest named."""
    f = SCENARIO_ISLANDS[s.fabric]
    st = island_state(f, s.fail)
    alive = st.gpu_alive
    n = int(alive.sum())
    nv_tbs = st.nvlink_share * f.gpu_tbs_bidir
    so_tbs = st.scale_out_share * 2 * f.nic_gbs_one_way / 1000.0
    a2a = all_to_all_gbs(st) * 2 / 1000.0

    def span(x: np.ndarray) -> dict:
        return {
            "min": round(float(x[alive].min()), 4) if n else 0.0,
            "max": round(float(x[alive].max()), 4) if n else 0.0,
        }

    pairs_in_node = (
        float((np.bincount(st.node_of[alive]) * (np.bincount(st.node_of[alive]) - 1)).sum())
        / (n * (n - 1))
        if n > 1
        else 1.0
    )
    chips_up = int(st.chips_up.sum())
    return {
        "scenario": {
            "query": to_query(s),
            "key": s.key(),
            "fabric": s.fabric,
            "fail": list(s.fail),
            "workload": s.workload,
        },
        "fabric": {
            "key": f.key,
            "name": f.name,
            "gpus": f.gpus,
            "islands": f.islands,
            "gpus_per_island": f.gpus_per_island,
            "gpu_tbs_bidir": f.gpu_tbs_bidir,
            "scale_out_tbs_bidir": 2 * f.nic_gbs_one_way / 1000.0,
        },
        "counts": {
            "gpus": f.gpus,
            "gpus_active": n,
            "switch_chips": f.islands * f.switches_per_island,
            "switch_chips_up": chips_up,
            "links": f.gpus * f.links_per_gpu,
            "links_up": int(st.links_up[alive].sum()),
            "nics": f.gpus,
            "nics_up": int((st.nic_up & alive).sum()),
            "scale_out_switch_up": st.leaf_up,
        },
        "bandwidth": {
            "per_gpu_tbs": {
                **span(nv_tbs),
                "healthy": f.gpu_tbs_bidir,
                "over": "NVLink, in its node",
            },
            "scale_out_per_gpu_tbs": {
                **span(so_tbs),
                "healthy": 2 * f.nic_gbs_one_way / 1000.0,
                "over": "RoCE, to other nodes (its share of its node's NICs)",
            },
            "aggregate_tbs": round(float(nv_tbs.sum()), 3),
            "all_to_all_per_gpu_tbs": round(a2a, 4),
            "all_to_all_tbs": round(n * a2a, 3),
            "all_to_all_note": (
                "a uniform all-to-all over every GPU in service ends in a barrier: the slowest "
                "GPU's pace, set by the share of its traffic that leaves its node over RoCE"
            ),
        },
        "sharp_tflops": round(chips_up * GB200_NVL72.sharp_tflops_per_chip, 3),
        "sharp_healthy_tflops": round(
            f.islands * f.switches_per_island * GB200_NVL72.sharp_tflops_per_chip, 3
        ),
        "latency_us": {
            "in_node_us": NVLINK_LATENCY_US,
            "across_nodes_us": f.nic_latency_us,
            "pairs_in_node": round(pairs_in_node, 4),
            "p50": NVLINK_LATENCY_US if pairs_in_node >= 0.5 else f.nic_latency_us,
            "p99": f.nic_latency_us if pairs_in_node < 0.99 else NVLINK_LATENCY_US,
            "model": (
                "unloaded one-way latency of a GPU pair: NVLink inside a node, NIC + PCIe + "
                "switch across nodes [A]; queueing is not modelled on this fabric"
            ),
        },
        "decode": island_decode(s),
        "gpus_in_service": n,
        "not_modelled_yet": list(ISLANDS_UNMODELLED),
        "assumptions": [
            {"name": x.name, "value": x.value, "unit": x.unit, "tag": x.tag, "source": x.source}
            for x in f.facts
        ],
    }
