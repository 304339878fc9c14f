"""The embedded mode as the PaaS runs it: the Procfile's command, two workers, one machine."""

import re
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from dashboard.infra.results import VERSION
from harness.page import below
from harness.servers import log_path
from tests.e2e.test_fleet_watchdog import gone, start_big_study

pytestmark = pytest.mark.e2e


def get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as r:
        r.read()
        return r.status


def test_one_computation_per_scenario_across_workers(served):
    q = "fail=gpu13-st4.sw1.c1,ct09&workload=qwen3-235b"
    url = f"{served}/api/v1/evaluate?{q}"
    assert get(url) == 200
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(get, [url] * 40))
    assert codes == [200] * 40
    log = log_path(served).read_text()
    key = re.escape(
        f"{VERSION}:evaluate:fabric=vr-nvl72&fail=ct09,gpu13-st4.sw1.c1&workload=qwen3-235b"
    )
    assert len(re.findall(rf"computed {key} ", log)) == 1
    pids = set(re.findall(r'"GET /api/v1/evaluate\?fail=gpu13[^"]*" 200 .* pid=<?(\d+)', log))
    assert len(pids) == 2, f"both workers should have served; saw {pids}"


def test_background_job_reports_progress_and_finishes(served, page):
    page.goto(served + "/")
    expect(page.locator("#cards .card").first).to_be_visible(timeout=30000)
    below(page)  # the study's panel mounts once a reader comes near it (panels/lazy.py)
    page.fill("#fleet-racks", "40")
    page.fill("#fleet-years", "2")
    page.click("#fleet-run")
    expect(page.locator("#fleet-cancel")).to_be_enabled(timeout=10000)
    expect(page.locator("#fleet-result")).to_contain_text(
        "vr-nvl72, all seven features", timeout=60000
    )
    expect(page.locator("#fleet-progress-text")).to_have_text("done")
    assert page.locator("#fleet-progress").get_attribute("value") == page.locator(
        "#fleet-progress"
    ).get_attribute("max")
    expect(page.locator("#fleet-run")).to_be_enabled()
    assert page.log.errors == []


def test_background_job_can_be_cancelled(served, page):
    """The user's Cancel, deterministic: the job is frozen mid-study first (a whole study
    would otherwise race the click: it may end before a Cancel lands)."""
    job = start_big_study(page, served)
    try:
        page.click("#fleet-cancel")
        expect(page.locator("#fleet-run")).to_be_enabled(timeout=10000)
        deadline = time.monotonic() + 10
        while not gone(job) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert gone(job), "Dash's cancel kills the job's process"
        expect(page.locator("#fleet-result")).not_to_contain_text("all seven features")
    finally:
        if not gone(job):
            job.kill()


def test_connections_close_after_each_response(served):
    """No keep-alive (gunicorn.conf.py): a kept-alive connection pins a viewer to one worker."""
    import http.client
    from urllib.parse import urlparse

    u = urlparse(served)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("GET", "/healthz", headers={"Connection": "keep-alive"})
        r = conn.getresponse()
        r.read()
        assert r.status == 200 and r.getheader("Connection", "").lower() == "close"
    finally:
        conn.close()
