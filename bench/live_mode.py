"""Live mode's budgets (issue 31), run by `python -m bench.run live`: a real Prometheus
(Debian's package) scraping the stand-in rack every SCRAPE_S, the twin reading it.

- one reading, as live mode reads now (every query at once, the narrowed families, the
  samples imported with no text between) and as it read before (the same 13 queries' whole
  families one after another, their text written and parsed back: BEFORE_QUERIES below),
  medians of READS on the same Prometheus;
- the small query that tells whether anything new was scraped;
- a change on the stand-in (healthy <-> a flaky link) until /api/v1/live reports it, CHANGES
  times, each made at a random moment of the scrape cycle (the worst case is a change just
  after a scrape): the issue's bound is two scrape intervals.
The stand-in runs in a process of its own (`python -m dashboard.standin`), as a rack's
exporter and NMX-Manager never share the twin's interpreter.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

SCRAPE_S = 1
READS = 9
CHANGES = 12
POLL_S = 0.05  # how often the bench asks /api/v1/live
# The live mode's queries before this change (main at 077e8e6): every family whole.
_B = '{{__name__=~"{}",job="rack"}}'
BEFORE_QUERIES = {
    "gpu_links": _B.format("DCGM_FI_DEV_NVLINK_.+|NVML_FI_DEV_NVLINK_.+"),
    "switch_ports": _B.format("DCGM_FI_DEV_NVSWITCH_.+"),
    "gpu_health": _B.format("DCGM_FI_DEV_FABRIC_.+"),
    "nmx_and_twin": _B.format("nmx_.+|fabric_twin_info|fabric_twin_link_telemetry_feature"),
}


def _median_s(fn: Callable[[], object], n: int) -> tuple[float, float, float]:
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), min(ts), max(ts)


def _reading_before(cfg) -> None:
    """The reading as main made it: each query in turn, whole families, text, import."""
    from dashboard.infra import live
    from model.telemetry import live as model_live
    from model.telemetry.importers import prometheus as promapi

    qs = promapi.queries(cfg.selector, cfg.window_s)
    qs = {k: v for k, v in qs.items() if k not in promapi.INSTANT and k not in promapi.ERRING}
    qs = BEFORE_QUERIES | qs
    answers = {}
    for k, q in qs.items():
        url = f"{cfg.prometheus_url}/api/v1/query?query={quote(q, safe='')}"
        answers[k] = live._answer(cfg, q, live.fetch(url, cfg.timeout_s))
    instant = [s for k in BEFORE_QUERIES for s in answers[k]]
    text = promapi.scrape_text(instant, answers["sums_over_window"])
    rates = {k: v for k, v in answers.items() if k.startswith("rate_")}
    nmx = "\n".join(live.fetch(cfg.nmx_url + p, cfg.timeout_s).decode() for p in live.NMX_PATHS)
    model_live.build(text, nmx, rates, cfg.window_s)


def _latencies(client, rack, standin: str, rng: random.Random) -> list[float]:
    """CHANGES changes of the stand-in's phase, each at a random moment of the scrape
    cycle, and the seconds until the twin reported each."""
    from harness.live import post_json, until
    from model.query import parse_query
    from model.scenario import to_query

    out = []
    client.get("/api/v1/live")  # the app's first reading, before any change is timed
    for i in range(CHANGES):
        phase = i % 2  # healthy, then the link flaky, ... (the stand-in starts flaky)
        want = to_query(parse_query(rack.scenarios[phase]).scenario, include_fabric=True)
        time.sleep(rng.uniform(0.0, SCRAPE_S))
        t0 = time.monotonic()
        post_json(f"{standin}/control", {"phase": phase})

        def seen(want: str = want) -> bool:
            a = client.get("/api/v1/live").get_json()
            return a["state"] == "ok" and a.get("query") == want

        until(seen, 30.0, f"the twin reporting {want}", POLL_S)
        out.append(time.monotonic() - t0)
    return out


def bench_live(report: Callable[..., None]) -> None:
    """The reading's time, before and after, and a change's latency (module docstring)."""
    from app import create_app
    from config import Live, Settings
    from dashboard.infra import live
    from harness.live import held_rack, post_json, prometheus, standin_process, until

    rack = held_rack("gpu07-st3.sw1")  # its schedule: what the stand-in process serves
    work = Path(tempfile.mkdtemp(prefix="bench-live-"))
    with (
        standin_process("gpu07-st3.sw1") as standin,
        prometheus({"rack": standin.removeprefix("http://")}, work / "p", SCRAPE_S) as p,
    ):
        post_json(f"{standin}/control", {"phase": 1})
        cfg = Live(p.url, 1, 2.0, 10, 'job="rack"', standin)
        until(lambda: live.read_once(cfg, None, time.time())["good"], 20, "a reading")
        after = _median_s(lambda: live.read_once(cfg, None, time.time()), READS)
        before = _median_s(lambda: _reading_before(cfg), READS)
        probe = _median_s(lambda: live.probe(cfg), READS)
        print(
            f"  one reading now {after[0]:.3f} s ({after[1]:.3f}-{after[2]:.3f}); before "
            f"{before[0]:.3f} s ({before[1]:.3f}-{before[2]:.3f}); probe {probe[0] * 1e3:.1f} ms"
        )
        report("live: one reading (every query at once, narrowed), median", after[0], "s", 0.5)
        report("live: one reading as before (in turn, whole, text), median", before[0], "s", 5.0)
        report("live: the probe (anything new scraped?), median", probe[0] * 1e3, "ms", 20)
        s = Settings(8050, None, str(work / "cache"), 3600, "INFO", False, live=cfg)
        client = create_app(s).server.test_client()
        took = _latencies(client, rack, standin, random.Random(31))
        print(f"  change -> reported: {', '.join(f'{x:.2f}' for x in took)} s")
        report("live: a change reported, median (scrape 1 s)", statistics.median(took), "s", 2.0)
        report("live: a change reported, slowest of 12 (<= 2 scrapes)", max(took), "s", 2.0)
