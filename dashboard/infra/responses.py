"""The page's answers shared by its viewers: a callback response computed once per distinct
request in the shared cache (dashboard/infra/cache.py), for the callbacks that are functions
of their inputs alone.

Why: a demo link's viewers stand at the same few scenarios, and each scenario change runs
the page's callbacks (the cards, the rack, the charts). The model's numbers and the figures
are memoised already (results.py), but every request still paid for Dash's dispatch, the
callback building its components and figure dicts, and plotly's JSON encoder: ~30 ms of CPU
a scenario change, so two cores served ~60 changes a second (bench/README.md, issue 17). A
response served from the cache skips all of it: the request's body is the whole question
(every input and state the callback reads, and which one changed), so the same body gets
the same bytes.

Only callbacks listed in PURE are served this way: each reads nothing but its inputs (no
clock, no request, no randomness, no server state). Background callbacks (the fleet study:
its handles are in the query string) and the watchdog (it reads the clock) never are. Keys
start with a digest of the model's and the whole dashboard's source (any change to a
panel, a figure or the model reads none of another version's entries) and are a hash of
the body and the encoding. While one request computes an answer, the same request arriving
meanwhile (a link's viewers landing at once) waits for it instead of computing it again
(a claim in the cache, held until the answer is stored). The stored bytes are the compressed response, so a hit costs
neither the callback nor compressing 75 KB of chart JSON again. A failing cache costs
nothing but the saving (SharedCache's resilience).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import time

import brotli
from dash import Dash
from flask import Response, g, request

from dashboard.infra.cache import SharedCache
from dashboard.infra.results import CACHE_EXTENSION, code_fingerprint

log = logging.getLogger("fabric_twin.responses")

# The callbacks answered from the cache, by their first output ("component.property"): the
# page's scenario callbacks, each a function of its inputs and states alone.
PURE = frozenset(
    {
        "messages.children",  # cards, counts, events, questions, fault chips (cards.py)
        "rack.figure",  # the rack drawing's and cable map's figures or Patches (rack.py)
        # and a domain's L2 tier
        "decode-chart.figure",  # decode, goodput, latency charts (costs.py)
        "timeline-chart.figure",  # one fault's timeline at the clock (telemetry.py)
        "heatmap-chart.figure",  # link telemetry at the clock (telemetry.py)
        "compare-table.children",  # the side-by-side (compare.py)
    }
)
PATH = "/_dash-update-component"
MAX_BODY = 64 * 1024  # a page's scenario callback body is ~1-3 KB; larger ones are not kept
VERSION = f"r1-{code_fingerprint(sources=('model', 'dashboard'))}"
NO_CONTENT = b"\0204"  # what a 204 (the callback changed nothing) is stored as
BR_QUALITY = 4  # flask-compress's default: 75 KB of decode charts to 15 KB in ~1.4 ms
GZIP_LEVEL = 6  # flask-compress's default
# One request computes an answer; the same request arriving meanwhile (a link's viewers
# landing together) waits for it rather than computing it again, polling, for as long as
# the first holds its claim (released when its answer is stored; it expires after CLAIM_S
# if that process died: a web process killed mid-answer holds up the same request for at
# most that long), at most WAIT_S; an answer slower than that is computed twice, no worse.
CLAIM_S = 5
WAIT_S = 5.0
POLL_S = 0.02


def pure_callbacks(app: Dash) -> frozenset[str]:
    """The names (Dash's callback_map keys) of the callbacks whose first output is in PURE."""
    names = set()
    for name, cb in app.callback_map.items():
        outs = cb["output"] if isinstance(cb["output"], list) else [cb["output"]]
        first = f"{outs[0].component_id}.{outs[0].component_property}"
        if first in PURE and "callback" in cb and not cb.get("background"):  # not clientside
            names.add(name)
    return frozenset(names)


def _encoding() -> str:
    """The encoding this response is sent in: brotli if the client takes it (every browser
    over HTTPS), else gzip, else none; what flask-compress would choose for a browser."""
    accept = request.headers.get("Accept-Encoding", "").lower()
    return "br" if "br" in accept else "gzip" if "gzip" in accept else "identity"


def _encode(data: bytes, encoding: str) -> bytes:
    if encoding == "br":
        return brotli.compress(data, quality=BR_QUALITY)
    if encoding == "gzip":
        return gzip.compress(data, compresslevel=GZIP_LEVEL)
    return data


def _key(body: bytes, encoding: str) -> str:
    return f"{VERSION}:response:{hashlib.sha256(body).hexdigest()[:40]}:{encoding}"


def _wait_for(cache: SharedCache, key: str) -> bytes | None:
    """The answer another request is computing for `key`, once it is stored; None if the
    request computing it let its claim go without storing one (its answer was not kept, or
    it failed) or after WAIT_S: this request then computes it itself."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        time.sleep(POLL_S)
        hit = cache.get(key)
        if hit is not None:
            return hit
        if not cache.claimed(key, CLAIM_S):
            return cache.get(key)  # stored just before the claim went, or nothing
    return None


def _send(data: bytes, encoding: str) -> Response:
    r = Response(data, mimetype="application/json")
    if encoding != "identity":  # flask-compress leaves an encoded response alone
        r.headers["Content-Encoding"] = encoding
    r.headers["Vary"] = "Accept-Encoding"
    return r


def install(app: Dash) -> None:
    """Serve PURE callbacks' repeated requests from the shared cache, and store the others'
    answers (call after the shared cache is installed and every panel registered)."""
    names = pure_callbacks(app)
    server = app.server

    @server.before_request
    def _from_cache() -> Response | None:
        if request.path != PATH or request.method != "POST" or request.args:
            return None
        body = request.get_data(cache=True)  # kept: Dash reads it again on a miss
        if len(body) > MAX_BODY:
            return None
        try:
            name = json.loads(body).get("output")
        except (ValueError, AttributeError):
            return None  # Dash answers a garbage body with its own message
        if name not in names:
            return None
        encoding = _encoding()
        key = _key(body, encoding)
        cache = server.extensions[CACHE_EXTENSION]
        hit = cache.get(key)
        if hit is None:
            if cache.claim(key, CLAIM_S):
                hit = cache.get(key)  # stored between the look and the claim?
                if hit is not None:
                    cache.release(key)
            else:
                hit = _wait_for(cache, key)  # another request is computing this very answer
        if hit is None:
            g.response_key = (key, encoding)
            return None
        if hit == NO_CONTENT:
            return Response(status=204)
        return _send(hit, encoding)

    @server.after_request
    def _to_cache(response: Response) -> Response:
        # runs before flask-compress (hooks run last-registered first): the data is Dash's
        key, encoding = g.pop("response_key", (None, None))
        if key is None:
            return response
        cache = server.extensions[CACHE_EXTENSION]
        try:
            return _store(cache, key, encoding, response)
        finally:
            cache.release(key)  # whoever waits for it reads the answer, or computes


def _store(cache: SharedCache, key: str, encoding: str, response: Response) -> Response:
    """Keep a computed answer (a 200 of JSON, or a 204) under `key`, encoded as it is sent."""
    if "Content-Encoding" in response.headers or response.is_streamed:
        return response
    if response.status_code == 204:
        cache.put(key, NO_CONTENT)
        return response
    if response.status_code != 200 or response.mimetype != "application/json":
        return response
    data = _encode(response.get_data(), encoding)
    cache.put(key, data)
    response.set_data(data)
    if encoding != "identity":
        response.headers["Content-Encoding"] = encoding
    response.headers["Vary"] = "Accept-Encoding"
    return response
