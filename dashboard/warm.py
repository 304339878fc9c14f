"""Warm a process before it serves: import what the first request would (plotly's lazily
loaded validators, the model's memoised healthy curves and fault classes, the rack figures).

With gunicorn --preload this runs once in the master and every forked worker inherits it;
without it, the first viewer of each worker paid ~1-2 s for it (measured in bench/).
Nothing here is per-user state: the same pure functions, computed earlier.
"""

from __future__ import annotations

from dashboard.figures import rack as rack_figure
from dashboard.panels import cards, costs, telemetry
from model import evaluate, parse_query
from model import telemetry as tm
from model.fabric.presets import FABRICS


def warm() -> None:
    """Every fabric's base rack figure and one scenario's panels, computed once."""
    for key in FABRICS:
        s = parse_query(f"fabric={key}&fail=st3").scenario
        evaluate(s)
        rack_figure.base_figure(key)
    q = "?fail=st3"
    costs.cost_charts(q)
    costs.timeline_chart(q, 3600.0)
    telemetry.telemetry_charts(q, tm.REPLAY, "gpu07-st3.sw2", 3600.0)
    cards.summary(q)
