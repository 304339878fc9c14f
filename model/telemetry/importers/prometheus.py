"""A rack's counters as Prometheus's HTTP API answers them (`GET /api/v1/query`, PromQL),
turned into the text a scrape is, for the same importers a pasted scrape goes through.

Written from Prometheus's HTTP API reference (prometheus.io, "HTTP API": the answer is JSON
{"status": "success", "data": {"resultType": "vector" | "matrix", "result": [...]}}, each
series {"metric": {"__name__": ..., labels}, "value": [unix s, "value"]} or, for a range
selector, "values": [[unix s, "value"], ...]; the value is a string, "NaN" and "+Inf" among
them). Nothing here fetches: dashboard/infra/live.py asks, this reads what it was answered.

What the live mode asks (queries(), each a PromQL expression over the operator's selector):
the GPU side's per-link NVLink series the importer reads (states, recovery counters, BER),
whole; the other per-link error counters and the NVSwitch ports' only where they err (not
0); NMX's and the twin's own families when the rack is the twin's stand-in; the per-GPU
sums (`..._COUNT_TOTAL` and NVLink 5's count family) over the rate window as a range, whose
first and last samples are two timestamped readings (importers/pergpu.py reads the rates
from them); and rate() over the window, now and one window before, of each link's and each
GPU's recoveries and replays: the trend the drain advice reads (model/telemetry/live.py).

A value that is no number, or a state or counter that cannot be (a link state other than
0/1, a counter below zero or not finite), is garbage: the answer is refused with the series
named, never read as a healthy rack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from model.telemetry.fields import (
    BER,
    CRC_DATA,
    CRC_FLIT,
    GPU_TOTALS,
    LINK_STATE,
    RECOVERY,
    REPLAY,
)
from model.telemetry.importers.promtext import Sample
from model.telemetry.names import spellings

# The families read at an instant (regexes on __name__), each whole: the per-link families the
# importer reads (importers/dcgm.py: a link's state, recovery counter and BER, in every
# spelling), the GPUs' fabric health, NMX's and the twin's own families.
READ_PER_LINK = (LINK_STATE, RECOVERY, BER)
INSTANT = {
    "gpu_links": "|".join(x for n in READ_PER_LINK for x in spellings(n)),
    "gpu_health": "DCGM_FI_DEV_FABRIC_.+",
    "nmx_and_twin": "nmx_.+|fabric_twin_info|fabric_twin_link_telemetry_feature",
}
# The error counters no import reads (the GPU side's other per-link counters, the NVSwitch
# ports'), asked for only where they are not 0 (`!= 0`: a NaN or a negative, garbage, is
# kept and refused): ~40 series on a rack with a flaky link, not ~9,000 zeros and throughputs.
ERRING = {
    "erring_links": "|".join(x for n in (CRC_FLIT, CRC_DATA, REPLAY) for x in spellings(n)),
    "erring_switch_ports": "DCGM_FI_DEV_NVSWITCH_LINK_.+_ERRORS",
}
READ_NOW = (*INSTANT, *ERRING)  # the answers that make the scrape's reading now
SUMS = "DCGM_FI_DEV_NVLINK_.+_COUNT_TOTAL|DCGM_FI_DEV_NVLINK_COUNT_.+"
# What the trend is read from: per link (DCGM's per-link fields) and per GPU (the sums).
RATES = {
    "link_recovery": "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL",
    "link_replay": "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL",
    "gpu_recovery": "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    "gpu_replay": "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
}
# The families whose value is a link's state: NVML's 0 INACTIVE / 1 ACTIVE, the switch's 0..3.
STATES = {
    "DCGM_FI_DEV_NVLINK_GET_STATE": (0.0, 1.0),
    "DCGM_FI_DEV_NVSWITCH_LINK_STATUS": (0.0, 3.0),
}
MAX_SERIES = 200_000  # [A] a 72-GPU rack's whole scrape is ~19,000 series (gb200) or ~38,000


def _sel(selector: str, regex: str) -> str:
    extra = f",{selector}" if selector else ""
    return f'{{__name__=~"{regex}"{extra}}}'


def queries(selector: str, window_s: int) -> dict[str, str]:
    """Every PromQL expression one live reading asks, by name. selector: the operator's label
    matchers for the one rack ('job="rack-a"'), or ''; window_s: the rate window."""
    w = f"{int(window_s)}s"
    out = {k: _sel(selector, v) for k, v in INSTANT.items()}
    out |= {k: f"{_sel(selector, v)} != 0" for k, v in ERRING.items()}
    out["sums_over_window"] = f"{_sel(selector, SUMS)}[{w}]"
    for k, name in RATES.items():
        m = _sel(selector, name)
        out[f"rate_{k}"] = f"rate({m}[{w}]) > 0"
        out[f"rate_{k}_before"] = f"rate({m}[{w}] offset {w}) > 0"
    return out


# When the rack was last scraped: each target's newest sample time. timestamp() gives a
# sample's own time only on a plain selector (of anything computed, it gives the query's
# time), and drops the name, so one family at a time: the first of these the rack has (the
# per-GPU sums every dcgm-exporter shape exports, then the per-link state), joined by `or`.
# Live mode asks it alone first to learn whether anything new was scraped (a few bytes).
PROBE = (*GPU_TOTALS.values(), LINK_STATE)


def probe_query(selector: str) -> str:
    """PromQL for each scrape target's last scrape time of the rack's DCGM series."""
    extra = f"{{{selector}}}" if selector else ""
    return " or ".join(f"max by (instance) (timestamp({n}{extra}))" for n in PROBE)


def scrape_times(answer: list[Series]) -> dict[str, float]:
    """The probe's answer: each target (its instance label) and its last scrape, unix s."""
    return {s.labels.get("instance", ""): s.points[-1][1] for s in answer if s.points}


def scrape_interval_s(sums: list[Series]) -> float | None:
    """The scrape interval the rack's series were sampled at: the median gap between the
    consecutive samples of the range answer (sums_over_window); None when no series has two."""
    gaps = sorted(
        b[0] - a[0]
        for s in sums
        for a, b in zip(s.points, s.points[1:], strict=False)
        if b[0] > a[0]
    )
    return gaps[len(gaps) // 2] if gaps else None


class Garbage(ValueError):
    """An answer that cannot be read as a rack: its message names the query and the series."""


@dataclass(frozen=True)
class Series:
    """One series of an answer: name, labels (no __name__) and its (unix s, value) points."""

    name: str
    labels: dict[str, str]
    points: tuple[tuple[float, float], ...]


@lru_cache(maxsize=512)
def _checks(name: str) -> tuple[tuple[float, float] | None, bool]:
    """What a value of the family `name` must be: a link state's range, and whether a count."""
    counter = name.endswith(("_TOTAL", "_ERRORS")) or name.startswith("DCGM_FI_DEV_NVLINK_COUNT_")
    counter = counter and "BER" not in name  # a BER is a rate, NaN on a link that carries nothing
    return STATES.get(name), counter


def _value(raw: object, name: str) -> float:
    """A sample's value, checked (Garbage says what is wrong; series() says where)."""
    try:
        v = float(raw if isinstance(raw, str) else str(raw))
    except ValueError:
        raise Garbage(f"has the value {str(raw)[:40]!r}, not a number") from None
    lo_hi, counter = _checks(name)
    if lo_hi is not None and not (math.isfinite(v) and lo_hi[0] <= v <= lo_hi[1] and v == int(v)):
        raise Garbage(f"is {raw}, not a link state ({lo_hi[0]:g}..{lo_hi[1]:g})")
    if counter and not (math.isfinite(v) and v >= 0):
        raise Garbage(f"is {raw}, not a count (a whole number from 0)")
    return v


def series(query: str, answer: object) -> list[Series]:
    """The series of one answer of /api/v1/query; Garbage when it is not a success, not a
    vector or matrix, or a value is garbage (the message names the query and series)."""
    if not isinstance(answer, dict) or answer.get("status") != "success":
        why = answer.get("error", "no status") if isinstance(answer, dict) else "not JSON"
        raise Garbage(f"{query}: Prometheus did not answer success ({str(why)[:120]})")
    data = answer.get("data") or {}
    kind, result = data.get("resultType"), data.get("result")
    if kind not in ("vector", "matrix") or not isinstance(result, list):
        raise Garbage(f"{query}: expected a vector or matrix, got {str(kind)[:20]}")
    if len(result) > MAX_SERIES:
        raise Garbage(f"{query}: {len(result):,} series, more than {MAX_SERIES:,} (one rack's)")
    out = []
    for r in result:
        if not isinstance(r, dict) or not isinstance(r.get("metric", {}), dict):
            raise Garbage(f"{query}: a series is not {{'metric': {{...}}, 'value': [...]}}")
        metric = {str(k): str(v) for k, v in (r.get("metric") or {}).items()}
        name = metric.pop("__name__", "") or "(no name)"
        raw = [r.get("value")] if kind == "vector" else list(r.get("values") or [])
        try:
            out.append(Series(name, metric, tuple(_point(p, name) for p in raw)))
        except Garbage as e:  # named where it is only when it is wrong: ~20,000 series a read
            raise Garbage(f"{query}: {name}{{{_labels_text(metric)}}} {e}") from None
    return out


def _point(p: object, name: str) -> tuple[float, float]:
    """One [unix s, "value"] sample, checked."""
    if not isinstance(p, list | tuple) or len(p) != 2:
        raise Garbage("has a sample that is not [time, value]")
    try:
        t = float(p[0])
    except (TypeError, ValueError):
        raise Garbage(f"has a sample time {str(p[0])[:40]!r}, not a number") from None
    return t, _value(p[1], name)


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels_text(labels: dict[str, str]) -> str:
    return ",".join(f'{k}="{_esc(v)}"' for k, v in sorted(labels.items()))


def _value_text(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    return repr(v) if not math.isinf(v) else ("+Inf" if v > 0 else "-Inf")


def _key(s: Series) -> tuple:
    return (s.name, tuple(sorted(s.labels.items())))


def scrape_samples(instant: list[Series], sums: list[Series]) -> list[Sample]:
    """The rack's scrape the answers describe, as the samples reading its text gives
    (scrape_text is their text, line for line): the per-GPU sums' first sample in the window
    (the earlier reading, when the window holds two), then every instant series (the reading
    now: the sums' last samples among them). Every sample carries its time, so the importer
    reads a rate between the two readings. Live mode imports these with no text between."""
    picked = [(s, s.points[0]) for s in sums if len(s.points) > 1]
    picked += [(s, s.points[-1]) for s in instant if s.points]
    # a sum the instant answers lack (the operator's selector differs): its last sample
    summed = {s.name for s in sums}
    now_keys = {_key(s) for s in instant if s.name in summed}
    picked += [(s, s.points[-1]) for s in sums if s.points and _key(s) not in now_keys]
    return [
        Sample(s.name, s.labels, v, n, round(t * 1000)) for n, (s, (t, v)) in enumerate(picked, 1)
    ]


def scrape_text(instant: list[Series], sums: list[Series]) -> str:
    """The text of scrape_samples (Prometheus's text format, each line with its timestamp):
    what a person imports by hand gives the same samples, line for line."""
    lines = [
        f"{x.name}{{{_labels_text(x.labels)}}} {_value_text(x.value)} {x.ts_ms}"
        for x in scrape_samples(instant, sums)
    ]
    return "\n".join(lines) + "\n"


def rates(answer: list[Series]) -> dict[tuple[str, str], float]:
    """rate() answers by (link or GPU label, gpu label): the per-second rate."""
    out = {}
    for s in answer:
        key = (
            s.labels.get("link", ""),
            s.labels.get("Hostname", "") + "/" + s.labels.get("gpu", ""),
        )
        out[key] = s.points[-1][1] if s.points else 0.0
    return out
