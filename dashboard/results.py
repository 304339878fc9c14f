"""The model's answers for the view, memoised per process on the scenario's canonical key.

The memo holds JSON text, so every caller gets its own copy and nothing shared can be
changed; the model is deterministic, so every worker computes the same text.
"""

from __future__ import annotations

import json
from functools import lru_cache

from model import evaluate, parse_query
from model.scenario import Scenario
from model.throughput import decode_curves


@lru_cache(maxsize=256)
def _evaluate_json(key: str) -> str:
    return json.dumps(evaluate(parse_query(key).scenario))


@lru_cache(maxsize=128)
def _decode_json(key: str) -> str:
    return json.dumps(decode_curves(parse_query(key).scenario))


def result(s: Scenario) -> dict:
    """evaluate(s), as a fresh dict."""
    return json.loads(_evaluate_json(s.key()))


def decode(s: Scenario) -> dict:
    """decode_curves(s), as a fresh dict."""
    return json.loads(_decode_json(s.key()))
