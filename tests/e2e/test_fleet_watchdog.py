"""The fleet study's watchdog in the embedded mode (diskcache): a job process that dies or stops
responding is reported on the page, cancelled for real, and the page keeps working.

On diskcache every job is a process forked from the gunicorn worker that started it. Killed,
it leaves Dash a job that is not running and has no result: Dash ends its poll without an
update, and the watchdog reports the run that ended without a result within a few ticks.
Frozen (SIGSTOP: alive but silent, as a worker that stopped answering), its heartbeat stops:
the watchdog reports it after STALL_S and cancels it through Dash's cancel, which kills it.

A whole study of 10,000 racks x 10 years takes ~10 s, and the test freezes the job as soon as
the page shows progress, checks that no result came, and only then kills it (or not).
"""

from __future__ import annotations

import os
import re
import signal
import time

import psutil
import pytest
from playwright.sync_api import expect

from dashboard.panels import fleet
from harness.page import below

pytestmark = pytest.mark.e2e

# fleet.py's bounds (its docstring): a stalled job is reported within 40 s of falling silent,
# a run that ended without a result within three ticks (plus latency)
STALL_BOUND_S = 40.0
ENDED_BOUND_S = 3 * fleet.WATCH_MS / 1000 + 3.0
ERROR = "#fleet-result .msg.error"
RUNNING = "Running: the table appears when the study finishes."  # what a run shows until done


def _cmdline(p: psutil.Process) -> str:
    """A process's command line; '' for one that has exited (a zombie not yet reaped, or
    gone): it serves nothing."""
    try:
        return " ".join(p.cmdline())
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return ""


def job_process(base: str, since: float) -> psutil.Process:
    """The study's job process: a child of one of the gunicorn workers serving `base`."""
    port = base.rsplit(":", 1)[1]
    (master,) = [p for p in psutil.Process().children() if f"0.0.0.0:{port}" in _cmdline(p)]
    jobs = [
        j
        for w in master.children()
        for j in w.children()
        if j.status() != psutil.STATUS_ZOMBIE and j.create_time() >= since - 1
    ]
    assert len(jobs) == 1, jobs
    return jobs[0]


def run_big_study(page, base: str) -> float:
    """Open the page, start the largest study and return (the wall-clock time of the click)
    once the page shows its progress: the job runs and its heartbeat reaches the page."""
    page.goto(base + "/")
    expect(page.locator("#cards .card").first).to_be_visible(timeout=30000)
    below(page)  # the study's panel mounts once a reader comes near it (panels/lazy.py)
    page.fill("#fleet-racks", "10000")
    page.fill("#fleet-years", "10")  # 100,000 rack-years a row: ~10 s in all
    clicked = time.time()
    page.click("#fleet-run")
    job_beats(page)
    return clicked


def job_beats(page) -> None:
    """Wait for the job's own progress ("<row>…"), not the watchdog's "starting…" that Run
    puts up at once: only then has the job process been forked (and before its first beat a
    frozen job waits PICKUP_S, not STALL_S, to be judged)."""
    expect(page.locator("#fleet-progress-text")).to_have_text(
        re.compile(r"^(?!starting).+…$"), timeout=20000
    )


def start_big_study(page, base: str) -> psutil.Process:
    """run_big_study, then freeze its job process."""
    job = job_process(base, run_big_study(page, base))
    job.suspend()  # SIGSTOP: frozen mid-study, silent from now on
    # no result came: only the note a new run puts in place of the old table
    expect(page.locator("#fleet-result")).to_have_text(RUNNING)
    return job


def gone(p: psutil.Process) -> bool:
    try:
        return p.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_killed_job_process_is_reported(served, page):
    job = start_big_study(page, served)
    killed = time.monotonic()
    os.kill(job.pid, signal.SIGKILL)
    expect(page.locator(ERROR)).to_contain_text(
        "the background job ended without a result", timeout=(ENDED_BOUND_S + 10) * 1000
    )
    took = time.monotonic() - killed
    print(f"job process killed -> error on the page: {took:.1f} s (bound {ENDED_BOUND_S:.0f} s)")
    assert took <= ENDED_BOUND_S
    expect(page.locator("#fleet-run")).to_be_enabled()
    expect(page.locator("#fleet-cancel")).to_be_disabled()
    # Run works again, and the next study's result replaces the error
    page.fill("#fleet-racks", "20")
    page.fill("#fleet-years", "1")
    page.click("#fleet-run")
    expect(page.locator("#fleet-result")).to_contain_text(
        "vr-nvl72, all seven features", timeout=30000
    )
    expect(page.locator(ERROR)).to_have_count(0)
    assert page.log.errors == []


def test_stalled_job_is_cancelled_and_reported(served, page):
    job = start_big_study(page, served)
    silent = time.monotonic()
    try:
        stalled_then_cancelled(page, served, job, silent)
    finally:
        if not gone(job):
            job.kill()


def stalled_then_cancelled(page, served: str, job: psutil.Process, silent: float) -> None:
    expect(page.locator(ERROR)).to_contain_text(
        "the background worker stopped responding (no progress for 30 s); the study was "
        "cancelled: run it again",
        timeout=(STALL_BOUND_S + 10) * 1000,
    )
    took = time.monotonic() - silent
    print(f"job frozen -> error on the page: {took:.1f} s (bound {STALL_BOUND_S:.0f} s)")
    assert fleet.STALL_S - fleet.BEAT_S <= took <= STALL_BOUND_S
    # cancelled for real: Dash's cancel had the diskcache manager kill the frozen process
    deadline = time.monotonic() + 5
    while not gone(job) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert gone(job)
    expect(page.locator("#fleet-run")).to_be_enabled(timeout=5000)
    expect(page.locator("#fleet-cancel")).to_be_disabled()
    page.goto(served + "/?fail=st3")
    expect(page.locator("#cards .card:first-child .card-value")).to_have_text(
        "3.2 TB/s", timeout=30000
    )
    assert page.log.errors == []
