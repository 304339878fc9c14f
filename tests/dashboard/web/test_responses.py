"""The page's pure callbacks answered from the shared cache (dashboard/infra/responses.py): the
same request gets the same bytes without running the callback again, and nothing else is
ever answered from it."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import brotli
import pytest

import config
from app import create_app
from dashboard.infra import responses
from harness.dash_calls import body, page_calls

PATH = "/_dash-update-component"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def fresh(tmp_path):
    """An app of its own (its own file-system cache), its test client, and a counter of
    every call of the callbacks responses.PURE names (run for real, not from the cache)."""
    app = create_app(replace(config.settings(), cache_dir=str(tmp_path)))
    calls: list[str] = []
    for name, cb in app.callback_map.items():
        if name in responses.pure_callbacks(app):
            inner = cb["callback"]

            def counted(*a, _inner=inner, _name=name, **k):
                calls.append(_name)
                return _inner(*a, **k)

            cb["callback"] = counted
    return app, app.server.test_client(), calls


def post(client, b: dict, **headers) -> tuple[int, bytes, dict]:
    r = client.post(PATH, data=json.dumps(b), headers={**JSON, **headers})
    return r.status_code, r.get_data(), dict(r.headers)


def test_every_page_callback_of_a_scenario_change_is_answered_from_the_cache(fresh):
    app, client, calls = fresh
    bodies = page_calls(app, "?fail=st3,gpu07-st2.sw1")
    assert {b["output"] for b in bodies} <= responses.pure_callbacks(app)
    first = [post(client, b) for b in bodies]
    assert len(calls) == len(bodies)  # each computed once
    again = [post(client, b) for b in bodies]
    assert len(calls) == len(bodies)  # and not again
    assert [(s, d) for s, d, _ in again] == [(s, d) for s, d, _ in first]
    assert all(s == 200 for s, _, _ in first)


def test_a_cached_answer_is_the_bytes_dash_computes(fresh):
    app, client, _ = fresh
    b = page_calls(app, "?fail=st5")[2]  # the decode charts: ~75 KB of JSON
    computed = post(client, b, **{"Accept-Encoding": "br"})
    cached = post(client, b, **{"Accept-Encoding": "br"})
    assert computed[2]["Content-Encoding"] == cached[2]["Content-Encoding"] == "br"
    assert "Accept-Encoding" in cached[2]["Vary"]
    assert cached[1] == computed[1]
    uncompressed = post(client, b)  # a client that takes no encoding gets plain JSON
    assert "Content-Encoding" not in uncompressed[2]
    assert json.loads(uncompressed[1]) == json.loads(brotli.decompress(cached[1]))
    # and both are what the callback itself answers, the cache bypassed
    plain = client.post(PATH + "?nocache=1", data=json.dumps(b), headers=JSON).get_data()
    assert json.loads(plain) == json.loads(uncompressed[1])


def test_another_scenario_or_input_is_another_answer(fresh):
    app, client, calls = fresh
    a, b = page_calls(app, "?fail=st3")[0], page_calls(app, "?fail=st4")[0]
    sa, da, _ = post(client, a)
    sb, db, _ = post(client, b)
    assert sa == sb == 200 and da != db
    assert len(calls) == 2


def test_only_the_pure_callbacks_are_kept(fresh):
    app, client, _ = fresh
    names = responses.pure_callbacks(app)
    firsts = {_first(app.callback_map[n]) for n in names}
    assert firsts == responses.PURE  # every one the page has, and nothing else
    assert not any(app.callback_map[n].get("background") for n in names)
    stored: list[str] = []
    cache = app.server.extensions["fabric_twin_cache"]
    put = cache.put
    cache.put = lambda k, v: (stored.append(k), put(k, v))
    # the watchdog reads the clock: never stored, however often the same body comes
    v = {"fleet-run.n_clicks": 1, "fleet-watch.n_intervals": 3, "fleet-cancel.n_clicks": 0}
    w = body(app, "fleet-watch-state", v, "fleet-watch.n_intervals")
    post(client, w)
    post(client, w)
    assert not [k for k in stored if ":response:" in k]
    post(client, page_calls(app, "?fail=st2")[0])
    assert len([k for k in stored if ":response:" in k]) == 1


def _first(cb: dict) -> str:
    out = cb["output"][0] if isinstance(cb["output"], list) else cb["output"]
    return f"{out.component_id}.{out.component_property}"


def test_garbage_and_background_requests_pass_to_dash(fresh):
    app, client, calls = fresh
    for junk in (b"{not json", b"[1, 2]", b'{"output": 3}'):
        r = client.post(PATH, data=junk, headers=JSON)
        assert b"Traceback" not in r.get_data()
    # a request with a query string (a background callback's poll) is never looked up
    b = page_calls(app, "?fail=st3")[0]
    post(client, b)
    r = client.post(PATH + "?cacheKey=x&job=y", data=json.dumps(b), headers=JSON)
    assert r.status_code == 200
    assert len(calls) == 2  # computed again, not read from the cache


def test_the_same_request_at_once_is_computed_once(fresh, monkeypatch):
    app, _, calls = fresh
    # however slow the first is on a loaded machine: the others wait while it holds its claim
    monkeypatch.setattr(responses, "CLAIM_S", 120)
    monkeypatch.setattr(responses, "WAIT_S", 120.0)
    b = page_calls(app, "?fail=st6,gpu11-st1.sw0")[1]
    go = threading.Barrier(6)
    out: list[bytes] = []

    def one() -> None:
        c = app.server.test_client()
        go.wait()
        out.append(post(c, b)[1])

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(out) == 6 and len(set(out)) == 1
    assert len(calls) == 1  # one computed it, five waited for its answer
    assert not app.server.extensions["fabric_twin_cache"].claimed(
        responses._key(json.dumps(b).encode(), "identity")
    )  # and its claim is given back


def test_a_claim_given_up_without_an_answer_lets_the_waiter_compute(fresh):
    app, client, calls = fresh
    b = page_calls(app, "?fail=st7")[0]
    key = responses._key(json.dumps(b).encode(), "identity")
    cache = app.server.extensions["fabric_twin_cache"]
    assert cache.claim(key, 60)  # another process claimed it, then died before answering
    threading.Timer(0.3, cache.release, args=(key,)).start()  # its claim is gone
    status, data, _ = post(client, b)
    assert status == 200 and json.loads(data)
    assert len(calls) == 1  # computed here once the claim went, not after WAIT_S


def test_the_key_names_the_code_version_and_the_encoding():
    k = responses._key(b"{}", "br")
    assert k.startswith(responses.VERSION + ":response:") and k.endswith(":br")
    assert responses._key(b"{}", "gzip") != k
    assert responses._key(b"{} ", "br") != k
