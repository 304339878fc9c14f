"""Heavy studies split over Celery workers: model/reliability/chunks.py's chunks, each a Celery
task, put back together in index order. Embedded mode (no REDIS_URL) runs the same chunks in
one process, one after the other.

How a study runs on Celery (run_chunks with a Celery app; the coordinator is whoever calls
it: the fleet study's background job on a worker, a bench, a test):

- The coordinator names the study (a random id), marks it alive in Redis (a key it refreshes
  every second, gone ALIVE_S after the coordinator stops) and sends one task a chunk, as a
  Celery group, task ids "<study>-<index>".
- A worker's task computes its chunk unless the chunk's answer is already stored, or the
  study is no longer alive (cancelled, or its coordinator died: the chunk is dropped, not
  computed for nobody). While it computes it holds the chunk's claim, a key it refreshes
  every second (gone CLAIM_S after its process dies), and it stores the answer under the
  chunk's index with SET NX: the first answer stays, any later one is the same bytes. So a
  chunk computed twice is counted once, and the study is put together from exactly one
  answer per index: no rack lost or counted twice, whatever ran it.
- A worker that dies mid-chunk: the task is acks_late and reject_on_worker_lost, so a killed
  pool process puts its message back on the queue at once and another process takes it. A
  whole worker killed (its main process too) leaves the message unacknowledged until the
  broker's visibility timeout; for that the coordinator watches the claims: a chunk that was
  started, whose claim expired and that has no answer, is sent again as a new task.
- The coordinator polls the answers, reports progress (chunks done of all), and, when it is
  itself a Celery task (`help=True`: it holds a pool process), computes unclaimed chunks
  itself while it waits, so a study never waits on the slot its own coordinator holds (one
  worker process is enough) and that slot does work too.
- A coordinator that dies: the fleet study's job is a Celery task like any other, handed out
  again to another worker (background.py: reject_on_worker_lost, a short visibility
  timeout). Its study is named by the job's task id, so the new delivery finds the chunks
  answered so far and computes only the rest; a delivery of a job still running (the broker
  hands out a long job again) joins the same study and helps it.
- Cancel: the fleet study's Cancel terminates its coordinator (Dash's terminate_job) and
  marks its job REVOKED; the study stops being alive, and every chunk not started yet is
  dropped. Celery's revoke terminates one running delivery of a task id, so a job handed out
  again while it ran (two coordinators of one study) would go on in the other: every
  coordinator asks `cancelled` (the job's state) as it waits, and stops.
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Self

from flask import current_app, has_app_context

from dashboard.infra.jobs import BACKGROUND_EXTENSION, celery_app_of
from model.registry import kind_of
from model.reliability import chunks, goodput
from model.reliability.chunks import run_chunk

log = logging.getLogger(__name__)

CHUNK_TASK = "fabric_twin.chunk"
ALIVE_S = 10  # a study is dropped this long after its coordinator stopped refreshing it
CLAIM_S = 6  # a chunk's claim outlives its claimer's process by at most this
REFRESH_S = 1.0  # alive and claim keys are refreshed this often
RESULT_S = 3600  # a chunk's answer is kept this long (a retried chunk finds it)
POLL_S = 0.1
REQUEST_S = 50.0  # a web request's chunks are answered within this (gunicorn's timeout: 60 s)

Progress = Callable[[int, int], None]


class StudyCancelled(Exception):
    """run_chunks' study was cancelled while it waited (its `cancelled` said so)."""


def _key(study: str, what: str, index: int | None = None) -> str:
    tail = "" if index is None else f":{index}"
    return f"fabric-twin:study:{study}:{what}{tail}"


class _Refresh:
    """Keeps keys alive from a thread while a block runs: each key set to `value` with a TTL
    of `ttl` every REFRESH_S, deleted at the end (a dead process's keys expire instead)."""

    def __init__(self, r: Any, keys: list[str], value: str, ttl: float) -> None:
        self._r, self._keys, self._value, self._ttl = r, keys, value, ttl
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chunk-refresh", daemon=True)

    def _set(self) -> None:
        for k in self._keys:
            self._r.set(k, self._value, px=int(self._ttl * 1000))

    def _run(self) -> None:
        while not self._stop.wait(REFRESH_S):
            try:
                self._set()
            except Exception:  # a Redis blip: the TTL covers a missed refresh or two
                log.warning("study: a refresh of %s failed", self._keys, exc_info=True)

    def __enter__(self) -> Self:
        self._set()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            self._r.delete(*self._keys)
        except Exception:
            log.warning("study: could not delete %s", self._keys, exc_info=True)


def _whoami() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def compute_claimed(r: Any, study: str, index: int, spec: dict) -> str:
    """Compute chunk `index` under its claim and store its answer (the first one stays):
    what a worker's task and a helping coordinator both do. Returns what happened."""
    claim = _key(study, "claim", index)
    me = _whoami()
    if not r.set(claim, me, nx=True, px=CLAIM_S * 1000):
        return "claimed"  # someone is computing it now; if they die, the claim expires
    r.set(_key(study, "started", index), me, ex=RESULT_S)
    try:
        with _Refresh(r, [claim], me, CLAIM_S):
            answer = run_chunk(spec)
            r.set(_key(study, "result", index), answer, nx=True, ex=RESULT_S)
    finally:
        r.delete(claim)
    return "computed"


def register(capp: Any) -> None:
    """Register the chunk task on Celery app `capp` (the web processes send it, the Procfile's
    worker runs it)."""

    @capp.task(
        name=CHUNK_TASK,
        acks_late=True,  # acknowledged when done: a dead worker's chunk is not lost
        reject_on_worker_lost=True,  # a killed pool process requeues it for another
        ignore_result=True,  # the answer is stored under its index, not as a task result
    )
    def chunk(study: str, index: int, spec: dict) -> str:
        r = capp.backend.client
        if r.exists(_key(study, "result", index)):
            return "had"  # a retry of a chunk already answered
        if not r.exists(_key(study, "alive")):
            return "dropped"  # cancelled, or its coordinator is gone
        return compute_claimed(r, study, index, spec)


def run_in_process(specs: list[dict], progress: Progress | None = None) -> list[str]:
    """Every chunk's answer, computed here one after the other (embedded mode)."""
    out = []
    for i, spec in enumerate(specs):
        out.append(run_chunk(spec))
        if progress:
            progress(i + 1, len(specs))
    return out


def _free_resending_lost(
    capp: Any,
    study: str,
    specs: list[dict],
    missing: list[int],
    sent: dict[int, str],
    resends: Iterator[int],
) -> list[int]:
    """The unanswered chunks nobody claims now; each of them that was started and whose
    claimer is gone without an answer (its worker died) is sent again, as a new task id
    recorded in `sent` (the old message, if it ever comes back, finds the answer)."""
    r = capp.backend.client
    # started before claims: a worker sets its claim, then started, and deletes its claim
    # only after storing its answer. Read the other way round, a chunk claimed and started
    # between the two reads looked claimless and started, as if its worker had died, and
    # was sent again for nothing.
    started = r.mget([_key(study, "started", i) for i in missing])
    claims = r.mget([_key(study, "claim", i) for i in missing])
    for i, c, s in zip(missing, claims, started, strict=True):
        if c is None and s is not None and r.get(_key(study, "result", i)) is None:
            r.delete(_key(study, "started", i))
            sent[i] = f"{study}-{i}-r{next(resends)}"
            capp.signature(CHUNK_TASK, args=(study, i, specs[i])).set(task_id=sent[i]).apply_async()
            log.warning("study %s: chunk %d lost its worker; sent again", study, i)
    return [i for i, c in zip(missing, claims, strict=True) if c is None]


def run_chunks(
    specs: list[dict],
    capp: Any | None,
    progress: Progress | None = None,
    *,
    help: bool = True,
    timeout_s: float = 3600.0,
    study: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[str]:
    """Every chunk's answer, in index order: on Celery app `capp`'s workers, or here when
    capp is None. help: compute unclaimed chunks here too while waiting (a coordinator that
    is itself a Celery task must, see the module docstring). study: its name (default a new
    one); a coordinator run again under the same name (its job handed out again after its
    worker died) resumes it: the answers stored are kept, only the rest are computed.
    cancelled: asked every REFRESH_S while waiting; when it says yes the study stops
    (StudyCancelled) and its chunks not started are dropped. Cancel terminates one delivery
    of a job, and a job the broker handed out again while it ran has two: this is how the
    other one learns of it."""
    if capp is None:
        return run_in_process(specs, progress)
    # celery: loaded only where Celery runs the jobs (REDIS_URL), heavy and optional
    from celery import group

    r = capp.backend.client
    study = study or secrets.token_hex(8)
    n = len(specs)
    keys = [_key(study, "result", i) for i in range(n)]
    answers: list[str | None] = [None] * n
    sent = {i: f"{study}-{i}" for i in range(n)}
    resends = itertools.count(1)
    with _Refresh(r, [_key(study, "alive")], _whoami(), ALIVE_S):
        group(
            capp.signature(CHUNK_TASK, args=(study, i, spec)).set(task_id=sent[i])
            for i, spec in enumerate(specs)
        ).apply_async()
        deadline = time.monotonic() + timeout_s
        next_check = time.monotonic()
        shown = -1
        try:
            while True:
                missing = [i for i in range(n) if answers[i] is None]
                if missing:
                    for i, v in zip(missing, r.mget([keys[i] for i in missing]), strict=True):
                        if v is not None:
                            answers[i] = v.decode() if isinstance(v, bytes) else v
                    missing = [i for i in missing if answers[i] is None]
                done = n - len(missing)
                if progress and done != shown:
                    progress(done, n)
                    shown = done
                if not missing:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"study {study}: {len(missing)} of {n} chunks unanswered")
                if cancelled is not None and time.monotonic() >= next_check:
                    if cancelled():
                        raise StudyCancelled(study)
                    next_check = time.monotonic() + REFRESH_S
                free = _free_resending_lost(capp, study, specs, missing, sent, resends)
                if help and free:
                    # the last free chunk: the workers take the queue from its front
                    compute_claimed(r, study, free[-1], specs[free[-1]])
                else:
                    time.sleep(POLL_S)
        finally:
            unanswered = [sent[i] for i in range(n) if answers[i] is None]
            if unanswered:  # cancelled or failed: drop what has not started
                try:
                    capp.control.revoke(unanswered)
                except Exception:
                    log.warning("study %s: could not revoke its chunks", study, exc_info=True)
    return [a for a in answers if a is not None]


def best_policy(s: Any, rates: Any, **kw: Any) -> dict:
    """goodput.best_policy(s, rates, **kw), its candidates split over this app's Celery
    workers when it has them (one chunk a candidate; the request's own thread computes
    every chunk no worker has taken, so a request never waits behind queued studies), in
    one process otherwise: the same answer either way (tests/scaleout/test_chunks.py)."""
    capp = _celery_of_current_app()
    if capp is None or not kind_of(s).reliability.policy_in_chunks:
        return goodput.best_policy(s, rates, **kw)
    plan = chunks.policy_plan(s, rates, **kw)
    return chunks.policy_combine(run_chunks(plan, capp, help=True, timeout_s=REQUEST_S))


def _celery_of_current_app() -> Any | None:
    """The Celery app behind the current Flask app's background manager, or None (embedded,
    or outside a request)."""
    if not has_app_context():
        return None
    manager = current_app.extensions.get(BACKGROUND_EXTENSION)
    return celery_app_of(manager) if manager is not None else None
