"""The first page in a real Chromium against gunicorn run by the Procfile's command."""

import pytest
from playwright.sync_api import expect

from harness.page import ready
from harness.servers import ARTIFACTS, start_server, stop_server
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e


def test_fresh_server_first_load_has_no_errors(browser):
    """plotly/dash#3971: the first pages of a freshly started server must load cleanly."""
    proc, base = start_server()
    try:
        ctxs = [browser.new_context() for _ in range(3)]
        pages = [c.new_page() for c in ctxs]
        logs = [PageLog(p) for p in pages]
        for p in pages:  # three browsers at once on the cold workers
            p.goto(base + "/?fail=st3", wait_until="commit")
        for p, log in zip(pages, logs, strict=True):
            expect(p.locator("#cards")).to_contain_text("3.2 TB/s", timeout=20000)
            assert log.errors == []
        for c in ctxs:
            c.close()
    finally:
        stop_server(proc)


def test_scenario_from_the_url(served, page):
    page.goto(served + "/?fail=gpu07-st3.sw2.c0")
    expect(page.locator("#cards")).to_contain_text("3.5 TB/s")
    expect(page.locator("#counts")).to_contain_text("2,591 of 2,592")
    expect(page.locator("#events")).to_contain_text("gpu07-st3.sw2.c0 failed")
    page.screenshot(path=str(ARTIFACTS / "first-page-cable.png"), full_page=True)
    assert page.log.errors == []


def test_bad_link_shows_message_and_the_rest(served, page):
    page.goto(served + "/?fail=st3,st10&off=bogus")
    expect(page.locator("#messages")).to_contain_text("st10")
    expect(page.locator("#messages")).to_contain_text("bogus")
    expect(page.locator("#cards")).to_contain_text("3.2 TB/s")
    page.screenshot(path=str(ARTIFACTS / "first-page-bad-link.png"), full_page=True)
    assert page.log.errors == []


def test_markup_in_the_url_is_text(served, page):
    page.goto(served + "/?fail=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    # the page open first (up to 30 s on a busy machine: bench/README.md's open-a-link row),
    # then the message its first answer wrote
    ready(page)
    expect(page.locator("#messages")).to_contain_text("<img src=x onerror=alert(1)>")
    assert page.locator("#messages img").count() == 0
    assert page.log.dialogs == []


def test_phone_width(served, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    pg = ctx.new_page()
    pg.goto(served + "/?fail=st3")
    expect(pg.locator("#cards")).to_contain_text("3.2 TB/s")
    pg.screenshot(path=str(ARTIFACTS / "first-page-phone.png"), full_page=True)
    width = pg.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    ctx.close()
