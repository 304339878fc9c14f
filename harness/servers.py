"""Start and stop what the tests and the benchmarks run against: the app as the PaaS runs it
(the Procfile's web: command), on a free port with its own cache; and where Chromium is and how
it is started (the Debian package, never a downloaded browser)."""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Ports the harness gives its servers: below Linux's ephemeral range (32768 up), so no
# connection's own port takes one, split into one band per pytest-xdist worker.
PORT_BANDS = (10_000, 30_000)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now, and that no other pytest-xdist
    worker can be given: a port is free between this bind and the server's own, so two
    workers asking at once could be handed the same one, and the second server's readiness
    check would be answered by the first's. Each worker draws from its own band."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1))
    index = int(worker.removeprefix("gw")) % count if worker.startswith("gw") else 0
    lo, hi = PORT_BANDS
    width = (hi - lo) // count
    pick = random.SystemRandom()
    while True:
        port = pick.randrange(lo + index * width, lo + (index + 1) * width)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:  # in use: another
                continue
        return port


def procfile_command(kind: str = "web") -> str:
    """The Procfile's command for one process type, exactly as written there."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        m = re.match(rf"^{kind}:\s*(.+)$", line)
        if m:
            return m.group(1)
    raise AssertionError(f"no {kind}: line in Procfile")


def log_path(base: str) -> Path:
    """The gunicorn log of the server at `base` (its stdout and stderr)."""
    return ARTIFACTS / f"gunicorn-{base.rsplit(':', 1)[1]}.log"


def start_server(
    env_extra: dict | None = None, port: int | None = None
) -> tuple[subprocess.Popen, str]:
    """The Procfile's web: command on a free port, two workers, its own cache directory."""
    port = port or free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "CACHE_DIR": tempfile.mkdtemp(prefix="fabric-twin-test-"),
        **(env_extra or {}),
    }
    env.pop("REDIS_URL", None) if "REDIS_URL" not in (env_extra or {}) else None
    # the Procfile's `gunicorn` is the one installed beside this Python (the venv's)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / f"gunicorn-{port}.log", "w")  # noqa: SIM115 (closed with the process)
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {procfile_command()}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}; see {log.name}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                if r.status == 200:
                    return proc, base
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise AssertionError("server did not answer /healthz within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server started here: its process group, TERM, then KILL after 20 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
