"""GET /api/v1/live, and that nothing a visitor sends makes the server fetch a URL: with live
mode off no route opens a connection at all; with it on, only to the operator's Prometheus
(a closed port here), whatever URL-shaped parameter, form field or body a request carries."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import replace

import pytest

import config

VISITOR = "http://169.254.169.254/latest/meta-data"  # a URL no request may make us fetch
OPERATOR = ("127.0.0.1", 9)  # the operator's Prometheus: the discard port, nothing listens


@pytest.fixture
def connections(monkeypatch) -> list:
    """Every outbound connection attempted, by address; each is refused."""
    seen: list = []

    def refuse(address, *a, **kw):
        seen.append(tuple(address[:2]))
        raise ConnectionRefusedError(f"refused by the test: {address}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: refuse(address))
    return seen


def _app(tmp_path, live: config.Live | None):
    from app import create_app

    s = replace(config.settings(), cache_dir=str(tmp_path), redis_url=None, live=live)
    return create_app(s).server


def _every_route(server) -> list[str]:
    out = []
    for rule in server.url_map.iter_rules():
        path = str(rule)
        for arg in rule.arguments:
            path = path.replace(f"<{arg}>", "x").replace(f"<path:{arg}>", "x")
            path = path.replace(f"<int:{arg}>", "1")
        out.append(path)
    return sorted(set(out))


def test_live_mode_off_says_so_not_a_500(client):
    r = client.get("/api/v1/live")
    assert r.status_code == 200
    a = r.get_json()
    assert a["configured"] is False and a["state"] == "not configured"
    assert "PROMETHEUS_URL" in a["said"]


def test_live_mode_on_with_its_prometheus_down_says_down(tmp_path, connections):
    live = config.Live("http://127.0.0.1:9", interval_s=1, timeout_s=1.0)
    a = _app(tmp_path, live).test_client().get("/api/v1/live").get_json()
    assert a["state"] == "down" and "query" not in a
    assert "cannot be reached" in a["sources"]["prometheus"]["reason"]
    assert set(connections) == {OPERATOR}


@pytest.mark.parametrize("live_on", [False, True])
def test_no_request_makes_the_server_fetch_a_url(tmp_path, connections, live_on):
    live = config.Live(f"http://{OPERATOR[0]}:{OPERATOR[1]}", 1, 1.0) if live_on else None
    server = _app(tmp_path, live)
    c = server.test_client()
    keys = ("url", "prometheus_url", "PROMETHEUS_URL", "nmx_url", "source", "target", "next")
    params = {k: VISITOR for k in keys}
    routes = _every_route(server)
    assert "/api/v1/live" in routes and "/metrics" in routes and len(routes) > 10
    for path in routes:
        c.get(path, query_string=params)
        c.post(path, data=params)
        c.post(path, json=params)
    c.post("/api/v1/import", data=VISITOR.encode())
    c.get("/api/v1/live?url=" + VISITOR)
    assert all(x == OPERATOR for x in connections), connections
    assert bool(connections) == live_on  # live off: nothing at all; on: its own only
    assert not any(r.startswith("/control") for r in routes)  # the stand-in's, never the twin's


def test_live_mode_is_read_from_the_operators_environment(monkeypatch):
    for k in ("PROMETHEUS_URL", "NMX_URL", "NMX_USER", "NMX_PASSWORD", "LIVE_INTERVAL_S"):
        monkeypatch.delenv(k, raising=False)
    assert config.settings().live is None
    monkeypatch.setenv("PROMETHEUS_URL", "http://prom:9090/")
    monkeypatch.setenv("NMX_URL", "https://nmx-m:8443")
    monkeypatch.setenv("NMX_USER", "rw-user")
    monkeypatch.setenv("NMX_PASSWORD", "s3cret")
    monkeypatch.setenv("LIVE_INTERVAL_S", "15")
    live = config.settings().live
    assert live is not None and live.prometheus_url == "http://prom:9090"
    assert (live.nmx_url, live.nmx_auth, live.interval_s) == (
        "https://nmx-m:8443",
        ("rw-user", "s3cret"),
        15,
    )
    assert "s3cret" not in repr(live)  # never in a log line
    monkeypatch.setenv("PROMETHEUS_URL", "file:///etc/passwd")
    with pytest.raises(SystemExit, match="PROMETHEUS_URL"):
        config.settings()


def test_one_reading_an_interval_serves_every_worker(tmp_path, monkeypatch):
    """Two workers' live sources on one shared cache directory (two SharedCaches, as two
    gunicorn workers have): the first asks, the second answers the same reading without
    asking; an interval later one asks again; while one holds the claim the other answers
    what it has rather than asking too."""
    from flask import Flask

    from dashboard.infra import live
    from dashboard.infra.cache import SharedCache

    asked: list[float] = []

    def read_once(cfg, prev, now):
        asked.append(now)
        q = f"fabric=gb200-nvl72&fail=gpu0{len(asked)}-st1.sw0"
        src = {"where": "p", "ok": True, "reason": "", "last_ok_at": now}
        lj = {"query": q, "what_to_do": [], "cost_per_h": {}}
        return {
            "attempt_at": now,
            "good": {"read_at": now, "live": lj},
            "sources": {"prometheus": src},
        }

    monkeypatch.setattr(live, "read_once", read_once)
    s = replace(config.settings(), cache_dir=str(tmp_path), redis_url=None)
    cfg = config.Live("http://prom:9090", interval_s=30)
    workers = [live.LiveSource(cfg, SharedCache(Flask(f"w{i}"), s)) for i in range(2)]
    first = workers[0].current()
    second = workers[1].current()
    assert len(asked) == 1 and second["query"] == first["query"] and second["state"] == "ok"
    later = time.time() + 31
    assert workers[1].current(now=later)["query"].endswith("gpu02-st1.sw0")
    assert len(asked) == 2
    assert workers[0].cache.claim(live.KEY, 60)  # worker 0 is reading (its claim held)
    got = workers[1].current(now=time.time() + 62)
    assert len(asked) == 2 and got["query"].endswith("gpu02-st1.sw0")  # what it has
    workers[0].cache.release(live.KEY)


def test_a_reading_the_twin_cannot_make_is_stale_not_a_500(tmp_path, monkeypatch):
    """Whatever goes wrong inside a reading, the answer is the last good one, stale, with
    the reason, and the route answers 200."""
    from dashboard.infra import live

    server = _app(tmp_path, config.Live("http://127.0.0.1:9", interval_s=1, timeout_s=1.0))
    src = server.extensions[live.EXTENSION]
    good = {"query": "fabric=gb200-nvl72&fail=gpu07-st3.sw1", "what_to_do": [], "cost_per_h": {}}
    t = time.time() - 5
    ok = {"where": "127.0.0.1:9", "ok": True, "reason": "", "last_ok_at": t}
    rec = {"attempt_at": t, "good": {"read_at": t, "live": good}, "sources": {"prometheus": ok}}
    src.cache.put(live.KEY, json.dumps(rec))

    def broken(*a, **kw):
        raise KeyError("resultType")

    monkeypatch.setattr(live, "read_once", broken)
    r = server.test_client().get("/api/v1/live")
    assert r.status_code == 200
    a = r.get_json()
    assert a["state"] == "stale" and a["query"] == good["query"]
    assert "the twin could not read the answers (KeyError" in a["sources"]["prometheus"]["reason"]


def test_the_next_reading_follows_the_racks_next_scrape():
    """Due just after the next scrape lands (its time + the interval between scrapes), an
    interval after this reading at the latest, never sooner than RETRY_S; without the
    scrape times, an interval after."""
    from dashboard.infra import live

    cfg = config.Live("http://prom:9090", interval_s=30)
    when = {"scrapes": {"a": 99.5, "b": 99.8}, "scrape_s": 1.0}
    assert live.next_at(100.0, cfg, when) == pytest.approx(100.5 + live.LAG_S)
    stuck = {"scrapes": {"a": 50.0}, "scrape_s": 15.0}  # a target not scraped for a while
    assert live.next_at(100.0, cfg, stuck) == pytest.approx(110.0 + live.LAG_S)
    slow = {"scrapes": {"a": 99.0}, "scrape_s": 120.0}  # scraped less often than the interval
    assert live.next_at(100.0, cfg, slow) == 130.0
    assert live.next_at(100.0, cfg, None) == 130.0
    due_now = {"scrapes": {"a": 99.0}, "scrape_s": 1.0}  # due this instant: asked RETRY_S on
    assert live.next_at(100.0, cfg, due_now) == pytest.approx(100.0 + live.RETRY_S)


def test_nothing_new_scraped_reads_nothing_more(monkeypatch):
    """A reading asks one small query first; when the rack's scrape times are those it
    read last (within the interval), nothing else is asked and the last reading stands (not
    stale); otherwise the whole reading, whose record keeps the scrape times the probe said
    (asked before the answers, so never newer than what was read)."""
    from dashboard.infra import live

    cfg = config.Live("http://prom:9090", interval_s=30)
    asked: list[str] = []
    monkeypatch.setattr(live, "probe", lambda c: asked.append("probe") or {"a": 99.5})
    monkeypatch.setattr(
        live,
        "_ask_sources",
        lambda c, failed, scrapes: asked.append(scrapes) or {"prometheus": (None, "down")},
    )
    good = {"read_at": 99.6, "live": {"query": "fabric=gb200-nvl72"}}
    prev = {"attempt_at": 99.6, "good": good, "sources": {}, "scrapes": {"a": 99.5}}
    got = live.read_once(cfg, prev, 100.6)
    assert asked == ["probe"] and got["attempt_at"] == 99.6 and got["good"] == good
    assert got["next_at"] == pytest.approx(100.6 + live.RETRY_S)
    monkeypatch.setattr(live, "probe", lambda c: asked.append("probe") or {"a": 100.5})
    live.read_once(cfg, prev, 100.7)  # a new scrape: the whole reading, told what it is
    assert asked[-2:] == ["probe", {"a": 100.5}]
    monkeypatch.setattr(live, "probe", lambda c: asked.append("probe") or {"a": 99.5})
    live.read_once(cfg, prev, 99.6 + 30)  # an interval on: the whole reading all the same
    assert asked[-2:] == ["probe", {"a": 99.5}]


def test_a_probe_that_fails_fails_the_reading_without_asking_prometheus_again(monkeypatch):
    """The small query timing out is the reading's answer for Prometheus (stale, saying so),
    not a second wait on the whole reading's queries."""
    from dashboard.infra import live

    cfg = config.Live("http://prom:9090", interval_s=30, timeout_s=2.0)

    def slow(c):
        raise live.SourceFailed("prom:9090/api/v1/query gave no answer within 2 s")

    monkeypatch.setattr(live, "probe", slow)
    monkeypatch.setattr(live, "ask_prometheus", lambda c, s: pytest.fail("asked again"))
    good = {"read_at": 99.6, "live": {"query": "fabric=gb200-nvl72"}}
    ok = {"where": "prom:9090", "ok": True, "reason": "", "last_ok_at": 99.6}
    prev = {"attempt_at": 99.6, "good": good, "sources": {"prometheus": ok}, "scrapes": {"a": 1}}
    got = live.read_once(cfg, prev, 100.6)
    assert got["good"] == good and got["attempt_at"] == 100.6
    assert got["sources"]["prometheus"]["ok"] is False
    assert "no answer within 2 s" in got["sources"]["prometheus"]["reason"]
    a = live.answer(cfg, got, 101.0)
    assert a["state"] == "stale" and a["query"] == "fabric=gb200-nvl72"


def _callback_body(name: str, cb: dict, search: str) -> dict:
    """The POST a browser sends for callback `name`, every input and state a visitor's URL
    (the address bar's search: that URL among its parameters)."""

    def dep(d: dict) -> dict:
        value = search if d["property"] == "search" else VISITOR
        return {"id": d["id"], "property": d["property"], "value": value}

    outs = cb["output"] if isinstance(cb["output"], list) else [cb["output"]]
    outputs = [{"id": o.component_id, "property": o.component_property} for o in outs]
    first = cb["inputs"][0] if cb["inputs"] else {"id": "", "property": ""}
    return {
        "output": name,
        "outputs": outputs if name.startswith("..") else outputs[0],
        "inputs": [dep(d) for d in cb["inputs"]],
        "state": [dep(d) for d in cb.get("state", [])],
        "changedPropIds": [f"{first['id']}.{first['property']}"],
    }


@pytest.mark.parametrize("live_on", [False, True])
def test_no_field_of_the_page_makes_the_server_fetch_a_url(tmp_path, connections, live_on):
    """Every field of the page is a Dash callback's input or state: each callback (but the
    fleet study's background ones, which start processes), called as the browser calls it
    with every value a visitor's URL, and the address bar's search naming it as url=,
    prometheus_url=, nmx_url=, opens no connection but to the operator's Prometheus."""
    from urllib.parse import quote

    from app import create_app

    live = config.Live(f"http://{OPERATOR[0]}:{OPERATOR[1]}", 1, 1.0) if live_on else None
    s = replace(config.settings(), cache_dir=str(tmp_path), redis_url=None, live=live)
    app = create_app(s)
    c = app.server.test_client()
    v = quote(VISITOR, safe="")
    search = f"?fabric=gb200-nvl72&url={v}&prometheus_url={v}&nmx_url={v}&PROMETHEUS_URL={v}"
    called: dict[str, int] = {}
    for name, cb in app.callback_map.items():
        if "callback" not in cb or cb.get("background"):
            continue
        r = c.post("/_dash-update-component", json=_callback_body(name, cb, search))
        called[name] = r.status_code
    live_cb = next(k for k in called if "live-banner" in k)
    assert called[live_cb] == 200 and len(called) > 15  # the live banner's ran, among many
    assert all(x == OPERATOR for x in connections), connections
    assert bool(connections) == live_on  # live off: nothing at all; on: its own only
