"""The golden set (tests/golden/record.py): every endpoint answers as recorded.

Recorded before the one-assessment refactor (issue 11) to show it changed nothing but the
answers where two endpoints disagreed, then recorded anew when issues 12-15 changed answers
wholesale (the calibrated decode frontier, failure rates by what fails, repair policies,
telemetry as DCGM names it; see git log for that commit). CHANGED and LATER list paths where a
later change may differ from the recording, each with its reason, LATER limited to the URLs
it concerns; both are empty just after a recording. When a later issue changes answers
wholesale again, re-record (`python -m tests.golden.record write`) and say so in that commit.
Numbers compare to REL of their size (numpy's float64 exp and log differ by CPU in the last
bits), everything else exactly; /metrics is recorded as record.metrics_summary.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.golden.record import answers, client, load

# Paths a change may alter, endpoint and JSON path pattern (dotted, [] for list items) -> why.
CHANGED: dict[tuple[str, str], str] = {}


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
    if isinstance(a, bool) or isinstance(b, bool):  # JSON true is not 1 (in Python it is)
        return [] if a is b else [path]
    return [] if a == b or _near(a, b) else [path]


# numpy dispatches float64 exp and log by CPU (AVX2 or AVX-512 code), and the two differ in
# the last bits: between an AVX-512 machine (the recording) and an AVX2 one, 6,077 numbers
# in 33 of the 303 answers differed, by at most 9.1e-13 of their size, nothing else. An
# answer is as recorded when its numbers agree to this share of their size (~100x that
# drift, far below any change of the model's) and everything else is equal.
REL = 1e-10


def _near(a, b) -> bool:
    """Two JSON numbers equal but for the last bits of float arithmetic (REL)."""
    numbers = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b))
    return numbers and abs(a - b) <= REL * max(abs(a), abs(b))


# Changes made on purpose after issue 11, each only on the URLs that contain a marker:
# (endpoint, JSON path pattern, a string the URL contains) -> why.
LATER: dict[tuple[str, str, str], str] = {}


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


def test_the_comparison_sees_a_change_but_not_the_last_bits() -> None:
    """REL forgives float drift only: a move of 1e-8, a string or a type is a difference, in
    the JSON answers and in a /metrics scrape's summary alike."""
    from tests.golden.record import metrics_summary

    x = 0.0013279601316197008
    assert _diff({"a": [x]}, {"a": [0.0013279601316197002]}) == []  # the AVX2/AVX-512 pair
    assert _diff({"a": [x]}, {"a": [x * (1 + 1e-8)]}) == ["a[]"]
    assert _diff({"a": "1"}, {"a": 1}) == ["a"]
    assert _diff({"a": True}, {"a": 1}) == ["a"]
    scrape = '# TYPE nvlink_ber gauge\nnvlink_ber{link="a"} 3e-18\nnvlink_ber{link="b"} 1.5\n'
    same = json.loads(metrics_summary(scrape.replace("1.5", "1.5000000000000002")))
    assert _diff(json.loads(metrics_summary(scrape)), same) == []
    moved = json.loads(metrics_summary(scrape.replace("1.5", "1.50001")))
    assert _diff(json.loads(metrics_summary(scrape)), moved) == ["sums.nvlink_ber.size"]
    renamed = json.loads(metrics_summary(scrape.replace('link="b"', 'link="c"')))
    assert _diff(json.loads(metrics_summary(scrape)), renamed) == ["shape"]
