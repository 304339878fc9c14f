"""The embedded manager forks its job processes from a threaded web worker: a fork made while
another thread is inside SQLite must not leave the job blocked on the lock it inherited."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time

import psutil

from dashboard.infra.jobs import ForkSafeCache, OwnRunDiskcacheManager

FORKS = 40
DEADLINE_S = 20.0


def _forks_while_another_thread_uses_the_cache(cache, manager) -> list[int]:
    """Fork FORKS jobs (each stores one key) while a second thread reads and writes the cache
    without pause, as another tab's polls do; the jobs that never stored theirs."""
    stop = threading.Event()

    def busy() -> None:
        i = 0
        while not stop.is_set():
            cache.set(f"progress-{i % 8}", i)
            cache.get(f"progress-{(i + 3) % 8}")
            i += 1

    def job(key, progress_key, args, context) -> None:
        cache.set(key, "done")

    t = threading.Thread(target=busy, daemon=True)
    t.start()
    pids = []
    try:
        for n in range(FORKS):
            pids.append(manager.call_job_fn(f"job-{n}", job, (), None))
    finally:
        stop.set()
        t.join()
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end and _unfinished(cache):
        time.sleep(0.05)
    for pid in pids:  # a blocked job is not left behind
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()
    return _unfinished(cache)


def _unfinished(cache) -> list[int]:
    return [n for n in range(FORKS) if cache.get(f"job-{n}") != "done"]


def test_jobs_forked_mid_sqlite_all_finish(tmp_path):
    cache = ForkSafeCache(str(tmp_path / "background"))
    manager = OwnRunDiskcacheManager(cache)
    blocked = _forks_while_another_thread_uses_the_cache(cache, manager)
    assert blocked == [], f"{len(blocked)} of {FORKS} jobs blocked"


def test_the_child_starts_with_a_lock_of_its_own(tmp_path):
    """A job process's own threads (the study's heartbeat) can use the cache: the fork's
    hold on the lock stays in the parent."""
    cache = ForkSafeCache(str(tmp_path / "background"))
    manager = OwnRunDiskcacheManager(cache)

    def job(key, progress_key, args, context) -> None:
        beat = threading.Thread(target=lambda: cache.set("beat", 1))
        beat.start()
        beat.join(5)
        cache.set(key, "done" if not beat.is_alive() else "blocked")

    pid = manager.call_job_fn("job", job, (), None)
    psutil.Process(pid).wait(timeout=DEADLINE_S)
    assert cache.get("job") == "done" and cache.get("beat") == 1


def _dead_pid() -> int:
    """The id of a process that has ended (reaped): a job process that finished."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _poll(manager, key, job) -> tuple[object, bool]:
    """What Dash's poll reads, in its order (dash._callback: get_result, then job_running)."""
    got = manager.get_result(key, job)
    return got, manager.job_running(job)


def test_a_job_that_ends_between_a_polls_two_reads_keeps_its_result(tmp_path):
    """The job stores its result and ends after the poll's get_result and before its
    job_running: Dash alone takes that for a cancelled job (not running, no result) and ends
    the page's loop; ResultNotLost keeps the loop going, and the next poll reads it."""
    from dash import DiskcacheManager

    job = str(_dead_pid())
    for manager, keeps in (
        (OwnRunDiskcacheManager(ForkSafeCache(str(tmp_path / "own"))), True),
        (DiskcacheManager(ForkSafeCache(str(tmp_path / "dash"))), False),
    ):
        assert manager.get_result("run-1", job) is manager.UNDEFINED
        manager.handle.set("run-1", '"the table"')  # the job's last act, then it exits
        assert manager.job_running(job) is keeps
        if keeps:
            assert manager.get_result("run-1", job) == '"the table"'


def test_a_cancelled_job_still_ends_the_loop(tmp_path):
    """Not running and no result: the loop ends, as Dash ends it."""
    manager = OwnRunDiskcacheManager(ForkSafeCache(str(tmp_path / "background")))
    job = str(_dead_pid())
    assert _poll(manager, "run-2", job) == (manager.UNDEFINED, False)
    # a miss remembered for one job says nothing of another's
    manager.get_result("run-3", job)
    manager.handle.set("run-3", "1")
    assert manager.job_running(str(_dead_pid())) is False


def test_the_celery_manager_keeps_a_result_that_lands_between_the_reads():
    from celery import Celery

    from dashboard.infra.jobs import RevokingCeleryManager

    capp = Celery("t", broker="memory://", backend="cache+memory://")
    manager = RevokingCeleryManager(capp)
    job = "job-finished-between-reads"
    assert manager.get_result("run-4", job) is manager.UNDEFINED
    capp.backend.set("run-4", '"the table"')
    capp.backend.mark_as_done(job, None)  # SUCCESS: Dash's job_running says no
    assert manager.job_running(job) is True
    assert manager.get_result("run-4", job) == "the table"
    capp.backend.mark_as_revoked("cancelled-job")  # cancelled before it stored anything
    assert _poll(manager, "run-5", "cancelled-job") == (manager.UNDEFINED, False)
