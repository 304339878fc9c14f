"""The model's answers for the view and the API, memoised on the scenario's canonical key in
the shared cache (dashboard/cache.py), so a scenario is computed once for every worker.

The cache holds JSON text: every caller gets its own copy and nothing shared can change; the
model is deterministic, so every worker would compute the same text anyway.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from flask import current_app, has_app_context

from model import evaluate, parse_query
from model.scenario import Scenario
from model.throughput import decode_curves

CACHE_EXTENSION = "fabric_twin_cache"
VERSION = "v1"  # bump when the model's output changes shape, so stale entries are ignored


def _cached(kind: str, s: Scenario, compute: Callable[[], dict]) -> dict:
    key = f"{VERSION}:{kind}:{s.key()}"
    if has_app_context() and CACHE_EXTENSION in current_app.extensions:
        text = current_app.extensions[CACHE_EXTENSION].get_or_compute(
            key, lambda: json.dumps(compute())
        )
        return json.loads(text)
    return compute()


def result(s: Scenario) -> dict:
    """evaluate(s), as a fresh dict."""
    return _cached("evaluate", s, lambda: evaluate(parse_query(s.key()).scenario))


def decode(s: Scenario) -> dict:
    """decode_curves(s), as a fresh dict."""
    return _cached("decode", s, lambda: decode_curves(s))


def figure(kind: str, data: object, build: Callable[[], object]) -> dict:
    """A chart's figure, built once per distinct input in the shared cache.

    The key is a hash of the chart's input data, not of the scenario: scenarios that give
    the same curves (every single-cable fault gives the same decode curve) share one figure,
    which is most of what a room of viewers asks for. Building a Plotly figure costs tens of
    milliseconds; reading one back, well under one.
    """
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    key = f"{VERSION}:figure:{kind}:{digest[:32]}"

    def make() -> str:
        fig = build()
        return fig.to_json() if hasattr(fig, "to_json") else json.dumps(fig)

    if has_app_context() and CACHE_EXTENSION in current_app.extensions:
        return json.loads(current_app.extensions[CACHE_EXTENSION].get_or_compute(key, make))
    return json.loads(make())
