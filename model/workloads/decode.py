"""MoE decode as real deployments run it: the frontier over batch, EP size, MTP, KV precision
and overlap, with the step's time broken into named parts at every point.

One decode step on the slowest GPU of an EP group, b requests per GPU (data-parallel
attention), q = 1 + d tokens per request (d MTP drafts verified), n = b q tokens:

    MoE layer   attention (projections, then the core over the context) + shared expert
                + routed experts on the hottest rank (load imbalance) + activation traffic
                + the layer's kernel overhead, each kernel max(FLOPs / (peak x eta), bytes /
                (HBM x eta_hbm)) with the best published kernels' eta (decode_params)
                + dispatch + combine (moe_a2a: the calibrated TensorRT-LLM model on the
                group's fabric), either in series, or overlapped by two micro-batches:
                2 x max(compute(b/2), comm(b/2)), every weight read twice
    step        MoE layers + dense layers + head + MTP drafting + per-step overhead
    tokens/s per user = (1 + acceptance x d) / step;  per GPU = b x that

The in-service GPUs form floor(n / ep) groups; each runs at its own slowest rank. At each
interactivity the frontier takes the deployment with the most tokens/s per installed GPU;
the chosen deployment and the time breakdown are returned with every point.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import product

import numpy as np

from model.workloads import decode_params as D
from model.workloads import moe_a2a
from model.workloads.models import GPU, MoEModel


@dataclass(frozen=True)
class Terms:
    """The fitted terms (decode_params), kept together so the calibration can move each."""

    step_overhead_us: float = D.STEP_OVERHEAD_US
    token_overhead_us: float = D.TOKEN_OVERHEAD_US
    attention_spread: float = D.ATTENTION_SPREAD

    def moved(self, name: str, factor: float) -> Terms:
        """These terms with one of them scaled (the calibration's sensitivity column)."""
        from dataclasses import replace

        return replace(self, **{name: getattr(self, name) * factor})


FITTED = Terms()
TERM_NAMES = {
    "step_overhead_us": "per-step overhead (us)",
    "token_overhead_us": "per-token overhead on B200 (us a token a step)",
    "attention_spread": "data-parallel attention spread (x Poisson)",
}


@dataclass(frozen=True)
class Workload:
    """What is served: the model, its expert precision and the request's context."""

    model: MoEModel
    expert_precision: str = "nvfp4"
    isl: int = D.ISL
    osl: int = D.OSL

    @property
    def context(self) -> float:
        """Mean context of a decoding request: the prompt and half the answer."""
        return self.isl + self.osl / 2

    @property
    def reserved(self) -> int:
        return self.isl + self.osl


@dataclass(frozen=True)
class Deployment:
    """One way to serve: EP size, MTP drafts, KV-cache precision, two micro-batches or not."""

    ep: int
    mtp: int
    kv: str
    overlap: bool

    @property
    def tokens_per_step(self) -> float:
        return 1.0 + D.MTP_ACCEPTANCE * self.mtp

    def label(self) -> str:
        parts = [f"EP{self.ep}", "MTP" if self.mtp else "no MTP", f"{self.kv.upper()} KV"]
        if self.overlap:
            parts.append("two micro-batches")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {
            "ep": self.ep,
            "mtp_drafts": self.mtp,
            "kv_cache": self.kv,
            "two_micro_batches": self.overlap,
            "label": self.label(),
        }


def deployments(max_ep: int, dominated: bool = False) -> tuple[Deployment, ...]:
    """The deployments the frontier tries with groups of at most `max_ep` GPUs.

    A BF16 KV cache is dominated by an FP8 one here: the attention math is the same (BF16,
    decode_params.ATTENTION_MATH), the cache reads are twice the bytes and half as many
    requests fit, so at every batch its step is no faster and its largest batch smaller. A
    deployment picks BF16 for accuracy, never for speed; the frontier leaves it out unless
    `dominated` (the tests check it never wins)."""
    eps = [e for e in D.EP_SIZES if e <= max_ep]
    kvs = D.KV_PRECISIONS if dominated else tuple(k for k in D.KV_PRECISIONS if k == "fp8")
    return tuple(
        Deployment(e, d, kv, ov) for e, d, kv, ov in product(eps, D.MTP_DRAFTS, kvs, D.OVERLAP)
    )


# --- one step ----------------------------------------------------------------------------------


def _kernel(gpu: GPU, nbytes, flops, precision: str, eta: float = D.ETA_GEMM):
    """A kernel's time (us): the larger of its HBM reads and its FLOPs; and whether HBM binds."""
    t_mem = nbytes / (gpu.hbm_tbs * 1e12 * D.ETA_HBM) * 1e6
    t_fl = flops / (gpu.peak_flops(precision) * eta) * 1e6
    return np.maximum(t_mem, t_fl), t_mem >= t_fl


def _weights_bytes(m: MoEModel, w: Workload, ep: int) -> float:
    """Weights one GPU holds: everything but the routed experts in full, its share of those."""
    e_local = int(np.ceil(m.experts / ep))
    other = (
        m.layers * m.attn_params_per_layer
        + m.dense_layers * m.dense_ffn_params
        + m.moe_layers * m.shared_experts * m.expert_params
        + 2 * m.vocab * m.hidden
        + m.attn_params_per_layer  # the MTP module's own layer
    ) * D.OTHER_WEIGHT_BYTES
    experts = (m.moe_layers + 1) * e_local * m.expert_params * D.EXPERT_BYTES[w.expert_precision]
    return other + experts


def max_batch(m: MoEModel, gpu: GPU, w: Workload, dep: Deployment) -> float:
    """Requests per GPU whose reserved KV cache fits beside the weights (0 if none fits)."""
    room = gpu.hbm_gb * 1e9 * D.HBM_USABLE - _weights_bytes(m, w, dep.ep)
    per_request = w.reserved * m.kv_bytes_per_token * D.KV_SCALE[dep.kv]
    return float(max(0.0, min(D.MAX_BATCH, room / per_request)))


def busiest(b, ep: int, spread: float = D.ATTENTION_SPREAD):
    """Requests on the busiest attention rank when a GPU holds b on average: requests arrive
    and finish at random, so the counts scatter; for Poisson counts the largest of ep is about
    b + sqrt(2 b ln ep) [D], and `spread` (fitted) scales that for the rest of the scatter
    (contexts of unequal length, bursts from prefill); at least one request."""
    b = np.asarray(b, dtype=float)
    return np.maximum(1.0, b + spread * np.sqrt(2 * b * np.log(max(ep, 1))))


def _layer_compute(m, gpu, w, ep: int, kv_scale, b, q, terms, moe: bool) -> dict:
    """One layer's compute on the busiest GPU for b requests of q tokens each (us, arrays;
    kv_scale and q may be per-row columns)."""
    hot_b = busiest(b, ep, terms.attention_spread)
    n_att = hot_b * q
    n = b * q
    ctx = w.context
    kv_bytes = hot_b * ctx * m.kv_bytes_per_token_layer * kv_scale
    proj, proj_hbm = _kernel(
        gpu,
        m.attn_params_per_layer * D.OTHER_WEIGHT_BYTES,
        2 * n_att * m.attn_params_per_layer,
        "fp8",
    )
    core, core_hbm = _kernel(
        gpu, kv_bytes, n_att * ctx * m.attn_flops_per_ctx_token, D.ATTENTION_MATH, D.ETA_ATTN
    )
    act = n_att * m.hidden * 2 * D.ACTIVATION_PASSES / (gpu.hbm_tbs * 1e12 * D.ETA_HBM) * 1e6
    out = {
        "attention": proj + core,
        "attention_hbm": np.where(proj_hbm, proj, 0) + np.where(core_hbm, core, 0),
        "activations": act,
    }
    if not moe:
        dense, dense_hbm = _kernel(
            gpu, m.dense_ffn_params * D.OTHER_WEIGHT_BYTES, 2 * n * m.dense_ffn_params, "fp8"
        )
        zero = np.zeros_like(n)
        return out | {
            "dense": dense,
            "dense_hbm": np.where(dense_hbm, dense, 0),
            "experts": zero,
            "imbalance": zero,
            "experts_hbm": zero,
        }
    shared_p = m.shared_experts * m.expert_params
    shared, shared_hbm = _kernel(gpu, shared_p * D.OTHER_WEIGHT_BYTES, 2 * n * shared_p, "fp8")
    mean_pairs = n * m.top_k  # routed (token, expert) pairs a rank receives on average
    spread = np.sqrt(2 * np.log(ep) / np.maximum(mean_pairs, 1e-9)) if ep > 1 else 0.0
    hot = mean_pairs * np.minimum((1 + D.EXPERT_SKEW) * (1 + spread), ep)
    e_local = np.ceil(m.experts / ep)
    touched = e_local * (1 - (1 - m.top_k / m.experts) ** (n * ep))
    eb = D.EXPERT_BYTES[w.expert_precision]
    prec = "nvfp4" if w.expert_precision == "nvfp4" else "fp8"
    wbytes = touched * m.expert_params * eb
    mean_t, _ = _kernel(gpu, wbytes, 2 * mean_pairs * m.expert_params, prec)
    hot_t, hot_hbm = _kernel(gpu, wbytes, 2 * hot * m.expert_params, prec)
    return out | {
        "dense": shared,
        "dense_hbm": np.where(shared_hbm, shared, 0),
        "experts": mean_t,
        "imbalance": hot_t - mean_t,
        "experts_hbm": np.where(hot_hbm, hot_t, 0),
    }


COMPUTE_KEYS = ("attention", "experts", "imbalance", "dense", "activations")


def _comm(m, v: moe_a2a.EPFabric, b, q, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """Dispatch and combine of one MoE layer (us): the busiest rank sends its tokens."""
    if v.ep <= 1:
        z = np.zeros_like(b * q)
        return z, z
    tokens = busiest(b, v.ep, spread) * q
    d = moe_a2a.parts_us("dispatch", tokens, m, D.DISPATCH_PRECISION, v)
    c = moe_a2a.parts_us("combine", tokens, m, D.COMBINE_PRECISION, v)
    return sum(d.values()), sum(c.values())


def _moe_compute(m, gpu, w, ep, kv_scale, overlap, b, q, terms) -> dict:
    """One MoE layer's compute, served in series and (where `overlap`) as two micro-batches of
    half the batch each (every weight read twice): what does not depend on the fabric."""
    ov = np.asarray(overlap, dtype=bool)
    serial = _layer_compute(m, gpu, w, ep, kv_scale, b, q, terms, moe=True)
    out = {"serial": serial, "overlap": ov, "b": b, "q": q}
    if ov.any():
        half = _layer_compute(m, gpu, w, ep, kv_scale, b / 2, q, terms, moe=True)
        out["two"] = {k: 2 * x for k, x in half.items()}
    return out


def _moe_layer(pre: dict, m, v, terms) -> dict:
    """One MoE layer on a fabric: its compute (from _moe_compute), dispatch, combine, and what
    of them the overlap hides, row by row."""
    b, q, ov = pre["b"], pre["q"], pre["overlap"]
    disp, comb = _comm(m, v, b, q, terms.attention_spread)
    serial = pre["serial"] | {"dispatch": disp, "combine": comb, "exposed": disp + comb}
    if "two" not in pre:
        return serial
    comp = pre["two"]
    d2, c2 = (2 * x for x in _comm(m, v, b / 2, q, terms.attention_spread))
    busy = sum(comp[k] for k in COMPUTE_KEYS)
    # two micro-batches: per layer 2 x max(compute, comm) of each; comm beyond compute shows
    tbo = comp | {"dispatch": d2, "combine": c2, "exposed": np.maximum(d2 + c2 - busy, 0)}
    return {k: np.where(ov, tbo[k], serial[k]) for k in serial}


def _head(m, gpu, b, q, ep: int, spread: float):
    t, hbm = _kernel(
        gpu,
        m.vocab * m.hidden * D.OTHER_WEIGHT_BYTES,
        2 * busiest(b, ep, spread) * q * m.vocab * m.hidden,
        "fp8",
    )
    return t, np.where(hbm, t, 0)


BREAKDOWN_KEYS = (
    "attention",
    "experts",
    "imbalance",
    "dense",
    "activations",
    "mtp_draft",
    "exposed",
    "overhead",
)
BREAKDOWN_NAMES = {
    "attention": "attention (projections and the core over the context)",
    "experts": "routed expert GEMMs (mean load)",
    "imbalance": "expert load imbalance (the hottest rank's extra)",
    "dense": "shared experts, dense layers and the head",
    "activations": "activation traffic (norms, router, permute, quantise)",
    "mtp_draft": "MTP drafting (one MoE layer and the head per draft; its all-to-all is in exposed)",
    "exposed": "dispatch and combine left exposed after the overlap",
    "overhead": (
        "per-step and per-token overhead outside the kernels modelled (launch gaps; routing, "
        "permute, sampling), fitted on B200; [A] the per-token part scales with HBM bandwidth"
    ),
}


def _prepare(m, gpu, w, ep, mtp, kv_scale, overlap, b, terms) -> dict:
    """Everything of a step that does not depend on the fabric, for several deployments of
    one EP size at once (mtp, kv_scale, overlap per-row columns; b rows x batches)."""
    q = 1 + mtp
    head, head_hbm = _head(m, gpu, b, q, ep, terms.attention_spread)
    pre = {
        "moe": _moe_compute(m, gpu, w, ep, kv_scale, overlap, b, q, terms),
        "dense": _layer_compute(m, gpu, w, ep, kv_scale, b, q, terms, moe=False),
        "head": head,
        "head_hbm": head_hbm,
        "overhead": terms.step_overhead_us
        + terms.token_overhead_us
        * (D.TOKEN_OVERHEAD_HBM_TBS / gpu.hbm_tbs)
        * busiest(b, ep, terms.attention_spread)
        * q,
        "mtp": mtp,
        "b": b,
        "q": q,
    }
    if np.any(mtp):
        pre["draft"] = _moe_compute(m, gpu, w, ep, kv_scale, False, b, 1, terms)
        pre["draft_head"] = _head(m, gpu, b, 1, ep, terms.attention_spread)[0]
    return pre


def _finish(pre: dict, m, v, terms) -> dict[str, np.ndarray]:
    """A prepared step on one fabric view: the parts (us), their sum, and the two rates."""
    moe = _moe_layer(pre["moe"], m, v, terms)
    dense, mtp, b, q = pre["dense"], pre["mtp"], pre["b"], pre["q"]
    L, Ld = m.moe_layers, m.dense_layers
    parts = {k: L * moe[k] + Ld * dense[k] for k in COMPUTE_KEYS}
    parts["dense"] = parts["dense"] + pre["head"]
    parts["exposed"] = L * moe["exposed"]
    parts["overhead"] = pre["overhead"]
    if "draft" in pre:
        draft = _moe_layer(pre["draft"], m, v, terms)
        parts["mtp_draft"] = mtp * (sum(draft[k] for k in COMPUTE_KEYS) + pre["draft_head"])
        parts["exposed"] = parts["exposed"] + mtp * draft["exposed"]
    else:
        parts["mtp_draft"] = np.zeros_like(b * q)
    total = sum(parts[k] for k in BREAKDOWN_KEYS)
    hbm = (
        L * (moe["attention_hbm"] + moe["dense_hbm"] + moe["experts_hbm"] + moe["activations"])
        + Ld * (dense["attention_hbm"] + dense["dense_hbm"] + dense["activations"])
        + pre["head_hbm"]
    )
    tps = 1.0 + D.MTP_ACCEPTANCE * mtp
    return parts | {
        "total": total,
        "dispatch": L * moe["dispatch"],
        "combine": L * moe["combine"],
        "hbm_bound": hbm,
        "tokens_per_s_per_user": tps / (total * 1e-6),
        "tokens_per_s_per_gpu": b * tps / (total * 1e-6),
    }


def _step_rows(m, gpu, w, ep, mtp, kv_scale, overlap, v, b, terms) -> dict[str, np.ndarray]:
    """step() for several deployments of one EP size at once."""
    return _finish(_prepare(m, gpu, w, ep, mtp, kv_scale, overlap, b, terms), m, v, terms)


def step(
    m: MoEModel,
    gpu: GPU,
    w: Workload,
    dep: Deployment,
    v: moe_a2a.EPFabric,
    b,
    terms: Terms = FITTED,
) -> dict[str, np.ndarray]:
    """One decode step for b requests per GPU (an array): its parts (us), their sum, the
    dispatch and combine before the overlap, the HBM-bound share, and the two rates."""
    b = np.asarray(b, dtype=float)
    out = _step_rows(m, gpu, w, dep.ep, dep.mtp, D.KV_SCALE[dep.kv], dep.overlap, v, b, terms)
    return {k: np.broadcast_to(x, b.shape) for k, x in out.items()}


# --- the frontier ------------------------------------------------------------------------------

Groups = tuple[tuple[moe_a2a.EPFabric, int], ...]  # (slowest rank's view, groups like it)


@dataclass(frozen=True)
class Hardware:
    """What decode needs of a fabric in a state: the GPU, the GPUs installed (the per-GPU
    denominator: a lost GPU counts as zero) and, per EP size, the groups it can form."""

    key: str
    gpu: GPU
    installed: int
    groups: tuple[tuple[int, Groups], ...]  # (ep, groups) for every EP size that fits

    def groups_for(self, ep: int) -> Groups:
        return dict(self.groups).get(ep, ())

    @property
    def max_ep(self) -> int:
        return max((e for e, g in self.groups if g), default=0)


@lru_cache(maxsize=512)
def _prepared(m, gpu, w, ep: int, knobs: tuple, terms) -> tuple[np.ndarray, np.ndarray, dict]:
    """The fabric-independent half of several deployments' sweeps (knobs: (mtp, kv, overlap)
    each): which rows fit at least one request a group, their batches (one request a group to
    the KV limit) and their prepared steps. Memoised per EP size and model: every scenario's
    groups of that size share it."""
    lo = 1.0 / ep
    bmax = np.array(
        [max_batch(m, gpu, w, Deployment(ep, d, kv, ov)) for d, kv, ov in knobs], dtype=float
    )
    rows = np.flatnonzero(bmax >= lo)
    b = np.geomspace(lo, np.maximum(bmax[rows], lo * 1.0001), D.BATCH_POINTS).T  # rows x K
    pick = [knobs[r] for r in rows]
    mtp = np.array([k[0] for k in pick], dtype=float)[:, None]
    kv = np.array([D.KV_SCALE[k[1]] for k in pick], dtype=float)[:, None]
    ov = np.array([k[2] for k in pick], dtype=bool)[:, None]
    return rows, b, _prepare(m, gpu, w, ep, mtp, kv, ov, b, terms) if len(rows) else {}


@lru_cache(maxsize=4096)
def _sweeps(m, gpu, w, ep: int, knobs: tuple, v, terms) -> tuple[dict | None, ...]:
    """The batch sweeps of several deployments of one EP size on one group's view (None for a
    deployment where not even one request a group fits). Memoised: a view recurs across
    scenarios (every healthy group, the healthy racks, the baselines). Arrays are read-only."""
    rows, b, pre = _prepared(m, gpu, w, ep, knobs, terms)
    if not len(rows):
        return tuple(None for _ in knobs)
    return _split(rows, b, _finish(pre, m, v, terms) | {"batch": b}, len(knobs))


def _split(rows, b, out: dict, n: int) -> tuple[dict | None, ...]:
    """Per-deployment sweeps (sorted by interactivity, read-only) from rows x batches arrays."""
    result: list[dict | None] = [None] * n
    order = np.argsort(out["tokens_per_s_per_user"], axis=1)  # ascending interactivity
    rows_idx = np.arange(len(rows))[:, None]
    mats = {
        k: (x if np.shape(x) == b.shape else np.broadcast_to(x, b.shape))[rows_idx, order]
        for k, x in out.items()
    }
    mats["log_u"] = np.log(mats["tokens_per_s_per_user"])
    for a in mats.values():
        a.flags.writeable = False
    for i, r in enumerate(rows):
        result[r] = {k: x[i] for k, x in mats.items()}
    return tuple(result)


@lru_cache(maxsize=1024)
def _sweeps_many(m, gpu, w, ep: int, knobs: tuple, views: tuple, terms) -> tuple[tuple, ...]:
    """_sweeps for several views of one EP size at once (one scenario's groups): their
    bandwidths stacked on a leading axis, so the fabric-dependent half is one pass."""
    if len(views) == 1:
        return (_sweeps(m, gpu, w, ep, knobs, views[0], terms),)
    rows, b, pre = _prepared(m, gpu, w, ep, knobs, terms)
    if not len(rows):
        return tuple(tuple(None for _ in knobs) for _ in views)
    v0 = views[0]
    stacked = replace(
        v0,
        line_bytes_s=np.array([v.line_bytes_s for v in views])[:, None, None],
        pps=np.array([v.pps for v in views])[:, None, None],
    )
    out = _finish(pre, m, stacked, terms)
    full = (len(views), *b.shape)
    per = [
        {k: np.broadcast_to(x, full)[j] for k, x in out.items()} | {"batch": b}
        for j in range(len(views))
    ]
    return tuple(_split(rows, b, o, len(knobs)) for o in per)


def sweep_at_batch(
    m: MoEModel, gpu: GPU, w: Workload, dep: Deployment, v, b: float, keys: tuple[str, ...]
) -> tuple[float, ...]:
    """`keys` of a deployment's (memoised) sweep on view v at b requests a GPU, log-log
    interpolated in the batch: a step at a batch the frontier chose elsewhere, cheaply."""
    c = _sweeps(m, gpu, w, dep.ep, ((dep.mtp, dep.kv, dep.overlap),), v, FITTED)[0]
    if c is None:
        return tuple(float("nan") for _ in keys)
    order = np.argsort(c["batch"])
    lb = np.log(c["batch"][order])
    return tuple(
        float(np.exp(np.interp(np.log(b), lb, np.log(np.maximum(c[k][order], 1e-30)))))
        for k in keys
    )


def _at(c: dict, log_x: np.ndarray, key: str) -> np.ndarray:
    """`key` of a sweep (sorted by interactivity) at each target log(x), log-log interpolated.
    A target below the sweep's slowest point is met by that point (the largest batch the KV
    cache holds: a deployment faster than asked still serves it); NaN above its fastest."""
    lu = c["log_u"]
    out = np.exp(np.interp(log_x, lu, np.log(np.maximum(c[key], 1e-30))))
    out[log_x > lu[-1] + 1e-9] = np.nan
    return out


def _at_many(cs: list[dict], log_x: np.ndarray, key: str) -> np.ndarray:
    """_at for several sweeps at once (rows x targets): each row's interactivities sorted
    ascending, searched together by offsetting every row by a constant far wider than the
    values (log tokens/s lie within +-20), then interpolated linearly in log-log."""
    lu = np.stack([c["log_u"] for c in cs])
    ly = np.log(np.maximum(np.stack([c[key] for c in cs]), 1e-30))
    n, k = lu.shape
    off = (np.arange(n) * 1000.0)[:, None]
    idx = np.searchsorted((lu + off).ravel(), (log_x[None, :] + off).ravel()).reshape(n, -1)
    idx = np.clip(idx - np.arange(n)[:, None] * k, 1, k - 1)
    rows = np.arange(n)[:, None]
    x0, x1 = lu[rows, idx - 1], lu[rows, idx]
    y0, y1 = ly[rows, idx - 1], ly[rows, idx]
    span = x1 - x0
    t = np.where(span > 0, (log_x[None, :] - x0) / np.where(span > 0, span, 1.0), 1.0)
    out = np.exp(y0 + np.clip(t, 0.0, 1.0) * (y1 - y0))
    below = log_x[None, :] < lu[:, :1]
    out = np.where(below, np.exp(ly[:, :1]), out)
    return np.where(log_x[None, :] > lu[:, -1:] + 1e-9, np.nan, out)


@dataclass(frozen=True)
class Frontier:
    """Tokens/s per installed GPU at each interactivity, the deployment chosen there, and the
    chosen deployment's step breakdown on its slowest group (us per step)."""

    x: np.ndarray  # tokens/s per user
    tokens_per_s_per_gpu: np.ndarray  # NaN where no deployment reaches x
    choice: np.ndarray  # index into deployments, -1 where unreachable
    deployments: tuple[Deployment, ...]
    breakdown: dict[str, np.ndarray]
    peak_tokens_per_s_per_gpu: float
    max_tokens_per_s_per_user: float

    def deployment_at(self, i: int) -> Deployment | None:
        c = int(self.choice[i])
        return self.deployments[c] if c >= 0 else None


GRID = np.arange(2.0, 602.0, 2.0)  # tokens/s per user, 2 apart
SWEEP_KEYS = (*BREAKDOWN_KEYS, "total", "dispatch", "combine", "hbm_bound", "batch")


def frontier(
    m: MoEModel,
    hw: Hardware,
    w: Workload | None = None,
    x: np.ndarray = GRID,
    terms: Terms = FITTED,
    only: tuple[Deployment, ...] | None = None,
) -> Frontier:
    """The best deployment at each interactivity x, on hardware `hw` in its state."""
    w = w or Workload(m)
    deps = only if only is not None else deployments(hw.max_ep)
    log_x = np.log(x)
    best = np.full(x.shape, np.nan)
    choice = np.full(x.shape, -1)
    source: dict[int, dict] = {}  # deployment index -> the sweep its breakdown is read from
    peak, top = 0.0, 0.0
    for ep in sorted({d.ep for d in deps}):
        groups = hw.groups_for(ep)
        mine = [(i, d) for i, d in enumerate(deps) if d.ep == ep]
        if not groups or not mine:
            continue
        knobs = tuple((d.mtp, d.kv, d.overlap) for _, d in mine)
        alike = tuple(v for v, _ in groups if v.ep == ep)
        many = dict(zip(alike, _sweeps_many(m, hw.gpu, w, ep, knobs, alike, terms), strict=True))
        swept = [
            (v, count, many[v] if v.ep == ep else _sweeps(m, hw.gpu, w, v.ep, knobs, v, terms))
            for v, count in groups
        ]
        lives = [
            [(v, count, sw[r]) for v, count, sw in swept if sw[r] is not None]
            for r in range(len(mine))
        ]
        flat = [c for live in lives for _, _, c in live]
        # every deployment's groups of this EP size interpolated in one pass: rows x X
        g_all = _at_many(flat, log_x, "tokens_per_s_per_gpu") if flat else None
        start = 0
        for r, (i, _dep) in enumerate(mine):
            live = lives[r]
            if not live:
                continue
            g = g_all[start : start + len(live)]
            start += len(live)
            weight = np.array([v.ep * count for v, count, _ in live], dtype=float)[:, None]
            ok = np.isfinite(g)
            total = np.where(ok, g * weight, 0.0).sum(axis=0)
            reach = ok.any(axis=0)
            slowest = None
            for v, count, c in live:
                if v.ep == ep and (slowest is None or v.line_bytes_s < slowest[0].line_bytes_s):
                    slowest = (v, c)
                peak = max(
                    peak, float(c["tokens_per_s_per_gpu"].max()) * v.ep * count / hw.installed
                )
                top = max(top, float(c["tokens_per_s_per_user"][-1]))
            total = np.where(reach, total / hw.installed, np.nan)
            better = reach & ~(total <= best)  # NaN best counts as worse
            if not better.any() or slowest is None:
                continue
            best[better] = total[better]
            choice[better] = i
            source[i] = slowest[1]
    bd = {k: np.full(x.shape, np.nan) for k in SWEEP_KEYS}
    for i, c in source.items():
        at = choice == i
        if at.any():
            for k in SWEEP_KEYS:
                bd[k][at] = _at(c, log_x[at], k)
    return Frontier(x, best, choice, deps, bd, peak, top)


# --- the hardware a scenario or a comparison gives ---------------------------------------------


def leftover(n: int, ep: int) -> int:
    """GPUs left after floor(n / ep) groups of ep that form one smaller group of their own
    (at least the smallest EP size that holds the experts; fewer stay idle)."""
    r = n % ep
    return r if r >= min(D.EP_SIZES) else 0


def healthy_groups(installed: int, view) -> tuple[tuple[int, Groups], ...]:
    """Every EP size's groups on a healthy domain: floor(installed / ep) alike (view(ep)), and
    the GPUs left over as one smaller group (view(rest))."""
    out = []
    for e in D.EP_SIZES:
        if e > installed:
            continue
        groups = [(view(e), installed // e)]
        if r := leftover(installed, e):
            groups.append((view(r), 1))
        out.append((e, tuple(groups)))
    return tuple(out)


@lru_cache(maxsize=256)
def cached_frontier(m: MoEModel, hw: Hardware, w: Workload, terms: Terms = FITTED) -> Frontier:
    """frontier() memoised on its (frozen) inputs; the arrays are made read-only."""
    fr = frontier(m, hw, w, GRID, terms)
    for a in (fr.tokens_per_s_per_gpu, fr.choice, *fr.breakdown.values()):
        a.flags.writeable = False
    return fr


ASSUMPTIONS: tuple[dict, ...] = (
    {
        "name": "HBM efficiency",
        "value": round(D.ETA_HBM, 3),
        "tag": "M",
        "source": "FlashMLA: 3,000 of 3,350 GB/s on H800 (best published memory-bound kernel)",
    },
    {
        "name": "GEMM efficiency",
        "value": round(D.ETA_GEMM, 3),
        "tag": "M",
        "source": "DeepGEMM: 1,550 of 1,979 TFLOPS FP8 on H800",
    },
    {
        "name": "attention-core efficiency",
        "value": round(D.ETA_ATTN, 3),
        "tag": "M",
        "source": "FlashMLA: 660 of 989 TFLOPS on H800",
    },
    {
        "name": "MTP acceptance",
        "value": D.MTP_ACCEPTANCE,
        "tag": "M",
        "source": "DeepSeek-V3 report: 85-90% for the second token",
    },
    {
        "name": "deployments tried",
        "value": "EP 4-72, MTP on/off, FP8/BF16 KV, two micro-batches on/off",
        "tag": "D",
        "source": "the best at each interactivity, as a deployment would choose",
    },
    {
        "name": "context",
        "value": f"{D.ISL} in / {D.OSL} out (mean {D.ISL + D.OSL // 2})",
        "tag": "A",
        "source": "InferenceX 1k/1k; the KV cache reserves the full length",
    },
    {
        "name": "per-step overhead",
        "value": f"{D.STEP_OVERHEAD_US:g} us",
        "tag": "A",
        "source": "fitted on the GB200 NVL72 InferenceX rows (docs/CALIBRATION.md)",
    },
    {
        "name": "per-token overhead",
        "value": f"{D.TOKEN_OVERHEAD_US:g} us a token a step on B200 (x 8 TB/s / HBM elsewhere)",
        "tag": "A",
        "source": "fitted on the GB200 NVL72 InferenceX rows",
    },
    {
        "name": "data-parallel attention spread",
        "value": D.ATTENTION_SPREAD,
        "tag": "A",
        "source": "fitted: the busiest rank holds b + spread x sqrt(2 b ln ep) requests",
    },
    {
        "name": "expert load imbalance",
        "value": f"skew {D.EXPERT_SKEW:g} + sqrt(2 ln ep / pairs)",
        "tag": "D",
        "source": "random routing's spread over ep ranks; EPLB's redundant experts [A] no skew",
    },
    {
        "name": "dispatch and combine",
        "value": "moe_a2a: TensorRT-LLM one-sided all-to-all, NVFP4 dispatch, BF16 combine",
        "tag": "M",
        "source": "fitted on blog18's EP8 points (docs/CALIBRATION.md)",
    },
)
