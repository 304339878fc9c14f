"""A multi-rack domain on the page: pick a rack, click its parts, click an L2 chip."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_dashboard import WORST, _ready, click_part

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


def test_domain_rack_and_l2_clicks(served, page):
    page.goto(served + "/?fabric=vr-nvl576#rack=r03")
    _ready(page)
    expect(page.locator("#cards")).to_contain_text("2073.6 TB/s")
    expect(page.locator("#rack-select")).to_contain_text("r03")
    click_part(page, "st3")
    expect(page).to_have_url(re.compile(r"fail=r03\.st3"))
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    # an L2 chip: plane 5's second chip (index 5 x 4 + 1)
    page.locator("#l2-chart").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#l2-chart .js-plotly-plot')._fullData")
    x, y = _l2_xy(page, 5 * 4 + 1)
    page.mouse.move(x - 2, y - 2)
    page.mouse.move(x, y)
    expect(page.locator("#l2-chart .hoverlayer .hovertext")).to_contain_text("l2.p05.s1")
    page.mouse.down()
    page.mouse.up()
    expect(page).to_have_url(re.compile(r"l2\.p05\.s1"))
    expect(page.locator("#cards")).to_contain_text("L2 chips in service")
    page.screenshot(path=str(ARTIFACTS / "dashboard-nvl576-1280.png"), full_page=True)
    assert page.log.errors == []
