"""POST /api/v1/import: a file a rack reports (the request body) in, the scenario it
describes out, as {"format", "scenario", "confidence", "components", "messages",
"attribution"} (model/telemetry/importers). A file that cannot be read at all is HTTP 400
{"error", "token"} with the token "line N"; a body over the size limit is refused before it
is read (413); the model does the rest. `?fabric=<key>` names the rack to assume when the
file does not tell its own (a line or two of a scrape); an unknown key is 400.
`?hosts=node-a:ct01,node-b:ct02` is the operator's map of a scrape's hosts to compute trays
(else hosts are placed by name); a pair that is not one, or a tray the rack lacks, is 400."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Response, jsonify, request

from model.errors import ScenarioError
from model.query import parse_query
from model.telemetry.importers import MAX_BYTES, ImportRefused, import_text, parse_hosts


def answer() -> tuple[Response, int] | Response:
    """The import's JSON for this request's body."""
    if request.method != "POST":
        msg = "send the file as the body of a POST to /api/v1/import"
        return jsonify({"error": msg, "token": request.method}), 405
    size = request.content_length
    if size is not None and size > MAX_BYTES:
        msg = f"the body is {size:,} bytes; at most {MAX_BYTES:,} are read"
        return jsonify({"error": msg, "token": "body"}), 413
    fabric = request.args.get("fabric")
    if fabric is not None:
        try:
            fabric = parse_query(urlencode({"fabric": fabric})).scenario.fabric
        except ScenarioError as e:
            return jsonify({"error": e.message, "token": e.token}), 400
    data = request.stream.read(MAX_BYTES + 1)
    try:
        hosts = parse_hosts(request.args.get("hosts", ""))
    except ImportRefused as e:
        return jsonify({"error": e.message, "token": "hosts"}), 400
    try:
        out = import_text(data, fabric, hosts)
    except ImportRefused as e:
        token = f"line {e.line}" if e.line else "hosts"  # line 0: the host map, not the file
        return jsonify({"error": e.message, "token": token}), 400
    return jsonify(out.to_json())
