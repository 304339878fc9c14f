"""Workloads: the models and GPUs, collectives, MoE decode, the training step."""
