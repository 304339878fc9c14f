"""The shared cache of the model's answers (flask-caching), and how the app survives it.

On one machine: the file system, shared by the gunicorn workers. With REDIS_URL: Redis,
shared by every machine. If the cache fails (Redis stopped), requests are answered by
computing, the failure is logged once, and the cache is tried again after a short pause.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Callable

from flask import Flask
from flask_caching import Cache

from config import Settings

log = logging.getLogger("fabric_twin.cache")
RETRY_AFTER_S = 2.0  # after a cache failure, compute without it this long, then try again
REDIS_TIMEOUT_S = 0.25  # a dead Redis costs a request at most this much before we give up


class SharedCache:
    """get-or-compute on a flask-caching backend, resilient to the backend going away."""

    def __init__(self, app: Flask, s: Settings) -> None:
        if s.redis_url:
            config = {
                "CACHE_TYPE": "RedisCache",
                "CACHE_REDIS_URL": s.redis_url,
                "CACHE_KEY_PREFIX": "fabric-twin:",
                "CACHE_OPTIONS": {
                    "socket_timeout": REDIS_TIMEOUT_S,
                    "socket_connect_timeout": REDIS_TIMEOUT_S,
                },
            }
            self.kind = "redis"
        else:
            os.makedirs(s.cache_dir, exist_ok=True)
            config = {
                "CACHE_TYPE": "FileSystemCache",
                "CACHE_DIR": os.path.join(s.cache_dir, "results"),
                "CACHE_THRESHOLD": 20_000,
            }
            self.kind = "filesystem"
        # claims on one machine: a file created exclusively (flask-caching's add on the file
        # system is a check then a write, not atomic); on Redis the add is SET NX
        self._claims = None if s.redis_url else os.path.join(s.cache_dir, "claims")
        if self._claims:
            os.makedirs(self._claims, exist_ok=True)
        config["CACHE_DEFAULT_TIMEOUT"] = s.cache_timeout_s
        self.cache = Cache(app, config=config)
        self._down_until = 0.0  # per process: when to try a failed backend again

    def _usable(self) -> bool:
        return time.monotonic() >= self._down_until

    def _failed(self, what: str, e: Exception) -> None:
        if self._down_until == 0.0 or time.monotonic() >= self._down_until + 60:
            log.warning("cache %s failed (%s: %s): computing without it", what, type(e).__name__, e)
        self._down_until = time.monotonic() + RETRY_AFTER_S

    def get(self, key: str) -> str | bytes | None:
        """The cached text for `key`, or None (absent, or the backend failing)."""
        if not self._usable():
            return None
        try:
            hit = self.cache.get(key)
        except Exception as e:  # noqa: BLE001 - any backend failure means: not cached
            self._failed("read", e)
            return None
        if hit is not None and self._down_until:
            log.info("cache %s is back", self.kind)
            self._down_until = 0.0
        return hit

    def put(self, key: str, value: str | bytes) -> None:
        """Store `value` under `key` (nothing, if the backend is failing)."""
        if self._usable():
            try:
                self.cache.set(key, value)
            except Exception as e:  # noqa: BLE001
                self._failed("write", e)

    def _claim_file(self, key: str) -> str:
        return os.path.join(self._claims, hashlib.sha256(key.encode()).hexdigest()[:40])

    def claim(self, key: str, seconds: int) -> bool:
        """Whether this caller is the first to claim `key`'s computation (a claim lasts
        `seconds` at most, so a dead claimer's lapses); True too when the backend fails."""
        if self._claims:
            path = self._claim_file(key)
            for _ in range(2):
                try:
                    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                    return True
                except FileExistsError:
                    if not self._lapsed(path, seconds):
                        return False
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)  # a dead claimer's: take it over
                except OSError:
                    return True
            return False
        if not self._usable():
            return True
        try:
            return bool(self.cache.add(f"{key}:claim", 1, timeout=seconds))
        except Exception as e:  # noqa: BLE001
            self._failed("claim", e)
            return True

    @staticmethod
    def _lapsed(path: str, seconds: float) -> bool:
        try:
            return time.time() - os.path.getmtime(path) > seconds
        except FileNotFoundError:
            return True

    def claimed(self, key: str, seconds: float = 60.0) -> bool:
        """Whether someone holds the claim on `key` (False when the backend fails)."""
        if self._claims:
            return not self._lapsed(self._claim_file(key), seconds)
        return self.get(f"{key}:claim") is not None

    def release(self, key: str) -> None:
        """Give up the claim on `key` (its answer stored, or not to be)."""
        if self._claims:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._claim_file(key))
            return
        if self._usable():
            try:
                self.cache.delete(f"{key}:claim")
            except Exception as e:  # noqa: BLE001
                self._failed("release", e)

    def get_or_compute(self, key: str, compute: Callable[[], str]) -> str:
        """The cached text for `key`, or compute it, store it and log the computation."""
        hit = self.get(key)
        if hit is not None:
            return hit
        t = time.perf_counter()
        value = compute()
        log.info(
            "computed %s in %.1f ms (pid %d)", key, (time.perf_counter() - t) * 1e3, os.getpid()
        )
        self.put(key, value)
        return value
