"""Live mode's I/O: the operator's Prometheus (and NMX-Manager) asked just after each scrape
of the rack lands, for the whole app; the model reads the answers (model/telemetry/live.py).

Only the URLs of the operator's environment (config.Live) are fetched: no function here
takes a URL from a request, and every request has a bounded timeout and a bounded size. A
redirect is refused (the operator's server does not get to send the twin elsewhere).

The reading is kept in the shared cache (dashboard/infra/cache.py), with the time it was
read: under gunicorn's workers (and Redis's machines) one reading serves every process, and
whichever request comes first after the next reading is due claims it (the cache's claim:
one reader at a time across processes; the others answer the reading they have meanwhile).
A reading is due just after the rack's next scrape lands (each target's last scrape time
and the scrape interval are read with the reading: `next_at`), and `interval_s` after the
last at the latest. Each reading first asks one small query (`probe`: each target's last
scrape time) and, when nothing new was scraped since the last reading, reads nothing more.
So a change on the rack is reported one scrape and one reading after it happened. Every
other request of a reading is asked at once (`ask_all`, at most POOL a time), so a reading
takes about its slowest answer and the import (the samples built from the answers, no text
between), never the sum of every timeout. No thread polls: a background thread per worker
would read N times an interval with N workers and would not survive --preload's fork; with
nobody asking, nothing is read (Prometheus scraping the twin's /metrics asks every scrape
interval).

A source that fails (no answer within the timeout, an HTTP error, an answer that is not a
rack) leaves the last good reading in place, marked stale, with the reason; before any good
reading, it is down. Never a "healthy" read from a source that did not answer.
"""

from __future__ import annotations

import json
import logging
import math
import socket
import time
import urllib.error
import urllib.request
from base64 import b64encode
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from flask import current_app, has_app_context

from config import Live
from model.errors import ScenarioError
from model.telemetry import live as model_live
from model.telemetry.importers import ImportRefused, parse_hosts
from model.telemetry.importers import prometheus as promapi

log = logging.getLogger("fabric_twin.live")
KEY = "live:reading"
EXTENSION = "fabric_twin_live"
MAX_ANSWER_BYTES = 64 * 2**20  # [A] one rack's every series as JSON is ~10 MB
MAX_CHANGES = 20  # the live scenario's last changes the banner links to
POOL = 4  # [A] requests under way at once, one reading: 8 measured no faster on 2 cores
GRACE_S = 0.5  # [A] past a request's timeout before its answer is given up (a dripping one)
LAG_S = 0.05  # [A] after a scrape's time until its samples are read back: its write
RETRY_S = 0.1  # [A] a scrape not yet landed: asked again this much later (one small query)
NMX_PATHS = ("/nmx/v1/partitions", "/nmx/v1/gpus", "/nmx/v1/ports")
NOT_CONFIGURED = (
    "live mode is off: the operator turns it on with PROMETHEUS_URL (and NMX_URL) in the "
    'twin\'s environment (README "Configuration"); nothing a visitor sends can'
)


class SourceFailed(Exception):
    """A source that did not give a reading: why, in words."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kw: Any) -> None:
        return None  # a 3xx is an HTTP error: the twin fetches the operator's URLs only


_OPENER = urllib.request.build_opener(_NoRedirect)


def fetch(url: str, timeout_s: float, auth: tuple[str, str] | None = None) -> bytes:
    """The body of GET url (one of the operator's), within timeout_s; SourceFailed naming
    what went wrong (refused, no answer in time, an HTTP error, too big)."""
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    if auth is not None:
        token = b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
    where = _where(url)
    try:
        with _OPENER.open(req, timeout=timeout_s) as r:
            body = r.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as e:
        raise SourceFailed(f"{where} answered HTTP {e.code}") from None
    except TimeoutError:
        raise SourceFailed(f"{where} gave no answer within {timeout_s:g} s") from None
    except (urllib.error.URLError, OSError) as e:
        why = getattr(e, "reason", e)
        if isinstance(why, TimeoutError | socket.timeout):
            raise SourceFailed(f"{where} gave no answer within {timeout_s:g} s") from None
        raise SourceFailed(f"{where} cannot be reached ({why})") from None
    if len(body) > MAX_ANSWER_BYTES:
        raise SourceFailed(f"{where} answered more than {MAX_ANSWER_BYTES:,} bytes")
    return body


def _where(url: str) -> str:
    """A URL as the banner names it: host, port and path, never credentials or a query."""
    u = urlsplit(url)
    return f"{u.hostname}{f':{u.port}' if u.port else ''}{u.path}"


def ask_all(urls: dict[str, str], timeout_s: float, auth=None) -> dict[str, bytes]:
    """The bodies of GET each url, asked at once (at most POOL a time): one reading waits
    about as long as its slowest answer, never longer than timeout_s and a little (a
    request that drips past it is abandoned, its thread ended by its own socket timeout).
    SourceFailed for the first that failed, in the order given."""
    if not urls:
        return {}
    pool = ThreadPoolExecutor(max_workers=min(POOL, len(urls)), thread_name_prefix="live")
    try:
        futs = {k: pool.submit(fetch, u, timeout_s, auth) for k, u in urls.items()}
        wait(futs.values(), timeout=timeout_s + GRACE_S)
        out = {}
        for k, f in futs.items():
            if not f.done():
                raise SourceFailed(f"{_where(urls[k])} gave no answer within {timeout_s:g} s")
            out[k] = f.result()  # its SourceFailed, if it failed
        return out
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _query_url(cfg: Live, q: str) -> str:
    return f"{cfg.prometheus_url}/api/v1/query?query={quote(q, safe='')}"


def _answer(cfg: Live, q: str, body: bytes) -> list[promapi.Series]:
    """One /api/v1/query answer read; SourceFailed saying why it is not one."""
    try:
        return promapi.series(q, json.loads(body))
    except json.JSONDecodeError:
        where = _where(_query_url(cfg, q))
        raise SourceFailed(f"{where} answered something that is not JSON") from None
    except promapi.Garbage as e:
        raise SourceFailed(f"Prometheus answered garbage: {e}") from None


def probe(cfg: Live) -> dict[str, float]:
    """Each scrape target's last scrape of the rack (one small query): what tells whether
    a reading would read anything new."""
    q = promapi.probe_query(cfg.selector)
    return promapi.scrape_times(_answer(cfg, q, fetch(_query_url(cfg, q), cfg.timeout_s)))


def ask_prometheus(
    cfg: Live, scrapes: dict[str, float]
) -> tuple[list, dict[str, list[promapi.Series]], dict]:
    """The DCGM side's scrape (its samples) from the Prometheus answers, the rate() answers,
    and when it was scraped ({"scrapes": each target's last, as the probe asked before these
    queries said, so the answers are at least that new; "scrape_s": the interval}). Every
    query is asked at once (ask_all)."""
    qs = promapi.queries(cfg.selector, cfg.window_s)
    bodies = ask_all({k: _query_url(cfg, q) for k, q in qs.items()}, cfg.timeout_s)
    answers = {k: _answer(cfg, qs[k], b) for k, b in bodies.items()}
    instant = [s for k in promapi.READ_NOW for s in answers[k]]
    sums = answers["sums_over_window"]
    if not instant and not sums:
        raise SourceFailed(
            "Prometheus has no DCGM series for this rack now (its exporter not scraped, or "
            f"the selector '{cfg.selector}' matches nothing)"
        )
    rates = {k: v for k, v in answers.items() if k.startswith("rate_")}
    when = {"scrapes": scrapes, "scrape_s": promapi.scrape_interval_s(sums)}
    return promapi.scrape_samples(instant, sums), rates, when


def ask_nmx(cfg: Live) -> str:
    """NMX-Manager's three answers, asked at once, one after another in the text (the
    importer reads them so)."""
    assert cfg.nmx_url is not None
    got = ask_all({p: cfg.nmx_url + p for p in NMX_PATHS}, cfg.timeout_s, cfg.nmx_auth)
    return "\n".join(got[p].decode("utf-8", "replace") for p in NMX_PATHS)


def next_at(now: float, cfg: Live, when: dict | None) -> float:
    """When the next reading is due: just after the rack's next scrape lands (so a change
    is read one scrape after it happened, not an interval later), and an interval after
    this one at the latest; a scrape due but not yet landed is asked for again RETRY_S on."""
    latest = now + cfg.interval_s
    scrapes, every = (when or {}).get("scrapes"), (when or {}).get("scrape_s")
    if not scrapes or not every:
        return latest
    nxt = []
    for ts in scrapes.values():
        k = max(1, math.ceil((now - ts) / every))
        nxt.append(ts + k * every)
    return max(now + RETRY_S, min(latest, min(nxt) + LAG_S))


def _source(prev: dict | None, ok: bool, reason: str, now: float, where: str) -> dict:
    last = now if ok else (prev or {}).get("last_ok_at")
    return {"where": where, "ok": ok, "reason": reason, "last_ok_at": last}


def _ask_sources(
    cfg: Live, failed: dict[str, str], scrapes: dict[str, float] | None
) -> dict[str, tuple[Any, str | None]]:
    """Prometheus and NMX-Manager asked at once: each one's answer, or why it failed
    (`failed`: a source already known to have failed this reading, not asked again)."""
    jobs: dict[str, Any] = {"prometheus": lambda c: ask_prometheus(c, scrapes or {})}
    if cfg.nmx_url:
        jobs["nmx"] = ask_nmx
    out: dict[str, tuple[Any, str | None]] = {k: (None, why) for k, why in failed.items()}
    jobs = {k: f for k, f in jobs.items() if k not in failed}
    with ThreadPoolExecutor(max_workers=max(1, len(jobs)), thread_name_prefix="live-src") as pool:
        futs = {k: pool.submit(f, cfg) for k, f in jobs.items()}
    for k, f in futs.items():
        try:
            out[k] = (f.result(), None)
        except SourceFailed as e:
            out[k] = (None, str(e))
    return out


def _probed(cfg: Live) -> tuple[dict[str, float] | None, str | None]:
    """The probe's answer (each target's last scrape), or why it failed, in words."""
    try:
        return probe(cfg), None
    except SourceFailed as e:
        return None, str(e)


def read_once(cfg: Live, prev: dict | None, now: float) -> dict:
    """One reading: the probe first (one small query: each target's last scrape), then each
    source asked (every query at once), the answers read into the live scenario when every
    source answered; else the previous good reading kept. The record the cache keeps, with
    when the next reading is due (next_at: after the rack's next scrape). When nothing new
    was scraped since the last reading (within the interval), the record as it was, due
    again soon. A probe that fails is Prometheus's failure this reading."""
    prev = prev or {}
    # first, so that every answer read after it is at least as new as it says
    scrapes, why = _probed(cfg)
    within = now - prev.get("attempt_at", -math.inf) < cfg.interval_s
    if scrapes and within and scrapes == prev.get("scrapes"):  # nothing new scraped
        return {**prev, "next_at": now + RETRY_S}
    srcs = prev.get("sources", {})
    record: dict = {"attempt_at": now, "good": prev.get("good"), "sources": {}}
    record["changes"] = prev.get("changes", [])
    record["next_at"] = now + cfg.interval_s
    got_src = _ask_sources(cfg, {"prometheus": why} if why else {}, scrapes)
    where = {"prometheus": cfg.prometheus_url, "nmx": cfg.nmx_url or ""}
    for k, (_, why) in got_src.items():
        ok = why is None
        record["sources"][k] = _source(srcs.get(k), ok, why or "", now, _where(where[k]))
    if any(why is not None for _, why in got_src.values()):
        return record
    samples, rates, when = got_src["prometheus"][0]
    nmx_text = got_src["nmx"][0] if "nmx" in got_src else None
    try:
        hosts = parse_hosts(cfg.hosts) if cfg.hosts else None
        got = model_live.build(samples, nmx_text, rates, cfg.window_s, cfg.fabric, hosts)
    except (ImportRefused, ScenarioError, ValueError) as e:
        why = e.message if isinstance(e, ImportRefused | ScenarioError) else str(e)
        return _refused(record, srcs, f"not a rack: {why}", now)
    record["good"] = {"read_at": now, "live": got.to_json()}
    record["changes"] = _changed(prev.get("changes", []), got.query, now)
    record |= {**when, "next_at": next_at(now, cfg, when)}
    return record


def _refused(record: dict, prev_sources: dict, why: str, now: float) -> dict:
    """The record with every source marked failed for `why` (its last good reading kept)."""
    for k, src in record["sources"].items():
        record["sources"][k] = _source(prev_sources.get(k), False, why, now, src["where"])
    return record


def _changed(seen: list, query: str, now: float) -> list:
    """The live scenario's changes, newest last (each a moment and a query: a link to what
    the rack was then), with this reading's added when it differs from the last."""
    if seen and seen[-1][1] == query:
        return seen
    return [*seen, [now, query]][-MAX_CHANGES:]


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def answer(cfg: Live | None, record: dict | None, now: float) -> dict:
    """GET /api/v1/live's answer (and the banner's): the scenario's query, when it was read
    and its age, each source's state (ok; stale: failed now, its last good reading kept;
    down: no good reading yet), with the reason."""
    if cfg is None:
        return {"configured": False, "state": "not configured", "said": NOT_CONFIGURED}
    out: dict = {"configured": True, "interval_s": cfg.interval_s, "window_s": cfg.window_s}
    if record is None:
        return out | {
            "state": "reading",
            "said": "the first live reading is under way",
            "sources": {},
        }
    good = record.get("good")
    sources = {}
    for k, src in record["sources"].items():
        state = "ok" if src["ok"] else ("stale" if src.get("last_ok_at") else "down")
        sources[k] = {**src, "state": state, "last_ok": _iso(src.get("last_ok_at"))}
    fresh = good is not None and good["read_at"] == record["attempt_at"]
    state = "ok" if fresh else ("stale" if good is not None else "down")
    out |= {"state": state, "sources": sources, "attempted_at": _iso(record["attempt_at"])}
    out["reading_took_s"] = record.get("took_s")
    out["scrape_s"] = record.get("scrape_s")  # how often Prometheus scrapes the rack, if read
    scrapes = record.get("scrapes") or {}
    out["scraped_at_s"] = max(scrapes.values()) if scrapes else None  # the newest scrape read
    if good is not None:
        age = max(0.0, now - good["read_at"])
        out |= {"query": good["live"]["query"], "read_at": _iso(good["read_at"])}
        out |= {"read_at_s": good["read_at"], "age_s": age, "live": good["live"]}
    out["changes"] = [{"at": _iso(t), "at_s": t, "query": q} for t, q in record.get("changes", [])]
    out["said"] = said(out)
    return out


def said(a: dict) -> str:
    """The banner's sentence after its state (ok: Live, stale, down): the source, when read,
    how old, and what is wrong when it is stale or down."""
    src = a.get("sources", {})
    names = " and ".join(
        f"{'Prometheus' if k == 'prometheus' else 'NMX-Manager'} at {v['where']}"
        for k, v in src.items()
    )
    wrong = "; ".join(f"{v['reason']}" for v in src.values() if not v["ok"])
    if a["state"] == "ok":
        return f"read from {names} at {a['read_at']}, {a['age_s']:.0f} s ago"
    if a["state"] == "stale":
        return (
            f"{wrong}; showing the last good reading, from {a['read_at']} ({a['age_s']:.0f} s ago)"
        )
    return f"{wrong}; no good reading yet, so no rack is shown as live"


class LiveSource:
    """The app's live mode: its settings and the shared cache the reading is kept in."""

    def __init__(self, cfg: Live | None, cache: Any) -> None:
        self.cfg, self.cache = cfg, cache

    def _load(self) -> dict | None:
        raw = self.cache.get(KEY)
        return json.loads(raw) if raw else None

    def budget_s(self) -> int:
        """The longest one reading can take: the probe at its timeout, then every request
        at once at its timeout (ask_all), and the import."""
        assert self.cfg is not None
        return int(2 * (self.cfg.timeout_s + GRACE_S) + 10)

    def _read(self, record: dict | None) -> dict:
        """One reading; a failure of the twin's own is a stale reading, never a 500."""
        assert self.cfg is not None
        try:
            return read_once(self.cfg, record, time.time())
        except Exception as e:  # whatever it was, the page says so and goes on
            log.exception("live reading failed")
            prev = record or {"good": None, "changes": []}
            where = {"prometheus": _where(self.cfg.prometheus_url)}
            if self.cfg.nmx_url:
                where["nmx"] = _where(self.cfg.nmx_url)
            srcs = prev.get("sources", {})
            fresh = {**prev, "attempt_at": time.time(), "scrapes": None}
            fresh["next_at"] = fresh["attempt_at"] + self.cfg.interval_s
            fresh["sources"] = {k: {"where": w, "ok": True} for k, w in where.items()}
            why = f"the twin could not read the answers ({type(e).__name__}: {str(e)[:200]})"
            return _refused(fresh, srcs, why, fresh["attempt_at"])

    def current(self, now: float | None = None) -> dict:
        """The live answer now: the kept reading, read again first when it is an interval
        old and no other process is reading it."""
        if self.cfg is None:
            return answer(None, None, 0.0)
        record = self._load()
        t = time.time() if now is None else now
        due = record is None or t >= record.get(
            "next_at", record["attempt_at"] + self.cfg.interval_s
        )
        if due and self.cache.claim(KEY, self.budget_s()):
            try:
                t0 = time.monotonic()
                new = self._read(record)
                if record is None or new["attempt_at"] != record["attempt_at"]:
                    new["took_s"] = time.monotonic() - t0  # a reading, not a probe
                record = new
                self.cache.put(KEY, json.dumps(record))
            finally:
                self.cache.release(KEY)
        return answer(self.cfg, record, time.time())


def install(app: Any, cfg: Live | None, cache: Any) -> None:
    """The app's live mode (create_app): its settings and the shared cache, on the server."""
    app.extensions[EXTENSION] = LiveSource(cfg, cache)


def source() -> LiveSource:
    """This app's live mode (off outside an app, or when the app has none)."""
    if has_app_context() and EXTENSION in current_app.extensions:
        return current_app.extensions[EXTENSION]
    return LiveSource(None, None)
