"""Issue 17's benchmarks (bench/run.py `workers` and `router`): the fleet study split over one
and two Celery worker processes, and 200 viewers through nginx in front of four web
processes while a web process and a worker are killed and started again."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

Report = Callable[..., None]  # bench/run.py's report(name, value, unit, budget)
WORKER_NICE = 10  # the Procfile's worker: runs at `nice -n 10`
PAIRS = 3  # one worker then two, timed back to back, this many times


def _load_note() -> str:
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} cores, load average {one:.1f} (1 min) / {five:.1f} (5 min)"


def _chunks(specs: list[dict]) -> int:
    from model.reliability.chunks import run_chunk

    return len([run_chunk(x) for x in specs])


def _two_process_floor(specs: list[dict]) -> float:
    """What this machine gives two processes now: the time of `specs` split over two plain
    processes against one process computing them all (no Celery, no Redis), best of two."""
    from concurrent.futures import ProcessPoolExecutor

    # niced as the Procfile's worker is, so both figures compete alike with other load
    with ProcessPoolExecutor(2, initializer=os.nice, initargs=(WORKER_NICE,)) as pool:
        list(pool.map(_chunks, [specs[:1], specs[1:2]]))  # both processes started and warm
        ratios = []
        for _ in range(2):
            t = time.perf_counter()
            pool.submit(_chunks, specs).result()
            one = time.perf_counter() - t
            t = time.perf_counter()
            list(pool.map(_chunks, [specs[0::2], specs[1::2]]))
            ratios.append((time.perf_counter() - t) / one)
    return min(ratios)


def bench_workers(report: Report) -> None:
    """The same fleet study (10,000 racks x 10 years, every comparison row, seed fixed: 50
    chunks) on one Celery worker process, then two (each one pool process, the Procfile's
    command with WORKER_CONCURRENCY=1); the bench process coordinates and computes nothing
    (help=False). Timed in PAIRS pairs, one worker then two back to back, and the median of
    the pairs' ratios kept (others share the cores: each pair's two runs see the same load)."""
    from dashboard.infra.tasks import run_chunks
    from harness.redis import RedisServer, celery_client, start_celery_worker
    from harness.servers import ARTIFACTS, stop_server
    from model.reliability import chunks

    ARTIFACTS.mkdir(exist_ok=True)
    redis = RedisServer()
    redis.start()
    capp = celery_client(redis.url)
    plan = chunks.fleet_study_plan(10_000, 10)
    workers = []

    def start_worker() -> None:
        log = ARTIFACTS / f"celery-bench-{redis.port}-{len(workers)}.log"
        workers.append(start_celery_worker(redis.url, log, WORKER_CONCURRENCY="1"))
        run_chunks(plan[:4], capp, help=False)  # warm: each process's first chunks

    cpu: list[tuple[int, float]] = []  # (workers, CPU-s they used) for each timed run

    def workers_cpu() -> float:
        import psutil

        total = 0.0
        for w in workers:
            try:
                root = psutil.Process(w.pid)
                for p in [root, *root.children(recursive=True)]:
                    t = p.cpu_times()
                    total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return total

    def timed() -> tuple[float, list[str]]:
        c = workers_cpu()
        t = time.perf_counter()
        answers = run_chunks(plan, capp, help=False)
        took = time.perf_counter() - t
        cpu.append((len(workers), workers_cpu() - c))
        return took, answers

    runs: list[tuple[float, float]] = []  # (one worker, two workers) timed back to back
    answers: list[list[str]] = []
    try:
        start_worker()
        for _ in range(PAIRS):
            t1, a1 = timed()
            start_worker()
            t2, a2 = timed()
            stop_server(workers.pop())  # back to one
            runs.append((t1, t2))
            answers += [a1, a2]
    finally:
        for w in workers:
            stop_server(w)
        redis.stop()
    # each pair's own ratio: the two runs of a pair are seconds apart, so a change in the
    # other load between pairs cancels; the median of the pairs is the figure
    ratio = statistics.median(t2 / t1 for t1, t2 in runs)
    t1 = min(t for t, _ in runs)
    same = all(a == answers[0] for a in answers)
    floor = _two_process_floor(plan[:20])
    cpu1 = min(c for n, c in cpu if n == 1)
    cpu2 = min(c for n, c in cpu if n == 2)
    print(
        f"     (CPU the workers used for the study: one {cpu1:.1f} s, two {cpu2:.1f} s together:"
        f" the split costs {cpu2 / cpu1 - 1:+.0%} of work; so two at most "
        f"{max(cpu2 / 2, cpu1 / 2) / cpu1:.2f}x of one's wall time if each had a core)"
    )
    pairs = ", ".join(f"{a:.1f} / {b:.1f} s ({b / a:.2f}x)" for a, b in runs)
    print(
        f"     ({len(plan)} chunks; one worker / two, back to back: {pairs}; {_load_note()};"
        f" the machine itself, the same chunks in two plain processes against one, no "
        f"Celery: {floor:.2f}x)"
    )
    report(f"workers: fleet study on one worker process ({os.cpu_count()} cores)", t1, "s", 60)
    report(
        f"workers: two worker processes / one, same study ({os.cpu_count()} cores)",
        ratio,
        "x",
        0.6,
    )
    report("workers: chunk answers differing, one vs two workers", 0 if same else 1, "runs", 0)


def bench_router(report: Report, viewers: int = 200, seconds: float = 60.0) -> None:
    """200 viewers, each changing the scenario every 2 s (the page's callbacks; scenarios
    drawn by harness/router.py's `popularity`: a demo link's viewers at the same few,
    a long tail once or twice), through nginx in front of four web processes (one gunicorn
    worker each), two Celery workers and one redis-server, for 60 s; six fleet studies started
    along the way and polled as the page does (the first two the very same study, started
    at the same moment). At 15 s a web process is SIGKILLed (started again at 20 s); at 30 s
    the worker coordinating a study is (started again 5 s later). Beside the latencies: what
    each kind of process used in CPU, per request served, and so what two cores can serve."""
    from dashboard.panels.fleet_watchdog import PICKUP_S, STALL_S
    from harness.meter import CpuMeter
    from harness.router import Stack, run_load

    stack = Stack(webs=4, workers=2)
    kills: list[float] = []
    notes: list[str] = []
    restarted: dict[str, float] = {}

    def kill_web() -> None:
        kills.append(stack.kill_web(1))
        time.sleep(5.0)
        t = time.monotonic()
        stack.start_web(1)
        restarted["web"] = time.monotonic() - t

    def kill_worker() -> None:
        found = [w for w in map(stack.worker_of, stack.coordinators()) if w is not None]
        i = found[0] if found else 0
        notes.append(f"worker {i} killed coordinating {len(found)} of the running studies")
        kills.append(stack.kill_worker(i))
        time.sleep(5.0)
        t = time.monotonic()
        stack.start_worker(i)
        restarted["worker"] = time.monotonic() - t

    studies = [(5.0, 10_000, 10), (5.0, 10_000, 10)] + [
        (t, 10_000 - 10 * k, 10) for k, t in enumerate((20.0, 27.0, 34.0, 44.0), start=1)
    ]
    try:
        with CpuMeter(stack) as meter:
            t0 = time.monotonic()
            load = run_load(
                stack.router.base,
                viewers=viewers,
                seconds=seconds,
                studies=studies,
                events=[(15.0, kill_web), (30.0, kill_worker)],
                study_timeout_s=300.0,
            )
            wall = time.monotonic() - t0
    finally:
        stack.stop()
    failed = load.failed()
    beyond = load.failed_beyond(kills)
    unfinished = [s for s in load.studies if s[1] is None or s[2] is not None]
    silence = max((s[3] for s in load.studies), default=0.0)
    first = max((s[4] for s in load.studies), default=0.0)
    durations = [round(s[1] - s[0], 1) if s[1] else s[2] for s in load.studies]
    served = len(load.requests) - len(failed)
    cpu = meter.by_role()
    per = {k: cpu.get(k, 0.0) / max(served, 1) * 1e3 for k in ("web", "nginx", "redis")}
    per["client"] = load.client_cpu_s / max(served, 1) * 1e3
    per_request = sum(per.values())
    cores = os.cpu_count() or 1
    asked = viewers / 2.0 * (len(load.requests) / max(len(load.asked), 1))
    print(
        f"     ({len(load.requests)} requests in {seconds:g} s ({len(load.requests) / seconds:.0f}"
        f"/s; the viewers asked {asked:.0f}/s), {len(set(load.asked))} distinct scenarios of "
        f"{len(load.asked)} changes; failed {len(failed)}, of them in flight at a kill "
        f"{len(failed) - len(beyond)}; {'; '.join(notes)}; studies took {durations} s; restarted web in "
        f"{restarted.get('web', float('nan')):.1f} s, worker in "
        f"{restarted.get('worker', float('nan')):.1f} s; {_load_note()})"
    )
    t0 = min((r[0] for r in load.requests), default=0.0)
    thirds = []
    for k in range(3):
        lo, hi = t0 + k * seconds / 3, t0 + (k + 1) * seconds / 3
        lat = sorted(d for t, _, d, e in load.requests if e is None and lo <= t < hi)
        thirds.append(f"{lat[int(0.95 * (len(lat) - 1))] * 1e3:.0f}" if lat else "-")
    print(f"     (p95 by third of the run, ms: {' / '.join(thirds)}: the first holds the misses)")
    print(
        "     (CPU per request served: "
        + ", ".join(f"{k} {v:.2f} ms" for k, v in per.items())
        + f"; {per_request:.2f} ms in all, so {cores} cores serve at most "
        f"{cores * 1e3 / per_request:.0f} requests/s with nothing else running; the studies' "
        f"workers used {cpu.get('worker', 0.0):.0f} CPU-s of the {cores * wall:.0f} the run had)"
    )
    report(
        f"router: {viewers} viewers via nginx, 4 web, 2 workers, p95",
        load.quantile(0.95) * 1e3,
        "ms",
        500,
    )
    report(
        f"router: {viewers} viewers via nginx, 4 web, 2 workers, p99",
        load.quantile(0.99) * 1e3,
        "ms",
        1000,
    )
    report("router: failed requests not in flight at a kill", len(beyond), "requests", 0)
    report("router: studies not finished (of 6)", len(unfinished), "studies", 0)
    report(
        "router: a study's longest silence on the page (the watchdog gives up at 30 s)",
        silence,
        "s",
        STALL_S,
    )
    report(
        "router: a study's longest wait for its first beat (the watchdog: 60 s)",
        first,
        "s",
        PICKUP_S,
    )
