"""Presses cannot race (issue 28): a press edits the URL's query in the browser, on the query
as it is then, so quick presses compose however slow the server is. Thirty presses on
distinct cables (the map) and switch chips (the drawing), about 150 ms apart, on an idle
machine and with two processes burning both cores: the URL's fail= holds all thirty, and the
cards equal a fresh open of that URL. A double-click is two presses: it changes nothing."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import TRACES, point_ids
from harness.page import CABLES, MAP_LABEL, cell_xy, map_ready, query, rack_xy, ready
from harness.servers import ARTIFACTS

pytestmark = pytest.mark.e2e

CHIPS = point_ids("vr-nvl72")[TRACES["chips"]]
# 20 cables spread over the map and 10 chips of other trays than theirs' neighbours
PRESSED_CABLES = [CABLES[(k * 1297) % len(CABLES)] for k in range(20)]
PRESSED_CHIPS = [CHIPS[(k * 7) % len(CHIPS)] for k in range(10)]
GAP_MS = 150  # from one press to the next

HELD = """(() => {
  const fetch0 = window.fetch;
  window.fetch = function (url, opts) {
    if (String(url).includes("_dash-update-component")) {
      return new Promise((r) => setTimeout(r, 1500)).then(() => fetch0(url, opts));
    }
    return fetch0(url, opts);
  };
})()"""


@contextlib.contextmanager
def burning(n: int):
    """n processes each burning a core, for as long as the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def cards(page) -> list[str]:
    return page.locator("#cards .card").evaluate_all(
        "cs => cs.map(c => (c.querySelector('.card-title') || {}).textContent + ': ' +"
        " (c.querySelector('.card-value') || {}).textContent)"
    )


def fresh_cards(browser, url: str) -> list[str]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    pg.goto(url)
    ready(pg)
    expect(pg.locator("#cards .card").first).to_be_visible(timeout=30000)
    pg.wait_for_timeout(1500)  # every card's callback answered
    got = cards(pg)
    ctx.close()
    return got


def places(page) -> list[tuple[str, float, float]]:
    """Each part to press and where, in the viewport: cables at their map cells, chips at
    their markers on the drawing (both views in view at 1280x800)."""
    page.locator("#cable-map").scroll_into_view_if_needed()
    chips_at = [rack_xy(page, TRACES["chips"], CHIPS.index(c)) for c in PRESSED_CHIPS]
    cables_at = [cell_xy(page, CABLES.index(c)) for c in PRESSED_CABLES]
    out = [(c, *xy) for c, xy in zip(PRESSED_CABLES, cables_at, strict=True)]
    for i, (c, xy) in enumerate(zip(PRESSED_CHIPS, chips_at, strict=True)):
        out.insert(3 * i + 1, (c, *xy))  # a chip after every two cables
    return out


@pytest.mark.parametrize("load", ["idle", "both cores busy"])
def test_thirty_quick_presses_all_land(served, browser, page, load):
    page.goto(served + "/")
    ready(page, 0)
    map_ready(page)
    where = places(page)
    assert len(where) == 30 and len({c for c, *_ in where}) == 30
    with burning(2 if load != "idle" else 0):
        for _, x, y in where:
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.up()
            page.wait_for_timeout(GAP_MS)
        want = {c for c, *_ in where}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if set(query(page).get("fail", "").split(",")) == want:
                break
            page.wait_for_timeout(200)
        assert set(query(page).get("fail", "").split(",")) == want
    # the cards settle on what a fresh open of the same link shows
    expected = fresh_cards(browser, page.url.split("#")[0])
    deadline = time.monotonic() + 30
    while cards(page) != expected and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert cards(page) == expected
    page.screenshot(path=str(ARTIFACTS / f"issue28-thirty-presses-{load.split()[0]}.png"))
    assert page.log.errors == []


def test_presses_compose_while_the_server_holds_its_answers(served, page):
    """Every answer held back 1.5 s (a loaded server): a, b, then a again, pressed while
    the others are in flight, leave b alone failed."""
    page.add_init_script(HELD)
    page.goto(served + "/")
    ready(page, 0)
    map_ready(page)
    a, b = "gpu10-st1.sw0.c0", "gpu30-st5.sw2.c1"
    page.locator("#cable-map").scroll_into_view_if_needed()
    for cable in (a, b, a):
        x, y = cell_xy(page, CABLES.index(cable))
        page.mouse.click(x, y)
        page.wait_for_timeout(100)
    expect(page).to_have_url(f"{served}/?fail={b}", timeout=5000)  # at once: no answer needed
    ready(page, 1)
    expect(page.locator("#action-message")).to_contain_text(f"{a} repaired", timeout=15000)
    assert query(page) == {"fail": b}
    assert page.log.errors == []


def test_a_double_click_changes_nothing(served, page):
    """No double-click gesture on the rack: a double-click on a cable of the map, or on a
    chip of the drawing, is a press and a second press, which repairs what the first
    failed; the zoom's reset is the mode bar's button, always shown."""
    page.goto(served + "/")
    ready(page, 0)
    map_ready(page)
    page.locator("#cable-map").scroll_into_view_if_needed()
    cable = "gpu20-st4.sw1.c0"
    x, y = cell_xy(page, CABLES.index(cable))
    page.mouse.move(x, y)
    expect(page.locator(MAP_LABEL).first).to_contain_text(f"cable {cable}", timeout=5000)
    page.mouse.dblclick(x, y)
    expect(page.locator("#action-message")).to_contain_text(f"{cable} repaired", timeout=15000)
    assert query(page) == {}
    chip = "st6.sw2"
    x, y = rack_xy(page, TRACES["chips"], CHIPS.index(chip))
    page.mouse.dblclick(x, y)
    expect(page.locator("#action-message")).to_contain_text(f"{chip} repaired", timeout=15000)
    assert query(page) == {}
    ready(page, 0)
    reset = page.locator("#rack .modebar-btn[data-val='reset']")
    expect(reset).to_be_visible()  # without a hover: the mode bar is always shown
    assert page.log.errors == []
