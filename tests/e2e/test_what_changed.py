"""What changed (issue 13): the faults as chips that each take their fault away, undo /
redo through the scenarios the page has shown, and each card's value before the change."""

import re

import pytest
from playwright.sync_api import expect

from harness.page import WORST, click_part, query, ready

pytestmark = pytest.mark.e2e

URL_MS = 15000  # a change reaching the URL: the machine may be busy


def test_chips_undo_and_redo(served, page):
    page.goto(served + "/?fail=st3,gpu07&flaky=gpu20-st5.sw1")
    ready(page)
    chips = page.locator("#fault-chips .chip")
    expect(chips).to_have_text(["gpu07 ×", "st3 ×", "gpu20-st5.sw1 (flaky) ×"])  # canonical order
    expect(page.locator("#undo-btn")).to_be_disabled()
    expect(page.locator(WORST)).to_have_text(re.compile(r"^3\.1\d TB/s$"))  # st3 lost too
    before = page.locator(WORST).inner_text()
    chips.filter(has_text="st3 ×").click()  # st3 alone repaired
    expect(page).to_have_url(
        re.compile(r"\?fail=gpu07&flaky=gpu20-st5\.sw1(#.*)?$"), timeout=URL_MS
    )
    expect(chips).to_have_text(["gpu07 ×", "gpu20-st5.sw1 (flaky) ×"])
    expect(page.locator(WORST)).to_have_text("3.59 TB/s")  # the flaky link's GPU
    # each card says what it was before the change, where it changed
    expect(page.locator(WORST)).to_have_attribute("data-was", f"was {before}")
    unchanged = page.locator("#cards .card", has_text="Control plane").locator(".card-value")
    expect(unchanged).not_to_have_attribute("data-was", re.compile("."))
    page.locator("#undo-btn").click()  # st3 back
    expect(page).to_have_url(re.compile(r"fail=st3,gpu07&flaky"), timeout=URL_MS)
    expect(page.locator(WORST)).to_have_text(before)
    expect(page.locator("#undo-btn")).to_be_disabled()  # the first scenario of this tab
    page.locator("#redo-btn").click()
    expect(page).to_have_url(
        re.compile(r"\?fail=gpu07&flaky=gpu20-st5\.sw1(#.*)?$"), timeout=URL_MS
    )
    expect(page.locator("#redo-btn")).to_be_disabled()
    # a new change after an undo drops what was undone
    page.locator("#undo-btn").click()
    expect(page).to_have_url(re.compile(r"fail=st3,gpu07&flaky"), timeout=URL_MS)
    click_part(page, "st5")
    # added to the query as it was (the press edits it in the browser: rack_press.js)
    expect(page).to_have_url(re.compile(r"fail=st3,gpu07,st5"), timeout=URL_MS)
    expect(page.locator("#redo-btn")).to_be_disabled()
    expect(page.locator("#undo-btn")).to_be_enabled()
    assert query(page)["flaky"] == "gpu20-st5.sw1"
    assert page.log.errors == []
