"""Live mode in Chromium (issue 31): the app as the PaaS runs it (gunicorn, two workers) with
PROMETHEUS_URL and NMX_URL set, a real Prometheus scraping the stand-in rack every second.
The page opened bare goes to the live rack; the banner says where it was read and when; a
change of the rack (flaky, then failed) is a new address in the tab's history; a what-if on
top is left alone until "back to the live rack"; a source failing (NMX-Manager answering 500
or too slowly, a garbage series, Prometheus too slow or stopped, the last through a gate the
test holds between the twin and its Prometheus) turns the banner stale, the last reading
kept. Screenshots: artifacts/issue31-*.png."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dashboard.standin import Rack
from harness.live import Gate, Prometheus, gate, held_rack, post_json, prometheus, standin_process
from harness.page import click_part, ready
from harness.servers import ARTIFACTS, start_server, stop_server

pytestmark = pytest.mark.e2e

LINK = "gpu07-st3.sw1"
FOLLOW_MS = 15000  # a change reaching the page: the scrape, the reading, the tick, the draw
BANNER = "#live-banner"


@pytest.fixture(scope="module")
def rack() -> Rack:
    return held_rack(LINK, slow_s=6.0)


@pytest.fixture(scope="module")
def standin(rack: Rack) -> Iterator[str]:
    """The stand-in in a process of its own, serving `rack`'s schedule."""
    with standin_process(LINK, slow_s=6.0) as url:
        yield url


@pytest.fixture(scope="module")
def prom(standin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    work: Path = tmp_path_factory.mktemp("prom-page")
    with prometheus({"rack": standin.removeprefix("http://")}, work, 1) as p:
        yield p


@pytest.fixture(scope="module")
def gate_(prom: Prometheus) -> Iterator[Gate]:
    """The twin's way to its Prometheus, which a test can make slow or stop."""
    with gate(prom.url, slow_s=6.0) as g:
        yield g


@pytest.fixture(scope="module")
def live_served(gate_: Gate, standin: str) -> Iterator[str]:
    env = {
        "PROMETHEUS_URL": gate_.url,
        "NMX_URL": standin,
        "LIVE_INTERVAL_S": "1",
        "LIVE_TIMEOUT_S": "2",
        "LIVE_WINDOW_S": "10",
        "LIVE_SELECTOR": 'job="rack"',
    }
    proc, base = start_server(env)
    yield base
    stop_server(proc)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"issue31-{name}.png"))


def _followed(page, pattern: str, since: float) -> float:
    expect(page).to_have_url(re.compile(pattern), timeout=FOLLOW_MS)
    return time.monotonic() - since


def test_the_page_follows_the_live_rack(live_served, standin, page):
    page.goto(live_served + "/")
    t0 = time.monotonic()
    expect(page).to_have_url(re.compile(r"\?fabric=gb200-nvl72&on=telemetry$"), timeout=FOLLOW_MS)
    ready(page)
    banner = page.locator(BANNER)
    expect(banner).to_have_class(re.compile("live-ok"), timeout=FOLLOW_MS)
    expect(banner).to_contain_text("Live: read from Prometheus at 127.0.0.1")
    expect(banner).to_contain_text("The page follows the rack")
    expect(page.locator("#live-todo")).to_contain_text("What to do: nothing")
    _shot(page, "live-healthy")
    took = [time.monotonic() - t0]

    todo = page.locator("#live-todo")
    for phase, pattern, says, job in (
        (1, rf"flaky={LINK}", "drain the link", "degraded"),
        (2, rf"fail={LINK}", "replace the spine cable cartridge", "restarted on 71"),
    ):
        t = time.monotonic()
        post_json(f"{standin}/control", {"phase": phase})
        took.append(_followed(page, pattern, t))
        expect(page.locator("#fault-chips")).to_contain_text(LINK)
        expect(todo).to_contain_text(says, timeout=FOLLOW_MS)  # the banner's answer is in
        expect(page.locator("#cards")).to_contain_text(job, timeout=FOLLOW_MS)  # the cards'
        _shot(page, "live-flaky" if phase == 1 else "live-failed")
    print(f"\npage following the stand-in: {', '.join(f'{x:.1f} s' for x in took)}")
    expect(todo).to_contain_text("GPU-hours an hour")
    # each change a new address in the tab's history
    page.go_back()
    expect(page).to_have_url(re.compile(rf"flaky={LINK}"), timeout=FOLLOW_MS)
    expect(banner).to_contain_text("You are looking at a what-if", timeout=FOLLOW_MS)
    page.go_forward()
    expect(page).to_have_url(re.compile(rf"fail={LINK}&on"), timeout=FOLLOW_MS)
    assert page.log.errors == []


def test_a_what_if_on_top_and_back_to_live(live_served, standin, page):
    post_json(f"{standin}/control", {"phase": 2})
    page.goto(live_served + "/")
    expect(page).to_have_url(re.compile(rf"fail={LINK}"), timeout=FOLLOW_MS)
    ready(page)
    click_part(page, "st5", "gb200-nvl72")  # fail a switch tray on top of the live rack
    expect(page).to_have_url(re.compile(rf"fail={LINK},st5|fail=st5,{LINK}"), timeout=FOLLOW_MS)
    banner = page.locator(BANNER)
    expect(banner).to_contain_text("You are looking at a what-if", timeout=FOLLOW_MS)
    ticks: list[str] = []  # the live tick's callbacks answered since the what-if
    page.on(
        "response",
        lambda r: (
            "_dash-update-component" in r.url
            and "live-tick" in (r.request.post_data or "")
            and ticks.append(page.url)
        ),
    )
    deadline = time.monotonic() + FOLLOW_MS / 1000
    while len(ticks) < 3 and time.monotonic() < deadline:
        page.wait_for_event("response", timeout=FOLLOW_MS)
    assert len(ticks) >= 3, "the live tick did not run while the what-if was shown"
    assert "st5" in page.url  # three ticks later, the what-if is still what is shown
    expect(page.locator("#action-message")).to_contain_text("st5")  # what the press did
    page.evaluate("window.scrollTo(0, 0)")
    _shot(page, "live-what-if")
    banner.get_by_text("back to the live rack").click()
    expect(page).to_have_url(re.compile(rf"fail={LINK}&on=telemetry$"), timeout=FOLLOW_MS)
    expect(banner).to_contain_text("The page follows the rack", timeout=FOLLOW_MS)
    assert page.log.errors == []


FAULTS = {  # a source failing, how the test makes it fail, and what the banner says of it
    "nmx-500": ({"nmx": "500"}, None, "answered HTTP 500"),
    "nmx-slow": ({"nmx": "slow"}, None, "gave no answer within 2 s"),
    "garbage": ({"metrics": "garbage"}, None, "not a link state"),
    "prometheus-slow": (None, "slow", "gave no answer within 2 s"),
    "prometheus-stopped": (None, "down", "cannot be reached"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_source_failing_turns_the_banner_stale(live_served, standin, gate_, page, fault):
    """NMX-Manager answering 500 or slower than the timeout, the rack's scrape holding a
    garbage link state, Prometheus slower than the timeout or stopped: the banner says
    stale and why, the page keeps the last reading (its URL, what to do), never "Live" and
    never the healthy rack; once the source is back, the banner is Live again."""
    control, gate_mode, reason = FAULTS[fault]
    post_json(f"{standin}/control", {"phase": 1})
    page.goto(live_served + "/")
    expect(page).to_have_url(re.compile(rf"flaky={LINK}"), timeout=FOLLOW_MS)
    banner = page.locator(BANNER)
    expect(banner).to_have_class(re.compile("live-ok"), timeout=FOLLOW_MS)
    if control:
        post_json(f"{standin}/control", control)
    else:
        gate_.set(gate_mode)
    try:
        expect(banner).to_have_class(re.compile("live-stale"), timeout=FOLLOW_MS)
        expect(banner).to_contain_text("Stale: ")
        expect(banner).to_contain_text(reason)
        expect(banner).to_contain_text("showing the last good reading")
        expect(banner).not_to_contain_text("Live: ")
        assert re.search(rf"flaky={LINK}", page.url)  # the last reading, kept
        expect(page.locator("#live-todo")).to_contain_text("drain the link")
        expect(page.locator("#live-todo")).to_contain_text("waiting costs an expected")
        page.evaluate("window.scrollTo(0, 0)")
        _shot(page, f"live-stale-{fault}")
        if fault == "prometheus-stopped":  # the stale banner on a phone too
            page.set_viewport_size({"width": 390, "height": 844})
            page.evaluate("window.scrollTo(0, 0)")
            _shot(page, "live-stale-phone")
    finally:
        post_json(f"{standin}/control", {"nmx": "ok", "metrics": "ok"})
        gate_.set("ok")
    expect(banner).to_have_class(re.compile("live-ok"), timeout=FOLLOW_MS)
    assert re.search(rf"flaky={LINK}", page.url)
    # the 500s and timeouts are the sources' to the twin, never the page's
    assert page.log.errors == []


def test_the_live_banner_on_a_phone(live_served, standin, page):
    """The banner as it reads on a phone (390 x 844): Live, where and when, what to do."""
    post_json(f"{standin}/control", {"phase": 1})
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_served + "/")
    expect(page).to_have_url(re.compile(rf"flaky={LINK}"), timeout=FOLLOW_MS)
    banner = page.locator(BANNER)
    expect(banner).to_have_class(re.compile("live-ok"), timeout=FOLLOW_MS)
    expect(page.locator("#live-todo")).to_contain_text("waiting costs an expected")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width  # the banner and what to do wrap; the page does not scroll sideways
    page.evaluate("window.scrollTo(0, 0)")
    _shot(page, "live-ok-phone")
    assert page.log.errors == []
