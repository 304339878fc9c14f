"""The app as the PaaS runs it (the Procfile's web: command, two workers) and a real Chromium."""

from __future__ import annotations

import pytest

from harness.servers import (
    ARTIFACTS,
    start_server,
    stop_server,
)


@pytest.fixture(scope="session")
def served():
    ARTIFACTS.mkdir(exist_ok=True)
    proc, base = start_server()
    yield base
    stop_server(proc)


class PageLog:
    """Console errors, page errors and failed responses seen by one page."""

    def __init__(self, page) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on(
            "response",
            lambda r: r.status >= 400 and self.errors.append(f"HTTP {r.status} {r.url}"),
        )
        self.dialogs: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    pg.log = PageLog(pg)
    yield pg
    ctx.close()
