"""What is served and how: the workload (model, expert precision, context), one deployment
(EP size, TEP or data-parallel attention, MTP drafts, KV precision, micro-batches), the
deployments the frontier tries, and the requests a GPU's HBM holds for one of them.

step.py prices one decode step of a deployment; decode.py chooses among them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from model.workloads import decode_params as D
from model.workloads.models import GPU, MoEModel


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
    tp: bool = False  # attention tensor-parallel over the group (TEP), else data-parallel

    @property
    def tokens_per_step(self) -> float:
        return float(D.mtp_tokens(self.mtp))

    @property
    def t(self) -> int:
        """The attention's tensor-parallel degree: the group for TEP, else 1."""
        return self.ep if self.tp else 1

    def label(self) -> str:
        """'EP72, MTP 1, FP8 KV, two micro-batches'; an EP size no preset forms is an elastic
        group of the GPUs in service (groups.elastic): 'EP71 elastic, ...'."""
        mtp = f"MTP {self.mtp}" if self.mtp else "no MTP"
        size = f"{'TEP' if self.tp else 'EP'}{self.ep}"
        if self.ep not in D.EP_SIZES:
            size += " elastic"
        parts = [size, mtp, f"{self.kv.upper()} KV"]
        if self.overlap:
            parts.append("two micro-batches")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {
            "ep": self.ep,
            "mtp_drafts": self.mtp,
            "kv_cache": self.kv,
            "two_micro_batches": self.overlap,
            "attention": "tensor-parallel" if self.tp else "data-parallel",
            "label": self.label(),
        }


def deployments(max_ep: int, dominated: bool = False) -> tuple[Deployment, ...]:
    """The deployments the frontier tries with groups of at most `max_ep` GPUs.

    A BF16 KV cache is dominated by an FP8 one here: the attention math is the same (BF16,
    decode_params.ATTENTION_MATH), the cache reads are twice the bytes and half as many
    requests fit, so at every batch its step is no faster and its largest batch smaller. A
    deployment picks BF16 for accuracy, never for speed; the frontier leaves it out unless
    `dominated` (the tests check it never wins). Tensor-parallel attention (TEP) is tried
    at D.TEP_SIZES, without two micro-batches, as the recipes serve it."""
    eps = [e for e in D.EP_SIZES if e <= max_ep]
    kvs = D.KV_PRECISIONS if dominated else tuple(k for k in D.KV_PRECISIONS if k == "fp8")
    dp = tuple(
        Deployment(e, d, kv, ov) for e, d, kv, ov in product(eps, D.MTP_DRAFTS, kvs, D.OVERLAP)
    )
    teps = [e for e in D.TEP_SIZES if e <= max_ep]
    tep = tuple(Deployment(e, d, kv, False, True) for e, d, kv in product(teps, D.MTP_DRAFTS, kvs))
    return dp + tep


def _weights_bytes(m: MoEModel, w: Workload, ep: int, t: int = 1) -> float:
    """Weights one GPU holds: its share of the routed experts, and everything else in full,
    or a t-th of it under tensor parallelism [A: every dense weight split t ways]."""
    e_local = int(np.ceil(m.experts / ep))
    other = (
        (
            m.layers * m.attn_params_per_layer
            + m.dense_layers * m.dense_ffn_params
            + m.moe_layers * m.shared_experts * m.expert_params
            + 2 * m.vocab * m.hidden
            + m.attn_params_per_layer  # the MTP module's own layer
        )
        * D.OTHER_WEIGHT_BYTES
        / t
    )
    experts = (m.moe_layers + 1) * e_local * m.expert_params * D.EXPERT_BYTES[w.expert_precision]
    return other + experts


def max_batch(m: MoEModel, gpu: GPU, w: Workload, dep: Deployment) -> float:
    """Requests per GPU whose reserved KV cache fits beside the weights (0 if none fits).
    Under tensor-parallel attention every GPU keeps the whole group's latent cache (MLA's
    latent is shared by all heads) [D], so a GPU's share of requests holds t times less."""
    room = gpu.hbm_gb * 1e9 * D.HBM_USABLE - _weights_bytes(m, w, dep.ep, dep.t)
    per_request = w.reserved * m.kv_bytes_per_token * D.KV_SCALE[dep.kv] * dep.t
    return float(max(0.0, min(D.MAX_BATCH, room / per_request)))
