"""What a default dcgm-exporter scrape says without a per-link field: which GPUs' links are
erring, how fast, and on which tray.

dcgm-exporter's counters.csv lists the per-GPU NVLink sums (`..._COUNT_TOTAL`, DCGM fields
409-439, summed over a GPU's links) and GB200 nodes export NVLink 5's count family
(`DCGM_FI_DEV_NVLINK_COUNT_*`, fields 1200-1219, "aggregate value across all links"): each is
one number per GPU. They name the GPU whose links err, never the link. A rate needs two
readings: a file holding the same series twice (two scrapes one after another, or a
Prometheus /federate answer with timestamps) is read as readings in order, the last one the
rack's state now; with the samples' timestamps the rise is a rate, without them only a rise.
A GPU is placed by its host: the operator's host-to-tray map when given, a host name that is
a tray ID, else the host's place in name order [A].
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from model import words
from model.errors import ScenarioError
from model.fabric.presets import Fabric
from model.ids import compute_tray_id, gpu_id, link_id
from model.telemetry.fields import CRC_DATA, CRC_FLIT, GPU_TOTALS, RECOVERY, REPLAY
from model.telemetry.importers.promtext import Sample
from model.telemetry.names import (
    COUNT_BY_NAME,
    COUNT_DOWN,
    COUNT_ERRORS,
    COUNT_FAMILY,
    COUNT_RECOVERY,
)

# The per-GPU sums an import reads, each with the noun of one event it counts.
SUMS = {
    GPU_TOTALS[REPLAY]: "replay",
    GPU_TOTALS[RECOVERY]: "recovery",
    GPU_TOTALS[CRC_FLIT]: "flit CRC error",
    GPU_TOTALS[CRC_DATA]: "data CRC error",
}
_NOUN = {COUNT_RECOVERY: "recovery", COUNT_DOWN: "failed recovery", COUNT_ERRORS: "error"}
# The fields that narrow a GPU's errors to one of its links (DCGM dcgm_fields.h, 4.5.3 and
# 4.6.0 [V]): the legacy per-link fields cover NVLink 5's 18 links and dcgm-exporter 4.8.2
# (DCGM 4.5.3) can export them; 4.6.0's per-link fields scale to any count.
NARROW = (
    "which link, a per-link field would say: DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0.._L17 "
    "(fields 420-425, 463-468, 426-428, 487-489) and ..._RECOVERY_ERROR_COUNT_L0.._L17 (430-435, "
    "469-474, 436-438, 491-493), which dcgm-exporter 4.8.2 exports once listed in its "
    "counters.csv, or DCGM 4.6.0's DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL (1527) and "
    "..._RECOVERY_ERROR_PER_LINK_TOTAL (1528), keyed by link; DCGM_FI_DEV_NVLINK_GET_STATE "
    "(1508) gives each link's up/down"
)
# The legacy per-link fields named in NARROW (..._L0 .. _L17), read when a file has them.
PER_LINK = re.compile(
    r"DCGM_FI_DEV_NVLINK_(REPLAY|RECOVERY|CRC_FLIT|CRC_DATA)_ERROR_COUNT_L(\d{1,2})"
)
HOST_MAP = "the operator's host map"
HOST_ID = "its host name, a tray ID"
HOST_ORDER = "its host's place in name order"
NO_HOST = "its gpu label, read as the rack's GPU index (no host label)"


@dataclass(frozen=True)
class Placement:
    """Where each host's GPUs sit: its 0-based compute tray and how that was told."""

    gpus: int  # the rack's GPUs: a GPU index past them is no GPU of it
    tray: dict[str, int] = field(default_factory=dict)
    basis: dict[str, str] = field(default_factory=dict)


def readings(samples: list[Sample]) -> list[list[Sample]]:
    """The file's readings in order: a new one starts where a series (name and labels) the
    current reading already has comes again."""
    out: list[list[Sample]] = [[]]
    seen: set[tuple] = set()
    for s in samples:
        key = (s.name, tuple(sorted(s.labels.items())))
        if key in seen:
            out.append([])
            seen = set()
        seen.add(key)
        out[-1].append(s)
    return out


def _time_s(reading: list[Sample]) -> float | None:
    """A reading's time: its newest sample timestamp, in s (None: no sample has one)."""
    ts = [s.ts_ms for s in reading if s.ts_ms is not None]
    return max(ts) / 1000.0 if ts else None


def _noun(name: str) -> str | None:
    if name in SUMS:
        return SUMS[name]
    m = PER_LINK.fullmatch(name)
    if m is not None:
        return SUMS[f"DCGM_FI_DEV_NVLINK_{m.group(1)}_ERROR_COUNT_TOTAL"]
    row = COUNT_BY_NAME.get(name)
    return None if row is None or row.reads_as is None else _NOUN[row.reads_as]


def _series(
    parts: list[list[Sample]], gpu_of: Callable[[Sample], int], gpus: int, messages: list[str]
) -> tuple[dict[int, dict[str, list[tuple]]], dict[int, Sample]]:
    """Each GPU's error counters, reading by reading (index, value, time: the sample's own
    timestamp, else its reading's), and a sample of each GPU (for its labels); a message for
    a sample that names no GPU."""
    times = [_time_s(p) for p in parts]
    out: dict[int, dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    first: dict[int, Sample] = {}
    for i, part in enumerate(parts):
        for s in part:
            if _noun(s.name) is None or not math.isfinite(s.value):
                continue
            try:
                g = gpu_of(s)
                if not 0 <= g < gpus:
                    raise ValueError(f"GPU {g} is not in this rack's 0..{gpus - 1}")
            except (ValueError, IndexError, ScenarioError) as e:
                msg = e.message if isinstance(e, ScenarioError) else str(e)
                messages.append(f"line {s.line}: {s.name}: {msg}; the sample is skipped")
                continue
            t = s.ts_ms / 1000.0 if s.ts_ms is not None else times[i]
            out[g][s.name].append((i, s.value, t))
            first.setdefault(g, s)
    return out, first


def _rank(item: tuple[str, list]) -> tuple[int, int, str]:
    """The order counters are told in: the four sums (replays first), then the count family
    by field, then the per-link fields by link."""
    name = item[0]
    if name in SUMS:
        return (0, list(SUMS).index(name), name)
    row = COUNT_BY_NAME.get(name)
    if row is not None:
        return (1, row.field_id, name)
    m = PER_LINK.fullmatch(name)
    return (2, int(m.group(2)) if m else 0, name)


def _counter(vals: list[tuple]) -> dict:
    """One counter of one GPU: first and last readings, its rise and its rate per second."""
    (i0, v0, t0), (i1, v1, t1) = vals[0], vals[-1]
    out: dict = {"first": v0, "last": v1, "rise": None, "per_s": None, "over_s": None}
    if i1 > i0:
        out["rise"] = v1 - v0 if v1 >= v0 else None  # a fall: the counter was reset
        if out["rise"] is not None and t0 is not None and t1 is not None and t1 > t0:
            out["per_s"], out["over_s"] = out["rise"] / (t1 - t0), t1 - t0
    return out


def _rises(counters: dict) -> str:
    """Each counter that rose (or, one reading, counted), with its rate, in a sentence."""
    bits = []
    for name, c in counters.items():
        noun = _noun(name) or "event"
        if c["rise"]:
            rate = f" ({words.sig(c['per_s'])}/s)" if c["per_s"] is not None else ""
            span = f" in {words.duration_words(c['over_s'])}" if c["over_s"] else ""
            bits.append(f"{words.plural(c['rise'], noun)}{span}{rate} ({name})")
        elif c["rise"] is None and c["last"] > 0:
            bits.append(f"{words.plural(c['last'], noun)} counted ({name})")
    return "; ".join(bits)


def _placed(s: Sample, g: int, place: Placement, gpus_per_tray: int) -> dict:
    host = s.labels.get("Hostname", s.labels.get("hostname"))
    tray = g // gpus_per_tray
    basis = place.basis.get(host or "", NO_HOST)
    return {
        "host": host,
        "gpu_on_host": s.labels.get("gpu"),
        "uuid": s.labels.get("UUID", s.labels.get("gpu_uuid")),
        "compute_tray": compute_tray_id(tray + 1),
        "tray_from": basis,
    }


def _links(f: Fabric, g: int, counters: dict, one_reading: bool) -> dict:
    """The GPU's links whose legacy per-link counters rose (one reading: are above zero), by
    link index, each with its link ID (the index taken as its plane [A]) and counters."""
    out: dict = {}
    for name, c in counters.items():
        m = PER_LINK.fullmatch(name)
        if m is None or int(m.group(2)) >= f.planes:
            continue
        if not (c["rise"] or (one_reading and c["last"] > 0)):
            continue
        n = int(m.group(2))
        x = out.setdefault(str(n), {"link": link_id(f, g, n), "counters": {}})
        x["counters"][name] = c
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def _confidence(
    basis: str, interval_s: float | None, n_readings: int, links: dict | None = None
) -> str:
    sure = basis in (HOST_MAP, HOST_ID)
    tray = f"its tray from {basis}" + ("" if sure else " [A] (give hosts= to place it)")
    if n_readings < 2:
        rate = "one reading: errors since the counters' zero, no rate"
    elif interval_s is None:
        rate = "two readings without timestamps: a rise, no rate"
    else:
        rate = f"a rate over {words.duration_words(interval_s)}"
    level = "medium" if sure and interval_s else "low"
    link = "not known"
    if links:
        link = f"{', '.join(x['link'] for x in links.values())} from the per-link fields, the "
        link += "link index taken as its plane [A]"
    return f"{level}: the GPU from its own counters, {tray}, {rate}; the link: {link}"


def erring(
    samples: list[Sample], gpu_of: Callable[[Sample], int], place: Placement, f: Fabric
) -> tuple[list[dict], dict, list[str]]:
    """The GPUs whose per-GPU error counters rose between the first and last readings (or,
    with one reading, are above zero), each placed and rated; the readings; the messages."""
    messages: list[str] = []
    parts = readings(samples)
    times = [_time_s(p) for p in parts]
    by_gpu, first = _series(parts, gpu_of, place.gpus, messages)
    t0, t1 = times[0], times[-1]
    interval = t1 - t0 if len(parts) > 1 and t0 is not None and t1 is not None else None
    interval = interval if interval and interval > 0 else None
    out = []
    for g in sorted(by_gpu):
        every = {n: _counter(v) for n, v in sorted(by_gpu[g].items(), key=_rank)}
        counters = {n: c for n, c in every.items() if c["last"] > 0 or c["rise"]}
        messages += [
            f"{gpu_id(g)}: {n} fell from {words.count(c['first'])} to {words.count(c['last'])} "
            "between the readings: the counter was reset (the driver reloaded), so no rise is read"
            for n, c in every.items()
            if c["last"] < c["first"]
        ]
        rising = any(c["rise"] for c in counters.values())
        counted = len(parts) == 1 and any(c["last"] > 0 for c in counters.values())
        if not (rising or counted):
            continue
        where = _placed(first[g], g, place, f.gpus_per_tray)
        gid = gpu_id(g)
        sums = {n: c for n, c in counters.items() if not PER_LINK.fullmatch(n)}
        links = _links(f, g, counters, len(parts) == 1)
        summary = (
            f"{gid}: {_rises(sums)}, summed over its links" if sums else gid
        ) + f"; on {where['compute_tray']} by {where['tray_from']}"
        for x in links.values():
            summary += f"; {x['link']} [A]: {_rises(x['counters'])}"
        messages.append(summary)
        row = {"gpu": gid, **where, "rising": rising, "counters": sums, "links": links}
        row["summary"] = summary
        row["confidence"] = _confidence(where["tray_from"], interval, len(parts), links)
        out.append(row)
    if any(not x["links"] for x in out):
        messages.append(NARROW)
    seen = {"count": len(parts), "times_s": times, "interval_s": interval}
    return out, seen, messages + _readings_note(len(parts), interval)


def _readings_note(n: int, interval: float | None) -> list[str]:
    if n == 1:
        return []
    when = (
        f"{words.duration_words(interval)} apart (the samples' timestamps)"
        if interval
        else "without timestamps: rises, no rates (Prometheus's /federate writes them)"
    )
    return [f"{n} readings, the first and last {when}; the rack's state is the last one's"]


def count_family_note(samples: list[Sample]) -> list[str]:
    """What the import did with the NVLink 5 count family the file has: read (as what) or
    not used (and why); nothing when the file has none."""
    have = {s.name for s in samples} & set(COUNT_BY_NAME)
    if not have:
        return []
    used = [r for r in COUNT_FAMILY if r.name in have and r.reads_as is not None]
    unused = [r for r in COUNT_FAMILY if r.name in have and r.reads_as is None]
    out = []
    if used:
        out.append(
            "NVLink 5 count family read per GPU (DCGM sums each over the GPU's links): "
            + ", ".join(f"{r.name} ({r.field_id}) as {r.reads_as}" for r in used)
        )
    why: dict[str, list[str]] = defaultdict(list)
    for r in unused:
        why[r.why].append(f"{r.name} ({r.field_id})")
    for reason, names in why.items():
        out.append(f"not used: {', '.join(names)}: {reason}")
    return out
