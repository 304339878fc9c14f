"""The JSON API (/api/v1) as a Flask blueprint: each route declares its own parameters and
reads its scenario through dashboard/infra/request.py; errors are handled once, for this and
/metrics, in dashboard/web/blueprint.py."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from urllib.parse import unquote_plus

from flask import Blueprint, Response, jsonify

from dashboard.api import importing
from dashboard.api.telemetry_domain import domain_telemetry
from dashboard.figures import claims
from dashboard.infra import results, tasks
from dashboard.infra.history_query import read_history
from dashboard.infra.request import (
    Number,
    Text,
    declare,
    query_text,
    scenario_request,
    split_query,
)
from model import ScenarioError, telemetry
from model.assess import assess
from model.evaluate import TELEMETRY_READ_S
from model.fabric.presets import DEFAULT_FABRIC, FABRICS
from model.multirack.domains import DOMAINS
from model.registry import kind_named, kind_of
from model.reliability import compare, goodput
from model.reliability.accounting import MAX_JOB_RACKS
from model.reliability.rates import (
    DEFAULT_RATES,
    DOMAIN_ONLY_FIELDS,
    DOMAIN_RELIABILITY_FACTS,
    rate_facts,
)
from model.reliability.timeline import timeline
from model.telemetry.names import names_json
from model.workloads import comm, moe_a2a

api = Blueprint("api", __name__, url_prefix="/api/v1")


@api.get("/evaluate")
def evaluate_route() -> Response:
    """GET /api/v1/evaluate?<scenario>: the model's result for that scenario (any domain)."""
    q = scenario_request(multirack=True, islands=True)
    out = results.result(q.scenario)
    out["notices"] = list(q.notices)
    return jsonify(out)


@api.get("/calibration")
def calibration_route() -> Response:
    """GET /api/v1/calibration: every published point against the model, and the fitted terms."""
    return jsonify(results.calibration())


@api.get("/decode")
def decode_route() -> Response:
    """GET /api/v1/decode?<scenario>: the frontiers, the ratio along them, the step's
    breakdown at the scenario's interactivity (at=, 50 tokens/s per user by default) for the
    scenario, its healthy rack and its baseline, and where the model finds NVIDIA's 2.3x
    (vendor_claim)."""
    q = scenario_request(multirack=True, islands=True)
    out = claims.with_claim(q.scenario, results.decode(q.scenario))
    return jsonify(out)


# Every reliability input is a parameter (rates.Rates checks each against its own range and
# names it), so a published case (Meta's 16k job, Llama 3) can be written in a query.
RATE_PARAMS = declare(**{f.name: Number(0.0, 1e9) for f in DOMAIN_RELIABILITY_FACTS})
GOODPUT_PARAMS = declare(
    years=Number(0.01, 100.0, default=1.0),
    racks=Number(1, 10_000, default=1, whole=True),
    checkpoint_min=Number(0.1, 10_080.0),
    compare=Number(0, 1, default=0),
    optimise=Number(0, 1, default=0, whole=True),
    job_racks=Number(1, MAX_JOB_RACKS, default=1, whole=True),
    spares=Number(0, 1, default=0, whole=True),
    price=Number(0.0, 1000.0),
    **RATE_PARAMS,
)


@api.get("/goodput")
def goodput_route() -> Response:
    """GET /api/v1/goodput?<scenario>[&years&racks&checkpoint_min&compare&optimise&job_racks
    &spares&price&<rate>=...]: compare=1 adds the side-by-side and what each feature buys
    (model/reliability/compare.py) under the scenario's repair policy."""
    q = scenario_request(GOODPUT_PARAMS, multirack=True)
    s, own = q.scenario, q.params
    years, racks = float(own["years"]), int(own["racks"])
    kind = kind_of(s)
    for k in DOMAIN_ONLY_FIELDS:  # a rate only a multi-rack domain has, named on one rack
        if k in own and k not in kind.reliability.own_rates:
            raise ScenarioError(f"{k} is a multi-rack domain's rate: not on {s.fabric}", k)
    rates = DEFAULT_RATES.with_overrides(**{k: v for k, v in own.items() if k in RATE_PARAMS})
    job = {"job_racks": int(own["job_racks"]), "spares": bool(own["spares"])}
    kw = {"years": years, "racks": racks, **job}
    if "checkpoint_min" in own:
        kw["checkpoint_interval_s"] = float(own["checkpoint_min"]) * 60
    cf = goodput.closed_form(s, rates, **kw)
    sample = max(racks, goodput.default_sample_racks(years, job["job_racks"]))
    mc = goodput.monte_carlo(s, rates, key=s.key(), sample_racks=sample, **kw)
    out = {
        "scenario": s.key(),
        "fraction": cf["fraction"],
        "badput": cf["badput"],
        "badput_hours_per_rack_year": cf["badput_hours_per_rack_year"],
        "closed_form": cf,
        "monte_carlo": mc,
        "rates": [
            {"name": f.name, "value": f.value, "unit": f.unit, "tag": f.tag, "source": f.source}
            for f in rate_facts(rates, domain=kind.several_racks)
        ],
    }
    if own["compare"]:
        cmp_kw = {
            "repair": s.repair,
            "checkpoint_interval_s": kw.get("checkpoint_interval_s"),
            "workload": s.workload,
            "at": s.at,
            "fabric": kind.reliability.features_fabric(s),  # a domain's own, or NVLink 6's
        }
        out["comparison"] = goodput.comparison(rates, years=years, racks=racks, **job, **cmp_kw)
        out["feature_values"] = compare.feature_values(
            rates,
            scales=compare.scales_for(job["job_racks"], job["spares"], s.fabric),
            price_per_gpu_h=own.get("price"),
            **cmp_kw,
        )
    if own["optimise"]:
        # split over the Celery workers when there are any (dashboard/infra/tasks.py)
        out["policy"] = tasks.best_policy(s, rates, years=years, racks=racks, **job)
        # the same optimiser at three interactivities around at= (the degraded rate moves)
        out["policy_along"] = goodput.best_policy_along(
            s, rates, run=tasks.best_policy, known=out["policy"], years=years, racks=racks, **job
        )
    return jsonify(out)


@api.get("/history")
def history_route() -> Response:
    """GET /api/v1/history?<scenario>&racks&days&seed&spares&policy[&against=<query>]
    [&format=csv]: one sampled history of a job over `racks` racks (the events, each rack's
    states, the job's lines), or two on the same failures when against= names a second
    feature set or fabric (a URL-encoded query); format=csv gives the events as CSV. The
    link is read as the /fleet page reads it (dashboard/infra/history_query.py)."""
    link = read_history(query_text())
    fmt = str(link.params["format"])
    if fmt not in ("json", "csv"):
        raise ScenarioError(f"format '{fmt}' must be json or csv", token="format")
    out = results.history(link.scenario, link.other, **link.kw)
    if fmt == "csv":
        body = _events_csv(out["history"] if link.other else out)
        return Response(body, mimetype="text/csv")
    return jsonify(out)


def _events_csv(h: dict) -> str:
    """A history's events as CSV, one row a fault, in the words and units of its JSON."""
    ev = h["events"]
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    kinds = h["kinds"]
    out.writerow(
        ["t_h", "rack", "kind", "action", "repair_h", "down_h", "lost_work_h"]
        + ["degraded_h", "cost_h", "gpu_h", "money", h["work_unit"].replace(" ", "_")]
    )
    for i in range(len(ev["t_h"])):
        k = ev["kind"][i]
        out.writerow(
            [ev["t_h"][i], ev["rack"][i], kinds["name"][k], h["actions"][kinds["action"][k]]]
            + [kinds["repair_h"][k], ev["down_h"][i], ev["lost_work_h"][i]]
            + [kinds["degraded_h"][k], ev["cost_h"][i], ev["gpu_h"][i], ev["money"][i]]
            + [ev["work"][i]]
        )
    return buf.getvalue()


TELEMETRY_PARAMS = declare(
    t_s=Number(0.0, telemetry.MAX_T_S, default=TELEMETRY_READ_S),
    cables=Number(0, 1, default=0),
    link=Text(),
    t0_s=Number(0.0, telemetry.MAX_T_S, default=0.0),
    t1_s=Number(0.0, telemetry.MAX_T_S),
    step_s=Number(1.0, telemetry.MAX_T_S),
    rack=Text(),  # a multi-rack domain's rack (dashboard/api/telemetry_domain.py)
)


def _window(own: Mapping, t: float) -> tuple[float, float, float]:
    """A link series' t0, t1 and step from the route's parameters."""
    t0 = float(own["t0_s"])
    t1 = float(own.get("t1_s", t))
    step = float(own.get("step_s", max(1.0, (t1 - t0) / 240)))
    if t1 < t0:  # the model's own words for it, named by the parameter to change
        raise ScenarioError("need t0_s <= t1_s and step_s > 0", token="t1_s")
    return t0, t1, step


@api.get("/telemetry")
def telemetry_route() -> Response:
    """GET /api/v1/telemetry?<scenario>[&t_s&cables&link&t0_s&t1_s&step_s&rack]: DCGM-named
    counters per link (and cable), the attribution they allow, and one link's series; on a
    multi-rack domain its tier, and one rack's counters with rack= (telemetry_domain.py)."""
    q = scenario_request(TELEMETRY_PARAMS, multirack=True)
    s, own = q.scenario, q.params
    t = float(own["t_s"])
    window = _window(own, t) if "link" in own else None
    if kind_of(s).several_racks:  # its tier, and one rack's counters with rack=
        return jsonify(_series_refused(lambda: domain_telemetry(s, own, window)))
    if "rack" in own:
        msg = f"rack= names a rack of a multi-rack domain; {s.fabric} is one rack"
        raise ScenarioError(msg, "rack")
    snap = telemetry.counters(s, t)
    out = {
        "counters": snap.to_json(cables=bool(own["cables"])),
        "attribution": telemetry.attribution(snap).to_json(),
        "health_rule": telemetry.health_rule(s, t),
        "names": names_json(),  # the DCGM release of every name (issue 29)
    }
    if window is not None:
        link = str(own["link"])
        out.update(
            _series_refused(
                lambda: {
                    "series": telemetry.link_series(s, link, *window),
                    "forecast": telemetry.forecast(s, link, t).to_json(),
                }
            )
        )
    return jsonify(out)


def _series_refused(answer: Callable[[], dict]) -> dict:
    """answer(), with a valid window the model still refuses (too many points) named by
    step_s, the parameter to change."""
    try:
        return answer()
    except ScenarioError:
        raise
    except ValueError as e:
        raise ScenarioError(str(e), token="step_s") from e


# Without checkpoint_min the timeline uses the scenario's own interval (Daly's optimum),
# the one /evaluate and /goodput report.
TIMELINE_PARAMS = declare(fault=Text(), checkpoint_min=Number(0.1, 1440.0))
TOPOLOGY_PARAMS = declare(fabric=Text())


@api.get("/timeline")
def timeline_route() -> Response:
    """GET /api/v1/timeline?<scenario>&fault=<id>: the story of one fault, and its series."""
    q = scenario_request(TIMELINE_PARAMS, multirack=True)
    given = q.params.get("checkpoint_min")
    interval = None if given is None else float(given) * 60
    fault = str(q.params.get("fault", "")) or None
    return jsonify(timeline(q.scenario, fault, checkpoint_interval_s=interval))


@api.get("/topology")
def topology_route() -> Response:
    """GET /api/v1/topology?fabric=...: every component with ID, kind, parent, position."""
    rest, own = split_query(query_text(), TOPOLOGY_PARAMS)
    for part in filter(None, rest.split("&")):
        key = unquote_plus(part.partition("=")[0])
        raise ScenarioError(f"unknown key '{key}' (topology takes only 'fabric')", key)
    fab = str(own.get("fabric", "")) or DEFAULT_FABRIC
    if fab not in FABRICS and fab not in DOMAINS:
        raise ScenarioError(f"unknown fabric '{fab}' (known: {', '.join(FABRICS)})", fab)
    return jsonify(kind_named(fab).topology(fab))


COLLECTIVE_PARAMS = declare(
    op=Text(),
    algo=Text(),
    bytes=Number(1, comm.MAX_BYTES, whole=True),
    ranks=Number(2, 1152, whole=True),
    tokens=Number(1, moe_a2a.MAX_TOKENS, whole=True),
    ep=Number(2, 1152, whole=True),
    precision=Text(),
)


@api.get("/collectives")
def collectives_route() -> Response:
    """GET /api/v1/collectives?<scenario>&op=...: an NCCL collective as nccl-tests reports it
    (&algo&bytes&ranks), or one MoE layer's dispatch or combine (&tokens&ep&precision)."""
    q = scenario_request(COLLECTIVE_PARAMS, multirack=True)
    return jsonify(comm.answer(assess(q.scenario), q.params))


@api.route("/import", methods=["GET", "POST"])
def import_route() -> tuple[Response, int] | Response:
    """POST /api/v1/import with a rack's telemetry file as the body: the scenario it describes
    and what could not be read (dashboard/api/importing.py)."""
    return importing.answer()


@api.get("/<path:rest>")
def _not_found(rest: str) -> tuple[Response, int]:
    """Dash serves its page on every other path; under /api/v1 an unknown path is a 404."""
    return jsonify({"error": f"no such endpoint: /api/v1/{rest}", "token": rest}), 404
