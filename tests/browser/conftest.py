"""The real app served over HTTP for a real browser: Debian's chromium driven by Playwright.

Each test gets its own SQLite file, a werkzeug server thread on a free port (the app's
BASE_URL is that server, so links in pages and mail point at it), CSRF switched on as in
production, and tasks run in-process (the embedded default). `shot()` saves a screenshot
(to docs/screenshots/ for the README when DICEPOST_SCREENSHOTS=1).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service import create_app
from service.db import engine_of
from tests.conftest import BROWSER, ROOT, LiveServer, base_config, migrated_sqlite  # noqa: F401  (BROWSER: the modules' marks)

SHOTS = ROOT / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1100, "height": 900}
EXPECTED_STATUS = "Failed to load resource: the server responded with a status of 4"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Flask]]:
    """(base URL, app): the embedded default on its own SQLite file, CSRF on."""
    app = create_app(base_config(migrated_sqlite(tmp_path / "browser.sqlite3"), WTF_CSRF_ENABLED=True,
                                 LIVE_POLL_SECONDS=1))
    server = LiveServer(app)
    yield server.url, app
    server.stop()
    engine_of(app).dispose()


class Pages:
    """Browser contexts of one test; every page fails the test on a script error."""

    def __init__(self, chromium: Any) -> None:
        self.browser = chromium
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, *, javascript: bool = True, viewport: dict[str, int] | None = None,
            touch: bool = False, timezone: str | None = None) -> Any:
        """A page in a context of its own; `touch` gives it a touch screen (taps, not clicks),
        `timezone` the browser's own time zone (an IANA name)."""
        context = self.browser.new_context(java_script_enabled=javascript, viewport=viewport or DESKTOP,
                                           has_touch=touch, **({"timezone_id": timezone} if timezone else {}))
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._console)
        return page

    def _console(self, message: Any) -> None:
        # A 4xx page (refused orders: 422) is logged as a failed resource; the tests check statuses.
        if message.type == "error" and not message.text.startswith(EXPECTED_STATUS):
            self.errors.append(message.text)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    opened = Pages(browser)
    yield opened
    opened.close()
    assert not opened.errors, opened.errors


@pytest.fixture
def shot(tmp_path: Path) -> Callable[[Any, str], Path]:
    """Screenshots go to docs/screenshots/ with DICEPOST_SCREENSHOTS=1 (the README's pictures),
    else to the test's temporary directory, so a test run leaves the tracked files alone."""
    folder = SHOTS if os.environ.get("DICEPOST_SCREENSHOTS") == "1" else tmp_path

    def save(page: Any, name: str, part: Any = None) -> Path:
        """The viewport, or only the element `part` (a locator) where one is given."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        if part is not None:
            part.screenshot(path=str(path))
        else:
            page.screenshot(path=str(path), full_page=False)
        assert path.stat().st_size > 1000
        return path

    return save
