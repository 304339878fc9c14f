"""The memoised answers' cache keys: an answer cached by other code is never read."""

from __future__ import annotations

import re
from dataclasses import replace

from dashboard.infra import results
from model import parse_query


def _tree(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_the_fingerprint_follows_the_code(tmp_path):
    _tree(tmp_path, {"model/a.py": "X = 1\n", "model/sub/b.py": "Y = 2\n", "docs/c.py": "Z\n"})
    first = results.code_fingerprint(tmp_path, ("model",))
    assert re.fullmatch(r"[0-9a-f]{12}", first)
    assert results.code_fingerprint(tmp_path, ("model",)) == first  # deterministic
    (tmp_path / "docs/c.py").write_text("Z = 3\n")
    assert results.code_fingerprint(tmp_path, ("model",)) == first  # outside the sources
    (tmp_path / "model/sub/b.py").write_text("Y = 3\n")
    changed = results.code_fingerprint(tmp_path, ("model",))
    assert changed != first
    (tmp_path / "model/sub/b.py").rename(tmp_path / "model/b.py")  # same text, other place
    assert results.code_fingerprint(tmp_path, ("model",)) != changed


def test_every_key_starts_with_this_codes_version(tmp_path):
    """An entry written under another version (an older deploy's) is not read."""
    import config
    from app import create_app
    from dashboard.infra.results import CACHE_EXTENSION

    app = create_app(replace(config.settings(), cache_dir=str(tmp_path), redis_url=None))
    assert results.VERSION == f"v3-{results.code_fingerprint()}"
    cache = app.server.extensions[CACHE_EXTENSION].cache
    key = f"evaluate:{parse_query('fail=st3').scenario.key()}"
    cache.set(f"v2:{key}", '{"stale": true}')  # what the previous code left behind
    body = app.server.test_client().get("/api/v1/evaluate?fail=st3").get_json()
    assert "stale" not in body and body["bandwidth"]["aggregate_tbs"] == 230.4
    assert cache.get(f"{results.VERSION}:{key}") is not None
