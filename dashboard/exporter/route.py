"""GET /metrics: the Prometheus endpoint, one rack's scrape (dashboard/exporter/metrics.py) or a
multi-rack domain's (dashboard/exporter/domain.py), chosen by the scenario's fabric."""

from __future__ import annotations

from flask import Blueprint, Response

from dashboard.exporter import domain as dom
from dashboard.exporter.live import live_text
from dashboard.exporter.metrics import (
    LANES_PARAM,
    NAMES_PARAM,
    PARAMS,
    RACK_PARAM,
    T_PARAM,
    render_scenario,
    spelling_of,
)
from dashboard.exporter.promtext import CONTENT_TYPE
from dashboard.infra import live
from dashboard.infra.request import scenario_request
from model import ScenarioError
from model.registry import kind_of

prom = Blueprint("prom", __name__)


# --- the endpoint ----------------------------------------------------------------------------
@prom.get("/metrics")
def metrics_route() -> Response:
    """GET /metrics?<scenario>[&t_s=<simulated seconds>][&lanes=1][&rack=rNN][&names=...]:
    Prometheus text 0.0.4; on a multi-rack domain the domain's scrape, or one rack's with
    rack=; names=dcgm-exporter (or dcgm-4.6) spells the DCGM names as that release does.
    With live mode on, the live rack's series follow (dashboard/exporter/live.py)."""
    q = scenario_request(PARAMS, multirack=True)
    s, t, lanes = q.scenario, float(q.params[T_PARAM]), bool(q.params[LANES_PARAM])
    rack, spelling = q.params.get(RACK_PARAM), spelling_of(q.params[NAMES_PARAM])
    if not kind_of(s).several_racks:
        if rack is not None:
            msg = f"{RACK_PARAM}= names a rack of a multi-rack domain; {s.fabric} is one rack"
            raise ScenarioError(msg, RACK_PARAM)
        body = render_scenario(s, t, lanes, spelling)
    elif rack is not None:
        body = dom.rack_text(s, t, dom.rack_index(s, str(rack)), lanes, spelling)
    elif lanes:
        msg = f"{LANES_PARAM}=1 on a domain is per rack: add {RACK_PARAM}=r01 (or another)"
        raise ScenarioError(msg, LANES_PARAM)
    else:
        body = dom.domain_text(s, t, spelling)
    src = live.source()
    if src.cfg is not None:  # live mode on: the live rack's series too, whatever the query
        body += live_text(src.current())
    return Response(body, status=200, headers={"Content-Type": CONTENT_TYPE})
