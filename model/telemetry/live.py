"""The live rack: what one reading of an operator's Prometheus and NMX-Manager says, as the
scenario the rack is in, built through the same importers a pasted file goes through.

Pure: dashboard/infra/live.py asks Prometheus and NMX-Manager (bounded timeouts, the
operator's URLs only) and hands the answers here. The DCGM side (the scrape the Prometheus
answers make: model/telemetry/importers/prometheus.py) and NMX-Manager's answers are each
imported (model/telemetry/importers/__init__.py: import_text); the scenario is their union
(a part either names failed is failed; a link the DCGM side finds degrading is flaky), on
the DCGM side's fabric. Then the trend: each flaky link's (or, with the default per-GPU sums
only, each erring GPU's) recovery rate now and a window before, read by the forecast's drain
rule (model/telemetry/forecast.py: from_rates); and what to do, in the repair policy's order,
with what waiting costs an hour (model/reliability/todo.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from model.query import parse_query
from model.reliability.todo import cost_per_h, what_to_do
from model.scenario import Scenario, to_query
from model.telemetry.forecast import from_rates
from model.telemetry.importers import Imported, import_samples, import_text
from model.telemetry.importers.prometheus import Series
from model.telemetry.importers.promtext import Sample


@dataclass(frozen=True)
class LiveScenario:
    """One live reading, read: the scenario and everything the page and the API say of it."""

    query: str  # the canonical query string, fabric included
    confidence: str
    components: dict[str, str]  # each named part -> what it was read from
    messages: tuple[str, ...]
    erring_gpus: tuple[dict, ...] = ()
    partition: dict = field(default_factory=dict)  # NMX-Manager's partition health, if read
    drain: tuple[dict, ...] = ()  # the drain advice from the counters' trend
    todo: tuple[dict, ...] = ()  # what to do, in the policy's order
    cost: dict = field(default_factory=dict)  # what the faults together cost an hour

    def to_json(self) -> dict:
        return {
            "query": self.query,
            "confidence": self.confidence,
            "components": self.components,
            "messages": list(self.messages),
            "erring_gpus": list(self.erring_gpus),
            "partition": self.partition,
            "drain": list(self.drain),
            "what_to_do": list(self.todo),
            "cost_per_h": self.cost,
        }


def merge(dcgm: Imported | None, nmx: Imported | None, messages: list[str]) -> Scenario:
    """One scenario from the two sources' imports: the union of their failed parts, the
    DCGM side's flaky links (those not failed), on the DCGM side's fabric (NMX-Manager's
    when DCGM gave nothing)."""
    scen = [parse_query(x.scenario).scenario for x in (dcgm, nmx) if x is not None]
    base = scen[0]
    fail = list(base.fail)
    for other in scen[1:]:
        if other.fabric != base.fabric:
            messages.append(
                f"NMX-Manager describes {other.fabric}, the DCGM counters {base.fabric}: "
                "the DCGM side's fabric is kept and NMX-Manager's parts are not merged"
            )
            continue
        fail += [x for x in other.fail if x not in fail]
    flaky = tuple(x for x in base.flaky if x not in fail)
    return parse_query(
        to_query(replace(base, fail=tuple(fail), flaky=flaky), include_fabric=True)
    ).scenario


def _rate_of(rates: Mapping[str, list[Series]], name: str, key: str, value: str) -> float:
    """The rate() answer named `name` of the series whose label `key` is `value` (0: none)."""
    for s in rates.get(name, []):
        if s.labels.get(key) == value and s.points:
            return s.points[-1][1]
    return 0.0


def drain_advice(
    s: Scenario, erring: tuple[dict, ...], rates: Mapping[str, list[Series]], window_s: float
) -> tuple[dict, ...]:
    """The drain rule on each flaky link's measured trend (per-link counters), and on each
    erring GPU's (per-GPU sums only: the GPU is named, its link is not)."""
    out = []
    for link in s.flaky:
        now = _rate_of(rates, "rate_link_recovery", "link", link)
        before = _rate_of(rates, "rate_link_recovery_before", "link", link)
        replay = _rate_of(rates, "rate_link_replay", "link", link)
        row = from_rates(link, now, before, window_s, replay)
        if row["action"] == "fine":  # attributed degrading, no errors in the window yet
            row["action"] = "watch"
            row["why"] = (
                "attributed degrading (its recovery counter or BER, an ACTIVE link); no "
                "recoveries or replays in the last window yet"
            )
        out.append(row)
    for g in erring:
        uuid = g.get("uuid") or ""
        now = _rate_of(rates, "rate_gpu_recovery", "UUID", uuid)
        before = _rate_of(rates, "rate_gpu_recovery_before", "UUID", uuid)
        replay = _rate_of(rates, "rate_gpu_replay", "UUID", uuid)
        row = from_rates(g["gpu"], now, before, window_s, replay)
        row["why"] += " (the GPU's links summed: which link, a per-link field would say)"
        out.append(row)
    return tuple(out)


def build(
    dcgm_text: str | Sequence[Sample] | None,
    nmx_text: str | None,
    rates: Mapping[str, list[Series]],
    window_s: float,
    fabric: str | None = None,
    hosts: Mapping[str, int] | None = None,
) -> LiveScenario:
    """The live scenario of one reading: the DCGM side's scrape (from the Prometheus answers:
    their samples, importers/prometheus.py scrape_samples, or the text of them), NMX-Manager's answers (or None), the rate() answers by query name and their
    window. Raises ImportRefused when a source's text cannot be read at all."""
    if dcgm_text is None and nmx_text is None:
        raise ValueError("a live reading needs the DCGM counters or NMX-Manager's answers")
    dcgm = None
    if isinstance(dcgm_text, str):
        dcgm = import_text(dcgm_text, fabric, hosts)
    elif dcgm_text is not None:
        dcgm = import_samples(list(dcgm_text), None, fabric, hosts)
    nmx = import_text(nmx_text) if nmx_text is not None else None
    messages: list[str] = []
    s = merge(dcgm, nmx, messages)
    components: dict[str, str] = {}
    for imp, who in ((nmx, "NMX-Manager"), (dcgm, "DCGM via Prometheus")):
        if imp is not None:
            components |= {k: f"{who}: {v}" for k, v in imp.components.items()}
            messages += [f"{who}: {m}" for m in imp.messages]
    erring = dcgm.erring_gpus if dcgm is not None else ()
    drain = drain_advice(s, erring, rates, window_s)
    advice = {d["link"]: d for d in drain}
    confidence = "; ".join(
        f"{who}: {imp.confidence}"
        for imp, who in ((dcgm, "DCGM"), (nmx, "NMX-Manager"))
        if imp is not None
    )
    return LiveScenario(
        to_query(s, include_fabric=True),
        confidence,
        components,
        tuple(messages),
        tuple(erring),
        nmx.partition if nmx is not None else {},
        drain,
        tuple(todo := what_to_do(s, advice)),
        cost_per_h(s, todo=todo),
    )
