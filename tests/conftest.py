"""Shared fixtures: the `gemini_emulator` fixture itself comes from gemini_emulator.testing.pytest_plugin."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.server import RunningEmulator

KEY = "test-key"
pytest_plugins = ["conformance_report"]  # --conformance-results PATH, for `make conformance`


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
