"""Lifetime goodput on a multi-rack domain (docs/GOODPUT.md, "A 1,152-GPU domain"): the
kinds of event only a domain has, and the two numbers goodput reads from the workload.

The events of the domain's racks are one rack's, counted over every rack (site.py), each
assessed on the domain: a fault in r02 is assessed as r02's fault in the whole domain
(model/multirack/assess.py), so it stops or slows the domain's one job, not a rack's. Added
here:

- the other racks' leaders: each rack keeps its own NMX-Controller (r01's also runs the
  domain's global fabric manager, model/multirack/control.py), so a rack leader's tray or
  controller is its own kind, R - 1 of each;
- the L2 tier: L2 switch chips and trays at the L1 tier's rates (the same chip and tray) [A];
- trunk links (effects.py, beside the rack's links: sudden, flagged by telemetry, or flaky
  then failed): rates.trunk_link_per_h, each trunk assessed as its bundle lost (the bundle
  is the finest trunk the IDs name: 72 / S trunks, so its slowdown is an upper bound) [A].

A domain's degraded rate and full rate are its own job's: decode on the domain (the frontier
of model/workloads/throughput.domain_frontiers, EP up to the domain) at the reference
interactivity the scenario runs at (at=), or the training step over the domain (model/workloads/training.domain_step).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from model.assess import assess
from model.multirack.domains import DOMAINS
from model.scenario import Scenario
from model.workloads import throughput, training


def _at_reference(fr, at: float) -> float:
    """A frontier's tokens/s per GPU at the scenario's interactivity (at=; its nearest point)."""
    i = int(np.argmin(np.abs(fr.x - at)))
    v = float(fr.tokens_per_s_per_gpu[i])
    return v if np.isfinite(v) else 0.0


@lru_cache(maxsize=1024)
def delivered(s: Scenario) -> float:
    """The domain scenario's degraded rate: work per second now / the healthy domain's."""
    a = assess(s)
    if not a.job_runs:
        return 0.0
    if s.workload == "train":
        step, n = training.domain_step(a)
        h = training.healthy_domain_step(a.fabric)
        return training.training_ratio(a.fabric, n, step.step_s, h.step_s) if step else 0.0
    fs = throughput.domain_frontiers(s)
    healthy = _at_reference(fs["healthy"], s.at)
    return _at_reference(fs["scenario"], s.at) / healthy if healthy > 0 else 0.0


@lru_cache(maxsize=64)
def healthy_tokens_per_s(s: Scenario) -> float:
    """Tokens per second the scenario's healthy domain delivers (goodput's full rate)."""
    d = DOMAINS[s.fabric]
    if s.workload == "train":
        return d.gpus * training.TOKENS_PER_GPU_PER_STEP / training.healthy_domain_step(d).step_s
    healthy = throughput.domain_frontiers(s)["healthy"]
    return _at_reference(healthy, s.at) * d.gpus


def extra_effects(site, rates, c: dict, fault: Callable, tray_slow: float) -> list:
    """The kinds of event only a domain has (not its trunks: effects.py counts those with
    the links): the other racks' leaders, and the L2 tier's chips and trays."""
    r = site.racks
    l2_swap = c["l2-tray"].slowdown()  # a hot-swapped L2 tray: its four chips out
    return [
        fault(
            "rack-leader switch-tray",
            rates.switch_tray_per_h * (r - 1),
            c["rack-leader-tray"],
            site.chips_per_tray,
            True,
            swap_slowdown=tray_slow,
            controller_wait_h=c["rack-leader-tray"].repair_h,
        ),
        fault(
            "rack-leader controller", rates.controller_per_h * (r - 1), c["rack-leader-controller"]
        ),
        fault(
            "L2 switch-chip",
            rates.switch_chip_per_h * site.l2_chips,
            c["l2-chip"],
            swap_slowdown=l2_swap,
        ),
        fault(
            "L2 switch-tray",
            rates.switch_tray_per_h * site.l2_trays,
            c["l2-tray"],
            swap_slowdown=l2_swap,
        ),
    ]
