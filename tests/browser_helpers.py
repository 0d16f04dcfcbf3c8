"""The exported page in a real browser: Chromium, driven by Playwright, offline.

Debian's ``chromium`` package (``apt-get install chromium fonts-noto-cjk fonts-noto-color-emoji``,
which ``.ci/run`` does where it can) is driven through Playwright's ``executable_path``; no
browser is ever downloaded. Every request other than ``file:`` is aborted and recorded
(:class:`Opened`), and each test asserts none was attempted. Outside CI, without Chromium or
Playwright, the tests are skipped; in CI (``CI`` set) that is a failure, like the Phoenix test,
so they cannot quietly not run. Set ``TRACER_SCREENS=chapters/ch12/screens`` to keep the desktop
screenshot (the README's).

The ``test_export_html_browser_*`` files take the module's fixtures (``browser``: one Chromium
context a test file; ``pages``: the bundled pages, exported once a file) by naming it in
``pytest_plugins``; ``test_export_html_tour_browser.py`` uses its launch arguments and sizes.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from export_html_helpers import hostile_trace

from tracer.cli.main import main
from tracer.files.paths import MAIN_RECORDING, RECORDINGS_DIR

DATA = Path(__file__).parent / "data" / "claude-code" / "layout-2.0"
SUBAGENTS = DATA / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
FAULT = RECORDINGS_DIR / "faults" / "01-result-not-returned.trace.jsonl"
LARGE = RECORDINGS_DIR / "06-large-output.trace.jsonl"  # its step 7's raw JSON is folded
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def _chromium() -> str | None:
    return os.environ.get("TRACER_CHROMIUM") or shutil.which("chromium") or None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    exe = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium or playwright is missing: .ci/run installs them")
        pytest.skip("Chromium or playwright is not installed (apt-get install chromium)")
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),  # a fresh user-data-dir
            executable_path=exe,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    imported = folder / "subagents.trace.jsonl"
    assert main(["import", "claude-code", str(SUBAGENTS), "-o", str(imported)]) == 0
    out = {}
    hostile = hostile_trace(folder)
    traces = (
        ("walk", MAIN_RECORDING),
        ("fault", FAULT),
        ("subagents", imported),
        ("large", LARGE),
        ("hostile", hostile),
    )
    for name, trace in traces:
        out[name] = folder / f"{name}.html"
        assert main(["export", str(trace), "--format", "html", "-o", str(out[name])]) == 0
    return out


def expect(locator: Any) -> Any:
    """Playwright's auto-waiting assertions (``wait_for_function`` would ``eval`` inside the page,
    which its Content-Security-Policy forbids, as it should; a locator's assertion does not).

    The page draws a step's text when its chunk is ready (a promise), so whatever is read right
    after a key or a click is waited for, never slept on."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


class Opened:
    """A page with its console errors and every request that was not ``file:``."""

    def __init__(self, context: Any, path: Path, fragment: str = "", before: str = "") -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = context.new_page()
        if before:  # a script run before the page's own (to take a browser feature away)
            self.page.add_init_script(before)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)
        self.page.goto(path.as_uri() + fragment)
        if "beside" not in path.name:
            self.wait_step()

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def wait_row(self, row: int) -> int:
        """The row a comparison page has drawn (``data-row``), waited for."""
        expect(self.page.locator("body")).to_have_attribute("data-row", str(row))
        return row

    def wait_step(self, step: int | None = None) -> int:
        """The step the page has drawn (``data-step``, set once its text is in), or wait for it."""
        want = str(step) if step is not None else re.compile(r"^\d+$")
        expect(self.page.locator("body")).to_have_attribute("data-step", want)
        return int(self.page.evaluate("document.body.dataset.step"))

    def text(self, selector: str) -> str:
        return str(self.page.locator(selector).inner_text())

    def close(self) -> None:
        assert self.requests == [], self.requests
        assert self.errors == [], self.errors
        self.page.close()
