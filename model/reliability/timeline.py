"""The story of one fault, second by second: retries, detection, reroute or abort, restart
and lost work, degraded running until the repair (hot-swap or rack down), restored.

Delivered throughput is a fraction of the healthy rack's (decode at the reference
interactivity, or training tokens/s). The series is a step function: each point holds until
the next one. Goodput is work delivered over elapsed time since the start of the window,
less the work lost since the last checkpoint when the job aborts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from model.assess import Assessment, assess
from model.errors import ScenarioError
from model.events import fault_sentence
from model.fabric.fate import unroutable_planes
from model.ids import parse_id, tray_id
from model.kinds import ComponentKind as K
from model.kinds import EventKind as E
from model.kinds import FabricKind, Feature, JobState, RepairAction, RepairMode, Restart
from model.reliability.accounting import checkpoint_interval_s as default_interval_s
from model.reliability.accounting import visit_wait_h
from model.reliability.domain_story import domain_facts
from model.reliability.facts import FaultFacts, routes_back
from model.reliability.policy import parse_policy
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import Scenario
from model.workloads.throughput import delivered_fraction

LINK_RETRY_S = 1e-4  # [A] link-level replays before a dead link trains down: ~100 us
LEAD_S = 10.0  # the window opens this long before the fault
TAIL_S = 3600.0  # and closes this long after the fabric is whole again


def _rack_facts(s: Scenario, fid: str, rates: Rates) -> FaultFacts:
    """One rack's fault (model/assess.py)."""
    f = s.spec()
    comp = parse_id(fid, f)
    before_s = replace(s, fail=tuple(x for x in s.fail if x != fid))
    a0, a = assess(before_s), assess(s)
    st0, st, part0, part = a0.state, a.state, a0.partition, a.partition
    # The newest fault aborts the job if it loses GPUs or needs a reroute nobody can do that
    # the fabric did not already lack (an older fault's abort is history by now).
    more_lost = len(part.lost) > len(part0.lost)
    new_unroutable = (unroutable_planes(st) & ~unroutable_planes(st0)).any()
    policy = parse_policy(s.repair)

    def whole_tray() -> float:
        return delivered_fraction(replace(s, fail=(*before_s.fail, tray_id(comp.switch_tray))))

    return FaultFacts(
        kind=comp.kind,
        data=comp.kind.data_plane,
        controller=comp.kind is K.CONTROLLER,
        sentence=fault_sentence(st, comp, ""),
        a=a,
        before=delivered_fraction(before_s),
        after=delivered_fraction(s),
        aborted=a.job.state is JobState.ABORTED and bool(more_lost or new_unroutable),
        stall_s=f.reroute_stall_s,
        reroute_how=f.reroute_how,
        control_explanation=st.control.explanation,
        whole_tray=whole_tray
        if comp.kind in (K.SWITCH_CHIP, K.SWITCH_TRAY)
        else lambda: delivered_fraction(s),
        controller_back=lambda: _controller_back(s, a),
        visit_wait_s=visit_wait_h(s, rates) * 3600.0 if policy.kind != "now" else 0.0,
        interval_s=lambda: default_interval_s(s, rates),
    )


@dataclass
class _Story:
    """One fault's story as it is told: its events, and the delivered work's steps (the
    level from each time on), starting at the window's opening."""

    events: list[dict] = field(default_factory=list)
    pts: list[tuple[float, float]] = field(default_factory=list)

    def ev(self, t: float, kind: E, what: str) -> None:
        self.events.append({"t_s": t, "kind": kind, "event": what})

    def at(self, t: float, level: float) -> None:
        self.pts.append((t, level))


def timeline(
    s: Scenario,
    fault: str | None = None,
    rates: Rates = DEFAULT_RATES,
    checkpoint_interval_s: float | None = None,
) -> dict:
    """Events and series for `fault` (default: the last of the scenario's faults).

    checkpoint_interval_s: the job's interval; by default the scenario's own (Daly's
    optimum, model/reliability/accounting.py), the one goodput and evaluate report.
    A multi-rack domain's fault (a rack part, a whole rack, an L2 chip or tray, a trunk)
    is read from its DomainAssessment (model/reliability/domain_story.py), the story the same.
    """
    if not s.fail:
        return {"fault": None, "events": [], "series": [], "note": "no fault in this scenario"}
    fid = fault or s.fail[-1]
    if fid not in s.fail:
        raise ScenarioError(
            f"fault '{fid}' is not among this scenario's faults ({', '.join(s.fail)})", fid
        )
    fx = _FACTS[s.kind](s, fid, rates)
    if checkpoint_interval_s is None:
        checkpoint_interval_s = fx.interval_s()
    a = fx.a
    story = _Story(pts=[(-LEAD_S, fx.before)])
    story.ev(0.0, E.FAULT, fx.sentence)
    if fx.data:
        story.ev(
            LINK_RETRY_S, E.RETRIES, "link-level retries fail; the link trains down and reports it"
        )
    t, after, lost_work_s = _response(story, fx, rates, checkpoint_interval_s)
    t_back = _repair(story, fx, s, fid, rates, t, after)
    story.at(t_back, fx.before)
    story.ev(t_back, E.RESTORED, "restored: the fabric is whole again")
    end = t_back + TAIL_S
    story.at(end, fx.before)

    series = _series(story.pts, lost_work_s, t_lost=events_time(story.events, E.LOST_WORK))
    return {
        "fault": fid,
        "kind": fx.kind,
        "window_s": [-LEAD_S, end],
        "before": fx.before,
        "degraded": after,
        "job": a.job.to_json(),
        "repair": a.repair_of(fid).to_json(),
        "checkpoint_interval_s": checkpoint_interval_s,
        "lost_work_s": lost_work_s,
        "events": sorted(story.events, key=lambda e: e["t_s"]),
        "series": series,
        "units": (
            f"t_s: seconds from the fault; delivered: fraction of the healthy {fx.whole}'s work"
        ),
    }


def _response(
    story: _Story, fx: FaultFacts, rates: Rates, interval_s: float
) -> tuple[float, float, float]:
    """What the fabric and the job do at once: a controller's loss changes the control plane
    only; a fault rerouted stalls the job and it runs degraded; an abort loses the work
    since the last checkpoint, and the job restarts at once, when the controller is back,
    or waits. Returns when that is over, the level the job runs at then, and the work lost."""
    after = fx.after
    if fx.controller:
        story.ev(1.0, E.CONTROL, f"control plane: {fx.control_explanation}")
        story.at(0.0, after)
        return 0.0, after, 0.0
    if not fx.aborted:
        stall = fx.stall_s
        story.at(0.0, 0.0)
        story.ev(
            stall,
            E.REROUTED,
            f"traffic rerouted by {fx.reroute_how}: the job stalled {_fmt(stall)}",
        )
        story.at(stall, after)
        story.ev(
            stall, E.DEGRADED, f"running degraded at {after:.1%} of the healthy {fx.whole}'s work"
        )
        return stall, after, 0.0
    jb = fx.a.job.to_json()
    telem = Feature.TELEMETRY in fx.a.state.features
    detect = (
        rates.detect_telemetry_s
        if (telem and fx.data)
        else rates.detect_other_s
        if not fx.data
        else rates.detect_timeout_s
    )
    story.at(0.0, 0.0)
    story.ev(detect, E.ABORTED, f"job aborted ({jb['cause']}); detected after {_fmt(detect)}")
    lost_work_s = interval_s / 2
    story.ev(
        detect,
        E.LOST_WORK,
        f"work since the last checkpoint is lost: {_fmt(lost_work_s)} on average",
    )
    t = detect
    restart = fx.a.job.restart
    if restart is Restart.AT_ONCE:
        t += rates.restart_s
        story.ev(t, E.RESTARTED, f"job restarted from its checkpoint {jb['restart']}")
        story.at(t, after)
    elif restart is Restart.AFTER_CONTROLLER:
        back_s, after = fx.controller_back()
        story.ev(t, E.WAITING, f"job waits: it restarts {jb['restart']} ({_fmt(back_s)})")
        t = max(t, back_s) + rates.restart_s
        story.ev(t, E.RESTARTED, "fabric controller back: routes reprogrammed, job restarted")
        story.at(t, after)
    else:
        story.ev(t, E.WAITING, f"job waits: it restarts {jb['restart']}")
    return t, after, lost_work_s


def _repair(
    story: _Story, fx: FaultFacts, s: Scenario, fid: str, rates: Rates, t: float, after: float
) -> float:
    """The repair: found (slower without telemetry), waiting for a deferring policy's
    visit, then done hot or with the rack down. Returns when the fabric is whole again."""
    a = fx.a
    rep = a.repair_of(fid)
    telem = Feature.TELEMETRY in a.state.features
    diag = 0.0 if telem or not fx.data else rates.diagnosis_no_telemetry_h * 3600
    t_fix = rep.repair_h * 3600 + diag
    if diag:
        story.ev(
            diag,
            E.DIAGNOSIS,
            f"without per-link counters the failed part takes {_fmt(diag)} to find",
        )
    t_fix = max(t_fix, t)
    action = rep.to_json()["action"]
    wait_s = fx.visit_wait_s
    if wait_s > 0.0 and rep.mode is RepairMode.RACK_DOWN and a.job_runs:
        # a deferring policy: the visit waits for the window or the threshold (its mean)
        words = parse_policy(s.repair).waits_for
        story.ev(
            t_fix,
            E.WAITING,
            f"part on site; the swap waits for {words} ({_fmt(wait_s)} on average)",
        )
        t_fix += wait_s
    restart = a.job.restart
    waiting = fx.aborted and restart in (Restart.AFTER_REPAIR, Restart.AFTER_WINDOW)
    if rep.mode is RepairMode.RACK_DOWN or waiting:
        hot = rep.mode is RepairMode.HOT_SWAP
        down = (rep.planes_down_h or 0.0) * 3600 if hot else rep.rack_down_h * 3600
        how = "hot-swap while the job waits" if hot else f"{fx.whole} down {_fmt(down)}"
        story.ev(t_fix, E.REPAIR, f"repair: {action} ({how})")
        story.at(t_fix, 0.0)
        t_back = t_fix + down + rates.restart_s
        story.ev(t_back, E.RESTARTED, "job restarted on the repaired rack")
        return t_back
    if rep.mode is RepairMode.HOT_SWAP:
        swap = (rep.planes_down_h or 0.0) * 3600
        story.ev(t_fix, E.REPAIR, f"repair: {action} under traffic (hot-swap, {_fmt(swap)})")
        t_back = t_fix + swap
        if rep.planes_down_h is not None:  # a switch tray's planes out for the swap
            story.at(t_fix, min(after, fx.whole_tray()))
        else:  # a compute tray (or rack) back in: the job restarts to take its GPUs in [A]
            story.at(t_fix, 0.0)
            t_back += rates.restart_s
            story.ev(t_back, E.RESTARTED, "job restarted to take the repaired GPUs back in")
        return t_back
    story.ev(t_fix, E.REPAIR, f"repair: {action}")
    return t_fix


def _controller_back(s: Scenario, a: Assessment) -> tuple[float, float]:
    """When routes are back and what the job delivers then (facts.routes_back): the
    controllers whose loss leaves a plane unroutable are repaired soonest first (a
    controller restart, or its tray's swap when it went with its tray) until every plane the
    faults need rerouted has a routing authority again: the leader with the central fabric
    manager, and each tray's own controller when control-plane resilience is off."""
    fixes = (
        r
        for r in a.repairs
        if r.action in (RepairAction.RESTART_CONTROLLER,)
        or (r.id != "update" and parse_id(r.id, a.fabric).kind is K.SWITCH_TRAY)
    )
    return routes_back(
        s,
        fixes,
        lambda left: not unroutable_planes(assess(replace(s, fail=left)).state).any(),
        lambda left: delivered_fraction(replace(s, fail=left)),
    )


def events_time(events: list[dict], kind: E) -> float | None:
    """Time of the first event of this kind."""
    return next((e["t_s"] for e in events if e.get("kind") == kind), None)


def _series(pts: list[tuple[float, float]], lost_s: float, t_lost: float | None) -> list[dict]:
    """Step series of delivered work and cumulative goodput over the window."""
    pts = sorted(pts, key=lambda p: p[0])
    tp = np.array([t for t, _ in pts], dtype=float)
    lvl = np.array([level for _, level in pts], dtype=float)
    good = goodput_curve(tp, lvl, lost_s, t_lost, tp).tolist()
    return [
        {"t_s": t, "delivered": round(level, 6), "goodput": round(g, 6)}
        for (t, level), g in zip(pts, good, strict=True)
    ]


def goodput_curve(
    tp: np.ndarray, lvl: np.ndarray, lost_s: float, t_lost: float | None, t: np.ndarray
) -> np.ndarray:
    """Goodput so far at times t: the work delivered since the window opened (the level lvl
    steps at times tp, so its integral is exact), less the work lost at the abort once it
    is detected (t_lost), over the time elapsed. Not a step: it falls while the job is down.
    At the window's first instant, the level itself."""
    work_at = np.concatenate([[0.0], np.cumsum(lvl[:-1] * np.diff(tp))])
    i = np.clip(np.searchsorted(tp, t, side="right") - 1, 0, tp.size - 1)
    work = work_at[i] + lvl[i] * (t - tp[i])
    if t_lost is not None:
        work = work - np.where(t >= t_lost, lost_s * lvl[0], 0.0)
    elapsed = t - tp[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(elapsed > 0, np.maximum(work, 0.0) / elapsed, lvl[i])


def goodput_at(tl: dict, t: np.ndarray) -> np.ndarray:
    """goodput_curve of a timeline() answer at any times t (its series holds the points)."""
    ser = tl["series"]
    tp = np.array([p["t_s"] for p in ser], dtype=float)
    lvl = np.array([p["delivered"] for p in ser], dtype=float)
    t_lost = events_time(tl.get("events") or [], E.LOST_WORK)
    return goodput_curve(tp, lvl, tl.get("lost_work_s", 0.0), t_lost, np.asarray(t, float))


def _fmt(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1e3:g} ms"
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 4 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


# A fabric kind's facts about one fault (the seam, model/registry.py): a domain's from its
# DomainAssessment; an island fabric is refused by the rack's reader (Scenario.spec).
_FACTS: Mapping[FabricKind, Callable[[Scenario, str, Rates], FaultFacts]] = MappingProxyType(
    {FabricKind.RACK: _rack_facts, FabricKind.DOMAIN: domain_facts, FabricKind.ISLANDS: _rack_facts}
)
