"""What a person does on the /fleet page (issue 30), for its browser tests and its benchmark
alike: wait for the history drawn, scrub with the keyboard, play, read the grid's states,
pick a rack; and the timing of a scrub step (keydown to the grid's redraw)."""

from __future__ import annotations

GRID = "#hist-grid .js-plotly-plot"
THUMB = "#hist-t [role=slider]"

# True once the grid is a heatmap of the answer and the lines are drawn; stamps the time.
_DRAWN = """() => {
    const g = document.querySelector('#hist-grid .js-plotly-plot');
    const l = document.querySelector('#hist-lines .js-plotly-plot');
    const ok = g && g.data && g.data.length && g.data[0].type === 'heatmap'
        && g._fullLayout && l && l.data && l.data.length >= 4;
    if (ok && !window.__histDrawn) { window.__histDrawn = performance.now(); }
    return !!ok;
}"""


def drawn(page, timeout: float = 60000) -> float:
    """Wait until the history is drawn; the page's clock (ms) when it first was."""
    page.wait_for_function(_DRAWN, timeout=timeout, polling="raf")
    return page.evaluate("window.__histDrawn")


def answer_end(page) -> float:
    """The page's clock (ms) when the largest callback answer (the history's) had arrived."""
    return page.evaluate(
        """() => { const r = performance.getEntriesByType('resource')
            .filter(e => e.name.includes('_dash-update-component'));
            r.sort((a, b) => b.encodedBodySize - a.encodedBodySize);
            return r.length ? r[0].responseEnd : null; }"""
    )


def grid_states(page, which: str = "#hist-grid") -> list:
    """The grid's state codes, rack by rack (padding cells dropped)."""
    return page.evaluate(
        """w => { const g = document.querySelector(w + ' .js-plotly-plot');
            return [].concat(...g.data[0].z).filter(v => v !== null); }""",
        which,
    )


def scrub_value(page) -> int:
    """Where the scrubber is (a point of the history's lines)."""
    return int(page.locator(THUMB).get_attribute("aria-valuenow"))


def scrub_step(page, key: str = "ArrowRight") -> tuple[float, float]:
    """Press a key on the scrubber; ms from the keydown until the grid is redrawn with its
    new states (plotly's afterplot), and until the lines' cursor has moved too."""
    page.evaluate(
        """() => { window.__after = {};
            for (const id of ['hist-grid', 'hist-lines']) {
                const g = document.querySelector('#' + id + ' .js-plotly-plot');
                if (!g.__timed) { g.__timed = true;
                    g.on('plotly_afterplot', () => { if (window.__after[id] === undefined) {
                        window.__after[id] = performance.now(); } }); } }
            window.__t0 = null;
            document.querySelector('#hist-t [role=slider]').addEventListener('keydown',
                () => { window.__t0 = performance.now(); window.__after = {}; },
                {once: true, capture: true}); }"""
    )
    page.locator(THUMB).press(key)
    page.wait_for_function(
        "() => window.__t0 !== null && window.__after['hist-grid'] !== undefined"
        " && window.__after['hist-lines'] !== undefined",
        timeout=10000,
    )
    return tuple(
        page.evaluate(
            "[window.__after['hist-grid'] - window.__t0, window.__after['hist-lines'] - window.__t0]"
        )
    )


def rack_xy(page, rack: int, trace: int = 0) -> tuple[float, float]:
    """Page pixel position of a rack's cell on the grid (of the trace's history)."""
    return tuple(
        page.evaluate(
            """([rack, c]) => {
            const gd = document.querySelector('#hist-grid .js-plotly-plot');
            const t = gd._fullData[c], cols = t.z[0].length;
            const xa = gd._fullLayout[t.xaxis === 'x' ? 'xaxis' : 'xaxis' + t.xaxis.slice(1)];
            const ya = gd._fullLayout[t.yaxis === 'y' ? 'yaxis' : 'yaxis' + t.yaxis.slice(1)];
            const r = gd.getBoundingClientRect();
            return [r.left + xa._offset + xa.l2p(rack % cols),
                    r.top + ya._offset + ya.l2p(Math.floor(rack / cols))];
        }""",
            [rack, trace],
        )
    )


def pick_rack(page, rack: int, trace: int = 0) -> None:
    """Click a rack's cell on the grid (scrolled into view first, as a person would)."""
    page.locator("#hist-grid").scroll_into_view_if_needed()
    x, y = rack_xy(page, rack, trace)
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def choose_against(page, label: str) -> None:
    """Choose the second feature set or fabric by its label in the dropdown."""
    page.locator("#hist-against").click()
    page.get_by_role("option", name=label).click()


def play(page) -> None:
    """Press Play (or Pause)."""
    page.locator("#hist-play").click()
