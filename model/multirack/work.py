"""What a domain scenario's job delivers: decode on the domain (model/workloads/throughput.py's
domain frontiers, on the assessment's GPUs in service) and the delivered fraction every other
reader (evaluate, the timeline) takes from here. Training and goodput on a domain are H16b's
(issue 16); their blocks are None until wired here."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from model.multirack.assess import assess_domain
from model.scenario import Scenario


@lru_cache(maxsize=512)
def domain_work(s: Scenario) -> dict:
    """decode, training and goodput blocks and the delivered fraction (work now over the
    healthy domain's, at the reference interactivity; 0 while the job is down)."""
    from model.workloads.throughput import REFERENCE_TOKENS_PER_S_PER_USER as REF
    from model.workloads.throughput import _index, domain_decode, domain_frontiers

    a = assess_domain(s)
    dec = domain_decode(s)
    fs = domain_frontiers(s)
    delivered = 0.0
    if a.job_runs and dec["running"]:
        now = float(fs["scenario"].tokens_per_s_per_gpu[_index(fs["scenario"], REF)])
        healthy = float(fs["healthy"].tokens_per_s_per_gpu[_index(fs["healthy"], REF)])
        if np.isfinite(now) and np.isfinite(healthy) and healthy > 0:
            delivered = now / healthy
    training = None
    if s.workload == "train":
        delivered = None  # the training step on a domain: not wired yet (H16b)
    return {"decode": dec, "delivered": delivered, "training": training, "goodput": None}


def delivered_fraction(s: Scenario) -> float | None:
    """The share of the healthy domain's work the scenario delivers now."""
    return domain_work(s)["delivered"]
