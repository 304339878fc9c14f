"""What a domain scenario's job delivers: decode on the domain (model/workloads/throughput.py's
domain frontiers, on the assessment's GPUs in service), training over the domain
(model/workloads/training.py), lifetime goodput (model/reliability/goodput.py), and the
delivered fraction every other reader (evaluate, the timeline, goodput) takes from one place,
model/reliability/domain.delivered."""

from __future__ import annotations

from functools import lru_cache

from model.reliability import domain as rdom
from model.reliability.goodput import summary
from model.scenario import Scenario
from model.workloads.throughput import domain_decode
from model.workloads.training import domain_training


@lru_cache(maxsize=512)
def domain_work(s: Scenario) -> dict:
    """decode, training and goodput blocks and the delivered fraction (work now over the
    healthy domain's, at the reference interactivity; 0 while the job is down)."""
    return {
        "decode": domain_decode(s),
        "delivered": rdom.delivered(s),  # goodput's degraded rate: decode, or the step
        "training": domain_training(s),
        "goodput": summary(s),  # the fabric and features' lifetime, as on one rack
    }


def delivered_fraction(s: Scenario) -> float | None:
    """The share of the healthy domain's work the scenario delivers now."""
    return domain_work(s)["delivered"]
