"""The embedded manager forks its job processes from a threaded web worker: a fork made while
another thread is inside SQLite must not leave the job blocked on the lock it inherited."""

from __future__ import annotations

import contextlib
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
