"""Configuration, from the environment only, with safe defaults (README "Configuration")."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass


def _int(name: str, default: int, lo: int, hi: int) -> int:
    """The whole number in environment variable `name` (default if unset), within lo..hi;
    anything else stops the process with a message naming the variable."""
    raw = os.environ.get(name, "")
    try:
        v = int(raw) if raw else default
    except ValueError as e:
        raise SystemExit(f"{name}={raw!r} is not a whole number") from e
    if not lo <= v <= hi:
        raise SystemExit(f"{name}={v} is out of range {lo}..{hi}")
    return v


@dataclass(frozen=True)
class Settings:
    """Everything the app is configured by (README "Configuration"); create_app(settings)
    builds the app, its cache and its background manager from these alone."""

    port: int
    redis_url: str | None  # set: the cache and background jobs on Redis and Celery
    cache_dir: str  # the file-system cache and the diskcache of background jobs
    cache_timeout_s: int
    log_level: str
    debug: bool  # Dash's dev tools, for `python app.py` only
    frame_ancestors: str = "'self'"  # the CSP's frame-ancestors: who may embed the page


def settings() -> Settings:
    """Read the environment: once per process (app.py), or by create_app() given none."""
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise SystemExit(f"LOG_LEVEL={level!r}: use DEBUG, INFO, WARNING or ERROR")
    return Settings(
        port=_int("PORT", 8050, 1, 65535),
        redis_url=os.environ.get("REDIS_URL") or None,
        cache_dir=os.environ.get("CACHE_DIR")
        or os.path.join(tempfile.gettempdir(), "fabric-twin-cache"),
        cache_timeout_s=_int("CACHE_TIMEOUT", 24 * 3600, 1, 30 * 24 * 3600),
        log_level=level,
        # The Dash dev tools and the Werkzeug debugger only on an explicit DASH_DEBUG=1.
        debug=os.environ.get("DASH_DEBUG", "") == "1",
        frame_ancestors=os.environ.get("FRAME_ANCESTORS", "").strip() or "'self'",
    )
