"""The /fleet page's budgets (issue 30), run by `python -m bench.run fleet`: the answer of a
2,000-rack history over 365 days computed by one worker (<= 5 s), the page drawn within 1 s
of that answer arriving, a scrub step (a key on the scrubber until the grid is redrawn) at
most 100 ms; and the three ways to draw the grid measured side by side in the same Chromium
(a heatmap whose z is replaced, WebGL markers whose colours are, an image that is), each a
Plotly.react of 2,000 racks at a new time, so the page's choice is by the numbers."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable

FULL = "racks=2000&days=365&spares=1"
STEPS = 12  # scrub steps timed a page

# Three ways to draw 2,000 racks' states in one plot, each react timed at a new time.
DRAW_WAYS_JS = """async (n) => {
    const cols = 64, rows = Math.ceil(n / cols), colors = ['#1f5f4c', '#E69F00', '#56B4E9',
        '#CC79A7', '#D55E00', '#F0E442'];
    function states(k) { const z = []; for (let i = 0; i < n; i++) {
        z.push(((i * 7919 + k * 104729) % 97) < 6 ? 1 + (i + k) % 5 : 0); } return z; }
    function grid(z) { const out = []; for (let y = 0; y < rows; y++) {
        out.push(z.slice(y * cols, (y + 1) * cols)); } return out; }
    const xs = [], ys = []; for (let i = 0; i < n; i++) { xs.push(i % cols); ys.push(Math.floor(i / cols)); }
    const scale = []; colors.forEach((c, i) => { scale.push([i / 6, c], [(i + 1) / 6, c]); });
    const canvas = document.createElement('canvas'); canvas.width = cols; canvas.height = rows;
    const ctx2 = canvas.getContext('2d');
    function image(z) { z.forEach((s, i) => { ctx2.fillStyle = colors[s];
        ctx2.fillRect(i % cols, Math.floor(i / cols), 1, 1); }); return canvas.toDataURL(); }
    const ax = {visible: false, fixedrange: true};
    const ways = {
        heatmap: k => [[{type: 'heatmap', z: grid(states(k)), zmin: -0.5, zmax: 5.5,
            colorscale: scale, showscale: false}], {xaxis: ax, yaxis: ax}],
        scattergl: k => [[{type: 'scattergl', mode: 'markers', x: xs, y: ys,
            marker: {symbol: 'square', size: 8, color: states(k).map(s => colors[s])}}],
            {xaxis: ax, yaxis: ax}],
        image: k => [[], {xaxis: Object.assign({range: [0, cols]}, ax),
            yaxis: Object.assign({range: [rows, 0]}, ax), images: [{source: image(states(k)),
            xref: 'x', yref: 'y', x: 0, y: 0, sizex: cols, sizey: rows, sizing: 'stretch',
            layer: 'below'}]}],
    };
    const out = {};
    for (const [name, make] of Object.entries(ways)) {
        const div = document.createElement('div');
        div.style.width = '1200px'; div.style.height = '420px'; document.body.appendChild(div);
        let [d, l] = make(0); await Plotly.newPlot(div, d, l);
        const ts = [];
        for (let k = 1; k <= 20; k++) {
            const t = performance.now(); [d, l] = make(k); await Plotly.react(div, d, l);
            ts.push(performance.now() - t);
        }
        ts.sort((a, b) => a - b); out[name] = ts[10]; Plotly.purge(div); div.remove();
    }
    return out;
}"""


def _answer_s() -> tuple[float, float]:
    """The page's answer to the full-size link (the history computed, then every part of the
    page built from it) in a fresh cache, and again from the cache, in seconds."""
    os.environ["CACHE_DIR"] = tempfile.mkdtemp(prefix="fleet-bench-")
    from app import create_app
    from config import settings
    from dashboard.panels.history_answer import page_answer

    app = create_app(settings())
    with app.server.test_request_context("/"):
        t = time.perf_counter()
        page_answer("?" + FULL, 365)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        page_answer("?" + FULL, 365)
        warm = time.perf_counter() - t
    return cold, warm


def _page(b, base: str, query: str, report: Callable, label: str) -> None:
    """Open the link, time its drawing after the answer and STEPS scrub steps."""
    from harness import history_page as H

    page = b.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/fleet?{query}")
    at = H.drawn(page)
    report(f"fleet: {label}: drawn after its answer arrived", at - H.answer_end(page), "ms", 1000)
    report(f"fleet: {label}: drawn after the link was opened", at, "ms", 4000)
    time.sleep(1.0)  # the words at the time shown have arrived
    steps, cursors = [], []
    for _ in range(STEPS):
        grid, lines = H.scrub_step(page)
        steps.append(grid)
        cursors.append(lines)
        time.sleep(0.3)
    med = statistics.median
    report(f"fleet: {label}: a scrub step (grid redrawn), median of {STEPS}", med(steps), "ms", 100)
    report(f"fleet: {label}: a scrub step, slowest of {STEPS}", max(steps), "ms", 250)
    report(f"fleet: {label}: ... and the lines' cursor moved, median", med(cursors), "ms", 250)
    page.close()


def bench_fleet_page(report: Callable) -> None:
    """The budgets above, printed against their figures."""
    from playwright.sync_api import sync_playwright

    from harness.servers import CHROME_ARGS, CHROMIUM, start_server, stop_server

    cold, warm = _answer_s()
    report("fleet: the page's answer, 2,000 racks x 365 days, one worker, cold", cold, "s", 5.0)
    report("fleet: the same link again (from the cache)", warm * 1e3, "ms", 200)
    proc, base = start_server()
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
            _page(b, base, FULL, report, "2,000 racks")
            _page(b, base, FULL + "&against=off%3Dreroute", report, "2,000 racks, against")
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/fleet?racks=16")
            from harness import history_page as H

            H.drawn(page)
            ways = page.evaluate(DRAW_WAYS_JS, 2000)
            for name, ms in ways.items():
                report(
                    f"fleet: draw 2,000 racks at a new time: {name}, median of 20", ms, "ms", 100
                )
            b.close()
    finally:
        stop_server(proc)
