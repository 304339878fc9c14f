"""The page on a phone (issue 28, problem 8)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from harness.page import point_ids, rack_xy, ready
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


def _phone(browser):
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    return ctx, ctx.new_page()


def _top(page, sel: str) -> float:
    return page.locator(sel).first.evaluate("e => e.getBoundingClientRect().top + scrollY")


def test_the_cards_come_right_after_the_rack_and_the_map_cells_are_readable(served, browser):
    """At 390x844 the cards began two screens down, under the cable map, whose 72 columns
    were 4 px wide. Now: the drawing, then the cards, then the map, which scrolls sideways
    in its own box with cells wide enough to tap; the page itself does not scroll sideways."""
    ctx, page = _phone(browser)
    page.goto(served + "/?fail=st3")
    ready(page)
    rack, cards, cmap = _top(page, "#rack-keys"), _top(page, "#cards"), _top(page, "#map-keys")
    assert rack < cards < cmap, (rack, cards, cmap)
    rack_bottom = page.locator("#rack-keys").evaluate("e => e.getBoundingClientRect().bottom")
    assert cards - rack_bottom < 160  # the hover line, messages and faults row between
    assert cards < 1.2 * 844  # the first card's top within a fifth of a screen of the fold
    cell = page.evaluate(
        """() => { const gd = document.querySelector('#cable-map .js-plotly-plot');
        return gd._fullLayout.xaxis._length / gd.layout.meta.cols; }"""
    )
    assert cell >= 9, cell
    assert page.evaluate("document.documentElement.scrollWidth") <= 392
    page.screenshot(path=str(ARTIFACTS / "issue28-phone-first-screen.png"))
    ctx.close()


def test_a_tap_leaves_no_stale_label(served, browser):
    """After a tap failed gpu20 its label still said "click to fail": the label is the
    redrawn rack's, or gone."""
    ctx, page = _phone(browser)
    page.goto(served + "/")
    ready(page)
    x, y = rack_xy(page, *_gpu(20))
    page.touchscreen.tap(x, y)
    expect(page).to_have_url(re.compile(r"fail=gpu20"))
    ready(page, None)
    label = page.locator("#rack .hoverlayer .hovertext")
    page.wait_for_timeout(600)  # the redraw done and any relabel with it
    if label.count():
        expect(label.first).not_to_contain_text("click to fail")
        expect(label.first).to_contain_text("gpu20")
    ctx.close()


def _gpu(n: int) -> tuple[int, int]:
    for curve, names in point_ids("vr-nvl72").items():
        name = f"gpu{n:02d}"
        if name in names:
            return curve, names.index(name)
    raise AssertionError("no gpu marker")


def test_no_tool_bar_over_a_chart_s_legend_on_a_phone(served, browser):
    """A chart's tool bar, brought up by a tap, covered its legend at 390x844. Checked on
    every chart below the rack: no tool bar's box meets its legend's."""
    ctx, page = _phone(browser)
    page.goto(served + "/?fail=st3")
    ready(page)
    page.locator(".charts h2").first.scroll_into_view_if_needed()
    page.wait_for_function("() => window.belowDrawn && true")
    page.evaluate("() => window.belowDrawn()")
    chart = page.locator("#decode-chart .js-plotly-plot")
    box = chart.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 3)
    page.wait_for_timeout(300)
    overlaps = page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
          .filter(g => !g.closest('.top')).flatMap(g => {
            const bar = g.querySelector('.modebar'), key = g.querySelector('.legend');
            if (!bar || !key) return [];
            const a = bar.getBoundingClientRect(), b = key.getBoundingClientRect();
            const hit = a.width > 0 && a.left < b.right && b.left < a.right
              && a.top < b.bottom && b.top < a.bottom;
            return hit ? [g.closest('[id]').id] : []; })"""
    )
    assert overlaps == [], overlaps
    rack_bar = page.locator("#rack .modebar")
    assert rack_bar.count() == 1  # the rack keeps its zoom and reset
    ctx.close()
