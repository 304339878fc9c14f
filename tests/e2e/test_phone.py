"""The page on a phone (issue 28, problem 8)."""

from __future__ import annotations

import pytest

from harness.page import ready
from harness.servers import ARTIFACTS

pytestmark = pytest.mark.e2e


def test_the_find_box_is_whole_on_a_phone(served, browser):
    """The find box was cut to "find: gpu" at 390x844: its input now spans the row, wide
    enough for its whole placeholder, and its button stays on the screen."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(served + "/?fail=st3")
    ready(page)
    box = page.locator("#id-input")
    width = box.evaluate("e => e.getBoundingClientRect().width")
    # the placeholder's own width, in the input's font
    needs = box.evaluate(
        """e => { const c = document.createElement('canvas').getContext('2d');
        c.font = getComputedStyle(e).font; return c.measureText(e.placeholder).width; }"""
    )
    assert width >= needs + 8, (width, needs)
    button = page.get_by_role("button", name="Apply click").bounding_box()
    assert button["x"] + button["width"] <= 390  # on the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 392
    page.locator(".rack-head").screenshot(path=str(ARTIFACTS / "issue28-phone-find.png"))
    ctx.close()
