"""create_app(settings) builds everything from the settings it is given: its own background
callback manager, cache and security headers; the module-level app's stay the Procfile's."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

from dash import DiskcacheManager

import config
from dashboard.infra.background import background_manager, celery_app_of
from dashboard.panels.fleet import RevokingCeleryManager


def _settings(tmp_path, **kw) -> config.Settings:
    return replace(config.settings(), cache_dir=str(tmp_path), redis_url=None, **kw)


def test_diskcache_manager_lives_in_the_settings_cache_dir(tmp_path):
    m = background_manager(_settings(tmp_path))
    assert isinstance(m, DiskcacheManager)
    assert m.handle.directory == os.path.join(str(tmp_path), "background")
    assert celery_app_of(m) is None


def test_celery_manager_on_the_settings_redis(tmp_path):
    url = "redis://127.0.0.1:6390/3"  # nothing listens: building it must not connect
    m = background_manager(replace(_settings(tmp_path), redis_url=url))
    assert isinstance(m, RevokingCeleryManager)
    capp = celery_app_of(m)
    assert capp is m.handle
    assert capp.conf.broker_url == url and capp.conf.result_backend == url
    assert capp.conf.task_acks_late and capp.conf.worker_prefetch_multiplier == 1


def test_a_second_app_has_its_own_manager(tmp_path):
    import app as module
    from app import BACKGROUND_EXTENSION, create_app

    other = create_app(_settings(tmp_path, frame_ancestors="https://slides.example.org"))
    mine = other.server.extensions[BACKGROUND_EXTENSION]
    theirs = module.server.extensions[BACKGROUND_EXTENSION]
    assert mine is not theirs
    assert mine.handle.directory == os.path.join(str(tmp_path), "background")
    assert theirs.handle.directory != mine.handle.directory
    # the fleet study (the background callback) is registered with this app's manager
    backgrounds = [cb for cb in other.callback_map.values() if cb.get("manager")]
    assert backgrounds and all(cb["manager"] is mine for cb in backgrounds)
    r = other.server.test_client().get("/api/v1/evaluate?fail=st3")
    assert r.status_code == 200
    # ... and its headers from its own settings, not the environment's
    assert r.headers["Content-Security-Policy"].endswith(
        "frame-ancestors https://slides.example.org"
    )
    csp = module.server.test_client().get("/healthz").headers["Content-Security-Policy"]
    assert csp.endswith("frame-ancestors 'self'")


def test_the_worker_line_finds_its_celery_app(tmp_path):
    """`celery -A app:celery_app` imports app with REDIS_URL set: celery_app is the Celery
    app the module-level app's manager runs on, with the fleet study's task registered."""
    code = (
        "import app; from app import BACKGROUND_EXTENSION as B; "
        "m = app.server.extensions[B]; assert app.celery_app is m.handle; "
        "names = [n for n in app.celery_app.tasks if n.startswith('background_callback_')]; "
        "assert names, sorted(app.celery_app.tasks); print(app.celery_app.conf.broker_url)"
    )
    env = {
        **os.environ,
        "REDIS_URL": "redis://127.0.0.1:6390/5",
        "CACHE_DIR": str(tmp_path),
        "LOG_LEVEL": "WARNING",
        "SECRET_KEY": "given",  # no Redis here to read the shared one from (app.signing_secret)
    }
    cmd = [sys.executable, "-c", code]
    out = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "redis://127.0.0.1:6390/5"


def test_every_dash_app_signs_with_one_secret_even_after_the_store_lost_it(tmp_path):
    """The rack page and /fleet are two Dash apps on one server: a page's endId is signed by
    the rack page's and its jobs' handles by dash.get_app()'s. Each used to read its own
    secret from the store the first time it signed, so a store that lost its data between
    the two reads (Redis restarted) left them with different secrets and the page's handles
    failing to verify. Now both use the server's one secret, read at start."""
    import dash

    from app import BACKGROUND_EXTENSION, create_app

    other = create_app(_settings(tmp_path))
    store = other.server.extensions[BACKGROUND_EXTENSION]
    fleet = dash.get_app()  # the last app made: create_app's /fleet page
    assert fleet is not other and fleet.server is other.server
    first = other._get_signing_secret()
    store.handle.clear()  # the store loses the secret (Redis restarted, no persistence)
    assert fleet._get_signing_secret() == first
    assert first == other.server.secret_key.encode()


def test_secret_key_from_the_environment_is_the_one_used(tmp_path):
    from app import create_app

    other = create_app(_settings(tmp_path, secret_key="shared-by-every-web-process"))
    assert other._get_signing_secret() == b"shared-by-every-web-process"
