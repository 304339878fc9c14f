"""The golden set (tests/golden/record.py): every endpoint answers as recorded before the
one-assessment refactor, except where two endpoints disagreed; those answers changed, and
only at the JSON paths listed in CHANGED, each with the reason."""

from __future__ import annotations

import json
import re

import pytest

from tests.golden.record import answers, client, load

# JSON path patterns (dotted; [] for list items) allowed to differ from the recording.
CHANGED: dict[str, str] = {}


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


def _allowed(path: str) -> bool:
    return any(re.fullmatch(p, path) for p in CHANGED)


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
        bad = [
            p for p in _diff(json.loads(rec["body"]), json.loads(got["body"])) if not _allowed(p)
        ]
        problems += [f"{url}: {p}" for p in bad[:5]]
    assert not problems, "\n".join(problems[:40])
