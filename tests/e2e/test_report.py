"""The printed report (issue 13): one click prints the page as a report (saved as PDF from
the browser's print), laid out for paper by the print style sheet: the cards, the rack, the
charts, what happened and the assumptions; none of the controls."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from harness.page import WORST, below, ready
from harness.servers import ARTIFACTS

pytestmark = pytest.mark.e2e


def test_print_is_a_report_and_saves_as_pdf(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    below(page)  # the report's buttons, in the export panel, mount once a reader comes near
    page.evaluate("() => { window.__printed = 0; window.print = () => { window.__printed++; }; }")
    page.get_by_role("button", name="Print a report (or save it as PDF)").click()
    # the one click prints, once everything below the first screen is drawn
    page.wait_for_function("() => window.__printed === 1", timeout=30000)
    assert page.evaluate(
        "() => [...document.querySelectorAll('.charts .js-plotly-plot')]"
        ".every(g => g.layout.meta && !g.layout.meta.placeholder)"
    )
    assert page.locator("#assumptions-body table").count() >= 4
    page.emulate_media(media="print")
    for shown in ("#cards", "#rack .js-plotly-plot", "#events", ".charts", ".assumptions"):
        expect(page.locator(shown).first).to_be_visible()
    for hidden in (".controls", "#undo-btn", "#hover-details", ".export"):
        expect(page.locator(hidden).first).to_be_hidden()
    assert page.locator("#cards").evaluate("e => getComputedStyle(e).color") == "rgb(17, 17, 17)"
    pdf = page.pdf(format="A4", print_background=True)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "issue13-report.pdf").write_bytes(pdf)
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 3
    assert page.log.errors == []


def test_the_report_downloads_as_one_html_file_with_no_script(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    below(page)  # the report's buttons, in the export panel, mount once a reader comes near
    with page.expect_download(timeout=60000) as got:
        page.get_by_role("button", name="Download the report (HTML)").click()
    path = got.value.path()
    html = Path(path).read_text(encoding="utf-8")
    (ARTIFACTS / "issue13-report.html").write_text(html, encoding="utf-8")
    assert got.value.suggested_filename == "fabric-twin-report-fail=st3.html"
    assert html.startswith("<!DOCTYPE html>") and "@media print" in html
    assert "<script" not in html.lower() and " id=" not in html  # a static copy
    for part in ("Headline figures", "What happened", "Assumptions and sources"):
        assert part in html
    assert "3.2 TB/s" in html and "healthy rack: 3.6 TB/s" in html  # the cards, as shown
    assert "st3 failed" in html or "st3" in html.split("What happened")[1][:2000]
    # the rack, the cable map and the seven charts, each an SVG image from plotly's export
    assert html.count('<img alt="') == 9 and html.count('src="data:image/svg+xml') == 9
    assert html.count("<table") >= 5  # counts and the assumptions' tables
    assert page.log.errors == []


FITS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(g => g.layout && g.getBoundingClientRect().width > 0)
  .map(g => [g.closest('[id]').id, Math.round(g.querySelector('.main-svg')
    .getBoundingClientRect().width - g.parentElement.getBoundingClientRect().width)])
  .filter(([, off]) => Math.abs(off) > 1)"""  # each chart as wide as its box, no more or less


def test_the_browser_s_own_print_is_the_report(served, page):
    """Issue 28 (7): Ctrl+P, not the page's button, clipped the charts (the timeline cut at
    "1 min"), squashed the rack, left "Faults now:" dangling and printed the readers' answers
    pale grey. Print media alone (as Ctrl+P) now lays every chart out at its width on paper,
    shows the faults, inks the answers; back on screen every chart is as it was."""
    page.goto(served + "/?fail=gpu08,st3")
    ready(page)
    below(page)
    page.wait_for_function("() => window.belowDrawn && true")
    page.evaluate("() => window.belowDrawn()")
    screen = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(g => g.layout.width)"
    )
    page.emulate_media(media="print")
    page.wait_for_function(FITS.replace("() =>", "() => (") + ").length === 0", timeout=10000)
    expect(page.locator(".faults .chip").first).to_be_visible()
    expect(page.locator(".faults")).to_contain_text("gpu08")
    for sel in (".questions p", ".card-note"):
        ink = page.locator(sel).first.evaluate("e => getComputedStyle(e).color")
        assert ink == "rgb(34, 34, 34)", (sel, ink)
    pdf = page.pdf(format="A4", print_background=True)
    (ARTIFACTS / "issue28-ctrl-p.pdf").write_bytes(pdf)
    page.emulate_media(media="screen")
    page.wait_for_function(
        "w => [...document.querySelectorAll('.js-plotly-plot')].map(g => g.layout.width)"
        ".every((x, i) => (x ?? null) === w[i])",
        arg=screen,
        timeout=10000,
    )
    page.wait_for_function(FITS.replace("() =>", "() => (") + ").length === 0", timeout=10000)
    assert page.log.errors == []


def test_a_print_before_the_charts_are_drawn_says_so_on_paper(served, page):
    """Ctrl+P before the reader came near the charts: the paper says where they are."""
    page.goto(served + "/?fail=st3")
    ready(page)
    page.emulate_media(media="print")
    note = page.locator("#lazy-charts").evaluate("e => getComputedStyle(e, '::before').content")
    assert "not drawn yet" in note and "Print a report" in note
