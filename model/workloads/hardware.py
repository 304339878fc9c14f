"""The hardware decode runs on: a scenario's rack in its state, a healthy preset, and the
buyer's comparison `b200-roce` (nine 8-GPU HGX B200 islands joined by 400 Gb/s RoCE).

Every builder returns a groups.Hardware: the GPU, the GPUs installed, and for each EP size the
groups the GPUs in service form, each as the view of its slowest rank (moe_a2a.EPFabric).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from model.assess import Assessment
from model.fabric.islands import (  # noqa: F401  (re-exported: calibration and tests)
    B200_ROCE,
    H800_IB,
    ISLAND_FABRICS,
    IslandFabric,
    IslandState,
)
from model.fabric.presets import FABRICS, NVLINK_LATENCY_US, Fabric
from model.multirack.assess import build
from model.multirack.tiers import EXTRA_HOP_US, plane_rates
from model.workloads import decode_params as D
from model.workloads.groups import Hardware, elastic, healthy_groups, leftover
from model.workloads.models import GPUS
from model.workloads.moe_a2a import EPFabric, Tier, share_view


@lru_cache(maxsize=16)
def preset_hardware(f: Fabric) -> Hardware:
    """A healthy preset: every EP size's groups at full bandwidth."""
    return Hardware(
        f.key, GPUS[f.gpu], f.gpus, healthy_groups(f.gpus, lambda e: share_view(f, e, 1.0))
    )


def scenario_hardware(a: Assessment) -> Hardware:
    """The scenario's rack: the GPUs in service, in order, cut into groups of each EP size;
    each group runs at its slowest rank's bandwidth (the all-to-all's barrier waits for it).
    Too few for one group of the next EP size up, they serve as one group of all of them
    (groups.elastic: EP72's ranks on 71 GPUs)."""
    f = a.fabric
    if not a.job_runs:
        return Hardware(f.key, GPUS[f.gpu], f.gpus, ())
    idx = np.flatnonzero(a.usable)
    tbs = a.per_gpu_tbs[idx]
    out = []
    for e in D.EP_SIZES:
        k = len(idx) // e
        if k == 0:
            if elastic(len(idx), e, f.gpus):  # e.g. EP72's ranks on the 71 GPUs in service
                share = float(tbs.min() / f.gpu_tbs_bidir)
                if share > 0:
                    out.append((e, ((share_view(f, len(idx), share), 1),)))
            continue
        worst = tbs[: k * e].reshape(k, e).min(axis=1)
        shares, counts = np.unique(np.round(worst / f.gpu_tbs_bidir, 9), return_counts=True)
        groups = [(share_view(f, e, float(s)), int(c)) for s, c in zip(shares, counts, strict=True)]
        if r := leftover(len(idx), e):
            groups.append((share_view(f, r, float(tbs[k * e :].min() / f.gpu_tbs_bidir)), 1))
        out.append((e, tuple(g for g in groups if g[0].line_bytes_s > 0)))
    return Hardware(f.key, GPUS[f.gpu], f.gpus, tuple(out), len(idx))


def domain_hardware(domain, fail: tuple[str, ...] = (), a=None) -> Hardware:
    """A multi-rack domain in its state (model.multirack.tiers): EP groups up to one rack form
    inside a rack on its own links; wider groups take whole racks, every byte to another rack
    crossing L1, L2, L1 (two more switch hops) at the domain's all-to-all rate under the trunk
    limit (tiers.plane_rates, the uniform all-to-all over the domain [A]: a group of fewer
    racks sends no more across racks than that)."""
    f = domain.rack
    if a is not None and not a.job_runs:  # a: the DomainAssessment; its job is down
        return Hardware(domain.key, GPUS[f.gpu], domain.gpus, ())
    st = build(domain, list(fail)) if a is None else a.state
    link = f.link_gbs_bidir / 1000.0
    alive = np.flatnonzero(st.gpu_alive if a is None else a.usable)
    injection = st.efficiency.sum(axis=1) * link  # TB/s both ways, inside the rack
    a2a = plane_rates(st).sum(axis=1) * link  # across racks, under the trunk limit
    racks = st.rack_of
    per_rack = [alive[racks[alive] == r] for r in range(domain.racks)]
    memo: dict[tuple[int, float], EPFabric] = {}
    full = f.gpu_tbs_bidir

    def view(n: int, share: float) -> EPFabric:  # many groups share a bandwidth: build once
        v = memo.get((n, share))
        if v is None:
            v = memo[(n, share)] = share_view(f, n, share)
        return v

    out = []
    for e in D.EP_SIZES:
        groups: list[tuple[EPFabric, int]] = []
        if e <= f.gpus:
            for idx in per_rack:
                k = len(idx) // e
                if k:
                    worst = injection[idx[: k * e]].reshape(k, e).min(axis=1)
                    groups += [(view(e, w / full), 1) for w in worst.tolist()]
                if r_left := leftover(len(idx), e):
                    w = injection[idx[k * e :]].min()
                    groups.append((view(r_left, float(w) / full), 1))
        else:
            k = len(alive) // e
            if k == 0:
                continue
            worst = a2a[alive[: k * e]].reshape(k, e).min(axis=1)
            for w in worst:
                v = share_view(f, e, float(w) / f.gpu_tbs_bidir)
                groups.append(
                    (replace(v, latency_one_way_us=v.latency_one_way_us + 2 * EXTRA_HOP_US), 1)
                )
        merged: dict[EPFabric, int] = {}
        for v, c in groups:
            if v.line_bytes_s > 0:
                merged[v] = merged.get(v, 0) + c
        if merged:
            out.append((e, tuple(merged.items())))
    return Hardware(domain.key, GPUS[f.gpu], domain.gpus, tuple(out), len(alive))


@lru_cache(maxsize=4)
def healthy_domain_hardware(domain) -> Hardware:
    """domain_hardware of the healthy domain (every scenario's decode is held against it)."""
    return domain_hardware(domain)


# --- b200-roce: the comparison buyers make (issue 12 item 6) -----------------------------------


def island_view(f: IslandFabric, ep: int, nvlink: float = 1.0, nic: float = 1.0) -> EPFabric:
    """An EP group inside one island (NVLink only) or across islands (NVLink and RoCE), its
    slowest rank keeping `nvlink` of its NVLink bandwidth and `nic` of one NIC's."""
    bw = f.island_gbs_one_way * 1e9 * nvlink
    near = EPFabric(ep, bw, bw / f.island_packet_bytes, f.island_packet_bytes, NVLINK_LATENCY_US)
    if ep <= f.gpus_per_island:
        return near
    nb = f.nic_gbs_one_way * 1e9 * nic
    cross = Tier(nb, f.nic_mpps * 1e6 * nic, f.nic_mtu_bytes, f.nic_latency_us)
    return EPFabric(
        ep,
        near.line_bytes_s,
        near.pps,
        near.payload,
        near.latency_one_way_us,
        island=f.gpus_per_island,
        cross=cross,
    )


@lru_cache(maxsize=4)
def island_hardware(f: IslandFabric) -> Hardware:
    return Hardware(f.key, GPUS[f.gpu], f.gpus, healthy_groups(f.gpus, lambda e: island_view(f, e)))


def _group_view(st: IslandState, g: np.ndarray) -> EPFabric:
    """One EP group of the GPUs g: its slowest rank's NVLink share and, if it spans islands,
    the smallest NIC share among them, with as many near peers as its fullest island holds."""
    f = st.fabric
    v = island_view(f, len(g), float(st.nvlink_share[g].min()))
    per_node = np.bincount(st.node_of[g])
    if (per_node > 0).sum() == 1:
        return v
    cross = island_view(f, f.gpus_per_island + 1, 1.0, float(st.scale_out_share[g].min())).cross
    return replace(v, island=int(per_node.max()), cross=cross)


def island_scenario_hardware(st: IslandState) -> Hardware:
    """An island fabric in its state: EP groups of up to one island form inside each island
    on its own NVLink; wider groups take, in order, the GPUs in service of the islands that
    can reach the others (a NIC left and the switch up), each group at its slowest rank's
    NVLink share and the smallest NIC share among its islands."""
    f = st.fabric
    per = f.gpus_per_island
    alive = np.flatnonzero(st.gpu_alive)
    nodes = st.node_of
    reach = alive[st.scale_out_share[alive] > 0]
    out = []
    for e in D.EP_SIZES:
        if e > len(alive if e <= per else reach):
            continue
        groups: list[np.ndarray] = []
        pools = [alive[nodes[alive] == n] for n in range(f.islands)] if e <= per else [reach]
        for idx in pools:
            k = len(idx) // e
            groups += [idx[i * e : (i + 1) * e] for i in range(k)]
            if leftover(len(idx), e):
                groups.append(idx[k * e :])
        merged: dict[EPFabric, int] = {}
        for g in groups:
            v = _group_view(st, g)
            if v.line_bytes_s > 0 and (v.cross is None or v.cross.line_bytes_s > 0):
                merged[v] = merged.get(v, 0) + 1
        if merged:
            out.append((e, tuple(merged.items())))
    return Hardware(f.key, GPUS[f.gpu], f.gpus, tuple(out), len(alive))


def comparison_hardware(key: str) -> Hardware:
    """A healthy preset or b200-roce by key."""
    if key in ISLAND_FABRICS:
        return island_hardware(ISLAND_FABRICS[key])
    return preset_hardware(FABRICS[key])


# Like for like: each fabric is held against the other fabric with the same GPU.
BASELINE = {
    "vr-nvl72": "eth-x72",
    "eth-x72": "vr-nvl72",
    "gb200-nvl72": "b200-roce",
    "vr-nvl576": "vr-nvl72",
    "vr-nvl1152": "vr-nvl72",
    "b200-roce": "gb200-nvl72",
    "h800-ib": "gb200-nvl72",
}
BASELINE_WHY = {
    "vr-nvl72": "the same Rubin GPUs on off-the-shelf Ethernet scale-up",
    "eth-x72": "the same Rubin GPUs on NVLink 6",
    "gb200-nvl72": "the same B200 GPUs as nine 8-GPU HGX islands on 400 Gb/s RoCE",
    "vr-nvl576": "the same Rubin GPUs as single NVL72 racks",
    "vr-nvl1152": "the same Rubin GPUs as single NVL72 racks",
    "b200-roce": "the same B200 GPUs on one NVLink 5 domain of 72",
    "h800-ib": (
        "GB200 NVL72: no H800 comes in one NVLink domain wider than a node, so the ratio "
        "holds a newer GPU as well as the wider domain"
    ),
}
