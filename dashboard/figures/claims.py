"""Vendor claims the page locates on the model's own curves. Never an input to the model.

FACTS.md §4: "NVLink vs OTS Ethernet, MoE decode: up to 2.3x decode throughput" [V], a result
to reproduce, with its setup unpublished. The model finds where its ratio reaches it
(model.workloads.versus.vendor_claim, given the figure: the model never holds it);
/api/v1/decode and the page both add it through with_claim, so they say the same.
"""

from __future__ import annotations

from functools import partial

from model.scenario import Scenario
from model.workloads import versus

VENDOR_DECODE_RATIO = 2.3  # FACTS.md §4, seed article

where_ratio_passes = partial(versus.where_ratio_passes, target=VENDOR_DECODE_RATIO)


def with_claim(s: Scenario, decode: dict) -> dict:
    """The decode answer with `vendor_claim`: where the model finds the 2.3x (and with which
    Ethernet), or None where the scenario is not held against eth-x72 or its job is down."""
    ratio = decode.get("ratio_vs_baseline") or []
    claim = versus.vendor_claim(s, ratio, VENDOR_DECODE_RATIO) if decode["job_runs"] else None
    return decode | {"vendor_claim": claim}
