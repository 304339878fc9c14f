"""Vendor claims the page locates on the model's own curves. Never an input to the model.

FACTS.md §4: "NVLink vs OTS Ethernet, MoE decode: up to 2.3x decode throughput" [V], a result
to reproduce, with its setup unpublished. The page finds where the modelled ratio passes it.
"""

from __future__ import annotations

VENDOR_DECODE_RATIO = 2.3  # FACTS.md §4, seed article


def where_ratio_passes(points: list[dict], target: float = VENDOR_DECODE_RATIO) -> float | None:
    """The first interactivity (tokens/s per user) at which the ratio reaches `target`."""
    prev = None
    for p in points:
        if p["ratio"] >= target:
            if prev is None:
                return p["tokens_per_s_per_user"]
            x0, r0 = prev["tokens_per_s_per_user"], prev["ratio"]
            x1, r1 = p["tokens_per_s_per_user"], p["ratio"]
            return x0 + (target - r0) * (x1 - x0) / (r1 - r0) if r1 != r0 else x1
        prev = p
    return None
