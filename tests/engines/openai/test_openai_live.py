"""Opt-in live check against a real OpenAI-compatible service; skipped unless asked for (GEMINI_EMULATOR_LIVE_TESTS=1:
keys alone in the environment never make `make test` call a paid service) and all three variables are set:

    GEMINI_EMULATOR_LIVE_TESTS=1 OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... \
        OPENAI_LIVE_MODELS=gpt-4o-mini,gpt-4.1-nano .venv/bin/pytest tests/engines/openai/test_openai_live.py

Each model in OPENAI_LIVE_MODELS answers a text question, a stream and a tool round trip through google-genai.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from google import genai
from google.genai import types

from gemini_emulator.config import Settings
from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.engine import OpenAIEngine
from gemini_emulator.testing.server import RunningEmulator, start

BASE_URL = os.environ.get("OPENAI_BASE_URL", "")
API_KEY = os.environ.get("OPENAI_API_KEY", "")
MODELS = [m.strip() for m in os.environ.get("OPENAI_LIVE_MODELS", "").split(",") if m.strip()]

LIVE = os.environ.get("GEMINI_EMULATOR_LIVE_TESTS") == "1"

pytestmark = pytest.mark.skipif(
    not (LIVE and BASE_URL and API_KEY and MODELS),
    reason="live check: set GEMINI_EMULATOR_LIVE_TESTS=1 with OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_LIVE_MODELS",
)


@pytest.fixture(scope="module", params=MODELS or ["none"])
def client(request: pytest.FixtureRequest) -> Iterator[genai.Client]:
    engine = OpenAIEngine(OpenAIConfig(base_url=BASE_URL, api_key=API_KEY, default_model=request.param, timeout=60))
    running: RunningEmulator = start(Settings(port=0), engine=engine)
    yield genai.Client(api_key="live", http_options=types.HttpOptions(base_url=running.url))
    running.stop()


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


def test_text_stream_and_tools(client: genai.Client) -> None:
    config = types.GenerateContentConfig(temperature=0, max_output_tokens=64)
    answer = client.models.generate_content(
        model="gemini-2.5-flash", contents="What is the capital of France? One word.", config=config
    )
    assert "paris" in (answer.text or "").lower()
    assert answer.usage_metadata.prompt_token_count > 0
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="Count to five."))
    assert chunks[-1].candidates[0].finish_reason is not None
    tools = types.GenerateContentConfig(tools=[add], temperature=0)
    summed = client.models.generate_content(
        model="gemini-2.5-flash", contents="Use the add tool to add 1234 and 4321.", config=tools
    )
    assert "5555" in (summed.text or "").replace(",", "")
