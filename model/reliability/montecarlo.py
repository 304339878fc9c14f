"""Seeded Monte Carlo of lifetime goodput: every rack's faults sampled (draws.py), its stops
walked in time and its degraded spells run through (walk.py, pace.py).

Same key, same result, on every machine (SHA-256 seeds); each fault draws its own numbers,
so two scenarios that share a kind of fault share its samples (common random numbers).
"""

from __future__ import annotations

import math

import numpy as np

from model.errors import ScenarioError
from model.reliability.accounting import (
    MAX_MC_EVENTS,
    MAX_RACK_YEARS,
    MAX_RACKS,
    MAX_YEARS,
    TAU_MAX_S,
    check_horizon,
    check_number,
    interval_s,
    job_scale,
    rate_of_tokens,
    result,
)
from model.reliability.draws import sample
from model.reliability.effects import CAUSES, REPAIR_WAIT, Effect, Stop
from model.reliability.pace import run_losses, spells, steady, table
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates
from model.reliability.walk import runs, timeline, walked
from model.scenario import MAX_QUERY_LENGTH, Scenario

# The seed's text: the API seeds each scenario's run with its canonical key, a query of at
# most MAX_QUERY_LENGTH characters (plus the fabric, which the key always names).
MAX_KEY_LENGTH = MAX_QUERY_LENGTH + 64


# [A] rack-years a Monte Carlo samples by default: its 95% interval is then about +-0.01 pp
# on a default rack, well inside the 0.2 pp it must agree with the closed form within.
DEFAULT_SAMPLE_RACK_YEARS = 2_000.0


def default_sample_racks(years: float, job_racks: int = 1) -> int:
    """Units (racks, or jobs of `job_racks` racks) to sample for DEFAULT_SAMPLE_RACK_YEARS
    rack-years over `years` (at least one)."""
    return max(1, int(np.ceil(DEFAULT_SAMPLE_RACK_YEARS / (years * job_racks))))


def monte_carlo(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    **kw,
) -> dict:
    """Seeded Monte Carlo of `racks` racks over `years`: the same causes, sampled in time.

    Counts per rack are Poisson, times uniform, each kind's follow-up stops (swaps, GPUs
    rejoining) at their offsets; then every rack's timeline is walked (see _timeline), so
    overlaps, failures during restarts and the checkpoint phase are exact. Degraded
    running is added per event. Same key, same result; seeded by SHA-256 of the key.

    Keywords: years, racks, key, tokens_per_s, checkpoint_interval_s, job_racks, spares as
    closed_form; sample_racks: sample this many racks (at least `racks`) for the fractions,
    and scale the totals to `racks`: one rack-year is one draw, far from the expectation
    (use default_sample_racks). `ci95` is the 95% confidence interval of the fraction.
    job_racks > 1: each unit sampled is one job over that many racks (the superposed events
    of its racks, accounting.job_scale), `racks` the number of such jobs.
    """
    return _run(s, rates, **kw)[0]


def _run(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    *,
    years: float = 1.0,
    racks: int = 1,
    key: str = "goodput",
    tokens_per_s: float | None = None,
    checkpoint_interval_s: float | None = None,
    sample_racks: int | None = None,
    job_racks: int = 1,
    spares: bool = False,
) -> tuple[dict, np.ndarray]:
    """monte_carlo, and the per-rack goodput fractions it drew (for exact fleet quantiles)."""
    check_horizon(years, racks, monte_carlo=True)
    totals_racks = racks
    if sample_racks is not None:
        if isinstance(sample_racks, bool) or not isinstance(sample_racks, int):
            raise ScenarioError("sample_racks must be a whole number", token="sample_racks")
        racks = max(racks, sample_racks)
        check_horizon(years, racks, monte_carlo=True)
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH:
        raise ScenarioError(
            f"key must be a string of at most {MAX_KEY_LENGTH} characters", token="key"
        )
    eff = job_scale(s, rates, job_racks, spares)
    tau_s = interval_s(eff, rates, checkpoint_interval_s)
    tps = rate_of_tokens(s, tokens_per_s) * (job_racks if tokens_per_s is None else 1)
    hours = years * HOURS_PER_YEAR
    expected = sum(e.rate_per_h * len(e.stops) for e in eff) * hours * racks
    if expected > MAX_MC_EVENTS:
        raise ScenarioError(
            f"these failure rates give {expected:.3g} expected stops over {racks * years:g} "
            f"rack-years; the Monte Carlo samples at most {MAX_MC_EVENTS:g}: fewer racks",
            token="racks",
        )
    ev, faults = sample(eff, racks, hours, key)
    clock = (hours, tau_s / 3600.0, rates.checkpoint_write_s / 3600.0)
    tot = timeline(ev, faults, eff, racks, clock)
    wall = hours * racks
    badput = {c: float(tot[c].sum()) / wall for c in CAUSES}
    n_unplanned = int((~ev["planned"]).sum())
    res = result("monte-carlo", s, eff, badput, tau_s, n_unplanned / wall, tps, years, totals_racks)
    per_rack = (tot["productive"] - tot["degraded"]) / hours
    half = 1.96 * float(per_rack.std(ddof=1)) / float(np.sqrt(racks)) if racks > 1 else math.nan
    res["sampled_racks"] = racks
    res["ci95"] = [res["fraction"] - half, res["fraction"] + half] if np.isfinite(half) else None
    res["per_rack_fraction"] = quantiles(per_rack)
    res["key"] = key
    return res, per_rack


def quantiles(per_rack: np.ndarray) -> dict[str, float]:
    """The p5, p50 and p95 rack of per-rack goodput fractions."""
    return {q: float(np.percentile(per_rack, p)) for q, p in (("p5", 5), ("p50", 50), ("p95", 95))}


def fleet(s: Scenario, rates: Rates = DEFAULT_RATES, *, racks: int, years: float, key: str) -> dict:
    """A fleet of `racks` racks over `years`, in chunks that each stay within the Monte
    Carlo's bound of rack-years a call (each chunk its own seeded racks): fractions and
    hours are rack-weighted means, and the p5/p50/p95 rack is exact over every rack of the
    fleet (the chunks' per-rack fractions pooled, not an average of their quantiles).

    The chunks are fleet_sizes, each fleet_chunk, put together by fleet_combine: what a
    study split over Celery workers runs (model/reliability/chunks.py), so one process and
    many give the same answer."""
    sizes = fleet_sizes(racks, years)
    runs = [
        fleet_chunk(s, rates, years=years, racks=n, key=key, index=c) for c, n in enumerate(sizes)
    ]
    return fleet_combine(runs, key=key)


def fleet_sizes(racks: int, years: float) -> list[int]:
    """The racks of each chunk of a fleet: as many as the Monte Carlo's bound of rack-years a
    call allows, the last one the rest (ScenarioError for a size out of bounds)."""
    check_horizon(years, 1, monte_carlo=True)
    if isinstance(racks, bool) or not isinstance(racks, int) or not 1 <= racks <= MAX_RACKS:
        raise ScenarioError(f"racks must be a whole number from 1 to {MAX_RACKS}", token="racks")
    per_chunk = max(1, int(MAX_RACK_YEARS // years))
    return [min(per_chunk, racks - k) for k in range(0, racks, per_chunk)]


def fleet_chunk(
    s: Scenario, rates: Rates = DEFAULT_RATES, *, years: float, racks: int, key: str, index: int
) -> tuple[dict, np.ndarray]:
    """Chunk `index` of a fleet: its `racks` racks, seeded by (key, index) alone, so it is the
    same whichever process runs it and whenever; the result and its per-rack fractions."""
    return _run(s, rates, years=years, racks=racks, key=f"{key}:{index}")


def fleet_combine(runs: list[tuple[dict, np.ndarray]], *, key: str) -> dict:
    """The fleet from its chunks in index order (fleet_chunk's answers): rack-weighted means
    and the quantiles of every rack pooled."""
    sizes = [p.size for _, p in runs]
    racks = sum(sizes)
    w = [n / racks for n in sizes]
    first = runs[0][0]
    out = dict(first)
    out["racks"] = racks
    out["sampled_racks"] = racks
    out["fraction"] = sum(wi * r["fraction"] for wi, (r, _) in zip(w, runs, strict=True))
    for field in ("badput", "badput_hours_per_rack_year"):
        out[field] = {
            k: sum(wi * r[field][k] for wi, (r, _) in zip(w, runs, strict=True))
            for k in first[field]
        }
    out["tokens_delivered"] = sum(r["tokens_delivered"] for r, _ in runs)
    per_year = sum(
        wi * r["interruptions_per_rack_year"] for wi, (r, _) in zip(w, runs, strict=True)
    )
    out["interruptions_per_job_year"] = out["interruptions_per_rack_year"] = per_year
    out["mtbf_hours"] = HOURS_PER_YEAR / per_year if per_year > 0 else None
    pooled = np.concatenate([p for _, p in runs])
    out["per_rack_fraction"] = quantiles(pooled)
    half = 1.96 * float(pooled.std(ddof=1)) / math.sqrt(racks) if racks > 1 else math.nan
    out["ci95"] = [out["fraction"] - half, out["fraction"] + half] if racks > 1 else None
    out["chunks"] = len(sizes)
    out["key"] = key
    return out


def simulate_ettr(
    lam_per_h: float,
    restart_s: float,
    tau_s: float,
    w_s: float,
    *,
    hours: float,
    runs: int = 1,
    key: str = "ettr",
) -> float:
    """Monte Carlo ETTR of one checkpointing job with exponential failures.

    The same timeline as the rack Monte Carlo, with one kind of fault; it converges to
    Daly's exact model (daly_ettr), which is how the timeline itself is checked.
    """
    check_number("lam_per_h", lam_per_h, 0.0, 100.0)
    check_number("restart_s", restart_s, 0.0, 86400.0)
    check_number("tau_s", tau_s, 1.0, TAU_MAX_S)
    check_number("w_s", w_s, 0.0, 86400.0)
    check_number("hours", hours, 0.0, MAX_YEARS * HOURS_PER_YEAR, lo_open=True)
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RACKS:
        raise ScenarioError(f"runs must be a whole number from 1 to {MAX_RACKS}", token="runs")
    if lam_per_h * hours * runs > MAX_MC_EVENTS:
        raise ScenarioError(f"more than {MAX_MC_EVENTS:g} failures expected", token="hours")
    eff = (
        Effect("fault", lam_per_h, (Stop(0.0, False, 0.0, REPAIR_WAIT, restart_s / 3600),), 0.0),
    )
    ev, faults = sample(eff, runs, hours, key)
    tot = timeline(ev, faults, eff, runs, (hours, tau_s / 3600.0, w_s / 3600.0))
    return float(tot["productive"].sum()) / (hours * runs)


def sample_history(
    eff: tuple[Effect, ...], hours: float, key: str, racks: int, tau: float, w: float
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None, dict]:
    """One job over `racks` racks sampled exactly as monte_carlo(racks=1, job_racks=racks)
    samples it under `key`, with its faults kept (model/reliability/history.py): the faults
    table, the walk of its stops (walked; None when none), and its runs with the work each
    lost to degraded running (`runs`, pace.py) and the spells that cost it (`spells`)."""
    expected = sum(e.rate_per_h * len(e.stops) for e in eff) * hours
    if expected > MAX_MC_EVENTS:
        raise ScenarioError(
            f"these failure rates give {expected:.3g} expected stops; a history samples at "
            f"most {MAX_MC_EVENTS:g}: fewer racks",
            token="racks",
        )
    ev, faults = sample(eff, 1, hours, key, where=racks)
    walk = walked(ev, hours, tau, w) if ev["t"].size else None
    x = walk if walk is not None else _NO_WALK
    r = runs(x, 1, hours, tau, w)
    sp = spells(eff, faults, hours)
    sigma0 = steady(eff)
    tab = table(sp, sigma0, 1, hours)
    r["lost"] = run_losses(tab, r["unit"], r["a"], r["b"], r["prod"])
    return faults, walk, {"runs": r, "spells": sp, "sigma0": sigma0, "pace": tab}


# A walk of no stops (a history with none): its one run is the whole horizon.
_NO_WALK = {
    "t": np.zeros(0),
    "prev_end": np.zeros(0),
    "end": np.zeros(0),
    "prod": np.zeros(0),
    "rack": np.zeros(0, np.int64),
    "last": np.zeros(0, bool),
}
