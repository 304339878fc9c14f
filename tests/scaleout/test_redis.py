"""Scale-out: the cache shared through Redis, background jobs on a Celery worker, and Redis
going away and coming back under load without a failed request."""

import re
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from dashboard.infra import background, tasks
from dashboard.infra.results import VERSION
from harness.page import below
from harness.servers import log_path

pytestmark = pytest.mark.scaleout


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def computed(base: str, key: str) -> int:
    return len(re.findall(rf"computed {re.escape(key)} ", log_path(base).read_text()))


def test_cache_shared_by_two_web_processes(web_pair):
    a, b = web_pair
    q = "fail=gpu31-st6.sw2,st8.mc&workload=moe-2t"
    key = f"{VERSION}:evaluate:fabric=vr-nvl72&fail=st8.mc,gpu31-st6.sw2&workload=moe-2t"
    assert get(f"{a}/api/v1/evaluate?{q}") == 200
    assert get(f"{b}/api/v1/evaluate?{q}") == 200
    assert get(f"{b}/api/v1/evaluate?{q}") == 200
    assert computed(a, key) == 1
    assert computed(b, key) == 0


def test_background_job_runs_on_the_celery_worker(web_pair, celery_worker, browser):
    a, _ = web_pair
    before = celery_worker.read_text().count("succeeded")
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(a + "/")
    expect(page.locator("#cards .card").first).to_be_visible(timeout=30000)
    below(page)  # the study's panel mounts once a reader comes near it (panels/lazy.py)
    page.fill("#fleet-racks", "20")
    page.fill("#fleet-years", "1")
    page.click("#fleet-run")
    expect(page.locator("#fleet-result")).to_contain_text(
        "vr-nvl72, all seven features", timeout=60000
    )
    ctx.close()
    deadline = time.monotonic() + 10
    while celery_worker.read_text().count("succeeded") <= before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert celery_worker.read_text().count("succeeded") > before


def test_redis_stopped_and_started_mid_requests(web_pair, redis_server):
    a, b = web_pair
    codes: list[int] = []
    stop = threading.Event()

    def load(base: str, tag: int) -> None:
        i = 0
        while not stop.is_set():
            gpu = (i * 7 + tag) % 72
            codes.append(
                get(f"{base}/api/v1/evaluate?fail=gpu{gpu:02d}-st2.sw{i % 4}&workload=train")
            )
            i += 1

    threads = [threading.Thread(target=load, args=(base, k)) for k, base in enumerate((a, b))]
    for t in threads:
        t.start()
    time.sleep(1.5)
    redis_server.stop()
    time.sleep(2.5)
    redis_server.start()
    time.sleep(3.0)  # past the cache's retry pause
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert len(codes) > 20
    assert set(codes) == {200}, f"failed requests: {[c for c in codes if c != 200][:5]}"
    log = log_path(a).read_text() + log_path(b).read_text()
    assert "computing without it" in log  # the outage was seen and logged
    # and the cache is used again: computed once on a, read on b
    q = "fail=st7,gpu44&workload=qwen3-235b"
    key = f"{VERSION}:evaluate:fabric=vr-nvl72&fail=gpu44,st7&workload=qwen3-235b"
    assert get(f"{a}/api/v1/evaluate?{q}") == 200
    assert get(f"{b}/api/v1/evaluate?{q}") == 200
    assert computed(a, key) + computed(b, key) == 1


def test_cancel_on_the_page_stops_a_study_split_over_the_worker(web_pair, celery_worker, browser):
    """Cancel on a study split into chunks, after the broker has handed its job out a second
    time while it ran (a job runs past the visibility timeout, background.VISIBILITY_S, by
    design: two deliveries coordinate one study): Celery's revoke terminates one delivery,
    the other learns of the cancel from the job's REVOKED state and stops, the job is not
    handed out again, and the study's chunks not started are dropped: the worker stops
    computing them."""
    a, _ = web_pair
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(a + "/")
    expect(page.locator("#cards .card").first).to_be_visible(timeout=30000)
    below(page)  # the study's panel mounts once a reader comes near it (panels/lazy.py)
    at_run = len(celery_worker.read_text())
    page.fill("#fleet-racks", "10000")
    page.fill("#fleet-years", "40")  # 200 chunks: ~100 s of one core
    page.click("#fleet-run")
    expect(page.locator("#fleet-progress-text")).to_have_text(
        re.compile(r"^[1-9]\d* of 200 chunks; .+…$"), timeout=60000
    )

    def deliveries() -> list[str]:
        return re.findall(
            r"Task background_callback_\w+\[([^\]]+)\] received", celery_worker.read_text()[at_run:]
        )

    # the job handed out again while it runs: VISIBILITY_S + RESTORE_S after it was taken
    deadline = time.monotonic() + 3 * (background.VISIBILITY_S + background.RESTORE_S)
    while len(deliveries()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    job = deliveries()
    assert len(job) >= 2 and len(set(job)) == 1, job  # one job, delivered twice
    at_cancel = len(celery_worker.read_text())
    page.click("#fleet-cancel")
    expect(page.locator("#fleet-run")).to_be_enabled(timeout=10000)
    cancelled = time.monotonic()

    def chunks_done() -> int:
        return celery_worker.read_text().count("'computed'")

    time.sleep(tasks.ALIVE_S + 4)  # the job's chunks in flight end; the rest are dropped
    settled = chunks_done()
    time.sleep(6)
    assert chunks_done() == settled  # nothing more is computed for the cancelled study
    after = celery_worker.read_text()[at_cancel:]
    handed = re.findall(r"Task (background_callback_\w+\[[^\]]+\]) received", after)
    dropped = set(
        re.findall(r"Discarding revoked task: (background_callback_\w+\[[^\]]+\])", after)
    )
    # a job handed out again after Cancel (a redelivery already under way) is dropped unrun
    assert all(j in dropped for j in handed), (handed, dropped)
    expect(page.locator("#fleet-result")).not_to_contain_text("vr-nvl72, all seven features")
    print(f"cancelled; the worker idle {time.monotonic() - cancelled:.0f} s later")
    ctx.close()
