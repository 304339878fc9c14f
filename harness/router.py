"""A PaaS on loopback: nginx (the Debian package) in front of web processes (the Procfile's
gunicorn), Celery workers (the Procfile's worker) and one redis-server, and the viewers that
load it: what tests/scaleout/test_router.py and bench/run.py's `router` run.

nginx's configuration is written to a temporary directory at start (no root paths: its pid,
logs and temp files are there too). It balances over the web processes and, when one dies
under a request (connection refused or reset), passes the request on to the next one
(proxy_next_upstream), as a PaaS router does. The app's POSTs are Dash callbacks, answers
computed from their inputs, so passing one on is safe; a study's first POST passed on
starts it on the process that answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.redis import RedisServer, start_celery_worker
from harness.servers import ARTIFACTS, free_port, start_server

NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 2048; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    client_max_body_size 20m;
    upstream web {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://web;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
            proxy_next_upstream_tries 4;
        }}
    }}
}}
"""


def nginx_exe() -> str:
    exe = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )
    if exe is None:
        raise AssertionError("nginx is not installed (scripts/system-packages.sh)")
    return exe


class Router:
    """nginx on a free loopback port in front of `ports`, its files in a temp directory."""

    def __init__(self, ports: list[int]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.dir = Path(tempfile.mkdtemp(prefix="fabric-twin-nginx-"))
        servers = "\n".join(
            f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in ports
        )
        conf = self.dir / "nginx.conf"
        conf.write_text(NGINX_CONF.format(dir=self.dir, servers=servers, port=self.port))
        self.proc = subprocess.Popen(
            [nginx_exe(), "-p", str(self.dir), "-c", str(conf), "-e", str(self.dir / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "stderr.log", "w"),  # noqa: SIM115 (closed with it)
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited: {(self.dir / 'stderr.log').read_text()}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("nginx did not answer /healthz")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def _kill(procs: list[subprocess.Popen | None], i: int) -> float:
    proc = procs[i]
    os.killpg(proc.pid, signal.SIGKILL)
    t = time.monotonic()
    proc.wait(timeout=20)
    procs[i] = None
    return t


class Stack:
    """redis-server, `workers` Celery workers (the Procfile's, two pool processes each), `webs` web processes
    (one gunicorn worker each) and nginx in front; any web process or worker can be killed
    (SIGKILL to its process group) and started again."""

    def __init__(self, webs: int = 4, workers: int = 2) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.redis = RedisServer()
        self.redis.start()
        self.env = {"REDIS_URL": self.redis.url, "WEB_CONCURRENCY": "1"}
        self.worker_procs: list[subprocess.Popen | None] = [None] * workers
        for i in range(workers):
            self.start_worker(i)
        self.ports = [free_port() for _ in range(webs)]
        self.web_procs: list[subprocess.Popen | None] = [None] * webs
        threads = [threading.Thread(target=self.start_web, args=(i,)) for i in range(webs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if not all(self.web_procs):
            raise AssertionError("a web process did not start")
        self.router = Router(self.ports)

    def start_web(self, i: int) -> None:
        self.web_procs[i] = start_server(self.env, port=self.ports[i])[0]

    def kill_web(self, i: int) -> float:
        """SIGKILL web process i (its process group); the moment of the kill."""
        return _kill(self.web_procs, i)

    def start_worker(self, i: int) -> None:
        log = ARTIFACTS / f"celery-router-{self.redis.port}-{i}.log"
        # the Procfile's default pool (WORKER_CONCURRENCY 2): a study's job holds one pool
        # process while it coordinates, so one a worker would queue a killed worker's job,
        # handed out again, behind every other study's
        self.worker_procs[i] = start_celery_worker(self.redis.url, log)

    def worker_of(self, pid: int) -> int | None:
        """The worker whose pool process is `pid`, if any."""
        import psutil

        for i, proc in enumerate(self.worker_procs):
            if proc and pid in [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]:
                return i
        return None

    def kill_worker(self, i: int) -> float:
        """SIGKILL worker i (main process and pool); the moment of the kill."""
        return _kill(self.worker_procs, i)

    def coordinators(self) -> list[int]:
        """The pids of the processes coordinating a study now (the studies' alive keys)."""
        import redis

        r = redis.Redis.from_url(self.redis.url)
        pids = []
        for k in r.scan_iter("fabric-twin:study:*:alive"):
            v = r.get(k)
            if v:
                pids.append(int(v.decode().rsplit(":", 1)[1]))
        return pids

    def roles(self) -> dict[str, list[int]]:
        """The pids of each kind of process now running: web (gunicorn, master and
        workers), worker (Celery, main and pool), nginx, redis."""
        import psutil

        def tree(procs: list) -> list[int]:
            pids = []
            for p in procs:
                if p is None:
                    continue
                try:
                    pr = psutil.Process(p.pid)
                    pids += [pr.pid] + [c.pid for c in pr.children(recursive=True)]
                except psutil.NoSuchProcess:
                    pass
            return pids

        return {
            "web": tree(self.web_procs),
            "worker": tree(self.worker_procs),
            "nginx": tree([self.router.proc]),
            "redis": tree([self.redis.proc]),
        }

    def stop(self) -> None:
        from harness.servers import stop_server

        self.router.stop()
        for p in self.web_procs + self.worker_procs:
            if p is not None:
                stop_server(p)
        self.redis.stop()


@dataclass
class Load:
    """What the viewers saw: each request's (start, end, seconds, error or None), and each
    study's (start, end or None, error or None, silence, first): silence is the longest the
    page went without a new heartbeat of the study after its first (the page's watchdog
    gives up on it after STALL_S, 30 s), first the wait for that first one (PICKUP_S, 60 s:
    a study queued behind others waits for a worker's pool process)."""

    requests: list[tuple[float, float, float, str | None]] = field(default_factory=list)
    studies: list[tuple[float, float | None, str | None, float, float]] = field(
        default_factory=list
    )
    asked: list[str] = field(default_factory=list)  # each scenario change's scenario
    client_cpu_s: float = 0.0  # the viewers' own CPU (this process), beside the servers'

    def latencies(self) -> list[float]:
        return sorted(d for _, _, d, e in self.requests if e is None)

    def quantile(self, q: float) -> float:
        lat = self.latencies()
        return lat[int(q * (len(lat) - 1))] if lat else float("inf")

    def failed(self) -> list[tuple[float, float, float, str | None]]:
        return [x for x in self.requests if x[3] is not None]

    def failed_beyond(self, kills: list[float]) -> list[tuple[float, float, float, str | None]]:
        """Failed requests that were not in flight at one of these moments (a kill)."""
        return [x for x in self.failed() if not any(x[0] <= k <= x[1] for k in kills)]


PATH = "/_dash-update-component"
SCENARIOS = 300  # the scenarios the viewers choose among
ZIPF_S = 1.0  # their popularity: the k-th most viewed is viewed 1/k^s as often as the first


def popularity(n: int, s: float = ZIPF_S) -> list[float]:
    """Each of n scenarios' share of the changes, most viewed first (Zipf with exponent s).

    What the load models: a demo link's viewers do not spread evenly over every fault they
    could try; most stand at the link's scenario and the few faults everyone tries (a switch
    tray, a GPU), and a long tail of pairs is tried once or twice. With s = 1 over 300
    scenarios the first is 16% of the changes, the first ten 47%, and in a minute of 200
    viewers (6,000 changes) nearly every one of the 300 is asked at least once."""
    w = [1.0 / (k + 1) ** s for k in range(n)]
    total = sum(w)
    return [x / total for x in w]


def two_fault_queries(n: int, seed: int) -> list[str]:
    """n scenarios of two random failed parts of vr-nvl72 (fail=a,b), seeded."""
    from model.fabric.presets import FABRICS
    from model.fabric.topology import topology

    rng = random.Random(seed)
    parts = [
        c["id"] for c in topology(FABRICS["vr-nvl72"])["components"] if c["kind"] != "controller"
    ]
    return [f"fail={','.join(rng.sample(parts, 2))}" for _ in range(n)]


def study_body(app, racks: int, years: float, run: int = 1) -> dict:
    from harness.dash_calls import body

    v = {"fleet-run.n_clicks": run, "fleet-racks.value": str(racks), "fleet-years.value": years}
    return body(app, "fleet-result", v, "fleet-run.n_clicks")


def run_load(
    base: str,
    *,
    viewers: int,
    seconds: float,
    studies: list[tuple[float, int, float]],
    events: list[tuple[float, Callable[[], object]]],
    study_timeout_s: float = 180.0,
    seed: int = 17,
) -> Load:
    """`viewers` viewers on `base`, each changing the scenario every 2 s for `seconds` (the
    callbacks a page runs, harness/dash_calls.py), a fleet study started at each (time,
    racks, years) of `studies` and polled once a second to its end as the page does, and
    each (time, fn) of `events` called at its time from a thread (a kill, a restart).
    A bounded asyncio client (loadclient.py: one kept-alive connection a viewer and a study,
    loopback). Each change's scenario is drawn by `popularity` (what that models: there).
    """
    from app import app
    from harness.dash_calls import page_calls
    from harness.loadclient import Connection, HttpError

    qs = two_fault_queries(SCENARIOS, seed)
    weights = popularity(len(qs))
    bodies = {q: [json.dumps(b).encode() for b in page_calls(app, "?" + q)] for q in qs}
    load = Load()
    t0 = time.monotonic()

    async def post(
        conn: Connection, body: bytes, params=None, decode: bool = False
    ) -> tuple[tuple[int, bytes] | None, str | None, float]:
        """One callback request: (status, body) (None if no response came), error, start."""
        t = time.monotonic()
        try:
            status, _, data = await conn.post(PATH, body, params, decode=decode)
            err = None if status < 400 else f"HTTP {status}"  # 204: no change
            return (status, data), err, t
        except HttpError as e:
            return None, repr(e), t

    async def viewer(k: int, stop: float) -> None:
        rng = random.Random(k)
        conn = Connection(base)
        await asyncio.sleep(rng.random() * 2.0)  # viewers do not click in step
        while time.monotonic() < stop:
            start = time.monotonic()
            q = rng.choices(qs, weights)[0]
            load.asked.append(q)
            for body in bodies[q]:
                _, err, t = await post(conn, body)
                load.requests.append((t, time.monotonic(), time.monotonic() - t, err))
            await asyncio.sleep(max(0.0, 2.0 - (time.monotonic() - start)))
        await conn.close()

    async def study(at: float, racks: int, years: float) -> None:
        await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
        conn = Connection(base)
        start = time.monotonic()
        body = json.dumps(study_body(app, racks, years)).encode()
        r, err, _ = await post(conn, body, decode=True)
        if err or r is None or r[0] != 200:
            load.studies.append((start, None, f"start: {err}", 0.0, 0.0))
            return
        handle = json.loads(r[1])
        params = {"cacheKey": handle["cacheKey"], "job": handle["job"]}
        beat, beaten, silence, first = None, start, 0.0, None
        while time.monotonic() < start + study_timeout_s:
            await asyncio.sleep(1.0)
            r, err, _ = await post(conn, body, params, decode=True)
            if err or r is None or r[0] != 200:
                continue  # a poll lost at a kill: the page polls again a second later
            got = json.loads(r[1])
            b = got.get("progress", {}).get("fleet-beat.data")
            if b is not None and b != beat:
                if first is None:
                    first = time.monotonic() - start
                else:
                    silence = max(silence, time.monotonic() - beaten)
                beat, beaten = b, time.monotonic()
            if "response" in got:
                text = json.dumps(got["response"])
                ok = "vr-nvl72, all seven features" in text and "done" in json.dumps(got)
                end = time.monotonic()
                load.studies.append((start, end, None if ok else text[:300], silence, first or 0.0))
                await conn.close()
                return
        load.studies.append((start, None, "timed out", silence, first or 0.0))
        await conn.close()

    def fire(at: float, fn: Callable[[], object]) -> None:
        time.sleep(max(0.0, t0 + at - time.monotonic()))
        fn()

    async def main() -> None:
        stop = t0 + seconds
        await asyncio.gather(
            *(viewer(k, stop) for k in range(viewers)),
            *(study(*s) for s in studies),
        )

    threads = [threading.Thread(target=fire, args=e, daemon=True) for e in events]
    for t in threads:
        t.start()

    def client_loop() -> None:
        cpu = time.thread_time()
        asyncio.run(main())
        load.client_cpu_s = time.thread_time() - cpu

    # its own event loop in its own thread (a test's Playwright holds this thread's loop)
    client = threading.Thread(target=client_loop)
    client.start()
    client.join()
    for t in threads:
        t.join(timeout=120)
    return load
