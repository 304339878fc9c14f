"""What both goodput methods share: bounds, input checks, the checkpoint interval, the rate
of tokens and the result's shape. `checkpoint_interval_s(s)` is the one interval every
reader uses (goodput, evaluate, the timeline)."""

from __future__ import annotations

import math
from dataclasses import replace

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.reliability.by_kind import RELIABILITY
from model.reliability.effects import REPAIR_WAIT, Effect, Stop, effects
from model.reliability.formulas import daly_interval
from model.reliability.outcomes import dark_slowdown, healthy
from model.reliability.policy import apply_policy, parse_policy, plan, rack_down_visits_per_h
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates
from model.reliability.site import site_of
from model.scenario import Scenario

# Bounds (ScenarioError beyond them).
MAX_YEARS = 100.0
MAX_RACKS = 100_000
# Monte Carlo budget: racks x years. At ~100k rack-years/s on one core (measured, see
# docs/GOODPUT.md) this keeps a call well under a second.
MAX_RACK_YEARS = 20_000.0
MAX_MC_EVENTS = 5_000_000  # expected sampled stops per call (memory and time guard)
TAU_MAX_S = 7 * 86400.0  # [A] longest checkpoint interval: a week (no faults: no need)
MAX_TOKENS_PER_S = 1e12
MAX_JOB_RACKS = 100_000  # a job over up to 7.2 M GPUs


def job_scale(
    s: Scenario, rates: Rates, job_racks: int = 1, spares: bool = False
) -> tuple[Effect, ...]:
    """The events a job over `job_racks` racks (spare racks or not) sees: job_effects
    of one rack's effects, after checking the job's size."""
    if isinstance(job_racks, bool) or not isinstance(job_racks, int):
        raise ScenarioError("job_racks must be a whole number", token="job_racks")
    if not 1 <= job_racks <= MAX_JOB_RACKS:
        raise ScenarioError(f"job_racks must be from 1 to {MAX_JOB_RACKS:,}", token="job_racks")
    f = site_of(s)
    h = healthy(s)
    eff = apply_policy(
        effects(s, rates),
        parse_policy(s.repair),
        f.gpus,
        f.links_per_gpu,
        lambda m, c: dark_slowdown(h, m, c),
    )
    return job_effects(
        eff, job_racks, rates.spare_swap_h if spares else None, rates.restart_s / 3600.0
    )


def visit_wait_h(s: Scenario, rates: Rates = DEFAULT_RATES) -> float:
    """How long, on average, a part on site waits for its repair visit under the scenario's
    policy (0 when it repairs at once): half a window, or until the threshold is crossed."""
    f = site_of(s)
    pl = plan(effects(s, rates), parse_policy(s.repair), f.gpus, f.links_per_gpu)
    return 0.0 if pl is None else pl.wait_h


def checkpoint_interval_s(
    s: Scenario, rates: Rates = DEFAULT_RATES, job_racks: int = 1, spares: bool = False
) -> float:
    """The scenario's checkpoint interval: Daly's optimum for its fabric, features and job."""
    return interval_s(job_scale(s, rates, job_racks, spares), rates, None)


def check_number(name: str, v: object, lo: float, hi: float, *, lo_open: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ScenarioError(f"{name} must be a finite number, not {v!r}", token=name)
    if v > hi or v < lo or (lo_open and v == lo):
        lo_txt = f"more than {lo:g}" if lo_open else f"at least {lo:g}"
        raise ScenarioError(f"{name} = {v:g} must be {lo_txt} and at most {hi:g}", token=name)
    return float(v)


def check_horizon(years: float, racks: int, *, monte_carlo: bool) -> None:
    check_number("years", years, 0.0, MAX_YEARS, lo_open=True)
    if isinstance(racks, bool) or not isinstance(racks, int) or not 1 <= racks <= MAX_RACKS:
        raise ScenarioError(f"racks must be a whole number from 1 to {MAX_RACKS}", token="racks")
    if monte_carlo and racks * years > MAX_RACK_YEARS:
        raise ScenarioError(
            f"racks x years = {racks * years:g} rack-years; the Monte Carlo runs at most "
            f"{MAX_RACK_YEARS:g}",
            token="racks",
        )


def interval_s(eff: tuple[Effect, ...], rates: Rates, given: float | None) -> float:
    """The checkpoint interval: the caller's, or Daly's first-order optimum (capped)."""
    if given is not None:
        return check_number("checkpoint_interval_s", given, 1.0, TAU_MAX_S)
    lam = unplanned_rate(eff)
    if lam <= 0.0:
        return TAU_MAX_S
    r = (
        sum(
            e.rate_per_h * (st.wait_h + st.restart_h + st.detect_h)
            for e in eff
            for st in e.stops
            if not st.planned
        )
        / lam
    )
    tau = daly_interval(rates.checkpoint_write_s, 3600.0 / lam, 3600.0 * r)
    return min(tau, TAU_MAX_S)


def unplanned_rate(eff: tuple[Effect, ...]) -> float:
    return sum(e.rate_per_h for e in eff for st in e.stops if not st.planned)


def rate_of_tokens(s: Scenario, given: float | None) -> float:
    if given is not None:
        return check_number("tokens_per_s", given, 0.0, MAX_TOKENS_PER_S)
    return RELIABILITY[s.kind].healthy_tokens_per_s(s)


def result(
    method: str,
    s: Scenario,
    eff: tuple[Effect, ...],
    badput: dict[str, float],
    tau_s: float,
    interruptions_per_h: float,
    tokens_per_s: float,
    years: float,
    racks: int,
    job_racks: int = 1,
) -> dict:
    """The answer of either method. With job_racks > 1 the hours and interruptions are per
    year of the whole job (every rack's events stop it), and tokens are the job's."""
    frac = max(0.0, 1.0 - sum(badput.values()))
    hours = years * HOURS_PER_YEAR
    return {
        "method": method,
        "scenario": s.key(),
        "fabric": s.fabric,
        "features": [k for k in FEATURE_KEYS if k in s.features],
        "fraction": frac,
        "badput": dict(badput),
        "badput_hours_per_rack_year": {k: v * HOURS_PER_YEAR for k, v in badput.items()},
        "tokens_per_s": tokens_per_s,
        "tokens_delivered": frac * tokens_per_s * hours * 3600.0 * racks,
        # None when nothing interrupts the job (JSON has no infinity)
        "mtbf_hours": 1.0 / interruptions_per_h if interruptions_per_h > 0 else None,
        # per year of the whole job (job_racks racks); the old name is kept for the API's
        # readers and is the same number (per rack only when job_racks is 1: issue 29)
        "interruptions_per_job_year": interruptions_per_h * HOURS_PER_YEAR,
        "interruptions_per_rack_year": interruptions_per_h * HOURS_PER_YEAR,
        "rack_down_visits_per_year": rack_down_visits_per_h(eff) * HOURS_PER_YEAR,
        "planned_stops_per_year": sum(e.rate_per_h * sum(st.planned for st in e.stops) for e in eff)
        * HOURS_PER_YEAR,
        "checkpoint_interval_s": tau_s,
        "years": years,
        "racks": racks,
        "job_racks": job_racks,
        "kinds": [
            {
                "kind": e.name,
                "per_rack_year": e.rate_per_h * HOURS_PER_YEAR,
                "unplanned_stops": sum(not st.planned for st in e.stops),
                "planned_stops": sum(st.planned for st in e.stops),
                "down_h_per_event": sum(st.wait_h + st.restart_h + st.detect_h for st in e.stops),
                "degraded_h_per_event": e.degraded_h,
            }
            for e in eff
        ],
    }


def job_effects(
    eff: tuple[Effect, ...], job_racks: int, spare_swap_h: float | None, restart_h: float = 0.0
) -> tuple[Effect, ...]:
    """The events of one job over `job_racks` racks joined by the scale-out network.

    Every rack's events reach the job (rates x racks): an abort in any rack restarts the
    whole job, a rack-down stop stops it, and a degraded rack gates every step's collectives
    (its slowdown is the job's). With spare racks (`spare_swap_h` given) a stop never waits
    longer than re-forming the job on a spare, and a job aborted by a rack that restarts at
    once comes back on a spare at full rate: no degraded running on fewer GPUs, no later
    stop for the repaired rack to rejoin. A fault the job could run through is also swapped
    out for a spare when that costs less (a planned stop: checkpoint, re-form on the spare,
    `restart_h`) than running degraded on it until its repair and the stops that follow:
    at scale one dark link gates every rack's collectives.
    """
    if job_racks == 1 and spare_swap_h is None:
        return eff
    out = []
    for e in eff:
        stops, degraded = e.stops, e.degraded_h
        if spare_swap_h is not None:
            if stops and not stops[0].planned and stops[0].offset_h == 0.0:
                stops, degraded = stops[:1], 0.0  # restarted on a spare, whole
            stops = tuple(replace(st, wait_h=min(st.wait_h, spare_swap_h)) for st in stops)
            keep = degraded + sum(st.wait_h + st.restart_h for st in stops)
            if degraded > 0.0 and spare_swap_h + restart_h < keep:
                stops = (Stop(0.0, True, spare_swap_h, REPAIR_WAIT, restart_h),)
                degraded = 0.0
        out.append(
            replace(e, rate_per_h=e.rate_per_h * job_racks, stops=stops, degraded_h=degraded)
        )
    return tuple(out)
