"""The first screen (issue 13, problem 5): the rack and the headline cards without scrolling
at 1280x800 and 1024x768, the rack first on a phone, a presentation mode for a projector, and
the rack's parts and cables reached from the keyboard."""

import re

import pytest
from playwright.sync_api import expect

from harness.page import WORST, query, ready
from harness.servers import ARTIFACTS
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e

HEADLINE = 6  # the first row or two of cards: bandwidth, compute, latency, partition, job


def _box(page, sel: str) -> dict:
    return page.locator(sel).first.bounding_box()


@pytest.mark.parametrize("w,h", [(1280, 800), (1024, 768)])
def test_rack_and_headline_cards_without_scrolling(served, browser, w, h):
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    log = PageLog(page)
    page.goto(served + "/?fail=st3")
    ready(page, 72 * 4 * 2)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    assert page.evaluate("window.scrollY") == 0
    rack = _box(page, "#rack .js-plotly-plot")
    assert rack["y"] >= 0 and rack["y"] + rack["height"] <= h + 1, rack
    for i in range(HEADLINE):
        card = page.locator("#cards .card").nth(i).bounding_box()
        assert card["y"] + card["height"] <= h and card["x"] + card["width"] <= w, (i, card)
    assert log.errors == []
    ctx.close()


def test_the_rack_comes_first_on_a_phone(served, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = ctx.new_page()
    log = PageLog(page)
    page.goto(served + "/?fail=st3")
    ready(page)
    rack, first_card = _box(page, "#rack .js-plotly-plot"), _box(page, "#cards .card")
    assert rack["y"] < 844 / 2 and rack["y"] < first_card["y"], (rack, first_card)
    assert page.evaluate("document.documentElement.scrollWidth") <= 392
    assert log.errors == []
    ctx.close()


def test_presentation_mode_rack_and_cards_in_large_type(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    page.get_by_role("button", name="Present").click()
    for hidden in (".top-side .controls", ".charts", ".compare", "#hover-details", ".side"):
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.locator("#rack .js-plotly-plot")).to_be_visible()
    size = page.locator(WORST).evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 30, size
    page.keyboard.press("Escape")
    expect(page.locator(".top-side .controls")).to_be_visible()
    expect(page.get_by_role("button", name="Present")).to_be_visible()
    assert query(page) == {"fail": "st3"}  # the scenario untouched
    assert page.log.errors == []


def test_the_keyboard_walks_and_presses_the_rack_and_the_map(served, page):
    page.goto(served + "/")
    ready(page, 0)
    page.locator("#rack-keys").focus()
    page.keyboard.press("ArrowRight")  # ct01's row: the tray, then its GPUs
    label = page.locator("#rack .hoverlayer .hovertext").first
    expect(label).to_contain_text("GPU gpu00")
    page.keyboard.press("ArrowDown")  # ct02's row, its first GPU
    expect(label).to_contain_text("GPU gpu04")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?fail=gpu04(#.*)?$"))
    page.locator("#map-keys").focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown"):  # row gpu01, column 2
        page.keyboard.press(key)
    expect(page.locator("#cable-map .hoverlayer .hovertext").first).to_contain_text(
        "cable gpu01-st1.sw1.c0"
    )
    expect(page.locator("#hover-details")).to_contain_text("gpu01-st1.sw1.c0")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"fail=gpu04,gpu01-st1\.sw1\.c0"))
    assert page.log.errors == []


@pytest.mark.parametrize(
    "w,h,phone", [(1280, 800, 0), (1920, 1080, 0), (1024, 768, 0), (390, 844, 1)]
)
def test_the_page_at_four_viewports(served, browser, w, h, phone):
    """Issue 28's screenshots (artifacts/issue28-WxH.png, looked at for the closing note): a
    GPU and a switch tray lost. At each size the page fits its width and logs no error, and
    the job card tells the story the other cards tell."""
    ctx = browser.new_context(viewport={"width": w, "height": h}, is_mobile=bool(phone))
    page = ctx.new_page()
    log = PageLog(page)
    page.goto(served + "/?fail=gpu08,st3")
    ready(page)
    job = page.locator("#cards .card", has=page.locator(".card-title", has_text="Job"))
    expect(job.locator(".card-value")).to_have_text("restarted on 71 GPUs")
    assert page.evaluate("document.documentElement.scrollWidth") <= w + 2
    if not phone:  # the hover line sat below the rack panel's edge, cut to 10 px of 45
        line = page.locator("#hover-details").bounding_box()
        panel = page.locator(".rack-panel").bounding_box()
        assert line["y"] + line["height"] <= panel["y"] + panel["height"] + 1, (line, panel)
    page.screenshot(path=str(ARTIFACTS / f"issue28-{w}x{h}.png"), full_page=True)
    assert log.errors == []
    ctx.close()
