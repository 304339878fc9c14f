"""Scale-out: a Celery worker that dies mid-study is reported on the page within a bound, the
job is really cancelled, and the page keeps working (dashboard/panels/fleet.py's watchdog).

Its own redis-server, Celery worker (the Procfile's command) and web process (the Procfile's,
two gunicorn workers), so that killing the worker does not touch the session's, and no other
worker on the same broker can take the job. What each kill does (Celery 5.7, prefork,
task_acks_late, as app.py configures it):

- SIGKILL to the worker's process group (or to its main process alone: billiard's pool
  processes die with it): nothing is recorded. The task stays PENDING in the result backend,
  its message unacknowledged in Redis; Dash would poll it forever. Only the job's heartbeat
  stopping tells: the watchdog reports it STALL_S after the last beat and cancels the job,
  which records it REVOKED.
- SIGKILL to the pool process running the job: the worker puts the job back on the queue
  at once (task_reject_on_worker_lost, background.py) and its new pool process takes it; the
  study is named by the job's id, so the job resumes its chunks (dashboard/infra/tasks.py) and
  the page gets the table, with no error. (With no worker left to take it, the whole-worker
  case above: the page's watchdog reports it.)

To kill the job mid-run and not after it finished (a whole study of 10,000 racks x 2 years
takes ~10 s at 10,000 racks x 10 years), the test freezes the processes with SIGSTOP as soon as the page shows progress,
checks that no result came, then kills them. The time to the stall error counts from the
freeze (when the job fell silent); the time to the ended-run error from the kill.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time

import psutil
import pytest
import redis
from celery import Celery
from playwright.sync_api import expect

from dashboard.panels import fleet
from harness.redis import own_redis_server, start_celery_worker
from harness.servers import ARTIFACTS, start_server, stop_server
from tests.e2e.test_fleet_watchdog import ERROR, RUNNING, run_big_study

pytestmark = pytest.mark.scaleout

# the page shows the error at most this long after the job's process died (fleet.py's
# docstring): the last beat reaches the page within a beat period and a poll, the watchdog
# sees it within a tick, then STALL_S of silence, then up to a tick; plus 1 s of latency.
BOUND_S = fleet.STALL_S + fleet.BEAT_S + 1.0 + 2 * fleet.WATCH_MS / 1000 + 1.0


own_redis = pytest.fixture(scope="module", name="own_redis")(own_redis_server)
JOB_DONE = re.compile(r"Task background_callback_\w+\[[^\]]+\] succeeded")


@pytest.fixture(scope="module")
def own_web(own_redis):
    proc, base = start_server({"REDIS_URL": own_redis.url})
    yield base
    stop_server(proc)


@pytest.fixture
def own_worker(own_redis, request):
    """A Celery worker of its own (the Procfile's command), in its own process group."""
    log = ARTIFACTS / f"celery-{own_redis.port}-{request.node.name}.log"
    # the queue as a new deployment finds it: the last test's killed job and its chunks gone
    r = redis.Redis.from_url(own_redis.url)
    for k in ["celery", "unacked", "unacked_index", "unacked_mutex"]:
        r.delete(k)
    for k in r.scan_iter("fabric-twin:study:*"):
        r.delete(k)
    proc = start_celery_worker(own_redis.url, log)
    yield proc, log
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=20)


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    yield ctx.new_page()
    ctx.close()


def clear_task_states(url: str) -> None:
    r = redis.Redis.from_url(url)
    for k in r.keys("celery-task-meta-*"):
        r.delete(k)


def task_states(url: str) -> list[str]:
    """The state of every task in the result backend (a task never recorded is absent)."""
    r = redis.Redis.from_url(url)
    return [json.loads(r.get(k))["status"] for k in r.keys("celery-task-meta-*")]


def freeze(pids: list[int]) -> float:
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    return time.monotonic()


def test_worker_killed_mid_study_is_reported_and_cancelled(own_web, own_redis, own_worker, page):
    proc, log = own_worker
    clear_task_states(own_redis.url)
    run_big_study(page, own_web)
    silent = freeze([p.pid for p in psutil.Process(proc.pid).children()] + [proc.pid])
    # frozen mid-study, not after it: the running note, no table
    expect(page.locator("#fleet-result")).to_have_text(RUNNING)
    assert not JOB_DONE.search(log.read_text())  # its chunks may have, the study not
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert task_states(own_redis.url) == []  # nothing recorded: Dash alone would poll forever

    expect(page.locator(ERROR)).to_contain_text(
        "the background worker stopped responding (no progress for 30 s); the study was "
        "cancelled: run it again",
        timeout=(BOUND_S + 10) * 1000,
    )
    took = time.monotonic() - silent
    print(f"worker killed -> error on the page: {took:.1f} s (bound {BOUND_S:.0f} s)")
    assert took <= BOUND_S
    assert took >= fleet.STALL_S - fleet.BEAT_S  # it waited for the stall, not guessed
    expect(page.locator("#fleet-run")).to_be_enabled(timeout=5000)
    expect(page.locator("#fleet-cancel")).to_be_disabled()
    expect(page.locator("#fleet-progress-text")).to_have_text("stopped")
    # cancelled for real, through Dash's cancel: the task is REVOKED (a revoke broadcast
    # alone would have left it PENDING, and Dash polling it)
    deadline = time.monotonic() + 5
    while task_states(own_redis.url) != ["REVOKED"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert task_states(own_redis.url) == ["REVOKED"]
    # the rest of the page works
    expect(page.locator("#cards .card").first).to_be_visible()
    page.goto(own_web + "/?fail=st3")
    expect(page.locator("#cards .card:first-child .card-value")).to_have_text(
        "3.2 TB/s", timeout=30000
    )
    assert "Traceback" not in (ARTIFACTS / f"gunicorn-{own_web.rsplit(':', 1)[1]}.log").read_text()


def test_pool_process_killed_mid_study_resumes_it(own_web, own_redis, own_worker, page):
    """The pool process running the study's job killed: the job goes back on the queue
    (reject_on_worker_lost), the worker's new pool process takes it and resumes the same
    study (its chunks are keyed by the job's id), and the page gets the table, no error."""
    proc, log = own_worker
    clear_task_states(own_redis.url)
    run_big_study(page, own_web)
    pool = [p.pid for p in psutil.Process(proc.pid).children()]
    frozen = freeze(pool)  # the pool processes only: the main process answers inspect
    expect(page.locator("#fleet-result")).to_have_text(RUNNING)
    app = Celery(broker=own_redis.url, backend=own_redis.url)
    active = app.control.inspect(timeout=5).active() or {}
    # the study's own job (its chunks, on the other pool process, are tasks too)
    (job,) = [
        t
        for tasks in active.values()
        for t in tasks
        if t["name"].startswith("background_callback_")
    ]
    os.kill(job["worker_pid"], signal.SIGKILL)
    killed = time.monotonic()
    print(f"(frozen {killed - frozen:.1f} s before the kill, while inspect found the job)")
    for pid in pool:
        if pid != job["worker_pid"]:
            os.kill(pid, signal.SIGCONT)

    expect(page.locator("#fleet-result")).to_contain_text(
        "vr-nvl72, all seven features", timeout=120000
    )
    print(f"pool process killed -> study resumed and finished in {time.monotonic() - killed:.1f} s")
    assert "WorkerLostError" in log.read_text()
    # the one job ran to its end (a second delivery of it, handed out again while it ran
    # past the broker's visibility timeout, joins the same study and ends with it)
    assert len(set(JOB_DONE.findall(log.read_text()))) == 1
    expect(page.locator("#fleet-progress-text")).to_have_text("done")
    expect(page.locator(ERROR)).to_have_count(0)
    expect(page.locator("#fleet-run")).to_be_enabled()
