"""The page's JavaScript works with Dash and plotly.js through their public APIs (issue 28):
one adapter, assets/rack_hover.js, may read plotly.js's private fields, written against the
plotly.js version Dash serves; no other file reads one, none polls with setInterval, and all
of assets/*.js holds at most 400 lines."""

from __future__ import annotations

import re
from pathlib import Path

import plotly

ASSETS = Path(__file__).resolve().parents[1] / "assets"
ADAPTER = ASSETS / "rack_hover.js"
# a private field (`gd._fullLayout`, `._hoverdata`, `._offset`) or an axis's pixel mapping
PRIVATE = re.compile(r"\._[A-Za-z]\w*|\.(?:l2p|p2l|d2p|p2d|c2p|p2c|r2p)\(")


def private_reads(text: str) -> list[str]:
    """Each private plotly.js read in a file's text (comments included: a comment naming one
    is as much a sign of reliance on it)."""
    return PRIVATE.findall(text)


def test_the_pattern_finds_what_it_is_for():
    assert private_reads("const l = gd._fullLayout; xa.l2p(3); gd._hoverdata") == [
        "._fullLayout",
        ".l2p(",
        "._hoverdata",
    ]
    assert private_reads("gd.layout.meta.hits; gd.data[0].x; Plotly.Fx.hover(gd, p)") == []


def test_only_the_adapter_reads_plotly_private_fields():
    readers = {
        p.name: private_reads(p.read_text())
        for p in sorted(ASSETS.glob("*.js"))
        if p != ADAPTER and private_reads(p.read_text())
    }
    assert readers == {}
    assert private_reads(ADAPTER.read_text())  # and the adapter is where they went


def test_the_adapter_is_for_the_plotly_js_dash_serves():
    """Dash serves the plotly package's plotly.min.js; its private fields can change with any
    version, so the adapter names the one it was checked against, and a new one fails here
    until the adapter is checked again (tests/e2e/test_exact_hover.py and the press tests)."""
    bundle = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    served = re.search(r"plotly\.js v(\d+\.\d+\.\d+)", bundle.read_text()[:400]).group(1)
    named = re.search(r'PLOTLY_JS: "(\d+\.\d+\.\d+)"', ADAPTER.read_text()).group(1)
    assert named == served


def test_no_file_polls_with_set_interval():
    assert [p.name for p in ASSETS.glob("*.js") if "setInterval" in p.read_text()] == []


JS_BUDGET = 400  # issue 28: the page's JavaScript, all of assets/*.js, every line counted


def test_assets_hold_at_most_400_lines_of_javascript():
    """Counted as `wc -l` counts them: every line, comments and blank ones too (the JavaScript
    the page needs beside Dash and plotly.js; what the server can do is in Python)."""
    lines = {p.name: len(p.read_text().splitlines()) for p in ASSETS.glob("*.js")}
    assert lines and sum(lines.values()) <= JS_BUDGET, lines
