"""The page below the first screen mounts after it (dashboard/panels/lazy.py, issue 13's
first-screen budget): the first page's layout is the first screen and the controls the
#fragment sets; the rest comes once the first screen is drawn and the browser is idle, or as
soon as a reader scrolls there, whichever is first, with no callback failing meanwhile."""

import json

import pytest

from tests.e2e.test_dashboard import _ready, below

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


def test_the_first_page_is_the_first_screen_and_the_rest_mounts_unasked(served, page):
    shipped = _layout_ids(page, served, "?fail=st3")
    for gid in FIRST:
        assert f'"{gid}"' in shipped, gid
    for gid in LATER:
        assert f'"{gid}"' not in shipped, gid
    _ready(page)
    # no scrolling: once the browser is idle every part is there, its charts not yet drawn
    for gid in LATER:
        page.wait_for_selector(f"#{gid}", state="attached", timeout=15000)
    assert not _drawn(page, "decode-chart")
    below(page)
    page.wait_for_function("() => window.belowDrawn && true")
    assert page.evaluate("() => window.belowDrawn()")
    for gid in ("decode-chart", "heatmap-chart", "series-chart"):
        assert _drawn(page, gid), gid
    assert page.log.errors == []


def test_a_reader_who_scrolls_first_mounts_it_then(served, page):
    """The idle moment never comes (requestIdleCallback held back): the parts wait, the first
    screen works, and scrolling down mounts and draws them."""
    page.add_init_script("window.requestIdleCallback = function () { return 0; };")
    page.goto(f"{served}/?fail=st3&flaky=gpu07-st4.sw1")
    _ready(page)
    page.wait_for_timeout(1500)
    assert page.locator("#buys-table").count() == 0  # nothing asked for it yet
    below(page)
    page.wait_for_function("() => window.belowDrawn && true")
    assert page.evaluate("() => window.belowDrawn()")
    for gid in ("decode-chart", "timeline-chart", "heatmap-chart", "series-chart"):
        assert _drawn(page, gid), gid
    page.wait_for_selector("#buys-table table", timeout=15000)
    assert page.log.errors == []
