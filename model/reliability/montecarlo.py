"""Seeded Monte Carlo of lifetime goodput: every rack's stops sampled and walked in time.

Same key, same result, on every machine (SHA-256 seeds); each event kind draws from its own
stream, so two scenarios that share a kind's rate share its samples.
"""

from __future__ import annotations

import hashlib
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
from model.reliability.effects import (
    CAUSE_OF_CODE,
    CAUSES,
    REPAIR_WAIT,
    RESTARTS,
    Effect,
    Stop,
)
from model.reliability.policy import WAITING
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates
from model.scenario import MAX_QUERY_LENGTH, Scenario

# The seed's text: the API seeds each scenario's run with its canonical key, a query of at
# most MAX_QUERY_LENGTH characters (plus the fabric, which the key always names).
MAX_KEY_LENGTH = MAX_QUERY_LENGTH + 64


def _rng(key: str, salt: str) -> np.random.Generator:
    """A Generator seeded from a string by SHA-256 (stable across runs and processes)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


_STOP_COLS = ("rack", "t", "planned", "wait", "cause", "restart", "detect", "fault")


def _sample(
    eff: tuple[Effect, ...], racks: int, hours: float, key: str, where: int | None = None
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Poisson counts per rack and uniform times per event kind; each kind's own stream.

    Each kind draws from a generator seeded by (key, kind), so two scenarios that share a
    kind's rate share its samples (common random numbers: differences are not noise).
    where: keep the faults too (a history, model/reliability/history.py): each stop's
    `fault` is its row in the table under "faults" (kind index, unit, time, and which of
    `where` racks of the job it struck, drawn after the times so the stops are the same).
    """
    cols: dict[str, list[np.ndarray]] = {k: [] for k in _STOP_COLS}
    faults: dict[str, list[np.ndarray]] = {"kind": [], "unit": [], "t": [], "rack": []}
    degraded = np.zeros(racks)
    n_faults = 0
    for i, e in enumerate(eff):
        if e.rate_per_h <= 0.0:
            continue
        rng = _rng(key, e.name)
        n = rng.poisson(e.rate_per_h * hours, size=racks)
        degraded += n * e.degraded_h
        keep_faults = where is not None and e.name != WAITING
        if not e.stops and not keep_faults:
            continue
        rack = np.repeat(np.arange(racks, dtype=np.int64), n)
        t0 = rng.random(rack.size) * hours
        ids = n_faults + np.arange(rack.size, dtype=np.int64)
        if keep_faults:
            n_faults += rack.size
            faults["kind"].append(np.full(rack.size, i, dtype=np.int32))
            faults["unit"].append(rack)
            faults["t"].append(t0)
            faults["rack"].append(rng.integers(0, where, size=rack.size))
        for st in e.stops:
            ts = t0 + st.offset_h
            keep = ts < hours  # stops beyond the horizon are not reached
            m = int(keep.sum())
            cols["rack"].append(rack[keep])
            cols["t"].append(ts[keep])
            cols["planned"].append(np.full(m, st.planned))
            cols["wait"].append(np.full(m, st.wait_h))
            cols["cause"].append(np.full(m, st.wait_cause, dtype=np.int8))
            cols["restart"].append(np.full(m, st.restart_h))
            cols["detect"].append(np.full(m, st.detect_h))
            cols["fault"].append(ids[keep])
    out = _joined(cols, {"rack": np.int64, "planned": bool, "cause": np.int8, "fault": np.int64})
    if where is not None:
        out["faults"] = _joined(faults, {"kind": np.int32, "unit": np.int64, "rack": np.int64})
    return out, degraded


def _joined(cols: dict[str, list[np.ndarray]], dtypes: dict[str, type]) -> dict:
    """Each column's pieces as one array (an empty one of its type when there are none)."""
    return {
        k: np.concatenate(v) if v else np.zeros(0, dtype=dtypes.get(k, float))
        for k, v in cols.items()
    }


def saved(span: np.ndarray | float, tau: float, w: float) -> np.ndarray:
    """Productive hours of a run of `span` hours that keeps its work (a planned stop, the
    horizon): whole segments of tau work + w write, then the partial segment's work."""
    seg = tau + w
    k = np.floor(span / seg)
    rem = span - k * seg
    return k * tau + np.minimum(rem, tau)


def _in_order(ev: dict[str, np.ndarray], hours: float) -> dict[str, np.ndarray]:
    """The stops sorted by rack, then time, with each one's rack `offset` on one shared axis
    (so one running max walks every rack at once)."""
    # One float key orders by rack, then time (span exceeds any time or end in a rack).
    span = hours + float((ev["wait"] + ev["restart"] + ev["detect"]).max()) + 1.0
    offset = ev["rack"] * span
    order = np.argsort(offset + ev["t"])
    out = {k: ev[k][order] for k in _STOP_COLS}
    out["offset"] = offset[order]
    return out


def _walk(s: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """When the job is back after each stop, end_i = max(end_{i-1}, the stop's own end) within
    its rack, and the index of the stop that set it (an earlier, longer down time)."""
    shifted = s["t"] + s["detect"] + s["wait"] + s["restart"] + s["offset"]
    cm_shift = np.maximum.accumulate(shifted)
    idx = np.arange(shifted.size)
    setter = np.maximum.accumulate(np.where(shifted >= cm_shift, idx, 0))
    return cm_shift - s["offset"], setter


def _neighbours(
    rack: np.ndarray, t: np.ndarray, cm: np.ndarray, hours: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each stop: when the job was back before it (0 for a rack's first), when the next
    stop strikes (the horizon after a rack's last), and whether it is its rack's last."""
    n = t.size
    first = np.ones(n, bool)
    first[1:] = rack[1:] != rack[:-1]
    last = np.ones(n, bool)
    last[:-1] = rack[1:] != rack[:-1]
    prev_end = np.empty(n)
    prev_end[0] = 0.0
    prev_end[1:] = cm[:-1]
    prev_end[first] = 0.0
    t_next = np.empty(n)
    t_next[:-1] = t[1:]
    t_next[last] = hours
    return prev_end, t_next, last


def _runs(
    run: np.ndarray, planned: np.ndarray, tau: float, w: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run that ends at each stop, split into productive work, lost work (an unplanned
    stop loses the partial segment, a planned one saves it) and checkpoint writes."""
    seg = tau + w
    k = np.floor(run / seg)
    rem = run - k * seg
    prod = k * tau + np.where(planned, np.minimum(rem, tau), 0.0)
    lost = np.where(planned, 0.0, rem)
    return prod, lost, run - prod - lost


def _down(
    s: dict[str, np.ndarray], t_next: np.ndarray, cm: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The down time after each stop, until the next stop or the job is back, split into
    detection (the hang, until it is noticed), the wait, the restart, and the rest of an
    earlier, longer down time."""
    covered = np.maximum(np.minimum(t_next, cm) - s["t"], 0.0)
    d = np.minimum(covered, s["detect"])
    a = np.minimum(covered - d, s["wait"])
    b = np.minimum(covered - d - a, s["restart"])
    return d, a, b, covered - d - a - b


def _add(tot: dict[str, np.ndarray], name: str, rack: np.ndarray, vals: np.ndarray) -> None:
    """Add each stop's hours to its rack's total of `name`."""
    tot[name] += np.bincount(rack, weights=vals, minlength=tot[name].size)


def walked(ev: dict[str, np.ndarray], hours: float, tau: float, w: float) -> dict[str, np.ndarray]:
    """Every rack's stops walked in time order, vectorised (no per-event Python loop): the
    stops sorted by rack and time, each with when the job is back after it (`end`), the run
    before it split into productive, lost and checkpoint hours, and the down time after it
    split into detection, wait, restart and the rest of an earlier, longer down time.

    After stop i the job is back at end_i = max(end_{i-1}, t_i + wait_i + restart_i): a
    stop that lands during an earlier down time or restart extends it (Daly: a failure
    during a restart restarts it). Between end_{i-1} and t_i the job runs segments of tau
    work + w write; an unplanned stop loses the partial segment, a planned one saves it.
    """
    s = _in_order(ev, hours)
    cm, setter = _walk(s)
    prev_end, t_next, last = _neighbours(s["rack"], s["t"], cm, hours)
    prod, lost, ckpt = _runs(np.maximum(s["t"] - prev_end, 0.0), s["planned"], tau, w)
    d, a, b, extra = _down(s, t_next, cm)
    extra_code = np.where(s["wait"][setter] > 0.0, s["cause"][setter], RESTARTS)
    return s | {
        "end": cm,
        "prev_end": prev_end,
        "last": last,
        "prod": prod,
        "lost": lost,
        "ckpt": ckpt,
        "d": d,
        "a": a,
        "b": b,
        "extra": extra,
        "extra_code": extra_code,
    }


def _timeline(
    ev: dict[str, np.ndarray], racks: int, hours: float, tau: float, w: float
) -> dict[str, np.ndarray]:
    """Per-rack totals (hours) of each cause and of productive work, from the walk (walked)."""
    tot = {k: np.zeros(racks) for k in ("productive", *CAUSES)}
    if ev["t"].size == 0:
        tot["productive"][:] = saved(hours, tau, w)
        tot["checkpoints"][:] = hours - tot["productive"]
        return tot
    x = walked(ev, hours, tau, w)
    rack, cause, a, extra = x["rack"], x["cause"], x["a"], x["extra"]
    _add(tot, "productive", rack, x["prod"])
    _add(tot, "lost_work", rack, x["lost"])
    _add(tot, "checkpoints", rack, x["ckpt"])
    _add(tot, "restarts", rack, x["b"])
    _add(tot, "detection", rack, x["d"])
    for code, name in enumerate(CAUSE_OF_CODE):
        _add(
            tot,
            name,
            rack,
            np.where(cause == code, a, 0.0) + np.where(x["extra_code"] == code, extra, 0.0),
        )
    # The run from the last stop to the horizon (nothing lost: the work is still there).
    last = x["last"]
    final = np.full(racks, hours)
    final[rack[last]] = np.maximum(hours - x["end"][last], 0.0)
    fprod = saved(final, tau, w)
    tot["productive"] += fprod
    tot["checkpoints"] += final - fprod
    return tot


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
    ev, degraded = _sample(eff, racks, hours, key)
    tot = _timeline(ev, racks, hours, tau_s / 3600.0, rates.checkpoint_write_s / 3600.0)
    # overlapping degraded spells multiply the pace (as the closed form): of each unit's
    # progress, a share 1 - exp(-degraded hours / horizon) is lost
    tot["degraded"] = tot["productive"] * -np.expm1(-degraded / hours)
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
    ev, _ = _sample(eff, runs, hours, key)
    tot = _timeline(ev, runs, hours, tau_s / 3600.0, w_s / 3600.0)
    return float(tot["productive"].sum()) / (hours * runs)


def sample_history(
    eff: tuple[Effect, ...], hours: float, key: str, racks: int, tau: float, w: float
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None, float]:
    """One job over `racks` racks sampled exactly as monte_carlo(racks=1, job_racks=racks)
    samples it under `key`, with its faults kept (model/reliability/history.py): the faults
    table, the walk of its stops (walked; None when none), and its degraded full-rate hours."""
    expected = sum(e.rate_per_h * len(e.stops) for e in eff) * hours
    if expected > MAX_MC_EVENTS:
        raise ScenarioError(
            f"these failure rates give {expected:.3g} expected stops; a history samples at "
            f"most {MAX_MC_EVENTS:g}: fewer racks",
            token="racks",
        )
    ev, degraded = _sample(eff, 1, hours, key, where=racks)
    walk = walked(ev, hours, tau, w) if ev["t"].size else None
    return ev["faults"], walk, float(degraded[0])
