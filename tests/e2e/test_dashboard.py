"""The dashboard in a real Chromium against the Procfile's gunicorn: click to fail and repair,
the URL as the whole view, bad links, and screenshots of the main states."""

import re
import time
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import point_ids
from tests.e2e.conftest import ARTIFACTS, PageLog

pytestmark = pytest.mark.e2e

WORST = "#cards .card:first-child .card-value"
JOB = "#cards .card:nth-child(6) .card-value"


def _ready(page, n_failed: int | None = None) -> None:
    """Wait for the rack to be drawn (and, if given, for the failed overlay to hold n cables)."""
    page.wait_for_function(
        "() => { const gd = document.querySelector('#rack .js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.length >= 12; }",
        timeout=30000,
    )
    if n_failed is not None:
        page.wait_for_function(
            "n => { const gd = document.querySelector('#rack .js-plotly-plot');"
            " const y = gd.data[6].y || []; let k = 0;"
            " for (let i = 0; i + 1 < y.length; i += 3) { if (y[i] !== null && !Number.isNaN(y[i])) k++; }"
            " return k === n; }",
            arg=n_failed,
            timeout=15000,
        )


def below(page) -> None:
    """Scroll to the page below the first screen, as a reader does: its charts and tables are
    drawn once it first comes near the viewport (dashboard/panels/below.py)."""
    page.locator(".charts h2").first.scroll_into_view_if_needed()


def _xy(page, curve: int, index: int) -> tuple[float, float]:
    """Page pixel position of one point of a trace of the rack figure."""
    return tuple(
        page.evaluate(
            """([c, i]) => {
            const gd = document.querySelector('#rack .js-plotly-plot');
            const t = gd._fullData[c];
            const xa = gd._fullLayout[t.xaxis === 'x' ? 'xaxis' : 'xaxis' + t.xaxis.slice(1)];
            const ya = gd._fullLayout[t.yaxis === 'y' ? 'yaxis' : 'yaxis' + t.yaxis.slice(1)];
            const r = gd.getBoundingClientRect();
            return [r.left + xa._offset + xa.l2p(t.x[i]), r.top + ya._offset + ya.l2p(t.y[i])];
        }""",
            [curve, index],
        )
    )


def hover_part(page, cid: str, fabric: str = "vr-nvl72", says: str = "") -> tuple[float, float]:
    """Move the pointer onto a part until its hover label names it (and says `says`: what a
    click does, once the rack is redrawn for a new click mode); its page position."""
    page.locator("#rack").scroll_into_view_if_needed()
    for curve, names in point_ids(fabric).items():
        if cid in names:
            x, y = _xy(page, curve, names.index(cid))
            break
    else:
        raise AssertionError(f"{cid} has no marker")
    page.mouse.move(x - 3, y - 3)
    page.mouse.move(x, y)
    label = page.locator("#rack .hoverlayer .hovertext").first
    expect(label).to_contain_text(cid, timeout=5000)
    if says:  # a redraw (for a new mode) clears plotly's hover: a click then lands nowhere
        for _ in range(40):
            if says in (label.text_content() or ""):
                break
            page.mouse.move(x - 3, y - 3)
            page.mouse.move(x, y)
            page.wait_for_timeout(100)
        expect(label).to_contain_text(says, timeout=5000)
    return x, y


def click_part(page, cid: str, fabric: str = "vr-nvl72", says: str = "") -> float:
    """Hover the part until Plotly names it, then press: Plotly clicks the last hovered point.
    Returns the time of the press (for the benchmark)."""
    hover_part(page, cid, fabric, says)
    t = time.perf_counter()
    page.mouse.down()
    page.mouse.up()
    return t


def query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_page_loads_clean(served, page):
    page.goto(served + "/")
    _ready(page)
    expect(page.locator(WORST)).to_have_text("3.6 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-healthy-1280.png"), full_page=True)
    assert page.log.errors == []


def test_click_a_cable_fails_it_and_again_repairs_it(served, page):
    cable = "gpu07-st3.sw2.c0"
    page.goto(served + "/")
    _ready(page, 0)
    click_part(page, cable)
    expect(page.locator(WORST)).to_have_text("3.5 TB/s")
    expect(page).to_have_url(re.compile(rf"/\?fail={re.escape(cable)}(#.*)?$"))
    expect(page).to_have_url(re.compile(rf"#link={re.escape(cable)}"))  # its series is shown
    _ready(page, 1)
    page.screenshot(path=str(ARTIFACTS / "dashboard-one-cable-1280.png"), full_page=False)
    click_part(page, cable)
    expect(page.locator(WORST)).to_have_text("3.6 TB/s")
    assert "fail" not in query(page)
    assert page.log.errors == []


def test_click_a_switch_tray(served, page):
    page.goto(served + "/")
    _ready(page, 0)
    click_part(page, "st3")
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    assert query(page)["fail"] == "st3"
    expect(page.locator("#cards")).to_contain_text("230.4 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-switch-tray-1280.png"), full_page=True)
    assert page.log.errors == []


def test_rerouting_off_aborts_the_job(served, page):
    page.goto(served + "/?fail=st3")
    _ready(page)
    expect(page.locator(JOB)).to_have_text("degraded")
    page.get_by_text("dynamic traffic rerouting", exact=True).click()
    expect(page.locator(JOB)).to_have_text("aborted")
    assert query(page)["off"] == "reroute"
    page.screenshot(path=str(ARTIFACTS / "dashboard-reroute-off-1280.png"), full_page=True)
    assert page.log.errors == []


def test_a_link_reproduces_in_a_fresh_browser(served, browser):
    link = served + "/?fabric=gb200-nvl72&fail=st3.sw1,gpu07-st5.sw0.c3&off=telemetry"
    texts = []
    for _ in range(2):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        pg = ctx.new_page()
        log = PageLog(pg)
        pg.goto(link)
        _ready(pg)
        expect(pg.locator(WORST)).to_have_text("1.6 TB/s")
        expect(pg.locator("#fabric")).to_contain_text("GB200")
        texts.append(pg.locator("#cards").inner_text())
        assert log.errors == []
        ctx.close()
    assert texts[0] == texts[1]


def test_typed_id_and_bad_typed_id(served, page):
    page.goto(served + "/")
    _ready(page)
    page.fill("#id-input", "st10")
    page.click("#fail-button")
    expect(page.locator("#action-message")).to_contain_text("st10")
    page.fill("#id-input", "gpu07")
    page.click("#fail-button")
    expect(page.locator("#cards")).to_contain_text("255.6 TB/s")
    assert query(page)["fail"] == "gpu07"


def test_bad_link_shows_its_message_and_the_rest(served, page):
    page.goto(served + "/?fail=st3,st10,gpu99-st1.sw0&off=warp&colour=red")
    _ready(page)
    for tok in ("st10", "gpu99", "warp", "colour"):
        expect(page.locator("#messages")).to_contain_text(tok)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    page.screenshot(path=str(ARTIFACTS / "dashboard-bad-link-1280.png"), full_page=False)
    assert page.log.errors == []


def test_phone_width(served, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    pg = ctx.new_page()
    log = PageLog(pg)
    pg.goto(served + "/?fail=st3&flaky=gpu20-st5.sw1")
    _ready(pg)
    expect(pg.locator(WORST)).to_have_text("3.19 TB/s")  # st3 lost, and gpu20's flaky link
    pg.screenshot(path=str(ARTIFACTS / "dashboard-switch-tray-phone.png"), full_page=True)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 392
    assert log.errors == []
    ctx.close()


def test_view_options_travel_in_the_fragment(served, page):
    link = (
        served + "/?fail=st3&flaky=gpu20-st5.sw1"
        "#counter=DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL&link=gpu20-st5.sw1&compare=fabric%3Dgb200-nvl72"
    )
    page.goto(link)
    _ready(page)
    expect(page.locator("#counter")).to_contain_text(
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL"
    )
    expect(page.locator("#link-input")).to_have_value("gpu20-st5.sw1")
    below(page)  # drawn once scrolled to: its callback starts then
    expect(page.locator("#compare-table")).to_contain_text("fabric=gb200-nvl72", timeout=30000)
    page.fill("#link-input", "gpu21-st5.sw1")
    page.press("#link-input", "Enter")
    expect(page).to_have_url(re.compile(r"#.*link=gpu21-st5\.sw1"))
    page.goto(served + "/?fail=st3#counter=BOGUS")
    expect(page.locator("#view-message")).to_contain_text("BOGUS")
    assert page.log.errors == []


def test_markup_anywhere_in_the_link_never_runs(served, page):
    evil = "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
    page.goto(f"{served}/?fail=st3,{evil}&workload={evil}#link={evil}&compare=fail%3D{evil}")
    _ready(page)
    expect(page.locator("#messages")).to_contain_text("<img src=x onerror=alert(1)>")
    expect(page.locator("#link-input")).to_have_value("<img src=x onerror=alert(1)>")
    page.fill("#id-input", "<script>alert(2)</script>")
    page.click("#fail-button")
    expect(page.locator("#action-message")).to_contain_text("<script>")
    page.wait_for_timeout(500)
    assert page.locator("img[src=x]").count() == 0
    assert page.log.dialogs == []
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
