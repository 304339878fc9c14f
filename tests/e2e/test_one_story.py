"""Issue 28, one story on the cards: what the bandwidth cards say agrees with the job card and
with decode, for a job restarted at once and for one aborted until its repair."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from harness.page import ready

pytestmark = pytest.mark.e2e

WORST, RACK = "#cards .card:nth-child(1)", "#cards .card:nth-child(2)"


def test_a_job_restarted_at_once_is_not_said_to_get_nothing(served, page):
    """/?fail=gpu08,st3 said "aborted" and "it gets none of it" beside decode's 98%: the job
    restarts at once on the 71 GPUs that remain, and gets what they have."""
    page.goto(served + "/?fail=gpu08,st3")
    ready(page)
    for sel in (WORST, RACK):
        card = page.locator(sel)
        expect(card).to_contain_text("restarts at once on the 71 GPUs that remain")
        expect(card).not_to_contain_text("gets none")
    expect(page.locator(WORST + " .card-value")).to_have_text("3.2 TB/s")
    job = page.locator("#cards .card", has=page.locator(".card-title", has_text="Job"))
    expect(job.locator(".card-value")).to_have_text("restarted on 71 GPUs")
    assert page.log.errors == []


def test_an_aborted_job_s_headline_is_what_it_gets(served, page):
    """An aborted job's headline numbers stayed big (3.2 and 230.4 TB/s) with "The job is
    aborted: it gets none of it" run on without punctuation."""
    page.goto(served + "/?fail=st3&off=reroute")
    ready(page)
    expect(page.locator(WORST + " .card-value")).to_have_text("0 TB/s")
    expect(page.locator(RACK + " .card-value")).to_have_text("0 TB/s")
    expect(page.locator(WORST + " .card-note")).to_have_text(
        "of 3.6 TB/s bidirectional; collectives run at the slowest GPU's pace. The job is"
        " aborted and restarts after repair: until then it gets none of the fabric's 3.2 TB/s."
    )
    assert page.log.errors == []
