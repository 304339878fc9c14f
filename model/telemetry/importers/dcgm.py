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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from model.errors import ScenarioError
from model.fabric.presets import FABRICS, Fabric
from model.ids import parse_id, plane_of
from model.kinds import ComponentKind
from model.telemetry.fields import (
    ACTIVE,
    BER,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    INACTIVE,
    LANE_BER,
    LANE_STATE,
    LINK_STATE,
    RECOVERY,
)
from model.telemetry.importers import pergpu
from model.telemetry.importers.promtext import Sample
from model.telemetry.snapshot import Counters

STALE = "nmx_telemetry_stale"
AGE = "nmx_telemetry_last_seen_age_seconds"
DRAINED = "nmx_switch_chip_drained"
CLOCK = "fabric_twin_simulated_time_seconds"
INFO = "fabric_twin_info"
# The twin's own scrape says whether its fabric acts on the counters (the telemetry feature):
# every fabric exports them, so their presence in a file does not tell the feature.
FEATURE = "fabric_twin_link_telemetry_feature"
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
    erring_gpus: list[dict] = field(default_factory=list)  # importers/pergpu.py's answer
    readings: dict = field(default_factory=dict)  # how many, their times, the interval


def _fabric(samples: list[Sample], messages: list[str], hint: str | None = None) -> Fabric:
    """The rack's fabric: its label, else its links per GPU, else its GPU model, else the
    fabric the importer was told (the page's, when the file is a few lines)."""
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
    if hint in FABRICS:
        messages.append(
            f"fabric {hint}: the page's; the file has no fabric label, no GPU model and "
            f"{n} of the {FABRICS[hint].chips} links per GPU"
        )
        return FABRICS[hint]
    raise ScenarioError(
        f"cannot tell the fabric: no fabric label, no GB200/GB300/Rubin modelName and {n} "
        "links per GPU (expected 36 for vr-nvl72 or 18 for gb200-nvl72, from "
        "DCGM_FI_DEV_NVLINK_GET_STATE{nvlink=...})",
        "fabric",
    )


def _host(s: Sample) -> str | None:
    """dcgm-exporter's host label: 'Hostname' on GPU metrics, 'hostname' on link metrics."""
    return s.labels.get("Hostname", s.labels.get("hostname"))


def _tray_named(host: str, f: Fabric) -> int | None:
    """The 0-based compute tray a hostname names when it is a tray's ID (ct03), else None."""
    try:
        c = parse_id(host, f)
    except ScenarioError:
        return None
    return c.nums[0] - 1 if c.kind == ComponentKind.COMPUTE_TRAY else None


class _Locator:
    """Where a sample sits: (gpu, plane) from its labels. A host's compute tray is the
    operator's map's (hosts: host name -> 0-based tray), else its name's when a tray ID, else
    the next tray neither claims, in host name order [A]."""

    def __init__(
        self, f: Fabric, samples: list[Sample], hosts: Mapping[str, int] | None = None
    ) -> None:
        self.f = f
        given = dict(hosts or {})
        names = sorted({h for s in samples if (h := _host(s)) is not None})
        self.place = pergpu.Placement(gpus=f.gpus)
        for h in names:
            named = _tray_named(h, f)
            if h in given:
                self.place.tray[h], self.place.basis[h] = given[h], pergpu.HOST_MAP
            elif named is not None:
                self.place.tray[h], self.place.basis[h] = named, pergpu.HOST_ID
        taken = set(self.place.tray.values())
        free = iter(t for t in range(f.compute_trays + len(names)) if t not in taken)
        for h in names:
            if h not in self.place.tray:
                self.place.tray[h], self.place.basis[h] = next(free), pergpu.HOST_ORDER
        self.host_tray = self.place.tray
        by_tray: dict[int, list[str]] = defaultdict(list)
        for h in names:
            by_tray[self.host_tray[h]].append(h)
        self.notes = [
            f"hosts {', '.join(hs)} are all put on ct{t + 1:02d}: their GPUs' samples mix"
            for t, hs in sorted(by_tray.items())
            if len(hs) > 1
        ]

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


class _Scrape:
    """What a scrape's samples say, filled one sample at a time by the handlers of _HANDLERS:
    the snapshot's arrays (-1 or NaN where no sample gave a value) and what else was seen."""

    def __init__(
        self, f: Fabric, samples: list[Sample], hosts: Mapping[str, int] | None = None
    ) -> None:
        g_n, p_n, c_n, k = f.gpus, f.planes, f.cables_per_link, f.chips_per_tray
        self.f = f
        self.loc = _Locator(f, samples, hosts)
        self.state = np.full((g_n, p_n), -1, np.int8)
        self.rec = np.zeros((g_n, p_n), np.int64)
        self.ber = np.full((g_n, p_n), np.nan)
        self.lane_state = np.full((g_n, p_n, c_n), -1, np.int8)
        self.lane_ber = np.full((g_n, p_n, c_n), np.nan)
        self.stale = np.zeros(p_n, bool)
        self.age = np.zeros(p_n)
        self.planned = np.zeros(p_n, bool)
        self.t_s = 0.0
        self.seen_counters = False
        self.feature: bool | None = None  # the twin's own scrape says; a real one does not
        self.seen_lanes = False
        self.health: dict[int, dict[str, int]] = defaultdict(dict)
        self.chip_index = {f"st{q // k + 1}.sw{q % k}": q for q in range(p_n)}

    def chip(self, s: Sample) -> int:
        """The plane of the sample's `chip` label (st3.sw1); ValueError for any other."""
        q = self.chip_index.get(s.labels.get("chip", ""))
        if q is None:
            raise ValueError(f"unknown chip '{s.labels.get('chip')}'")
        return q

    def on_link_state(self, s: Sample) -> None:
        """A link's up/down, as the GPU's driver sees it."""
        g, p = self.loc.link(s)
        self.state[g, p] = ACTIVE if s.value == 1 else INACTIVE

    def on_recovery(self, s: Sample) -> None:
        """A link's recovery counter (0 when the file has no number)."""
        g, p = self.loc.link(s)
        self.rec[g, p] = int(s.value) if math.isfinite(s.value) else 0
        self.seen_counters = True

    def on_ber(self, s: Sample) -> None:
        """A link's effective BER."""
        g, p = self.loc.link(s)
        self.ber[g, p] = s.value
        self.seen_counters = True

    def on_lane(self, s: Sample) -> None:
        """One lane's state or BER, as the switch port's PHY sees it."""
        g, p = self.loc.link(s)
        c_n = self.f.cables_per_link
        lane = int(s.labels.get("lane", "-1"))
        if not 0 <= lane < c_n:
            raise ValueError(f"lane '{s.labels.get('lane')}' is not 0..{c_n - 1}")
        if s.name == LANE_STATE:
            self.lane_state[g, p, lane] = int(s.value)
        else:
            self.lane_ber[g, p, lane] = s.value
        self.seen_lanes = True

    def on_stale(self, s: Sample) -> None:
        """Whether a chip's tray telemetry is stale."""
        self.stale[self.chip(s)] = s.value == 1

    def on_age(self, s: Sample) -> None:
        """How old a chip's newest switch-side reading is."""
        self.age[self.chip(s)] = s.value

    def on_drained(self, s: Sample) -> None:
        """Whether a chip is drained on purpose."""
        self.planned[self.chip(s)] = s.value == 1

    def on_clock(self, s: Sample) -> None:
        """The twin's simulated time, when it is a time."""
        if math.isfinite(s.value) and s.value >= 0:
            self.t_s = s.value

    def on_health(self, s: Sample) -> None:
        """A GPU's fabric health mask or summary, when it is a number."""
        if math.isfinite(s.value):
            key = "mask" if s.name == HEALTH_MASK else "summary"
            self.health[self.loc.gpu(s)][key] = int(s.value)

    def on_feature(self, s: Sample) -> None:
        """The twin's telemetry feature: 1 its fabric acts on the counters, 0 it does not."""
        if math.isfinite(s.value):
            self.feature = s.value == 1


# Each metric a scrape can carry -> the _Scrape method that reads its sample.
_HANDLERS: Mapping[str, Callable[[_Scrape, Sample], None]] = MappingProxyType(
    {
        LINK_STATE: _Scrape.on_link_state,
        RECOVERY: _Scrape.on_recovery,
        BER: _Scrape.on_ber,
        LANE_STATE: _Scrape.on_lane,
        LANE_BER: _Scrape.on_lane,
        STALE: _Scrape.on_stale,
        AGE: _Scrape.on_age,
        DRAINED: _Scrape.on_drained,
        CLOCK: _Scrape.on_clock,
        FEATURE: _Scrape.on_feature,
        HEALTH_MASK: _Scrape.on_health,
        HEALTH_SUMMARY: _Scrape.on_health,
    }
)
_NO_LANES = (
    f"no {LANE_STATE} (the switch tray's lane view): a down link cannot be narrowed to "
    "a cable, nor a degrading one"
)
_NO_COUNTERS = (
    f"no per-link counters ({RECOVERY}, {BER}): only link up/down is visible, as with "
    "fine-grained link telemetry off"
)


_FEATURE_OFF = (
    f"{FEATURE} is 0: the twin's fabric has the counters but does not act on them (the "
    "telemetry feature is off), so the import attributes only what link up/down shows, as "
    "that fabric would"
)


def _take(r: _Scrape, samples: list[Sample]) -> list[str]:
    """Every sample into r by its metric's handler (other metrics are not read); a message
    for each sample that names no place in the rack, which is skipped."""
    bad: list[str] = []
    for s in samples:
        handler = _HANDLERS.get(s.name)
        if handler is None:
            continue
        try:
            handler(r, s)
        except (ValueError, IndexError, ScenarioError) as e:
            msg = e.message if isinstance(e, ScenarioError) else str(e)
            bad.append(f"line {s.line}: {s.name}: {msg}; the sample is skipped")
    return bad


def _gpu_notes(r: _Scrape) -> list[str]:
    """What fabric health says that the per-link fields do not: the GPUs missing a link."""
    out = []
    for g in sorted(r.health):
        m = r.health[g].get("mask")
        if m is not None and m & 3 == 1:
            out.append(f"gpu{g:02d}: fabric health mask {m:#x}: DEGRADED_BW (a link is missing)")
    return out


def _fill_states(r: _Scrape) -> list[str]:
    """Take a link with no state in the file as ACTIVE, and a lane with none as its link's
    (every lane when the file has no lane view); the messages saying so."""
    out = []
    missing = r.state < 0
    f = r.f
    if missing.any():
        out.append(
            f"{int(missing.sum())} of {f.gpus * f.planes} links have no {LINK_STATE} in the file: "
            "taken as ACTIVE"
        )
        r.state[missing] = ACTIVE
    if not r.seen_lanes:
        out.append(_NO_LANES)
        r.lane_state = np.repeat(r.state[:, :, None], f.cables_per_link, axis=2)
    else:
        fill = r.lane_state < 0
        r.lane_state[fill] = np.repeat(r.state[:, :, None], f.cables_per_link, axis=2)[fill]
    return out


def _counters_of(r: _Scrape) -> Counters:
    """The snapshot of what r holds: link up/down and drained chips always, the counters,
    lane view and stale trays only when the file had per-link counters. They are attributed
    (telemetry True) unless the twin's own scrape says its fabric does not act on them."""
    seen = r.seen_counters
    return Counters(
        fabric=r.f,
        scenario_key="imported",
        t_s=r.t_s,
        onset_s=0.0,
        telemetry=seen and r.feature is not False,
        state=r.state,
        planned=r.planned,
        link={RECOVERY: r.rec, BER: r.ber} if seen else None,
        cable={BER: r.lane_ber} if seen else None,
        cable_state=r.lane_state if seen else None,
        stale=r.stale if seen else None,
        last_seen_s=np.maximum(r.t_s - r.age, 0.0) if seen else None,
    )


def read(
    samples: list[Sample], fabric: str | None = None, hosts: Mapping[str, int] | None = None
) -> Reading:
    """The snapshot a scrape describes (its last reading's, when it holds several);
    ScenarioError when no fabric can be told (fabric: the one to assume when the file does not
    say; hosts: the operator's host name -> 0-based compute tray)."""
    messages: list[str] = []
    r = _Scrape(_fabric(samples, messages, fabric), samples, hosts)
    messages += r.loc.notes + _take(r, samples)
    messages += _gpu_notes(r)
    states_seen = not bool((r.state < 0).all())
    messages += _fill_states(r)
    erring: list[dict] = []
    seen: dict = {}
    if not r.seen_counters:  # the per-GPU sums still say which GPUs' links err
        erring, seen, notes = pergpu.erring(samples, r.loc.gpu, r.loc.place, r.f)
        messages += notes
        messages.append(
            _NO_COUNTERS + (": the GPUs above are named, not their links" if erring else "")
        )
    elif r.feature is False:
        messages.append(_FEATURE_OFF)
    messages += pergpu.count_family_note(samples)
    health_of = {g: dict(v) for g, v in r.health.items()}
    out = Reading(_counters_of(r), messages, r.seen_lanes, health_of, states_seen)
    out.erring_gpus, out.readings = erring, seen
    return out
