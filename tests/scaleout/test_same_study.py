"""Two viewers (two tabs, two users) starting the very same fleet study at the same moment each
get their own run: their own progress, their own table, and one's Cancel stops only its own.

Dash keys a background job's result and progress by a hash of the callback's inputs, so two
identical studies used to share one result key: the first poll to read the result (or a
progress report) took it from the other, a tab polling another's result terminated its own
job, and a tab could end with no table at all. The managers (fleet_watchdog.py) now give every
run a key of its own. Run on Celery (a real redis-server, the Procfile's worker, two web
processes: one tab on each) and embedded (diskcache, one web process).
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from harness.router import study_body
from harness.servers import start_server, stop_server

pytestmark = pytest.mark.scaleout

RACKS, YEARS = 2000, 10  # ten chunks of ~0.5 s: the two runs overlap for seconds
TABLE = "vr-nvl72, all seven features"


@pytest.fixture(scope="module")
def embedded():
    proc, base = start_server()
    yield base, base
    stop_server(proc)


@pytest.fixture(params=["celery", "embedded"])
def two_bases(request) -> tuple[str, str]:
    """Where the two tabs send their requests: two web processes on Celery, one embedded."""
    if request.param == "celery":
        return request.getfixturevalue("web_pair")
    return request.getfixturevalue("embedded")


class Tab:
    """One page's side of a study, as the renderer does it: start it, poll it (progress and
    result) until the loop ends, and Cancel it."""

    def __init__(self, base: str) -> None:
        from app import app

        self.client = httpx.Client(base_url=base, timeout=30.0)
        self.body = json.dumps(study_body(app, RACKS, YEARS))
        self.cancel_body = json.dumps(
            {
                "output": "fleet-cancel.id",
                "outputs": {"id": "fleet-cancel", "property": "id"},
                "inputs": [{"id": "fleet-cancel", "property": "n_clicks", "value": 1}],
                "state": [],
                "changedPropIds": ["fleet-cancel.n_clicks"],
            }
        )
        self.handle: dict = {}
        self.started: tuple[float, float] = (0.0, 0.0)  # when Run was pressed and answered
        self.tokens: set[str] = set()  # the heartbeat tokens this tab's polls showed
        self.result: str | None = None  # the result's JSON, if one came
        self.polls: list[tuple[float, int, str]] = []  # (time, status, progress shown)
        self.ended = threading.Event()

    def post(self, body: str, params: dict | None = None) -> httpx.Response:
        return self.client.post(
            "/_dash-update-component",
            content=body,
            headers={"Content-Type": "application/json"},
            params=params,
        )

    def start(self) -> None:
        t0 = time.monotonic()
        r = self.post(self.body)
        assert r.status_code == 200, r.text
        self.handle = r.json()
        self.started = (t0, time.monotonic())

    def story(self) -> str:
        """What this tab saw, for a failure's message: Run's request, first and last polls."""
        t0, t1 = self.started
        seen = [(round(t - t0, 2), code, shown) for t, code, shown in self.polls]
        return f"Run answered in {t1 - t0:.2f} s; {len(seen)} polls: {seen[:2]} ... {seen[-2:]}"

    def poll(self, timeout_s: float = 120.0) -> None:
        params = {"cacheKey": self.handle["cacheKey"], "job": self.handle["job"]}
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            time.sleep(0.3)
            r = self.post(self.body, params)
            shown = r.json().get("progress", {}) if r.status_code == 200 else {}
            self.polls.append((time.monotonic(), r.status_code, str(shown)[:80]))
            if r.status_code == 204:
                break  # the loop ends without an update: the job is not running, no result
            assert r.status_code == 200, r.text
            got = r.json()
            beat = got.get("progress", {}).get("fleet-beat.data")
            if beat:
                self.tokens.add(beat.split(":")[0])
            if "response" in got:
                self.result = json.dumps(got["response"])
                break
        self.ended.set()

    def cancel(self) -> None:
        r = self.post(self.cancel_body, {"cancelJob": self.handle["job"]})
        assert r.status_code in (200, 204), r.text


def start_both(a: Tab, b: Tab) -> None:
    """Both tabs press Run at the same moment."""
    go = threading.Barrier(2)

    def start(t: Tab) -> None:
        go.wait()
        t.start()

    threads = [threading.Thread(target=start, args=(t,)) for t in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert a.handle and b.handle


def test_identical_studies_at_once_each_get_their_own_run(two_bases):
    a, b = Tab(two_bases[0]), Tab(two_bases[1])
    start_both(a, b)
    polls = [threading.Thread(target=t.poll) for t in (a, b)]
    for t in polls:
        t.start()
    for t in polls:
        t.join(timeout=180)
    why = f"tab A: {a.story()}; tab B: {b.story()}"
    assert a.result and TABLE in a.result, f"tab A got no table. {why}"
    assert b.result and TABLE in b.result, f"tab B got no table. {why}"
    assert a.result == b.result  # seeded: the same inputs give the same table
    # each tab saw its own job's heartbeat only, never the other's. A job that runs past the
    # broker's visibility timeout (background.VISIBILITY_S, 12 s: a loaded machine) is handed
    # out again while it runs and the second delivery joins the same study with a beat of its
    # own, so one tab may see two tokens of its own job; never one of the other tab's.
    assert a.tokens and b.tokens and not (a.tokens & b.tokens), (a.tokens, b.tokens)


def test_one_tabs_cancel_stops_only_its_own_identical_study(two_bases):
    a, b = Tab(two_bases[0]), Tab(two_bases[1])
    start_both(a, b)
    polls = [threading.Thread(target=t.poll) for t in (a, b)]
    for t in polls:
        t.start()
    deadline = time.monotonic() + 60
    while not a.tokens and time.monotonic() < deadline:
        time.sleep(0.05)
    assert a.tokens, "tab A's study never reported progress"
    a.cancel()
    assert a.ended.wait(30), "tab A's poll did not end after its Cancel"
    for t in polls:
        t.join(timeout=180)
    assert a.result is None  # cancelled: no table
    assert b.result and TABLE in b.result, f"tab B's study did not finish: {b.story()}"
    # B's own beats only (a redelivery of its long job may add one of its own: see above)
    assert b.tokens and not (a.tokens & b.tokens), (a.tokens, b.tokens)
