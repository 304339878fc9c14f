"""What a person does on the page, for the browser tests and the benchmarks alike: wait for
the rack to be drawn, hover a part until plotly names it and press it, press a cable's cell on
the cable map, scroll below the first screen, read the URL's query."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from dashboard.figures.rack import TRACES, point_ids
from dashboard.figures.rack.cablemap import columns
from model.fabric.presets import FABRICS

WORST = "#cards .card:first-child .card-value"
JOB = "#cards .card:nth-child(6) .card-value"


def ready(page, n_failed: int | None = None) -> None:
    """Wait for the rack to be drawn (and, if given, for the failed overlay to hold n cables)."""
    page.wait_for_function(
        "() => { const gd = document.querySelector('#rack .js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.length >= 12; }",
        timeout=30000,
    )
    if n_failed is not None:
        page.wait_for_function(
            "n => { const gd = document.querySelector('#rack .js-plotly-plot');"
            " const y = gd.data[6].y || []; let k = 0;"
            " for (let i = 0; i + 1 < y.length; i += 3) { if (y[i] !== null && !Number.isNaN(y[i])) k++; }"
            " return k === n; }",
            arg=n_failed,
            timeout=15000,
        )


def below(page) -> None:
    """Scroll to the page below the first screen, as a reader does: its charts and tables are
    drawn once it first comes near the viewport (dashboard/panels/below.py)."""
    page.locator(".charts h2").first.scroll_into_view_if_needed()


# Page pixel position of point k of trace c of the rack figure (JavaScript, for evaluate).
_POINT_PX = """const gd = document.querySelector('#rack .js-plotly-plot');
            const t = gd._fullData[c];
            const xa = gd._fullLayout[t.xaxis === 'x' ? 'xaxis' : 'xaxis' + t.xaxis.slice(1)];
            const ya = gd._fullLayout[t.yaxis === 'y' ? 'yaxis' : 'yaxis' + t.yaxis.slice(1)];
            const r = gd.getBoundingClientRect();
            const px = (k) => [r.left + xa._offset + xa.l2p(t.x[k]), r.top + ya._offset + ya.l2p(t.y[k])];"""


def rack_xy(page, curve: int, index: int) -> tuple[float, float]:
    """Page pixel position of one point of a trace of the rack figure."""
    return tuple(page.evaluate(f"([c, i]) => {{ {_POINT_PX} return px(i); }}", [curve, index]))


def _clear_pixel(page, curve: int, index: int) -> tuple[float, float]:
    """The whole pixel nearest point `index` of a rack trace at which it, and no other point
    of that trace, is the nearest: a pointer's position is whole pixels, and the spine's hit
    points can sit within half a pixel of each other (a person moves the mouse a little)."""
    return tuple(
        page.evaluate(
            "([c, i]) => {"
            + _POINT_PX
            + """
            const [x0, y0] = px(i);
            const near = [];
            for (let k = 0; k < t.x.length; k++) {
              const [x, y] = px(k);
              if (Math.abs(x - x0) < 4 && Math.abs(y - y0) < 4) near.push([k, x, y]);
            }
            let best = [Math.round(x0), Math.round(y0)], margin = -Infinity;
            for (let dx = -2; dx <= 2; dx++) for (let dy = -2; dy <= 2; dy++) {
              const X = Math.round(x0) + dx, Y = Math.round(y0) + dy;
              const d = near.map(([k, x, y]) => [k, Math.hypot(x - X, y - Y)]).sort((a, b) => a[1] - b[1]);
              if (d[0][0] !== i) continue;
              const m = (d.length > 1 ? d[1][1] : 9) - d[0][1] - 0.1 * Math.hypot(dx, dy);
              if (m > margin) { margin = m; best = [X, Y]; }
            }
            return best;
        }""",
            [curve, index],
        )
    )


def hover_part(page, cid: str, fabric: str = "vr-nvl72", says: str = "") -> tuple[float, float]:
    """Move the pointer onto a part until its hover label names it (and says `says`: what a
    click does, once the rack is redrawn for a new click mode); its page position."""
    page.locator("#rack").scroll_into_view_if_needed()
    for curve, names in point_ids(fabric).items():
        if cid in names:
            x, y = _clear_pixel(page, curve, names.index(cid))
            break
    else:
        raise AssertionError(f"{cid} has no marker")
    page.mouse.move(x - 3, y - 3)
    page.mouse.move(x, y)
    label = page.locator("#rack .hoverlayer .hovertext").first
    expect(label).to_contain_text(cid, timeout=5000)
    if says:  # a redraw (for a new mode) clears plotly's hover: a click then lands nowhere
        for _ in range(40):
            if says in (label.text_content() or ""):
                break
            page.mouse.move(x - 3, y - 3)
            page.mouse.move(x, y)
            page.wait_for_timeout(100)
        expect(label).to_contain_text(says, timeout=5000)
    return x, y


def click_part(page, cid: str, fabric: str = "vr-nvl72", says: str = "") -> float:
    """Hover the part until Plotly names it, then press: Plotly clicks the last hovered point.
    Returns the time of the press (for the benchmark)."""
    hover_part(page, cid, fabric, says)
    t = time.perf_counter()
    page.mouse.down()
    page.mouse.up()
    return t


def query(page) -> dict:
    """The page URL's query as a dict (each key's first value)."""
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


MAP = "document.querySelector('#cable-map .js-plotly-plot')"
MAP_LABEL = "#cable-map .hoverlayer .hovertext"
RACK_LABEL = "#rack .hoverlayer .hovertext"
CABLES = point_ids("vr-nvl72")[TRACES["cable_hits"]]
COLS = len(columns(FABRICS["vr-nvl72"]))


def map_ready(page, text: str = "click to fail") -> None:
    """The map drawn and its labels written (the server's, overlay.py label_patch)."""
    page.wait_for_function(
        f"""t => {{ const gd = {MAP}; const h = gd && gd.data && gd.data[0].text;
        return gd._fullLayout && Array.isArray(h) && h.some(r => r.some(x => x.includes(t))); }}""",
        arg=text,
        timeout=30000,
    )


def cell_xy(page, k: int) -> tuple[float, float]:
    """Page position of cable k's cell (row k // COLS, column k % COLS)."""
    return tuple(
        page.evaluate(
            f"""([r, c]) => {{ const gd = {MAP}, l = gd._fullLayout, b = gd.getBoundingClientRect();
            return [b.left + l.xaxis._offset + l.xaxis.l2p(c), b.top + l.yaxis._offset + l.yaxis.l2p(r)]; }}""",
            [k // COLS, k % COLS],
        )
    )


def click_cell(page, cable: str) -> float:
    """Hover a cable's cell on the map until its label names it, then press; the time of
    the press (for the benchmark). The map's cells are exact where the drawing's markers,
    5,184 of them at the default zoom, can sit within a pixel of each other."""
    page.locator("#cable-map").scroll_into_view_if_needed()
    x, y = cell_xy(page, CABLES.index(cable))
    page.mouse.move(x - 1, y)
    page.mouse.move(x, y)
    expect(page.locator(MAP_LABEL).first).to_contain_text(f"cable {cable}", timeout=5000)
    t = time.perf_counter()
    page.mouse.down()
    page.mouse.up()
    return t


# The share of the spine's cable ink in one overlay's colour: Plotly.toImage of the rack, each
# spine pixel unmixed into panel + a*(base colour) + a*t*(overlay colour - base colour) by
# least squares, and sum(a*t) / sum(a). Colours are the figure's own (gd.data).
_INK = """async ([trace, panel]) => {
  const gd = document.querySelector('#rack .js-plotly-plot');
  const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const g = hex(panel), b = hex(gd.data[0].line.color), s = hex(gd.data[trace].line.color);
  const r = gd.getBoundingClientRect();
  const url = await Plotly.toImage(gd, {format: 'png', width: r.width, height: r.height, scale: 1});
  const img = new Image(); img.src = url; await img.decode();
  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
  const m = gd.layout.margin, dom = gd.layout.xaxis2.domain, rng = gd.layout.xaxis2.range;
  const W = img.width - m.l - m.r, px = (x) => m.l + W * (dom[0] + (dom[1] - dom[0]) * (x - rng[0]) / (rng[1] - rng[0]));
  const x0 = Math.ceil(px(0)) + 4, x1 = Math.floor(px(1)) - 2;  // inside the edge masks
  const d = ctx.getImageData(x0, m.t, x1 - x0, img.height - m.t - m.b).data;
  const B = [0, 1, 2].map((i) => b[i] - g[i]), S = [0, 1, 2].map((i) => s[i] - b[i]);
  const dot = (u, v) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const bb = dot(B, B), ss = dot(S, S), bs = dot(B, S), det = bb * ss - bs * bs;
  let A = 0, T = 0;
  for (let i = 0; i < d.length; i += 4) {
    const P = [d[i] - g[0], d[i + 1] - g[1], d[i + 2] - g[2]], pb = dot(P, B), ps = dot(P, S);
    const a = Math.min(1, Math.max(0, (pb * ss - ps * bs) / det));
    A += a; T += Math.min(a, Math.max(0, (ps * bb - pb * bs) / det));
  }
  return T / A;
}"""


def ink_share(page, trace: int, panel: str) -> float:
    """The share of the spine's drawn cable ink that is trace `trace`'s colour (0 to 1)."""
    return page.evaluate(_INK, [trace, panel])
