"""The cable map beside the drawing (issue 13, problem 2): every cable found by pointing at
the default zoom, linked to the drawing both ways, and clicked like the drawing's cable."""

import random
import re

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack.geometry import CABLE_LEVELS
from harness.page import (
    CABLES,
    COLS,
    MAP,
    MAP_LABEL,
    RACK_LABEL,
    WORST,
    cell_xy,
    hover_part,
    map_ready,
    query,
    ready,
)

pytestmark = pytest.mark.e2e


def _cell_px(page) -> tuple[float, float]:
    return tuple(
        page.evaluate(
            f"""() => {{ const l = {MAP}._fullLayout;
            return [l.xaxis._length / l.xaxis._categories.length,
                    l.yaxis._length / l.yaxis._categories.length]; }}"""
        )
    )


def test_200_random_cables_read_their_own_id_at_the_default_zoom(served, page):
    """1280x800, the page as it opens: every one of 200 random cables pointed at on the map
    names itself, and the drawing lights the same cable."""
    page.goto(served + "/")
    ready(page, 0)
    map_ready(page)
    page.locator("#cable-map").scroll_into_view_if_needed()
    w, h = _cell_px(page)
    assert w >= 4 and h >= 7, (w, h)  # cells a pointer can hold
    label, rack_label = page.locator(MAP_LABEL).first, page.locator(RACK_LABEL).first
    for n, k in enumerate(random.Random(13).sample(range(len(CABLES)), 200)):
        x, y = cell_xy(page, k)
        page.mouse.move(x, y)
        expect(label).to_contain_text(f"cable {CABLES[k]}healthy · click to fail", timeout=5000)
        if n % 25 == 0:  # the drawing lights the same cable (plotly's label at its marker)
            expect(rack_label).to_contain_text(f"cable {CABLES[k]}", timeout=5000)
    assert page.log.errors == []


def test_the_map_clicks_like_the_drawing_and_hovers_both_ways(served, page):
    page.goto(served + "/?fail=st5")
    ready(page)
    map_ready(page, "click to fail it too")
    cable = "gpu07-st3.sw2.c0"
    k = CABLES.index(cable)
    z = page.evaluate(f"([r, c]) => {MAP}.data[0].z[r][c]", [k // COLS, k % COLS])
    assert CABLE_LEVELS[z] == "rerouted 10 to 33%"  # its GPU lost st5's 1/9
    page.locator("#cable-map").scroll_into_view_if_needed()
    x, y = cell_xy(page, k)
    page.mouse.move(x, y)
    expect(page.locator(MAP_LABEL).first).to_contain_text(f"cable {cable}")
    expect(page.locator("#hover-details")).to_contain_text(f"{cable} · rerouted")  # the line
    page.mouse.move(x + 1, y)  # the same cell
    page.mouse.down()
    page.mouse.up()
    expect(page).to_have_url(re.compile(rf"\?fail=st5,{re.escape(cable)}(#.*)?$"), timeout=15000)
    expect(page.locator(WORST)).to_have_text("3.1 TB/s")
    page.wait_for_function(  # its cell now failed
        f"([r, c, z]) => {MAP}.data[0].z[r][c] === z",
        arg=[k // COLS, k % COLS, CABLE_LEVELS.index("failed")],
    )
    map_ready(page, "click to repair")
    # the drawing's mirrored label, up through the press, reads the new state, not the old
    expect(page.locator(RACK_LABEL).first).to_contain_text("failed · click to repair")
    page.mouse.move(5, 5)  # off the map: the line under the rack forgets the cable
    expect(page.locator("#hover-details")).to_have_text(re.compile(r"^Hover a cable or a part"))
    # the drawing's cable lights its cell on the map
    hover_part(page, "gpu40-st1.sw0.c1")
    expect(page.locator(MAP_LABEL).first).to_contain_text("cable gpu40-st1.sw0.c1")
    # a double-click on the map fails nothing (the first click's press is taken back)
    x, y = cell_xy(page, CABLES.index("gpu41-st2.sw1.c0"))
    page.mouse.move(x, y)
    page.mouse.dblclick(x, y)
    page.wait_for_timeout(800)
    assert query(page) == {"fail": f"st5,{cable}"}
    assert page.log.errors == []
