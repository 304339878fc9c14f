"""A multi-rack domain on the page: pick a rack, click its parts, click an L2 chip."""

import re

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import TRACES
from harness.page import WORST, click_part, ready
from harness.servers import ARTIFACTS

pytestmark = pytest.mark.e2e


def _l2_xy(page, index: int) -> tuple[float, float]:
    return tuple(
        page.evaluate(
            """i => { const gd = document.querySelector('#l2-chart .js-plotly-plot');
            const t = gd._fullData[0], xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            const r = gd.getBoundingClientRect();
            return [r.left + xa._offset + xa.l2p(t.x[i]), r.top + ya._offset + ya.l2p(t.y[i])]; }""",
            index,
        )
    )


def _hover_and_press(page, x: float, y: float, says: str, url: str) -> None:
    """Point at (x, y) on the L2 chart (arriving from a pixel away), read its hover, press."""
    page.mouse.move(x - 1, y - 1)
    page.mouse.move(x, y)
    expect(page.locator("#l2-chart .hoverlayer .hovertext")).to_contain_text(says)
    page.mouse.down()
    page.mouse.up()
    # What is checked is that the press fails the part, not how fast: on a slow 2-core
    # machine a domain page's press reached plotly at once, but its request went out
    # 0.9-4.6 s later (measured 2026-12-02; why is open, see the stop's note), past
    # Playwright's default 5 s with the test's own work. Speed belongs in bench/.
    expect(page).to_have_url(re.compile(url), timeout=15000)


def test_domain_rack_and_l2_clicks(served, page):
    page.goto(served + "/?fabric=vr-nvl576#rack=r03")
    ready(page)
    expect(page.locator("#cards")).to_contain_text("2073.6 TB/s")
    expect(page.locator("#rack-select")).to_contain_text("r03")
    with page.expect_response(
        lambda r: (
            "_dash-update-component" in r.url and "l2-chart.figure" in (r.request.post_data or "")
        )
    ):
        click_part(page, "st3")
    expect(page).to_have_url(re.compile(r"fail=r03\.st3"))
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    # the L2 tier drawn for the new scenario (its trunk map shows r03's trunks from st3
    # down) before it is pointed at: a redraw landing between the hover and the click
    # clears the hover, as it would for a person. Counting draws after the press was not
    # enough: the page's own first draw of the chart can land after the press on a loaded
    # machine (two draws seen, 217 and 696 ms after it), and the press's draw then came
    # between the hover and the click, which loses the click.
    page.wait_for_function(
        """() => { const gd = document.querySelector('#l2-chart .js-plotly-plot');
        const t = gd && gd.data && gd.data.find(d => d.name === 'trunks');
        return t && t.z.some(row => row.some(v => v !== 0)); }"""
    )
    # an L2 chip: plane 5's second chip (index 5 x 4 + 1)
    page.locator("#l2-chart").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#l2-chart .js-plotly-plot')._fullData")
    _hover_and_press(page, *_l2_xy(page, 5 * 4 + 1), says="l2.p05.s1", url=r"l2\.p05\.s1")
    expect(page.locator("#cards")).to_contain_text("L2 chips in service")
    page.screenshot(path=str(ARTIFACTS / "dashboard-nvl576-1280.png"), full_page=True)
    assert page.log.errors == []


GD = "document.querySelector('#rack .js-plotly-plot')"
L2 = "document.querySelector('#l2-chart .js-plotly-plot')"


def test_find_any_part_of_a_domain_by_typing(served, page):
    """The find box on a domain: a rack's cable puts its rack on show and highlights it, an
    L2 tray and a trunk ring their L2 chips; nothing is failed."""
    page.goto(served + "/?fabric=vr-nvl576&fail=r02.st3")
    ready(page)
    box = page.locator("#id-input")
    box.press_sequentially("R07.GPU11-ST4.SW1.C")
    expect(page.locator("#find-options option")).to_have_count(2)
    box.press("1")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"#rack=r07&sel=r07\.gpu11-st4\.sw1\.c1$"))
    expect(page.locator("#rack-select")).to_contain_text("r07")
    sel = TRACES["selected"]  # its one cable, lit on the drawing
    page.wait_for_function(f"() => ({GD}.data[{sel}].y || []).length === 3")
    page.wait_for_function(  # and its cell on the cable map
        "() => document.querySelector('#cable-map .js-plotly-plot').data[1].y[0] === 'gpu11'"
    )
    box.fill("l2.t02")
    box.press("Enter")
    page.wait_for_function(f"() => {L2}.data[1].x.length === 4")
    box.fill("r05.st2.sw1-l2.s3")
    box.press("Enter")
    expect(page.locator("#rack-select")).to_contain_text("r05")
    page.wait_for_function(f"() => {L2}.data[1].x[0] === 5 && {L2}.data[1].y[0] === 3")
    assert re.search(r"\?fabric=vr-nvl576&fail=r02\.st3#", page.url)  # nothing failed
    assert page.log.errors == []


def test_a_trunk_is_hovered_and_clicked_on_the_trunk_map(served, page):
    """Issue 16: every trunk bundle is a cell of the trunk map under the L2 tier: hovering
    names it and its state, a click fails it (the URL), as a cable's cell does."""
    page.goto(served + "/?fabric=vr-nvl576")
    ready(page)
    page.locator("#l2-chart").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const gd = document.querySelector('#l2-chart .js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.length > 2; }"
    )
    x, y = page.evaluate(
        """() => { const gd = document.querySelector('#l2-chart .js-plotly-plot');
        const t = gd._fullData[2], xa = gd._fullLayout.xaxis2, ya = gd._fullLayout.yaxis2;
        const r = gd.getBoundingClientRect(), col = t.x.indexOf('st3.sw1-l2.s1');
        return [r.left + xa._offset + xa.l2p(col), r.top + ya._offset + ya.l2p(1)]; }"""
    )
    _hover_and_press(page, x, y, says="r02.st3.sw1-l2.s1: up", url=r"fail=r02\.st3\.sw1-l2\.s1")
    expect(page.locator("#cards")).to_contain_text("trunk")
    page.screenshot(path=str(ARTIFACTS / "dashboard-nvl576-trunk-1280.png"), full_page=True)
    assert page.log.errors == []
