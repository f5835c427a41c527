"""Fixtures for the openai engine: an emulator whose upstream is answered by respx, over real sockets."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import respx
from google import genai
from google.genai import types

from gemini_emulator.config import Settings
from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.engine import OpenAIEngine
from gemini_emulator.testing.server import RunningEmulator, start

from openai_fakes import SECRET, UPSTREAM


@pytest.fixture(scope="module")
def engine() -> OpenAIEngine:
    config = OpenAIConfig(
        base_url=UPSTREAM, api_key=SECRET, model_map={"gemini-2.5-pro": "big-model"}, default_model="small-model"
    )
    return OpenAIEngine(config)


@pytest.fixture(scope="module")
def server(engine: OpenAIEngine) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0), engine=engine)
    yield running
    running.stop()


@pytest.fixture
def upstream(server: RunningEmulator) -> Iterator[respx.MockRouter]:
    """The upstream's routes; calls to the emulator itself (loopback) go through to the real socket."""
    with respx.mock(assert_all_called=False) as router:
        router.route(host=server.host).pass_through()
        yield router


@pytest.fixture
def wire(server: RunningEmulator) -> Iterator[httpx.Client]:
    """Raw HTTP to the emulator, for exact request bodies and wire checks."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


@pytest.fixture
def sdk(server: RunningEmulator) -> genai.Client:
    return genai.Client(api_key="openai-test", http_options=types.HttpOptions(base_url=server.url))
