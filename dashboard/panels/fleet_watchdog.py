"""The fleet study's watchdog: a study whose worker dies is reported on the page within a bound.

(The study itself, its layout and callbacks are in fleet.py; its IDs in dashboard/ids.py.)

Dash's background callbacks have no time limit: the page polls the job once a second for as
long as the manager says the job is running. When the process running the job dies:

- Celery, the whole worker killed (SIGKILL to its process group, the machine lost, OOM kill of
  the main process): nothing is written anywhere. The task keeps the state it had in the result
  backend (PENDING: this app does not track STARTED), and with task_acks_late its message stays
  unacknowledged in Redis until the broker's visibility timeout (an hour) redelivers it. Dash
  keeps polling a PENDING job forever, and Dash's Cancel alone does not help either: it is a
  revoke broadcast, which a dead worker never receives, so the task stays PENDING.
- Celery, only the pool process running the job killed: since issue 17 the worker puts the
  job back on the queue (task_reject_on_worker_lost, dashboard/infra/background.py) and it
  resumes its study's chunks (dashboard/infra/tasks.py); with another worker alive, a whole
  worker's job is handed out again within the broker's visibility timeout (12 s) and resumes
  too, well inside STALL_S. What is left for the watchdog: no worker alive to take it.
- diskcache, the job process killed: Dash sees a job that is not running and has no result,
  and ends the poll without an update: the Run button comes back, the page says nothing.

So the study and the page each do their part:

1. The job beats. `Heartbeat` reports progress after each row as before, and repeats the last
   report every BEAT_S (2 s) from a thread of the job's process, tagged with a fresh token and
   a counter (the fourth progress output, the store fleet-beat). The beat says "the process
   running this job is alive", however long a row takes; it stops when that process dies.
2. The page watches. A dcc.Interval (fleet-watch, every WATCH_MS = 3 s) is enabled by the Run
   click and disabled again as soon as the run ends (result, Cancel, or the watchdog firing):
   it ticks only while a run is watched, one small request per tick. The watch callback keeps
   its state in a dcc.Store (fleet-watch-state: the run, the last beat seen, the server time
   it was first seen), so any web process can serve any tick: there is no state in the web
   process. Each tick it decides:
   - the result of this run arrived (fleet-done holds this run's n_clicks), or the user
     cancelled it (Cancel clicked since Run): stop watching;
   - Dash's poll loop ended (fleet-live, a `running` output, is False) without a result, on
     two ticks in a row (one tick of grace, as the renderer ends the loop a moment before it
     applies the result): "the background job ended without a result";
   - no new beat for STALL_S (30 s) after the last new one (PICKUP_S, 60 s, before the first
     one: the job may be queued behind others), on at least two ticks in a row: "the
     background worker stopped responding". The watchdog then cancels the job for real,
     through Dash's own cancel: it writes fleet-stop, one of the callback's cancel inputs, so
     the renderer sends the signed job handle and Dash calls the manager's terminate_job.
   Either way it writes the error into fleet-result, and enables Run (disables Cancel) itself
   as well as through Dash's `running` outputs.
3. Cancel is made to work on a dead Celery worker. The study is registered with
   `RevokingCeleryManager`, a CeleryManager whose terminate_job also records the task as
   REVOKED in the result backend when it is not finished yet (Dash's Cancel, the watchdog's,
   and a new Run replacing an old job all go through it). Dash's next poll then sees a job that
   is not running and ends the loop. The revoke is still broadcast, so a live worker drops the
   task, a job whose message comes back after its worker died finds itself REVOKED and
   does not run, and a job running twice (handed out again while it ran: Celery terminates
   one delivery of a task id) stops in the other delivery too, which asks as it waits for
   its chunks (`job_revoked`).

The bound: the page shows the error within 40 s of the death of a job's process that had
started (28 to 37 s plus request latency: the last beat, written at most BEAT_S before the
death, reaches the page within a poll (1 s) and the watchdog within a tick (3 s); then STALL_S;
then up to a tick), and within 65 s of the Run click when no worker ever started the job. A
silently ended loop (a killed pool process, a killed diskcache job) is reported within three
ticks, about 10 s. Measured (tests/scaleout/test_worker_death.py, tests/e2e/
test_fleet_watchdog.py): 32-35 s for a killed or frozen worker, 5 s for a killed process.
Why 30 s: the beat comes from its own thread, so it does not depend on how long a row takes
(a whole study of 10,000 racks x 10 years takes ~10 s here), and 30 s is fifteen beats: a
lost beat or two (a Redis blip, a CPU-starved worker, a slow request) is far from a false
alarm, yet a user waiting on a dead job is told in half a minute. 60 s before the first beat,
as a job may wait in the queue behind other studies. The "two ticks in a row" rule keeps a
browser tab that throttles its timers to one a minute (hidden for long) from raising a false
alarm on one tick that read the page before the poll's answer landed. Times are the web
servers' clocks (time.time()); across machines they differ by NTP's milliseconds.

Not covered: a job that hangs with its process alive keeps beating (Celery's task_time_limit
would end it, and the watchdog then reports the ended loop).
"""

from __future__ import annotations

import logging
import secrets
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Self

from dash import Output, ctx, html, no_update

from dashboard import ids
from dashboard.panels.common import changes

BEAT_S = 2.0  # the job repeats its last progress this often
WATCH_MS = 3000  # the page's watchdog ticks this often while a run is watched
STALL_S = 30.0  # no new beat for this long after the last one: the worker is gone
PICKUP_S = 60.0  # no beat at all this long after Run: no worker took the job

log = logging.getLogger(__name__)


class Heartbeat:
    """The job's side of the watchdog: progress reports, each also a beat, and the last report
    repeated every `period` seconds from a thread while the job's process lives.

    Each report is the three visible progress values and a beat, "<token>:<count>": the token
    is new for every job, the count grows with every report, so the page can tell a new beat
    from an old one whatever the values show."""

    def __init__(self, set_progress: Callable[[tuple], None], period: float = BEAT_S) -> None:
        self._set = set_progress
        self._period = period
        self._token = secrets.token_hex(4)
        self._count = 0
        self._shown: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fleet-heartbeat", daemon=True)

    def report(self, *shown: str) -> None:
        """Show these progress values now (and repeat them with each beat until the next)."""
        with self._lock:
            self._shown = shown
            self._send()

    def _send(self) -> None:
        self._count += 1
        self._set((*self._shown, f"{self._token}:{self._count}"))

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            try:
                with self._lock:
                    if self._shown:
                        self._send()
            except Exception:  # a lost beat is what the watchdog tolerates
                log.warning("fleet study: a heartbeat was not stored", exc_info=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        # stopped before the job returns, so no beat lands after the result
        self._stop.set()
        self._thread.join(timeout=10)


def job_revoked() -> bool:
    """On a Celery worker: whether this task has been cancelled (REVOKED in the result
    backend): before it started (a message the broker redelivered after its worker died, and
    the page's watchdog cancelled it), or while it runs in another delivery than the one
    Cancel terminated. False on diskcache."""
    if "celery" not in sys.modules:
        return False
    # celery: loaded only where Celery runs the jobs (REDIS_URL), heavy and optional
    from celery import current_task

    task_id = getattr(getattr(current_task, "request", None), "id", None) if current_task else None
    if not task_id:
        return False
    try:
        return current_task.AsyncResult(task_id).state == "REVOKED"
    except Exception:  # the backend unreadable: run it, as before
        log.warning("fleet study: could not read task %s's state", task_id, exc_info=True)
        return False


def _failure(verdict: str) -> str:
    why = {
        "stalled": "the background worker stopped responding (no progress for "
        f"{STALL_S:.0f} s); the study was cancelled",
        "unstarted": f"no background worker started the study within {PICKUP_S:.0f} s (all "
        "busy, or none running); it was cancelled",
        "ended": "the background job ended without a result (its process was killed, ran out "
        "of memory or failed; see the server's log)",
    }[verdict]
    return f"Fleet study failed: {why}: run it again."


def _tick(state: dict, cancels, beat, done, live, now: float) -> tuple[dict | None, str | None]:
    """One watchdog tick: the new watch state (None: stop watching) and the verdict (None,
    "finished", "cancelled", or a failure for _failure)."""
    if done == state["run"]:
        return None, "finished"
    if cancels != state["cancels"]:
        return None, "cancelled"  # by the user, with Cancel
    if beat is not None and beat != state["beat"]:
        state = {**state, "beat": beat, "since": now, "misses": 0}
    else:
        state = {**state, "misses": state["misses"] + 1}
    if not live:
        if state["closed"] is None:
            return {**state, "closed": now}, None
        return None, "ended"
    limit = STALL_S if state["beat"] else PICKUP_S
    if now - state["since"] > limit and state["misses"] >= 2:
        return None, "stalled" if state["beat"] else "unstarted"
    return {**state, "closed": None}, None


CANCELLED = "Cancelled: the study stopped before it finished, so there is no table."


def watch_outputs() -> dict[str, Output]:
    """The watch callback's outputs: its state, the Interval, the cancel it can send, and the
    error it writes (with the buttons it puts back)."""
    return {
        "state": Output(ids.FLEET_WATCH_STATE, "data"),
        "idle": Output(ids.FLEET_WATCH, "disabled"),
        "stop": Output(ids.FLEET_STOP, "data"),
        "result": Output(ids.FLEET_RESULT, "children", allow_duplicate=True),
        "progress": Output(ids.FLEET_PROGRESS_TEXT, "children", allow_duplicate=True),
        "run_disabled": Output(ids.FLEET_RUN, "disabled", allow_duplicate=True),
        "cancel_disabled": Output(ids.FLEET_CANCEL, "disabled", allow_duplicate=True),
    }


WATCH_OUTPUTS = tuple(watch_outputs())


def watch(
    run_clicks: int | None,
    ticks: int | None,
    cancels: int | None,
    beat: str | None,
    done: int | None,
    live: bool | None,
    state: dict | None,
) -> dict[str, Any]:
    """Arm on Run, and on each tick judge the run (see the module docstring).

    Cancel's clicks are a State, not an Input: the renderer sends a running job's handle with
    every request of a callback that has one of the job's cancel inputs as an Input."""
    if ctx.triggered_id == ids.FLEET_RUN:
        armed = {
            "run": run_clicks,
            "cancels": cancels,
            "beat": None,
            "since": time.time(),
            "misses": 0,
            "closed": None,
        }
        # the old table went at the click, in the browser (fleet.SAY_AT_THE_CLICK): written here,
        # a slow answer to this arm could land after a quick study's own table and hide it
        return changes(WATCH_OUTPUTS, state=armed, idle=False)
    if not state or state.get("run") != run_clicks:
        return changes(WATCH_OUTPUTS, state=None, idle=True)
    state, verdict = _tick(state, cancels, beat, done, live, time.time())
    if verdict is None:
        return changes(WATCH_OUTPUTS, state=state, idle=False)
    if verdict == "finished":
        # the study's own last progress ("done") can be lost: Dash stops polling a background
        # callback's progress once its result is in, so the page could keep "50 of 50 chunks"
        return changes(WATCH_OUTPUTS, state=None, idle=True, progress="done")
    if verdict == "cancelled":
        return changes(
            WATCH_OUTPUTS,
            state=None,
            idle=True,
            result=html.Div(CANCELLED, className="msg notice"),
            progress="cancelled",
        )
    log.warning("fleet study run %s: %s", run_clicks, verdict)
    return changes(
        WATCH_OUTPUTS,
        state=None,
        idle=True,
        stop=time.time() if verdict != "ended" else no_update,
        result=html.Div(_failure(verdict), className="msg error"),
        progress="stopped",
        run_disabled=False,
        cancel_disabled=True,
    )
