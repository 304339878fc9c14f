"""The background callback manager an app's long callbacks (the fleet study) run on, built
from the settings the app is given.

Without REDIS_URL: diskcache in the settings' cache directory, on this machine (the gunicorn
workers of one machine share it). With REDIS_URL: Celery on that Redis, so any machine's
worker (the Procfile's `worker:` line, `celery -A app:celery_app worker`) runs the jobs.
"""

from __future__ import annotations

import os

import diskcache
from dash import DiskcacheManager
from dash.background_callback.managers import BaseBackgroundCallbackManager

from config import Settings
from dashboard.panels.fleet import RevokingCeleryManager

JOB_EXPIRE_S = 3600  # a finished job's result is kept this long


def background_manager(s: Settings) -> BaseBackgroundCallbackManager:
    """A new manager for these settings: Celery on s.redis_url if set, else diskcache.

    The Celery app, for a worker process, is the manager's `handle` (celery_app_of(manager)).
    """
    if s.redis_url:
        from celery import Celery

        capp = Celery("app", broker=s.redis_url, backend=s.redis_url)
        capp.conf.update(
            broker_connection_retry_on_startup=True,
            result_expires=JOB_EXPIRE_S,
            task_acks_late=True,  # a worker that dies mid-job does not lose it silently
            worker_prefetch_multiplier=1,
        )
        return RevokingCeleryManager(capp, expire=JOB_EXPIRE_S)
    cache = diskcache.Cache(os.path.join(s.cache_dir, "background"))
    return DiskcacheManager(cache, expire=JOB_EXPIRE_S)


def celery_app_of(manager: BaseBackgroundCallbackManager) -> object | None:
    """The Celery app behind a manager (what `celery -A app:celery_app worker` runs), or None
    for diskcache."""
    return manager.handle if isinstance(manager, RevokingCeleryManager) else None
