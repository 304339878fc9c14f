"""A rack's counters as Prometheus's HTTP API answers them (`GET /api/v1/query`, PromQL),
turned into the text a scrape is, for the same importers a pasted scrape goes through.

Written from Prometheus's HTTP API reference (prometheus.io, "HTTP API": the answer is JSON
{"status": "success", "data": {"resultType": "vector" | "matrix", "result": [...]}}, each
series {"metric": {"__name__": ..., labels}, "value": [unix s, "value"]} or, for a range
selector, "values": [[unix s, "value"], ...]; the value is a string, "NaN" and "+Inf" among
them). Nothing here fetches: dashboard/infra/live.py asks, this reads what it was answered.

What the live mode asks (QUERIES, each a PromQL expression over the operator's selector):
the GPU side's per-link NVLink series (states, error counters, BER), the NVSwitch ports',
NMX's and the twin's own families when the rack is the twin's stand-in, and the per-GPU
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

# The families read at an instant (regexes on __name__), and the sums read over the window.
INSTANT = {
    "gpu_links": "DCGM_FI_DEV_NVLINK_.+|NVML_FI_DEV_NVLINK_.+",
    "switch_ports": "DCGM_FI_DEV_NVSWITCH_.+",
    "gpu_health": "DCGM_FI_DEV_FABRIC_.+",
    "nmx_and_twin": "nmx_.+|fabric_twin_info|fabric_twin_link_telemetry_feature",
}
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
    out["sums_over_window"] = f"{_sel(selector, SUMS)}[{w}]"
    for k, name in RATES.items():
        m = _sel(selector, name)
        out[f"rate_{k}"] = f"rate({m}[{w}]) > 0"
        out[f"rate_{k}_before"] = f"rate({m}[{w}] offset {w}) > 0"
    return out


class Garbage(ValueError):
    """An answer that cannot be read as a rack: its message names the query and the series."""


@dataclass(frozen=True)
class Series:
    """One series of an answer: name, labels (no __name__) and its (unix s, value) points."""

    name: str
    labels: dict[str, str]
    points: tuple[tuple[float, float], ...]


def _value(raw: object, name: str) -> float:
    """A sample's value, checked (Garbage says what is wrong; series() says where)."""
    try:
        v = float(str(raw))
    except ValueError:
        raise Garbage(f"has the value {str(raw)[:40]!r}, not a number") from None
    lo_hi = STATES.get(name)
    if lo_hi is not None and not (math.isfinite(v) and lo_hi[0] <= v <= lo_hi[1] and v == int(v)):
        raise Garbage(f"is {raw}, not a link state ({lo_hi[0]:g}..{lo_hi[1]:g})")
    counter = name.endswith(("_TOTAL", "_ERRORS")) or name.startswith("DCGM_FI_DEV_NVLINK_COUNT_")
    counter = counter and "BER" not in name  # a BER is a rate, NaN on a link that carries nothing
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


def _line(name: str, labels: dict[str, str], t_s: float, v: float) -> str:
    val = (
        "NaN" if math.isnan(v) else repr(v) if not math.isinf(v) else ("+Inf" if v > 0 else "-Inf")
    )
    return f"{name}{{{_labels_text(labels)}}} {val} {round(t_s * 1000)}"


def scrape_text(instant: list[Series], sums: list[Series]) -> str:
    """The text of the rack's scrape the answers describe: the per-GPU sums' first sample in
    the window (the earlier reading, when the window holds two), then every instant series
    (the reading now: the sums' last samples among them). Every line carries its timestamp,
    so the importer reads a rate between the two readings."""
    earlier = [_line(s.name, s.labels, *s.points[0]) for s in sums if len(s.points) > 1]
    now_keys = {(s.name, tuple(sorted(s.labels.items()))) for s in instant}
    now = [_line(s.name, s.labels, *s.points[-1]) for s in instant if s.points]
    # a sum the instant answers lack (the operator's selector differs): its last sample
    now += [
        _line(s.name, s.labels, *s.points[-1])
        for s in sums
        if s.points and (s.name, tuple(sorted(s.labels.items()))) not in now_keys
    ]
    return "\n".join([*earlier, *now]) + "\n"


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
