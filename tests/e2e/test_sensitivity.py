"""Sensitivity on the page (issue 29, item 9): the assumptions panel's last table is the
model's answer, the copper link-end rate first, with the goodput at each end of its span."""

import pytest
from playwright.sync_api import expect

from harness.page import below, ready
from model.reliability.sensitivity import sensitivity

pytestmark = pytest.mark.e2e


def test_the_assumptions_panel_shows_what_moves_goodput(served, page):
    page.goto(served + "/")
    ready(page)
    below(page)
    page.locator("#assumptions summary").click()
    table = page.locator("#assumptions-sensitivity")
    expect(table).to_be_visible(timeout=60000)
    a = sensitivity()
    rows = table.locator("tr")
    expect(rows).to_have_count(1 + len(a["rows"]))
    first = rows.nth(1)
    expect(first.locator("td").first).to_have_text("link_end_per_h")
    expect(first).to_contain_text(f"{a['rows'][0]['goodput_high']:.3%}")
    expect(page.locator("#assumptions-body")).to_contain_text("What moves goodput")
    assert page.log.errors == []
