"""The live banner's words and what the page follows (dashboard/panels/live.py), on live
answers as dashboard/infra/live.py writes them."""

from __future__ import annotations

import json
import time

import pytest

from config import Live
from dashboard.infra import live as infra
from dashboard.panels import live
from model.query import parse_query
from model.reliability.todo import cost_per_h, what_to_do
from model.telemetry.live import LiveScenario

Q = "fabric=gb200-nvl72&flaky=gpu07-st3.sw1&on=telemetry"
Q2 = "fabric=gb200-nvl72&fail=gpu07-st3.sw1&on=telemetry"


class _Cache:
    """The shared cache's get/put/claim, in memory."""

    def __init__(self) -> None:
        self.data: dict = {}

    def get(self, k):
        return self.data.get(k)

    def put(self, k, v):
        self.data[k] = v

    def claim(self, k, s):
        return False  # never read: the test's record is the reading

    def release(self, k):
        pass


def _record(query: str | None, ok: bool, now: float) -> dict:

    src = {"where": "prom:9090", "ok": ok, "reason": "" if ok else "prom:9090 answered HTTP 500"}
    src["last_ok_at"] = now - 5 if query else None
    rec: dict = {"attempt_at": now, "sources": {"prometheus": src}, "changes": []}
    rec["good"] = None
    if query:
        s = parse_query(query).scenario
        todo = what_to_do(s)
        lj = LiveScenario(query, "medium", {}, (), todo=tuple(todo), cost=cost_per_h(s, todo=todo))
        rec["good"] = {"read_at": now if ok else now - 5, "live": lj.to_json()}
        rec["changes"] = [[now - 60, "fabric=gb200-nvl72&on=telemetry"], [now - 5, query]]
    return rec


@pytest.fixture
def source(monkeypatch):
    src = infra.LiveSource(Live("http://prom:9090", interval_s=30), _Cache())
    monkeypatch.setattr(infra, "source", lambda: src)

    def set_record(rec: dict) -> None:
        src.cache.put(infra.KEY, json.dumps(rec))

    return set_record


def _text(node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, list | tuple):
        return "".join(_text(x) for x in node)
    return _text(getattr(node, "children", "") or "")


def test_the_banner_says_live_with_the_source_and_its_age(source):
    source(_record(Q, True, time.time()))
    words, cls, todo = live.show(0, "?" + Q)
    text = _text(words)
    assert cls == "live-banner live-ok"
    assert text.startswith("Live: read from Prometheus at prom:9090")
    assert "s ago" in text and "The page follows the rack" in text
    assert "drain the link" in _text(todo) and "What if: click any part" in _text(todo)


def test_a_stale_banner_keeps_the_reading_and_says_why(source):
    source(_record(Q, False, time.time()))
    words, cls, _ = live.show(0, "?" + Q)
    assert cls == "live-banner live-stale"
    assert "answered HTTP 500" in _text(words) and "showing the last good reading" in _text(words)


def test_down_and_off(source, monkeypatch):
    source(_record(None, False, time.time()))
    words, cls, todo = live.show(0, "")
    assert cls == "live-banner live-down" and "no rack is shown as live" in _text(words)
    assert todo == []
    monkeypatch.setattr(infra, "source", lambda: infra.LiveSource(None, None))
    assert live.show(0, "") == ([], "live-banner", [])


def test_the_page_follows_the_live_rack_but_not_a_what_if(source):
    source(_record(Q2, True, time.time()))
    assert live.follow("", None) == Q2  # opened bare: to the live rack
    assert live.follow("?" + Q, Q) == Q2  # showing the rack it followed: to its change
    assert live.follow("?" + Q2, Q2) is None  # there already
    what_if = "?" + Q + "&fail=gpu09-st2.sw1"
    assert live.follow(what_if, Q) is None  # a what-if on top: left alone
    words, _, _ = live.show(0, what_if)
    assert "You are looking at a what-if" in _text(words)
    link = next(x for x in words if getattr(x, "href", None))
    assert link.href.lstrip("?") and "fail=gpu07-st3.sw1" in link.href


def test_a_default_scrapes_erring_gpu_is_listed_with_how_sure(source):
    """Per-GPU sums only: no link in the scenario, the GPU named on its tray, and its
    drain advice saying the link is not known."""
    rec = _record("fabric=gb200-nvl72", True, time.time())
    lj = rec["good"]["live"]
    row = {"gpu": "gpu07", "summary": "gpu07: 1,234 replays in 10 s (123/s) ...; on ct02 by"}
    row["confidence"] = "low: the GPU from its own counters, its tray from its host's place"
    lj["erring_gpus"] = [row]
    lj["drain"] = [
        {
            "link": "gpu07",
            "action": "watch",
            "why": "recoveries or replays are rising (a per-link field would say which link)",
            "time_to_failure_h": None,
            "recovery_rate_per_21_min": 0.0,
            "recovery_rate_before_per_21_min": 0.0,
            "replays_per_min": 7380.0,
        }
    ]
    source(rec)
    _, _, todo = live.show(0, "?fabric=gb200-nvl72")
    text = _text(todo)
    assert "What to do: nothing" in text  # no fault the scenario's grammar can hold
    assert "GPUs whose links err (per-GPU sums):" in text and "on ct02" in text
    assert "gpu07: watch: recoveries 0 per 21 min now" in text and "7,380 replays a minute" in text


def test_a_flaky_links_wait_is_priced_in_words_never_zero(source):
    """The live rack with a flaky link: what to do says what waiting risks an hour, from
    the model (the chance it fails first x what that costs), and the total says the risk."""
    source(_record(Q, True, time.time()))
    text = _text(live.show(0, "?" + Q)[2])
    assert "drain the link" in text and "waiting costs an expected" in text
    assert "% chance an hour that it fails before it is drained" in text
    assert "degrading links risk an expected" in text
    assert "waiting costs 0 GPU-hours" not in text and "($0 an hour at" not in text


def test_metrics_carry_the_flaky_links_risk(source):
    """/metrics' live families: the flaky link's expected cost an hour, the same number the
    page says, beside the faults' own cost (next to nothing: the link carries the job)."""
    from dashboard.exporter.live import COST_GPU_H, RISK_GPU_H, live_text

    source(_record(Q, True, time.time()))
    a = infra.source().current()
    text = live_text(a)
    risk = a["live"]["cost_per_h"]["risk_gpu_hours_per_h"]
    assert risk > 0.1
    got = {
        line.split("{")[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith((RISK_GPU_H, COST_GPU_H))
    }
    own = a["live"]["cost_per_h"]["gpu_hours_per_h"]
    assert got == {RISK_GPU_H: pytest.approx(risk), COST_GPU_H: pytest.approx(own)}
    assert own < risk / 100


def test_the_banner_says_the_reading_follows_the_scrapes(source):
    """With the rack's scrape interval read, the banner says the twin reads as each scrape
    lands; without it, at its own interval."""
    rec = _record(Q, True, time.time())
    source(rec)
    assert "read every 30 s." in _text(live.show(0, "?" + Q)[0])
    source({**rec, "scrape_s": 15.0})
    text = _text(live.show(0, "?" + Q)[0])
    assert "read as each scrape lands (Prometheus scrapes the rack every 15 s)" in text
    assert "at least every 30 s." in text
