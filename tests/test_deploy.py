"""The files a PaaS reads say what the Procfile and README say: one way to start each process,
one health check, one list of settings, one Python version."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def _readme_settings() -> set[str]:
    text = (ROOT / "README.md").read_text()
    table = text.split("## Configuration", 1)[1].split("##", 1)[0]
    return set(re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.MULTILINE))


def test_python_version_is_pinned_where_buildpacks_read_it() -> None:
    pinned = (ROOT / ".python-version").read_text().strip()
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert re.fullmatch(r"3\.\d+", pinned) and requires == f">={pinned}"
    render = yaml.safe_load((ROOT / "render.yaml").read_text())
    for svc in render["services"]:
        for var in svc.get("envVars", []):
            if var["key"] == "PYTHON_VERSION":
                assert var["value"].startswith(pinned + ".")


def test_render_blueprint_starts_what_the_procfile_starts() -> None:
    proc = _procfile()
    services = {
        s["type"]: s for s in yaml.safe_load((ROOT / "render.yaml").read_text())["services"]
    }
    assert services["web"]["startCommand"] == proc["web"]
    assert services["worker"]["startCommand"] == proc["worker"]
    assert services["web"]["healthCheckPath"] == "/healthz"
    settings = _readme_settings()
    for svc in (services["web"], services["worker"]):
        keys = {v["key"] for v in svc["envVars"]} - {"PYTHON_VERSION"}
        assert keys <= settings, keys - settings


def test_heroku_manifest_has_both_process_types_and_the_settings() -> None:
    app = json.loads((ROOT / "app.json").read_text())
    assert set(app["formation"]) == set(_procfile()) == {"web", "worker"}
    # PORT is the platform's; DASH_DEBUG is never for a deployment
    assert set(app["env"]) == _readme_settings() - {"PORT", "DASH_DEBUG"}


def test_the_health_check_answers(client) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_data(as_text=True).strip() == "ok"
