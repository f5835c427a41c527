"""End to end: google-genai -> the emulator (openai engine, loaded by name from the environment) -> aimock, an
independent OpenAI-compatible server (@copilotkit/aimock from npm, pinned by tests/upstream/package-lock.json and
installed with `npm ci` when the lock changes, as tests/sdk/test_js_matrix.py does), run as a separate process on
loopback answering from tests/upstream/aimock-fixtures.json. aimock is told to accept only the engine's key, so
every answer here also proves the key went upstream."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pydantic
import pytest
from google import genai
from google.genai import errors as sdk_errors
from google.genai import types

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

UPSTREAMS = Path(__file__).resolve().parents[2] / "upstream"
LOCK = UPSTREAMS / "package-lock.json"
STAMP = UPSTREAMS / "node_modules" / ".package-lock.sha256"
AIMOCK = UPSTREAMS / "node_modules" / ".bin" / "llmock"
FIXTURES = UPSTREAMS / "aimock-fixtures.json"
UPSTREAM_KEY = "sk-e2e-upstream"
MODEL = "gemini-2.5-flash"
NODE, NPM = shutil.which("node"), shutil.which("npm")

pytestmark = pytest.mark.skipif(not (NODE and NPM), reason="node and npm are needed to run aimock")


def install_aimock(announce: Callable[[str], None]) -> None:
    """tests/upstream/node_modules as the lock pins it; `npm ci` only when the lock changed."""
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != digest:
        announce(f"npm ci in {UPSTREAMS} (aimock; once per lock file, about a minute)")
        done = subprocess.run(
            [str(NPM), "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=UPSTREAMS,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
        STAMP.write_text(digest)


@pytest.fixture(scope="module")
def aimock_url(announce: Callable[[str], None]) -> Iterator[str]:
    install_aimock(announce)
    process = subprocess.Popen(
        [str(AIMOCK), "--port", "0", "--host", "127.0.0.1", "--fixtures", str(FIXTURES)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=os.environ | {"AIMOCK_API_KEYS": UPSTREAM_KEY},
    )
    assert process.stdout is not None
    seen = []
    for line in process.stdout:  # blocks until aimock says where it listens (or exits)
        seen.append(line)
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if found:
            break
    else:
        process.wait()
        pytest.fail("aimock did not start:\n" + "".join(seen))
    drain = threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True)  # type: ignore[union-attr]
    drain.start()
    try:
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def emulator(aimock_url: str) -> Iterator[RunningEmulator]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GEMINI_EMULATOR_OPENAI_BASE_URL", aimock_url + "/v1")
        env.setenv("GEMINI_EMULATOR_OPENAI_API_KEY", UPSTREAM_KEY)
        env.setenv("GEMINI_EMULATOR_OPENAI_DEFAULT_MODEL", "gpt-4o-mini")
        running = start(Settings(port=0, engine="openai"))
    yield running
    running.stop()


@pytest.fixture
def client(emulator: RunningEmulator) -> genai.Client:
    return genai.Client(api_key="any-gemini-key", http_options=types.HttpOptions(base_url=emulator.url))


def test_unary_text(client: genai.Client) -> None:
    response = client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text == "Hello from the upstream!"
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.model_version == MODEL


def test_streamed_text_arrives_in_pieces_with_upstream_usage(client: genai.Client) -> None:
    chunks = list(client.models.generate_content_stream(model=MODEL, contents="Tell me about rivers"))
    assert len(chunks) > 2
    assert "".join(c.text or "" for c in chunks).startswith("Rivers carry water from high ground to the sea.")
    assert [c.candidates[0].finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    usage = chunks[-1].usage_metadata
    assert (usage.prompt_token_count, usage.candidates_token_count, usage.total_token_count) == (9, 27, 36)


def get_weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "sky": "clear"}


def test_automatic_function_calling_round_trips_parallel_call_ids(client: genai.Client) -> None:
    # aimock answers the second turn only if the last tool message names call_e2e_rome: the ids it issued
    # must come back through Gemini's functionCall/functionResponse parts.
    config = types.GenerateContentConfig(tools=[get_weather])
    response = client.models.generate_content(model=MODEL, contents="Weather in Paris and Rome?", config=config)
    assert response.text == "Paris is sunny at 21C; Rome is clear at 25C."
    history = response.automatic_function_calling_history
    calls = [p.function_call for c in history for p in c.parts or [] if p.function_call]
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]


def test_streamed_tool_calls_and_a_manual_second_turn(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=[get_weather], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    contents = [types.Content(role="user", parts=[types.Part(text="Weather in Paris and Rome?")])]
    chunks = list(client.models.generate_content_stream(model=MODEL, contents=contents, config=config))
    parts = [p for c in chunks for p in c.candidates[0].content.parts or []]
    calls = [p.function_call for p in parts if p.function_call]
    assert [c.args["city"] for c in calls] == ["Paris", "Rome"]
    replies = [types.Part.from_function_response(name=c.name, response=get_weather(**c.args)) for c in calls]
    contents += [types.Content(role="model", parts=parts), types.Content(role="user", parts=replies)]
    answer = client.models.generate_content(model=MODEL, contents=contents, config=config)
    assert answer.text == "Paris is sunny at 21C; Rome is clear at 25C."


def test_reasoning_becomes_thoughts_when_asked(client: genai.Client) -> None:
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    response = client.models.generate_content(model=MODEL, contents="What is 2+2?", config=config)
    parts = response.candidates[0].content.parts
    assert [(p.thought, p.text) for p in parts] == [(True, "Two plus two is four."), (None, "2 + 2 = 4.")]
    plain = client.models.generate_content(model=MODEL, contents="What is 2+2?")
    assert plain.text == "2 + 2 = 4." and len(plain.candidates[0].content.parts) == 1


class Recipe(pydantic.BaseModel):
    name: str
    minutes: int
    ingredients: list[str]


def test_structured_output_through_json_schema(client: genai.Client) -> None:
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=Recipe)
    response = client.models.generate_content(model=MODEL, contents="A pancake recipe as JSON", config=config)
    assert response.parsed == Recipe(name="Pancakes", minutes=20, ingredients=["flour", "milk", "eggs"])


def test_chat_sessions_replay_history(client: genai.Client) -> None:
    chat = client.chats.create(model=MODEL)
    assert chat.send_message("Tell me about rivers").text.startswith("Rivers carry water")
    assert chat.send_message("And the longest one?").text == "The Nile, at about 6,650 km."


def test_upstream_rate_limit_is_a_gemini_429(client: genai.Client) -> None:
    with pytest.raises(sdk_errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents="Are you busy?")
    assert (caught.value.code, caught.value.status) == (429, "RESOURCE_EXHAUSTED")


def test_upstream_server_error_is_a_gemini_503(client: genai.Client) -> None:
    with pytest.raises(sdk_errors.ServerError) as caught:
        list(client.models.generate_content_stream(model=MODEL, contents="Break please"))
    assert (caught.value.code, caught.value.status) == (503, "UNAVAILABLE")
    assert "The upstream model server http://127.0.0.1:" in caught.value.message
