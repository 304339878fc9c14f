"""Your rack's telemetry in: a file a real rack reports, read into the scenario it describes.

`import_text(data)` takes the file's bytes (or text), tells its format, reads it, runs the
same attribution the twin runs on its own counters (model/telemetry/diagnosis.py), and
answers with the scenario's query string, how sure it is, and a message for everything it
could not read, each naming the line and what was expected. What was understood is still
used. Limits: MAX_BYTES and MAX_LINES; past them the file is refused, naming the line.

Formats (docs/TELEMETRY.md cites the definition each is written from):
- dcgm-exporter's scrape, the Prometheus text format (model/telemetry/importers/dcgm.py),
  also a multi-rack domain's (one rack's, or the domain's tier: importers/domain.py);
- nvidia-smi's `nvlink --status`, `nvlink -e` and the Fabric section of `-q`, alone or
  together, one host's after another (model/telemetry/importers/nvsmi.py);
- NMX-Manager's REST answers, `GET /nmx/v1/partitions` with `/gpus` and `/ports` if given,
  one after another (model/telemetry/importers/nmx.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from model import words
from model.errors import ScenarioError
from model.fabric.features import default_features
from model.ids import chip_id, gpu_id, link_id
from model.query import parse_query
from model.scenario import to_query
from model.telemetry.diagnosis import attribution
from model.telemetry.fields import ACTIVE
from model.telemetry.importers import dcgm, domain, nmx, nvsmi, promtext
from model.telemetry.names import canonical
from model.telemetry.snapshot import Counters

MAX_BYTES = 16 * 2**20  # [A] a whole rack's own scrape, lanes too, is ~6 MB (72 GPUs x 36 links)
MAX_LINES = 300_000  # [A] that scrape is ~55,000 lines
MAX_MESSAGES = 50  # the first ones in full, then a count
FORMATS = ("dcgm-exporter", "nvidia-smi", "nmx-manager")


@dataclass(frozen=True)
class Imported:
    """What a file said: the scenario it describes and how sure the twin is of it."""

    format: str
    scenario: str  # the canonical query string
    confidence: str  # high / medium / low, and why
    components: dict[str, str]  # each named component -> what it was read from
    messages: tuple[str, ...] = ()
    attribution: dict = field(default_factory=dict)
    fabric_health: dict = field(default_factory=dict)  # GPU -> its mask and summary, if read
    partition: dict = field(default_factory=dict)  # NMX-Manager's partition health, if read
    unreadable: tuple[str, ...] = ()  # each line that is no sample at all, and why
    erring_gpus: tuple[dict, ...] = ()  # per-GPU sums only: the GPUs whose links err
    readings: dict = field(default_factory=dict)  # a scrape's readings: count, times, interval

    def to_json(self) -> dict:
        return {
            "erring_gpus": list(self.erring_gpus),
            "readings": self.readings,
            "unreadable": list(self.unreadable),
            "fabric_health": self.fabric_health,
            "partition": self.partition,
            "format": self.format,
            "scenario": self.scenario,
            "confidence": self.confidence,
            "components": self.components,
            "messages": list(self.messages),
            "attribution": self.attribution,
        }


class ImportRefused(ValueError):
    """The file cannot be read at all; message names the line and what was expected."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _lines(data: bytes | str) -> list[str]:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BYTES:
        line = data[:MAX_BYTES].count(b"\n") + 1
        raise ImportRefused(
            f"line {line}: the file is over {MAX_BYTES:,} bytes, the most that is read (one "
            "rack's scrape fits well inside): expected a smaller file",
            line,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ImportRefused(
            f"line {line}: byte {e.start} is not UTF-8: expected text (a scrape, or "
            "nvidia-smi's output)",
            line,
        ) from None
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise ImportRefused(
            f"line {MAX_LINES + 1}: more than {MAX_LINES:,} lines; expected at most that many",
            MAX_LINES + 1,
        )
    if not any(x.strip() for x in lines):
        raise ImportRefused("line 1: the file is empty: expected a rack's telemetry", 1)
    return lines


def _capped(messages: list[str]) -> tuple[str, ...]:
    if len(messages) <= MAX_MESSAGES:
        return tuple(messages)
    return (*messages[:MAX_MESSAGES], f"... and {len(messages) - MAX_MESSAGES} more")


def scenario_of(
    snap: Counters, messages: list[str], features: dict[str, bool | None] | None = None
) -> tuple[str, dict[str, str], dict]:
    """The query string of the scenario a snapshot describes, each component's basis, and
    the attribution it came from. features: those the file tells on or off (None: it
    says nothing of that feature, which keeps its default)."""
    f = snap.fabric
    a = attribution(snap)
    basis: dict[str, str] = {}
    if a.possible:
        for x in a.failed:
            basis[x] = "link states (and lane states to narrow a cable)"
        for x in a.silent:
            basis[x] = "its tray's switch-side telemetry is stale"
        for x in a.degrading:
            basis[x] = "recovery counter or BER of an ACTIVE link"
        fail, flaky = [*a.failed, *a.silent], list(a.degrading)
    else:
        down = (snap.state != ACTIVE) & ~snap.planned[None, :]  # drained planes are no fault
        rows, cols = down.all(axis=1), down.all(axis=0)
        fail = [gpu_id(int(g)) for g in np.flatnonzero(rows)]
        fail += [chip_id(f, int(p)) for p in np.flatnonzero(cols & ~rows.all())]
        rest = down & ~rows[:, None] & ~cols[None, :]
        fail += [link_id(f, int(g), int(p)) for g, p in zip(*np.nonzero(rest), strict=True)]
        for x in fail:
            basis[x] = "link states only"
        flaky = []
    parts = [f"fabric={f.key}"]
    if fail:
        parts.append("fail=" + ",".join(fail))
    if flaky:
        parts.append("flaky=" + ",".join(flaky))
    k = f.chips_per_tray
    trays = snap.planned.reshape(-1, k).all(axis=1)
    defaults = default_features(f.key)
    on, off = [], []
    # A switch update: a tray drained at a time is in-service (ISSU on); every plane drained
    # at once is a maintenance window (ISSU off).
    if trays.all():
        parts.append("update=all")
        off += ["issu"] if "issu" in defaults else []
    elif trays.any():
        parts.append("update=" + ",".join(f"st{int(t) + 1}" for t in np.flatnonzero(trays)))
        on += [] if "issu" in defaults else ["issu"]
    if (snap.planned.reshape(-1, k).any(axis=1) & ~trays).any():
        messages.append("some chips are drained but not their whole tray: not imported")
    told = features or {}
    if "telemetry" not in told and snap.telemetry and "telemetry" not in defaults:
        on.append("telemetry")
    elif "telemetry" not in told and not snap.telemetry and "telemetry" in defaults:
        off.append("telemetry")
    for k, v in told.items():
        if v is None:
            continue
        if v and k not in defaults:
            on.append(k)
        elif not v and k in defaults:
            off.append(k)
    parts += [f"on={','.join(on)}"] if on else []
    parts += [f"off={','.join(off)}"] if off else []
    s = parse_query("&".join(parts)).scenario
    return to_query(s, include_fabric=True), basis, a.to_json()


def parse_hosts(text: str) -> dict[str, int]:
    """The operator's host-to-tray map, 'node-a:ct01,node-b:ct02', as host -> 0-based tray;
    ImportRefused naming the pair that is not 'host:ctNN'."""
    out: dict[str, int] = {}
    for pair in (p.strip() for p in text.split(",")):
        host, _, tray = pair.rpartition(":")
        m = re.fullmatch(r"ct(\d{2})", tray.strip())
        if not pair:
            continue
        if not host.strip() or m is None or int(m.group(1)) < 1:
            raise ImportRefused(
                f"hosts: '{pair[:60]}' is not 'host:ctNN' (a host name, then the compute "
                "tray it is, ct01 upward)",
                0,
            )
        out[host.strip()] = int(m.group(1)) - 1
    return out


def import_text(
    data: bytes | str, fabric: str | None = None, hosts: Mapping[str, int] | None = None
) -> Imported:
    """Read a file a rack reports into the scenario it describes.

    fabric: the rack to assume when a scrape does not tell its own (a pasted line or two
    carries no fabric label and too few links to count). hosts: the operator's map of a
    scrape's host names to compute trays (0-based; parse_hosts reads 'node-a:ct01,...'),
    else hosts are placed by name. Raises ImportRefused when nothing
    can be read (too big, not text, not a known format, no fabric to tell); every lesser
    problem is a message naming its line, and a line that is no sample at all is also in
    `unreadable`.
    """
    lines = _lines(data)
    if nmx.looks_like(lines):
        return _import_nmx(lines)
    if nvsmi.looks_like(lines):
        return _import_nvsmi(lines)
    samples, problems = promtext.parse(lines)
    return import_samples(samples, problems, fabric, hosts)


def import_samples(
    samples: list[promtext.Sample],
    problems: list[promtext.Problem] | None = None,
    fabric: str | None = None,
    hosts: Mapping[str, int] | None = None,
) -> Imported:
    """A scrape already read into samples (import_text's, or live mode's from Prometheus's
    answers, with no text between: model/telemetry/importers/prometheus.py scrape_samples)
    into the scenario it describes; problems: the lines that were no sample."""
    problems = problems or []
    # any DCGM spelling to the twin's own (a sample already spelled so is kept as it is)
    samples = [
        x if canonical(x.name) == x.name else replace(x, name=canonical(x.name)) for x in samples
    ]
    messages = [p.text() for p in problems]
    if not samples:
        first = problems[0].line if problems else 1
        raise ImportRefused(
            f"line {first}: no sample of a known format; expected a dcgm-exporter scrape "
            '(Prometheus text: \'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="0"} 1\') or '
            "nvidia-smi's output ('GPU 0: ...' then 'Link 0: ...')"
            + (f" ({problems[0].text()})" if problems else ""),
            first,
        )
    d, rack = None, None
    try:
        d = domain.domain_of(samples)
        if d is not None and domain.is_tier(samples):
            query, basis = domain.tier(samples, d, messages)
            conf = "low: the domain's tier (racks, L2 chips, trunk bundles) up or down only"
            return Imported("dcgm-exporter", query, conf, basis, _capped(messages), {})
        if d is not None:
            samples, rack = domain.localise(samples, d)
        reading = dcgm.read(samples, domain.rack_fabric(fabric), hosts)
        _check_trays(hosts, reading.snap.fabric.compute_trays)
    except ScenarioError as e:
        raise ImportRefused(f"line {samples[0].line}: {e.message}", samples[0].line) from None
    messages += reading.messages
    query, basis, attr = scenario_of(reading.snap, messages)
    if d is not None and rack is not None:  # one rack of a domain: the domain's scenario
        query = domain.to_domain(query, d, rack)
        basis = {f"{domain.rack_id(rack)}.{k}": v for k, v in basis.items()}
        attr = domain.prefixed(attr, rack)
    snap = reading.snap
    if not reading.states_seen and not snap.telemetry:
        confidence = "none: no per-link states or counters (the messages say what the file has)"
    elif snap.telemetry and reading.lanes_seen:
        confidence = "high: link states, per-link counters and the switch tray's lane view"
    elif snap.telemetry:
        confidence = "medium: link states and per-link counters, no lane view (no cables)"
    elif snap.link is not None:
        confidence = "low: the counters are in the file but its fabric does not act on them"
    else:
        confidence = "low: link states only (no counters: no degrading links, no cables)"
    if reading.erring_gpus:
        confidence += (
            f"; {words.plural(len(reading.erring_gpus), 'erring GPU')} named from the per-GPU sums "
            "(erring_gpus, each with how sure)"
        )
    health = {gpu_id(g): v for g, v in sorted(reading.health.items()) if g < snap.fabric.gpus}
    unread = _capped([p.text() for p in problems])
    return Imported(
        "dcgm-exporter",
        query,
        confidence,
        basis,
        _capped(messages),
        attr,
        health,
        {},
        unread,
        tuple(reading.erring_gpus),
        reading.readings,
    )


def _check_trays(hosts: Mapping[str, int] | None, trays: int) -> None:
    """ImportRefused when the operator's host map names a tray the rack does not have."""
    for host, t in (hosts or {}).items():
        if not 0 <= t < trays:
            raise ImportRefused(
                f"hosts: '{host}' is put on ct{t + 1:02d}; this rack's compute trays are "
                f"ct01-ct{trays:02d}",
                0,
            )


def _health_json(snap: Counters, gpus: list[int]) -> dict:
    """The fabric health of the GPUs the file gave it for."""
    h = snap.health
    if h is None:
        return {}
    return {
        gpu_id(g): {"mask": int(h.mask[g]), "summary": int(h.summary[g]), "state": int(h.state[g])}
        for g in gpus
        if g < snap.fabric.gpus
    }


def _import_nvsmi(lines: list[str]) -> Imported:
    parsed = nvsmi.parse(lines)
    messages = list(parsed.problems)
    try:
        snap = nvsmi.snapshot(parsed, messages)
    except ValueError as e:
        first = next((i for i, x in enumerate(lines, start=1) if x.strip()), 1)
        raise ImportRefused(f"line {first}: {e}", first) from None
    query, basis, attr = scenario_of(snap, messages)
    health = _health_json(snap, sorted(parsed.health))
    for gid, h in health.items():
        if h["summary"] in (2, 3):
            messages.append(
                f"{gid}: fabric health {'Unhealthy' if h['summary'] == 2 else 'Limited Capacity'}"
                " (which link, the file's link lines say, if it has them)"
            )
    if snap.telemetry and parsed.state:
        confidence = "medium: link states and recovery counters (nvidia-smi: no BER, no cables)"
    elif parsed.state:
        confidence = "low: link states only (no counters: no degrading links, no cables)"
    elif snap.telemetry:
        confidence = "low: recovery counters only (no link states)"
    else:
        confidence = "low: fabric health only (no links: no component can be named)"
    return Imported("nvidia-smi", query, confidence, basis, _capped(messages), attr, health)


def _import_nmx(lines: list[str]) -> Imported:
    try:
        parsed = nmx.parse("\n".join(lines))
    except nmx.NmxError as e:
        raise ImportRefused(e.message, e.line) from None
    messages = list(parsed.problems)
    if not (parsed.partitions or parsed.gpus or parsed.ports):
        raise ImportRefused(
            "line 1: no NMX-Manager Partition, GPU or Port object: expected the answer of GET "
            "/nmx/v1/partitions (objects with 'Members' and 'Health')",
            1,
        )
    reading = nmx.read(parsed, messages)
    query, basis, attr = scenario_of(reading.snap, messages, reading.features)
    for k in basis:
        basis[k] = "NMX-Manager GPU ports' states" if reading.ports_seen else "GPU health UNKNOWN"
    if reading.ports_seen:
        confidence = "low: link states (GPU ports) and NMX health; no counters, no cables"
    elif reading.gpu_health:
        confidence = "low: NMX health only: lost GPUs are named, GPUs short of links are not"
    else:
        confidence = "none: partition health only; no component can be named from it"
    part = reading.partition
    if part.get("health") not in (None, "HEALTHY"):
        messages.append(f"partition '{part.get('name')}' reports {part['health']}")
    return Imported(
        "nmx-manager", query, confidence, basis, _capped(messages), attr, partition=part
    )


__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "MAX_LINES",
    "ImportRefused",
    "Imported",
    "import_text",
    "parse_hosts",
]
