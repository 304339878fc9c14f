"""GET /api/v1/live: the live reading (dashboard/infra/live.py): the scenario's query, when
it was read and its age, each source's state (ok, stale with the last good reading kept,
down) and why; with live mode off, an answer saying so. It reads no parameter: nothing a
visitor sends changes what is fetched, or from where."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from dashboard.infra import live

live_api = Blueprint("live_api", __name__, url_prefix="/api/v1")


@live_api.get("/live")
def live_route() -> Response:
    """The live answer now (read again first when it is an interval old)."""
    return jsonify(live.source().current())
