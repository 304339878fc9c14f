"""The printed report (issue 13): one click prints the page as a report (saved as PDF from
the browser's print), laid out for paper by the print style sheet: the cards, the rack, the
charts, what happened and the assumptions; none of the controls."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_dashboard import WORST, _ready

pytestmark = pytest.mark.e2e


def test_print_is_a_report_and_saves_as_pdf(served, page):
    page.goto(served + "/?fail=st3")
    _ready(page)
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    page.evaluate("() => { window.__printed = 0; window.print = () => { window.__printed++; }; }")
    page.get_by_role("button", name="Print a report (or save it as PDF)").click()
    assert page.evaluate("() => window.__printed") == 1  # the one click prints
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
