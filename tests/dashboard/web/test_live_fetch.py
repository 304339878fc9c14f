"""Live mode's one fetcher (dashboard/infra/live.py fetch): bounded by its timeout, never
following a redirect, NMX-Manager's credentials sent as HTTP basic, an answer over its size
refused. Against a real HTTP server on loopback (a thread of this process)."""

from __future__ import annotations

import threading
import time
from base64 import b64decode

import pytest
from flask import Flask, redirect, request

from dashboard.infra import live
from harness.live import serve

RELEASE = threading.Event()


@pytest.fixture(scope="module")
def url():
    app = Flask("fetch-test")

    @app.get("/slow")
    def slow():
        RELEASE.wait(10)  # held until the test is done with it, 10 s at most
        return "late"

    @app.get("/elsewhere")
    def elsewhere():
        return redirect("http://169.254.169.254/latest/meta-data", code=302)

    @app.get("/nap/<int:ms>")
    def nap(ms: int):
        time.sleep(min(ms, 5000) / 1000)
        return "awake"

    @app.get("/who")
    def who():
        auth = request.headers.get("Authorization", "")
        return b64decode(auth.removeprefix("Basic ")).decode() if auth else "nobody"

    with serve(app) as base:
        yield base
    RELEASE.set()


def test_a_slow_source_is_cut_at_its_timeout(url):
    t = time.monotonic()
    with pytest.raises(live.SourceFailed, match="gave no answer within 1 s"):
        live.fetch(f"{url}/slow", 1.0)
    assert time.monotonic() - t < 3.0
    RELEASE.set()


def test_a_redirect_is_not_followed(url, monkeypatch):
    opened: list = []
    real = live._OPENER.open

    def spy(req, *a, **kw):
        opened.append(req.full_url if hasattr(req, "full_url") else req)
        return real(req, *a, **kw)

    monkeypatch.setattr(live._OPENER, "open", spy)
    with pytest.raises(live.SourceFailed, match="answered HTTP 302"):
        live.fetch(f"{url}/elsewhere", 2.0)
    assert opened == [f"{url}/elsewhere"]


def test_credentials_go_as_basic_auth_and_never_in_the_banner(url):
    assert live.fetch(f"{url}/who", 2.0, ("nmx-user", "s3cret")) == b"nmx-user:s3cret"
    assert live.fetch(f"{url}/who", 2.0) == b"nobody"
    assert live._where("https://u:p@nmx-m:8443/nmx?token=x") == "nmx-m:8443/nmx"


def test_an_answer_over_the_bound_is_refused(url, monkeypatch):
    monkeypatch.setattr(live, "MAX_ANSWER_BYTES", 4)
    with pytest.raises(live.SourceFailed, match="more than 4 bytes"):
        live.fetch(f"{url}/who", 2.0)


def test_a_readings_requests_are_asked_at_once(url):
    """Eight answers of 0.6 s each take about 0.6 s together, not 4.8 s."""
    urls = {f"q{i}": f"{url}/nap/600" for i in range(8)}
    t = time.monotonic()
    got = live.ask_all(urls, 3.0)
    took = time.monotonic() - t
    assert set(got) == set(urls) and all(v == b"awake" for v in got.values())
    assert took < 1.8, took


def test_one_slow_answer_fails_the_reading_at_its_timeout_not_later(url):
    """One of several answers slower than the timeout: the reading fails, naming it, within
    the timeout and its grace, while the others have answered."""
    urls = {"fast": f"{url}/nap/10", "slow": f"{url}/nap/4000"}
    t = time.monotonic()
    with pytest.raises(live.SourceFailed, match="gave no answer within 1 s"):
        live.ask_all(urls, 1.0)
    assert time.monotonic() - t < 1.0 + live.GRACE_S + 0.5
