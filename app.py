"""The fabric twin's web app: create_app(); `server` for gunicorn; `python app.py` locally."""

from __future__ import annotations

import os

from dash import Dash

from dashboard import callbacks
from dashboard.api import api
from dashboard.layout import layout

HERE = os.path.dirname(os.path.abspath(__file__))


def create_app() -> Dash:
    """Build the Dash app with the API blueprint, ready to serve before the first request."""
    app = Dash(
        __name__,
        title="NVLink fabric twin",
        update_title=None,
        compress=True,
        assets_folder=os.path.join(HERE, "assets"),
        serve_locally=True,
    )
    app.layout = layout
    callbacks.register(app)
    app.server.register_blueprint(api)
    app.server.add_url_rule(
        "/healthz", "healthz", lambda: ("ok\n", 200, {"Content-Type": "text/plain"})
    )
    # plotly/dash#3971: _setup_server() sets its guard before it fills the component registry,
    # so concurrent first requests in a fresh worker can get HTTP 500 on the JS bundles. Run it
    # here, at import, so every worker (and the --preload master) is set up before it serves.
    with app.server.app_context():
        app._setup_server()
    return app


app = create_app()
server = app.server

if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "8050")), debug=False)
