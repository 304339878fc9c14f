"""The dashboard in a real Chromium against the Procfile's gunicorn: click to fail and repair,
the URL as the whole view, bad links, and screenshots of the main states."""

import re

import pytest
from playwright.sync_api import expect

from harness.page import (
    JOB,
    WORST,
    below,
    click_part,
    query,
    ready,
)
from harness.servers import ARTIFACTS
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e


def test_page_loads_clean(served, page):
    page.goto(served + "/")
    ready(page)
    expect(page.locator(WORST)).to_have_text("3.6 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-healthy-1280.png"), full_page=True)
    assert page.log.errors == []


def test_click_a_cable_fails_it_and_again_repairs_it(served, page):
    cable = "gpu07-st3.sw2.c0"
    page.goto(served + "/")
    ready(page, 0)
    click_part(page, cable)
    expect(page.locator(WORST)).to_have_text("3.5 TB/s")
    expect(page).to_have_url(re.compile(rf"/\?fail={re.escape(cable)}(#.*)?$"))
    expect(page).to_have_url(re.compile(rf"#link={re.escape(cable)}"))  # its series is shown
    ready(page, 1)
    page.screenshot(path=str(ARTIFACTS / "dashboard-one-cable-1280.png"), full_page=False)
    click_part(page, cable)
    expect(page.locator(WORST)).to_have_text("3.6 TB/s")
    assert "fail" not in query(page)
    assert page.log.errors == []


def test_click_a_switch_tray(served, page):
    page.goto(served + "/")
    ready(page, 0)
    click_part(page, "st3")
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    assert query(page)["fail"] == "st3"
    expect(page.locator("#cards")).to_contain_text("230.4 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-switch-tray-1280.png"), full_page=True)
    assert page.log.errors == []


def test_rerouting_off_aborts_the_job(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    expect(page.locator(JOB)).to_have_text("degraded")
    page.get_by_text("dynamic traffic rerouting", exact=True).click()
    expect(page.locator(JOB)).to_have_text("aborted until repair")
    assert query(page)["off"] == "reroute"
    page.screenshot(path=str(ARTIFACTS / "dashboard-reroute-off-1280.png"), full_page=True)
    assert page.log.errors == []


def test_a_link_reproduces_in_a_fresh_browser(served, browser):
    link = served + "/?fabric=gb200-nvl72&fail=st3.sw1,gpu07-st5.sw0.c3&off=telemetry"
    texts = []
    for _ in range(2):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        pg = ctx.new_page()
        log = PageLog(pg)
        pg.goto(link)
        ready(pg)
        # GB200 without rerouting aborts until the repair: the job's headline is 0, and the
        # 1.6 TB/s the fabric still has is in the note (issue 28: one story on the cards)
        expect(pg.locator(WORST)).to_have_text("0 TB/s")
        expect(pg.locator("#cards .card").first).to_contain_text("none of the fabric's 1.6 TB/s")
        expect(pg.locator("#fabric")).to_contain_text("GB200")
        texts.append(pg.locator("#cards").inner_text())
        assert log.errors == []
        ctx.close()
    assert texts[0] == texts[1]


def test_typed_id_and_bad_typed_id(served, page):
    page.goto(served + "/")
    ready(page)
    page.fill("#id-input", "st10")
    page.click("#fail-button")
    expect(page.locator("#action-message")).to_contain_text("st10")
    page.fill("#id-input", "gpu07")
    page.click("#fail-button")
    expect(page.locator("#cards")).to_contain_text("255.6 TB/s")
    assert query(page)["fail"] == "gpu07"


def test_bad_link_shows_its_message_and_the_rest(served, page):
    page.goto(served + "/?fail=st3,st10,gpu99-st1.sw0&off=warp&colour=red")
    ready(page)
    for tok in ("st10", "gpu99", "warp", "colour"):
        expect(page.locator("#messages")).to_contain_text(tok)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-bad-link-1280.png"), full_page=False)
    assert page.log.errors == []


def test_phone_width(served, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    pg = ctx.new_page()
    log = PageLog(pg)
    pg.goto(served + "/?fail=st3&flaky=gpu20-st5.sw1")
    ready(pg)
    expect(pg.locator(WORST)).to_have_text("3.19 TB/s")  # st3 lost, and gpu20's flaky link
    pg.screenshot(path=str(ARTIFACTS / "dashboard-switch-tray-phone.png"), full_page=True)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 392
    assert log.errors == []
    ctx.close()


def test_view_options_travel_in_the_fragment(served, page):
    link = (
        served + "/?fail=st3&flaky=gpu20-st5.sw1"
        "#counter=DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL&link=gpu20-st5.sw1&compare=fabric%3Dgb200-nvl72"
    )
    page.goto(link)
    ready(page)
    expect(page.locator("#counter")).to_contain_text(
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"
    )
    expect(page.locator("#link-input")).to_have_value("gpu20-st5.sw1")
    below(page)  # drawn once scrolled to: its callback starts then
    expect(page.locator("#compare-table")).to_contain_text("fabric=gb200-nvl72", timeout=30000)
    page.fill("#link-input", "gpu21-st5.sw1")
    page.press("#link-input", "Enter")
    expect(page).to_have_url(re.compile(r"#.*link=gpu21-st5\.sw1"))
    page.goto(served + "/?fail=st3#counter=BOGUS")
    expect(page.locator("#view-message")).to_contain_text("BOGUS")
    assert page.log.errors == []


def test_markup_anywhere_in_the_link_never_runs(served, page):
    evil = "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
    page.goto(f"{served}/?fail=st3,{evil}&workload={evil}#link={evil}&compare=fail%3D{evil}")
    ready(page)
    expect(page.locator("#messages")).to_contain_text("<img src=x onerror=alert(1)>")
    expect(page.locator("#link-input")).to_have_value("<img src=x onerror=alert(1)>")
    page.fill("#id-input", "<script>alert(2)</script>")
    page.click("#fail-button")
    expect(page.locator("#action-message")).to_contain_text("<script>")
    page.wait_for_timeout(500)
    assert page.locator("img[src=x]").count() == 0
    assert page.log.dialogs == []
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
