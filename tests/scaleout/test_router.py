"""Scale-out behind a router, as on a PaaS: nginx in front of four web processes (the
Procfile's gunicorn), two Celery workers and one redis-server (harness/router.py),
viewers changing the scenario every 2 s while a web process and then the worker coordinating
a fleet study are SIGKILLed and started again. No request fails but those in flight at a
kill (nginx passes those on, so none should), and every study finishes. Short (15 s, 40
viewers); the 60-s, 200-viewer run is bench/run.py's `router`.
"""

from __future__ import annotations

import time
import urllib.request

import pytest

from dashboard.panels import fleet
from harness.router import Stack, run_load

pytestmark = pytest.mark.scaleout


@pytest.fixture(scope="module")
def stack():
    s = Stack(webs=4, workers=2)
    yield s
    s.stop()


def kill_plan(stack: Stack, kills: list[float], hit: list[int]) -> list[tuple[float, object]]:
    """A web process killed at 3 s and started again at 5 s; at 7 s the worker coordinating a
    study killed (its study must resume on the other), started again at 10 s."""

    def kill_worker() -> None:
        found = [w for w in map(stack.worker_of, stack.coordinators()) if w is not None]
        i = found[0] if found else 0
        hit.append(len(found))
        kills.append(stack.kill_worker(i))
        time.sleep(3.0)
        stack.start_worker(i)

    return [
        (3.0, lambda: kills.append(stack.kill_web(1))),
        (5.0, lambda: stack.start_web(1)),
        (7.0, kill_worker),
    ]


def test_viewers_and_studies_through_nginx_survive_a_web_and_a_worker_killed(stack):
    kills: list[float] = []
    hit: list[int] = []
    load = run_load(
        stack.router.base,
        viewers=40,
        seconds=15.0,
        studies=[(0.5, 10_000, 10), (1.0, 10_000, 8)],
        events=kill_plan(stack, kills, hit),
    )
    lat = load.latencies()
    print(
        f"{len(load.requests)} requests, p95 {load.quantile(0.95) * 1e3:.0f} ms, p99 "
        f"{load.quantile(0.99) * 1e3:.0f} ms; failed {len(load.failed())} (beyond those in "
        f"flight at a kill: {len(load.failed_beyond(kills))}); studies "
        f"{[(round(e - s, 1) if e else None, err, round(g, 1)) for s, e, err, g, _ in load.studies]}"
    )
    assert len(kills) == 2
    assert hit == [1] or (hit and hit[0] >= 1)  # the worker killed was coordinating a study
    assert len(lat) >= 40 * 7  # every viewer's first change at least (7 callbacks each)
    for k in kills:  # and served after each kill, not just before the first
        assert any(t > k + 1.0 and e is None for t, _, _, e in load.requests)
    assert load.failed_beyond(kills) == []
    assert len(load.studies) == 2
    assert all(end is not None and err is None for _, end, err, _, _ in load.studies), load.studies
    # and the page's watchdog would not have given up on either (fleet_watchdog.py's bounds)
    assert all(g < fleet.STALL_S and f < fleet.PICKUP_S for *_, g, f in load.studies)
    # both killed processes serve again
    with urllib.request.urlopen(f"http://127.0.0.1:{stack.ports[1]}/healthz", timeout=10) as r:
        assert r.status == 200
    assert all(p is not None and p.poll() is None for p in stack.worker_procs)
