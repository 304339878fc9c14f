"""Configuration, from the environment only, with safe defaults (README "Configuration")."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from urllib.parse import urlsplit


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
class Live:
    """Live mode (README "Configuration"): the operator's Prometheus, and NMX-Manager if
    given, read every interval_s. Set by the operator's environment only: nothing a visitor
    sends names a URL the twin fetches."""

    prometheus_url: str  # e.g. http://prometheus:9090: /api/v1/query is asked under it
    interval_s: int = 30  # a reading lives this long; the page follows at this interval
    timeout_s: float = 5.0  # each request's bound
    window_s: int = 300  # rate() and the per-GPU sums' two readings span this
    selector: str = ""  # PromQL label matchers picking the one rack, e.g. job="rack-a"
    nmx_url: str | None = None  # e.g. https://nmx-m:8443: /nmx/v1/partitions, /gpus, /ports
    nmx_auth: tuple[str, str] | None = field(default=None, repr=False)  # NMX_USER, NMX_PASSWORD
    fabric: str | None = None  # the rack's fabric when its counters do not tell it
    hosts: str = ""  # 'host:ct01,...': a default scrape's hosts on their compute trays


def _url(name: str) -> str | None:
    """The http(s) URL in environment variable `name`, or None; anything else stops the
    process with a message naming the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    u = urlsplit(raw)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise SystemExit(f"{name}={raw!r} is not an http(s) URL")
    return raw.rstrip("/")


def live_settings() -> Live | None:
    """Live mode from PROMETHEUS_URL and the LIVE_* and NMX_* variables; None when
    PROMETHEUS_URL is unset."""
    prom = _url("PROMETHEUS_URL")
    if prom is None:
        return None
    user, password = os.environ.get("NMX_USER", ""), os.environ.get("NMX_PASSWORD", "")
    return Live(
        prometheus_url=prom,
        interval_s=_int("LIVE_INTERVAL_S", 30, 1, 3600),
        timeout_s=float(_int("LIVE_TIMEOUT_S", 5, 1, 60)),
        window_s=_int("LIVE_WINDOW_S", 300, 2, 86400),
        selector=os.environ.get("LIVE_SELECTOR", "").strip(),
        nmx_url=_url("NMX_URL"),
        nmx_auth=(user, password) if user else None,
        fabric=os.environ.get("LIVE_FABRIC", "").strip() or None,
        hosts=os.environ.get("LIVE_HOSTS", "").strip(),
    )


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
    secret_key: str | None = None  # signs background jobs' handles (create_app: see there)
    live: Live | None = None  # live mode: the operator's Prometheus (and NMX-Manager)


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
        secret_key=os.environ.get("SECRET_KEY") or None,
        live=live_settings(),
    )
