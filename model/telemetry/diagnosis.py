"""Attribution: from a snapshot of the counters alone (never the scenario's fail list), the
smallest set of components that explains every down, stale or degrading link."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.fabric.presets import Fabric
from model.ids import Component, chip_id, format_id, gpu_id, link_id
from model.kinds import ComponentKind as K
from model.telemetry.fields import ACTIVE, BER, DEGRADING_BER, INACTIVE, RECOVERY
from model.telemetry.snapshot import Counters


# --- attribution -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Attribution:
    """What the counters say is wrong, as component IDs (docs/ARCHITECTURE.md, "Component IDs").

    components: the smallest explanation (failed + degrading + silent controllers), sorted.
    masked: what the counters cannot show in this snapshot, in words.
    """

    possible: bool
    components: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    degrading: tuple[str, ...] = ()
    silent: tuple[str, ...] = ()  # controllers whose tray's telemetry is stale
    planned: tuple[str, ...] = ()  # chips drained on purpose: not faults
    masked: tuple[str, ...] = ()
    reason: str = ""
    updown: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "possible": self.possible,
            "components": list(self.components),
            "failed": list(self.failed),
            "degrading": list(self.degrading),
            "silent": list(self.silent),
            "planned": list(self.planned),
            "masked": list(self.masked),
            "reason": self.reason,
            "updown": self.updown,
        }


NOT_POSSIBLE = (
    "the telemetry feature is off: the counters are exported (DCGM reads them on every "
    "fabric), but the fabric attributes nothing from them and acts only on link up/down. "
    "Up/down shows which links are down (and so whether a whole GPU's row or a whole plane is "
    "out), but not whether a cable or a port failed, not a switch tray from its chips, not a "
    "silent controller, and not a degrading link before it fails: no component is attributed."
)


def _ids(comps: list[Component]) -> tuple[str, ...]:
    return tuple(format_id(x) for x in sorted(set(comps), key=Component.sort_key))


def _short(ids: tuple[str, ...] | list[str], n: int = 6) -> str:
    ids = list(ids)
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def _updown(f: Fabric, down_all: np.ndarray) -> dict:
    """What link up/down alone shows (telemetry on or off): how many links are down, and
    which GPUs and planes have every link down."""
    return {
        "links_down": int(down_all.sum()),
        "gpus_with_every_link_down": [gpu_id(int(g)) for g in np.flatnonzero(down_all.all(1))],
        "planes_with_every_link_down": [
            chip_id(f, int(p)) for p in np.flatnonzero(down_all.all(0))
        ],
    }


def _gpu_side(rows: np.ndarray, gpt: int) -> list[Component]:
    """The GPUs whose every open link is down: a compute tray when all its GPUs are, else
    each GPU."""
    trays = rows.reshape(-1, gpt).all(axis=1)
    out = [Component("compute-tray", (int(t) + 1,)) for t in np.flatnonzero(trays)]
    loose = rows & ~np.repeat(trays, gpt)
    return out + [Component("gpu", (int(g),)) for g in np.flatnonzero(loose)]


def _switch_side(cols: np.ndarray, stale_tray: np.ndarray, k: int) -> list[Component]:
    """The planes whose every link is down: a switch tray when all its chips are and its
    telemetry is stale, else each chip."""
    trays = cols.reshape(-1, k).all(axis=1) & stale_tray
    out = [Component("switch-tray", (int(t) + 1,)) for t in np.flatnonzero(trays)]
    loose = cols & ~np.repeat(trays, k)
    return out + [
        Component("switch-chip", (int(q) // k + 1, int(q) % k)) for q in np.flatnonzero(loose)
    ]


def _whole(
    f: Fabric, down: np.ndarray, open_: np.ndarray, stale_tray: np.ndarray
) -> tuple[list[Component], np.ndarray, np.ndarray, list[str]]:
    """The GPUs, chips and trays wholly down, the rows and planes they explain, and a note.

    When every link is down, up/down cannot tell the GPUs from the chips: the smaller of the
    two explanations is named, and it explains every link.
    """
    rows = down[:, open_].all(axis=1)
    cols = down.all(axis=0) & open_
    if not rows.all():
        failed = _gpu_side(rows, f.gpus_per_tray) + _switch_side(cols, stale_tray, f.chips_per_tray)
        return failed, rows, cols, []
    sw = _switch_side(cols, stale_tray, f.chips_per_tray)
    gp = _gpu_side(rows, f.gpus_per_tray)
    note = (
        "every link is down: up/down and stale counters cannot tell the GPUs from the "
        "switch chips; the smaller explanation is named"
    )
    return (sw if len(sw) <= len(gp) else gp), np.ones_like(rows), open_.copy(), [note]


def _silent(stale_tray: np.ndarray, failed: list[Component]) -> list[Component]:
    """The controllers of the trays whose telemetry is stale, but for a tray named failed."""
    named_trays = {x.nums[0] for x in failed if x.kind == "switch-tray"}
    return [
        Component("controller", (int(t) + 1,))
        for t in np.flatnonzero(stale_tray)
        if int(t) + 1 not in named_trays
    ]


def _hidden(snap: Counters, failed: list[Component], stale_tray: np.ndarray) -> list[str]:
    """What the components wholly down and the stale trays hide from the counters, in words."""
    k = snap.fabric.chips_per_tray
    out = []
    if failed:
        them = "it" if len(failed) == 1 else "them"
        out.append(
            f"the links of {_short(_ids(failed))} are down with {them}: a cable, port or "
            "degrading-link fault on those links cannot be seen"
        )
    for t in np.flatnonzero(stale_tray):
        seen = float(snap.last_seen_s[int(t) * k])
        out.append(
            f"st{int(t) + 1}: switch-side telemetry silent since t = {seen:g} s; its ports' "
            "and lanes' counters are as last reported (the GPUs' own counters stay fresh), "
            "and a down link there cannot be narrowed to a cable"
        )
    return out


def _down_links(
    snap: Counters, rem: np.ndarray, stale_tray: np.ndarray
) -> tuple[list[Component], list[str]]:
    """Each down link no whole component explains, and a note on those that were recovering.

    It is its cable(s) when the link's other cables are IDLE, else the link (port); the link
    too when none or all of its cables are INACTIVE, or its tray's lane view is stale.
    """
    f = snap.fabric
    c_n, k = f.cables_per_link, f.chips_per_tray
    gi, pi = np.nonzero(rem)
    stale_plane = np.repeat(stale_tray, k)
    inact = snap.cable_state[gi, pi] == INACTIVE
    n_in = inact.sum(axis=1)
    whole = stale_plane[pi] | (n_in == c_n) | (n_in == 0)
    gl, pl = gi.tolist(), pi.tolist()
    out = [
        Component(K.LINK, (g, p // k + 1, p % k))
        for g, p, w in zip(gl, pl, whole.tolist(), strict=True)
        if w
    ]
    rr, xx = np.nonzero(inact & ~whole[:, None])
    out += [
        Component(K.CABLE, (gl[r], pl[r] // k + 1, pl[r] % k, x))
        for r, x in zip(rr.tolist(), xx.tolist(), strict=True)
    ]
    was = snap.link[RECOVERY][gi, pi] > 0
    if not was.any():
        return out, []
    ids = [link_id(f, int(g), int(p)) for g, p in zip(gi[was], pi[was], strict=True)]
    return out, [f"{_short(ids)}: recovery events before going down (it was degrading)"]


def _degrading(snap: Counters, stale_tray: np.ndarray) -> tuple[list[Component], list[str]]:
    """The degrading links and cables, and a note on those that cannot be narrowed.

    An ACTIVE link whose GPU-side counters show recoveries or a raised BER (fresh whatever
    the switch trays' controllers do). Narrowed to its cable(s) by the lanes' BER, which only
    the switch port's PHY sees: not while that tray's telemetry is silent.
    """
    f = snap.fabric
    c_n, k = f.cables_per_link, f.chips_per_tray
    stale_plane = np.repeat(stale_tray, k)
    with np.errstate(invalid="ignore"):
        raised_link = (snap.link[RECOVERY] > 0) | (snap.link[BER] > DEGRADING_BER)
        raised_lane = (snap.cable_state == ACTIVE) & (snap.cable[BER] > DEGRADING_BER)
    degrading: list[Component] = []
    unnarrowed: list[str] = []
    for g, p in zip(*np.nonzero((snap.state == ACTIVE) & raised_link), strict=True):
        g, p = int(g), int(p)
        t, ch = divmod(p, k)
        lanes = np.flatnonzero(raised_lane[g, p])
        if stale_plane[p]:
            unnarrowed.append(link_id(f, g, p))
        if stale_plane[p] or lanes.size in (0, c_n):
            degrading.append(Component("link", (g, t + 1, ch)))
        else:
            degrading += [Component("cable", (g, t + 1, ch, int(x))) for x in lanes]
    if not unnarrowed:
        return degrading, []
    note = (
        f"{_short(unnarrowed)}: degrading by the GPU's counters; which cable cannot be "
        "told while the switch tray's telemetry (the lanes' BER) is silent"
    )
    return degrading, [note]


def _attributed(
    failed: list[Component],
    silent: list[Component],
    degrading: list[Component],
    planned: tuple[str, ...],
    masked: list[str],
    updown: dict,
) -> Attribution:
    """The attribution from the counters: every component once, in ID order, with the failed
    and degrading ones as the same IDs in the same order."""
    every = sorted(set(failed + silent + degrading), key=Component.sort_key)
    ids = tuple(format_id(x) for x in every)
    failed_set, degrading_set = set(failed), set(degrading)
    return Attribution(
        True,
        components=ids,
        failed=tuple(i for x, i in zip(every, ids, strict=True) if x in failed_set),
        degrading=tuple(i for x, i in zip(every, ids, strict=True) if x in degrading_set),
        silent=_ids(silent),
        planned=planned,
        masked=tuple(masked),
        reason="from the counters alone",
        updown=updown,
    )


def attribution(snap: Counters) -> Attribution:
    """Name the smallest set of components that explains every down, stale or degrading link.

    Reads the snapshot only. Rules: a GPU whose every link is down is the GPU (all four of a
    compute tray: the tray); a plane whose every link is down is its chip (all chips of a
    switch tray with its telemetry stale: the tray); stale counters with a working data plane
    are the tray's controller; any other down link is its cable(s) when the link's other cables
    are IDLE, else the link (port); an ACTIVE link with recoveries or a raised BER is degrading,
    named as the link when all its cables are, else the cable(s).
    """
    f = snap.fabric
    down_all = snap.state != ACTIVE
    planned_ids = tuple(chip_id(f, int(p)) for p in np.flatnonzero(snap.planned))
    updown = _updown(f, down_all)
    if not snap.telemetry:
        return Attribution(False, planned=planned_ids, reason=NOT_POSSIBLE, updown=updown)

    masked: list[str] = []
    if planned_ids:
        masked.append(
            f"{_short(planned_ids)}: drained on purpose (switch update); faults on their links "
            "are hidden until they return"
        )
    open_ = ~snap.planned
    if not open_.any():
        return Attribution(
            True,
            planned=planned_ids,
            masked=tuple(masked),
            reason="every plane is drained for maintenance: the links carry nothing to read",
            updown=updown,
        )
    down = down_all & open_[None, :]
    stale_tray = snap.stale.reshape(-1, f.chips_per_tray).any(axis=1)
    failed, rows, cols, note = _whole(f, down, open_, stale_tray)
    silent = _silent(stale_tray, failed)
    masked += note + _hidden(snap, failed, stale_tray)
    links, note = _down_links(snap, down & ~rows[:, None] & ~cols[None, :], stale_tray)
    degrading, unnarrowed = _degrading(snap, stale_tray)
    masked += note + unnarrowed
    return _attributed(failed + links, silent, degrading, planned_ids, masked, updown)


def attribute(snapshot: Counters) -> list[str]:
    """The component IDs that explain what is wrong; [] when nothing is, or telemetry is off."""
    return list(attribution(snapshot).components)
