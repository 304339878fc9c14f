"""A b200-roce link on the page: not drawn, said so with where its answer is, URL kept."""

import pytest
from playwright.sync_api import expect

from harness.page import ready

pytestmark = pytest.mark.e2e


def test_an_island_fabric_link_says_where_its_answer_is(served, page):
    page.goto(served + "/?fabric=b200-roce&fail=node03")
    ready(page)
    expect(page.locator("#messages")).to_contain_text(
        "/api/v1/evaluate?fabric=b200-roce&fail=node03"
    )
    expect(page.locator("#cards")).to_contain_text("x b200-roce (the same B200 GPUs")
    assert page.url.endswith("?fabric=b200-roce&fail=node03")  # the link is not rewritten
    assert page.log.errors == []
