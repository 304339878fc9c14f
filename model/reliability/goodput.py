"""Lifetime goodput of a rack (or a fleet of racks): the closed form, either method by name,
and the side-by-side table of feature sets and fabrics.

Goodput = productive time at full rate / wall time. Badput, by cause:
  restarts     detection + restart overhead after every stop (and restarts cut short)
  lost_work    work since the last checkpoint, lost at each unplanned abort
  checkpoints  blocking checkpoint writes
  degraded     running slower (the scenario's delivered fraction: decode, or the training
               step) for as long as a part is unrepaired (FACTS.md §6 "reroute-and-degrade")
  maintenance  switch updates taken as whole-rack windows (in-service updates off)
  repair_wait  the rack idle: waiting for a repair (or for the fabric controller) before the
               job may restart, and rack-down service actions (cartridge, tray swaps)

The events and their costs are model/reliability/effects.py's; the Monte Carlo is
montecarlo.py; rates and timings come from rates.py (FACTS.md §6 and [A] rows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.multirack.domains import DOMAINS
from model.query import parse_query
from model.reliability.accounting import (
    MAX_RACK_YEARS,
    check_horizon,
    interval_s,
    job_scale,
    rate_of_tokens,
    result,
    unplanned_rate,
)
from model.reliability.by_kind import RELIABILITY
from model.reliability.effects import CAUSES, MAINTENANCE, REPAIR_WAIT
from model.reliability.montecarlo import default_sample_racks, fleet, monte_carlo, simulate_ettr
from model.reliability.policy import candidates, parse_policy
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import AT_RANGE, Scenario, fabric_kind

# The module's public face: the two methods, the table, and what callers label them with.
__all__ = [
    "CAUSES",
    "MAX_RACK_YEARS",
    "best_policy",
    "best_policy_along",
    "closed_form",
    "comparison",
    "comparison_scenarios",
    "default_sample_racks",
    "fleet",
    "lifetime_goodput",
    "monte_carlo",
    "simulate_ettr",
    "summary",
]


def _expected_remainder(run_rate: float, seg: float) -> float:
    """E[X mod seg] for X ~ Exp(run_rate): time since the last checkpoint at a stop."""
    x = run_rate * seg
    if x < 1e-9:
        return seg / 2.0
    return 1.0 / run_rate - seg / math.expm1(x)


def closed_form(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    *,
    years: float = 1.0,
    racks: int = 1,
    tokens_per_s: float | None = None,
    checkpoint_interval_s: float | None = None,
    job_racks: int = 1,
    spares: bool = False,
) -> dict:
    """Expected lifetime goodput: rates x per-event costs, Young/Daly for the aborts.

    job_racks: one job over that many racks (accounting.job_scale); spares: spare racks
    take a failed rack's place. Tokens are the whole job's.

    Per hour of wall time: restarts and idle waits add up over stops; each unplanned stop
    that lands while the job runs loses the time since its last checkpoint (about
    (tau + w)/2, exactly E[run mod (tau + w)] for exponential runs); writes take w/(tau + w)
    of the rest of running time; degraded running slows what progress is left, overlapping
    spells multiplying the pace. With only aborting faults this is Meta's form F3 with
    tau + w in place of tau. Overlapping down times are netted out exactly (the up share is
    exp(-a), below).
    """
    check_horizon(years, racks, monte_carlo=False)
    eff = job_scale(s, rates, job_racks, spares)
    tau_s = interval_s(eff, rates, checkpoint_interval_s)
    tps = rate_of_tokens(s, tokens_per_s) * (job_racks if tokens_per_s is None else 1)
    tau, w = tau_s / 3600.0, rates.checkpoint_write_s / 3600.0
    seg = tau + w
    # Down time: every stop holds the job for its wait and restart from when it lands, and a
    # stop landing while the job is already down extends the down time only to its own end
    # (the Monte Carlo's rule). Stops land as Poisson processes in wall time, so the number
    # of stops holding the job at a given moment is Poisson with mean a = sum(rate x down):
    # the job is up a share exp(-a) of the time, exactly, at any scale (at a rack's a ~ 1e-2
    # this is 1 - a to a part in 10^4); the down time is shared by cause in proportion.
    restart_load = sum(e.rate_per_h * st.restart_h for e in eff for st in e.stops)
    detect_load = sum(e.rate_per_h * st.detect_h for e in eff for st in e.stops)
    wait_load = [0.0, 0.0, 0.0]
    for e in eff:
        for st in e.stops:
            wait_load[st.wait_cause] += e.rate_per_h * st.wait_h
    a = detect_load + restart_load + sum(wait_load)
    running = math.exp(-a)
    share = (-math.expm1(-a)) / a if a > 0.0 else 0.0
    restarts = restart_load * share
    detection = detect_load * share
    waits = [x * share for x in wait_load]
    all_stops = sum(e.rate_per_h * len(e.stops) for e in eff)
    lam_u = unplanned_rate(eff)
    lost = lam_u * running * _expected_remainder(all_stops, seg)
    lost = min(lost, running)
    ckpt = (running - lost) * w / seg
    # Degraded spells slow the job only while it makes progress, and overlapping ones
    # compose: each multiplies the pace by its own factor, so with d full-rate hours lost
    # per hour of spells (d = sum(rate x degraded hours)) the pace is exp(-d) of full
    # (d to first order on one rack; never more than the progress there is, at any scale).
    d = sum(e.rate_per_h * e.degraded_h for e in eff)
    degraded = (running - lost - ckpt) * -math.expm1(-d)
    badput = {
        "detection": detection,
        "restarts": restarts,
        "lost_work": lost,
        "checkpoints": ckpt,
        "degraded": degraded,
        "maintenance": waits[MAINTENANCE],
        "repair_wait": waits[REPAIR_WAIT],
    }
    return result("closed-form", s, eff, badput, tau_s, lam_u, tps, years, racks, job_racks)


def lifetime_goodput(
    s: Scenario, rates: Rates = DEFAULT_RATES, *, method: str = "closed-form", **kw
) -> dict:
    """Lifetime goodput by either method; keyword arguments as closed_form / monte_carlo."""
    if method == "closed-form":
        return closed_form(s, rates, **kw)
    if method == "monte-carlo":
        return monte_carlo(s, rates, **kw)
    raise ScenarioError(
        f"method '{method}' is unknown (closed-form or monte-carlo)", token="method"
    )


def comparison_scenarios(fabric: str = "vr-nvl72") -> list[tuple[str, Scenario]]:
    """vr-nvl72 all features; each feature off; gb200-nvl72 and eth-x72 at their defaults.
    On a multi-rack domain (`fabric` vr-nvl576 or vr-nvl1152): the domain with all seven and
    each off (no other fabric has a multi-rack preset to hold it against)."""
    rows = [(f"{fabric}, all seven features", parse_query(f"fabric={fabric}").scenario)]
    rows += [
        (f"{fabric}, {k} off", parse_query(f"fabric={fabric}&off={k}").scenario)
        for k in FEATURE_KEYS
    ]
    if fabric == "vr-nvl72":
        rows += [
            ("gb200-nvl72, defaults", parse_query("fabric=gb200-nvl72").scenario),
            ("eth-x72, defaults", parse_query("fabric=eth-x72").scenario),
        ]
    elif not RELIABILITY[fabric_kind(fabric)].own_features:
        raise ScenarioError(
            f"the side-by-side is of vr-nvl72 or a multi-rack domain ({', '.join(DOMAINS)}), "
            f"not {fabric}",
            token="fabric",
        )
    return rows


def comparison(
    rates: Rates = DEFAULT_RATES,
    *,
    method: str = "closed-form",
    years: float = 1.0,
    racks: int = 1,
    key: str = "compare",
    job_racks: int = 1,
    spares: bool = False,
    repair: str = "now",
    checkpoint_interval_s: float | None = None,
    workload: str | None = None,
    fabric: str = "vr-nvl72",
    at: float | None = None,
) -> list[dict]:
    """The side-by-side table: one row per comparison scenario (of `fabric`: vr-nvl72 or a
    multi-rack domain, comparison_scenarios), with the change vs row 1,
    for a job over `job_racks` racks (spare racks or not), every row under the repair
    policy `repair`, running `workload` (the default's if None) and the checkpoint interval
    given (Daly's optimum of each by default), decode read at interactivity `at` (the
    default's if None).

    The Monte Carlo rows share `key`, so kinds with equal rates draw the same samples in
    every row (common random numbers) and the differences show the features, not noise.
    """
    if method not in ("closed-form", "monte-carlo"):
        raise ScenarioError(
            f"method '{method}' is unknown (closed-form or monte-carlo)", token="method"
        )
    kw: dict = {"years": years, "racks": racks, "job_racks": job_racks, "spares": spares}
    if checkpoint_interval_s is not None:
        kw["checkpoint_interval_s"] = checkpoint_interval_s
    if method == "monte-carlo":
        kw["key"] = key
    policy = parse_policy(repair).text  # refused by name before any row is worked out
    rows = []
    for label, base in comparison_scenarios(fabric):
        sc = replace(base, repair=policy, workload=workload or base.workload, at=at or base.at)
        r = lifetime_goodput(sc, rates, method=method, **kw)
        rows.append(
            {
                "label": label,
                "query": base.key(),  # the configuration, as comparison_label matches it
                "fabric": sc.fabric,
                "workload": sc.workload,
                "off": list(sc.off),
                "fraction": r["fraction"],
                "badput": r["badput"],
                "badput_hours_per_rack_year": r["badput_hours_per_rack_year"],
                "mtbf_hours": r["mtbf_hours"],
                "checkpoint_interval_s": r["checkpoint_interval_s"],
                "tokens_delivered": r["tokens_delivered"],
                "rack_down_visits_per_year": r["rack_down_visits_per_year"],
                "kinds": r["kinds"],
            }
        )
    ref = rows[0]["fraction"]
    for row in rows:
        row["change_vs_vr_all"] = row["fraction"] - ref
    return rows


def best_policy(s: Scenario, rates: Rates = DEFAULT_RATES, **kw) -> dict:
    """Every repair policy tried on the scenario (closed form), the best, and the trade.

    Tries repair at once, planned windows, dark-link and bandwidth thresholds
    (policy.candidates), each with the scenario's own spare-parts setting; `best` is the
    highest goodput (the fewer rack-down visits on a tie), as it would be written in
    repair=. Keyword arguments as closed_form.
    """
    tried = [policy_try(s, p, rates, **kw) for p in candidates(parse_policy(s.repair).onsite)]
    return policy_pick(tried)


# The optimiser's answer is given at three interactivities around the scenario's (at=): at
# it, 2.5x slower and 2x faster (20, 50 and 100 tokens/s per user at the default), inside
# the range at= takes.
AROUND_AT = (1 / 2.5, 1.0, 2.0)


def interactivities_around(at: float) -> tuple[float, ...]:
    """The three interactivities (tokens/s per user) the optimiser is shown at, around at=."""
    lo, hi = AT_RANGE
    return tuple(sorted({round(min(hi, max(lo, at * k)), 1) for k in AROUND_AT}))


def best_policy_along(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    run: Callable[..., dict] | None = None,
    known: dict | None = None,
    **kw,
) -> list[dict]:
    """best_policy at each of interactivities_around(s.at), side by side: the best policy,
    its gain over repairing at once, and goodput repairing at once, a row an interactivity.
    The degraded rate (decode at that interactivity) is what moves. `run`: best_policy, or
    one that splits it over workers (the same answer); `known`: best_policy's answer at s.at
    already in hand (the API's own), not run again."""
    run = run or best_policy
    rows = []
    for x in interactivities_around(s.at):
        b = known if known is not None and x == s.at else run(replace(s, at=x), rates, **kw)
        rows.append(
            {
                "tokens_per_s_per_user": x,
                "best": b["best"],
                "gain_vs_now": b["gain_vs_now"],
                "fraction_now": b["tried"][0]["fraction"],
                "fraction_best": _fraction_of(b),
                "why": b["why"],
            }
        )
    return rows


def _fraction_of(b: dict) -> float:
    """The best policy's goodput, from best_policy's answer."""
    return next(t["fraction"] for t in b["tried"] if t["policy"] == b["best"])


def policy_try(s: Scenario, policy: str, rates: Rates = DEFAULT_RATES, **kw) -> dict:
    """One policy the optimiser tries, on scenario s (closed form): what best_policy ranks.
    Each is independent of the others, so the optimiser splits into one of these a policy
    (model/reliability/chunks.py) and gives the same answer."""
    r = closed_form(replace(s, repair=policy), rates, **kw)
    return {
        "policy": policy,
        "fraction": r["fraction"],
        "rack_down_visits_per_year": r["rack_down_visits_per_year"],
        "planned_stops_per_year": r["planned_stops_per_year"],
        "badput_hours_per_rack_year": r["badput_hours_per_rack_year"],
    }


def policy_pick(tried: list[dict]) -> dict:
    """best_policy's answer from every policy tried (policy_try's, repairing at once first)."""
    now = tried[0]
    # a policy must beat repairing at once by more than rounding to be named (a threshold
    # the fabric cannot cross, such as bw-97 on 18 links a GPU, is repairing at once)
    rivals = [x for x in tried if x["fraction"] > now["fraction"] + 1e-9]
    best = max(rivals, key=lambda x: (x["fraction"], -x["rack_down_visits_per_year"]), default=now)
    return {
        "best": best["policy"],
        "gain_vs_now": best["fraction"] - now["fraction"],
        "why": policy_why(now, best),
        "tried": tried,
    }


def policy_why(now: dict, best: dict) -> str:
    """Why the best policy wins over repairing at once: what it saves and what it costs."""
    if best is now:
        return (
            "repairing at once is best: running on the faults until a visit (the job's own "
            "slowdown) costs more than the rack-down time that batching visits saves"
        )
    h_now, h_best = now["badput_hours_per_rack_year"], best["badput_hours_per_rack_year"]
    cost = h_best["degraded"] - h_now["degraded"]
    saved = sum(h_now.values()) - sum(h_best.values()) + cost
    visits = now["rack_down_visits_per_year"] - best["rack_down_visits_per_year"]
    fewer = f" takes the rack down {visits:.1f} fewer times a year," if visits >= 0.05 else ""
    return (
        f"{policy_words(best['policy'])}{fewer} saving {saved:.1f} h of stops (rack down, "
        f"restarts, work lost) for {cost:.1f} h of running slower on the parts that wait"
    )


def policy_words(text: str) -> str:
    """A repair policy as a person reads it."""
    p = parse_policy(text)
    head = {
        "now": "repairing at once",
        "window": f"a planned window every {p.n} days",
        "dark": f"a visit when {p.n} links are dark",
        "bw": f"a visit when the worst GPU falls below {p.n}% of its bandwidth",
    }[p.kind]
    return head + (", spare parts on site" if p.onsite else "")


def summary(s: Scenario) -> dict:
    """evaluate()'s goodput block: lifetime goodput of the scenario's fabric and features
    (closed form over one year of its rack or domain; the faults of now aside)."""
    g = closed_form(s)
    unit = RELIABILITY[s.kind].unit
    return {
        "fraction": g["fraction"],
        "badput": g["badput"],
        "badput_hours_per_rack_year": g["badput_hours_per_rack_year"],
        "mtbf_hours": g["mtbf_hours"],
        "interruptions_per_job_year": g["interruptions_per_job_year"],
        "interruptions_per_rack_year": g["interruptions_per_job_year"],  # the old name
        "checkpoint_interval_s": g["checkpoint_interval_s"],
        "tokens_delivered_per_rack_year": g["tokens_delivered"],
        "method": f"closed form over one {unit}-year; /api/v1/goodput adds the Monte Carlo",
    }
