"""Collective cost models (FACTS.md §5 "Collectives"), alpha-beta with a packet-rate floor.

S bytes, n ranks, B one-way bytes/s of the slowest member, alpha per step. Each transfer
also needs its packets: a message of m bytes is ceil(m / payload) packets, and a GPU issues
at most `pps` packets a second. Small messages are packet-rate bound, large ones
bandwidth-bound; the slower of the two sets the time.
"""

from __future__ import annotations

import numpy as np


def wire_time(nbytes, messages, msg_bytes, bw, pps, payload, eta):
    """Time to move `nbytes` as `messages` messages of `msg_bytes`: bandwidth or packet bound."""
    packets = messages * np.ceil(msg_bytes / payload)
    return np.maximum(nbytes / (bw * eta), packets / (pps * eta))


def all_to_all(s_bytes, n: int, bw: float, alpha: float, pps: float, payload: int, eta: float):
    """All-to-all: each rank sends S bytes in total, (n-1)/n of it off-GPU, one message a peer."""
    remote = s_bytes * (n - 1) / n
    per_peer = s_bytes / n
    return alpha + wire_time(remote, n - 1, per_peer, bw, pps, payload, eta)


def ring_all_reduce(s_bytes, n: int, bw: float, alpha: float, pps: float, payload: int, eta: float):
    """Ring all-reduce: 2(n-1) steps of S/n each."""
    steps = 2 * (n - 1)
    return steps * alpha + wire_time(steps * s_bytes / n, steps, s_bytes / n, bw, pps, payload, eta)


def nvls_all_reduce(s_bytes, n: int, bw: float, alpha: float, eta: float):
    """In-switch (NVLS/SHARP) all-reduce: each GPU sends S and receives S once, (1 + 1/n)."""
    return alpha + (1 + 1 / n) * s_bytes / (bw * eta)


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
