"""The rack's hover labels are whole on every load and after every press: what the part is,
then its state and what a click does (issue 13, problem 3).

They travel as codes, so the rack's click response stays small (bench/), and the browser
writes each after the part's name, which it reads from the figure Dash holds (the labels
callback's State), not from the plot drawn in the page. The drawn plot lags: until plotly.js
has loaded and drawn it holds no names, and after a change of fabric another fabric's. Here
plotly.js is made to arrive late, as on a slow link or a busy machine, which once left a
domain page's labels without their names ('healthy · click to fail' over st3)."""

import re
import time

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import TRACES, point_ids
from harness.page import click_part, hover_part, ready
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e

GD = "document.querySelector('#rack .js-plotly-plot')"
FRONT = ("trays", "gpus", "chips", "controllers")
PLOTLY = re.compile(r".*/(async-graph|plotly\.min)\.js(\?.*)?$")
LATE_S = 2.0  # after the first callbacks have answered
URL_S = 15000  # ms for a press to reach the URL: the machine may be busy


def _late_plotly_page(browser):
    """A page whose plotly.js (and dcc.Graph's chunk) arrive LATE_S late."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.log = PageLog(page)

    def late(route):
        time.sleep(LATE_S)
        route.continue_()

    page.route(PLOTLY, late)
    return ctx, page


def _unnamed(page) -> list[str]:
    """Front-view labels that are not 'what the part is' (the trace's meta.hover), a line
    break and a bold state: none when whole. Also a cable label that is not a bold state."""
    return page.evaluate(
        f"""(traces) => {{ const gd = {GD}; const bad = [];
        for (const t of traces) {{
          const tr = gd.data[t], names = (tr.meta || {{}}).hover || [], h = tr.hovertext || [];
          if (names.length !== tr.customdata.length || h.length !== names.length)
            bad.push(`trace ${{t}}: ${{names.length}} names, ${{h.length}} labels`);
          for (let i = 0; i < h.length; i++)
            if (!h[i].startsWith(names[i] + "<br><b>")) bad.push(h[i]);
        }}
        const cables = gd.data[{TRACES["cable_hits"]}].hovertext || [];
        if (cables.length !== gd.data[{TRACES["cable_hits"]}].customdata.length) bad.push("cables");
        for (const h of cables) if (!h.startsWith("<b>")) {{ bad.push(h); break; }}
        return bad.slice(0, 5); }}""",
        [TRACES[t] for t in FRONT],
    )


def _label_says(page, cid: str, text: str, fabric: str = "vr-nvl72") -> None:
    """Wait until the part's label in the drawn figure says `text`, whole, then hover it and
    read the same in the label on screen."""
    for name in FRONT:
        names = point_ids(fabric)[TRACES[name]]
        if cid in names:
            t, i = TRACES[name], names.index(cid)
            break
    else:
        raise AssertionError(f"{cid} is not a front-view part")
    page.wait_for_function(
        f"""([t, i, s]) => {{ const h = {GD}.data[t].hovertext;
        return h && h[i].replace(/<[^>]+>/g, "").includes(s); }}""",
        arg=[t, i, text],
    )
    assert _unnamed(page) == []
    hover_part(page, cid, fabric)  # the label on screen names it...
    expect(page.locator("#rack .hoverlayer .hovertext").first).to_contain_text(text)  # ...and says


def test_single_rack_labels_whole_after_presses_and_a_fabric_change(served, browser):
    ctx, page = _late_plotly_page(browser)
    page.goto(served + "/")
    ready(page)
    _label_says(page, "st3", "healthy · click to fail")
    expect(page.locator("#rack .hoverlayer .hovertext").first).to_contain_text("switch tray st3")
    click_part(page, "st3")
    expect(page).to_have_url(re.compile(r"\?fail=st3(#.*)?$"), timeout=URL_S)
    _label_says(page, "st3", "failed · click to repair")
    _label_says(page, "st3.sw1", "failed · click to fail it too")  # a chip of the lost tray
    click_part(page, "gpu07")
    # in the order pressed: the press edits the URL in the browser (assets/rack_press.js)
    expect(page).to_have_url(re.compile(r"\?fail=st3,gpu07(#.*)?$"), timeout=URL_S)
    _label_says(page, "gpu07", "failed · click to repair")
    click_part(page, "st3")  # repaired
    expect(page).to_have_url(re.compile(r"\?fail=gpu07(#.*)?$"), timeout=URL_S)
    _label_says(page, "st3", "healthy · click to fail")
    _label_says(page, "ct02", "failed")  # gpu07's tray
    # another fabric: another base figure (18 chips, not 36), whose names the labels follow
    page.locator("#fabric").click()
    page.get_by_role("option", name="GB200 NVL72 (NVLink 5)").click()
    expect(page).to_have_url(re.compile(r"fabric=gb200-nvl72&fail=gpu07"), timeout=URL_S)
    _label_says(page, "gpu08", "healthy · click to fail", "gb200-nvl72")
    expect(page.locator("#rack .hoverlayer .hovertext").first).to_contain_text("Blackwell")
    _label_says(page, "st9.sw1", "healthy · click to fail", "gb200-nvl72")
    assert page.log.errors == []
    ctx.close()


def test_domain_labels_whole_after_presses_and_another_rack(served, browser):
    ctx, page = _late_plotly_page(browser)
    page.goto(served + "/?fabric=vr-nvl576#rack=r03")
    ready(page)
    expect(page.locator("#rack-select")).to_contain_text("r03")
    _label_says(page, "st3", "healthy · click to fail")
    expect(page.locator("#rack .hoverlayer .hovertext").first).to_contain_text("switch tray st3")
    click_part(page, "st3")
    expect(page).to_have_url(re.compile(r"fail=r03\.st3"), timeout=URL_S)
    _label_says(page, "st3", "failed · click to repair")
    click_part(page, "gpu07")
    expect(page).to_have_url(re.compile(r"fail=r03\.st3,r03\.gpu07"), timeout=URL_S)
    _label_says(page, "gpu07", "failed · click to repair")
    _label_says(page, "st3.sw0", "failed · click to fail it too")
    page.locator("#rack-select").click()
    page.get_by_role("option", name="r02", exact=True).click()
    _label_says(page, "st3", "healthy · click to fail")  # r02's st3
    _label_says(page, "gpu07", "healthy · click to fail")
    assert page.log.errors == []
    ctx.close()
