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

from dataclasses import dataclass, field

import numpy as np

from model.assess import Assessment
from model.errors import ScenarioError
from model.fabric.presets import NVLINK_LATENCY_US, Fabric
from model.workloads import comm_params as P

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
ALGOS = ("ring", "tree", "nvls", "auto")
PROTOCOLS = ("LL", "LL128", "Simple")
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
    # what NCCL tuned on: the same ranks on the healthy fabric (its topology search runs when
    # the communicator is created; a later fault slows what it runs and does not re-tune it);
    # None: this fabric itself
    tuned_on: JobFabric | None = field(default=None, compare=False)

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
    healthy = healthy_job(f, ranks)
    eff = a.state.efficiency[idx]  # [n, planes], 0 down, <1 flaky
    hop = np.minimum(eff, np.roll(eff, -1, axis=0)).sum(axis=1)  # rank i -> i+1
    common = eff.min(axis=0) if f.sharp_tflops_per_chip > 0 else np.zeros(f.planes)
    return JobFabric(
        ranks,
        float(hop.min()) * link_gbs(f),
        float(common.sum()) * link_gbs(f),
        int((common > 0).sum()),
        f.latency_one_way_us,
        tuned_on=healthy,
    )


def _latency_us(gpu_us: float, hops: int, jf: JobFabric) -> float:
    """A latency of NCCL's, its wire share (hops x NVLink's one way) scaled to this fabric."""
    wire = hops * NVLINK_LATENCY_US
    return gpu_us - wire + wire * jf.latency_factor


def _steps(op: str, n: int) -> int:
    return 2 * (n - 1) if op == "all_reduce" else n - 1


def ring_channels(jf: JobFabric) -> int:
    """The ring graph's channels: as many of the search's first speed (90 GB/s) as the ring's
    bandwidth holds, doubled by ncclTopoDupChannels (16 on a GB200 GPU; comm_params)."""
    return 2 * max(1, int(jf.ring_gbs // P.SM100_SPEEDS_GBS[0]))


def _ring_us(op: str, nbytes, n: int, gbs, latency_factor: float, proto: str):
    """Ring at one protocol (tuning.cc's form, which the ring achieves), vectorised over
    message sizes and bandwidths: base + steps x step latency + bytes at busBw x n / steps;
    busBw the ring's, halved and capped for LL, 0.92 x and capped at 16 channels x 40 GB/s
    for LL128 (channels as ring_channels). inf where the ring has no bandwidth."""
    steps = _steps(op, n)
    gbs = np.asarray(gbs, dtype=float)
    bus = gbs * P.RING_BW_SHARE[proto]
    if proto == "LL":
        bus = np.minimum(bus, P.LL_MAX_BUS_GBS)
    if proto == "LL128":
        channels = 2 * np.maximum(1, np.floor(gbs / P.SM100_SPEEDS_GBS[0]))
        bus = np.minimum(bus, channels * P.PER_CH_MAX_RING_LL128_GBS)
    wire = P.RING_STEP_WIRE_HOPS * NVLINK_LATENCY_US
    step = P.RING_STEP_US[proto] - wire + wire * latency_factor
    with np.errstate(divide="ignore"):
        t = P.RING_BASE_US[proto] + steps * step + nbytes / (1e3 * bus * n / steps)
    return np.where(bus > 0, t, np.inf)


def ring_proto_us(op: str, nbytes: float, jf: JobFabric, proto: str) -> float:
    """Ring at one protocol on a job's fabric (_ring_us on its weakest ring hop)."""
    return float(_ring_us(op, nbytes, jf.ranks, jf.ring_gbs, jf.latency_factor, proto))


def ring_time_us(op: str, nbytes: float, jf: JobFabric) -> tuple[float, str]:
    """Ring all_reduce / all_gather / reduce_scatter: NCCL's fastest protocol and its time."""
    return min((ring_proto_us(op, nbytes, jf, p), p) for p in PROTOCOLS)


def _tree_correction(proto: str, nbytes: float, smooth: bool) -> float:
    """treeCorrectionFactor at log2(bytes / 64): NCCL's steps, or (`smooth`, what the tree
    achieves) the same table joined linearly between its points so time grows with bytes."""
    table = P.TREE_CORRECTION[proto]
    x = np.log2(nbytes / 64) if nbytes >= 64 else -1.0
    if x < 0 or x >= 23:
        return 1.0
    if not smooth:
        return table[int(x)]
    return float(np.interp(x, np.arange(len(table)), table))


def tree_proto_us(nbytes: float, jf: JobFabric, proto: str, smooth: bool = False) -> float:
    """Tree all_reduce on one NVLink domain (a chain to NCCL), tuning.cc's form and its
    correction by size: half the ring's bandwidth, lower step latencies (LL128, Simple)."""
    n = jf.ranks
    ch = ring_channels(jf)
    bus = min(0.92 * jf.ring_gbs, ch * P.PER_CH_MAX_TREE_GBS)
    if proto == "LL":
        bus = min(bus / 3.8, P.LL_MAX_BUS_GBS)
    elif proto == "LL128":
        bus = min(bus * 7 / 9, ch * P.PER_CH_MAX_TREE_LL128_GBS)
    bus *= _tree_correction(proto, nbytes, smooth)
    if bus <= 0:
        return float("inf")
    step = _latency_us(P.TREE_STEP_US[proto], P.RING_STEP_WIRE_HOPS, jf)
    return P.TREE_BASE_US[proto] + 2 * (n - 1) * step + nbytes / (1e3 * bus * 0.5)


def nvls_tuner_busbw(op: str, jf: JobFabric) -> float:
    """NCCL's belief of NVLS's bus bandwidth (its cost model, not what runs): heads, one a
    rank up to 32, each at the fastest search speed every GPU's links carry; 0 = no graph."""
    heads = min(jf.ranks, P.NVLS_MAX_ARITY)
    fits = [s for s in P.SM100_SPEEDS_GBS if (heads + 1) * s <= jf.nvls_gbs]
    if jf.nvls_gbs <= 0 or heads < 2 or not fits:
        return 0.0
    bw = heads * fits[0] * P.NVLS_TUNER_EFFICIENCY * (heads - 1) / heads
    return bw * 2 if op == "all_reduce" else bw * (jf.ranks - 1) / jf.ranks


def tuner_us(op: str, nbytes: float, jf: JobFabric) -> dict[tuple[str, str], float]:
    """NCCL's own predicted time (us) of every (algorithm, protocol) it may run for this op
    (ncclTopoGetAlgoTime): it runs the smallest. Only the wire share of each latency follows
    the fabric, as in the achieved forms."""
    out = {("ring", p): ring_proto_us(op, nbytes, jf, p) for p in PROTOCOLS}
    if op == "all_reduce":
        out |= {("tree", p): tree_proto_us(nbytes, jf, p) for p in PROTOCOLS}
    bus = nvls_tuner_busbw(op, jf)
    if bus > 0:
        n = jf.ranks
        alg = bus * n / _steps(op, n) if op == "all_reduce" else bus
        lat = _latency_us(P.NVLS_LATENCY_US, P.NVLS_WIRE_HOPS, jf)
        out[("nvls", "Simple")] = lat + nbytes / (1e3 * alg)
    return out


def small_all_reduce_us(nbytes, ranks: int, gbs, latency_one_way_us: float):
    """A tensor-parallel group's all_reduce as NCCL's ring runs it: its tuner's fastest of
    LL, LL128 and Simple (_ring_us), vectorised over message sizes and bandwidths: what
    decode's tensor-parallel attention pays twice a layer. gbs is one rank's NCCL-effective
    one-way GB/s; inf where it is 0."""
    lat = latency_one_way_us / NVLINK_LATENCY_US
    return np.minimum.reduce(
        [_ring_us("all_reduce", nbytes, ranks, gbs, lat, p) for p in PROTOCOLS]
    )


def one_shot_all_reduce_us(nbytes, ranks: int, gbs, latency_one_way_us: float):
    """A tensor-parallel group's all_reduce as TensorRT-LLM, SGLang and vLLM run it on NVLink
    below a few MiB: each rank reads its ranks-1 peers' buffers and sums them (comm_params
    ONE_SHOT_US; a slower path to the slowest peer adds its extra latency each way). gbs is
    one rank's NCCL-effective one-way GB/s; inf where it is 0."""
    extra = 2 * max(latency_one_way_us - NVLINK_LATENCY_US, 0.0)
    return P.ONE_SHOT_US + extra + _one_shot_reads_us(nbytes, ranks, gbs)


def _one_shot_reads_us(nbytes, ranks: int, gbs):
    """The one-shot all_reduce's reads of its ranks-1 peers' buffers (us); inf at 0 GB/s."""
    gbs = np.asarray(gbs, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(gbs > 0, (ranks - 1) * np.asarray(nbytes) / (1e3 * gbs), np.inf)


def fit_one_shot(f: Fabric) -> float:
    """ONE_SHOT_US from its one fitted point (comm_params.ONE_SHOT_POINTS[0]): the measured
    time less its reads at a healthy `f`'s per-GPU rate (healthy_job's)."""
    nbytes, ranks, ms = P.ONE_SHOT_POINTS[0]
    reads = _one_shot_reads_us(nbytes, ranks, healthy_job(f, ranks).ring_gbs)
    return round(1e3 * ms - float(reads), 1)


def eta_nvls(n: int, eta: float = P.ETA_NVLS, k: float = P.NVLS_GROUP_K) -> float:
    """NVLS's achieved share of the planes' bandwidth for a group of n ranks (comm_params);
    the group term is held at its value for the largest measured group beyond it."""
    return eta / (1 + k * (min(n, P.NVLS_GROUP_MAX) - 1))


def nvls_time_us(
    op: str, nbytes: float, jf: JobFabric, eta: float = P.ETA_NVLS, k: float = P.NVLS_GROUP_K
) -> float:
    """NVLS as it runs: 25 us, the pipeline's fill, then the bytes at its algbw: all_reduce
    moves (1 + 1/n) of the buffer each way a GPU, all_gather / reduce_scatter (n-1)/n; the
    fill is all_reduce's (fitted there), the others have no measured curve to hold it."""
    n = jf.ranks
    b = eta_nvls(n, eta, k) * jf.nvls_gbs
    alg = b * n / (n + 1) if op == "all_reduce" else b * (n - 1) / n
    fill = (n - 1) * min(P.NVLS_ROUND_BYTES, nbytes / n) / (1e3 * b) if op == "all_reduce" else 0
    return _latency_us(P.NVLS_LATENCY_US, P.NVLS_WIRE_HOPS, jf) + fill + nbytes / (1e3 * alg)


def all_to_all_time_us(nbytes: float, jf: JobFabric) -> float:
    """Direct sends to every peer at once: one Simple step; (n-1)/n of the buffer leaves."""
    n = jf.ranks
    lat = P.RING_BASE_US["Simple"] + _latency_us(P.RING_STEP_US["Simple"], 1, jf)
    bw = jf.ring_gbs if jf.a2a_gbs is None else jf.a2a_gbs
    return lat + nbytes * (n - 1) / n / (1e3 * bw)


def achieved_us(op: str, nbytes: float, jf: JobFabric, algo: str, proto: str) -> float:
    """What nccl-tests would time for (algo, proto): the ring and tree run as NCCL models
    them; NVLS as it runs on the fabric (fitted), not as NCCL's tuner believes."""
    if algo == "nvls":
        return nvls_time_us(op, nbytes, jf)
    if algo == "tree":
        return tree_proto_us(nbytes, jf, proto, smooth=True)
    return ring_proto_us(op, nbytes, jf, proto)


def choose(op: str, algo: str, nbytes: float, jf: JobFabric) -> tuple[str, str, dict]:
    """The (algorithm, protocol) NCCL runs: its tuner's fastest among those `algo` allows
    ('auto' all; 'ring', 'tree' or 'nvls' as NCCL_ALGO would), and the tuner's table."""
    table = tuner_us(op, nbytes, jf)
    allowed = {k: t for k, t in table.items() if algo in ("auto", k[0]) and np.isfinite(t)}
    if algo == "nvls" and not allowed and jf.nvls_gbs > 0:
        allowed = {("nvls", "Simple"): nvls_time_us(op, nbytes, jf)}  # forced: NCCL_ALGO=NVLS
    if not allowed:
        return algo, "", table
    (a, p), _ = min(allowed.items(), key=lambda kv: kv[1])
    return a, p, table


def _refuse(op: str, algo: str, jf: JobFabric) -> None:
    if op not in OPS:
        raise ScenarioError(f"op '{op}' is not one of {', '.join(OPS)}", token="op")
    if algo not in ALGOS:
        raise ScenarioError(f"algo '{algo}' is not one of {', '.join(ALGOS)}", token="algo")
    if op == "all_to_all" and algo != "auto":
        raise ScenarioError(
            "all_to_all runs as direct sends to every peer (no ring, no NVLS): algo=auto",
            token="algo",
        )
    if algo == "nvls" and jf.nvls_gbs <= 0:
        raise ScenarioError(
            "nvls needs in-switch reduction on a plane every rank reaches: this fabric "
            "and scenario leave none (algo=ring or auto)",
            token="algo",
        )
    if algo == "tree" and op != "all_reduce":
        raise ScenarioError(f"NCCL runs {op} as ring or NVLS, not tree", token="algo")


def collective(op: str, algo: str, nbytes: float, jf: JobFabric) -> dict:
    """One collective's time and bandwidths, nccl-tests' way, and the algorithm that ran.

    algo 'auto' is NCCL's own choice: its tuner's fastest (algorithm, protocol) for this rank
    count and size (tuning.cc) on the fabric it tuned on (jf.tuned_on: the healthy one), priced
    as it runs on this one; 'ring', 'tree' and 'nvls' force one, as NCCL_ALGO does. A
    ScenarioError names `op` or `algo` when the pair cannot run.
    """
    _refuse(op, algo, jf)
    n = jf.ranks
    ring = nvls = None
    if op == "all_to_all":
        t, used, protocol, table = all_to_all_time_us(nbytes, jf), "direct", "Simple", {}
    else:
        used, protocol, table = choose(op, algo, nbytes, jf.tuned_on or jf)
        if used == "nvls" and jf.nvls_gbs <= 0:  # its multicast group is gone: NCCL re-tunes
            used, protocol, table = choose(op, algo, nbytes, jf)
        t = achieved_us(op, nbytes, jf, used, protocol) if protocol else float("inf")
        ring = ring_time_us(op, nbytes, jf)[0]
        if jf.nvls_gbs > 0:
            nvls = nvls_time_us(op, nbytes, jf)
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
        "ring_time_us": None if ring is None or not np.isfinite(ring) else round(ring, 3),
        "nvls_time_us": None if nvls is None else round(nvls, 3),
        "tuner_us": {f"{a}/{p}": round(x, 3) for (a, p), x in table.items() if np.isfinite(x)},
        "chosen_by": CHOSEN_BY,
        "link_gbs": {
            "ring": round(jf.ring_gbs, 3),
            "nvls": round(jf.nvls_gbs, 3),
            "nvls_planes": jf.nvls_planes,
            "unit": "GB/s one way, NCCL-effective (40.1 of 50 GB/s a link)",
        },
    }


CHOSEN_BY = (
    "NCCL's tuner (tuning.cc): the (algorithm, protocol) its own cost model finds fastest for "
    "this rank count and size on the healthy fabric, where the communicator was created (a "
    "later fault slows what it runs, and does not re-tune it); time_us is what that choice "
    "achieves here, tuner_us NCCL's belief"
)


# --- calibration (docs/CALIBRATION.md) ----------------------------------------------------------

GIB = 1 << 30
# FACTS.md §4 [M]: CoreWeave nccl-tests, full GB200 NVL72 rack, 72 ranks, all_reduce busbw.
ALL_REDUCE_72 = ((GIB // 2, 586.0), (2 * GIB, 758.0), (4 * GIB, 841.0), (8 * GIB, 841.0))
ALL_REDUCE_72_RANGE = {4 * GIB: (835.0, 847.0), 8 * GIB: (835.0, 847.0)}
# FACTS.md §4 [M]: NVLS over ring, algbw, 8-GPU NVSwitch systems: 1.30x H100, 1.22x B300.
NVLS_GAIN_8 = (1.22, 1.30)
GAIN_BYTES = 8 * GIB


def nvls_gain(
    f: Fabric,
    ranks: int = 8,
    nbytes: float = GAIN_BYTES,
    eta: float = P.ETA_NVLS,
    k: float = P.NVLS_GROUP_K,
) -> float:
    """NVLS over ring (time ratio, the algbw ratio) for a job of `ranks` on a healthy `f`."""
    jf = healthy_job(f, ranks)
    ring, _ = ring_time_us("all_reduce", nbytes, jf)
    return ring / nvls_time_us("all_reduce", nbytes, jf, eta, k)


def _busbw_72(f: Fabric, nbytes: float, eta: float, k: float) -> float:
    """NVLS's busbw at 72 ranks (what NCCL's tuner runs there at every size: a test holds it)."""
    t = nvls_time_us("all_reduce", nbytes, healthy_job(f, 72), eta, k)
    return nbytes / (t * 1e3) * bus_factor("all_reduce", 72)


def fit_nvls(f: Fabric) -> tuple[float, float]:
    """(eta, k) of eta(n) = eta / (1 + k (n-1)) minimising the squared log error over the four
    72-rank points and the 8-GPU NVLS gain (its mid-range, 1.26x), on a healthy `f`."""
    mid = sum(NVLS_GAIN_8) / 2
    etas = np.round(np.arange(0.60, 1.00, 0.002), 3)
    ks = np.round(np.arange(0.0, 0.0201, 0.0005), 4)

    def loss(eta: float, k: float) -> float:
        e = [np.log(_busbw_72(f, s, eta, k) / v) for s, v in ALL_REDUCE_72]
        e.append(np.log(nvls_gain(f, eta=eta, k=k) / mid))
        return float(np.sum(np.square(e)))

    best = min((loss(e, k), e, k) for e in etas for k in ks)
    return float(best[1]), float(best[2])
