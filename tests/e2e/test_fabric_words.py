"""Issue 28, what the page says on each fabric: every default it opens with exists there."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from harness.page import below, ready

pytestmark = pytest.mark.e2e


def test_a_gb200_page_opens_its_link_panel_on_a_link_gb200_has(served, page):
    """It opened with "No series: 'gpu07-st3.sw2': gb200-nvl72 has no chip sw2": the default
    link was Vera Rubin's (4 chips a tray); GB200's trays have 2."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3")
    ready(page)
    expect(page.locator("#link-input")).to_have_value("gpu07-st3.sw1")
    below(page)  # the charts below the first screen are drawn once scrolled to
    series = page.locator("#series-chart")
    expect(series.locator(".gtitle")).to_contain_text("gpu07-st3.sw1", timeout=30000)
    expect(series).not_to_contain_text("No series")
    page.goto(served + "/?fail=st3")  # Vera Rubin keeps its own
    ready(page)
    expect(page.locator("#link-input")).to_have_value("gpu07-st3.sw2")
    assert page.log.errors == []


def _pick_fabric(page, label: str) -> None:
    page.locator("#fabric").click()
    page.get_by_role("option", name=label).click()


def test_feature_switches_survive_a_round_trip_through_another_fabric(served, page):
    """It dropped off= and on= silently: /?fail=st3&off=reroute -> eth-x72 -> back gave
    /?fail=st3. Now they go with the scenario, and one that means nothing there is said."""
    page.goto(served + "/?fail=st3&off=reroute")
    ready(page)
    _pick_fabric(page, "72 GPUs on off-the-shelf Ethernet scale-up")
    expect(page).to_have_url(re.compile(r"fabric=eth-x72&fail=st3&off=reroute$"))
    _pick_fabric(page, "Vera Rubin NVL72 (NVLink 6)")
    expect(page).to_have_url(re.compile(r"/\?fail=st3&off=reroute$"))
    expect(page.locator("#features input[value=reroute]")).not_to_be_checked()
    _pick_fabric(page, "GB200 NVL72 (NVLink 5)")
    expect(page).to_have_url(re.compile(r"fabric=gb200-nvl72&fail=st3$"))
    expect(page.locator("#action-message")).to_contain_text("off=reroute: already off")
    assert page.log.errors == []
