"""What each fault does to a job over a rack's life: outcomes, stops and degraded hours.

What each fault does is not decided here: for every component kind a one-fault Scenario is
assessed (model/assess.py) and its answer (abort or degrade, restart at once or after
repair, stall, the delivered fraction while degraded, repair and rack-down hours) is turned
into costs. The delivered fraction is model.workloads.throughput's, the same number the
timeline and the page show: one scenario, one degraded rate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model.kinds import ControlState, Feature, JobState, Restart
from model.reliability import site as site_mod
from model.reliability.by_kind import RELIABILITY
from model.reliability.outcomes import (
    Outcome,
    classify,
    healthy,
    on_site,
    outcome,
    swap_time,
    with_fail,
    with_features,
)
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates
from model.scenario import ONSITE, Scenario

CAUSES = (
    "detection",
    "restarts",
    "lost_work",
    "checkpoints",
    "degraded",
    "maintenance",
    "repair_wait",
)
RESTARTS, REPAIR_WAIT, MAINTENANCE = 0, 1, 2  # codes for a stop's down time
CAUSE_OF_CODE = ("restarts", "repair_wait", "maintenance")


@dataclass(frozen=True)
class Stop:
    """The job stops at `offset_h` after the fault; the rack idles `wait_h`, then restarts."""

    offset_h: float
    planned: bool  # checkpoint first: no lost work, no detection
    wait_h: float
    wait_cause: int  # REPAIR_WAIT or MAINTENANCE
    restart_h: float  # the restart's overhead
    detect_h: float = 0.0  # until the stop is noticed: a hang waits for its timeout


@dataclass(frozen=True)
class Effect:
    """One kind of event: its rate per rack-hour, the stops it causes, its degraded cost."""

    name: str
    rate_per_h: float
    stops: tuple[Stop, ...]
    degraded_h: float  # full-rate hours lost to running degraded (and stalls), per event
    running_slowdown: float = 0.0  # the slowdown while the part waits for its repair visit
    planes: int = 0  # planes the fault darkens: on one GPU (a link), or on every GPU
    every_gpu: bool = False  # a switch chip or tray: its planes are dark for every GPU
    repair_h: float = 0.0  # until the part is back in service (a history's rack states)
    stall_s: float = 0.0  # the reroute's stall when the job runs on (a history's events)
    # the physical fault whose random numbers it draws (draws.py): its name unless another
    # kind is the same fault met another way (a flaky link flagged, or left to fail)
    stream: str = ""
    spell_h: float = 0.0  # how long its degraded running lasts when no stop or repair ends it
    # a hot swap at the end of the repair: its hours, and the part of degraded_h they cost
    # beyond the running slowdown (all of the part's planes out while its tray is swapped)
    swap_h: float = 0.0
    swap_cost_h: float = 0.0


def _fault_stops(
    o: Outcome,
    *,
    td_h: float,
    u0_h: float,
    extra_h: float = 0.0,
    planned: bool = False,
    controller_wait_h: float | None = None,
    swap_slowdown: float | None = None,
) -> tuple[tuple[Stop, ...], float, tuple[float, float]]:
    """Stops and degraded hours for one fault with outcome `o`, and the hot swap's hours and
    the part of those degraded hours it costs (0, 0 without one).

    extra_h lengthens the repair (diagnosis without telemetry); planned marks a deliberate
    drain (checkpoint first); controller_wait_h is how long a restart 'after the fabric
    controller is back' waits; swap_slowdown is the slowdown while a hot-swapped tray's
    planes are all out.
    """
    repair = o.repair_h + extra_h
    down = o.rack_down_h
    detect = 0.0 if planned else td_h
    none = (0.0, 0.0)
    if o.state is JobState.RUNNING:
        return (), 0.0, none
    if o.state is JobState.DEGRADED:
        d = o.slowdown()
        deg = d * (repair - down) + (0.0 if planned else o.stall_s / 3600.0)
        swap = none
        if swap_slowdown is not None and down == 0.0 and o.planes_down_h > 0.0:
            swap = (o.planes_down_h, max(0.0, swap_slowdown - d) * o.planes_down_h)
            deg += swap[1]
        stops = (Stop(repair - down, True, down, REPAIR_WAIT, u0_h),) if down > 0 else ()
        return stops, deg, swap
    if o.state is JobState.ABORTED:
        if o.restart is Restart.AT_ONCE:
            first = Stop(0.0, planned, 0.0, REPAIR_WAIT, u0_h, detect)
            deg = o.slowdown() * (repair - down)
            # The repaired part comes back with a rack-down swap, or the lost GPUs rejoin.
            if down > 0.0 or o.usable_share < 1.0:
                return (first, Stop(repair - down, True, down, REPAIR_WAIT, u0_h)), deg, none
            return (first,), deg, none
        if o.restart is Restart.AFTER_CONTROLLER and controller_wait_h is not None:
            wait = controller_wait_h
        else:  # after repair (the partition is UNHEALTHY until then)
            wait = repair
        return (Stop(0.0, planned, wait, REPAIR_WAIT, u0_h, detect),), 0.0, none
    raise ValueError(f"unexpected job state for a fault: {o.state}")


def _stop_h(stops: tuple[Stop, ...], degraded_h: float) -> float:
    """Full-rate hours a fault's stops and degraded running take, the work lost at an
    unplanned stop aside: each stop's detection, wait and restart, and the degraded hours."""
    return sum(st.detect_h + st.wait_h + st.restart_h for st in stops) + degraded_h


def unplanned_extra(s: Scenario, cid: str, rates: Rates = DEFAULT_RATES) -> dict:
    """What part `cid` failing unplanned costs a job beyond the same repair done on purpose
    (drained first, checkpointed: a flaky link's drain), from the model's outcome for it
    failed alone on the scenario's healthy rack: the full-rate hours its stops and degraded
    running take more (its detection, the diagnosis without telemetry, the reroute's stall),
    and how many of its stops are unplanned (each also loses the work since the last
    checkpoint, which the caller's checkpoint interval prices)."""
    x = _life(s, rates)
    o = outcome(with_fail(x.h, (cid,)))
    unplanned, deg_u, _ = _fault_stops(o, td_h=x.td_fab, u0_h=x.u0, extra_h=x.diag)
    drained, deg_d, _ = _fault_stops(o, td_h=x.td_fab, u0_h=x.u0, planned=True)
    return {
        "extra_h": max(0.0, _stop_h(unplanned, deg_u) - _stop_h(drained, deg_d)),
        "unplanned_stops": sum(not st.planned for st in unplanned),
        "detect_h": sum(st.detect_h for st in unplanned if not st.planned),
        "job_runs": o.job_runs,
    }


# The kinds whose repair replaces a cable cartridge; the others replace a tray (a GPU is
# replaced with its compute tray); a controller is restarted, parts or not.
@dataclass(frozen=True)
class _Life:
    """What every kind of event over a rack's (or domain's) life is priced from: the site,
    the healthy scenario's outcomes per kind, and the detection and restart times."""

    s: Scenario
    rates: Rates
    site: site_mod.Site
    h: Scenario  # the healthy scenario
    c: dict[str, Outcome]  # classify(h), on site if the policy has spares there
    u0: float  # a restart's overhead, h
    tele: bool  # the telemetry feature: faults flagged ahead, detected at once
    td_fab: float  # until a fabric fault is detected, h
    td_other: float  # until a GPU or software fault is detected, h
    diag: float  # diagnosis without telemetry, h
    tray_slow: float  # the slowdown with one switch tray out

    @property
    def feats(self) -> frozenset[str]:
        return self.h.features

    @property
    def link_rate(self) -> float:
        """Link faults per hour: a cable of it, or one of its two ends (connector, SerDes)."""
        f, r = self.site, self.rates
        return sum((r.cable_per_h * f.cables, r.link_end_per_h * 2 * f.links))

    def fault(
        self, name: str, rate: float, o: Outcome, planes: int = 0, every: bool = False, **kw
    ) -> Effect:
        """One kind of fault at `rate` with outcome `o` (detected as a fabric fault unless
        td_h says otherwise)."""
        kw.setdefault("td_h", self.td_fab)
        stops, deg, (swap_h, swap_cost) = _fault_stops(o, u0_h=self.u0, **kw)
        slow = o.slowdown() if o.job_runs else 0.0
        repair = o.repair_h + kw.get("extra_h", 0.0)
        stall = o.stall_s if o.job_runs else 0.0
        return Effect(
            name,
            rate,
            stops,
            deg,
            slow,
            planes,
            every,
            repair,
            stall,
            swap_h=swap_h,
            swap_cost_h=swap_cost,
        )


def _life(s: Scenario, rates: Rates) -> _Life:
    h = healthy(s)
    c = swap_time(classify(h), rates)
    if s.repair.endswith(ONSITE):
        c = on_site(c, rates)
    tele = Feature.TELEMETRY in h.features
    return _Life(
        s,
        rates,
        site_mod.site_of(s),
        h,
        c,
        rates.restart_s / 3600.0,
        tele,
        (rates.detect_telemetry_s if tele else rates.detect_timeout_s) / 3600.0,
        rates.detect_other_s / 3600.0,
        0.0 if tele else rates.diagnosis_no_telemetry_h,
        c["switch-tray"].slowdown(),
    )


def _compute_events(x: _Life) -> list[Effect]:
    """A GPU, a compute tray, a software fault: the job stops, the part is swapped."""
    f, rates, c = x.site, x.rates, x.c
    return [
        x.fault("gpu", rates.gpu_per_h * f.gpus, c["gpu"], td_h=x.td_other),
        x.fault(
            "compute-tray",
            rates.compute_tray_per_h * f.compute_trays,
            c["compute-tray"],
            td_h=x.td_other,
        ),
        Effect(
            "software",
            rates.software_per_gpu_h * f.gpus,
            (Stop(0.0, False, 0.0, REPAIR_WAIT, x.u0, x.td_other),),
            0.0,
        ),
    ]


# The parts whose fault is one link's (every kind of link fault's name starts with one).
LINK_PARTS = ("cable", "link end", "trunk link")


def _link_events(x: _Life) -> list[Effect]:
    """A link goes dark when a cable of it fails or one of its two ends does (connector and
    SerDes); either is a link fault to the fabric, swapped with its cartridge (fate.repairs).
    A domain's trunk links too. Some are flaky first: flagged by telemetry and drained on
    purpose, or, without it, replaying until they fail."""
    f, rates, c = x.site, x.rates, x.c
    cable, end, trunk = LINK_PARTS
    by_part = [
        (cable, rates.cable_per_h * f.cables, c["cable"], 1),
        (end, rates.link_end_per_h * 2 * f.links, c["link"], 1),
    ]
    if f.trunks:  # a trunk darkens no GPU's link: its planes count is 0
        by_part.append((trunk, rates.trunk_link_per_h * f.trunks, c["trunk"], 0))
    out = []
    for part, rate, o, pl in by_part:
        out.append(x.fault(part, rate * (1.0 - rates.flaky_share), o, pl, extra_h=x.diag))
        if x.tele:  # flagged days ahead and drained on purpose: a planned drain
            flagged = f"{part}, flagged by telemetry"
            e = x.fault(flagged, rate * rates.flaky_share, o, pl, planned=True)
            out.append(replace(e, stream=f"{part}, flaky"))
            continue
        # runs flaky (replays) until it fails, then an unplanned fault
        flaky_deg = c["flaky-link"].slowdown() * rates.flaky_lead_h
        stops, deg, _ = _fault_stops(o, td_h=x.td_fab, u0_h=x.u0, extra_h=x.diag)
        out.append(
            Effect(
                f"{part}, flaky then failed",
                rate * rates.flaky_share,
                stops,
                deg + flaky_deg,
                o.slowdown() if o.job_runs else 0.0,
                pl,
                repair_h=o.repair_h + x.diag,
                stall_s=o.stall_s if o.job_runs else 0.0,
                stream=f"{part}, flaky",
            )
        )
    return out


def _switch_events(x: _Life) -> list[Effect]:
    """A switch chip, a switch tray (another, or the leader's) and a management controller:
    their planes go dark for every GPU, or the control plane loses a controller."""
    f, rates, c = x.site, x.rates, x.c
    swap = {"swap_slowdown": x.tray_slow}
    return [
        x.fault(
            "switch-chip", rates.switch_chip_per_h * f.chips, c["switch-chip"], 1, True, **swap
        ),
        x.fault(
            "switch-tray",
            rates.switch_tray_per_h * f.other_trays,
            c["switch-tray"],
            f.chips_per_tray,
            True,
            **swap,
        ),
        x.fault(
            "leader switch-tray",
            rates.switch_tray_per_h,
            c["leader-tray"],
            f.chips_per_tray,
            True,
            **swap,
            controller_wait_h=c["leader-tray"].repair_h,
        ),
        x.fault("controller", rates.controller_per_h * f.other_trays, c["controller"]),
        x.fault("leader controller", rates.controller_per_h, c["leader-controller"]),
    ]


def _update_events(x: _Life) -> list[Effect]:
    """Switch software updates: every tray in turn (in service), or one rack-wide window. An
    operator with in-service updates still takes the window when it costs less (with
    rerouting off, a drained tray's planes stall the job for its whole half hour). On a
    domain the L2 trays are updated in turn too, after the racks' (site.updates)."""
    f, c = x.site, x.c
    up = c["update"]
    upd_rate = x.rates.updates_per_year / HOURS_PER_YEAR
    outs = [c["update" if n == 0 else f"update-{n}"] for n in range(len(f.updates))]
    in_service = sum(
        n * o.repair_h * o.slowdown() for (_, n), o in zip(f.updates, outs, strict=True)
    )
    in_turn_h = sum(n * o.repair_h for (_, n), o in zip(f.updates, outs, strict=True))
    if up.state is not JobState.STOPPED:
        window = outcome(
            replace(with_features(x.h, x.feats - {Feature.ISSU}), update=(f.updates[0][0],))
        )
        if window.state is JobState.STOPPED and window.repair_h < in_service:
            up = window
    if up.state is JobState.STOPPED:
        stop = Stop(0.0, True, up.repair_h, MAINTENANCE, x.u0)
        return [Effect("switch update", upd_rate, (stop,), 0.0)]
    return [Effect("switch update", upd_rate, (), in_service, spell_h=in_turn_h)]


def _no_controller_events(x: _Life) -> list[Effect]:
    """Data faults that land while there is no central fabric controller (the leader's
    controller or tray lost, until a peer takes over or it is repaired) and that the window
    turns into aborts; those that abort anyway are not counted twice."""
    f, rates, c, rep = x.site, x.rates, x.c, x.site.rep
    mc = c["leader-controller"]
    windows = [  # (rate per hour, window length h)
        (
            rates.controller_per_h,
            rates.failover_gap_h if mc.control is ControlState.FAILED_OVER else mc.repair_h,
        )
    ]
    lt = c["leader-tray"]
    if lt.state is JobState.DEGRADED or lt.restart is Restart.AT_ONCE:  # the job goes on meanwhile
        gap = rates.failover_gap_h if lt.control is ControlState.FAILED_OVER else lt.repair_h
        windows.append((rates.switch_tray_per_h, gap))
    win_h_per_h = sum(r * w for r, w in windows)
    if win_h_per_h <= 0.0:
        return []
    nocp = with_features(x.h, x.feats - {Feature.CP_RESILIENCE})
    share_leader = 1.0 / f.trays
    chip_rate = rates.switch_chip_per_h * f.chips
    candidates = (
        ("link", x.link_rate * (1 - share_leader), rep["link"]),
        ("link", x.link_rate * share_leader, rep["leader-plane-link"]),
        ("switch-chip", chip_rate * (1 - share_leader), rep["switch-chip"]),
        ("switch-chip", chip_rate * share_leader, rep["leader-chip"]),
        ("switch-tray", rates.switch_tray_per_h * f.other_trays, rep["switch-tray"]),
    )
    turned = 0.0
    for kind, rate, cid in candidates:
        if c[kind].state is JobState.ABORTED:
            continue  # aborts anyway: already counted
        if outcome(with_fail(nocp, (rep["leader-controller"], cid))).state is JobState.ABORTED:
            turned += rate
    mean_window = win_h_per_h / sum(r for r, _ in windows)
    stop = Stop(0.0, False, mean_window / 2.0, REPAIR_WAIT, x.u0, x.td_fab)
    return [Effect("data fault with no central controller", win_h_per_h * turned, (stop,), 0.0)]


def _tray_controller_events(x: _Life) -> list[Effect]:
    """A tray controller (not the leader's) lost with control-plane resilience off: FACTS.md
    §3, that tray's control plane is gone until the controller is back, so a fault on its
    own planes in that window cannot be rerouted (model/fabric/control.py: trays-lost)."""
    f, rates, c, rep = x.site, x.rates, x.c, x.site.rep
    tc = c["controller"]
    if Feature.CP_RESILIENCE in x.feats or tc.repair_h <= 0.0:
        return []
    on_tray = (
        (x.link_rate / f.trays, rep["link"], "link"),
        (rates.switch_chip_per_h * f.chips / f.trays, rep["switch-chip"], "switch-chip"),
    )
    turned = sum(
        rate
        for rate, cid, kind in on_tray
        if c[kind].state is not JobState.ABORTED
        and outcome(with_fail(x.h, (rep["controller"], cid))).state is JobState.ABORTED
    )
    if turned <= 0.0:
        return []
    window_h_per_h = rates.controller_per_h * f.other_trays * tc.repair_h
    stop = Stop(0.0, False, tc.repair_h / 2.0, REPAIR_WAIT, x.u0, x.td_fab)
    name = "data fault on a tray without its controller"
    return [Effect(name, window_h_per_h * turned, (stop,), 0.0)]


def _kind_events(x: _Life) -> list[Effect]:
    """The kinds of event only this fabric kind has (a domain's rack leaders and L2 tier)."""
    extra = RELIABILITY[x.s.kind].extra_effects
    return extra(x.site, x.rates, x.c, x.fault, x.tray_slow)


# Every kind of event over a life, in the order the breakdowns list them.
_EVENTS = (
    _compute_events,
    _link_events,
    _switch_events,
    _update_events,
    _no_controller_events,
    _tray_controller_events,
    _kind_events,
)


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
    x = _life(s, rates)
    return tuple(e for events in _EVENTS for e in events(x))
