"""NCCL's collectives on the scenario's fabric, as nccl-tests reports them (time, algbw, busbw).

A job of `ranks` ranks runs on the first `ranks` GPUs in service (model.assess). Its fabric:

    ring  B = NCCL-effective one-way bandwidth of its weakest ring hop (planes both ends
          reach: a dead link or chip costs its share), 40.1 of 50 GB/s a link (NCCL topo.h)
    NVLS  B = the same over the planes every rank reaches and whose chip reduces (a lost chip,
          or one rank's dead link, takes that plane out of the multicast group) [A]

and NCCL's own cost model (src/graph/tuning.cc), time = latency + bytes / algbw:

    ring   per protocol (LL, LL128, Simple): base + steps x step latency, algbw = share x B x
           n / steps, steps = 2(n-1) for all_reduce and n-1 for all_gather / reduce_scatter;
           NCCL runs the protocol its model finds fastest, and so does this
    NVLS   25 us + the pipeline fill (n-1) x min(24 x 128 KiB, S/n) / (eta B), algbw = eta x B
           x n/(n-1) for all_reduce (NCCL's form; eta fitted, comm_params.ETA_NVLS), eta x B x
           (n-1)/n for all_gather / reduce_scatter (NCCL's form)
    all_to_all  one round of direct sends: base + one step, (n-1)/n of the buffer at B

Only the wire-and-switch share of each latency scales with the fabric's GPU-to-GPU latency;
the GPU-side rest is the same on every fabric (comm_params). busbw = algbw x nccl-tests'
factor. Pure functions of the Assessment and numbers; nothing here is read by decode or
training yet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.assess import Assessment
from model.errors import ScenarioError
from model.fabric.presets import NVLINK_LATENCY_US, Fabric
from model.workloads import comm_params as P

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
ALGOS = ("ring", "nvls", "auto")
NVLS_OPS = ("all_reduce", "all_gather", "reduce_scatter")


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw / algbw: 2(n-1)/n for all_reduce, (n-1)/n for the others."""
    return 2 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


@dataclass(frozen=True)
class JobFabric:
    """What one job of n ranks sees of the fabric: bandwidths in GB/s one way, NCCL-effective."""

    ranks: int
    ring_gbs: float  # weakest ring hop (consecutive ranks, cyclic)
    nvls_gbs: float  # planes every rank reaches whose chip reduces; 0 = no NVLS
    nvls_planes: int
    latency_one_way_us: float
    a2a_gbs: float | None = None  # all_to_all's rate when not the ring's (a domain's trunks)

    @property
    def latency_factor(self) -> float:
        return self.latency_one_way_us / NVLINK_LATENCY_US


def link_gbs(f: Fabric) -> float:
    """One link's NCCL-effective one-way GB/s."""
    return f.link_gbs_bidir / 2 * P.NCCL_LINK_EFFICIENCY


def healthy_job(f: Fabric, ranks: int) -> JobFabric:
    """A job of `ranks` ranks on a healthy fabric `f` (what the calibration reads)."""
    nvls = f.planes if f.sharp_tflops_per_chip > 0 else 0
    return JobFabric(ranks, f.planes * link_gbs(f), nvls * link_gbs(f), nvls, f.latency_one_way_us)


def job_fabric(a: Assessment, ranks: int) -> JobFabric:
    """The first `ranks` GPUs in service, and their fabric; a ScenarioError names `ranks` if
    the scenario has fewer (or the job cannot run)."""
    in_service = np.flatnonzero(a.usable) if a.job_runs else np.zeros(0, dtype=int)
    if ranks > len(in_service):
        why = (
            f"only {len(in_service)} GPUs are in service"
            if a.job_runs
            else "no GPU is in service: the job does not run in this scenario"
        )
        raise ScenarioError(f"ranks {ranks}: {why}", token="ranks")
    idx = in_service[:ranks]
    f = a.fabric
    eff = a.state.efficiency[idx]  # [n, planes], 0 down, <1 flaky
    hop = np.minimum(eff, np.roll(eff, -1, axis=0)).sum(axis=1)  # rank i -> i+1
    common = eff.min(axis=0) if f.sharp_tflops_per_chip > 0 else np.zeros(f.planes)
    return JobFabric(
        ranks,
        float(hop.min()) * link_gbs(f),
        float(common.sum()) * link_gbs(f),
        int((common > 0).sum()),
        f.latency_one_way_us,
    )


def _latency_us(gpu_us: float, hops: int, jf: JobFabric) -> float:
    """A latency of NCCL's, its wire share (hops x NVLink's one way) scaled to this fabric."""
    wire = hops * NVLINK_LATENCY_US
    return gpu_us - wire + wire * jf.latency_factor


def ring_time_us(op: str, nbytes: float, jf: JobFabric) -> tuple[float, str]:
    """Ring all_reduce / all_gather / reduce_scatter: NCCL's fastest protocol and its time."""
    n = jf.ranks
    steps = 2 * (n - 1) if op == "all_reduce" else n - 1
    best = (float("inf"), "")
    for proto in ("LL", "LL128", "Simple"):
        bus = jf.ring_gbs * P.RING_BW_SHARE[proto]
        if proto == "LL":
            bus = min(bus, P.LL_MAX_BUS_GBS)
        if bus <= 0:
            continue
        step = _latency_us(P.RING_STEP_US[proto], P.RING_STEP_WIRE_HOPS, jf)
        lat = P.RING_BASE_US[proto] + steps * step
        t = lat + nbytes / (1e3 * bus * n / steps)
        best = min(best, (t, proto))
    return best


def nvls_time_us(op: str, nbytes: float, jf: JobFabric, eta: float = P.ETA_NVLS) -> float:
    """NVLS (in-switch reduction): 25 us, the pipeline's fill, then the bytes at its algbw."""
    n = jf.ranks
    b = eta * jf.nvls_gbs
    alg = b * n / (n - 1) if op == "all_reduce" else b * (n - 1) / n
    fill = (n - 1) * min(P.NVLS_ROUND_BYTES, nbytes / n) / (1e3 * b)
    return _latency_us(P.NVLS_LATENCY_US, P.NVLS_WIRE_HOPS, jf) + fill + nbytes / (1e3 * alg)


def all_to_all_time_us(nbytes: float, jf: JobFabric) -> float:
    """Direct sends to every peer at once: one Simple step; (n-1)/n of the buffer leaves."""
    n = jf.ranks
    lat = P.RING_BASE_US["Simple"] + _latency_us(P.RING_STEP_US["Simple"], 1, jf)
    bw = jf.ring_gbs if jf.a2a_gbs is None else jf.a2a_gbs
    return lat + nbytes * (n - 1) / n / (1e3 * bw)


def collective(op: str, algo: str, nbytes: float, jf: JobFabric) -> dict:
    """One collective's time and bandwidths, nccl-tests' way, and the algorithm that ran.

    algo 'auto' picks what NCCL's model would: the faster of ring (at its best protocol) and
    NVLS where the fabric offers it. A ScenarioError names `op` or `algo` when the pair cannot
    run (all_to_all is direct sends; NVLS needs in-switch reduction on some plane every rank
    reaches).
    """
    if op not in OPS:
        raise ScenarioError(f"op '{op}' is not one of {', '.join(OPS)}", token="op")
    if algo not in ALGOS:
        raise ScenarioError(f"algo '{algo}' is not one of {', '.join(ALGOS)}", token="algo")
    n = jf.ranks
    ring = nvls = None
    protocol = None
    if op == "all_to_all":
        if algo != "auto":
            raise ScenarioError(
                "all_to_all runs as direct sends to every peer (no ring, no NVLS): algo=auto",
                token="algo",
            )
        t, used, protocol = all_to_all_time_us(nbytes, jf), "direct", "Simple"
    else:
        ring, protocol = ring_time_us(op, nbytes, jf)
        if jf.nvls_gbs > 0:
            nvls = nvls_time_us(op, nbytes, jf)
        if algo == "nvls" and nvls is None:
            raise ScenarioError(
                "nvls needs in-switch reduction on a plane every rank reaches: this fabric "
                "and scenario leave none (algo=ring or auto)",
                token="algo",
            )
        if algo == "nvls" or (algo == "auto" and nvls is not None and nvls < ring):
            t, used, protocol = nvls, "nvls", "Simple"
        else:
            t, used = ring, "ring"
    if not np.isfinite(t):
        raise ScenarioError(
            f"two neighbouring ranks of these {n} share no plane in service: no ring can run",
            token="ranks",
        )
    alg = nbytes / (t * 1e3)  # GB/s
    return {
        "op": op,
        "algo": used,
        "protocol": protocol,
        "bytes": int(nbytes),
        "ranks": n,
        "time_us": round(t, 3),
        "algbw_gbs": round(alg, 3),
        "busbw_gbs": round(alg * bus_factor(op, n), 3),
        "bus_factor": round(bus_factor(op, n), 6),
        "ring_time_us": None if ring is None else round(ring, 3),
        "nvls_time_us": None if nvls is None else round(nvls, 3),
        "link_gbs": {
            "ring": round(jf.ring_gbs, 3),
            "nvls": round(jf.nvls_gbs, 3),
            "nvls_planes": jf.nvls_planes,
            "unit": "GB/s one way, NCCL-effective (40.1 of 50 GB/s a link)",
        },
    }


# --- calibration (docs/CALIBRATION.md) ----------------------------------------------------------

GIB = 1 << 30
# FACTS.md §4 [M]: CoreWeave nccl-tests, full GB200 NVL72 rack, 72 ranks, all_reduce busbw.
ALL_REDUCE_72 = ((GIB // 2, 586.0), (2 * GIB, 758.0), (4 * GIB, 841.0), (8 * GIB, 841.0))
ALL_REDUCE_72_RANGE = {4 * GIB: (835.0, 847.0), 8 * GIB: (835.0, 847.0)}
# FACTS.md §4 [M]: NVLS over ring, algbw, 8-GPU NVSwitch systems: 1.30x H100, 1.22x B300.
NVLS_GAIN_8 = (1.22, 1.30)
GAIN_BYTES = 8 * GIB


def nvls_gain(f: Fabric, ranks: int = 8, nbytes: float = GAIN_BYTES, eta: float = P.ETA_NVLS):
    """NVLS over ring (time ratio, the algbw ratio) for a job of `ranks` on a healthy `f`."""
    jf = healthy_job(f, ranks)
    ring, _ = ring_time_us("all_reduce", nbytes, jf)
    return ring / nvls_time_us("all_reduce", nbytes, jf, eta)


def _busbw_72(f: Fabric, nbytes: float, eta: float) -> float:
    jf = healthy_job(f, 72)
    t = min(nvls_time_us("all_reduce", nbytes, jf, eta), ring_time_us("all_reduce", nbytes, jf)[0])
    return nbytes / (t * 1e3) * bus_factor("all_reduce", 72)


def fit_nvls(f: Fabric) -> float:
    """eta_nvls minimising the squared log error over the four 72-rank points and the 8-GPU
    NVLS gain (its mid-range, 1.26x), on a healthy `f` (gb200-nvl72)."""
    mid = sum(NVLS_GAIN_8) / 2
    grid = np.round(np.arange(0.40, 0.90, 0.001), 3)

    def loss(eta: float) -> float:
        e = [np.log(_busbw_72(f, s, eta) / v) for s, v in ALL_REDUCE_72]
        e.append(np.log(nvls_gain(f, eta=eta) / mid))
        return float(np.sum(np.square(e)))

    return float(grid[np.argmin([loss(e) for e in grid])])
