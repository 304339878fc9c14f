"""Shared fixtures: the Flask test client of the real app, and one headless Chromium for the
whole session (two sync Playwright instances cannot run at once)."""

from pathlib import Path

import pytest

from harness.servers import CHROME_ARGS, CHROMIUM


@pytest.fixture(scope="session")
def client():
    from app import server

    server.config.update(TESTING=False)
    return server.test_client()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        yield b
        b.close()


HERE = Path(__file__).parent
BROWSER_DIRS = ("e2e",)  # every test here drives Chromium against a served app
SERVER_DIRS = ("e2e", "scaleout", "monitoring")  # ... and these start server processes
# ... and these a whole deployment (redis-server, Celery workers, nginx, Prometheus), whose
# studies and kills use every core: scripts/test.sh runs them one at a time
DEPLOYMENT_DIRS = ("scaleout", "monitoring")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what needs a browser or a server by where it lives, so `-m "not browser and not
    server"` (scripts/test.sh --fast) selects the rest, whichever file forgot a mark."""
    for item in items:
        top = Path(item.fspath).relative_to(HERE).parts[0]
        if top in BROWSER_DIRS or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if top in SERVER_DIRS:
            item.add_marker(pytest.mark.server)
        if top in DEPLOYMENT_DIRS:
            item.add_marker(pytest.mark.deployment)
