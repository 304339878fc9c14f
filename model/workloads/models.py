"""Workloads (FACTS.md §5): the MoE models' real shapes, and the GPUs that run them."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WORKLOAD = "deepseek-r1"
# The interactivity a deployment runs at unless at= says otherwise, tokens/s per user [A]: a
# responsive chat stream (a token every 20 ms, well above reading speed), the middle of
# InferenceX's 20-200 tokens/s per user window; a scenario names it (model/scenario.py).
DEFAULT_TOKENS_PER_S_PER_USER = 50.0


@dataclass(frozen=True)
class MoEModel:
    """Shape of an MoE transformer, enough to count its bytes and FLOPs per token."""

    key: str
    name: str
    layers: int
    moe_layers: int
    hidden: int
    experts: int  # routed
    top_k: int
    shared_experts: int
    expert_width: int  # FFN intermediate size of one expert
    kv_bytes_per_token: int  # all layers, as served (FACTS.md §5)
    attn_params_per_layer: float  # attention weights of one layer
    dense_ffn_params: float  # FFN weights of one dense (non-MoE) layer
    vocab: int
    attn_flops_per_ctx_token: float  # per layer, per token, per context token
    source: str

    @property
    def expert_params(self) -> float:
        """One expert: gate, up and down projections."""
        return 3.0 * self.hidden * self.expert_width

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    @property
    def kv_bytes_per_token_layer(self) -> float:
        return self.kv_bytes_per_token / self.layers

    @property
    def active_params(self) -> float:
        """Parameters touched per token (attention, dense FFN, shared + top-k experts, head)."""
        moe = self.moe_layers * (self.top_k + self.shared_experts) * self.expert_params
        return (
            self.layers * self.attn_params_per_layer
            + self.dense_layers * self.dense_ffn_params
            + moe
            + self.vocab * self.hidden
        )

    @property
    def total_params(self) -> float:
        moe = self.moe_layers * (self.experts + self.shared_experts) * self.expert_params
        return (
            self.layers * self.attn_params_per_layer
            + self.dense_layers * self.dense_ffn_params
            + moe
            + 2 * self.vocab * self.hidden
        )


# DeepSeek-V3/R1: config_671B.json via FACTS.md §5 and research/perf_models.md §1.
# MLA attention per layer: q_a 7168x1536 + q_b 1536x(128x192) + kv_a 7168x576
# + kv_b 512x(128x256) + o 128x128x7168 = 186.7M. Dense FFN (first 3 layers) 3x7168x18432.
# Absorbed MLA attention per context token: 2 x 128 heads x (576 score + 512 value) FLOPs.
DEEPSEEK_R1 = MoEModel(
    key="deepseek-r1",
    name="DeepSeek-R1 (671B, 37B active)",
    layers=61,
    moe_layers=58,
    hidden=7168,
    experts=256,
    top_k=8,
    shared_experts=1,
    expert_width=2048,
    kv_bytes_per_token=70_272,  # (512 + 64) x 2 B x 61, "~70 KB (MLA)" FACTS.md §5
    attn_params_per_layer=7168 * 1536
    + 1536 * 128 * 192
    + 7168 * 576
    + 512 * 128 * 256
    + 128 * 128 * 7168,
    dense_ffn_params=3 * 7168 * 18432,
    vocab=129_280,
    attn_flops_per_ctx_token=2 * 128 * (576 + 512),
    source="FACTS.md §5; DeepSeek-V3 config_671B.json",
)

# Qwen3-235B-A22B: 94 layers, hidden 4096, 64 Q / 4 KV heads of 128, 128 experts top-8,
# expert width 1536, no shared expert (FACTS.md §5). GQA attention per layer:
# q 4096x8192 + k,v 4096x512 each + o 8192x4096.
QWEN3_235B = MoEModel(
    key="qwen3-235b",
    name="Qwen3-235B-A22B",
    layers=94,
    moe_layers=94,
    hidden=4096,
    experts=128,
    top_k=8,
    shared_experts=0,
    expert_width=1536,
    kv_bytes_per_token=192_512,  # 2 x 4 x 128 x 2 B x 94, "~188 KiB" FACTS.md §5
    attn_params_per_layer=4096 * 8192 * 2 + 4096 * 512 * 2,
    dense_ffn_params=0.0,
    vocab=151_936,
    attn_flops_per_ctx_token=2 * 64 * 128 * 2,
    source="FACTS.md §5; Qwen3-235B-A22B config",
)

# Simulated 2T MoE [A] (FACTS.md §5): DeepSeek's shape with 768 routed experts.
MOE_2T = MoEModel(
    key="moe-2t",
    name="simulated 2T MoE [A]",
    layers=61,
    moe_layers=58,
    hidden=7168,
    experts=768,
    top_k=8,
    shared_experts=1,
    expert_width=2048,
    kv_bytes_per_token=70_272,
    attn_params_per_layer=DEEPSEEK_R1.attn_params_per_layer,
    dense_ffn_params=DEEPSEEK_R1.dense_ffn_params,
    vocab=129_280,
    attn_flops_per_ctx_token=DEEPSEEK_R1.attn_flops_per_ctx_token,
    source="FACTS.md §5 [A]: DeepSeek shape, 768 experts",
)

MOE_MODELS: dict[str, MoEModel] = {m.key: m for m in (DEEPSEEK_R1, QWEN3_235B, MOE_2T)}

WORKLOADS: dict[str, str] = {
    "deepseek-r1": "DeepSeek-R1 (671B MoE, 37B active) decode",
    "qwen3-235b": "Qwen3-235B-A22B decode",
    "moe-2t": "simulated 2T MoE decode [A]",
    "train": "training step of a DeepSeek-V3-shaped MoE [A]",
}


def moe_model(workload: str) -> MoEModel:
    """The MoE model a workload runs (training uses the DeepSeek-V3 shape)."""
    return MOE_MODELS.get(workload, DEEPSEEK_R1)


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    fp4_pflops: float  # dense NVFP4/FP4 inference peak, PFLOPS
    hbm_tbs: float  # HBM bandwidth, TB/s
    hbm_gb: float
    source: str
    fp8_pflops: float = 0.0  # dense FP8 peak, PFLOPS
    bf16_pflops: float = 0.0  # dense BF16 peak, PFLOPS
    fp4: bool = True  # FP4 tensor cores (Blackwell on); without them experts are served in FP8

    def peak_flops(self, precision: str) -> float:
        """Dense peak FLOP/s of the tensor cores at `precision` (nvfp4, fp8 or bf16)."""
        return {"nvfp4": self.fp4_pflops, "fp8": self.fp8_pflops, "bf16": self.bf16_pflops}[
            precision
        ] * 1e15


# FACTS.md §5 [V], vendor launch figures (preliminary for Rubin). Blackwell's FP8 and BF16
# dense peaks are half and a quarter of its FP4 (NVIDIA GB200 NVL72 page: 10 / 5 / 2.5 PFLOPS
# per GPU) [V]. Rubin's 50 PFLOPS NVFP4 is its inference figure (35 for training); [A] its FP8
# and BF16 peaks at half and a quarter of the training figure, Blackwell's ratios.
RUBIN = GPU(
    "rubin", "Rubin", 50.0, 22.0, 288.0, "FACTS.md §5: 50 PFLOPS NVFP4, ~22 TB/s", 17.5, 8.75
)
B200 = GPU(
    "b200", "Blackwell B200", 10.0, 8.0, 192.0, "FACTS.md §5: ~10 PFLOPS dense FP4", 5.0, 2.5
)
# [V] H800 SXM (DeepSeek's production GPU, a check only): 1,979 TFLOPS dense FP8, 989 BF16, no
# FP4 (FP8 stands in, as DeepSeek serves FP8 experts), 3.35 TB/s HBM3, 80 GB.
H800 = GPU("h800", "H800", 1.979, 3.35, 80.0, "NVIDIA H800 SXM datasheet", 1.979, 0.989, fp4=False)
GPUS: dict[str, GPU] = {"Rubin": RUBIN, "Blackwell B200": B200, "H800": H800}
