"""Shared fixtures: the Flask test client of the real app, and one headless Chromium for the
whole session (two sync Playwright instances cannot run at once)."""

import pytest

from tests.e2e.conftest import CHROME_ARGS, CHROMIUM


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
