"""Issue 13's numbered problems, as new users hit them, each shown not to happen any more: in
a real Chromium against the Procfile's gunicorn (tests/e2e/conftest.py)."""

import re

import pytest
from playwright.sync_api import expect

from dashboard.figures.rack import TRACES, point_ids
from harness.page import WORST, below, click_part, hover_part, query, ready
from tests.e2e.conftest import PageLog

pytestmark = pytest.mark.e2e

GD = "document.querySelector('#rack .js-plotly-plot')"


def _trace_len(page, name: str, prop: str = "y") -> int:
    return page.evaluate(f"() => ({GD}.data[{TRACES[name]}].{prop} || []).length")


class TestDoubleClickAndInspect:
    """(1) No double-click gesture on the rack (issue 28): a double-click is two presses, so
    it leaves nothing failed, however slow; the zoom is reset by the mode bar's button. An
    inspect mode selects and highlights without failing."""

    def test_a_double_click_fails_nothing_and_the_zoom_resets_by_its_button(self, served, page):
        page.goto(served + "/")
        ready(page, 0)
        page.locator("#rack").scroll_into_view_if_needed()
        box = page.locator("#rack .draglayer .x2y .nsewdrag").bounding_box()  # the spine
        full = page.evaluate(f"() => {GD}._fullLayout.xaxis2.range.slice()")
        page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.6, steps=5)
        page.mouse.up()
        page.wait_for_function(f"r => {GD}._fullLayout.xaxis2.range[0] > r[0] + 0.05", arg=full)
        assert "fail" not in query(page)  # a drag zooms, and presses nothing
        # the cable nearest the middle of the zoomed view, hovered, then double-clicked
        n = page.evaluate(
            f"""() => {{ const gd = {GD}; const t = gd._fullData[{TRACES["cable_hits"]}];
            const xa = gd._fullLayout.xaxis2, ya = gd._fullLayout.yaxis;
            const cx = (xa.range[0] + xa.range[1]) / 2, cy = (ya.range[0] + ya.range[1]) / 2;
            let best = 0, d = Infinity;
            for (let i = 0; i < t.x.length; i++) {{
              const e = Math.hypot(xa.l2p(t.x[i]) - xa.l2p(cx), ya.l2p(t.y[i]) - ya.l2p(cy));
              if (e < d) {{ d = e; best = i; }} }}
            return best; }}"""
        )
        cable = point_ids("vr-nvl72")[TRACES["cable_hits"]][n]
        x, y = hover_part(page, cable)
        page.mouse.dblclick(x, y)
        expect(page.locator("#action-message")).to_have_text(f"{cable} repaired")
        assert "fail" not in query(page)
        zoomed = page.evaluate(f"() => {GD}._fullLayout.xaxis2.range.slice()")
        assert zoomed[0] > full[0] + 0.05  # a double-click leaves the zoom alone
        page.locator("#rack .modebar-btn[data-val='reset']").click()
        page.wait_for_function(  # zoomed out again: the whole spine and rack in view
            f"""() => {{ const l = {GD}._fullLayout; const [a, b] = l.xaxis2.range;
            const [c, d] = l.yaxis.range; return a <= 0 && b >= 1 && d <= 0 && c >= 944; }}"""
        )
        click_part(page, "st5")
        expect(page).to_have_url(re.compile(r"\?fail=st5(#.*)?$"))
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        ready(page, 72 * 4 * 2)  # st5's cables, and no other
        assert query(page) == {"fail": "st5"}
        assert page.log.errors == []

    @pytest.mark.parametrize("pause_ms", [120, 450])
    def test_a_slow_double_click_is_two_presses(self, served, page, pause_ms):
        """A human double-click, its second click a pause after the first: the first fails
        the tray at once, the second repairs it. Nothing is taken back by a timer."""
        page.goto(served + "/?fail=st5")
        ready(page)
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        hover_part(page, "st3")
        page.mouse.down()
        page.mouse.up()
        expect(page).to_have_url(re.compile(r"\?fail=st5,st3(#.*)?$"), timeout=2000)  # at once
        page.wait_for_timeout(pause_ms)
        page.mouse.down(click_count=2)
        page.mouse.up(click_count=2)
        expect(page).to_have_url(re.compile(r"\?fail=st5(#.*)?$"), timeout=2000)
        expect(page.locator("#action-message")).to_have_text("st3 hot-swapped")
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        assert query(page) == {"fail": "st5"}
        assert page.log.errors == []

    def test_inspect_selects_and_highlights_without_failing(self, served, page):
        page.goto(served + "/?fail=st5")
        ready(page)
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        page.locator("#click-mode").get_by_text("inspects").click()
        expect(page).to_have_url(re.compile(r"#mode=inspect$"))
        # the rack redrawn for the mode first (its labels say so): a click during that redraw
        # lands nowhere (plotly clears its hover), as it would for a person
        click_part(page, "st3", says="click to inspect")
        expect(page).to_have_url(re.compile(r"#mode=inspect&sel=st3$"))
        expect(page.locator("#action-message")).to_contain_text("st3 selected")
        page.wait_for_function(f"() => ({GD}.data[{TRACES['selected']}].y || []).length > 0")
        assert _trace_len(page, "selected") == 3 * 72 * 4 * 2  # st3's 576 cables
        assert _trace_len(page, "selected_parts", "x") == 1
        assert query(page) == {"fail": "st5"}  # nothing failed, nothing repaired
        click_part(page, "st5")  # a failed tray, inspected: not repaired
        expect(page).to_have_url(re.compile(r"sel=st5$"))
        assert query(page) == {"fail": "st5"}
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        assert page.log.errors == []


class TestNothingLeavesByAccident:
    """(6) No chart toolbar offers "Share chart" or any upload; the app's own share link is
    one click (copy to clipboard)."""

    def test_no_toolbar_uploads_and_copy_link_copies_the_url(self, served, browser):
        ctx = browser.new_context(
            viewport={"width": 1280, "height": 800},
            permissions=["clipboard-read", "clipboard-write"],
        )
        page = ctx.new_page()
        log = PageLog(page)
        page.goto(served + "/?fail=st3&flaky=gpu20-st5.sw1#link=gpu20-st5.sw1&mode=flaky")
        ready(page)
        below(page)  # every chart on the page: those below mount once a reader comes near
        graphs = page.locator(".js-plotly-plot")
        page.wait_for_function(  # every chart drawn, its toolbar built
            "() => { const g = [...document.querySelectorAll('.js-plotly-plot')];"
            " return g.length >= 8 && g.every(d => d._context && d.querySelector('.modebar')); }",
            timeout=30000,
        )
        n = graphs.count()
        contexts = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].map(d =>"
            " [d._context.showSendToCloud, d._context.plotlyServerURL])"
        )
        assert contexts == [[False, ""]] * n
        titles = page.locator(".modebar-btn").evaluate_all(
            "bs => bs.map(b => b.getAttribute('data-title') || '')"
        )
        assert sum(t == "Download plot as a PNG" for t in titles) == n  # real toolbars
        assert not [t for t in titles if re.search(r"share|cloud|upload|studio", t, re.IGNORECASE)]
        page.get_by_role("button", name="Copy link").click()
        expect(page.locator("#copy-link")).to_have_text("Link copied")  # dcc.Clipboard
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == page.url and copied.endswith(
            "?fail=st3&flaky=gpu20-st5.sw1#link=gpu20-st5.sw1&mode=flaky"
        )
        assert log.errors == []
        ctx.close()


MAP = "document.querySelector('#cable-map .js-plotly-plot')"


class TestTheFindBox:
    """(2) The find box: suggestions as a person types, Enter in any case finds the part and
    highlights it on the drawing and the cable map without failing it (in every click mode);
    the button does what a click does; a bad ID stays in the box and the message names it."""

    def test_type_suggest_enter_highlights_not_fails_and_the_button_applies(self, served, page):
        page.goto(served + "/?fail=st5")
        ready(page)
        box = page.locator("#id-input")
        box.press_sequentially("GPU20-ST3.SW1.")
        expect(page.locator("#find-options option")).to_have_count(2)
        options = page.locator("#find-options option").evaluate_all("os => os.map(o => o.value)")
        assert options == ["gpu20-st3.sw1.c0", "gpu20-st3.sw1.c1"]
        box.press("C")
        box.press("1")
        box.press("Enter")  # in the default mode, fail: Enter still only finds
        expect(page).to_have_url(re.compile(r"\?fail=st5#sel=gpu20-st3\.sw1\.c1$"))
        expect(page.locator("#action-message")).to_contain_text("gpu20-st3.sw1.c1 found")
        page.wait_for_function(f"() => ({GD}.data[{TRACES['selected']}].y || []).length === 3")
        page.wait_for_function(  # and its one cell outlined on the cable map
            f"() => {{ const t = {MAP}.data[1]; return t.x.length === 1"
            " && t.x[0] === 'st3.sw1.c1' && t.y[0] === 'gpu20'; }"
        )
        assert query(page) == {"fail": "st5"}  # found, highlighted, not failed
        expect(page.locator(WORST)).to_have_text("3.2 TB/s")
        page.locator("#fail-button").click()  # the button: what a click does
        expect(page).to_have_url(re.compile(r"\?fail=st5,gpu20-st3\.sw1\.c1(#.*)?$"))
        expect(box).to_have_value("")
        box.fill("gpu07-st3.sw9")
        box.press("Enter")
        expect(page.locator("#action-message")).to_contain_text("gpu07-st3.sw9")
        expect(box).to_have_value("gpu07-st3.sw9")  # kept, to be corrected
        assert query(page) == {"fail": "st5,gpu20-st3.sw1.c1"}
        page.locator("#click-mode").get_by_text("inspects").click()
        expect(page).to_have_url(re.compile(r"#mode=inspect"))
        box.fill("St4")
        box.press("Enter")
        expect(page).to_have_url(re.compile(r"#mode=inspect&sel=st4$"))
        page.wait_for_function(f"() => {MAP}.data[1].x.length === 72 * 8")  # its chips' cells
        assert query(page) == {"fail": "st5,gpu20-st3.sw1.c1"}
        assert page.log.errors == []


def _labels_say(page, text: str) -> None:
    """Wait for the hover labels the server patches in (overlay.py label_patch) to say `text`."""
    page.wait_for_function(
        f"t => {{ const h = {GD}.data[{TRACES['cable_hits']}].hovertext;"
        " return Array.isArray(h) && h.some(x => x.includes(t)); }",
        arg=text,
    )


class TestHoverSaysStateAndClick:
    """(3) Hover labels say the part's state and what a click does in the click mode; the
    line under the rack gives the part's own state, numbers for people, and clears."""

    def test_labels_and_the_line_under_the_rack(self, served, page):
        page.goto(served + "/?fail=st3.sw1&flaky=gpu20-st5.sw1")
        ready(page)
        _labels_say(page, "click to fail it too")  # the failed chip's cables
        label = page.locator("#rack .hoverlayer .hovertext").first
        line = page.locator("#hover-details")
        hover_part(page, "st3.sw1")
        expect(label).to_contain_text("failed · click to repair")
        hover_part(page, "st1.sw0")
        expect(label).to_contain_text("healthy · click to fail")
        hover_part(page, "gpu07-st3.sw1.c0")  # a cable of the failed chip
        expect(label).to_contain_text("failed · click to fail it too")
        expect(line).to_contain_text("gpu07-st3.sw1.c0 · failed")
        expect(line).to_contain_text("BER n/a (down)")
        assert "ACTIVE" not in line.inner_text()
        hover_part(page, "gpu20-st5.sw1.c0")  # the flaky link's cable
        expect(label).to_contain_text("degrading (flaky) · click to fail")
        expect(line).to_contain_text(re.compile(r"· degrading \(flaky\) · [\d,]+ replays"))
        expect(line).to_contain_text(re.compile(r"BER \de-\d+$"))  # 3e-12, not 2.95e-12
        page.mouse.move(5, 5)  # off the rack: the line forgets the cable
        expect(line).to_have_text(re.compile(r"^Hover a cable or a part"))
        page.locator("#click-mode").get_by_text("marks flaky").click()
        _labels_say(page, "click to mark flaky")
        hover_part(page, "gpu20-st5.sw1.c0")
        expect(label).to_contain_text("degrading (flaky) · click to mark flaky")
        hover_part(page, "gpu07")
        expect(label).to_contain_text("only links and cables can be flaky")
        page.locator("#click-mode").get_by_text("inspects").click()
        _labels_say(page, "click to inspect")
        hover_part(page, "st3.sw1")
        expect(label).to_contain_text("failed · click to inspect")
        assert page.log.errors == []


class TestEveryFabricInItsOwnWords:
    """(7) Features, cards and the compare table in each fabric's own words and numbers."""

    def test_ethernet_gb200_and_the_compare_table(self, served, page):
        page.goto(served + "/?fabric=eth-x72&fail=st3")
        ready(page)
        cards = page.locator("#cards")
        expect(cards).to_contain_text("no central controller")
        # like for like: Ethernet's decode is held against the same Rubin GPUs on NVLink 6
        expect(cards).to_contain_text("x vr-nvl72 (the same Rubin GPUs on NVLink 6)")
        expect(cards).to_contain_text("the switch ports' FEC/CRC error counters")
        expect(page.locator("#features-title")).to_contain_text("What Ethernet does")
        text = cards.inner_text()
        assert "leader" not in text and "DCGM" not in text and "x eth-x72" not in text
        assert "NVLink 6" not in page.locator(".controls").inner_text()
        page.goto(served + "/?fabric=gb200-nvl72&fail=st3#compare=fabric%3Deth-x72%26fail%3Dst3")
        ready(page)
        expect(page.locator("#features-title")).to_have_text(
            "NVLink 5 resiliency features (FACTS.md §3)"
        )
        below(page)
        table = page.locator("#compare-table")
        expect(table).to_contain_text("fabric=eth-x72&fail=st3", timeout=30000)
        expect(table.locator("tr.differs").first).to_be_visible()
        cells = table.locator("td").all_inner_texts()
        assert not [c for c in cells if c in ("None", "0.0") or re.search(r"\d\.0$", c)], cells
        assert "— (none on Ethernet)" in cells  # no in-network compute to count
        assert page.log.errors == []


def _pick_fabric(page, label: str) -> None:
    page.locator("#fabric").click()
    page.get_by_role("option", name=label).click()


class TestRoundTripsAndDomains:
    """(10) Faults survive a round trip through the fabric menu where their IDs exist on
    both; a domain has every control the model answers for it (issue 16: all of them now,
    model.scenario.DOMAIN_UNMODELLED empty); scripts/run.sh serves with the Procfile's
    gunicorn."""

    def test_round_trip_keeps_faults_and_domains_have_what_the_model_has(self, served, page):
        page.goto(served + "/?fabric=eth-x72&fail=st3,gpu07-st3.sw2.c1&flaky=gpu20-st5.sw1")
        ready(page)
        _pick_fabric(page, "8 Vera Rubin NVL72 racks, one NVLink domain [A]")
        expect(page).to_have_url(
            re.compile(
                r"fabric=vr-nvl576&fail=r01\.st3,r01\.gpu07-st3\.sw2\.c1"
                r"&flaky=r01\.gpu20-st5\.sw1"
            )
        )
        for control in ("#workload", "#issu"):
            expect(page.locator(control)).not_to_have_attribute("disabled", "")
        boxes = page.locator("#features input[type=checkbox]")
        assert boxes.count() == 7
        for i in range(7):
            expect(boxes.nth(i)).to_be_enabled()
        expect(page.locator("#click-mode input[value=flaky]")).to_be_enabled()
        expect(page.locator("#cards")).to_contain_text("Domain bandwidth")
        expect(page.locator("#cards")).to_contain_text("Partition")
        _pick_fabric(page, "Vera Rubin NVL72 (NVLink 6)")
        expect(page).to_have_url(
            re.compile(r"\?fail=st3,gpu07-st3\.sw2\.c1&flaky=gpu20-st5\.sw1(#.*)?$")
        )
        from model import evaluate, parse_query

        q = "fail=st3,gpu07-st3.sw2.c1&flaky=gpu20-st5.sw1"
        worst = evaluate(parse_query(q).scenario)["bandwidth"]["per_gpu_tbs"]["min"]
        expect(page.locator(WORST)).to_have_text(f"{worst:g} TB/s")  # the model's answer
        for control in ("#workload", "#issu"):
            expect(page.locator(control)).not_to_have_attribute("disabled", "")
        expect(boxes.first).to_be_enabled()
        assert page.log.errors == []


def test_run_sh_serves_with_the_procfiles_gunicorn(tmp_path):
    import os
    import subprocess
    import time
    import urllib.request

    from harness.servers import ROOT, free_port, stop_server

    port = free_port()
    log = open(tmp_path / "run.log", "w")  # noqa: SIM115 (closed below)
    env = {**os.environ, "PORT": str(port), "SKIP_SETUP": "1", "CACHE_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        ["bash", "scripts/run.sh"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise AssertionError("scripts/run.sh did not serve /healthz within 60 s")
    finally:
        # TERM, then KILL: gunicorn's master given TERM while a worker is still booting
        # waits its graceful timeout (30 s) for it; the harness's stop always reaps it
        stop_server(proc)
        log.close()
    text = (tmp_path / "run.log").read_text()
    assert "Booting worker" in text and "gunicorn" in text.lower()
    assert "development server" not in text and "Debug mode" not in text


class TestFleetStudy:
    """(9) A new run clears the old table; a cancelled run says so; the racks box shows
    10,000 whole."""

    def test_racks_box_new_run_and_cancel(self, served, page):
        import os
        import signal
        import time

        from tests.e2e.test_fleet_watchdog import gone, job_beats, job_process

        page.goto(served + "/")
        expect(page.locator("#cards .card").first).to_be_visible(timeout=30000)
        below(page)  # the study's panel mounts once a reader comes near it (panels/lazy.py)
        racks = page.locator("#fleet-racks")
        racks.fill("10000")
        racks.press("Tab")
        expect(racks).to_have_value("10,000")
        assert racks.evaluate("e => e.scrollWidth <= e.clientWidth")  # all of it in view
        racks.fill("40")
        page.fill("#fleet-years", "1")
        page.click("#fleet-run")
        result = page.locator("#fleet-result")
        expect(result).to_contain_text("vr-nvl72, all seven features", timeout=60000)
        racks.fill("10000")
        page.fill("#fleet-years", "10")
        since = time.time()
        page.click("#fleet-run")
        expect(result).not_to_contain_text("all seven features", timeout=2000)  # at once
        expect(result).to_contain_text("Running")
        job_beats(page)  # the job itself: Run's "starting…" shows before it is forked
        job = job_process(served, since)
        os.kill(job.pid, signal.SIGSTOP)  # frozen mid-study: Cancel cannot race its end
        try:
            page.click("#fleet-cancel")
            expect(page.locator("#fleet-progress-text")).to_have_text("cancelled", timeout=10000)
            expect(result).to_contain_text("Cancelled: the study stopped before it finished")
            expect(page.locator("#fleet-run")).to_be_enabled()
        finally:
            if not gone(job):
                job.kill()
        assert page.log.errors == []


@pytest.mark.parametrize("w,h", [(1280, 800), (1920, 1080), (1024, 768), (390, 844)])
def test_screenshots_of_a_lost_switch_tray(served, browser, w, h):
    """?fail=st3 at the four viewports of issue 13, into artifacts/ (looked at by a person):
    the page fits its width and logs no error."""
    from harness.servers import ARTIFACTS

    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    log = PageLog(page)
    page.goto(served + "/?fail=st3")
    ready(page, 72 * 4 * 2)
    _labels_say(page, "click to fail it too")
    expect(page.locator(WORST)).to_have_text("3.2 TB/s")
    page.screenshot(path=str(ARTIFACTS / f"issue13-fail-st3-{w}x{h}.png"))
    # the whole page, once a reader has come to what is below the first screen: it mounts
    # then (panels/lazy.py) and its charts are drawn
    below(page)
    page.wait_for_function("() => window.belowDrawn && true")
    page.evaluate("() => window.belowDrawn()")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"issue13-fail-st3-{w}x{h}-full.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= w + 2
    assert log.errors == []
    ctx.close()
