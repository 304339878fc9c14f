"""The background callback manager an app's long callbacks (the fleet study) run on, built
from the settings the app is given.

Without REDIS_URL: diskcache in the settings' cache directory, on this machine (the gunicorn
workers of one machine share it). With REDIS_URL: Celery on that Redis, so any machine's
worker (the Procfile's `worker:` line, `celery -A app:celery_app worker`) runs the jobs, and
the heavy studies' chunks (dashboard/infra/tasks.py: the chunk task is registered on the app
here) are split over every worker.
"""

from __future__ import annotations

import os

from dash.background_callback.managers import BaseBackgroundCallbackManager

from config import Settings
from dashboard.infra import tasks
from dashboard.infra.jobs import (
    BACKGROUND_EXTENSION,
    ForkSafeCache,
    OwnRunDiskcacheManager,
    RevokingCeleryManager,
    celery_app_of,
)

__all__ = ["BACKGROUND_EXTENSION", "background_manager", "celery_app_of"]

JOB_EXPIRE_S = 3600  # a finished job's result is kept this long
# A job whose whole worker died is handed out again this long after it was taken (plus a
# sweep every RESTORE_S): well inside the fleet study watchdog's 30 s of silence (STALL_S),
# so the study resumes on another worker before the page gives up on it. A job that runs
# longer is handed out again too, while it runs: the second delivery joins the same study.
VISIBILITY_S = 12
RESTORE_S = 2
# kombu's Redis transport hands unacknowledged messages out again under one lock in Redis
# (`unacked_mutex`), held for the scan's few milliseconds but kept 300 s by default when its
# holder dies: a worker SIGKILLed inside that scan stopped every redelivery for five minutes,
# and a study whose coordinator was killed never resumed (seen in tests/scaleout/
# test_router.py on a loaded machine). A dead holder's lock now costs at most this; two
# scans at once cannot hand one message out twice (each takes it in a WATCHed transaction).
UNACKED_MUTEX_S = 5


def background_manager(s: Settings) -> BaseBackgroundCallbackManager:
    """A new manager for these settings: Celery on s.redis_url if set, else diskcache.

    The Celery app, for a worker process, is the manager's `handle` (celery_app_of(manager)).
    """
    if s.redis_url:
        # celery: loaded only where Celery runs the jobs (REDIS_URL), heavy and optional
        from celery import Celery

        capp = Celery("app", broker=s.redis_url, backend=s.redis_url)
        capp.conf.update(
            broker_connection_retry_on_startup=True,
            result_expires=JOB_EXPIRE_S,
            task_acks_late=True,  # a worker that dies mid-job does not lose it silently
            # ... and its job goes back on the queue for another process: at once when its
            # pool process is killed, within VISIBILITY_S + RESTORE_S when the whole worker
            # is (the broker hands an unacknowledged message out again). A job delivered
            # twice is safe: a study's chunks are keyed by its job's id and answered once
            # (dashboard/infra/tasks.py), so a second delivery resumes it or helps it.
            task_reject_on_worker_lost=True,
            broker_transport_options={
                "visibility_timeout": VISIBILITY_S,
                "unacked_restore_interval": RESTORE_S,
                "unacked_restore_throttle": 1,
                "unacked_mutex_expire": UNACKED_MUTEX_S,
            },
            worker_prefetch_multiplier=1,  # a chunk goes to an idle process, not a busy one
        )
        tasks.register(capp)
        return RevokingCeleryManager(capp, expire=JOB_EXPIRE_S)
    cache = ForkSafeCache(os.path.join(s.cache_dir, "background"))
    return OwnRunDiskcacheManager(cache, expire=JOB_EXPIRE_S)
