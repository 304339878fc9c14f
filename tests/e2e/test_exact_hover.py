"""The spine's hover and press name the truly nearest cable (assets/rack_hover.js), where the
hit points sit within a pixel or two of each other at the default zoom: the reason they were
WebGL markers (plotly's SVG hover calls every marker within ~3 px of the pointer a tie), kept
now that they are an SVG trace that draws nothing."""

import math
import random
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import TRACES, point_ids
from harness.page import query, ready

pytestmark = pytest.mark.e2e

CABLES = point_ids("vr-nvl72")[TRACES["cable_hits"]]
LABEL = "#rack .hoverlayer .hovertext"
# A browser's pointer is at whole pixels (MouseEvent.clientX is an integer in Chromium).


def _points(page) -> tuple[list[tuple[float, float]], float, tuple[float, float, float, float]]:
    """Every hit point's page position as plotly draws it, the hover's reach (plotly's:
    hoverdistance and half a pixel), and the spine's box (left, top, right, bottom)."""
    got = page.evaluate(
        f"""() => {{ const gd = document.querySelector('#rack .js-plotly-plot');
        const l = gd._fullLayout, r = gd.getBoundingClientRect(), t = gd._fullData[{TRACES["cable_hits"]}];
        const x0 = r.left + l.xaxis2._offset, y0 = r.top + l.yaxis._offset;
        return {{ pts: Array.from(t.x, (x, i) => [x0 + l.xaxis2.l2p(x), y0 + l.yaxis.l2p(t.y[i])]),
                 reach: l.hoverdistance + 0.5,  // plotly's for a point drawn as nothing
                 box: [x0, y0, x0 + l.xaxis2._length, y0 + l.yaxis._length] }}; }}"""
    )
    return [tuple(p) for p in got["pts"]], got["reach"], tuple(got["box"])


def _ranked(pts, x: float, y: float) -> list[tuple[float, int]]:
    """The two hit points nearest (x, y): [(distance, index)], nearest first."""
    d = np.hypot(*(np.asarray(pts) - (x, y)).T)
    i0, i1 = np.argsort(d)[:2]
    return [(float(d[i0]), int(i0)), (float(d[i1]), int(i1))]


def _only_nearest(pts, k: int, around: tuple[float, float]) -> tuple[int, int] | None:
    """A whole-pixel pointer position within 3 px of `around` where cable k is the nearest
    by at least 0.2 px, or None."""
    cx, cy = around
    for dx in range(-3, 4):
        for dy in range(-3, 4):
            x, y = math.floor(cx) + dx, math.floor(cy) + dy
            (d0, i0), (d1, _) = _ranked(pts, x, y)[:2]
            if i0 == k and d1 - d0 >= 0.2:
                return x, y
    return None


def _two_close_cables(pts):
    """Two cables whose hit points are 0.5 to 2 px apart, with a pointer position that has
    each the strict nearest, both within 3 px of each position (a tie for SVG markers)."""
    order = sorted(range(len(pts)), key=lambda i: pts[i])
    for n, a in enumerate(order):
        for b in order[n + 1 : n + 40]:
            if pts[b][0] - pts[a][0] > 2:
                break
            d = math.dist(pts[a], pts[b])
            if not 0.5 <= d <= 2:
                continue
            mid = ((pts[a][0] + pts[b][0]) / 2, (pts[a][1] + pts[b][1]) / 2)
            at_a, at_b = _only_nearest(pts, a, mid), _only_nearest(pts, b, mid)
            if (
                at_a
                and at_b
                and all(math.dist(p, pts[c]) < 3 for p in (at_a, at_b) for c in (a, b))
            ):
                return a, b, at_a, at_b, d
    raise AssertionError("no two hit points within 2 px at the default zoom")


def test_hover_and_press_name_the_nearest_of_two_cables_a_pixel_apart(served, page):
    page.goto(served + "/")
    ready(page, 0)
    page.locator("#rack").scroll_into_view_if_needed()
    pts, _, _ = _points(page)
    a, b, at_a, at_b, d = _two_close_cables(pts)
    assert d <= 2
    label = page.locator(LABEL).first
    for k, (x, y) in ((a, at_a), (b, at_b), (a, at_a)):
        page.mouse.move(x - 6, y - 6)
        page.mouse.move(x, y)
        expect(label).to_contain_text(f"cable {CABLES[k]}", timeout=5000)
    expect(page.locator("#hover-details")).to_contain_text(CABLES[a])
    page.mouse.move(*at_b)
    expect(label).to_contain_text(f"cable {CABLES[b]}", timeout=5000)
    page.mouse.down()  # the press fails the cable the hover named, not its neighbour
    page.mouse.up()
    expect(page).to_have_url(re.compile(rf"\?fail={re.escape(CABLES[b])}(#.*)?$"), timeout=15000)
    ready(page, 1)
    assert query(page) == {"fail": CABLES[b]}
    assert page.log.errors == []


def test_any_pointer_on_the_spine_names_the_truly_nearest_cable(served, page):
    """80 random whole-pixel places on the spine: the label names the nearest hit point
    (by the page's own positions, searched here), or nothing beyond the hover distance."""
    page.goto(served + "/?fail=st3")
    ready(page)
    page.locator("#rack").scroll_into_view_if_needed()
    pts, reach, (left, top, right, bottom) = _points(page)
    label = page.locator(LABEL)
    rng = random.Random(13)
    named = 0
    for _ in range(80):
        k = rng.randrange(len(pts))  # near a cable mostly, as a pointer is
        x = min(max(math.floor(pts[k][0]) + rng.randint(-8, 8), math.ceil(left)), int(right))
        y = min(max(math.floor(pts[k][1]) + rng.randint(-8, 8), math.ceil(top)), int(bottom))
        (d0, i0), (d1, _) = _ranked(pts, x, y)[:2]
        if d1 - d0 < 0.05 or abs(d0 - reach) < 0.05:
            continue  # a true tie, or at the edge of reach: either answer is right
        page.mouse.move(x - 1, y)
        page.mouse.move(x, y)
        if d0 <= reach:
            expect(label.first).to_contain_text(f"cable {CABLES[i0]}", timeout=5000)
            named += 1
        else:
            expect(label).to_have_count(0, timeout=5000)
    assert named >= 40
    assert page.log.errors == []
