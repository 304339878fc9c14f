"""The web layer as one blueprint: the JSON API, /metrics and /docs nested in it, and the error
handlers written once for both.

A ScenarioError raised anywhere under either (by dashboard/infra/request.py, or by the model
on a parameter it checks) is HTTP 400 {"error", "token"}; a wrong method on /api or /metrics
is a JSON 405; an unexpected failure is a JSON 500 without a traceback. The handler for
ScenarioError is this blueprint's, so it covers exactly its nested blueprints (Flask looks
an error's handler up through a request's blueprint and its parents) and not the page's
callbacks, whose bad input is shown on the page.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from dashboard.api.live import live_api
from dashboard.api.routes import api
from dashboard.exporter.route import prom
from dashboard.infra.request import bad_request
from dashboard.web.docs import docs
from model import ScenarioError

web = Blueprint("web", __name__)
web.register_error_handler(ScenarioError, bad_request)
web.register_blueprint(live_api)  # before api: its catch-all answers 404
web.register_blueprint(api)
web.register_blueprint(prom)
web.register_blueprint(docs)  # the sources the page cites (FACTS.md, docs/, calibration)


@web.app_errorhandler(405)
def _bad_method(e: Exception) -> tuple[Response, int] | Exception:
    """A wrong method on the API or /metrics: JSON naming it; elsewhere Flask's own 405."""
    if request.path.startswith(("/api/", "/metrics")):
        msg = f"{request.method} is not allowed on {request.path}; use GET"
        return jsonify({"error": msg, "token": request.method}), 405
    return e


@web.app_errorhandler(500)
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
