"""What one fault does to a job, as the model answers it (model/reliability/effects.py prices
these over a rack's life): for every component kind a one-fault Scenario is assessed
(model/assess.py) and its answer (abort or degrade, restart at once or after repair, stall, the
delivered fraction while degraded, repair and rack-down hours) read into an Outcome; the same
with parts swapped or kept on site, and the slowdown with links left dark."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from model.assess import assess
from model.fabric.features import FEATURE_KEYS, default_features
from model.kinds import ControlState, JobState, Restart
from model.params import CABLE_SWAP_RACK_DOWN_H
from model.reliability import site as site_mod
from model.reliability.by_kind import RELIABILITY
from model.reliability.rates import Rates
from model.scenario import Scenario


@dataclass(frozen=True)
class Outcome:
    """The model's answer for one scenario, reduced to what goodput needs."""

    state: JobState
    restart: Restart
    stall_s: float  # reroute stall when the job keeps running
    delivered: float  # work per second while this state lasts / the healthy rack's
    usable_share: float  # GPUs the job runs on (after any restart) / all GPUs
    repair_h: float  # until the part is back in service (0 if nothing to repair)
    rack_down_h: float  # the part of it with the rack down (a rack-down swap at the end)
    planes_down_h: float  # hot-swap: the swapped tray's planes out for the swap
    control: ControlState

    def slowdown(self) -> float:
        """Share of full-rate progress lost while this state lasts (FACTS.md §6)."""
        return 1.0 - self.delivered

    @property
    def job_runs(self) -> bool:
        """The job runs (degraded) until the repair, or restarted at once on what remains."""
        return self.state.runs or self.restart is Restart.AT_ONCE


@lru_cache(maxsize=512)
def outcome(s: Scenario) -> Outcome:
    """The assessment of one scenario, reduced to what goodput needs (pure; memoised)."""
    a = assess(s)
    wanted = set(s.fail) | ({"update"} if s.update else set())
    mine = [r for r in a.repairs if r.id in wanted]
    return Outcome(
        state=a.job.state,
        restart=a.job.restart,
        stall_s=float(a.job.stall_s or 0.0),
        delivered=RELIABILITY[s.kind].delivered(s),
        usable_share=a.gpus_in_service / a.fabric.gpus,
        repair_h=max((r.repair_h for r in mine), default=0.0),
        rack_down_h=max((r.rack_down_h for r in mine), default=0.0),
        planes_down_h=max((r.planes_down_h or 0.0 for r in mine), default=0.0),
        control=a.state.control.state,
    )


def healthy(s: Scenario) -> Scenario:
    """The scenario's fabric, features and workload on a healthy rack (lifetimes start whole)."""
    return replace(s, fail=(), flaky=(), update=(), repair="now")


def with_features(s: Scenario, feats: frozenset[str]) -> Scenario:
    d = default_features(s.fabric)
    return replace(
        s,
        off=tuple(k for k in FEATURE_KEYS if k in d - feats),
        on=tuple(k for k in FEATURE_KEYS if k in feats - d),
    )


@lru_cache(maxsize=256)
def dark_slowdown(s: Scenario, links: int, planes: int) -> float:
    """The job's slowdown with `links` dark links on one GPU and `planes` planes dark for
    every GPU (parts waiting for a repair visit): the model's answer for that scenario, 1
    if the job cannot run on them. Links and planes are on distinct switch chips."""
    if links == 0 and planes == 0:
        return 0.0
    ids = site_mod.dark_ids(s, site_mod.site_of(s), links, planes)
    o = outcome(with_fail(healthy(s), ids))
    return o.slowdown() if o.job_runs else 1.0


def with_fail(s: Scenario, ids: tuple[str, ...]) -> Scenario:
    """s with these parts failed, in the scenario's canonical order."""
    return replace(s, fail=RELIABILITY[s.kind].fail_order(s, ids))


def classify(s: Scenario) -> dict[str, Outcome]:
    """What each component kind's fault does on this fabric with these features.

    Keys: the site's representative kinds (site.py: one fault each), plus 'flaky-link' (a degrading link, still up) and
    'update' (one switch tray updated: drained in service, or a maintenance window).
    """
    h = healthy(s)
    site = site_mod.site_of(s)
    out = {k: outcome(replace(h, fail=(cid,))) for k, cid in site.rep.items()}
    out["flaky-link"] = outcome(replace(h, flaky=(site.rep["link"],)))
    for n, (tray, _) in enumerate(site.updates):
        out["update" if n == 0 else f"update-{n}"] = outcome(replace(h, update=(tray,)))
    return out


_CARTRIDGE_KINDS = frozenset({"link", "cable", "leader-plane-link", "flaky-link", "trunk"})


def swap_time(c: dict[str, Outcome], rates: Rates) -> dict[str, Outcome]:
    """The outcomes with a cartridge's rack-down swap taking rates.cartridge_swap_h (the
    model's CABLE_SWAP_RACK_DOWN_H by default, so then unchanged): the wait for the part
    before the swap stays as it is."""
    new = rates.cartridge_swap_h
    if new == CABLE_SWAP_RACK_DOWN_H:
        return c
    out = dict(c)
    for k, o in c.items():
        if k in _CARTRIDGE_KINDS and o.rack_down_h == CABLE_SWAP_RACK_DOWN_H:
            out[k] = replace(o, repair_h=o.repair_h - o.rack_down_h + new, rack_down_h=new)
    return out


def on_site(c: dict[str, Outcome], rates: Rates) -> dict[str, Outcome]:
    """The outcomes with spare parts on site (repair=...,onsite): a repair takes the hands-on
    time (rates.onsite_cable_h, onsite_tray_h) instead of waiting for the part; the rack is
    down for no longer than the repair."""
    out = {}
    for k, o in c.items():
        h = rates.onsite_cable_h if k in _CARTRIDGE_KINDS else rates.onsite_tray_h
        if k in ("controller", "leader-controller", "update") or o.repair_h <= h:
            out[k] = o
            continue
        out[k] = replace(o, repair_h=h, rack_down_h=min(o.rack_down_h, h))
    return out
