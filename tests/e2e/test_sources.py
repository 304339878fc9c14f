"""Sources are links (issue 13): the header's FACTS.md and docs/MODEL.md, a FACTS.md row's
section in the assumptions and the calibration table open from the page, served by the app."""

import pytest
from playwright.sync_api import expect

from harness.page import below, ready

pytestmark = pytest.mark.e2e


def test_citations_open_the_documents_they_cite(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    with page.context.expect_page() as opened:
        page.locator(".header a", has_text="FACTS.md").click()
    facts = opened.value
    facts.wait_for_load_state()
    assert facts.url == served + "/docs/FACTS.md"
    expect(facts.locator("h1")).to_have_text("Fabric facts and model parameters")
    expect(facts.locator("h2#s3")).to_contain_text("resiliency features")
    facts.close()
    below(page)
    page.locator("#assumptions summary").click()
    row = page.locator("#assumptions-body a", has_text="FACTS.md §6").first
    expect(row).to_have_attribute("href", "/docs/FACTS.md#s6")
    with page.context.expect_page() as opened:
        row.click()
    section = opened.value
    section.wait_for_load_state()
    expect(section.locator("h2#s6")).to_contain_text("Failures and goodput")
    section.close()
    page.locator("#calibration-summary").click()
    link = page.locator("#calibration-body a", has_text="The table on its own page")
    with page.context.expect_page(timeout=60000) as opened:
        link.click(timeout=60000)
    table = opened.value
    table.wait_for_load_state()
    expect(table.locator("h1")).to_have_text("Calibration")
    assert table.locator("tr").count() > 20
    model = page.context.new_page()
    model.goto(served + "/docs/MODEL.md")
    expect(model.locator("h1").first).to_be_visible()
    assert page.log.errors == []
