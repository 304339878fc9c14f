"""The press lost under load (issue 13): a second press on the rack made while the first was
still in flight used to be computed from the scenario before the first, and its answer
replaced the first's. The server's answers are held back 1.5 s here (as a loaded machine
does), two cables are pressed in turn, and both must land in the URL."""

import pytest
from playwright.sync_api import expect

from harness.page import click_cell, query, ready

pytestmark = pytest.mark.e2e

SLOW_PRESSES = """(() => {
  const fetch0 = window.fetch;
  window.fetch = function (url, opts) {
    const body = String((opts && opts.body) || "");
    if (String(url).includes("_dash-update-component") && body.includes("rack-pressed")) {
      return new Promise((r) => setTimeout(r, 1500)).then(() => fetch0(url, opts));
    }
    return fetch0(url, opts);
  };
})()"""


def test_presses_in_flight_are_all_kept_in_order(served, page):
    page.add_init_script(SLOW_PRESSES)
    page.goto(served + "/")
    ready(page, 0)
    a, b, c = "gpu10-st1.sw0.c0", "gpu30-st5.sw2.c1", "gpu10-st1.sw0.c0"
    click_cell(page, a)
    click_cell(page, b)  # while a's answer is held back
    expect(page).to_have_url(f"{served}/?fail={a},{b}#link={b}", timeout=15000)
    click_cell(page, c)  # a again: repaired, from the scenario both made
    expect(page).to_have_url(f"{served}/?fail={b}#link={c}", timeout=15000)
    ready(page, 1)
    assert query(page) == {"fail": b}
    assert page.log.errors == []
