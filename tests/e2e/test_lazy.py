"""The page below the first screen mounts after it (dashboard/panels/lazy.py, issue 13's
first-screen and press budgets): the first page's layout is the first screen and the controls
the #fragment sets; the rest comes once a reader first comes near it (or a report button is
pressed), with no callback failing meanwhile; until then a press asks nothing of it."""

import json

import pytest

from harness.page import below, click_cell, ready

pytestmark = pytest.mark.e2e

LATER = ("decode-chart", "heatmap-chart", "series-chart", "buys-table", "fleet-run", "import-text")
FIRST = ("rack", "cable-map", "cards", "counter", "link-input", "compare-input", "pause")


def _layout_ids(page, base: str, query: str) -> str:
    with page.expect_response(lambda r: r.url.endswith("/_dash-layout")) as got:
        page.goto(f"{base}/{query}")
    return json.dumps(got.value.json())


def _drawn(page, gid: str) -> bool:
    return page.evaluate(
        f"""() => {{ const g = document.querySelector('#{gid} .js-plotly-plot');
        return !!(g && g.layout && g.layout.meta && !g.layout.meta.placeholder); }}"""
    )


def _asked(page) -> list[str]:
    """The outputs of every Dash request the page makes from now on, as it sent them."""
    outs: list[str] = []
    page.on(
        "request",
        lambda r: (
            outs.append(json.loads(r.post_data)["output"])
            if "_dash-update-component" in r.url
            else None
        ),
    )
    return outs


def test_the_first_page_is_the_first_screen_and_the_rest_mounts_once_near(served, page):
    shipped = _layout_ids(page, served, "?fail=st3")
    for gid in FIRST:
        assert f'"{gid}"' in shipped, gid
    for gid in LATER:
        assert f'"{gid}"' not in shipped, gid
    ready(page)
    page.wait_for_timeout(1500)  # the first screen drawn and the browser idle: still nothing
    for gid in LATER:
        assert page.locator(f"#{gid}").count() == 0, gid
    below(page)  # the reader comes near: every part mounts, its charts drawn
    for gid in LATER:
        page.wait_for_selector(f"#{gid}", state="attached", timeout=15000)
    page.wait_for_function("() => window.belowDrawn && true")
    assert page.evaluate("() => window.belowDrawn()")
    for gid in ("decode-chart", "timeline-chart", "heatmap-chart", "series-chart"):
        assert _drawn(page, gid), gid
    page.wait_for_selector("#buys-table table", timeout=15000)
    assert page.log.errors == []


def test_a_press_before_the_page_below_asks_nothing_of_it_and_after_redraws_it(served, page):
    """Before the reader comes near the page below, a press on the first screen sends no
    request for its charts (the link telemetry's charts are not mounted, so Dash does not
    call their callback); once mounted, a press redraws them as before."""
    page.goto(f"{served}/")
    ready(page, 0)
    page.wait_for_timeout(1000)
    asked = _asked(page)
    click_cell(page, "gpu03-st2.sw1.c0")
    ready(page, 1)
    page.wait_for_timeout(800)
    assert any("summary-html.data" in o for o in asked), asked  # the press was answered
    assert not any("heatmap-chart" in o or "series-chart" in o for o in asked), asked
    below(page)
    page.wait_for_function("() => window.belowDrawn && true")
    assert page.evaluate("() => window.belowDrawn()")
    asked.clear()
    click_cell(page, "gpu05-st4.sw2.c1")
    ready(page, 2)
    page.wait_for_function(
        "() => (document.querySelector('#heatmap-chart .js-plotly-plot').data || []).length > 0"
    )
    page.wait_for_timeout(800)
    assert any("heatmap-chart" in o for o in asked), asked
    assert page.log.errors == []
