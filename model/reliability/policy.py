"""Repair policies (issue 14): when a part that the job can run without is repaired, and
whether its spare is on site.

A repair visit is a planned stop at the end of a fault's repair with the rack down: a spine
cable cartridge swap, a switch tray swapped with the rack down. The policy (`repair=`,
canonical form from model.scenario.canonical_repair) says when visits happen:

  now         every visit when its part is on site (the default)
  window-N    at a planned window every N days
  dark-K      when K links are dark (a dark switch chip or tray darkens a link of every
              GPU: that is a visit at once)
  bw-P        when the worst GPU falls below P% of its bandwidth

Meanwhile the job runs at the pace of its worst GPU (collectives are gated by it): the step
model's or decode's own slowdown with those parts dark (outcomes.dark_slowdown), not a
separate constant. Every visit pending is done in one rack-down as long as the longest of
them. Faults that stop the job until they are repaired are never deferred. `,onsite` adds
spare parts on site: repairs take the hands-on time, not the wait for a part
(outcomes.on_site).

How long parts wait, and how dark the worst GPU is meanwhile, is worked out in expectation:
faults arrive as Poisson processes, so between visits each GPU's dark links are binomial
(each of its links dark with probability 1 - exp(-r t)), independent across GPUs, and the
planes darkened for every GPU are a compound Poisson count. A threshold policy is a renewal
process that ends at the first time the threshold is crossed; a window is one of fixed
length. Both methods (closed form, Monte Carlo) then read the same events.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from model.errors import ScenarioError
from model.reliability.effects import REPAIR_WAIT, Effect, Stop
from model.scenario import ONSITE, canonical_repair
from model.words import plural

# What the optimiser tries (each with the scenario's own parts setting).
WINDOW_CANDIDATES_DAYS = (1, 2, 3, 7, 14, 30, 60, 90, 180, 365)
DARK_CANDIDATES = (2, 3, 5, 10, 20, 40, 72)
BW_CANDIDATES = (97, 95, 90, 80)
_TINY = 1e-12  # probability mass below which a darkness state is left out
# The bookkeeping kind that carries the deferred parts' slowdown, one event an hour (no fault:
# a history spreads its cost over time rather than listing it).
WAITING = "parts waiting for a repair visit"


@dataclass(frozen=True)
class RepairPolicy:
    """A parsed repair policy: when visits happen (kind, n) and whether spares are on site."""

    kind: str = "now"  # now | window | dark | bw
    n: int | None = None  # days, links or percent
    onsite: bool = False

    @property
    def text(self) -> str:
        """As written in repair= (the canonical form)."""
        head = "now" if self.kind == "now" else f"{self.kind}-{self.n}"
        return head + (f",{ONSITE}" if self.onsite else "")

    @property
    def waits_for(self) -> str:
        """What a deferred swap waits for, as a person reads it ('' for repair=now)."""
        if self.kind == "window":
            return f"the planned window (every {plural(self.n or 0, 'day')})"
        if self.kind == "dark":
            return f"{plural(self.n or 0, 'link')} to be dark"
        if self.kind == "bw":
            return f"the worst GPU to fall below {self.n}% of its bandwidth"
        return ""

    @property
    def window_days(self) -> int | None:
        """The planned window's period in days (window-N only)."""
        return self.n if self.kind == "window" else None


def parse_policy(text: str) -> RepairPolicy:
    """A repair= text (the scenario parser has checked it); ScenarioError otherwise."""
    canon = canonical_repair(text)
    if canon is None:
        raise ScenarioError(
            f"repair '{text}' is not a policy (now, window-N, dark-K or bw-P)", token="repair"
        )
    head, _, tail = canon.partition(",")
    kind, _, n = head.partition("-")
    return RepairPolicy(kind, int(n) if n else None, tail == ONSITE)


def candidates(onsite: bool) -> tuple[str, ...]:
    """Every policy the optimiser tries, as written in repair=."""
    heads = (
        "now",
        *(f"window-{n}" for n in WINDOW_CANDIDATES_DAYS),
        *(f"dark-{k}" for k in DARK_CANDIDATES),
        *(f"bw-{p}" for p in BW_CANDIDATES),
    )
    return tuple(h + (f",{ONSITE}" if onsite else "") for h in heads)


def is_visit(st: Stop) -> bool:
    """A repair visit: the rack down for a swap at the end of a repair the job ran through."""
    return st.planned and st.offset_h > 0.0 and st.wait_h > 0.0


@dataclass(frozen=True)
class Darkness:
    """The deferred faults' arrival rates, per rack-hour: links dark on one GPU each, and
    kinds that darken `planes` planes of every GPU (switch chips, trays)."""

    gpus: int
    links_per_gpu: int
    link_rate: float
    plane_rates: tuple[tuple[int, float], ...]  # (planes, rate)

    @property
    def total(self) -> float:
        return self.link_rate + sum(r for _, r in self.plane_rates)

    def plane_pmf(self, t: np.ndarray, cmax: int) -> np.ndarray:
        """P(c planes dark for every GPU at time t), c = 0..cmax: [len(t), cmax + 1]."""
        pmf = np.zeros((t.size, cmax + 1))
        pmf[:, 0] = 1.0
        for planes, rate in self.plane_rates:
            if planes > cmax or rate <= 0.0:
                if rate > 0.0:  # any one of these is beyond cmax: keep only none of it
                    pmf *= np.exp(-rate * t)[:, None]
                continue
            lam = rate * t
            kind = np.zeros((t.size, cmax + 1))
            for k in range(cmax // planes + 1):
                kind[:, k * planes] = np.exp(-lam + k * np.log(np.maximum(lam, 1e-300))) / (
                    math.factorial(k)
                )
            kind[lam == 0.0, 1:] = 0.0
            kind[lam == 0.0, 0] = 1.0
            out = np.zeros_like(pmf)
            for c in range(cmax + 1):
                out[:, c:] += pmf[:, [c]] * kind[:, : cmax + 1 - c]
            pmf = out
        return pmf

    def worst_cdf(self, t: np.ndarray, mmax: int) -> np.ndarray:
        """P(every GPU has at most m dark links of its own at time t), m = 0..mmax."""
        r = self.link_rate / (self.gpus * self.links_per_gpu)
        p = -np.expm1(-r * t)[:, None]
        j = np.arange(self.links_per_gpu + 1)
        comb = np.array([math.comb(self.links_per_gpu, int(k)) for k in j], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            pmf = comb * np.where(j == 0, 1.0, p**j) * (1.0 - p) ** (self.links_per_gpu - j)
        cdf = np.minimum(np.cumsum(pmf, axis=1), 1.0)[:, : mmax + 1]
        return cdf**self.gpus


def _darkness(eff: tuple[Effect, ...], gpus: int, links_per_gpu: int, deferred: list[int]):
    links = sum(eff[i].rate_per_h for i in deferred if not eff[i].every_gpu and eff[i].planes)
    planes: dict[int, float] = {}
    for i in deferred:
        e = eff[i]
        if e.every_gpu and e.planes:
            planes[e.planes] = planes.get(e.planes, 0.0) + e.rate_per_h
    return Darkness(gpus, links_per_gpu, links, tuple(sorted(planes.items())))


def _joint(d: Darkness, t: np.ndarray, mmax: int, cmax: int) -> np.ndarray:
    """P(the worst GPU has m dark links of its own and every GPU c dark planes) at time t:
    [len(t), mmax + 1, cmax + 1] (the links' maximum and the planes are independent)."""
    cdf = d.worst_cdf(t, mmax)
    pm = np.diff(np.concatenate([np.zeros((t.size, 1)), cdf], axis=1), axis=1)
    return pm[:, :, None] * d.plane_pmf(t, cmax)[:, None, :]


def _integrate(y: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Trapezoid rule along the first axis."""
    dt = np.diff(t)
    shape = (-1,) + (1,) * (y.ndim - 1)
    return ((y[1:] + y[:-1]) * dt.reshape(shape)).sum(axis=0) / 2.0


def _bounds(d: Darkness, horizon_h: float, cap: int) -> tuple[int, int]:
    """How dark the worst GPU can get with mass above _TINY within horizon_h."""
    t = np.array([horizon_h])
    mmax = 1
    while mmax < cap and 1.0 - d.worst_cdf(t, mmax)[0, -1] > _TINY:
        mmax += 1
    cmax = 0
    while cmax < cap and 1.0 - d.plane_pmf(t, cmax)[0].sum() > _TINY:
        cmax += 1
    return mmax, cmax


def _window(d: Darkness, window_h: float, cap: int) -> tuple[float, np.ndarray]:
    """A window every window_h: (P(a window has a visit to do), time shares [m, c])."""
    mmax, cmax = _bounds(d, window_h, cap)
    t = np.linspace(0.0, window_h, 257)
    share = _integrate(_joint(d, t, mmax, cmax), t) / window_h
    return -math.expm1(-d.total * window_h), share


def _bandwidth(d: Darkness, jmin: int, cap: int) -> tuple[float, np.ndarray, float]:
    """A visit when the worst GPU has jmin dark planes: (visit rate, time shares [m, c],
    mean dark links waiting)."""
    mmax, cmax = jmin - 1, jmin - 1
    horizon = 1.0 / d.total
    while True:  # until almost every cycle has ended (the threshold crossed)
        j = _joint(d, np.array([horizon]), mmax, cmax)[0]
        alive = sum(j[m, c] for m in range(mmax + 1) for c in range(cmax + 1) if m + c < jmin)
        if alive < 1e-9 or horizon > 1e9:
            break
        horizon *= 2.0
    t = np.concatenate([[0.0], np.geomspace(horizon * 1e-6, horizon, 1024)])
    joint = _joint(d, t, mmax, cmax)
    m, c = np.meshgrid(np.arange(mmax + 1), np.arange(cmax + 1), indexing="ij")
    joint = joint * ((m + c) < jmin)[None]
    spent = _integrate(joint, t)
    cycle = float(spent.sum())
    # E[dark links; not yet crossed] = sum over c of P(c) x G x E[X; X <= m] x P(X <= m)^(G-1)
    r = d.link_rate / (d.gpus * d.links_per_gpu)
    p = -np.expm1(-r * t)[:, None]
    j = np.arange(jmin)
    comb = np.array([math.comb(d.links_per_gpu, int(k)) for k in j], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmf = comb * np.where(j == 0, 1.0, p**j) * (1.0 - p) ** (d.links_per_gpu - j)
    planes = d.plane_pmf(t, cmax)
    dark = np.zeros(t.size)
    for c in range(min(cmax, jmin - 1) + 1):
        m = jmin - 1 - c
        cdf, first = pmf[:, : m + 1].sum(axis=1), (pmf[:, : m + 1] * j[: m + 1]).sum(axis=1)
        dark += planes[:, c] * d.gpus * first * cdf ** (d.gpus - 1)
    return 1.0 / cycle, spent / cycle, float(_integrate(dark, t)) / cycle


def _given_links(n: int, gpus: int, links_per_gpu: int, mmax: int) -> np.ndarray:
    """P(the worst GPU has m of n dark links), the n spread at random over every link."""
    p = n / (gpus * links_per_gpu)
    j = np.arange(links_per_gpu + 1)
    comb = np.array([math.comb(links_per_gpu, int(k)) for k in j], dtype=float)
    pmf = comb * p**j * (1.0 - p) ** (links_per_gpu - j)
    total = math.comb(gpus * links_per_gpu, n) * p**n * (1.0 - p) ** (gpus * links_per_gpu - n)
    cdf = []
    for m in range(mmax + 1):
        base = np.where(j <= m, pmf, 0.0)[: n + 1]
        acc, power, k = np.array([1.0]), base, gpus
        while k:  # base ** gpus, truncated at degree n
            if k & 1:
                acc = np.convolve(acc, power)[: n + 1]
            power = np.convolve(power, power)[: n + 1]
            k >>= 1
        cdf.append(acc[n] / total if acc.size > n else 0.0)
    return np.diff(np.concatenate([[0.0], np.minimum(cdf, 1.0)]))


def _dark_links(d: Darkness, k: int) -> tuple[float, np.ndarray, float]:
    """A visit when k links are dark (a dark plane, k <= gpus, is a visit at once): (visit
    rate, time shares [m, c], mean dark links waiting)."""
    q = d.link_rate / d.total
    mmax = min(k - 1, d.links_per_gpu)
    share = np.zeros((mmax + 1, 1))
    reach = np.array([q**n for n in range(k)])
    cycle = reach.sum() / d.total
    for n in range(k):
        pm = _given_links(n, d.gpus, d.links_per_gpu, mmax) if n else np.eye(mmax + 1)[0]
        share[:, 0] += reach[n] / d.total / cycle * pm
    pending = float(sum(n * reach[n] for n in range(k)) / d.total / cycle)
    return 1.0 / cycle, share, pending


@dataclass(frozen=True)
class Plan:
    """What a deferring policy does to the events: which are deferred, how often the rack is
    visited, the time shares of the worst GPU's darkness, and how long a part waits."""

    deferred: tuple[int, ...]
    visit_rate: float
    share: np.ndarray  # [m dark links on the worst GPU, c planes dark for every GPU]
    wait_h: float  # mean time a deferred part waits for its visit (Little's law)


def plan(
    eff: tuple[Effect, ...], policy: RepairPolicy, gpus: int, links_per_gpu: int
) -> Plan | None:
    """The policy's plan for these events, or None when it repairs at once (now, or a
    threshold that any one fault crosses) or nothing is deferrable."""
    jmin = links_per_gpu * (100 - int(policy.n or 0)) // 100 + 1
    if (
        policy.kind == "now"
        or (policy.kind, policy.n) == ("dark", 1)
        or (policy.kind == "bw" and jmin == 1)
    ):
        return None  # a threshold crossed by any one fault is repairing at once
    deferred = tuple(
        i
        for i, e in enumerate(eff)
        if e.rate_per_h > 0.0
        and any(is_visit(st) for st in e.stops)
        and (policy.kind == "window" or e.planes > 0)
    )
    if not deferred:
        return None
    d = _darkness(eff, gpus, links_per_gpu, list(deferred))
    cap = links_per_gpu - 1
    if policy.kind == "window":
        window_h = float(policy.n or 1) * 24.0
        pending, share = _window(d, window_h, cap)
        return Plan(deferred, pending / window_h, share, window_h / 2.0)
    if policy.kind == "bw":
        rate, share, dark = _bandwidth(d, jmin, cap)
    else:
        rate, share, dark = _dark_links(d, int(policy.n or 1))
    return Plan(deferred, float(rate), share, dark / d.link_rate if d.link_rate > 0 else 0.0)


def apply_policy(
    eff: tuple[Effect, ...],
    policy: RepairPolicy,
    gpus: int,
    links_per_gpu: int,
    slowdown: Callable[[int, int], float],
) -> tuple[Effect, ...]:
    """The events under the policy: deferred visits removed from their faults, a planned
    visit of its own at the policy's rate, and the cost of running with parts waiting.

    slowdown(m, c): the job's slowdown with m dark links on its worst GPU and c dark planes
    on every GPU (outcomes.dark_slowdown). A window defers every visit; a threshold defers
    the visits of faults that darken links (the others are at once, as they cross nothing).
    """
    pl = plan(eff, policy, gpus, links_per_gpu)
    if pl is None:
        return eff
    out: list[Effect] = []
    longest, restart_h = 0.0, 0.0
    for i, e in enumerate(eff):
        if i not in pl.deferred:
            out.append(e)
            continue
        visits = [st for st in e.stops if is_visit(st)]
        out.append(replace(e, stops=tuple(st for st in e.stops if not is_visit(st))))
        longest = max(longest, *(st.wait_h for st in visits))
        restart_h = max(restart_h, *(st.restart_h for st in visits))
    share = pl.share
    cost = sum(
        float(share[m, c]) * slowdown(m, c)
        for m in range(share.shape[0])
        for c in range(share.shape[1])
        if (m or c) and share[m, c] > _TINY
    )
    out.append(
        Effect(
            "planned repair visit",
            pl.visit_rate,
            (Stop(0.0, True, longest, REPAIR_WAIT, restart_h),),
            0.0,
        )
    )
    # one event an hour carrying that hour's share (the Monte Carlo adds it per event)
    out.append(Effect(WAITING, 1.0, (), float(cost)))
    return tuple(out)


def rack_down_visits_per_h(eff: tuple[Effect, ...]) -> float:
    """How often the rack is taken down (a stop that waits with the rack idle), per hour."""
    return sum(e.rate_per_h * sum(st.wait_h > 0.0 for st in e.stops) for e in eff)
