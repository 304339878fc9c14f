"""The fabric twin's web app: create_app(); `server` for gunicorn; `python app.py` locally.

Configuration comes from the environment only (config.py). Without REDIS_URL everything is
embedded: a file-system cache shared by the workers of one machine, background jobs on
diskcache. With REDIS_URL the cache and the background jobs move to Redis and Celery
(`celery_app` below; the Procfile's worker: line).
"""

from __future__ import annotations

import logging
import os
import sys

import diskcache
from dash import Dash, DiskcacheManager

import config
from dashboard.layout import layout
from dashboard.panels import callbacks, fleet
from dashboard.warm import warm
from dashboard.web import security
from dashboard.web.blueprint import web
from dashboard.web.cache import SharedCache
from dashboard.web.results import CACHE_EXTENSION

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = config.settings()

logging.basicConfig(
    stream=sys.stdout,
    level=SETTINGS.log_level,
    format="%(asctime)s %(levelname)s %(name)s: %(message)s",
)


def _background_manager(s: config.Settings):
    """Celery on Redis for the scale-out mode; diskcache on this machine otherwise."""
    if s.redis_url:
        from celery import Celery

        capp = Celery(__name__, broker=s.redis_url, backend=s.redis_url)
        capp.conf.update(
            broker_connection_retry_on_startup=True,
            result_expires=3600,
            task_acks_late=True,  # a worker that dies mid-job does not lose it silently
            worker_prefetch_multiplier=1,
        )
        return capp, fleet.RevokingCeleryManager(capp, expire=3600)
    bg = diskcache.Cache(os.path.join(s.cache_dir, "background"))
    return None, DiskcacheManager(bg, expire=3600)


celery_app, BACKGROUND = _background_manager(SETTINGS)


def create_app(s: config.Settings = SETTINGS) -> Dash:
    """Build the Dash app with the API blueprint, ready to serve before the first request."""
    app = Dash(
        __name__,
        title="NVLink fabric twin",
        update_title=None,
        compress=True,
        assets_folder=os.path.join(HERE, "assets"),
        serve_locally=True,
        background_callback_manager=BACKGROUND,
    )
    app.layout = layout
    callbacks.register(app)
    fleet.register(app, BACKGROUND)
    app.server.register_blueprint(web)  # the API and /metrics, with their error handlers
    app.server.add_url_rule(
        "/healthz", "healthz", lambda: ("ok\n", 200, {"Content-Type": "text/plain"})
    )
    app.server.extensions[CACHE_EXTENSION] = SharedCache(app.server, s)
    security.install(app)
    # plotly/dash#3971: _setup_server() sets its guard before it fills the component registry,
    # so concurrent first requests in a fresh worker can get HTTP 500 on the JS bundles. Run it
    # here, at import, so every worker (and the --preload master) is set up before it serves.
    with app.server.app_context():
        app._setup_server()
    warm()  # once in the --preload master: every worker starts with it
    return app


app = create_app()
server = app.server

if __name__ == "__main__":
    app.run(host="127.0.0.1", port=SETTINGS.port, debug=SETTINGS.debug)
