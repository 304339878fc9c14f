"""Scale-out: the fleet study and the policy optimiser split over Celery workers
(dashboard/infra/tasks.py) give the answer one process gives, on one worker process or two, and
when a chunk's worker is SIGKILLed mid-chunk (its pool process, or the whole worker).

Its own redis-server and workers (the Procfile's command, one pool process each), so that
only these workers take its chunks. The test process is the coordinator, as a web process or
the fleet study's job is, with help=False: every chunk is computed by a worker.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
import urllib.request

import psutil
import pytest
import redis

from dashboard.infra import background, tasks
from dashboard.infra.tasks import run_chunks, run_in_process
from dashboard.panels.fleet_watchdog import STALL_S
from harness.redis import celery_client, own_redis_server, start_celery_worker
from harness.servers import ARTIFACTS, start_server, stop_server
from model.query import parse_query
from model.reliability import chunks, goodput
from model.reliability.montecarlo import fleet

pytestmark = pytest.mark.scaleout

RACKS, YEARS = 2000, 10  # 20,000 rack-years a row: one chunk a row, ten chunks, ~0.5 s each

own_redis = pytest.fixture(scope="module", name="own_redis")(own_redis_server)
RECEIVED_ID = re.compile(r"Task fabric_twin\.chunk\[([^\]]+)\] received")


class Workers:
    """Worker processes of the Procfile's command, one pool process each, started on demand."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.procs: dict[str, tuple[psutil.Popen, object]] = {}

    def start(self, name: str):
        log = ARTIFACTS / f"celery-chunks-{name}-{os.getpid()}.log"
        proc = start_celery_worker(self.url, log, WORKER_CONCURRENCY="1")
        self.procs[name] = (proc, log)
        return proc

    def ensure(self, *names: str) -> None:
        """These workers running (and no others)."""
        for name in set(self.procs) - set(names):
            self.kill(name)
        for name in names:
            if name not in self.procs:
                self.start(name)

    def pool(self, name: str) -> list[int]:
        return [p.pid for p in psutil.Process(self.procs[name][0].pid).children()]

    def log(self, name: str) -> str:
        return self.procs[name][1].read_text()

    def kill(self, name: str) -> None:
        proc, _ = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.kill(name)


@pytest.fixture(scope="module")
def workers(own_redis):
    w = Workers(own_redis.url)
    yield w
    w.stop_all()


@pytest.fixture(scope="module")
def capp(own_redis):
    return celery_client(own_redis.url)


@pytest.fixture(scope="module")
def reference():
    """The study in one process, as montecarlo.fleet computes each row: the answer to match."""
    rows = [
        (label, fleet(sc, racks=RACKS, years=YEARS, key=chunks.FLEET_STUDY_KEY))
        for label, sc in goodput.comparison_scenarios()
    ]
    return json.dumps(rows, sort_keys=True)


def as_text(plan, answers) -> str:
    return json.dumps(chunks.fleet_study_combine(plan, answers), sort_keys=True)


def computed(log: str) -> int:
    return log.count("'computed'")


def settled(workers: Workers, names: tuple[str, ...], before: int, n: int) -> int:
    """Chunks the named workers computed since `before`, once their logs have caught up
    with the answers (a task logs its end just after it stores its answer)."""
    deadline = time.monotonic() + 10
    while True:
        got = sum(computed(workers.log(k)) for k in names) - before
        if got >= n or time.monotonic() > deadline:
            time.sleep(0.5)  # and no more come
            return sum(computed(workers.log(k)) for k in names) - before
        time.sleep(0.05)


def test_one_process_matches_montecarlo_fleet(reference):
    plan = chunks.fleet_study_plan(RACKS, YEARS)
    assert len(plan) == 10
    assert as_text(plan, run_in_process(plan)) == reference


def test_one_and_two_workers_give_the_identical_study(capp, workers, reference):
    plan = chunks.fleet_study_plan(RACKS, YEARS)
    workers.ensure("a")
    seen: list[tuple[int, int]] = []
    one = run_chunks(plan, capp, lambda d, n: seen.append((d, n)), help=False, timeout_s=300)
    assert as_text(plan, one) == reference
    assert settled(workers, ("a",), 0, len(plan)) == len(plan)  # all, once each
    assert seen[0] == (0, 10) and seen[-1] == (10, 10)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)  # progress only grows

    workers.ensure("a", "b")
    before = computed(workers.log("a"))
    two = run_chunks(plan, capp, help=False, timeout_s=300)
    assert two == one  # byte for byte, chunk by chunk
    assert settled(workers, ("a", "b"), before, len(plan)) == len(plan)  # none twice
    by_a, by_b = computed(workers.log("a")) - before, computed(workers.log("b"))
    assert by_a > 0 and by_b > 0  # and split over both


def test_policy_optimiser_split_over_workers(capp, workers):
    workers.ensure("a", "b")
    s = parse_query("fabric=vr-nvl72&fail=st3,gpu07-st2.sw1").scenario
    kw = {"years": 1.0, "racks": 2000, "job_racks": 8, "spares": True}
    plan = chunks.policy_plan(s, **kw)
    assert len(plan) > 10
    split = chunks.policy_combine(run_chunks(plan, capp, help=False, timeout_s=120))
    one = goodput.best_policy(s, **kw)
    assert json.dumps(split, sort_keys=True) == json.dumps(one, sort_keys=True)


def run_in_thread(plan, capp):
    out: dict = {}

    def go() -> None:
        try:
            out["answers"] = run_chunks(plan, capp, help=False, timeout_s=300)
        except Exception as e:  # noqa: BLE001 (the test asserts there was none)
            out["error"] = e

    t = threading.Thread(target=go)
    t.start()
    return t, out


def frozen_mid_chunk(url: str, pids: list[int], timeout: float = 60.0) -> tuple[str, int]:
    """A chunk claimed by one of these processes, caught mid-chunk: its process SIGSTOPped
    before it stored its answer, so a kill that follows cannot race the chunk's end however
    slow this machine is. Returns (the claim's key, the pid). A chunk found already answered
    (the process ran on between the look and the stop) is let go, and the next one taken."""
    r = redis.Redis.from_url(url)
    passed: set[str] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for k in r.scan_iter("fabric-twin:study:*:claim:*"):
            key, v = k.decode(), r.get(k)
            if key in passed or not v or int(v.decode().rsplit(":", 1)[1]) not in pids:
                continue
            pid = int(v.decode().rsplit(":", 1)[1])
            os.kill(pid, signal.SIGSTOP)
            if r.get(key.replace(":claim:", ":result:")) is None:
                return key, pid
            os.kill(pid, signal.SIGCONT)
            passed.add(key)
        time.sleep(0.01)
    raise AssertionError("no worker claimed a chunk")


def test_a_chunks_pool_process_sigkilled_is_retried(capp, workers, reference, own_redis):
    workers.ensure("a", "b")
    plan = chunks.fleet_study_plan(RACKS, YEARS)
    t, out = run_in_thread(plan, capp)
    key, pid = frozen_mid_chunk(own_redis.url, workers.pool("a") + workers.pool("b"))
    os.kill(pid, signal.SIGKILL)  # mid-chunk: its answer is not stored yet
    r = redis.Redis.from_url(own_redis.url)
    assert r.get(key.replace(":claim:", ":result:")) is None
    t.join(timeout=300)
    assert "error" not in out, out.get("error")
    assert as_text(plan, out["answers"]) == reference
    logs = workers.log("a") + workers.log("b")
    assert "WorkerLostError" in logs  # the kill was seen, and the chunk retried


def test_a_whole_worker_sigkilled_mid_chunk_its_chunk_goes_to_another(
    capp, workers, reference, own_redis, caplog
):
    workers.ensure("a", "b")
    plan = chunks.fleet_study_plan(RACKS, YEARS)
    t, out = run_in_thread(plan, capp)
    key, pid = frozen_mid_chunk(own_redis.url, workers.pool("a"))
    workers.kill("a")  # main process and pool: its message stays unacknowledged
    r = redis.Redis.from_url(own_redis.url)
    assert r.get(key.replace(":claim:", ":result:")) is None  # killed before its answer
    with pytest.raises(psutil.NoSuchProcess):  # the chunk's process is gone too
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                raise psutil.NoSuchProcess(pid)
            time.sleep(0.05)
    t.join(timeout=300)
    assert "error" not in out, out.get("error")
    assert as_text(plan, out["answers"]) == reference
    assert "lost its worker; sent again" in caplog.text
    workers.start("a")  # and a worker started again takes chunks
    before = computed(workers.log("b"))
    again = run_chunks(plan, capp, help=False, timeout_s=300)
    assert as_text(plan, again) == reference
    assert settled(workers, ("a", "b"), before, len(plan)) == len(plan)


def test_a_worker_killed_holding_the_brokers_restore_lock_stalls_no_redelivery(
    capp, workers, own_redis
):
    """kombu hands a dead worker's unacknowledged messages out again under one lock in Redis,
    which by default outlives a holder killed inside its scan by 300 s: every redelivery
    stalled for five minutes, and a fleet study whose coordinator was killed never resumed.
    Here a whole worker is killed mid-chunk leaving that lock as its scan would; the broker
    hands its message to the other worker before the page's watchdog would give up
    (STALL_S), since background.py bounds the lock by UNACKED_MUTEX_S."""
    workers.ensure("a", "b")
    r = redis.Redis.from_url(own_redis.url)
    study = f"restore-{os.getpid()}"
    r.set(f"fabric-twin:study:{study}:alive", "this test", ex=120)  # no coordinator: no resend
    spec = chunks.fleet_study_plan(RACKS, YEARS)[0]
    capp.signature(tasks.CHUNK_TASK, args=(study, 0, spec)).set(task_id=f"{study}-0").apply_async()
    pools = {pid: name for name in ("a", "b") for pid in workers.pool(name)}
    _, pid = frozen_mid_chunk(own_redis.url, list(pools))
    dead, other = pools[pid], "b" if pools[pid] == "a" else "a"
    before = workers.log(other).count(f"[{study}-0] received")
    r.set("unacked_mutex", "the worker killed", px=int(background.UNACKED_MUTEX_S * 1000))
    workers.kill(dead)
    killed = time.monotonic()
    while time.monotonic() < killed + STALL_S:
        if workers.log(other).count(f"[{study}-0] received") > before:
            break
        time.sleep(0.2)
    took = time.monotonic() - killed
    assert workers.log(other).count(f"[{study}-0] received") > before, f"none in {took:.0f} s"
    print(f"handed out again {took:.1f} s after the kill (visibility {background.VISIBILITY_S} s)")
    workers.ensure("a", "b")


def test_a_stopped_study_drops_its_chunks(capp, workers, own_redis):
    """Cancel: when the coordinator stops (Dash terminates it), the chunks not started yet
    are dropped (revoked, and no longer alive), not computed for nobody."""
    workers.ensure("a", "b")
    plan = chunks.fleet_study_plan(RACKS, YEARS)

    class Stop(Exception):
        pass

    at_stop: list[int] = []

    def stop_at_first(done: int, total: int) -> None:
        if done >= 1:
            at_stop.append(done)
            raise Stop

    before = sum(computed(workers.log(n)) for n in ("a", "b"))
    study = f"stopped-{os.getpid()}"
    with pytest.raises(Stop):
        run_chunks(plan, capp, stop_at_first, help=False, timeout_s=300, study=study)
    r = redis.Redis.from_url(own_redis.url)
    # answered once the stop took effect (the study no longer alive): at least those seen
    # at the stop, and any that finished between that poll and the stop
    answered = sum(1 for i in range(len(plan)) if r.exists(f"fabric-twin:study:{study}:result:{i}"))
    deadline = time.monotonic() + 30
    while r.llen("celery") and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # what was in flight at the stop finishes
    assert r.llen("celery") == 0
    after = sum(computed(workers.log(n)) for n in ("a", "b")) - before
    # those answered when the stop took effect, and at most one in flight then on each of
    # the two workers (one pool process each): the rest were dropped
    assert at_stop[0] <= answered <= after <= answered + 2 < len(plan), (at_stop, answered, after)


def test_a_cancelled_study_stops_in_every_coordinator(capp, workers, own_redis):
    """A job handed out again while it ran has two coordinators of one study, and Celery's
    revoke terminates only one delivery of a task id: the other stops too, told by its
    `cancelled` (the fleet study's is the job's REVOKED state), and the study's chunks not
    started are dropped."""
    workers.ensure("a", "b")
    plan = chunks.fleet_study_plan(RACKS, YEARS)
    study = f"twice-{os.getpid()}"
    revoked = threading.Event()

    class Terminated(Exception):
        pass

    def terminated_at_first(done: int, total: int) -> None:
        if done >= 1:
            revoked.set()  # Cancel: this delivery terminated, the job marked REVOKED
            raise Terminated

    other: list[BaseException | None] = []

    def second_delivery() -> None:
        try:
            run_chunks(plan, capp, help=False, timeout_s=300, study=study, cancelled=revoked.is_set)
            other.append(None)
        except BaseException as e:  # noqa: BLE001 - what it raised is the test's answer
            other.append(e)

    before = sum(computed(workers.log(n)) for n in ("a", "b"))
    t = threading.Thread(target=second_delivery)
    t.start()
    with pytest.raises(Terminated):
        run_chunks(plan, capp, terminated_at_first, help=False, timeout_s=300, study=study)
    stopped = time.monotonic()
    t.join(timeout=60)
    assert not t.is_alive()
    assert len(other) == 1 and isinstance(other[0], tasks.StudyCancelled), other
    r = redis.Redis.from_url(own_redis.url)
    deadline = time.monotonic() + 30
    while r.llen("celery") and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # what was in flight at the stop finishes
    after = sum(computed(workers.log(n)) for n in ("a", "b")) - before
    answered = sum(1 for i in range(len(plan)) if r.exists(f"fabric-twin:study:{study}:result:{i}"))
    assert after == answered < len(plan), (after, answered)  # the rest were dropped
    print(f"the second coordinator stopped {time.monotonic() - stopped:.1f} s after the first")


def test_the_apis_optimiser_is_split_over_the_workers(own_redis, workers):
    """GET /api/v1/goodput?optimise=1 on a web process with REDIS_URL: its candidates go to
    the workers as chunks (and the request's thread computes those no worker took), and
    the answer is the one process's."""
    workers.ensure("a", "b")
    r = redis.Redis.from_url(own_redis.url)
    keys_before = set(r.scan_iter("fabric-twin:study:*:result:*"))
    answers_before = len(keys_before)
    studies: set[str] = set()  # this request's study, once its answers are stored

    def received() -> int:
        """The chunk tasks of this request's study the workers took: not another test's
        whose message a killed worker left unacknowledged, redelivered meanwhile."""
        # a set: delivery is at least once (acks_late: a message left unacknowledged past
        # the broker's visibility timeout on a loaded machine is handed out again)
        ids = {m for k in ("a", "b") for m in RECEIVED_ID.findall(workers.log(k))}
        return sum(1 for i in ids if any(i.startswith(f"{s}-") for s in studies))

    proc, base = start_server({"REDIS_URL": own_redis.url})
    try:
        q = "fail=st3,gpu07-st2.sw1&optimise=1&racks=2000&years=1&job_racks=8&spares=1"
        with urllib.request.urlopen(f"{base}/api/v1/goodput?{q}", timeout=60) as resp:
            split = json.loads(resp.read())["policy"]
    finally:
        stop_server(proc)
    s = parse_query("fabric=vr-nvl72&fail=st3,gpu07-st2.sw1").scenario
    kw = {"years": 1.0, "racks": 2000, "job_racks": 8, "spares": True}
    one = goodput.best_policy(s, **kw)
    assert json.dumps(split, sort_keys=True) == json.dumps(one, sort_keys=True)
    n = len(chunks.policy_plan(s, **kw))
    # one answer stored a candidate, under the study's name: the split ran, not best_policy
    new_keys = set(r.scan_iter("fabric-twin:study:*:result:*")) - keys_before
    assert len(new_keys) == len(list(r.scan_iter("fabric-twin:study:*:result:*"))) - answers_before
    # one study at at= and one at each other interactivity of policy_along (issue 29); the
    # one at at= is not run twice
    studies.update(k.decode().split(":")[2] for k in new_keys)
    assert len(studies) == len(goodput.interactivities_around(s.at))
    assert len(new_keys) == n * len(studies)
    deadline = time.monotonic() + 10
    while received() < len(new_keys) and time.monotonic() < deadline:
        time.sleep(0.2)  # the workers take the tasks (most find their answer stored)
    assert received() == len(new_keys)  # every candidate was sent to the workers
