"""Workload keys the scenario accepts (FACTS.md §5). The shapes live with the decode model."""

from __future__ import annotations

WORKLOADS: dict[str, str] = {
    "deepseek-r1": "DeepSeek-R1 (671B MoE, 37B active) decode",
    "qwen3-235b": "Qwen3-235B-A22B decode",
    "moe-2t": "simulated 2T MoE decode [A]",
    "train": "large-model training step",
}
DEFAULT_WORKLOAD = "deepseek-r1"
