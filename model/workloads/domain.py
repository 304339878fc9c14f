"""What a job sees of a multi-rack domain (docs/MULTIRACK.md): NCCL's JobFabric and an MoE EP
group's view, read from the DomainAssessment (model/multirack/assess.py), so training and
/api/v1/collectives run the same calibrated collectives (nccl.py, moe_a2a.py) over the
domain as over one rack.

    ring   the ranks in order (rack by rack); each hop carries its pair's capacity
           (multirack/pairs.py: in a rack one L1 chip, across racks L1, L2, L1), the ring at
           its weakest hop; a hop across racks is one pair, so the trunks do not bind it
    NVLS   over two tiers: plane p reduces for a job that spans racks only if every rank's
           link and every rack's L1 chip of p are up and each rack reaches an L2 chip of p in
           service (some trunk capacity left); the L1 chip sends one partial up, so a
           degraded L2 group still carries it [D] (tiers.sharp_tflops says the same)
    all_to_all  across racks at the slowest rank's all-to-all rate under the trunk limit
           (tiers.plane_rates), in one rack as on one rack (the ring's hop)
    latency a job that spans racks pays the two extra switch traversals on its slowest hop
    replicas racks x (one rank a rack), 72 such rings at once (every GPU with its
           counterparts in the other racks): each GPU's plane-p share is held to its L1 chip's
           trunks, all of its rack's traffic on that plane leaving the rack
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model.errors import ScenarioError
from model.multirack.domains import TRUNKS_PER_L1, Domain
from model.multirack.pairs import pair_capacity_tbs
from model.multirack.tiers import EXTRA_HOP_US
from model.workloads.moe_a2a import EPFabric, share_view
from model.workloads.nccl import JobFabric, link_gbs


def in_service(a) -> np.ndarray:
    """The GPUs in service, in order (rack by rack); none when the job is down."""
    return np.flatnonzero(a.usable) if a.job_runs else np.zeros(0, dtype=int)


def _check(a, n: int, name: str) -> np.ndarray:
    idx = in_service(a)
    if n > len(idx):
        why = (
            f"only {len(idx)} GPUs are in service"
            if a.job_runs
            else "no GPU is in service: the job does not run in this scenario"
        )
        raise ScenarioError(f"{name} {n}: {why}", token=name)
    return idx[:n]


def _latency(d: Domain, spans_racks: bool) -> float:
    return d.rack.latency_one_way_us + (2 * EXTRA_HOP_US if spans_racks else 0.0)


def _nvls(st, ranks: np.ndarray) -> np.ndarray:
    """float[P]: each plane's share for an in-switch reduction over these ranks (0: none)."""
    f = st.domain.rack
    if f.sharp_tflops_per_chip <= 0:
        return np.zeros(f.planes)
    common = st.efficiency[ranks].min(axis=0)
    racks = np.unique(st.rack_of[ranks])
    if len(racks) > 1:  # across racks: every rack's partial must reach an L2 chip of the plane
        common = common * (st.trunk_share[racks] > 0).all(axis=0)
    return common


def job_fabric(a, ranks: int) -> JobFabric:
    """The first `ranks` GPUs in service of a domain, and their fabric (nccl.job_fabric's
    domain form); a ScenarioError names `ranks` if the domain has fewer in service."""
    st = a.state
    d = st.domain
    idx = _check(a, ranks, "ranks")
    link = d.rack.link_gbs_bidir / 1000.0
    hop = pair_capacity_tbs(st, idx, np.roll(idx, -1)) / link  # links' worth, rank i -> i+1
    common = _nvls(st, idx)
    spans = len(np.unique(st.rack_of[idx])) > 1
    one = link_gbs(d.rack)
    # all_to_all: across racks at the slowest rank's rate under the trunk limit [A] (the
    # uniform all-to-all over the domain, as decode's wide EP groups), in a rack its links
    a2a = float(a.a2a_gpu_tbs[idx].min()) / link * one if spans else None
    return JobFabric(
        ranks,
        float(hop.min()) * one,
        float(common.sum()) * one,
        int((common > 0).sum()),
        _latency(d, spans),
        a2a,
        tuned_on=healthy_job(d, ranks),
    )


def healthy_job(d: Domain, ranks: int) -> JobFabric:
    """A job of `ranks` ranks on a healthy domain, the first racks filled first."""
    f = d.rack
    nvls = f.planes if f.sharp_tflops_per_chip > 0 else 0
    one = link_gbs(f)
    spans = ranks > f.gpus
    a2a = f.planes * one if spans else None
    return JobFabric(ranks, f.planes * one, nvls * one, nvls, _latency(d, spans), a2a)


def out_of_rack_scale(st) -> np.ndarray:
    """float[R, P]: the share of a link's rate each GPU keeps on plane p when all of its
    rack's plane-p traffic leaves the rack at once (the replicas' rings): the L1 chip's
    72 x trunk_share links' worth of trunks over its GPUs' plane-p links."""
    d = st.domain
    demand = st.efficiency.reshape(d.racks, -1, d.planes).sum(axis=1)
    cap = TRUNKS_PER_L1 * st.trunk_share
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(demand > 0, np.minimum(1.0, cap / demand), 1.0)


def replica_job(a) -> JobFabric | None:
    """One rank a rack (the racks' replicas of the same experts), as every GPU of the domain
    runs it at once with its counterparts: the ring at the slowest GPU's out-of-rack share,
    NVLS on the planes every rack's partial reaches L2 on; None with fewer than two racks."""
    st = a.state
    d = st.domain
    idx = in_service(a)
    racks = np.unique(st.rack_of[idx])
    if len(racks) < 2:
        return None
    scale = out_of_rack_scale(st)
    per = (st.efficiency[idx] * scale[st.rack_of[idx]]).sum(axis=1)  # links' worth
    reach = (st.trunk_share[racks] > 0).all(axis=0) & st.l1_in_service[racks].all(axis=0)
    common = np.where(reach, st.efficiency[idx].min(axis=0) * scale[racks].min(axis=0), 0.0)
    if d.rack.sharp_tflops_per_chip <= 0:
        common = np.zeros(d.planes)
    one = link_gbs(d.rack)
    return JobFabric(
        len(racks),
        float(per.min()) * one,
        float(common.sum()) * one,
        int((common > 0).sum()),
        _latency(d, True),
    )


def healthy_replica_job(d: Domain) -> JobFabric:
    f = d.rack
    nvls = f.planes if f.sharp_tflops_per_chip > 0 else 0
    one = link_gbs(f)
    return JobFabric(d.racks, f.planes * one, nvls * one, nvls, _latency(d, True))


def ep_fabric(a, ep: int) -> EPFabric:
    """The first `ep` GPUs in service as one EP group (moe_a2a.ep_fabric's domain form): in
    one rack at its slowest rank's own links; across racks at the slowest rank's all-to-all
    rate under the trunk limit, two switch hops further (hardware.domain_hardware's view)."""
    st = a.state
    f = st.domain.rack
    idx = _check(a, ep, "ep")
    spans = len(np.unique(st.rack_of[idx])) > 1
    tbs = a.a2a_gpu_tbs if spans else a.per_gpu_tbs
    v = share_view(f, ep, float(tbs[idx].min()) / f.gpu_tbs_bidir)
    if not spans:
        return v
    return replace(v, latency_one_way_us=v.latency_one_way_us + 2 * EXTRA_HOP_US)
