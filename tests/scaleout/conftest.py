"""The scale-out mode, for real: a redis-server, a Celery worker and two web processes, each
started by the Procfile's own commands with REDIS_URL set."""

from __future__ import annotations

import pytest

from harness.redis import RedisServer, celery_client, own_redis_server, start_celery_worker
from harness.servers import ARTIFACTS, start_server, stop_server

__all__ = ["RedisServer", "celery_client", "own_redis_server", "start_celery_worker"]


redis_server = pytest.fixture(scope="session", name="redis_server")(own_redis_server)


@pytest.fixture(scope="session")
def celery_worker(redis_server):
    log = ARTIFACTS / f"celery-{redis_server.port}.log"
    proc = start_celery_worker(redis_server.url, log)
    yield log
    stop_server(proc)  # the same teardown: its process group, TERM then KILL


@pytest.fixture(scope="session")
def web_pair(redis_server, celery_worker):
    """Two web processes (one worker each) sharing Redis: two machines of a PaaS."""
    env = {"REDIS_URL": redis_server.url, "WEB_CONCURRENCY": "1"}
    a = start_server(env)
    b = start_server(env)
    yield a[1], b[1]
    stop_server(a[0])
    stop_server(b[0])
