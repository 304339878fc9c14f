"""The JSON API (/api/v1) and the health endpoint, as a Flask blueprint."""

from __future__ import annotations

from urllib.parse import unquote_plus

from flask import Blueprint, Response, jsonify, request

from dashboard.web import results
from model import Scenario, ScenarioError, parse_query, telemetry
from model.evaluate import TELEMETRY_READ_S
from model.fabric.presets import DEFAULT_FABRIC, FABRICS
from model.fabric.topology import domain_topology, topology
from model.multirack.domains import DOMAINS
from model.reliability import goodput
from model.reliability.rates import DEFAULT_RATES, FAILURE_RATE_FIELDS, rate_facts
from model.reliability.timeline import timeline
from model.scenario import MAX_QUERY_LENGTH

api = Blueprint("api", __name__, url_prefix="/api/v1")


def raw_query() -> str:
    """The request's query string, bounded and decoded; a ScenarioError names what is wrong."""
    raw = request.query_string
    if len(raw) > MAX_QUERY_LENGTH:
        raise ScenarioError(
            f"the query is {len(raw)} bytes long; at most {MAX_QUERY_LENGTH}", token="query"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError("the query is not valid UTF-8", token="query") from e


def split_query(
    raw: str, own: dict[str, tuple[float, float] | None]
) -> tuple[str, dict[str, float | str]]:
    """Take an endpoint's own parameters out of the query; the rest is the scenario.

    own: name -> (lowest, highest) for a number, or None for a text value (checked by the
    model). A number out of range or not a number, or a key given twice, is a ScenarioError.
    """
    rest, params = [], {}
    for part in raw.split("&") if raw else []:
        raw_key, _, value = part.partition("=")
        key = unquote_plus(raw_key)  # 't%5Fs' is t_s, as the scenario parser reads keys
        if key not in own:
            rest.append(part)
            continue
        if key in params:
            raise ScenarioError(f"key '{key}' is given twice", token=key)
        if own[key] is None:
            params[key] = unquote_plus(value)
            continue
        lo, hi = own[key]
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        if not lo <= v <= hi:
            raise ScenarioError(f"{key} '{value}' must be a number from {lo:g} to {hi:g}", key)
        params[key] = v
    return "&".join(rest), params


def single_rack(s: Scenario) -> Scenario:
    """Multi-rack domains have their data plane only (GET /api/v1/evaluate): say so."""
    if s.multirack:
        s.spec()  # raises the ScenarioError that names the fabric and what to use instead
    return s


def bad_request(e: ScenarioError) -> tuple[Response, int]:
    """400 with the message and the offending token; never a traceback."""
    return jsonify({"error": e.message, "token": e.token}), 400


@api.errorhandler(ScenarioError)
def _scenario_error(e: ScenarioError) -> tuple[Response, int]:
    return bad_request(e)


@api.get("/evaluate")
def evaluate_route() -> Response:
    """GET /api/v1/evaluate?<scenario>: the model's result for that scenario."""
    parsed = parse_query(raw_query(), strict=True)
    out = results.result(parsed.scenario)
    out["notices"] = parsed.notices
    return jsonify(out)


@api.get("/decode")
def decode_route() -> Response:
    """GET /api/v1/decode?<scenario>: throughput-vs-interactivity curves and the ratio."""
    parsed = parse_query(raw_query(), strict=True)
    return jsonify(results.decode(single_rack(parsed.scenario)))


GOODPUT_PARAMS: dict[str, tuple[float, float] | None] = {
    "years": (0.01, 100.0),
    "racks": (1, 10_000),
    "checkpoint_min": (0.1, 10_080.0),
    "compare": (0, 1),
    **{k: (0.0, 1e9) for k in (*FAILURE_RATE_FIELDS, "kappa", "restart_s", "checkpoint_write_s")},
}


@api.get("/goodput")
def goodput_route() -> Response:
    """GET /api/v1/goodput?<scenario>[&years&racks&checkpoint_min&compare&<rate>=...]."""
    rest, own = split_query(raw_query(), GOODPUT_PARAMS)
    parsed = parse_query(rest, strict=True)
    single_rack(parsed.scenario)
    years = float(own.pop("years", 1.0))
    racks = own.pop("racks", 1.0)
    if racks != int(racks):
        raise ScenarioError(f"racks '{racks:g}' must be a whole number", token="racks")
    interval = own.pop("checkpoint_min", None)
    compare = bool(own.pop("compare", 0))
    rates = DEFAULT_RATES.with_overrides(**own)
    kw = {"years": years, "racks": int(racks)}
    if interval is not None:
        kw["checkpoint_interval_s"] = float(interval) * 60
    cf = goodput.closed_form(parsed.scenario, rates, **kw)
    mc = goodput.monte_carlo(parsed.scenario, rates, key=parsed.scenario.key(), **kw)
    out = {
        "scenario": parsed.scenario.key(),
        "fraction": cf["fraction"],
        "badput": cf["badput"],
        "badput_hours_per_rack_year": cf["badput_hours_per_rack_year"],
        "closed_form": cf,
        "monte_carlo": mc,
        "rates": [
            {"name": f.name, "value": f.value, "unit": f.unit, "tag": f.tag, "source": f.source}
            for f in rate_facts(rates)
        ],
    }
    if compare:
        out["comparison"] = goodput.comparison(rates, years=years, racks=int(racks))
    return jsonify(out)


@api.get("/telemetry")
def telemetry_route() -> Response:
    """GET /api/v1/telemetry?<scenario>[&t_s&cables&link&t0_s&t1_s&step_s]: DCGM-named
    counters per link (and cable), the attribution they allow, and one link's series."""
    own_spec = {
        "t_s": (0.0, telemetry.MAX_T_S),
        "cables": (0, 1),
        "link": None,
        "t0_s": (0.0, telemetry.MAX_T_S),
        "t1_s": (0.0, telemetry.MAX_T_S),
        "step_s": (1.0, telemetry.MAX_T_S),
    }
    rest, own = split_query(raw_query(), own_spec)
    s = single_rack(parse_query(rest, strict=True).scenario)
    t = float(own.get("t_s", TELEMETRY_READ_S))
    snap = telemetry.counters(s, t)
    out = {
        "counters": snap.to_json(cables=bool(own.get("cables", 0))),
        "attribution": telemetry.attribution(snap).to_json(),
        "health_rule": telemetry.health_rule(s, t),
    }
    if "link" in own:
        t0 = float(own.get("t0_s", 0.0))
        t1 = float(own.get("t1_s", t))
        step = float(own.get("step_s", max(1.0, (t1 - t0) / 240)))
        try:
            out["series"] = telemetry.link_series(s, str(own["link"]), t0, t1, step)
        except ScenarioError:
            raise
        except ValueError as e:  # the window: t0 after t1, or too many points
            raise ScenarioError(str(e), token="step_s" if "points" in str(e) else "t1_s") from e
    return jsonify(out)


@api.get("/timeline")
def timeline_route() -> Response:
    """GET /api/v1/timeline?<scenario>&fault=<id>: the story of one fault, and its series."""
    rest, own = split_query(raw_query(), {"fault": None, "checkpoint_min": (0.1, 1440.0)})
    parsed = parse_query(rest, strict=True)
    single_rack(parsed.scenario)
    interval = own.get("checkpoint_min", 60.0) * 60
    return jsonify(
        timeline(parsed.scenario, own.get("fault") or None, checkpoint_interval_s=interval)
    )


@api.get("/topology")
def topology_route() -> Response:
    """GET /api/v1/topology?fabric=...: every component with ID, kind, parent, position."""
    args = request.args.to_dict(flat=False)
    for key in args:
        if key != "fabric":
            raise ScenarioError(f"unknown key '{key}' (topology takes only 'fabric')", key)
    fab = request.args.get("fabric", DEFAULT_FABRIC) or DEFAULT_FABRIC
    if fab in DOMAINS:
        return jsonify(domain_topology(DOMAINS[fab]))
    if fab not in FABRICS:
        raise ScenarioError(f"unknown fabric '{fab}' (known: {', '.join(FABRICS)})", fab)
    return jsonify(topology(FABRICS[fab]))


@api.get("/<path:rest>")
def _not_found(rest: str) -> tuple[Response, int]:
    """Dash serves its page on every other path; under /api/v1 an unknown path is a 404."""
    return jsonify({"error": f"no such endpoint: /api/v1/{rest}", "token": rest}), 404


@api.app_errorhandler(405)
def _bad_method(e: Exception) -> tuple[Response, int] | Exception:
    if request.path.startswith(("/api/", "/metrics")):
        msg = f"{request.method} is not allowed on {request.path}; use GET"
        return jsonify({"error": msg, "token": request.method}), 405
    return e


@api.app_errorhandler(500)
def _server_error(e: Exception) -> tuple[Response, int]:
    """Never a traceback to the client. A callback request Dash cannot read (a hand-made or
    garbage body) is the client's error: 400, saying so."""
    cause = getattr(e, "original_exception", None)
    if request.path == "/_dash-update-component" and isinstance(
        cause, KeyError | TypeError | ValueError | AttributeError | IndexError
    ):
        msg = f"malformed callback request: {type(cause).__name__}"
        return jsonify({"error": msg, "token": "_dash-update-component"}), 400
    return jsonify(
        {"error": "internal error; the scenario is kept in your URL", "token": None}
    ), 500
