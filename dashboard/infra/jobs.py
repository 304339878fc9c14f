"""The background callback managers the app's long callbacks run on (built by
dashboard/infra/background.py), where the app keeps its manager, and the Celery app behind one:
infrastructure that the fleet study (dashboard/panels/fleet.py) and the chunk runner
(dashboard/infra/tasks.py) both read, so neither imports the other's module."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import diskcache
from dash import CeleryManager, DiskcacheManager
from dash.background_callback.managers import BaseBackgroundCallbackManager

log = logging.getLogger(__name__)

BACKGROUND_EXTENSION = "fabric_twin_background"  # app.server.extensions[...]: the manager


class OwnRunKey:
    """A background callback manager mixin: every run gets a result key of its own.

    Dash keys a job's result, progress and set_props by a hash of the callback's inputs, so
    two identical studies started at once (two tabs, two users: n_clicks 1, the same racks
    and years) shared one key: each poll of progress took the report from the other (it is
    deleted when read), the first poll to find a result took it from the other tab and
    terminated its own poller's job, and a Cancel could leave the other tab without a table.
    A random tail makes each run's key its own (the renderer polls with the signed key it
    was given, so nothing recomputes it). Results are not shared between runs anyway: this
    app sets no cache_by, so Dash deletes a result once it is read."""

    def build_cache_key(self, fn, args, cache_args_to_ignore, triggered) -> str:
        """Dash's key for these inputs, and a random tail of this run's."""
        key = super().build_cache_key(fn, args, cache_args_to_ignore, triggered)  # type: ignore[misc]
        return f"{key}-{secrets.token_hex(8)}"


class ResultNotLost:
    """A background callback manager mixin: a job that ends between a poll's two reads does
    not lose its result.

    Dash's poll reads the job's result (get_result), then asks whether the job still runs
    (job_running), and when the first found nothing and the second says no, it ends the
    page's loop with no update: "the job was cancelled". A job that stores its result and
    ends between those two reads (a Redis round trip, longer when the web worker's thread is
    descheduled on a busy machine) is taken for a cancelled one: its result is never read, the
    table never arrives and the page reports a job that "ended without a result". So a miss
    is remembered (per thread: the two reads run in the poll's request thread), and a job
    that is not running but whose result has landed since counts as running for this poll:
    the next poll reads the result."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._missed = threading.local()  # .last: (job, key) of this thread's last miss

    def get_result(self, key: str, job: Any) -> Any:
        """Dash's read of the result; a miss is remembered for job_running."""
        result = super().get_result(key, job)  # type: ignore[misc]
        self._missed.last = (job, key) if result is self.UNDEFINED else None  # type: ignore[attr-defined]
        return result

    def job_running(self, job: Any) -> bool:
        """Dash's answer, or True when the job has ended since this thread's last poll found
        no result and its result is there now."""
        missed, self._missed.last = getattr(self._missed, "last", None), None
        if super().job_running(job):  # type: ignore[misc]
            return True
        if missed is not None and missed[0] == job and self.result_ready(missed[1]):  # type: ignore[attr-defined]
            return True
        # the page's loop ends here with no result (a cancel, a result already read, or a
        # job lost): which job and what its manager read, for a study that "ended"
        log.info("background job %s: not running, no result (%s)", job, self._status(job))
        return False

    def _status(self, job: Any) -> str:
        """The job's state as its manager reads it, for the log."""
        try:
            task = getattr(self, "get_task", None)
            return str(task(job).status) if task and not isinstance(job, int) else "process"
        except Exception as e:  # noqa: BLE001 - a log line must not fail the poll
            return f"unreadable: {e!r}"


def _held(method: Callable[..., Any]) -> Callable[..., Any]:
    """A diskcache method run under its cache's fork lock (ForkSafeCache)."""

    @functools.wraps(method)
    def call(self: ForkSafeCache, *args: Any, **kw: Any) -> Any:
        with self.fork_lock:
            return method(self, *args, **kw)

    return call


class ForkSafeCache(diskcache.Cache):
    """The embedded manager's diskcache, safe to fork a job process from a threaded worker.

    Dash forks each job process from the gunicorn worker that took the request, and that
    worker runs four threads (the Procfile's --threads). Forked while another of them was
    inside SQLite (reading a tab's progress, storing a result), the child inherits SQLite's
    process-wide lock held by a thread it does not have, and its first cache call blocks for
    ever: the study never reports, and its tab reads "Running" until the watchdog gives up.
    Seen with two identical studies started at once (tests/scaleout/test_same_study.py);
    py-spy showed the job blocked in Cache._con. Every call of this cache that Dash makes
    holds one lock, and the manager forks only while holding it (OwnRunDiskcacheManager.
    call_job_fn), so no thread is inside SQLite at a fork; the child starts with a new lock.
    """

    def __init__(self, *args: Any, **settings: Any) -> None:
        super().__init__(*args, **settings)
        self.fork_lock = threading.RLock()
        me = weakref.ref(self)

        def fresh_lock() -> None:  # in the child: the forking thread's hold is not its own
            cache = me()
            if cache is not None:
                cache.fork_lock = threading.RLock()

        os.register_at_fork(after_in_child=fresh_lock)

    get = _held(diskcache.Cache.get)
    set = _held(diskcache.Cache.set)
    add = _held(diskcache.Cache.add)
    delete = _held(diskcache.Cache.delete)
    touch = _held(diskcache.Cache.touch)

    @contextlib.contextmanager
    def transact(self, retry: bool = False) -> Iterator[None]:
        with self.fork_lock, super().transact(retry):
            yield


class OwnRunDiskcacheManager(ResultNotLost, OwnRunKey, DiskcacheManager):
    """Dash's DiskcacheManager (embedded mode) with a result key for every run (OwnRunKey)
    and no result lost to a poll's race (ResultNotLost), forking its job processes only while
    no thread is inside its cache (ForkSafeCache)."""

    def call_job_fn(self, key: str, job_fn: Any, args: Any, context: Any) -> Any:
        """Dash's fork of the job process, while this worker's other threads are out of
        SQLite (ForkSafeCache)."""
        lock = getattr(self.handle, "fork_lock", None)
        with lock if lock is not None else contextlib.nullcontext():
            return super().call_job_fn(key, job_fn, args, context)


class RevokingCeleryManager(ResultNotLost, OwnRunKey, CeleryManager):
    """A CeleryManager whose terminate_job also records an unfinished task as REVOKED in the
    result backend, so that Dash's poll of a job whose worker died ends (see the module
    docstring), a result key for every run (OwnRunKey) and no result lost to a poll's race
    (ResultNotLost). The revoke broadcast, all
    terminate_job did before, is kept. background.py makes the app's Celery manager one of
    these, so every background callback has it."""

    def terminate_job(self, job: str | None) -> None:
        """Revoke the task, and mark it REVOKED in the backend if it has not finished."""
        if job is None:
            return
        super().terminate_job(job)
        try:
            if self.handle.AsyncResult(job).state not in ("SUCCESS", "FAILURE", "REVOKED"):
                self.handle.backend.mark_as_revoked(job, reason="cancelled from the page")
        except Exception:  # Redis away: the revoke above still went out
            log.warning("fleet study: could not record job %s as revoked", job, exc_info=True)


def celery_app_of(manager: BaseBackgroundCallbackManager) -> object | None:
    """The Celery app behind a manager (what `celery -A app:celery_app worker` runs), or None
    for diskcache."""
    return manager.handle if isinstance(manager, RevokingCeleryManager) else None
