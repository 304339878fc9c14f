"""The public windowed health rule (FACTS.md §3, nvidia-resiliency-ext PR #302) on every
link's GPU-side counters up to a simulated time: which links it flags now, and from when."""

from __future__ import annotations

import numpy as np

from model.ids import link_id
from model.scenario import Scenario
from model.telemetry.fields import (
    EVENT_BUCKET_S,
    HEALTH_THRESHOLD,
    HEALTH_WINDOW_S,
    HEALTH_WINDOWS,
)
from model.telemetry.lanes import (
    check_t,
    day_events,
    lane_model,
)


def health_rule(scenario: Scenario, t_s: float, *, onset_s: float = 0.0) -> dict:
    """FACTS.md §3's rule on every link up to t_s: which links it flags now, and from when.

    A 60 s window is flagged for a link when its replay or recovery counter rose in it; the
    link is flagged at the end of a window when more than 15 of its last 30 windows were.
    It reads the GPU side's counters, as the rule does on the compute tray: a silent switch
    tray controller does not stop them; a link that went down stops counting.
    """
    t = check_t(t_s)
    m = lane_model(scenario, check_t(onset_s))
    f = m.fabric
    rule = {
        "window_s": HEALTH_WINDOW_S,
        "windows": HEALTH_WINDOWS,
        "threshold": HEALTH_THRESHOLD,
        "source": "FACTS.md §3 (nvidia-resiliency-ext PR #302)",
    }
    out: dict = {
        "t_s": t,
        "rule": rule,
        "flagged": [],
        "recent_windows": {},
        "first_flagged_s": {},
    }
    if not m.telemetry:
        out["available"] = False
        out["reason"] = (
            "the telemetry feature is off: the replay and recovery counters are exported, but "
            "the fabric runs no health rule on them (nothing is drained ahead)"
        )
        return out
    out["available"] = True
    end = m.end_times(t, switch_side=False)
    c = f.cables_per_link
    n_win = int(t // HEALTH_WINDOW_S)  # complete windows at t
    span = n_win + 1
    per_day = int(EVENT_BUCKET_S // HEALTH_WINDOW_S)
    keys = [np.empty(0, np.int64)]
    for day in range(int(t // EVENT_BUCKET_S) + 1):
        day_keys = [np.empty(0, np.int64)]
        for _proc, lanes, tau in day_events(m, day, times=True):
            w = (tau // HEALTH_WINDOW_S).astype(np.int64)
            ok = (tau <= end[lanes]) & (w < n_win)
            day_keys.append((lanes[ok] // c) * per_day + (w[ok] - day * per_day))
        dk = np.concatenate(day_keys)
        if dk.size > f.links * per_day // 64:  # dense day: a bitmap is cheaper than a sort
            bitmap = np.zeros(f.links * per_day, bool)
            bitmap[dk] = True
            dk = np.flatnonzero(bitmap)
        else:
            dk = np.unique(dk)
        keys.append((dk // per_day) * span + day * per_day + dk % per_day)
    flagged_w = np.sort(np.concatenate(keys))  # (link, window) pairs with events, in order
    links, wins = flagged_w // span, flagged_w % span
    j = np.arange(HEALTH_THRESHOLD, flagged_w.size)
    trip = (links[j] == links[j - HEALTH_THRESHOLD]) & (
        wins[j] - wins[j - HEALTH_THRESHOLD] < HEALTH_WINDOWS
    )
    first_links, first_at = np.unique(links[j[trip]], return_index=True)
    first_w = wins[j[trip]][first_at]
    recent = np.bincount(links[wins >= n_win - HEALTH_WINDOWS], minlength=f.links)
    p = f.planes
    out["flagged"] = [
        link_id(f, int(x) // p, int(x) % p) for x in np.flatnonzero(recent > HEALTH_THRESHOLD)
    ]
    out["recent_windows"] = {  # flagged windows among each link's last 30 (links with any)
        link_id(f, int(x) // p, int(x) % p): int(recent[x]) for x in np.flatnonzero(recent)
    }
    out["first_flagged_s"] = {
        link_id(f, int(x) // p, int(x) % p): float((w + 1) * HEALTH_WINDOW_S)
        for x, w in zip(first_links, first_w, strict=True)
    }
    return out
