"""What the live-mode tests run: the stand-in rack (dashboard/standin.py) in a thread of this
process or in a process of its own (`standin_process`, as an operator runs it), a real
Prometheus (Debian's package, as tests/monitoring uses) scraping it, and a Gate a test puts
between the twin and that Prometheus to make it slow, answer 500 or garbage, or stop.

Every wait is on a condition with a bounded deadline (`until`), never a bare sleep."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from werkzeug.serving import WSGIRequestHandler, make_server

from dashboard.standin import Rack, schedule
from harness.servers import ARTIFACTS, ROOT, free_port


def end_process(proc: subprocess.Popen) -> None:
    """Stop a process started here (Prometheus, a stand-in): TERM, then KILL after 20 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def until(check: Callable[[], Any], deadline_s: float, what: str, poll_s: float = 0.1) -> Any:
    """check()'s first truthy answer within deadline_s (polled), else AssertionError naming
    what was awaited and the last answer."""
    end = time.monotonic() + deadline_s
    last: Any = None
    while time.monotonic() < end:
        try:
            last = check()
        except OSError as e:  # a server not up yet
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(poll_s)
    raise AssertionError(f"not within {deadline_s:g} s: {what}; last: {str(last)[:600]}")


def get_json(url: str, timeout_s: float = 10.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:
        return json.loads(r.read())


def post_json(url: str, body: dict) -> Any:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kw: Any) -> None:
        pass  # a line a request, hundreds a second: the tests read answers, not logs


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """A WSGI app on a free loopback port in a thread: its base URL, until the block ends."""
    srv = make_server("127.0.0.1", free_port(), app, threaded=True, request_handler=_Quiet)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()


@dataclass
class Prometheus:
    """A running Prometheus: its URL and process."""

    url: str
    proc: subprocess.Popen
    log: Path

    def query(self, q: str) -> list[dict]:
        got = get_json(f"{self.url}/api/v1/query?query={urllib.parse.quote(q)}")
        return got["data"]["result"]

    def stop(self) -> None:
        end_process(self.proc)


@contextmanager
def prometheus(
    targets: dict[str, str], work: Path, interval_s: int = 1, rules: Path | None = None
) -> Iterator[Prometheus]:
    """A real Prometheus scraping each job's target (host:port) every interval_s (with the
    alert rules file `rules`, evaluated as often), until the block ends; started once every
    target has been scraped twice."""
    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed: run scripts/system-packages.sh"
    every = f"{interval_s}s"
    config: dict = {
        "global": {"scrape_interval": every, "evaluation_interval": every, "scrape_timeout": every},
        "scrape_configs": [
            {"job_name": job, "static_configs": [{"targets": [t]}]} for job, t in targets.items()
        ],
    }
    if rules is not None:
        config["rule_files"] = [str(rules)]
    work.mkdir(parents=True, exist_ok=True)
    (work / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = work / "prometheus.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={work / 'prometheus.yml'}",
                f"--storage.tsdb.path={work / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    p = Prometheus(f"http://127.0.0.1:{port}", proc, log)
    try:
        q = "count by (job) (count_over_time(up[1m]) >= 2)"

        def scraped() -> bool:
            assert proc.poll() is None, f"prometheus exited: {log.read_text()[-2000:]}"
            return {r["metric"]["job"] for r in p.query(q)} == set(targets)

        until(scraped, 60.0, "every target scraped twice", 0.25)
        yield p
    finally:
        p.stop()


class Gate:
    """A front a test puts between the twin and a real server (its Prometheus), to make it
    misbehave on cue: "ok" forwards each GET as it is; "slow" holds each answer slow_s (until
    the mode changes, at most slow_s) and then forwards it; "500" answers HTTP 500; "garbage"
    answers a success whose series has a value that is no number; "down" closes its port,
    as a stopped server's is (set "ok" to open it again, on the same port)."""

    GARBAGE = (
        b'{"status":"success","data":{"resultType":"vector","result":[{"metric":'
        b'{"__name__":"DCGM_FI_DEV_NVLINK_GET_STATE","gpu":"0","nvlink":"0"},'
        b'"value":[1,"banana"]}]}}'
    )

    def __init__(self, upstream: str, slow_s: float = 30.0) -> None:
        self.upstream, self.slow_s, self.mode = upstream, slow_s, "ok"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._srv: Any = None
        self._open()

    def _open(self) -> None:
        self._srv = make_server(
            "127.0.0.1", self.port, self._app, threaded=True, request_handler=_Quiet
        )
        threading.Thread(target=self._srv.serve_forever, daemon=True).start()

    def close(self) -> None:
        if self._srv is not None:
            self._srv.shutdown()
            self._srv.server_close()
            self._srv = None

    def set(self, mode: str) -> None:
        """Misbehave so from now on (or behave: "ok")."""
        if mode == "down":
            self.close()
        elif self._srv is None:
            self._open()
        self.mode = mode

    def _app(self, environ: dict, start_response: Callable) -> list[bytes]:
        end = time.monotonic() + self.slow_s
        while self.mode == "slow" and time.monotonic() < end:
            time.sleep(0.05)
        json_type = [("Content-Type", "application/json")]
        if self.mode == "500":
            start_response("500 Internal Server Error", json_type)
            return [b'{"status":"error","error":"internal"}']
        if self.mode == "garbage":
            start_response("200 OK", json_type)
            return [self.GARBAGE]
        qs = environ.get("QUERY_STRING", "")
        url = self.upstream + environ["PATH_INFO"] + (f"?{qs}" if qs else "")
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                status, body = f"{r.status} OK", r.read()
        except urllib.error.HTTPError as e:
            status, body = f"{e.code} {e.reason}", e.read()
        start_response(status, json_type)
        return [body]


@contextmanager
def gate(upstream: str, slow_s: float = 30.0) -> Iterator[Gate]:
    """A Gate in front of upstream until the block ends."""
    g = Gate(upstream, slow_s)
    try:
        yield g
    finally:
        g.mode = "ok"  # a held answer lets go
        g.close()


@contextmanager
def standin_process(link: str, slow_s: float = 30.0, shape: str = "twin") -> Iterator[str]:
    """The stand-in rack as an operator runs it, `python -m dashboard.standin`, in a process
    of its own (its scrapes and NMX-Manager answers never share the twin's interpreter, as a
    rack's exporter never does): held at its healthy phase (the test moves it with
    /control), `link` the one that turns flaky, then fails; a slow NMX answer takes slow_s.
    Its base URL until the block ends."""
    port = free_port()
    cmd = [sys.executable, "-m", "dashboard.standin", "--port", str(port), "--link", link]
    cmd += ["--step-s", "1e9", "--shape", shape]
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / f"standin-{port}.log").open("w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: get_json(f"{url}/control"), 60.0, "the stand-in serving", 0.2)
        post_json(f"{url}/control", {"phase": 0, "slow_s": slow_s})
        yield url
    finally:
        end_process(proc)


def held_rack(link: str, slow_s: float = 30.0) -> Rack:
    """A stand-in GB200 NVL72 rack on day 3 of its counters, held at its healthy phase (the
    tests move it with /control), `link` the one that turns flaky, then fails; a slow NMX
    answer takes slow_s."""
    r = Rack(schedule("gb200-nvl72", link), step_s=1e9, speed=1.0, t0_s=3 * 86400.0)
    r.held, r.slow_s = 0, slow_s
    return r
