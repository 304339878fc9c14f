"""One sampled history of a job over N racks: its faults as they arrive, what the fabric did,
each rack's state over time, and the job's goodput, restarts and money lost as it goes.

One model: the history is the Monte Carlo's own sample of one job (montecarlo.sample_history:
the same events, rates, repair policy and outcomes as the closed form, walked by the same
timeline), with its faults kept instead of summed away; which rack a fault struck is drawn
after the sample, so the stops and the goodput are the Monte Carlo's to the bit. Seeded by
`seed` alone, and every fault draws its own numbers (draws.py), so a second feature set or
fabric on the same seed has the same failures (common random numbers, see against.py).
"""

from __future__ import annotations

import numpy as np

from model.errors import ScenarioError
from model.reliability.accounting import interval_s, job_scale, rate_of_tokens
from model.reliability.draws import wrapped
from model.reliability.effects import LINK_PARTS, MAINTENANCE, Effect
from model.reliability.montecarlo import sample_history
from model.reliability.pace import fault_losses, lost_between
from model.reliability.policy import parse_policy
from model.reliability.rates import DEFAULT_RATES, Rates
from model.reliability.site import site_of
from model.reliability.walk import saved
from model.scenario import Scenario
from model.workloads.training import TOKENS_PER_GPU_PER_STEP

MAX_HISTORY_RACKS = 2_000  # [A] the largest job a history plays (the 2,000 racks)
MAX_HISTORY_DAYS = 365  # [A] its longest horizon: a year
MAX_SEED = 2**31 - 1
SERIES_POINTS = 731  # [A] points of each line: every 12 h over a year, a page's width
MAX_PARTINGS = 200  # [A] the partings listed (all are counted): a page shows the first

# A rack's state (codes in the answer's intervals; a rack is running outside them).
STATES = ("running", "degraded", "rerouted", "repair", "down", "spare")
RUNNING, DEGRADED, REROUTED, REPAIR, DOWN, SPARE = range(len(STATES))
# What the fabric and the job did about a fault (codes in the answer's events).
ACTIONS = (
    "no effect on the job",
    "rerouted: the job ran on, degraded until the repair",
    "degraded: the job ran on, slower until the repair",
    "parked: checkpointed and stopped on purpose",
    "aborted: restarted at once from the checkpoint",
    "aborted: waited for the repair, then restarted from the checkpoint",
    "aborted: restarted from the checkpoint on a spare rack",
)
NONE, REROUTE, DEGRADE, PARK, ABORT, ABORT_WAIT, ABORT_SPARE = range(len(ACTIONS))


def _check(racks: int, days: float, seed: int) -> None:
    """ScenarioError naming the argument out of bounds."""
    if isinstance(racks, bool) or not isinstance(racks, int) or not 1 <= racks <= MAX_HISTORY_RACKS:
        raise ScenarioError(
            f"racks must be a whole number from 1 to {MAX_HISTORY_RACKS:,}", token="racks"
        )
    if (
        isinstance(days, bool)
        or not isinstance(days, int | float)
        or not 1 <= days <= MAX_HISTORY_DAYS
    ):
        raise ScenarioError(f"days must be from 1 to {MAX_HISTORY_DAYS}", token="days")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"seed must be a whole number from 0 to {MAX_SEED:,}", token="seed")


def action_of(e: Effect, spares: bool) -> int:
    """What the fabric and the job do about one fault of this kind (an ACTIONS code)."""
    first = e.stops[0] if e.stops else None
    if first is not None and first.offset_h == 0.0:
        if first.planned:
            return PARK
        if spares:
            return ABORT_SPARE
        return ABORT_WAIT if first.wait_h > 0.0 else ABORT
    if e.stall_s > 0.0:  # the fabric routed around it and the job ran on
        return REROUTE
    if e.degraded_h > 0.0 or first is not None:
        return DEGRADE
    return NONE


def rack_spells(e: Effect, spares: bool) -> tuple[tuple[int, float, float], ...]:
    """The struck rack's states after one fault of this kind: (state, from, to) in hours
    from the fault. A spare takes an aborted or parked rack's place while it is repaired;
    a part the job runs without is rerouted (or degraded) until its repair or visit."""
    act = action_of(e, spares)
    first = e.stops[0] if e.stops else None
    if act in (ABORT_SPARE,) or (act == PARK and spares and e.repair_h > 0.0):
        return ((SPARE, 0.0, max(e.repair_h, first.wait_h + first.restart_h)),)
    if act == PARK:
        state = DOWN if first.wait_cause == MAINTENANCE else REPAIR
        return ((state, 0.0, first.wait_h + first.restart_h),)
    if act in (ABORT, ABORT_WAIT):
        own = (DOWN, 0.0, first.detect_h + first.wait_h + first.restart_h)
        later = [st for st in e.stops[1:] if st.offset_h > 0.0]
        if not later:
            return (own,)
        v = later[0]  # the job ran on the rest; the rack rejoins after a swap
        return (own, (DEGRADED, own[2], v.offset_h), (REPAIR, v.offset_h, v.offset_h + v.wait_h))
    if act in (REROUTE, DEGRADE):
        visits = [st for st in e.stops if st.offset_h > 0.0]
        if visits:
            v = visits[0]
            return ((act_state(act), 0.0, v.offset_h), (REPAIR, v.offset_h, v.offset_h + v.wait_h))
        return ((act_state(act), 0.0, e.repair_h),)
    return ()


def act_state(act: int) -> int:
    """The rack's state while the job runs on a fault's part (rerouted or degraded)."""
    return REROUTED if act == REROUTE else DEGRADED


def history(
    s: Scenario,
    rates: Rates = DEFAULT_RATES,
    *,
    racks: int,
    days: float,
    seed: int,
    spares: bool = False,
    checkpoint_interval_s: float | None = None,
) -> dict:
    """One sampled history of a job over `racks` racks for `days` days, under the scenario's
    fabric, features and repair policy (repair=): its faults, each rack's states, the job's
    down spells, and its goodput, restarts and money lost as lines over time. Same
    arguments, same answer, on every machine. checkpoint_interval_s: Daly's optimum for
    the scenario's job by default (the one closed_form uses)."""
    _check(racks, days, seed)
    parse_policy(s.repair)
    eff = job_scale(s, rates, racks, spares)
    tau_s = interval_s(eff, rates, checkpoint_interval_s)
    tau, w = tau_s / 3600.0, rates.checkpoint_write_s / 3600.0
    hours = float(days) * 24.0
    faults, walk, pc = sample_history(eff, hours, f"history:{seed}", racks, tau, w)
    gpus = site_of(s).gpus * racks
    tokens_h = rate_of_tokens(s, None) * racks * 3600.0
    per_h = {
        "gpu_h": float(gpus),
        "tokens": tokens_h,
        "money": gpus * rates.price_per_gpu_h,
        "steps": _steps_per_h(s, tokens_h, gpus),
    }
    ev = _events(eff, faults, walk, spares, _degraded_of_faults(faults, pc))
    down = spells(walk, hours)
    series = _series(walk, down, pc, (hours, tau, w), per_h)
    return {
        "scenario": s.key(),
        "racks": racks,
        "days": days,
        "seed": seed,
        "spares": spares,
        "policy": s.repair,
        "gpus": gpus,
        "checkpoint_interval_s": tau_s,
        "price_per_gpu_h": rates.price_per_gpu_h,
        "per_hour_lost": per_h,
        "work_unit": "training steps" if per_h["steps"] else "tokens",
        "fraction": series["goodput"][-1],
        "kinds": _kinds(eff, spares),
        "actions": list(ACTIONS),
        "states": list(STATES),
        "events": _columns(ev, per_h),
        "rack_states": _rack_states(eff, faults, spares, hours),
        "job_down": _job_down(down),
        "series": series,
        "link_stops": _link_stops(eff, ev, per_h),
        "units": "hours from the start; costs in full-rate hours of the whole job, and per_hour_lost "
        "turns an hour into GPU-hours, tokens and $",
    }


def _kinds(eff: tuple[Effect, ...], spares: bool) -> dict:
    """What every fault of a kind shares, as columns (an event names its kind's row): its
    name, the fault it is, what the fabric and the job did (an ACTIONS code), how long the job stalled while
    the fabric rerouted around it, how long its repair took, the full-rate hours its
    degraded running cost, and whether it is a single link's fault."""
    return {
        "name": [e.name for e in eff],
        # the physical fault (draws.py's stream): a flaky link flagged by telemetry and the
        # same link left to fail are one fault, met two ways
        "fault": [e.stream or e.name for e in eff],
        "action": [action_of(e, spares) for e in eff],
        "stall_s": _sig(np.array([e.stall_s for e in eff])),
        "repair_h": _sig(np.array([e.repair_h for e in eff])),
        "degraded_h": _sig(np.array([e.degraded_h for e in eff])),
        "link": [e.name.startswith(LINK_PARTS) for e in eff],
    }


def _steps_per_h(s: Scenario, tokens_per_h: float, gpus: int) -> float | None:
    """Training steps of the job an hour at full rate: its tokens over a step's (each GPU
    trains TOKENS_PER_GPU_PER_STEP tokens a step); None unless the workload is training."""
    if s.workload != "train":
        return None
    return tokens_per_h / (gpus * TOKENS_PER_GPU_PER_STEP)


def _degraded_of_faults(faults: dict, pc: dict) -> np.ndarray:
    """The work each fault's degraded running cost the job on this path (pace.py): the
    history's whole degraded loss shared by the spells, as each slowed the job's running."""
    r = pc["runs"]
    length = r["b"] - r["a"]
    share = np.divide(r["prod"], length, out=np.zeros_like(length), where=length > 0.0)
    order = np.argsort(r["a"], kind="stable")
    runs = {"a": r["a"][order], "b": r["b"][order], "share": share[order]}
    per_spell, _ = fault_losses(pc["spells"], runs, pc["sigma0"], float(r["lost"].sum()))
    out = np.zeros(faults["t"].size)
    np.add.at(out, pc["spells"]["fault"], per_spell)
    return out


def _events(
    eff: tuple[Effect, ...], faults: dict, walk: dict | None, spares: bool, deg: np.ndarray
) -> dict:
    """Every fault in time order with what it cost the job: the down time of its stops
    (detection, wait, restart), the work lost at them, its degraded running (`deg`, on the
    path: nothing while the job was down anyway)."""
    n = faults["t"].size
    down = np.zeros(n)
    lost = np.zeros(n)
    if walk is not None and walk["t"].size:
        f = walk["fault"]
        held = walk["d"] + walk["a"] + walk["b"] + walk["extra"]
        down = np.bincount(f, weights=held, minlength=n)[:n]
        lost = np.bincount(f, weights=walk["lost"], minlength=n)[:n]
    kind = faults["kind"]
    order = np.argsort(faults["t"], kind="stable")
    act = np.array([action_of(e, spares) for e in eff], dtype=np.int64)[kind]
    cost = down + lost + deg
    cols = {
        "t_h": faults["t"],
        "rack": faults["rack"],
        "kind": kind,
        "action": act,
        "down_h": down,
        "lost_work_h": lost,
        "degraded_h": deg,
        "cost_h": cost,
    }
    return {k: v[order] for k, v in cols.items()}


def _sig(x: np.ndarray, figures: int = 4) -> list[float]:
    """Values to `figures` significant figures (what an answer needs, and no more bytes)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(x != 0.0, np.floor(np.log10(np.abs(x))), 0.0)
    scale = 10.0 ** (figures - 1 - mag)
    return (np.round(x * scale) / scale).tolist()


def _columns(ev: dict, per_h: dict) -> dict:
    """The events as columns (one list a field; what a kind's faults share is in its row of
    `kinds`): JSON that stays small at 2,000 racks. Costs: the job's full-rate hours lost
    to the fault (its stops' down time, the work they lost, its degraded running), and the
    same in GPU-hours, $ and work (tokens, or training steps when the job trains)."""
    return {
        "t_h": np.round(ev["t_h"], 3).tolist(),
        "rack": ev["rack"].tolist(),
        "kind": ev["kind"].tolist(),
        "down_h": _sig(ev["down_h"]),
        "lost_work_h": _sig(ev["lost_work_h"]),
        "degraded_h": _sig(ev["degraded_h"]),
        "cost_h": _sig(ev["cost_h"]),
        "gpu_h": _sig(ev["cost_h"] * per_h["gpu_h"]),
        "money": _sig(ev["cost_h"] * per_h["money"]),
        # the work it cost: training steps when the job trains, tokens otherwise
        "work": _sig(ev["cost_h"] * (per_h["steps"] or per_h["tokens"])),
    }


def _rack_states(eff: tuple[Effect, ...], faults: dict, spares: bool, hours: float) -> dict:
    """Each rack's state-change intervals (rack, from, to, state), by rack then time; a later
    interval paints over an earlier one, and a rack is running outside them. A repair past
    the horizon comes round to its start, as the job's stops do (draws.wrapped)."""
    spells = [rack_spells(e, spares) for e in eff]
    rack, t0, t1, state = [], [], [], []
    for k, sp in enumerate(spells):
        mine = faults["kind"] == k
        if not sp or not mine.any():
            continue
        for st, a, b in sp:
            if b <= a:
                continue
            rack.append(faults["rack"][mine])
            t0.append(faults["t"][mine] + a)
            t1.append(np.full(int(mine.sum()), b - a))
            state.append(np.full(int(mine.sum()), st))
    if not rack:
        return {"rack": [], "from_h": [], "to_h": [], "state": []}
    r, a, b, c = _come_round(*(np.concatenate(x) for x in (rack, t0, t1, state)), hours)
    order = np.lexsort((a, r))
    return {
        "rack": r[order].tolist(),
        "from_h": np.round(a[order], 3).tolist(),
        "to_h": np.round(b[order], 3).tolist(),
        "state": c[order].tolist(),
    }


def _come_round(
    r: np.ndarray, a: np.ndarray, length: np.ndarray, c: np.ndarray, hours: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Intervals from `a` lasting `length` on a horizon that comes round: one that starts past
    it starts again from its start, and the part of one that runs past it is a second
    interval from 0 (rack, from, to, state)."""
    a = wrapped(a, hours)
    length = np.minimum(length, hours)
    over = a + length - hours
    two = over > 0.0
    return (
        np.concatenate([r, r[two]]),
        np.concatenate([a, np.zeros(int(two.sum()))]),
        np.concatenate([np.minimum(a + length, hours), over[two]]),
        np.concatenate([c, c[two]]),
    )


def spells(walk: dict | None, hours: float) -> dict[str, np.ndarray]:
    """The job's down spells: each starts at a stop that strikes it while it runs (an abort,
    or a planned stop: parked) and lasts until it is back, however many stops land meanwhile
    (each extends it to its own end). `back` says whether it was back within the horizon."""
    if walk is None or not walk["t"].size:
        none = np.zeros(0, bool)
        return {"from_h": np.zeros(0), "to_h": np.zeros(0), "back": none, "planned": none}
    t, end = walk["t"], walk["end"]
    starts = np.flatnonzero(t >= walk["prev_end"])
    last = np.append(starts[1:] - 1, t.size - 1)  # each spell's last stop (ends are running max)
    return {
        "from_h": t[starts],
        "to_h": np.minimum(end[last], hours),
        "back": end[last] <= hours,
        "planned": walk["planned"][starts],
    }


def _job_down(sp: dict[str, np.ndarray]) -> dict:
    """The job's down spells as columns: from, to (the horizon if it is not back by then),
    and whether the stop that began it was planned (parked) or not (aborted)."""
    return {
        "from_h": np.round(sp["from_h"], 3).tolist(),
        "to_h": np.round(sp["to_h"], 3).tolist(),
        "planned": sp["planned"].tolist(),
    }


def _series(
    walk: dict | None,
    down: dict[str, np.ndarray],
    pc: dict,
    clock: tuple[float, float, float],
    per_h: dict,
) -> dict:
    """Goodput so far, restarts (the job back after a down spell), aborts (spells an
    unplanned stop began) and money lost at SERIES_POINTS times: the work of the runs up to
    each time (the run in progress counted until a stop loses it), less what degraded
    running cost them (pace.py), exactly the Monte Carlo's fraction at the horizon.
    clock: hours, tau and w."""
    hours, tau, w = clock
    tt = np.linspace(0.0, hours, SERIES_POINTS)[1:]
    r = pc["runs"]
    n = r["a"].size - 1  # the runs before each stop, then the last (the horizon's)
    work = r["prod"][:n] - r["lost"][:n]
    if walk is None or not walk["t"].size:
        back = np.zeros(tt.size)
        done = np.zeros(tt.size)
        restarts = aborts = np.zeros(tt.size)
    else:
        i = np.searchsorted(walk["t"], tt, side="right") - 1
        done = np.concatenate([[0.0], np.cumsum(work)])[i + 1]
        back = np.where(i >= 0, walk["end"][np.maximum(i, 0)], 0.0)
        resumed = np.sort(down["to_h"][down["back"]])
        restarts = np.searchsorted(resumed, tt, side="right").astype(float)
        struck = np.sort(down["from_h"][~down["planned"]])
        aborts = np.searchsorted(struck, tt, side="right").astype(float)
    span = np.maximum(tt - back, 0.0)
    now = saved(span, tau, w)
    share = np.divide(now, span, out=np.zeros_like(span), where=span > 0.0)
    zero = np.zeros(tt.size, dtype=np.int64)
    now_lost = share * lost_between(pc["pace"], zero, np.minimum(back, tt), tt)
    good = (done + now - now_lost) / tt
    lost_h = tt * (1.0 - good)
    return {
        "t_h": np.round(np.concatenate([[0.0], tt]), 3).tolist(),
        "goodput": [1.0, *good.tolist()],
        "restarts": [0, *restarts.astype(int).tolist()],
        "aborts": [0, *aborts.astype(int).tolist()],
        "money_lost": [0.0, *_sig(lost_h * per_h["money"])],
        "gpu_h_lost": [0.0, *_sig(lost_h * per_h["gpu_h"])],
        "running": [1.0, *_sig(running_share(down, tt))],
    }


def running_share(down: dict[str, np.ndarray], tt: np.ndarray) -> np.ndarray:
    """The job's state as a line: the share of each span between the times tt (and from 0
    to the first) that it ran, from its down spells (disjoint, in time order)."""
    a, b = down["from_h"], down["to_h"]
    done = np.concatenate([[0.0], np.cumsum(b - a)])  # down hours of the first k spells
    k = np.searchsorted(a, tt, side="right")  # spells begun by each time
    last = np.maximum(k - 1, 0)
    inside = np.where(k > 0, np.clip(tt - a[last] if a.size else 0.0, 0.0, None), 0.0)
    part = np.minimum(inside, (b - a)[last] if a.size else 0.0)
    cum = done[np.maximum(k - 1, 0)] + np.where(k > 0, part, 0.0)
    span = np.diff(np.concatenate([[0.0], tt]))
    return 1.0 - np.diff(np.concatenate([[0.0], cum])) / span


def _link_stops(eff: tuple[Effect, ...], ev: dict, per_h: dict) -> dict:
    """The readers' question: of the history's single link faults, how many stopped the job
    (aborted it, parked it or took its rack down for the swap), and what each such stop cost."""
    is_link = np.array([e.name.startswith(LINK_PARTS) for e in eff], dtype=bool)[ev["kind"]]
    stopped = is_link & (ev["down_h"] + ev["lost_work_h"] > 0.0)
    cost = ev["cost_h"][stopped]
    return {
        "link_faults": int(is_link.sum()),
        "stopped_the_job": int(stopped.sum()),
        "t_h": np.round(ev["t_h"][stopped], 3).tolist(),
        "rack": ev["rack"][stopped].tolist(),
        "action": ev["action"][stopped].tolist(),
        "cost_h": _sig(cost),
        "money": _sig(cost * per_h["money"]),
        "total_cost_h": float(cost.sum()),
        "total_money": float(cost.sum() * per_h["money"]),
    }
