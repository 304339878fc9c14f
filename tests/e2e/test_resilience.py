"""Its own faults: a gunicorn worker killed under load costs at most the requests in flight."""

import os
import re
import signal
import threading
import time
import urllib.request

import pytest

from harness.servers import log_path, start_server, stop_server

pytestmark = pytest.mark.e2e
CLIENTS = 8


def test_worker_killed_under_load_costs_only_requests_in_flight():
    proc, base = start_server()
    ok: list[int] = []
    failed: list[str] = []
    stop = threading.Event()

    def client(k: int) -> None:
        i = 0
        while not stop.is_set():
            url = f"{base}/api/v1/evaluate?fail=gpu{(k * 9 + i) % 72:02d}-st{1 + i % 9}.sw{i % 4}"
            try:
                with urllib.request.urlopen(url, timeout=30) as r:
                    r.read()
                    ok.append(r.status)
            except Exception as e:  # noqa: BLE001 - every failure is counted
                failed.append(type(e).__name__)
            i += 1

    try:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        pids = set(re.findall(r"pid=<?(\d+)", log_path(base).read_text()))
        victim = int(min(pids, key=int))
        os.kill(victim, signal.SIGKILL)
        time.sleep(4.0)  # the master starts a new worker; the load goes on
        stop.set()
        for t in threads:
            t.join(timeout=30)
        after = log_path(base).read_text().split(f"Worker (pid:{victim}) was sent SIGKILL")[-1]
    finally:
        stop_server(proc)
    assert len(ok) > 50
    # at most one request per client was on the killed worker when it died
    assert len(failed) <= CLIENTS, failed
    new = set(re.findall(r"Booting worker with pid: (\d+)", after))
    served_after = set(re.findall(r"pid=<?(\d+)", after))
    assert new and new & served_after, "the master replaced the worker and it served"
