"""DeepSeek's published communication-only decode bound (ISCA'25), a check of the decode
model's arithmetic (docs/CALIBRATION.md). The collectives themselves are nccl.py's and
moe_a2a.py's, calibrated on measured points; FACTS.md §5's alpha-beta forms are their
starting point."""

from __future__ import annotations


def deepseek_decode_bound(
    bw_bytes_s: float,
    tokens: int = 32,
    experts: int = 9,
    hidden: int = 7000,
    layers: int = 61,
    bytes_per_elem: float = 3.0,
) -> float:
    """DeepSeek's published communication-only bound on tokens/s per user (ISCA'25).

    Their assumptions: 32 tokens per device, 9 experts per token (8 routed + 1 shared),
    1 byte dispatch + 2 bytes combine per element, h ~ 7K, two micro-batches whose compute
    is no longer than their communication, so TPOT = 2 x T_comm x layers.
    """
    t_comm = bytes_per_elem * tokens * experts * hidden / bw_bytes_s
    return 1.0 / (2 * t_comm * layers)
