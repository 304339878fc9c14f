"""A real redis-server a test or a benchmark can stop and start again, the Procfile's Celery
worker against it, and the Celery app a web process builds for it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import redis

from harness.servers import ARTIFACTS, free_port, procfile_command


class RedisServer:
    """A redis-server on loopback that a test can stop and start again on the same port."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise AssertionError("redis-server is not installed (scripts/system-packages.sh)")
        self.exe = exe
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=open(ARTIFACTS / f"redis-{self.port}.log", "a"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        )
        client = redis.Redis.from_url(self.url, socket_timeout=0.5)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not answer PING")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def own_redis_server():
    """A redis-server of its own for the fixture that yields from this generator."""
    ARTIFACTS.mkdir(exist_ok=True)
    r = RedisServer()
    r.start()
    yield r
    r.stop()


def start_celery_worker(redis_url: str, log: Path, **env_extra: str) -> subprocess.Popen:
    """The Procfile's worker: command against `redis_url`, in its own process group, once it
    says it is ready (env_extra: e.g. WORKER_CONCURRENCY)."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "CACHE_DIR": tempfile.mkdtemp(prefix="fabric-twin-worker-"),
        "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
        # its INFO lines ("ready.", each task's end) are what the tests read, whatever the
        # caller's LOG_LEVEL (bench/run.py defaults it to WARNING)
        "LOG_LEVEL": "INFO",
        **env_extra,
    }
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {procfile_command('worker')}"],
        env=env,
        cwd=ARTIFACTS.parent,
        stdout=open(log, "w"),  # noqa: SIM115 (closed with the process)
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text():
        if proc.poll() is None and time.monotonic() > deadline:
            os.kill(proc.pid, signal.SIGUSR1)  # Celery logs every thread's stack: why stuck
            time.sleep(1.0)
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"celery worker not ready; see {log}")
        time.sleep(0.1)
    return proc


def celery_client(redis_url: str):
    """The Celery app a web process builds for `redis_url` (background.py's), to send studies
    from the test process as a web process would."""
    from config import settings
    from dashboard.infra.background import background_manager, celery_app_of

    return celery_app_of(background_manager(replace(settings(), redis_url=redis_url)))
