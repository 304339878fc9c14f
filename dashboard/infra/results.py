"""The model's answers for the view and the API, memoised on the scenario's canonical key in
the shared cache (dashboard/infra/cache.py), so a scenario is computed once for every worker.

The cache holds JSON text: every caller gets its own copy and nothing shared can change; the
model is deterministic, so every worker would compute the same text anyway. Keys start with
VERSION, a digest of the model's and the figures' source, so code that answers differently
never reads another's entries.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import current_app, has_app_context
from plotly.io.json import to_json_plotly

from model import evaluate
from model.registry import kind_of
from model.reliability import against as model_against
from model.reliability import goodput, sensitivity
from model.reliability import history as model_history
from model.reliability.timeline import timeline as model_timeline
from model.scenario import Scenario
from model.workloads import checks
from model.workloads.throughput import decode_curves

CACHE_EXTENSION = "fabric_twin_cache"
ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("model", "dashboard/figures")  # the code every cached answer is computed by


def code_fingerprint(root: Path = ROOT, sources: tuple[str, ...] = SOURCES) -> str:
    """A digest of the Python source under `sources` (paths and contents).

    Part of every cache key, so an answer cached by other code (an older deploy sharing the
    Redis, or yesterday's run sharing CACHE_DIR) is never read: a change to the model or a
    figure cannot serve a stale answer, and there is no version number to remember to bump.
    """
    h = hashlib.sha256()
    for d in sources:
        for p in sorted((root / d).rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


VERSION = f"v3-{code_fingerprint()}"  # the prefix of every cache key


def _memo(key: str, make: Callable[[], str]) -> str:
    """make()'s JSON text, computed once per key in the shared cache (or here, without an app)."""
    if has_app_context() and CACHE_EXTENSION in current_app.extensions:
        return current_app.extensions[CACHE_EXTENSION].get_or_compute(f"{VERSION}:{key}", make)
    return make()


def _cached(kind: str, s: Scenario, compute: Callable[[], object]) -> Any:
    return json.loads(_memo(f"{kind}:{s.key()}", lambda: json.dumps(compute())))


def result(s: Scenario) -> dict:
    """evaluate(s), as a fresh dict."""
    return _cached("evaluate", s, lambda: evaluate(s))


def decode(s: Scenario) -> dict:
    """decode_curves(s), as a fresh dict."""
    return _cached("decode", s, lambda: decode_curves(s))


def calibration() -> dict:
    """model.workloads.checks.answer() and the goodput's sensitivity to each assumption
    (model.reliability.sensitivity, issue 29): the same for every scenario, computed once."""
    return json.loads(_memo("calibration", lambda: json.dumps(_calibration())))


def _calibration() -> dict:
    return checks.answer() | {"goodput_sensitivity": sensitivity.sensitivity()}


def latency(s: Scenario) -> dict:
    """metrics.latency_distribution of the scenario, as a fresh dict: the healthy rack's and
    eth-x72's beside every scenario's are the same few."""
    return _cached("latency", s, lambda: kind_of(s).latency(s))


def timeline(s: Scenario) -> dict:
    """The newest fault's timeline, at the scenario's own checkpoint interval (fresh dict)."""
    return _cached("timeline", s, lambda: model_timeline(s))


def history(s: Scenario, other: Scenario | None, **kw: Any) -> dict:
    """One sampled history (model/reliability/history.py), or two on the same seed when
    `other` is given, cached by its link: the scenario, the second one and every argument."""
    args = "&".join(f"{k}={kw[k]}" for k in sorted(kw))
    key = f"history:{s.key()}|{other.key() if other else ''}|{args}"

    def compute() -> str:
        if other is None:
            return json.dumps(model_history.history(s, **kw))
        return json.dumps(model_against.against(s, other, **kw))

    return json.loads(_memo(key, compute))


def comparison(fabric: str = "vr-nvl72") -> list[dict]:
    """goodput.comparison() of vr-nvl72's feature sets (beside gb200-nvl72 and eth-x72), or
    of a multi-rack domain's: the same for every scenario of it, so computed once for all."""
    return json.loads(
        _memo(f"comparison:{fabric}", lambda: json.dumps(goodput.comparison(fabric=fabric)))
    )


def figure(kind: str, data: object, build: Callable[[], object]) -> dict:
    """A chart's figure, built once per distinct input in the shared cache.

    The key is a hash of the chart's input data, not of the scenario: scenarios that give
    the same curves (every single-cable fault gives the same decode curve) share one figure,
    which is most of what a room of viewers asks for. `build` may return a figure or a list
    of them; what it costs is mostly the model's numbers under the figure, and a room of
    viewers asks for the same few.
    """
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    # plotly's encoder: a figure dict holds numpy arrays, which json.dumps cannot write
    return json.loads(_memo(f"figure:{kind}:{digest[:32]}", lambda: to_json_plotly(build())))
