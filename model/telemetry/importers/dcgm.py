"""A rack's dcgm-exporter scrape (Prometheus text) read back into a telemetry snapshot.

The names are those of docs/TELEMETRY.md: dcgm-exporter's and DCGM's for the GPU side
(DCGM_FI_DEV_NVLINK_GET_STATE, the per-link recovery counter and NVML's effective BER), the
twin's nmx_* names for the switch side (drained chips, stale trays, each lane's state and BER).
A GPU is found from the sample's `link` label when it has one (the twin's own scrape), else
from `gpu` and `Hostname` as dcgm-exporter labels them: hosts in name order are the compute
trays, `gpu` the index on the host. A link's index (`nvlink`) is taken as its plane [A]: the
map from a GPU's link index to its switch chip is not published.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from model.errors import ScenarioError
from model.fabric.presets import FABRICS, Fabric
from model.ids import parse_id, plane_of
from model.kinds import ComponentKind
from model.telemetry.fields import (
    ACTIVE,
    BER,
    GPU_TOTALS,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    INACTIVE,
    LANE_BER,
    LANE_STATE,
    LINK_STATE,
    RECOVERY,
)
from model.telemetry.importers.promtext import Sample
from model.telemetry.snapshot import Counters

STALE = "nmx_telemetry_stale"
AGE = "nmx_telemetry_last_seen_age_seconds"
DRAINED = "nmx_switch_chip_drained"
CLOCK = "fabric_twin_simulated_time_seconds"
INFO = "fabric_twin_info"
# The fabrics a scrape can describe, by links per GPU (eth-x72 has no NVLink counters).
BY_LINKS = {36: "vr-nvl72", 18: "gb200-nvl72"}


@dataclass
class Reading:
    """What a scrape said, as a snapshot, and what it could not say (messages)."""

    snap: Counters
    messages: list[str] = field(default_factory=list)
    lanes_seen: bool = False
    health: dict[int, dict[str, int]] = field(default_factory=dict)  # GPU -> mask, summary
    states_seen: bool = True


def _fabric(samples: list[Sample], messages: list[str]) -> Fabric:
    keys = {s.labels.get("fabric") for s in samples} - {None}
    known = sorted(k for k in keys if k in FABRICS)
    if len(known) == 1:
        return FABRICS[known[0]]
    if len(known) > 1:
        raise ScenarioError(f"the file mixes fabrics {', '.join(known)}: import one rack", "fabric")
    links = defaultdict(set)
    for s in samples:
        if s.name == LINK_STATE and "nvlink" in s.labels:
            links[(_host(s), s.labels.get("gpu"))].add(s.labels["nvlink"])
    n = max((len(v) for v in links.values()), default=0)
    if n in BY_LINKS:
        messages.append(f"fabric {BY_LINKS[n]}: from {n} links per GPU (no fabric label)")
        return FABRICS[BY_LINKS[n]]
    models = {s.labels.get("modelName", s.labels.get("model_name", "")) for s in samples}
    for key, words in (("gb200-nvl72", ("GB200", "GB300")), ("vr-nvl72", ("Rubin",))):
        hit = sorted(m for m in models if any(w in m for w in words))
        if hit:
            messages.append(f"fabric {key}: from the GPU model '{hit[0]}' (no fabric label)")
            return FABRICS[key]
    raise ScenarioError(
        f"cannot tell the fabric: no fabric label, no GB200/GB300/Rubin modelName and {n} "
        "links per GPU (expected 36 for vr-nvl72 or 18 for gb200-nvl72, from "
        "DCGM_FI_DEV_NVLINK_GET_STATE{nvlink=...})",
        "fabric",
    )


def _host(s: Sample) -> str | None:
    """dcgm-exporter's host label: 'Hostname' on GPU metrics, 'hostname' on link metrics."""
    return s.labels.get("Hostname", s.labels.get("hostname"))


def _tray_of(host: str, f: Fabric, order: int) -> int:
    """The 0-based compute tray a hostname names when it is a tray's ID (ct03), else its
    place among the scrape's hosts."""
    try:
        c = parse_id(host, f)
    except ScenarioError:
        return order
    return c.nums[0] - 1 if c.kind == ComponentKind.COMPUTE_TRAY else order


class _Locator:
    """Where a sample sits: (gpu, plane) from its labels."""

    def __init__(self, f: Fabric, samples: list[Sample]) -> None:
        self.f = f
        hosts = sorted({h for s in samples if (h := _host(s)) is not None})
        self.host_tray = {}
        for i, h in enumerate(hosts):
            self.host_tray[h] = _tray_of(h, f, i)

    def gpu(self, s: Sample) -> int:
        f = self.f
        if "link" in s.labels:
            c = parse_id(s.labels["link"], f)
            return c.nums[0]
        g = s.labels.get("gpu")
        if g is None or not g.isdigit():
            raise ValueError("no 'gpu' label (a GPU index) and no 'link' label")
        host = _host(s)
        if host in self.host_tray and "compute_tray" not in s.labels and int(g) < f.gpus_per_tray:
            return self.host_tray[host] * f.gpus_per_tray + int(g)
        return int(g)

    def link(self, s: Sample) -> tuple[int, int]:
        f = self.f
        if "link" in s.labels:
            c = parse_id(s.labels["link"], f)
            if c.kind != "link":
                raise ValueError(f"'{s.labels['link']}' is a {c.kind}, not a link")
            return c.nums[0], plane_of(f, c.nums[1], c.nums[2])
        p = s.labels.get("nvlink")
        if p is None or not p.isdigit():
            raise ValueError("no 'nvlink' label (the link's index on its GPU)")
        return self.gpu(s), int(p)


def read(samples: list[Sample]) -> Reading:
    """The snapshot a scrape describes; ScenarioError when no fabric can be told."""
    messages: list[str] = []
    f = _fabric(samples, messages)
    g_n, p_n, c_n, k = f.gpus, f.planes, f.cables_per_link, f.chips_per_tray
    loc = _Locator(f, samples)
    state = np.full((g_n, p_n), -1, np.int8)
    rec = np.zeros((g_n, p_n), np.int64)
    ber = np.full((g_n, p_n), np.nan)
    lane_state = np.full((g_n, p_n, c_n), -1, np.int8)
    lane_ber = np.full((g_n, p_n, c_n), np.nan)
    stale = np.zeros(p_n, bool)
    age = np.zeros(p_n)
    planned = np.zeros(p_n, bool)
    t_s = 0.0
    seen_counters = seen_lanes = False
    bad: list[str] = []
    health: dict[int, dict[str, int]] = defaultdict(dict)
    gpu_recoveries: dict[int, float] = {}
    recovery_total = GPU_TOTALS[RECOVERY]
    chip_index = {f"st{q // k + 1}.sw{q % k}": q for q in range(p_n)}

    def chip(s: Sample) -> int:
        q = chip_index.get(s.labels.get("chip", ""))
        if q is None:
            raise ValueError(f"unknown chip '{s.labels.get('chip')}'")
        return q

    for s in samples:
        try:
            if s.name == LINK_STATE:
                g, p = loc.link(s)
                state[g, p] = ACTIVE if s.value == 1 else INACTIVE
            elif s.name == RECOVERY:
                g, p = loc.link(s)
                rec[g, p] = int(s.value) if math.isfinite(s.value) else 0
                seen_counters = True
            elif s.name == BER:
                g, p = loc.link(s)
                ber[g, p] = s.value
                seen_counters = True
            elif s.name in (LANE_STATE, LANE_BER):
                g, p = loc.link(s)
                lane = int(s.labels.get("lane", "-1"))
                if not 0 <= lane < c_n:
                    raise ValueError(f"lane '{s.labels.get('lane')}' is not 0..{c_n - 1}")
                if s.name == LANE_STATE:
                    lane_state[g, p, lane] = int(s.value)
                else:
                    lane_ber[g, p, lane] = s.value
                seen_lanes = True
            elif s.name == STALE:
                stale[chip(s)] = s.value == 1
            elif s.name == AGE:
                age[chip(s)] = s.value
            elif s.name == DRAINED:
                planned[chip(s)] = s.value == 1
            elif s.name == CLOCK and math.isfinite(s.value) and s.value >= 0:
                t_s = s.value
            elif s.name in (HEALTH_MASK, HEALTH_SUMMARY) and math.isfinite(s.value):
                key = "mask" if s.name == HEALTH_MASK else "summary"
                health[loc.gpu(s)][key] = int(s.value)
            elif s.name == recovery_total and math.isfinite(s.value):
                gpu_recoveries[loc.gpu(s)] = s.value
        except (ValueError, IndexError, ScenarioError) as e:
            msg = e.message if isinstance(e, ScenarioError) else str(e)
            bad.append(f"line {s.line}: {s.name}: {msg}; the sample is skipped")
    messages += bad
    if not seen_counters:  # the per-GPU sums still say which GPUs have a recovering link
        for g in sorted(x for x, v in gpu_recoveries.items() if v > 0):
            messages.append(
                f"gpu{g:02d}: {int(gpu_recoveries[g])} recoveries summed over its links "
                f"({recovery_total}); which link, the per-link field {RECOVERY} would say"
            )
    for g in sorted(health):
        m = health[g].get("mask")
        if m is not None and m & 3 == 1:
            messages.append(
                f"gpu{g:02d}: fabric health mask {m:#x}: DEGRADED_BW (a link is missing)"
            )
    missing = state < 0
    if missing.any():
        messages.append(
            f"{int(missing.sum())} of {g_n * p_n} links have no {LINK_STATE} in the file: "
            "taken as ACTIVE"
        )
        state[missing] = ACTIVE
    if not seen_lanes:
        messages.append(
            f"no {LANE_STATE} (the switch tray's lane view): a down link cannot be narrowed to "
            "a cable, nor a degrading one"
        )
        lane_state = np.repeat(state[:, :, None], c_n, axis=2)
    else:
        fill = lane_state < 0
        lane_state[fill] = np.repeat(state[:, :, None], c_n, axis=2)[fill]
    if not seen_counters:
        messages.append(
            f"no per-link counters ({RECOVERY}, {BER}): only link up/down is visible, as with "
            "fine-grained link telemetry off"
        )
    snap = Counters(
        fabric=f,
        scenario_key="imported",
        t_s=t_s,
        onset_s=0.0,
        telemetry=seen_counters,
        state=state,
        planned=planned,
        link={RECOVERY: rec, BER: ber} if seen_counters else None,
        cable={BER: lane_ber} if seen_counters else None,
        cable_state=lane_state if seen_counters else None,
        stale=stale if seen_counters else None,
        last_seen_s=np.maximum(t_s - age, 0.0) if seen_counters else None,
    )
    health_of = {g: dict(v) for g, v in health.items()}
    return Reading(snap, messages, seen_lanes, health_of, not bool(missing.all()))
