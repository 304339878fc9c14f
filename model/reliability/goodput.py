"""Lifetime goodput of a rack (or a fleet of racks): closed form and seeded Monte Carlo.

Goodput = productive time at full rate / wall time. Badput, by cause:
  restarts     detection + restart overhead after every stop (and restarts cut short)
  lost_work    work since the last checkpoint, lost at each unplanned abort
  checkpoints  blocking checkpoint writes
  degraded     running slower: kappa x the slowest GPU's lost bandwidth share, or on fewer
               GPUs, for as long as a part is unrepaired (FACTS.md §6 "reroute-and-degrade")
  maintenance  switch updates taken as whole-rack windows (in-service updates off)
  repair_wait  the rack idle: waiting for a repair (or for the fabric controller) before the
               job may restart, and rack-down service actions (cartridge, tray swaps)

What each fault does is not decided here: for every component kind a one-fault Scenario is
run through the existing model (faults.build_state, metrics, fate.partition/job/repairs)
and its answer (abort or degrade, restart at once or after repair, stall, slowest GPU,
repair and rack-down hours) is turned into costs. `evaluate` is not called (it will show
goodput itself). Nothing is cached in module state except an lru_cache of those pure
model answers, keyed by the (hashable, frozen) Scenario.

Rates and timings come from model/reliability.py (FACTS.md §6 and [A] rows).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from model.errors import ScenarioError
from model.fabric import fate, metrics
from model.fabric.control import LEADER_HOME_TRAY
from model.fabric.features import FEATURE_KEYS, default_features
from model.fabric.state import build_state
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates
from model.scenario import Scenario, parse_query
from model.workloads.models import DEFAULT_WORKLOAD

CAUSES = ("restarts", "lost_work", "checkpoints", "degraded", "maintenance", "repair_wait")
_RESTARTS, _REPAIR_WAIT, _MAINTENANCE = 0, 1, 2  # codes for the Monte Carlo's down time
_CAUSE_OF_CODE = ("restarts", "repair_wait", "maintenance")

# Bounds (ScenarioError beyond them).
MAX_YEARS = 100.0
MAX_RACKS = 100_000
# Monte Carlo budget: racks x years. At ~100k rack-years/s on one core (measured, see
# docs/GOODPUT.md) this keeps a call well under a second.
MAX_RACK_YEARS = 20_000.0
MAX_MC_EVENTS = 5_000_000  # expected sampled stops per call (memory and time guard)
TAU_MAX_S = 7 * 86400.0  # [A] longest checkpoint interval: a week (no faults: no need)
MAX_TOKENS_PER_S = 1e12


# --------------------------------------------------------------------------------------
# Checkpoint / restart formulas (research/goodput.md F2, F3)
# --------------------------------------------------------------------------------------


def young_interval(w: float, m: float) -> float:
    """Young's optimum checkpoint interval sqrt(2 w M) (w write time, M MTBF; same units)."""
    return math.sqrt(2.0 * w * m)


def daly_interval(w: float, m: float, r: float = 0.0, *, higher_order: bool = False) -> float:
    """Daly's optimum interval: first order sqrt(2 w (M + R)); or his higher-order form.

    Higher order (Daly 2006): sqrt(2wM) [1 + sqrt(w/2M)/3 + (w/2M)/9] - w for w < 2M, else M.
    """
    if not higher_order:
        return math.sqrt(2.0 * w * (m + r))
    if w >= 2.0 * m:
        return m
    x = w / (2.0 * m)
    return math.sqrt(2.0 * w * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - w


def daly_expected_wall_time(ts: float, tau: float, w: float, m: float, r: float) -> float:
    """Daly's exact expected wall time for solve time ts: M e^(R/M) (e^((tau+w)/M) - 1) ts/tau.

    Exponential failures with MTBF m, checkpoint every tau of work, write w, restart r.
    """
    return m * math.exp(r / m) * math.expm1((tau + w) / m) * ts / tau


def daly_ettr(tau: float, w: float, m: float, r: float) -> float:
    """Effective training time ratio under Daly's exact model: ts / expected wall time."""
    return 1.0 / daly_expected_wall_time(1.0, tau, w, m, r)


def meta_ettr(lam: float, u0: float, tau: float, w: float) -> float:
    """Meta's closed form E[ETTR] = (1 - lam (u0 + tau/2)) / (1 + w/tau) (small losses)."""
    return (1.0 - lam * (u0 + tau / 2.0)) / (1.0 + w / tau)


# --------------------------------------------------------------------------------------
# Asking the model what each fault does
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """The model's answer for one scenario, reduced to what goodput needs."""

    state: str  # running | degraded | aborted | stopped
    restart: str  # none | at-once | after-repair | after-controller | after-window
    stall_s: float  # reroute stall when the job keeps running
    usable_share: float  # GPUs the job runs on (after any restart) / all GPUs
    bw_ratio: float  # slowest of those GPUs' bandwidth / healthy
    repair_h: float  # until the part is back in service (0 if nothing to repair)
    rack_down_h: float  # the part of it with the rack down (a rack-down swap at the end)
    planes_down_h: float  # hot-swap: the swapped tray's planes out for the swap
    control: str  # control-plane state: healthy | failed-over | local-fallback | frozen

    def slowdown(self, kappa: float) -> float:
        """Share of full-rate progress lost while this state lasts (FACTS.md §6)."""
        return 1.0 - self.usable_share * (1.0 - kappa * (1.0 - self.bw_ratio))


def _restart_kind(text: str) -> str:
    if text == "none":
        return "none"
    for prefix, kind in (
        ("at once", "at-once"),
        ("after repair", "after-repair"),
        ("after the fabric controller", "after-controller"),
        ("after the window", "after-window"),
    ):
        if text.startswith(prefix):
            return kind
    raise ValueError(f"unknown restart wording from model.fate.job: {text!r}")


@lru_cache(maxsize=512)
def outcome(s: Scenario) -> Outcome:
    """Run the existing model on one scenario (pure; cached on the frozen Scenario)."""
    st = build_state(s)
    f = st.fabric
    bw = metrics.bandwidth(st)
    part = fate.partition(st)
    jb = fate.job(st, part, bw)
    reps = fate.repairs(st)
    per = metrics.per_gpu_tbs(st)
    usable = st.gpu_alive.copy()
    for gid in part["parked_gpus"]:
        usable[int(gid[3:])] = False
    ratio = float(per[usable].min()) / f.gpu_tbs_bidir if usable.any() else 0.0
    wanted = set(s.fail) | ({"update"} if s.update else set())
    mine = [r for r in reps if r["id"] in wanted]
    return Outcome(
        state=jb["state"],
        restart=_restart_kind(jb["restart"]),
        stall_s=float(jb["stall_s"] or 0.0),
        usable_share=float(usable.sum()) / f.gpus,
        bw_ratio=min(1.0, ratio),
        repair_h=max((r["repair_h"] for r in mine), default=0.0),
        rack_down_h=max((r["rack_down_h"] for r in mine), default=0.0),
        planes_down_h=max((r.get("planes_down_h", 0.0) for r in mine), default=0.0),
        control=st.control.state,
    )


def _healthy(s: Scenario) -> Scenario:
    """The scenario's fabric and feature switches on a healthy rack (lifetimes start whole)."""
    return replace(s, fail=(), flaky=(), update=(), workload=DEFAULT_WORKLOAD)


def _with_features(s: Scenario, feats: frozenset[str]) -> Scenario:
    d = default_features(s.fabric)
    return replace(
        s,
        off=tuple(k for k in FEATURE_KEYS if k in d - feats),
        on=tuple(k for k in FEATURE_KEYS if k in feats - d),
    )


# Representative components (valid on every preset: >= 2 chips per tray, 72 GPUs).
LEADER = f"st{LEADER_HOME_TRAY}"
OTHER_TRAY = f"st{LEADER_HOME_TRAY + 2}"
REP = {
    "gpu": "gpu07",
    "compute-tray": "ct02",
    "link": f"gpu07-{OTHER_TRAY}.sw1",
    "leader-plane-link": f"gpu07-{LEADER}.sw1",
    "switch-chip": f"{OTHER_TRAY}.sw1",
    "leader-chip": f"{LEADER}.sw1",
    "switch-tray": OTHER_TRAY,
    "leader-tray": LEADER,
    "controller": f"{OTHER_TRAY}.mc",
    "leader-controller": f"{LEADER}.mc",
}


def classify(s: Scenario) -> dict[str, Outcome]:
    """What each component kind's fault does on this fabric with these features.

    Keys: the REP kinds (one fault each), plus 'flaky-link' (a degrading link, still up) and
    'update' (one switch tray updated: drained in service, or a maintenance window).
    """
    h = _healthy(s)
    out = {k: outcome(replace(h, fail=(cid,))) for k, cid in REP.items()}
    out["flaky-link"] = outcome(replace(h, flaky=(REP["link"],)))
    out["update"] = outcome(replace(h, update=(OTHER_TRAY,)))
    return out


# --------------------------------------------------------------------------------------
# From outcomes to per-event costs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stop:
    """The job stops at `offset_h` after the fault; the rack idles `wait_h`, then restarts."""

    offset_h: float
    planned: bool  # checkpoint first: no lost work, no detection
    wait_h: float
    wait_cause: int  # _REPAIR_WAIT or _MAINTENANCE
    restart_h: float  # detection (unplanned only) + restart overhead


@dataclass(frozen=True)
class Effect:
    """One kind of event: its rate per rack-hour, the stops it causes, its degraded cost."""

    name: str
    rate_per_h: float
    stops: tuple[Stop, ...]
    degraded_h: float  # full-rate hours lost to running degraded (and stalls), per event


def _fault_stops(
    o: Outcome,
    *,
    td_h: float,
    u0_h: float,
    kappa: float,
    extra_h: float = 0.0,
    planned: bool = False,
    controller_wait_h: float | None = None,
    swap_slowdown: float | None = None,
) -> tuple[tuple[Stop, ...], float]:
    """Stops and degraded hours for one fault with outcome `o`.

    extra_h lengthens the repair (diagnosis without telemetry); planned marks a deliberate
    drain (checkpoint first); controller_wait_h is how long a restart 'after the fabric
    controller is back' waits; swap_slowdown is the slowdown while a hot-swapped tray's
    planes are all out.
    """
    repair = o.repair_h + extra_h
    down = o.rack_down_h
    first_restart = u0_h + (0.0 if planned else td_h)
    if o.state == "running":
        return (), 0.0
    if o.state == "degraded":
        d = o.slowdown(kappa)
        deg = d * (repair - down) + (0.0 if planned else o.stall_s / 3600.0)
        if swap_slowdown is not None and down == 0.0 and o.planes_down_h > 0.0:
            deg += max(0.0, swap_slowdown - d) * o.planes_down_h
        stops = (Stop(repair - down, True, down, _REPAIR_WAIT, u0_h),) if down > 0 else ()
        return stops, deg
    if o.state == "aborted":
        if o.restart == "at-once":
            first = Stop(0.0, planned, 0.0, _REPAIR_WAIT, first_restart)
            deg = o.slowdown(kappa) * (repair - down)
            # The repaired part comes back with a rack-down swap, or the lost GPUs rejoin.
            if down > 0.0 or o.usable_share < 1.0:
                return (first, Stop(repair - down, True, down, _REPAIR_WAIT, u0_h)), deg
            return (first,), deg
        if o.restart == "after-controller" and controller_wait_h is not None:
            wait = controller_wait_h
        else:  # after repair (the partition is UNHEALTHY until then)
            wait = repair
        return (Stop(0.0, planned, wait, _REPAIR_WAIT, first_restart),), 0.0
    raise ValueError(f"unexpected job state for a fault: {o.state}")


def effects(s: Scenario, rates: Rates = DEFAULT_RATES) -> tuple[Effect, ...]:
    """Every kind of event over a rack's life, with rates and per-event costs.

    Kinds: GPU, compute tray, software, link (sudden, or preceded by a flaky phase), switch
    chip, switch tray (other and the leader's), management controller, switch update, and
    data faults that land while there is no central fabric controller.

    Control plane (approximate): the leader (st1.mc) is lost when its controller or its
    tray fails. With control-plane resilience a peer takes over after `failover_gap_h`;
    without it there is no central controller until the leader is repaired (its restart,
    or its tray's swap). During such a window the rack behaves as the model says for
    fail=st1.mc plus the new fault with resilience off: with routing fallback each healthy
    tray reroutes its own planes; without it routes are frozen and any fault that needs a
    reroute aborts the job, which restarts when the controller is back (half the window on
    average). The expected number of such aborts is (window hours per hour) x (rate of
    faults that the window turns into aborts); faults that abort anyway are not counted
    twice.
    """
    f = s.spec()
    h = _healthy(s)
    feats = h.features
    c = classify(h)
    g, t = f.gpus, f.switch_trays
    u0 = rates.restart_s / 3600.0
    k = rates.kappa
    tele = "telemetry" in feats
    td_fab = (rates.detect_telemetry_s if tele else rates.detect_timeout_s) / 3600.0
    td_other = rates.detect_other_s / 3600.0
    diag = 0.0 if tele else rates.diagnosis_no_telemetry_h
    tray_slow = c["switch-tray"].slowdown(k)

    def fault(name: str, rate: float, o: Outcome, **kw) -> Effect:
        kw.setdefault("td_h", td_fab)
        stops, deg = _fault_stops(o, u0_h=u0, kappa=k, **kw)
        return Effect(name, rate, stops, deg)

    out: list[Effect] = [
        fault("gpu", rates.gpu_per_h * g, c["gpu"], td_h=td_other),
        fault(
            "compute-tray",
            rates.compute_tray_per_h * f.compute_trays,
            c["compute-tray"],
            td_h=td_other,
        ),
        Effect(
            "software",
            rates.software_per_gpu_h * g,
            (Stop(0.0, False, 0.0, _REPAIR_WAIT, td_other + u0),),
            0.0,
        ),
    ]
    link_rate = rates.link_per_h * f.links
    sudden = fault("link", link_rate * (1.0 - rates.flaky_share), c["link"], extra_h=diag)
    out.append(sudden)
    if tele:  # flagged days ahead and drained on purpose: a planned drain
        out.append(
            fault(
                "link, flagged by telemetry", link_rate * rates.flaky_share, c["link"], planned=True
            )
        )
    else:  # runs flaky (replays) until it fails, then an unplanned fault
        flaky_deg = c["flaky-link"].slowdown(k) * rates.flaky_lead_h
        stops, deg = _fault_stops(c["link"], td_h=td_fab, u0_h=u0, kappa=k, extra_h=diag)
        out.append(
            Effect("link, flaky then failed", link_rate * rates.flaky_share, stops, deg + flaky_deg)
        )
    out += [
        fault(
            "switch-chip",
            rates.switch_chip_per_h * f.chips,
            c["switch-chip"],
            swap_slowdown=tray_slow,
        ),
        fault(
            "switch-tray",
            rates.switch_tray_per_h * (t - 1),
            c["switch-tray"],
            swap_slowdown=tray_slow,
        ),
        fault(
            "leader switch-tray",
            rates.switch_tray_per_h,
            c["leader-tray"],
            swap_slowdown=tray_slow,
            controller_wait_h=c["leader-tray"].repair_h,
        ),
        fault("controller", rates.controller_per_h * (t - 1), c["controller"]),
        fault("leader controller", rates.controller_per_h, c["leader-controller"]),
    ]

    # Switch software updates: every tray in turn (in service), or one rack-wide window.
    up = c["update"]
    upd_rate = rates.updates_per_year / HOURS_PER_YEAR
    if up.state == "stopped":
        out.append(
            Effect(
                "switch update", upd_rate, (Stop(0.0, True, up.repair_h, _MAINTENANCE, u0),), 0.0
            )
        )
    else:
        out.append(Effect("switch update", upd_rate, (), t * up.repair_h * up.slowdown(k)))

    # Windows without a central fabric controller.
    windows = []  # (rate per hour, window length h)
    mc = c["leader-controller"]
    windows.append(
        (
            rates.controller_per_h,
            rates.failover_gap_h if mc.control == "failed-over" else mc.repair_h,
        )
    )
    lt = c["leader-tray"]
    if lt.state == "degraded" or lt.restart == "at-once":  # the job goes on meanwhile
        gap = rates.failover_gap_h if lt.control == "failed-over" else lt.repair_h
        windows.append((rates.switch_tray_per_h, gap))
    win_h_per_h = sum(r * w for r, w in windows)
    if win_h_per_h > 0.0:
        nocp = _with_features(h, feats - {"cp-resilience"})
        lead_mc = REP["leader-controller"]
        share_leader = 1.0 / t
        candidates = (
            ("link", link_rate * (1 - share_leader), REP["link"]),
            ("link", link_rate * share_leader, REP["leader-plane-link"]),
            (
                "switch-chip",
                rates.switch_chip_per_h * f.chips * (1 - share_leader),
                REP["switch-chip"],
            ),
            ("switch-chip", rates.switch_chip_per_h * f.chips * share_leader, REP["leader-chip"]),
            ("switch-tray", rates.switch_tray_per_h * (t - 1), REP["switch-tray"]),
        )
        turned = 0.0
        for kind, rate, cid in candidates:
            if c[kind].state == "aborted":
                continue  # aborts anyway: already counted
            if outcome(replace(nocp, fail=(lead_mc, cid))).state == "aborted":
                turned += rate
        mean_window = win_h_per_h / sum(r for r, _ in windows)
        out.append(
            Effect(
                "data fault with no central controller",
                win_h_per_h * turned,
                (Stop(0.0, False, mean_window / 2.0, _REPAIR_WAIT, td_fab + u0),),
                0.0,
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------------------
# Checks on inputs
# --------------------------------------------------------------------------------------


def _check_number(name: str, v: object, lo: float, hi: float, *, lo_open: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ScenarioError(f"{name} must be a finite number, not {v!r}", token=name)
    if v > hi or v < lo or (lo_open and v == lo):
        lo_txt = f"more than {lo:g}" if lo_open else f"at least {lo:g}"
        raise ScenarioError(f"{name} = {v:g} must be {lo_txt} and at most {hi:g}", token=name)
    return float(v)


def _check_horizon(years: float, racks: int, *, monte_carlo: bool) -> None:
    _check_number("years", years, 0.0, MAX_YEARS, lo_open=True)
    if isinstance(racks, bool) or not isinstance(racks, int) or not 1 <= racks <= MAX_RACKS:
        raise ScenarioError(f"racks must be a whole number from 1 to {MAX_RACKS}", token="racks")
    if monte_carlo and racks * years > MAX_RACK_YEARS:
        raise ScenarioError(
            f"racks x years = {racks * years:g} rack-years; the Monte Carlo runs at most "
            f"{MAX_RACK_YEARS:g}",
            token="racks",
        )


def _interval_s(eff: tuple[Effect, ...], rates: Rates, given: float | None) -> float:
    """The checkpoint interval: the caller's, or Daly's first-order optimum (capped)."""
    if given is not None:
        return _check_number("checkpoint_interval_s", given, 1.0, TAU_MAX_S)
    lam = _unplanned_rate(eff)
    if lam <= 0.0:
        return TAU_MAX_S
    r = (
        sum(
            e.rate_per_h * (st.wait_h + st.restart_h)
            for e in eff
            for st in e.stops
            if not st.planned
        )
        / lam
    )
    tau = daly_interval(rates.checkpoint_write_s, 3600.0 / lam, 3600.0 * r)
    return min(tau, TAU_MAX_S)


def _unplanned_rate(eff: tuple[Effect, ...]) -> float:
    return sum(e.rate_per_h for e in eff for st in e.stops if not st.planned)


def _tokens_per_s(s: Scenario, rates: Rates, given: float | None) -> float:
    if given is not None:
        return _check_number("tokens_per_s", given, 0.0, MAX_TOKENS_PER_S)
    return rates.tokens_per_gpu_s * s.spec().gpus


def _result(
    method: str,
    s: Scenario,
    eff: tuple[Effect, ...],
    badput: dict[str, float],
    tau_s: float,
    interruptions_per_h: float,
    tokens_per_s: float,
    years: float,
    racks: int,
) -> dict:
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
        "interruptions_per_rack_year": interruptions_per_h * HOURS_PER_YEAR,
        "checkpoint_interval_s": tau_s,
        "years": years,
        "racks": racks,
        "kinds": [
            {
                "kind": e.name,
                "per_rack_year": e.rate_per_h * HOURS_PER_YEAR,
                "unplanned_stops": sum(not st.planned for st in e.stops),
                "planned_stops": sum(st.planned for st in e.stops),
                "down_h_per_event": sum(st.wait_h + st.restart_h for st in e.stops),
                "degraded_h_per_event": e.degraded_h,
            }
            for e in eff
        ],
    }


# --------------------------------------------------------------------------------------
# Closed form
# --------------------------------------------------------------------------------------


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
) -> dict:
    """Expected lifetime goodput: rates x per-event costs, Young/Daly for the aborts.

    Per hour of wall time: restarts and idle waits add up over stops; each unplanned stop
    that lands while the job runs loses the time since its last checkpoint (about
    (tau + w)/2, exactly E[run mod (tau + w)] for exponential runs); writes take w/(tau + w)
    of the rest of running time; degraded running adds up over faults. With only aborting
    faults this is Meta's form F3 with tau + w in place of tau. Small-loss accounting:
    overlapping events are not netted out (the Monte Carlo does that).
    """
    _check_horizon(years, racks, monte_carlo=False)
    eff = effects(s, rates)
    tau_s = _interval_s(eff, rates, checkpoint_interval_s)
    tps = _tokens_per_s(s, rates, tokens_per_s)
    tau, w = tau_s / 3600.0, rates.checkpoint_write_s / 3600.0
    seg = tau + w
    restarts = sum(e.rate_per_h * st.restart_h for e in eff for st in e.stops)
    waits = [0.0, 0.0, 0.0]
    for e in eff:
        for st in e.stops:
            waits[st.wait_cause] += e.rate_per_h * st.wait_h
    all_stops = sum(e.rate_per_h * len(e.stops) for e in eff)
    lam_u = _unplanned_rate(eff)
    running = max(0.0, 1.0 - restarts - sum(waits))
    lost = lam_u * running * _expected_remainder(all_stops, seg)
    lost = min(lost, running)
    ckpt = (running - lost) * w / seg
    degraded = sum(e.rate_per_h * e.degraded_h for e in eff)
    badput = {
        "restarts": restarts,
        "lost_work": lost,
        "checkpoints": ckpt,
        "degraded": degraded,
        "maintenance": waits[_MAINTENANCE],
        "repair_wait": waits[_REPAIR_WAIT],
    }
    return _result("closed-form", s, eff, badput, tau_s, lam_u, tps, years, racks)


# --------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------


def _rng(key: str, salt: str) -> np.random.Generator:
    """A Generator seeded from a string by SHA-256 (stable across runs and processes)."""
    digest = hashlib.sha256(f"{key}\x1f{salt}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def _sample(
    eff: tuple[Effect, ...], racks: int, hours: float, key: str
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Poisson counts per rack and uniform times per event kind; each kind's own stream.

    Each kind draws from a generator seeded by (key, kind), so two scenarios that share a
    kind's rate share its samples (common random numbers: differences are not noise).
    """
    cols: dict[str, list[np.ndarray]] = {
        k: [] for k in ("rack", "t", "planned", "wait", "cause", "restart")
    }
    degraded = np.zeros(racks)
    for e in eff:
        if e.rate_per_h <= 0.0:
            continue
        rng = _rng(key, e.name)
        n = rng.poisson(e.rate_per_h * hours, size=racks)
        degraded += n * e.degraded_h
        if not e.stops:
            continue
        rack = np.repeat(np.arange(racks, dtype=np.int64), n)
        t0 = rng.random(rack.size) * hours
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
    empty = {"rack": np.int64, "planned": bool, "cause": np.int8}
    out = {
        k: np.concatenate(v) if v else np.zeros(0, dtype=empty.get(k, float))
        for k, v in cols.items()
    }
    return out, degraded


def _timeline(
    ev: dict[str, np.ndarray], racks: int, hours: float, tau: float, w: float
) -> dict[str, np.ndarray]:
    """Walk every rack's stops in time order, vectorised (no per-event Python loop).

    After stop i the job is back at end_i = max(end_{i-1}, t_i + wait_i + restart_i): a
    stop that lands during an earlier down time or restart extends it (Daly: a failure
    during a restart restarts it). Between end_{i-1} and t_i the job runs segments of tau
    work + w write; an unplanned stop loses the partial segment, a planned one saves it.
    Returns per-rack totals (hours) of each cause and of productive work.
    """
    tot = {k: np.zeros(racks) for k in ("productive", *CAUSES)}
    n = ev["t"].size
    if n == 0:
        seg = tau + w
        k = np.floor(hours / seg)
        rem = hours - k * seg
        tot["productive"][:] = k * tau + min(rem, tau)
        tot["checkpoints"][:] = hours - tot["productive"]
        return tot
    # One float key orders by rack, then time (span exceeds any time or end in a rack).
    span = hours + float((ev["wait"] + ev["restart"]).max()) + 1.0
    offset = ev["rack"] * span
    order = np.argsort(offset + ev["t"])
    rack = ev["rack"][order]
    offset = offset[order]
    t = ev["t"][order]
    planned = ev["planned"][order]
    wait = ev["wait"][order]
    cause = ev["cause"][order]
    restart = ev["restart"][order]
    own_end = t + wait + restart
    shifted = own_end + offset
    cm_shift = np.maximum.accumulate(shifted)
    cm = cm_shift - offset
    idx = np.arange(n)
    setter = np.maximum.accumulate(np.where(shifted >= cm_shift, idx, 0))
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

    # Runs that end at each stop.
    seg = tau + w
    run = np.maximum(t - prev_end, 0.0)
    k = np.floor(run / seg)
    rem = run - k * seg
    prod = k * tau + np.where(planned, np.minimum(rem, tau), 0.0)
    lost = np.where(planned, 0.0, rem)
    ckpt = run - prod - lost
    # Down time after each stop, until the next stop or the job is back.
    covered = np.maximum(np.minimum(t_next, cm) - t, 0.0)
    a = np.minimum(covered, wait)
    b = np.minimum(covered - a, restart)
    extra = covered - a - b  # the rest of an earlier, longer down time
    extra_code = np.where(wait[setter] > 0.0, cause[setter], _RESTARTS)

    def add(name: str, vals: np.ndarray) -> None:
        tot[name] += np.bincount(rack, weights=vals, minlength=racks)

    add("productive", prod)
    add("lost_work", lost)
    add("checkpoints", ckpt)
    add("restarts", b)
    for code, name in enumerate(_CAUSE_OF_CODE):
        add(name, np.where(cause == code, a, 0.0) + np.where(extra_code == code, extra, 0.0))
    # The run from the last stop to the horizon (nothing lost: the work is still there).
    final = np.full(racks, hours)
    final[rack[last]] = np.maximum(hours - cm[last], 0.0)
    k = np.floor(final / seg)
    rem = final - k * seg
    fprod = k * tau + np.minimum(rem, tau)
    tot["productive"] += fprod
    tot["checkpoints"] += final - fprod
    return tot


def monte_carlo(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    *,
    years: float = 1.0,
    racks: int = 1,
    key: str = "goodput",
    tokens_per_s: float | None = None,
    checkpoint_interval_s: float | None = None,
) -> dict:
    """Seeded Monte Carlo of `racks` racks over `years`: the same causes, sampled in time.

    Counts per rack are Poisson, times uniform, each kind's follow-up stops (swaps, GPUs
    rejoining) at their offsets; then every rack's timeline is walked (see _timeline), so
    overlaps, failures during restarts and the checkpoint phase are exact. Degraded
    running is added per event. Same key, same result; seeded by SHA-256 of the key.
    """
    _check_horizon(years, racks, monte_carlo=True)
    if not isinstance(key, str) or len(key) > 200:
        raise ScenarioError("key must be a string of at most 200 characters", token="key")
    eff = effects(s, rates)
    tau_s = _interval_s(eff, rates, checkpoint_interval_s)
    tps = _tokens_per_s(s, rates, tokens_per_s)
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
    tot["degraded"] = np.minimum(degraded, tot["productive"])
    wall = hours * racks
    badput = {c: float(tot[c].sum()) / wall for c in CAUSES}
    n_unplanned = int((~ev["planned"]).sum())
    res = _result("monte-carlo", s, eff, badput, tau_s, n_unplanned / wall, tps, years, racks)
    per_rack = (tot["productive"] - tot["degraded"]) / hours
    res["per_rack_fraction"] = {
        q: float(np.percentile(per_rack, p)) for q, p in (("p5", 5), ("p50", 50), ("p95", 95))
    }
    res["key"] = key
    return res


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
    _check_number("lam_per_h", lam_per_h, 0.0, 100.0)
    _check_number("restart_s", restart_s, 0.0, 86400.0)
    _check_number("tau_s", tau_s, 1.0, TAU_MAX_S)
    _check_number("w_s", w_s, 0.0, 86400.0)
    _check_number("hours", hours, 0.0, MAX_YEARS * HOURS_PER_YEAR, lo_open=True)
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RACKS:
        raise ScenarioError(f"runs must be a whole number from 1 to {MAX_RACKS}", token="runs")
    if lam_per_h * hours * runs > MAX_MC_EVENTS:
        raise ScenarioError(f"more than {MAX_MC_EVENTS:g} failures expected", token="hours")
    eff = (
        Effect("fault", lam_per_h, (Stop(0.0, False, 0.0, _REPAIR_WAIT, restart_s / 3600),), 0.0),
    )
    ev, _ = _sample(eff, runs, hours, key)
    tot = _timeline(ev, runs, hours, tau_s / 3600.0, w_s / 3600.0)
    return float(tot["productive"].sum()) / (hours * runs)


# --------------------------------------------------------------------------------------
# The comparison that matters
# --------------------------------------------------------------------------------------


def comparison_scenarios() -> list[tuple[str, Scenario]]:
    """vr-nvl72 all features; each feature off; gb200-nvl72 and eth-x72 at their defaults."""
    rows = [("vr-nvl72, all seven features", parse_query("fabric=vr-nvl72").scenario)]
    rows += [
        (f"vr-nvl72, {k} off", parse_query(f"fabric=vr-nvl72&off={k}").scenario)
        for k in FEATURE_KEYS
    ]
    rows += [
        ("gb200-nvl72, defaults", parse_query("fabric=gb200-nvl72").scenario),
        ("eth-x72, defaults", parse_query("fabric=eth-x72").scenario),
    ]
    return rows


def comparison(
    rates: Rates = DEFAULT_RATES,
    *,
    method: str = "closed-form",
    years: float = 1.0,
    racks: int = 1,
    key: str = "compare",
) -> list[dict]:
    """The side-by-side table: one row per comparison scenario, with the change vs row 1.

    The Monte Carlo rows share `key`, so kinds with equal rates draw the same samples in
    every row (common random numbers) and the differences show the features, not noise.
    """
    if method not in ("closed-form", "monte-carlo"):
        raise ScenarioError(
            f"method '{method}' is unknown (closed-form or monte-carlo)", token="method"
        )
    kw: dict = {"years": years, "racks": racks} | ({"key": key} if method == "monte-carlo" else {})
    rows = []
    for label, sc in comparison_scenarios():
        r = lifetime_goodput(sc, rates, method=method, **kw)
        rows.append(
            {
                "label": label,
                "query": sc.key(),
                "fabric": sc.fabric,
                "off": list(sc.off),
                "fraction": r["fraction"],
                "badput": r["badput"],
                "badput_hours_per_rack_year": r["badput_hours_per_rack_year"],
                "mtbf_hours": r["mtbf_hours"],
                "checkpoint_interval_s": r["checkpoint_interval_s"],
                "tokens_delivered": r["tokens_delivered"],
            }
        )
    ref = rows[0]["fraction"]
    for row in rows:
        row["change_vs_vr_all"] = row["fraction"] - ref
    return rows
