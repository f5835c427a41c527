"""Shared fixtures and the suite's markers; the `gemini_emulator` fixture itself comes from
gemini_emulator.testing.pytest_plugin.

Markers (registered in pyproject.toml) go on by folder or file here, so a new test in tests/fuzz/ is a fuzz test
without saying so; `make test-fast` leaves out fuzz, stress, js, browser, container, slow and live. Tests that
read the raw corpus carry `@pytest.mark.corpus` themselves: they skip with one reason (tests/corpus.py) when
../shared/corpus is absent.
"""

from __future__ import annotations

import functools
import ssl
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.server import RunningEmulator

import corpus

KEY = "test-key"
pytest_plugins = ["conformance_report"]  # --conformance-results PATH, for `make conformance`

TESTS = Path(__file__).resolve().parent

# Every httpx.Client and genai.Client the suite makes (thousands, nearly all for plain HTTP to 127.0.0.1) loads
# the CA bundle into a fresh SSL context: 24 ms of CPU each, most of the suite's CPU time. The suite shares one
# context per set of arguments instead; its CA certificates and checks are the ones each caller asked for.
_create_default_context = ssl.create_default_context


@functools.cache
def _shared_default_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    return _create_default_context(cafile=cafile, capath=capath)


def _default_context(
    purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
    *,
    cafile: str | None = None,
    capath: str | None = None,
    cadata: str | bytes | None = None,
) -> ssl.SSLContext:
    if purpose is ssl.Purpose.SERVER_AUTH and cadata is None:
        return _shared_default_context(cafile, capath)
    return _create_default_context(purpose, cafile=cafile, capath=capath, cadata=cadata)


ssl.create_default_context = _default_context
# Markers by place (a folder, or a file under tests/): what a test needs or costs, for `-m "not ..."`.
MARKERS_BY_PATH: dict[str, tuple[str, ...]] = {
    "fuzz": ("fuzz",),  # hypothesis and schemathesis: thousands of requests
    "stress": ("stress",),  # disconnect storms and memory bounds
    "container": ("container",),  # podman and the built image (`make container-test`)
    "sdk/test_js_matrix.py": ("js",),  # the Node SDKs (npm install on first run)
    "engines/openai/test_openai_e2e.py": ("js",),  # aimock, a Node server, as the upstream
    "engines/openai/test_openai_live.py": ("live",),  # a real OpenAI-compatible upstream
    "admin/test_inspector.py": ("browser",),  # chromium driven by playwright
    "browser": ("browser", "js"),  # web pages in chromium, the web SDKs bundled from tests/js (npm)
}


def _markers_for(path: Path) -> set[str]:
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return set()
    return {
        marker
        for place, markers in MARKERS_BY_PATH.items()
        if relative == place or relative.startswith(place + "/")
        for marker in markers
    }


# What `--fast` (make test-fast) leaves out: the rest runs in under a minute on this project's 2-core machines.
NOT_FAST = frozenset({"fuzz", "stress", "js", "browser", "container", "slow", "live"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", help=f"leave out tests marked {', '.join(sorted(NOT_FAST))}")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With --fast, a folder or file whose every test is left out is not even imported (fuzz's take 10 s)."""
    if config.getoption("--fast") and _markers_for(collection_path) & NOT_FAST:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker in sorted(_markers_for(item.path)):
            item.add_marker(marker)
    if config.getoption("--fast"):
        left_out = [item for item in items if NOT_FAST & {m.name for m in item.iter_markers()}]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if item not in set(left_out)]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked `corpus` skips, with tests/corpus.py's one reason, when ../shared/corpus is absent."""
    if item.get_closest_marker("corpus") is not None:
        corpus.require_corpus()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if corpus.skipped_for_corpus(r)]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} tests skipped: {corpus.ABSENT}")


@pytest.fixture(scope="session")
def base_url(gemini_emulator: RunningEmulator) -> str:
    return gemini_emulator.url


@pytest.fixture(scope="session")
def http(base_url: str) -> Iterator[httpx.Client]:
    """A raw HTTP client for wire-level checks."""
    with httpx.Client(base_url=base_url, timeout=10) as client:
        yield client


@pytest.fixture(params=["v1", "v1beta"])
def client(request: pytest.FixtureRequest, base_url: str) -> genai.Client:
    """google-genai on the Developer API, once per API version the SDKs use."""
    return genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=base_url, api_version=request.param))


@pytest.fixture(scope="session")
def announce(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Print one line on the terminal now, past pytest's output capture: a slow first-time step (`npm ci`) says
    what it is doing instead of leaving minutes of silence."""
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def say(line: str) -> None:
        with capture.global_and_fixture_disabled():
            print(f"\n{line}", file=sys.stderr, flush=True)

    return say
