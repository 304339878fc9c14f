"""One MoE decode step on the slowest GPU of an EP group, in named parts (us).

b requests per GPU, q = 1 + d tokens per request (d MTP drafts verified), n = b q tokens.
Attention is data-parallel (each GPU its own requests; the busiest holds the Poisson scatter)
or tensor-parallel over the EP group (TEP: a t-th of the weights and heads for all the group's
requests, every GPU keeping the group's latent cache):

    MoE layer   attention (projections, then the core over the context) + shared expert
                + routed experts on the hottest rank (load imbalance) + activation traffic,
                each kernel max(FLOPs / (peak x eta), bytes / (HBM x eta_hbm)), the GEMMs'
                eta moving with their rows as DeepGEMM measures (gemm_eta)
                + dispatch + combine (moe_a2a: the calibrated TensorRT-LLM model on the
                group's fabric), either in series, or overlapped by two micro-batches:
                2 x max(compute(b/2), comm(b/2)), every weight read twice; under TEP two
                all-reduces of the group's activations instead (nccl's ring)
    step        MoE layers + dense layers + head + MTP drafting + overhead + the residual
    tokens/s per user = mtp_tokens(d) / step (each draft accepted while the ones before it
                were);  per GPU = b x that

`prepare` computes what does not depend on the fabric (memoised per EP size by decode.py),
`finish` the rest on one group's view. decode.py builds the frontier on these.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from model.workloads import comm_params as CP
from model.workloads import decode_params as D
from model.workloads import moe_a2a, nccl
from model.workloads.models import DEEPSEEK_R1, GPU, H800, MoEModel
from model.workloads.serving import Deployment, Workload


@dataclass(frozen=True)
class Terms:
    """The one fitted term (decode_params.RESIDUAL_US): what the measured parts leave
    unexplained on the named GB200 NVL72 points, a time a step; kept apart so the calibration
    can move it."""

    residual_us: float = D.RESIDUAL_US

    def moved(self, name: str, factor: float) -> Terms:
        """These terms with one of them scaled (the calibration's sensitivity column)."""
        return replace(self, **{name: getattr(self, name) * factor})


FITTED = Terms()
TERM_NAMES = {"residual_us": "residual: the step's time the measured parts leave out (us)"}


@dataclass(frozen=True)
class Measured:
    """What DeepSeek's decode profile (decode_params.PROFILE_*) gives the step [D from M]: the
    attention core's and the GEMMs' rates as a share of peak, a layer's time over its kernels,
    and the time outside the layers a token costs on the profiled GPU (us)."""

    eta_attn: float
    eta_gemm: float
    layer_gap: float = 1.0
    outside_us_per_token: float = 0.0
    outside_hbm_tbs: float = 1.0  # the HBM bandwidth it was measured at (H800)


# --- one step ----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _deepgemm_table() -> tuple[np.ndarray, np.ndarray]:
    """DeepGEMM's FLOP-weighted share of H800's FP8 peak on the projection shapes at each of
    its measured M (decode_params.DEEPGEMM_*): log M and the rates, once."""
    flops = [n * k for n, k in D.DEEPGEMM_SHAPES]
    ms = sorted(D.DEEPGEMM_TFLOPS)
    rates = [
        sum(flops)
        / sum(f / r for f, r in zip(flops, D.DEEPGEMM_TFLOPS[m], strict=True))
        / (H800.fp8_pflops * 1e3)
        for m in ms
    ]
    return np.log(ms), np.array(rates)


def _deepgemm_rate(m_rows):
    """That share at M rows, log-linear in M between the measured M, held beyond."""
    lm, rates = _deepgemm_table()
    return np.interp(np.log(np.clip(m_rows, np.exp(lm[0]), np.exp(lm[-1]))), lm, rates)


def gemm_eta(k, m_rows):
    """The GEMMs' rate at m_rows rows (tokens, an array): the profile's rate (k.eta_gemm, at
    its expert GEMMs' rows), moved as DeepGEMM's measured rate moves with M [M]."""
    anchor = _deepgemm_rate(D.PROFILE_GEMM_ROWS)
    return k.eta_gemm * _deepgemm_rate(np.asarray(m_rows, dtype=float)) / anchor


def _kernel(gpu: GPU, nbytes, flops, precision: str, eta: float):
    """A kernel's time (us): the larger of its HBM reads and its FLOPs; and whether HBM binds."""
    t_mem = nbytes / (gpu.hbm_tbs * 1e12 * D.ETA_HBM) * 1e6
    t_fl = flops / (gpu.peak_flops(precision) * eta) * 1e6
    return np.maximum(t_mem, t_fl), t_mem >= t_fl


def busiest(b, ep: int, spread: float = D.ATTENTION_SPREAD):
    """Requests on the busiest attention rank when a GPU holds b on average: requests arrive
    and finish at random, so the counts scatter; for Poisson counts the largest of ep is about
    b + sqrt(2 b ln ep) [D] (spread 1; 0 for the profile's equal batches); at least one."""
    b = np.asarray(b, dtype=float)
    return np.maximum(1.0, b + spread * np.sqrt(2 * b * np.log(max(ep, 1))))


def _attention(m, gpu, w, kv_scale, hot_b, q, k: Measured, t=1) -> dict:
    """The attention block of one layer on the busiest rank: projections (GEMMs) and the core
    over the context (us; and the HBM-bound part). Tensor-parallel over t GPUs (t a column, 1
    data-parallel): a t-th of the weights and heads for t times the requests, so the same
    FLOPs, and the whole group's latent cache read by every GPU [D]."""
    n_att = hot_b * q
    ctx = w.context
    kv_bytes = hot_b * ctx * m.kv_bytes_per_token_layer * kv_scale * t
    proj, proj_hbm = _kernel(
        gpu,
        m.attn_params_per_layer * D.OTHER_WEIGHT_BYTES / t,
        2 * n_att * m.attn_params_per_layer,
        "fp8",
        gemm_eta(k, n_att * t),
    )
    core, core_hbm = _kernel(
        gpu, kv_bytes, n_att * ctx * m.attn_flops_per_ctx_token, D.ATTENTION_MATH, k.eta_attn
    )
    act = n_att * t * m.hidden * 2 * D.ACTIVATION_PASSES / (gpu.hbm_tbs * 1e12 * D.ETA_HBM) * 1e6
    return {
        "attention": proj + core,
        "attention_hbm": np.where(proj_hbm, proj, 0) + np.where(core_hbm, core, 0),
        "activations": act,
    }


def _with_gaps(out: dict, k: Measured) -> dict:
    """A layer's kernels and the time the layer spends beyond them (the profile's ratio)."""
    return out | {"gaps": (k.layer_gap - 1.0) * sum(out[x] for x in KERNEL_KEYS)}


def _hot(b, ep: int, spread, t):
    """Requests the busiest GPU's attention serves, a GPU's worth: data-parallel, the busiest
    rank's (busiest); tensor-parallel, every GPU a t-th of all of them, b on average."""
    return np.where(np.asarray(t) > 1, b, busiest(b, ep, spread))


def _layer_compute(m, gpu, w, ep: int, kv_scale, b, q, k: Measured, moe: bool, spread=None, t=1):
    """One layer's compute on the busiest GPU for b requests of q tokens each (us, arrays;
    kv_scale, q and t, the attention's tensor-parallel degree, may be per-row columns)."""
    spread = D.ATTENTION_SPREAD if spread is None else spread
    out = _attention(m, gpu, w, kv_scale, _hot(b, ep, spread, t), q, k, t)
    n = b * q
    if not moe:
        dense, dense_hbm = _kernel(
            gpu,
            m.dense_ffn_params * D.OTHER_WEIGHT_BYTES / t,
            2 * n * m.dense_ffn_params,
            "fp8",
            gemm_eta(k, n * t),
        )
        zero = np.zeros_like(n)
        return _with_gaps(
            out
            | {
                "dense": dense,
                "dense_hbm": np.where(dense_hbm, dense, 0),
                "experts": zero,
                "imbalance": zero,
                "experts_hbm": zero,
            },
            k,
        )
    shared_p = m.shared_experts * m.expert_params
    shared, shared_hbm = _kernel(
        gpu, shared_p * D.OTHER_WEIGHT_BYTES / t, 2 * n * shared_p, "fp8", gemm_eta(k, n * t)
    )
    mean_pairs = n * m.top_k  # routed (token, expert) pairs a rank receives on average
    sp = np.sqrt(2 * np.log(ep) / np.maximum(mean_pairs, 1e-9)) if ep > 1 and spread else 0.0
    hot = mean_pairs * np.minimum((1 + D.EXPERT_SKEW) * (1 + sp), ep)
    e_local = np.ceil(m.experts / ep)
    touched = e_local * (1 - (1 - m.top_k / m.experts) ** (n * ep))
    eb = D.EXPERT_BYTES[w.expert_precision]
    prec = "nvfp4" if w.expert_precision == "nvfp4" else "fp8"
    wbytes = touched * m.expert_params * eb
    per_expert = np.maximum(touched, 1.0)
    eta_mean, eta_hot = gemm_eta(k, mean_pairs / per_expert), gemm_eta(k, hot / per_expert)
    mean_t, _ = _kernel(gpu, wbytes, 2 * mean_pairs * m.expert_params, prec, eta_mean)
    hot_t, hot_hbm = _kernel(gpu, wbytes, 2 * hot * m.expert_params, prec, eta_hot)
    return _with_gaps(
        out
        | {
            "dense": shared,
            "dense_hbm": np.where(shared_hbm, shared, 0),
            "experts": mean_t,
            "imbalance": hot_t - mean_t,
            "experts_hbm": np.where(hot_hbm, hot_t, 0),
        },
        k,
    )


KERNEL_KEYS = ("attention", "experts", "imbalance", "dense", "activations")
COMPUTE_KEYS = (*KERNEL_KEYS, "gaps")


def all_reduce_us(m, v: moe_a2a.EPFabric, b, q, t):
    """One all_reduce of a tensor-parallel group's activations (us): t x b requests of q
    tokens, BF16 hidden states, on the group's slowest rank: the serving framework's one-shot
    kernel where the group has peer memory (NVLink), else NCCL's ring, whichever is faster,
    as the frameworks pick by size (nccl); 0 where the attention is data-parallel (t = 1)."""
    t = np.asarray(t, dtype=float)
    if not np.any(t > 1):
        return np.zeros_like(b * q)
    nbytes = t * b * q * m.hidden * 2
    gbs = np.asarray(v.line_bytes_s, dtype=float) / 1e9 * CP.NCCL_LINK_EFFICIENCY
    ar = nccl.small_all_reduce_us(nbytes, v.ep, gbs, v.latency_one_way_us)
    if v.peer_memory:
        ar = np.minimum(ar, nccl.one_shot_all_reduce_us(nbytes, v.ep, gbs, v.latency_one_way_us))
    return np.where(t > 1, ar, 0.0)


def _comm(m, v: moe_a2a.EPFabric, b, q, t=1) -> tuple[np.ndarray, np.ndarray]:
    """Dispatch and combine of one MoE layer (us): the busiest rank sends its tokens. Under
    tensor-parallel attention every GPU already holds every token, so there is no dispatch:
    an all_reduce after the attention and one after the experts take their places."""
    if v.ep <= 1:
        z = np.zeros_like(b * q)
        return z, z
    tokens = busiest(b, v.ep) * q
    d = sum(moe_a2a.parts_us("dispatch", tokens, m, D.DISPATCH_PRECISION, v).values())
    c = sum(moe_a2a.parts_us("combine", tokens, m, D.COMBINE_PRECISION, v).values())
    tp = np.asarray(t) > 1
    if not np.any(tp):
        return d, c
    ar = all_reduce_us(m, v, b, q, t)
    return np.where(tp, ar, d), np.where(tp, ar, c)


def _moe_compute(m, gpu, w, ep, kv_scale, overlap, b, q, k: Measured, t=1) -> dict:
    """One MoE layer's compute, served in series and (where `overlap`) as two micro-batches of
    half the batch each (every weight read twice): what does not depend on the fabric."""
    ov = np.asarray(overlap, dtype=bool)
    serial = _layer_compute(m, gpu, w, ep, kv_scale, b, q, k, moe=True, t=t)
    out = {"serial": serial, "overlap": ov, "b": b, "q": q, "t": t}
    if ov.any():
        half = _layer_compute(m, gpu, w, ep, kv_scale, b / 2, q, k, moe=True, t=t)
        out["two"] = {x: 2 * y for x, y in half.items()}
    return out


def _moe_layer(pre: dict, m, v) -> dict:
    """One MoE layer on a fabric: its compute (from _moe_compute), dispatch, combine, and what
    of them the overlap hides, row by row."""
    b, q, ov = pre["b"], pre["q"], pre["overlap"]
    disp, comb = _comm(m, v, b, q, pre["t"])
    serial = pre["serial"] | {"dispatch": disp, "combine": comb, "exposed": disp + comb}
    if "two" not in pre:
        return serial
    comp = pre["two"]
    d2, c2 = (2 * x for x in _comm(m, v, b / 2, q, pre["t"]))
    busy = sum(comp[x] for x in COMPUTE_KEYS)
    # two micro-batches: per layer 2 x max(compute, comm) of each; comm beyond compute shows
    tbo = comp | {"dispatch": d2, "combine": c2, "exposed": np.maximum(d2 + c2 - busy, 0)}
    return {x: np.where(ov, tbo[x], serial[x]) for x in serial}


def _head(m, gpu, b, q, ep: int, k: Measured, spread=None, t=1):
    spread = D.ATTENTION_SPREAD if spread is None else spread
    us, hbm = _kernel(
        gpu,
        m.vocab * m.hidden * D.OTHER_WEIGHT_BYTES / t,
        2 * _hot(b, ep, spread, t) * q * m.vocab * m.hidden,
        "fp8",
        k.eta_gemm,
    )
    return us, np.where(hbm, us, 0)


BREAKDOWN_KEYS = (
    "attention",
    "experts",
    "imbalance",
    "dense",
    "activations",
    "gaps",
    "mtp_draft",
    "exposed",
    "outside",
    "residual",
)
BREAKDOWN_NAMES = {
    "attention": "attention (projections and the core over the context)",
    "experts": "routed expert GEMMs (mean load)",
    "imbalance": "expert load imbalance (the hottest rank's extra)",
    "dense": "shared experts, dense layers and the head",
    "activations": "activation traffic (norms, router, permute, quantise)",
    "gaps": (
        "time a layer spends beyond its kernels (launch gaps, small kernels, the micro-batches' "
        "hand-offs), at the ratio DeepSeek's decode profile measures"
    ),
    "mtp_draft": "MTP drafting (one MoE layer and the head per draft; its all-to-all is in exposed)",
    "exposed": (
        "dispatch and combine left exposed after the overlap (under tensor-parallel attention, "
        "its two all-reduces a layer)"
    ),
    "outside": (
        "outside the layers (sampling, MTP acceptance, the scheduler), a token's time as "
        "DeepSeek's decode profile measures it, scaled with HBM bandwidth [A]"
    ),
    "residual": (
        "the one fitted residual: the step's time the measured parts leave out on the GB200 "
        "NVL72 points (docs/CALIBRATION.md)"
    ),
}


def profile_layer_us(m: MoEModel, gpu: GPU, k: Measured) -> float:
    """One layer of the profiled step (both micro-batches, equal batches, balanced routing),
    with the rates k: the 58 MoE and 3 dense layers' mean (us)."""
    w = Workload(m, "fp8", isl=D.PROFILE_CONTEXT, osl=0)
    half = np.array([D.PROFILE_BATCH / 2])
    q = D.PROFILE_TOKENS_PER_REQUEST
    args = (m, gpu, w, D.PROFILE_EP, D.KV_SCALE["bf16"], half, q, k)
    moe = _layer_compute(*args, moe=True, spread=0.0)
    dense = _layer_compute(*args, moe=False, spread=0.0)
    per = [2 * float(sum(x[key][0] for key in COMPUTE_KEYS)) for x in (moe, dense)]
    return (m.moe_layers * per[0] + m.dense_layers * per[1]) / m.layers


@lru_cache(maxsize=1)
def measured() -> Measured:
    """The step's measured parts from DeepSeek's decode profile (DeepSeek-R1 on H800) [D]:
    the core's rate from its measured time, the GEMMs' from the routed experts', the layer's
    time over its kernels, and what the step spends outside its layers beyond the head and
    one MTP draft, a token (per request the profile's two tokens)."""
    m, gpu = DEEPSEEK_R1, H800
    b, q = D.PROFILE_BATCH / 2, D.PROFILE_TOKENS_PER_REQUEST
    core_flops = b * q * D.PROFILE_CONTEXT * m.attn_flops_per_ctx_token
    eta_attn = core_flops / (gpu.peak_flops(D.ATTENTION_MATH) * D.PROFILE_CORE_US * 1e-6)
    expert_flops = 2 * b * q * m.top_k * m.expert_params
    eta_gemm = expert_flops / (gpu.peak_flops("fp8") * D.PROFILE_EXPERTS_US * 1e-6)
    k = Measured(eta_attn, eta_gemm)
    gap = D.PROFILE_LAYERS_US / m.layers / profile_layer_us(m, gpu, k)
    k = replace(k, layer_gap=gap)
    w = Workload(m, "fp8", isl=D.PROFILE_CONTEXT, osl=0)
    full = np.array([float(D.PROFILE_BATCH)])
    draft = _layer_compute(m, gpu, w, D.PROFILE_EP, 1.0, full, 1, k, moe=True, spread=0.0)
    modelled = (
        _head(m, gpu, full, q, D.PROFILE_EP, k, 0.0)[0][0]
        + _head(m, gpu, full, 1, D.PROFILE_EP, k, 0.0)[0][0]
        + sum(draft[key][0] for key in COMPUTE_KEYS)
    )
    outside = (D.PROFILE_STEP_US - D.PROFILE_LAYERS_US - float(modelled)) / (D.PROFILE_BATCH * q)
    return replace(k, outside_us_per_token=max(outside, 0.0), outside_hbm_tbs=gpu.hbm_tbs)


def prepare(m, gpu, w, ep, mtp, kv_scale, overlap, b, terms, t=1) -> dict:
    """Everything of a step that does not depend on the fabric, for several deployments of
    one EP size at once (mtp, kv_scale, overlap and t, the attention's tensor-parallel
    degree, per-row columns; b rows x batches). The residual is a time a forward pass: the
    main model's and each MTP draft's (D.RESIDUAL_US)."""
    k = measured()
    q = 1 + mtp
    head, head_hbm = _head(m, gpu, b, q, ep, k, t=t)
    # outside the layers a token's time: every GPU of a tensor-parallel group samples for all
    hot = np.where(np.asarray(t) > 1, t * b, busiest(b, ep))
    pre = {
        "moe": _moe_compute(m, gpu, w, ep, kv_scale, overlap, b, q, k, t),
        "dense": _layer_compute(m, gpu, w, ep, kv_scale, b, q, k, moe=False, t=t),
        "head": head,
        "head_hbm": head_hbm,
        "outside": k.outside_us_per_token * (k.outside_hbm_tbs / gpu.hbm_tbs) * hot * q,
        "residual": terms.residual_us + np.zeros_like(b * q),
        "mtp": mtp,
        "b": b,
        "q": q,
        "t": t,
    }
    if np.any(mtp):
        pre["draft"] = _moe_compute(m, gpu, w, ep, kv_scale, False, b, 1, k, t)
        pre["draft_head"] = _head(m, gpu, b, 1, ep, k, t=t)[0]
    return pre


def finish(pre: dict, m, v, terms) -> dict[str, np.ndarray]:
    """A prepared step on one fabric view: the parts (us), their sum, and the two rates."""
    moe = _moe_layer(pre["moe"], m, v)
    dense, mtp, b, q = pre["dense"], pre["mtp"], pre["b"], pre["q"]
    L, Ld = m.moe_layers, m.dense_layers
    parts = {x: L * moe[x] + Ld * dense[x] for x in COMPUTE_KEYS}
    parts["dense"] = parts["dense"] + pre["head"]
    # a tensor-parallel dense layer all-reduces after its attention and after its FFN
    parts["exposed"] = L * moe["exposed"] + Ld * 2 * all_reduce_us(m, v, b, q, pre["t"])
    parts["outside"] = pre["outside"]
    parts["residual"] = pre["residual"]
    if "draft" in pre:
        draft = _moe_layer(pre["draft"], m, v)
        parts["mtp_draft"] = mtp * (sum(draft[x] for x in COMPUTE_KEYS) + pre["draft_head"])
        parts["exposed"] = parts["exposed"] + mtp * draft["exposed"]
    else:
        parts["mtp_draft"] = np.zeros_like(b * q)
    total = sum(parts[x] for x in BREAKDOWN_KEYS)
    hbm = (
        L * (moe["attention_hbm"] + moe["dense_hbm"] + moe["experts_hbm"] + moe["activations"])
        + Ld * (dense["attention_hbm"] + dense["dense_hbm"] + dense["activations"])
        + pre["head_hbm"]
    )
    tps = D.mtp_tokens(mtp)
    return parts | {
        "total": total,
        "dispatch": L * moe["dispatch"],
        "combine": L * moe["combine"],
        "hbm_bound": hbm,
        "tokens_per_s_per_user": tps / (total * 1e-6),
        "tokens_per_s_per_gpu": b * tps / (total * 1e-6),
    }


def _step_rows(m, gpu, w, ep, mtp, kv_scale, overlap, v, b, terms, t=1) -> dict[str, np.ndarray]:
    """step() for several deployments of one EP size at once."""
    return finish(prepare(m, gpu, w, ep, mtp, kv_scale, overlap, b, terms, t), m, v, terms)


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
    out = _step_rows(
        m, gpu, w, dep.ep, dep.mtp, D.KV_SCALE[dep.kv], dep.overlap, v, b, terms, dep.t
    )
    return {k: np.broadcast_to(x, b.shape) for k, x in out.items()}
