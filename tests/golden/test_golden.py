"""The golden set (tests/golden/record.py): every endpoint answers as recorded before the
one-assessment refactor, except where two endpoints disagreed; those answers changed, and
only at the JSON paths listed in CHANGED, each with the reason. Changes made on purpose by
later issues are listed in LATER, limited to the URLs they concern; when a later issue
changes answers wholesale (a recalibration), re-record instead (`python -m
tests.golden.record write`) and say so in that commit."""

from __future__ import annotations

import json
import re

import pytest

from tests.golden.record import answers, client, load

# Where two endpoints disagreed before (issue 11), and the one answer kept: (endpoint, JSON
# path pattern; dotted, [] for list items) -> why. Nothing else may differ.
_DEGRADED = (
    "the degraded rate is the scenario's delivered fraction (decode at the reference "
    "interactivity, or the training step), not goodput's own kappa rule"
)
_TOKENS = "tokens/s are the fabric's own healthy decode rate, not 7,583 for every fabric"
_NEW = "added: the typed value (restart kind, event kind) or the one number both report"
_INTERVAL = "the timeline uses the scenario's checkpoint interval (Daly's), as goodput does"
_CP = "after-controller restarts when the controller is back (0.25 h), not after the cartridge"
_MEANWHILE = "what the rack does until the repair follows the job (parked: the rest runs)"
CHANGED: dict[tuple[str, str], str] = {
    ("/api/v1/evaluate", r"bandwidth\.all_to_all_(tbs|note)"): (
        "the all-to-all runs on the GPUs in service (full-bandwidth mode parks a GPU short "
        "of a link): 71 x 1.8, not 72 x 1.7, on gb200 with one link down"
    ),
    ("/api/v1/evaluate", r"(bandwidth\.all_to_all_gpus|gpus_in_service|delivered_fraction)"): _NEW,
    ("/api/v1/evaluate", r"job\.restart_kind"): _NEW,
    (
        "/api/v1/evaluate",
        (
            r"domain|not_modelled_yet|sharp_healthy_tflops|packet_rate|partition|"
            r"job|repairs|control_plane|features|decode|goodput|training|telemetry|events"
        ),
    ): (
        "one result type for every domain size: each key present, None where a domain does "
        "not model it, and not_modelled_yet says what (empty on one rack)"
    ),
    ("/api/v1/evaluate", r"goodput\.(fraction|badput.*\.degraded)"): _DEGRADED,
    ("/api/v1/evaluate", r"goodput\.tokens_delivered_per_rack_year"): _DEGRADED,
    ("/api/v1/evaluate", r"repairs\[\]\.until_then"): _MEANWHILE,
    (
        "/api/v1/goodput",
        (
            r"(closed_form\.|monte_carlo\.|comparison\[\]\.)?(fraction|badput.*"
            r"\.degraded|kinds\[\]\.degraded_h_per_event|change_vs_vr_all|per_rack_fraction\..*)"
        ),
    ): (_DEGRADED),
    (
        "/api/v1/goodput",
        r"(closed_form\.|monte_carlo\.|comparison\[\]\.)?tokens_(per_s|delivered)",
    ): (_TOKENS),
    ("/api/v1/goodput", r"rates\[\]"): "kappa and tokens_per_gpu_s are no longer rates: see above",
    ("/api/v1/timeline", r"checkpoint_interval_s|lost_work_s|series\[\]\.goodput"): _INTERVAL,
    ("/api/v1/timeline", r"before|degraded|series\[\]\.delivered"): (
        "the delivered fraction unrounded, the number evaluate's delivered_fraction reports"
    ),
    ("/api/v1/timeline", r"events\[\]\.kind|job\.restart_kind"): _NEW,
    ("/api/v1/timeline", r"events\[\]\.event"): _INTERVAL + " (the lost work it names)",
    ("/api/v1/timeline", r"events\[\]|series\[\]"): _CP,
    ("/api/v1/timeline", r"repair\.until_then"): _MEANWHILE,
}


def _diff(a, b, path: str = "") -> list[str]:
    """The dotted paths where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            p = f"{path}.{k}" if path else k
            out += _diff(a.get(k), b.get(k), p) if k in a and k in b else [p]
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [path + "[]"]
        return [d for x, y in zip(a, b, strict=True) for d in _diff(x, y, path + "[]")]
    return [] if a == b else [path]


# Changes made on purpose after issue 11, each only on the URLs that contain a marker:
# (endpoint, JSON path pattern, a string the URL contains) -> why.
LATER: dict[tuple[str, str, str], str] = {
    ("/api/v1/evaluate", r"control_plane\..*|events\[\]", "fail=st3.mc&off=cp-resilience"): (
        "issue 14 item 6: without control-plane resilience a lost tray controller takes its "
        "tray's control plane (FACTS.md §3): state trays-lost, st3 out of routing_authority"
    ),
    ("/api/v1/evaluate", r"goodput\..*", "off=cp-resilience"): (
        "issue 14 item 6: goodput counts faults landing on a tray without its controller"
    ),
    ("/api/v1/goodput", r".*", "off=cp-resilience"): "issue 14 item 6, as above",
    ("/api/v1/evaluate", r"latency_us\..*", "fail=st2,st3,st4,st5,st6,st7,st8,st9"): (
        "issue 12 item 7: a port offered more than its links carry is an unstable queue, said "
        "so, not capped at 98% utilisation (p99 was 37.9 us with 8 of 9 gb200 trays down)"
    ),
    (
        "/api/v1/goodput",
        r".*(fraction|badput.*|tokens_delivered|change_vs_vr_all|job_racks|down_h_per_event)",
        "",
    ): (
        "issue 14 item 4: the closed form nets overlapping down times exactly (the job is up "
        "a share exp(-a) of the time), so it holds at a job over 2,000 racks; a part in 10^4 "
        "on one rack"
    ),
    ("/api/v1/evaluate", r"goodput\.(fraction|badput.*|tokens_delivered_per_rack_year)", ""): (
        "issue 14 item 4, as above"
    ),
    ("/api/v1/goodput", r"monte_carlo\..*", ""): (
        "issue 14 item 7: the Monte Carlo samples 2,000 rack-years by default (was one draw) "
        "and gives its 95% interval; totals still scale to racks="
    ),
    ("/api/v1/goodput", r"comparison\[\]\..*", "compare=1"): (
        "issue 14 item 6: the cp-resilience-off row of the comparison, as above"
    ),
}


def _allowed(url: str, path: str) -> bool:
    endpoint = url.split("?")[0]
    if any(e == endpoint and re.fullmatch(p, path) for e, p in CHANGED):
        return True
    return any(e == endpoint and mark in url and re.fullmatch(p, path) for e, p, mark in LATER)


@pytest.fixture(scope="module")
def now() -> dict[str, dict]:
    return answers(client())


def test_every_answer_is_as_recorded_or_a_listed_change(now) -> None:
    before = load()
    assert set(now) == set(before)
    problems = []
    for url, rec in before.items():
        got = now[url]
        assert got["status"] == rec["status"], url
        if got["body"] == rec["body"]:
            continue
        if url.startswith("/metrics"):
            problems.append(f"{url}: text differs")
            continue
        diffs = _diff(json.loads(rec["body"]), json.loads(got["body"]))
        bad = [p for p in diffs if not _allowed(url, p)]
        problems += [f"{url}: {p}" for p in bad[:5]]
    assert not problems, "\n".join(problems[:40])


def test_the_changes_are_where_two_answers_disagreed(now) -> None:
    """Whole lists may change only on the scenario whose story was wrong (the cp case)."""
    before = load()
    for url in before:
        if not url.startswith("/api/v1/timeline") or now[url]["body"] == before[url]["body"]:
            continue
        diffs = _diff(json.loads(before[url]["body"]), json.loads(now[url]["body"]))
        if "events[]" in diffs or "series[]" in diffs:
            assert "off=cp-resilience" in url and "st1.mc" in url, url
