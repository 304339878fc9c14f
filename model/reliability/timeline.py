"""The story of one fault, second by second: retries, detection, reroute or abort, restart
and lost work, degraded running until the repair (hot-swap or rack down), restored.

Delivered throughput is a fraction of the healthy rack's (decode at the reference
interactivity, or training tokens/s). The series is a step function: each point holds until
the next one. Goodput is work delivered over elapsed time since the start of the window,
less the work lost since the last checkpoint when the job aborts.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model.errors import ScenarioError
from model.events import fault_sentence
from model.fabric.fate import job, partition, repairs, unroutable_planes
from model.fabric.metrics import bandwidth
from model.fabric.state import FabricState, build_state
from model.ids import parse_id
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import Scenario
from model.workloads.throughput import curves, decode_result, training_result

LINK_RETRY_S = 1e-4  # [A] link-level replays before a dead link trains down: ~100 us
LEAD_S = 10.0  # the window opens this long before the fault
TAIL_S = 3600.0  # and closes this long after the fabric is whole again
DATA_PLANE = ("cable", "link", "switch-chip", "switch-tray")


def _level(s: Scenario) -> tuple[float, FabricState, dict, dict]:
    """Delivered fraction of the healthy rack's work for a scenario, and its state."""
    st = build_state(s)
    bw = bandwidth(st)
    part = partition(st)
    jb = job(st, part, bw)
    if s.workload == "train":
        v = training_result(st, part, jb, s.workload)["vs_healthy"]
    else:
        v = decode_result(curves(st, part, jb, s.workload), jb)["vs_healthy"]
    return float(v or 0.0), st, part, jb


def timeline(
    s: Scenario,
    fault: str | None = None,
    rates: Rates = DEFAULT_RATES,
    checkpoint_interval_s: float = 3600.0,
) -> dict:
    """Events and series for `fault` (default: the last of the scenario's faults)."""
    if not s.fail:
        return {"fault": None, "events": [], "series": [], "note": "no fault in this scenario"}
    fid = fault or s.fail[-1]
    if fid not in s.fail:
        raise ScenarioError(
            f"fault '{fid}' is not among this scenario's faults ({', '.join(s.fail)})", fid
        )
    f = s.spec()
    comp = parse_id(fid, f)
    before_s = replace(s, fail=tuple(x for x in s.fail if x != fid))
    before, st0, part0, _ = _level(before_s)
    after, st, part, jb = _level(s)
    rep = next(r for r in repairs(st) if r["id"] == fid)
    telem = "telemetry" in st.features
    data = comp.kind in DATA_PLANE

    events: list[dict] = []
    pts: list[tuple[float, float]] = [(-LEAD_S, before)]

    def ev(t: float, what: str) -> None:
        events.append({"t_s": t, "event": what})

    def at(t: float, level: float) -> None:
        pts.append((t, level))

    ev(0.0, fault_sentence(st, comp, ""))
    lost_work_s = 0.0
    if data:
        ev(LINK_RETRY_S, "link-level retries fail; the link trains down and reports it")
    # The newest fault aborts the job if it loses GPUs or needs a reroute nobody can do that
    # the fabric did not already lack (an older fault's abort is history by now).
    more_lost = len(part["lost_gpus"]) > len(part0["lost_gpus"])
    new_unroutable = (unroutable_planes(st) & ~unroutable_planes(st0)).any()
    aborted = jb["state"] == "aborted" and bool(more_lost or new_unroutable)
    if comp.kind == "controller":
        ev(1.0, f"control plane: {st.control.explanation}")
        at(0.0, after)
        t = 0.0
    elif not aborted:
        stall = f.reroute_stall_s
        at(0.0, 0.0)
        ev(stall, f"traffic rerouted by {f.reroute_how}: the job stalled {_fmt(stall)}")
        at(stall, after)
        ev(stall, f"running degraded at {after:.1%} of the healthy rack's work")
        t = stall
    else:
        detect = (
            rates.detect_telemetry_s
            if (telem and data)
            else rates.detect_other_s
            if not data
            else rates.detect_timeout_s
        )
        at(0.0, 0.0)
        ev(detect, f"job aborted ({jb['cause']}); detected after {_fmt(detect)}")
        lost_work_s = checkpoint_interval_s / 2
        ev(detect, f"work since the last checkpoint is lost: {_fmt(lost_work_s)} on average")
        t = detect
        if jb["restart"].startswith("at once"):
            t += rates.restart_s
            ev(t, f"job restarted from its checkpoint {jb['restart']}")
            at(t, after)
        else:
            ev(t, f"job waits: it restarts {jb['restart']}")

    # The repair: found (slower without telemetry), then done hot or with the rack down.
    diag = 0.0 if telem or not data else rates.diagnosis_no_telemetry_h * 3600
    t_fix = rep["repair_h"] * 3600 + diag
    if diag:
        ev(diag, f"without per-link counters the failed part takes {_fmt(diag)} to find")
    t_fix = max(t_fix, t)
    if rep["mode"] == "rack-down" or (aborted and not jb["restart"].startswith("at once")):
        hot = rep["mode"] == "hot-swap"
        down = rep.get("planes_down_h" if hot else "rack_down_h", 0.0) * 3600
        how = "hot-swap while the job waits" if hot else f"rack down {_fmt(down)}"
        ev(t_fix, f"repair: {rep['action']} ({how})")
        at(t_fix, 0.0)
        t_back = t_fix + down + rates.restart_s
        ev(t_back, "job restarted on the repaired rack")
    elif rep["mode"] == "hot-swap":
        swap = rep.get("planes_down_h", 0.0) * 3600
        ev(t_fix, f"repair: {rep['action']} under traffic (hot-swap, {_fmt(swap)})")
        t_back = t_fix + swap
        if comp.kind in ("switch-chip", "switch-tray"):
            tray_down, _, _, _ = _level(replace(s, fail=(*before_s.fail, f"st{comp.nums[0]}")))
            at(t_fix, min(after, tray_down))
        else:  # a compute tray back in: the job restarts to take its GPUs in again [A]
            at(t_fix, 0.0)
            t_back += rates.restart_s
            ev(t_back, "job restarted to take the repaired GPUs back in")
    else:
        t_back = t_fix
        ev(t_back, f"repair: {rep['action']}")
    at(t_back, before)
    ev(t_back, "restored: the fabric is whole again")
    end = t_back + TAIL_S
    at(end, before)

    series = _series(pts, lost_work_s, t_lost=events_time(events, "since the last checkpoint"))
    return {
        "fault": fid,
        "kind": comp.kind,
        "window_s": [-LEAD_S, end],
        "before": before,
        "degraded": after,
        "job": jb,
        "repair": rep,
        "checkpoint_interval_s": checkpoint_interval_s,
        "lost_work_s": lost_work_s,
        "events": sorted(events, key=lambda e: e["t_s"]),
        "series": series,
        "units": "t_s: seconds from the fault; delivered: fraction of the healthy rack's work",
    }


def events_time(events: list[dict], word: str) -> float | None:
    """Time of the first event whose text contains `word`."""
    return next((e["t_s"] for e in events if word in e["event"]), None)


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
    t_lost = events_time(tl.get("events") or [], "since the last checkpoint")
    return goodput_curve(tp, lvl, tl.get("lost_work_s", 0.0), t_lost, np.asarray(t, float))


def _fmt(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1e3:g} ms"
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
