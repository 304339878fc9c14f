"""The fabric twin's web app: create_app(); `server` for gunicorn; `python app.py` locally.

Configuration comes from the environment only (config.py). Without REDIS_URL everything is
embedded: a file-system cache shared by the workers of one machine, background jobs on
diskcache. With REDIS_URL the cache and the background jobs move to Redis and Celery
(`celery_app` below; the Procfile's worker: line). create_app(settings) builds everything
from the settings it is given, so a second app (a test's, with its own cache directory)
shares nothing with the module's `app`.
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
from typing import Any

from dash import Dash

import config
from dashboard import panels
from dashboard.infra import live, responses, security
from dashboard.infra.background import BACKGROUND_EXTENSION, background_manager, celery_app_of
from dashboard.infra.cache import SharedCache
from dashboard.infra.results import CACHE_EXTENSION
from dashboard.layout import layout, validation_layout
from dashboard.panels import history_page
from dashboard.warm import warm
from dashboard.web.blueprint import web

HERE = os.path.dirname(os.path.abspath(__file__))
log = logging.getLogger(__name__)


def signing_secret(manager: Any) -> str:
    """One secret for every Dash app on the server to sign background jobs' handles with:
    the manager's stored one (shared by the web processes on one store), read once here.

    Without a server secret_key each Dash app (the rack page, /fleet) read its own from the
    store the first time it signed, and callbacks sign with `dash.get_app()`'s while the
    page's endId is signed with the rack page's. After Redis lost its data (restarted with
    no persistence) the second read made a new secret: the page's handles no longer
    verified, and a fleet study's first poll ended it as "cancelled" while it ran
    (tests/scaleout/test_same_study.py after test_redis.py's restart). Read once at import
    (the --preload master: every gunicorn worker inherits it); SECRET_KEY overrides it, as
    it must where web processes start after such a loss."""
    try:
        return str(manager.get_or_create_signing_secret(lambda: secrets.token_urlsafe(48)))
    except Exception as e:  # noqa: BLE001 - any store failure: this process's own, said once
        log.warning("no shared signing secret (%s): set SECRET_KEY", type(e).__name__)
        return secrets.token_urlsafe(48)


def create_app(s: config.Settings | None = None) -> Dash:
    """Build the Dash app from settings s (default: the environment's), ready to serve before
    the first request: the page, the web layer (API, /metrics, /healthz), the shared cache
    and a background callback manager of its own, all from s."""
    s = s or config.settings()
    manager = background_manager(s)
    app = Dash(
        __name__,
        title="NVLink fabric twin",
        update_title=None,
        compress=True,
        assets_folder=os.path.join(HERE, "assets"),
        serve_locally=True,
        background_callback_manager=manager,
    )
    app.layout = layout
    app.validation_layout = validation_layout()  # the parts mounted later (panels/lazy.py)
    panels.register(app, manager)
    app.server.register_blueprint(web)
    app.server.secret_key = s.secret_key or signing_secret(manager)
    fleet = history_page.mount(app.server, app.config.assets_folder, manager)  # /fleet
    app.server.add_url_rule(
        "/healthz", "healthz", lambda: ("ok\n", 200, {"Content-Type": "text/plain"})
    )
    app.server.extensions[CACHE_EXTENSION] = SharedCache(app.server, s)
    live.install(app.server, s.live, app.server.extensions[CACHE_EXTENSION])
    app.server.extensions[BACKGROUND_EXTENSION] = manager
    security.install(app, s.frame_ancestors, also=(fleet,))
    responses.install(app)  # the page's pure callbacks answered once per distinct request
    # plotly/dash#3971: _setup_server() sets its guard before it fills the component registry,
    # so concurrent first requests in a fresh worker can get HTTP 500 on the JS bundles. Run it
    # here, at import, so every worker (and the --preload master) is set up before it serves.
    with app.server.app_context():
        app._setup_server()
    warm()  # once in the --preload master: every worker starts with it
    return app


SETTINGS = config.settings()
logging.basicConfig(
    stream=sys.stdout,
    level=SETTINGS.log_level,
    format="%(asctime)s %(levelname)s %(name)s: %(message)s",
)
app = create_app(SETTINGS)
server = app.server
# The Procfile's worker: line (`celery -A app:celery_app worker`); None without REDIS_URL.
celery_app = celery_app_of(server.extensions[BACKGROUND_EXTENSION])

if __name__ == "__main__":
    app.run(host="127.0.0.1", port=SETTINGS.port, debug=SETTINGS.debug)
