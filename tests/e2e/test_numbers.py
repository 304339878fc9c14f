"""Issue 28, problem 9: numbers for people. One formatter (model/words.py) for units and
significant figures (µs everywhere), plurals, no clause said twice, a key that fits."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from dashboard.figures import rack as rf
from harness.page import WORST, below, ink_share, ready

pytestmark = pytest.mark.e2e


def _card(page, title: str):
    return page.locator("#cards .card").filter(has=page.locator(".card-title", has_text=title))


def test_latency_in_microseconds_to_three_figures_everywhere(served, page):
    """ "0.75 / 2 us" beside "0.394 / 1.86 us", and "us" on cards but "µs" on charts."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3")
    ready(page)
    lat = _card(page, "Latency p50 / p99")
    expect(lat.locator(".card-value")).to_have_text("0.394 / 1.86 µs")
    expect(lat.locator(".card-healthy")).to_have_text("healthy rack: 0.350 / 1.63 µs")
    expect(page.locator("#cards")).not_to_contain_text(re.compile(r"\bus\b"))
    below(page)
    compare = page.locator("#compare-table")
    compare.scroll_into_view_if_needed()
    expect(compare).to_contain_text("latency p50 / p99, µs", timeout=30000)
    expect(compare).not_to_contain_text(re.compile(r"\bus\b"))
    assert page.log.errors == []


def test_bandwidth_keeps_its_decimal(served, page):
    """ "3 TB/s" beside "3.59 TB/s", and "237 TB/s (was 237.1)": a whole number lost its
    decimal and read as less precise, or as a change."""
    page.goto(served + "/?fail=st3,st5.sw0,st5.sw1")  # 30 of 36 planes: 3.0 TB/s exactly
    ready(page)
    expect(page.locator(WORST)).to_have_text("3.0 TB/s")
    expect(_card(page, "Rack bandwidth").locator(".card-value")).to_have_text("216.0 TB/s")
    assert page.log.errors == []


def test_no_count_in_brackets_and_no_clause_twice(served, page):
    """ "GPU(s)", "1 tray controller(s)", "full-bandwidth mode: 2 switch chip(s) out in
    full-bandwidth mode", "healthy rack: 1.58 s / healthy 1.58 s"."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3,gpu20&on=partial-rack")
    ready(page)
    side = page.locator(".top-side")
    expect(_card(page, "Partition")).to_contain_text("full-bandwidth mode; 2 switch chips out")
    text = side.inner_text()
    assert "(s)" not in text, text
    # the card once, the events' "now" once (the feature notes say what the mode is, apart)
    assert page.locator("#cards").inner_text().count("full-bandwidth mode") == 1
    assert page.locator("#events").inner_text().count("full-bandwidth mode") == 1
    expect(page.locator("#events")).to_contain_text("1 tray controller down")
    page.goto(served + "/?fail=st3&workload=train")
    ready(page)
    training = _card(page, "Training step")
    expect(training.locator(".card-healthy")).to_have_text(re.compile(r"^healthy rack: \S+ s$"))
    expect(training.locator(".card-note")).to_have_text(
        re.compile(r"^\d+\.\d% of the healthy rack's tokens/s; ")
    )
    assert page.log.errors == []


def test_the_key_fits_the_rack(served, page):
    """The key's first line ran past the figure's edge: ">33%" was clipped."""
    page.goto(served + "/?fail=st3")
    ready(page)
    over = page.evaluate(
        """() => { const svg = document.querySelector('#rack .main-svg').getBoundingClientRect();
        return [...document.querySelectorAll('#rack .annotation-text')]
          .filter(t => t.textContent.includes('>33%'))
          .map(t => t.getBoundingClientRect().right - svg.right); }"""
    )
    assert len(over) == 1 and over[0] <= 0, over
    assert page.log.errors == []


def test_the_timeline_after_a_day_counts_on_in_hours(served, page):
    """The timeline's "1 d" was followed by "+1 h" (meaning 25 h)."""
    page.goto(served + "/?fail=st3")
    ready(page)
    below(page)
    chart = page.locator("#timeline-chart")
    chart.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const gd = document.querySelector('#timeline-chart .js-plotly-plot');"
        " return gd && gd.layout && gd.layout.xaxis && gd.layout.xaxis.ticktext; }",
        timeout=30000,
    )
    ticks = page.evaluate(
        "() => document.querySelector('#timeline-chart .js-plotly-plot').layout.xaxis.ticktext"
    )
    assert ticks[-3:] == ["1 h", "24 h", "25 h"], ticks
    assert not any(t.startswith("+") for t in ticks), ticks
    assert page.log.errors == []


@pytest.mark.parametrize("viewport", [(1280, 800), (1920, 1080)])
def test_the_spine_looks_as_down_as_its_cables_are(served, browser, viewport):
    """A lost tray's 11% of the cables, drawn at 2 px over the rest, read as 59% of the spine.
    The failed overlay's ink is now its share of the cables, within 30%, for one, three
    and six trays lost (measured by unmixing the rendered spine's colours), and a single
    failed link stays easy to find."""
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = ctx.new_page()
    failed = rf.TRACES["failed"]
    for trays in ("st3", "st3,st5,st7", "st1,st2,st3,st4,st5,st6"):
        page.goto(served + "/?fail=" + trays)
        ready(page, n_failed=576 * (trays.count(",") + 1))
        share = ink_share(page, failed, rf.PANEL_BG)
        want = (trays.count(",") + 1) / 9
        assert 0.7 * want <= share <= 1.3 * want, (trays, share, want)
    page.goto(served + "/?fail=gpu07-st3.sw2")
    ready(page, n_failed=2)
    width = page.evaluate(
        f"document.querySelector('#rack .js-plotly-plot').data[{failed}].line.width"
    )
    assert width == rf.STATUS_WIDTHS["failed"]  # two cables, drawn bold
    ctx.close()
