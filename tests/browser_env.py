"""Debian's chromium under Playwright, for the tests that need a real browser (the inspector, web pages).

No browser download: the system binary. Tests skip where /usr/bin/chromium is missing and CI is unset; in CI a
missing browser fails them (.ci/run installs it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000  # how long Playwright waits for a page to show something (a bound, not a speed check)


# Host names other than loopback resolve to nothing: a page cannot reach the network, and no request needs
# Playwright's interception (with a route set, Playwright answers CORS preflights itself, which would hide them).
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"


@contextmanager
def chromium(*extra_args: str) -> Iterator[Any]:
    """A launched chromium (Playwright's Browser), closed on exit; the test is skipped (failed in CI) without one."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: CI must install Debian's chromium (.ci/run does)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); CI installs it and runs this test")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*LAUNCH_ARGS, *extra_args])
        try:
            yield browser
        finally:
            browser.close()
