"""The /fleet page (issue 30) in Chromium at 1280x800 and 390x844: a link opens one sampled
history; play moves it, a key scrubs it, and the grid shows each rack's state as the model
says; a click on a rack lists its events; the second feature set switches on the page; a bad
value is named, never a server error. Screenshots: artifacts/issue30-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from dashboard.figures.history import states_at
from harness import history_page as H
from harness.servers import ARTIFACTS
from model.query import parse_query
from model.reliability.history import history
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e

LINK = "/fleet?racks=300&days=120&seed=3&spares=1"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def _model():
    """The history the link asks for, from the model in this process."""
    return history(parse_query("").scenario, racks=300, days=120, seed=3, spares=True)


def _open(browser, size: str):
    w, h = SIZES[size]
    ctx = browser.new_context(
        viewport={"width": w, "height": h}, is_mobile=size == "phone", has_touch=size == "phone"
    )
    page = ctx.new_page()
    page.log = PageLog(page)
    return ctx, page


def _states_agree(page, h: dict) -> None:
    """The grid shows the model's states at the scrubber's time (figures.history.states_at,
    which the browser's step computes alike)."""
    t_h = h["series"]["t_h"][H.scrub_value(page)]
    want = states_at(h["rack_states"], h["racks"], t_h)
    page.wait_for_function(
        "want => { const g = document.querySelector('#hist-grid .js-plotly-plot');"
        " const z = [].concat(...g.data[0].z).filter(v => v !== null);"
        " return JSON.stringify(z) === JSON.stringify(want); }",
        arg=want,
        timeout=10000,
    )


def _shot(page, selector: str, name: str) -> None:
    """A screenshot of the screen with one part of the page at its top, as a reader
    scrolled to it sees it."""
    page.locator(selector).evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / name))


def _a_busy_time(h: dict) -> int:
    """A point of the lines where several racks are not running (so a step shows)."""
    for i in range(len(h["series"]["t_h"]) // 2, len(h["series"]["t_h"])):
        if sum(1 for s in states_at(h["rack_states"], 300, h["series"]["t_h"][i]) if s) >= 3:
            return i
    raise AssertionError("no time with three racks out")


@pytest.mark.parametrize("size", list(SIZES))
def test_open_play_scrub_pick_and_switch(served, browser, size):
    h = _model()
    ctx, page = _open(browser, size)
    page.goto(served + LINK)
    H.drawn(page)
    expect(page.locator("#hist-summary")).to_contain_text("300 racks")
    expect(page.locator("#hist-summary")).to_contain_text(f"kept {h['fraction']:.1%} goodput")
    expect(page.locator("#hist-links")).to_contain_text("single link")
    _states_agree(page, h)
    # play: the scrubber moves by itself, then stops on Pause
    start = H.scrub_value(page)
    H.play(page)
    expect(page.locator("#hist-play")).to_have_text("Pause")
    page.wait_for_function(
        f"() => +document.querySelector('{H.THUMB}').getAttribute('aria-valuenow') >= {start + 8}",
        timeout=15000,
    )
    H.play(page)
    expect(page.locator("#hist-play")).to_have_text("Play")
    stopped = H.scrub_value(page)
    page.wait_for_timeout(800)
    assert H.scrub_value(page) == stopped
    _states_agree(page, h)
    # scrub with the keyboard to a time with racks out; the words follow
    target = _a_busy_time(h)
    page.locator(H.THUMB).focus()
    key = "ArrowRight" if target > stopped else "ArrowLeft"
    for _ in range(abs(target - stopped)):
        page.keyboard.press(key)
    assert H.scrub_value(page) == target
    _states_agree(page, h)
    day = f"day {h['series']['t_h'][target] / 24:,.1f}"
    expect(page.locator("#hist-now")).to_contain_text(f"At {day}")
    expect(page.locator("#hist-events li").first).to_contain_text("rack")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"issue30-{size}-top.png"))
    _shot(page, ".hist-racks", f"issue30-{size}-grid.png")
    # pick the rack of the last event before the time shown: its events are listed
    n = sum(1 for t in h["events"]["t_h"] if t <= h["series"]["t_h"][target])
    rack = h["events"]["rack"][n - 1]
    H.pick_rack(page, rack)
    mine = sum(1 for r in h["events"]["rack"] if r == rack)
    expect(page.locator("#hist-rack h3")).to_contain_text(f"Rack {rack} under")
    expect(page.locator("#hist-rack h3")).to_contain_text(f"{mine} event")
    expect(page.locator("#hist-rack li")).to_have_count(min(mine, 40))
    cols = len(page.evaluate("document.querySelector('#hist-grid .js-plotly-plot').data[0].z[0]"))
    page.wait_for_function(  # the picked rack's cell is outlined on the grid
        "c => { const s = document.querySelector('#hist-grid .js-plotly-plot').layout.shapes;"
        " return s && s.length === 1 && s[0].x0 === c[0] - 0.5 && s[0].y0 === c[1] - 0.5; }",
        arg=[rack % cols, rack // cols],
        timeout=10000,
    )
    _shot(page, "#hist-rack", f"issue30-{size}-rack.png")
    # switch the second feature set: the link says so, both grids and the difference drawn
    H.choose_against(page, "vr-nvl72, dynamic rerouting off")
    expect(page).to_have_url(re.compile(r"against=off%3Dreroute|against=off=reroute"))
    page.wait_for_function(
        "() => { const g = document.querySelector('#hist-grid .js-plotly-plot');"
        " return g && g.data && g.data.length === 2; }",
        timeout=20000,
    )
    expect(page.locator("#hist-diff")).to_be_visible()
    expect(page.locator("#hist-partings")).to_contain_text("met another way")
    expect(page.locator("#hist-now")).to_contain_text("Against fabric=vr-nvl72&off=reroute")
    _shot(page, ".hist-racks", f"issue30-{size}-against.png")
    _shot(page, ".hist-lines", f"issue30-{size}-lines.png")
    assert page.log.errors == [], page.log.errors
    ctx.close()


@pytest.mark.parametrize(
    "query,name",
    [
        ("racks=0", "racks"),
        ("days=400", "days"),
        ("seed=x", "seed"),
        ("policy=sometimes", "policy"),
        ("against=fabric%3Dnope", "against"),
        ("fail=nothing", "fail"),
    ],
)
def test_a_bad_value_is_named_on_the_page(served, browser, query, name):
    ctx, page = _open(browser, "desktop")
    page.goto(f"{served}/fleet?{query}")
    expect(page.locator("#hist-error")).to_contain_text("This link cannot be played")
    expect(page.locator("#hist-error")).to_contain_text(f"{name}")
    assert not [e for e in page.log.errors if "HTTP 5" in e], page.log.errors
    ctx.close()


def test_the_rack_page_links_to_fleet_with_its_scenario(served, browser):
    ctx, page = _open(browser, "desktop")
    page.goto(served + "/?fail=st3&off=reroute")
    link = page.locator("#hist-open")
    expect(link).to_have_attribute("href", re.compile(r"^/fleet\?.*fail=st3"))
    link.click()
    H.drawn(page)
    assert "/fleet?" in page.url and "fail=st3" in page.url
    expect(page.locator("#hist-back")).to_have_attribute("href", re.compile("fail=st3"))
    ctx.close()
