"""Configuration, from the environment only, with safe defaults (README "Configuration")."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass


def _int(name: str, default: int, lo: int, hi: int) -> int:
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
    port: int
    redis_url: str | None
    cache_dir: str
    cache_timeout_s: int
    log_level: str
    debug: bool


def settings() -> Settings:
    """Read the environment (called once per process by create_app)."""
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
    )
