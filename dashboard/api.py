"""The JSON API (/api/v1) and the health endpoint, as a Flask blueprint."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from model import ScenarioError, evaluate, parse_query
from model.fabrics import DEFAULT_FABRIC, FABRICS
from model.scenario import MAX_QUERY_LENGTH
from model.topology import topology

api = Blueprint("api", __name__, url_prefix="/api/v1")


def _raw_query() -> str:
    raw = request.query_string
    if len(raw) > MAX_QUERY_LENGTH:
        raise ScenarioError(
            f"the query is {len(raw)} bytes long; at most {MAX_QUERY_LENGTH}", token="query"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError("the query is not valid UTF-8", token="query") from e


def bad_request(e: ScenarioError) -> tuple[Response, int]:
    """400 with the message and the offending token; never a traceback."""
    return jsonify({"error": e.message, "token": e.token}), 400


@api.errorhandler(ScenarioError)
def _scenario_error(e: ScenarioError) -> tuple[Response, int]:
    return bad_request(e)


@api.get("/evaluate")
def evaluate_route() -> Response:
    """GET /api/v1/evaluate?<scenario>: the model's result for that scenario."""
    parsed = parse_query(_raw_query(), strict=True)
    result = evaluate(parsed.scenario)
    result["notices"] = parsed.notices
    return jsonify(result)


@api.get("/topology")
def topology_route() -> Response:
    """GET /api/v1/topology?fabric=...: every component with ID, kind, parent, position."""
    args = request.args.to_dict(flat=False)
    for key in args:
        if key != "fabric":
            raise ScenarioError(f"unknown key '{key}' (topology takes only 'fabric')", key)
    fab = request.args.get("fabric", DEFAULT_FABRIC) or DEFAULT_FABRIC
    if fab not in FABRICS:
        raise ScenarioError(f"unknown fabric '{fab}' (known: {', '.join(FABRICS)})", fab)
    return jsonify(topology(FABRICS[fab]))


@api.get("/<path:rest>")
def _not_found(rest: str) -> tuple[Response, int]:
    """Dash serves its page on every other path; under /api/v1 an unknown path is a 404."""
    return jsonify({"error": f"no such endpoint: /api/v1/{rest}", "token": rest}), 404


@api.app_errorhandler(405)
def _bad_method(e: Exception) -> tuple[Response, int] | Exception:
    if request.path.startswith("/api/"):
        msg = f"{request.method} is not allowed on {request.path}; use GET"
        return jsonify({"error": msg, "token": request.method}), 405
    return e


@api.app_errorhandler(500)
def _server_error(e: Exception) -> tuple[Response, int]:
    return jsonify(
        {"error": "internal error; the scenario is kept in your URL", "token": None}
    ), 500
