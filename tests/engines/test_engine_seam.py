"""The engine seam: discovery through entry points, and how engine chunks and failures reach the wire."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import errors as sdk_errors
from google.genai import types

from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors
from gemini_emulator.seam import Chunk, EngineLoadError, GenerateRequest, available_engines, load_engine
from gemini_emulator.testing.server import RunningEmulator, start

HELLO = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
KEY = {"x-goog-api-key": "k"}
STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


@pytest.mark.parametrize("usage", [None, {"thoughtsTokenCount": 3}])
@pytest.mark.parametrize("index", [0, 2])
def test_a_chunk_of_text_is_the_constructors_chunk(usage: dict[str, int] | None, index: int) -> None:
    made, constructed = Chunk.of_text("hi", usage, index), Chunk(parts=[{"text": "hi"}], usage=usage, index=index)
    assert type(made) is Chunk
    assert made == constructed  # field by field
    assert made.usage is usage and made.parts is not Chunk.of_text("hi", usage, index).parts


class FailingEngine:
    """Yields `before` chunks, then raises the given catalogue error (or waits on a gate)."""

    name = "failing"

    def __init__(self) -> None:
        self.before = 0
        self.error: errors.ApiError | None = errors.overloaded()
        self.gate: threading.Event | None = None
        self.silent = False

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        for i in range(self.before):
            yield Chunk(parts=[{"text": f"part {i} "}])
            if self.gate is not None:
                await asyncio.to_thread(self.gate.wait, 10)
        if self.error is not None:
            raise self.error
        if self.silent:
            return
        yield Chunk(parts=[{"text": "done"}], finish_reason="STOP")


@pytest.fixture(scope="module")
def engine() -> FailingEngine:
    return FailingEngine()


@pytest.fixture(scope="module")
def server(engine: FailingEngine) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0), engine=engine)
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def reset(engine: FailingEngine) -> None:
    engine.before, engine.error, engine.gate, engine.silent = 0, errors.overloaded(), None, False


def test_builtin_engine_is_registered_by_entry_point() -> None:
    assert available_engines()["scripted"] == "gemini_emulator.engines.scripted.engine:ScriptedEngine"
    assert load_engine("scripted").name == "scripted"


def test_unknown_engine_name_is_a_clear_error() -> None:
    with pytest.raises(EngineLoadError, match="no engine named 'nope' is installed .*scripted"):
        load_engine("nope")


def test_third_party_engine_is_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "echo_engine.py").write_text(
        "class Echo:\n    name = 'echo'\n    async def generate(self, request):\n        yield None\n"
    )
    dist = tmp_path / "echo_engine-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-engine\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[gemini_emulator.engines]\necho = echo_engine:Echo\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_engine("echo").name == "echo"
    listed = subprocess.run(
        [sys.executable, "-m", "gemini_emulator", "engines"],
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "echo\techo_engine:Echo" in listed.stdout and "scripted" in listed.stdout


def test_engine_error_before_first_chunk_is_an_http_error(server: RunningEmulator) -> None:
    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=server.url))
    with pytest.raises(sdk_errors.ServerError) as caught:
        client.models.generate_content(model="gemini-2.5-flash", contents="hello")
    assert caught.value.code == 503 and caught.value.status == "UNAVAILABLE"
    with pytest.raises(sdk_errors.ServerError):
        list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="hello"))


def test_engine_error_mid_stream_is_productions_error_tail(server: RunningEmulator, engine: FailingEngine) -> None:
    engine.before = 2
    with httpx.Client(base_url=server.url) as http:
        response = http.post(STREAM, params={"alt": "sse"}, headers=KEY, json=HELLO)
    assert response.status_code == 200
    events, tail = response.content.rsplit(b"\r\n\r\n", 1)
    assert events.count(b"data: ") == 2
    assert tail.startswith(b'{\n  "error": {\n    "code": 503,') and tail.endswith(b"}\n")
    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=server.url))
    seen: list[str] = []
    with pytest.raises(sdk_errors.APIError) as caught:
        for chunk in client.models.generate_content_stream(model="gemini-2.5-flash", contents="hello"):
            seen.append(chunk.text)
    assert seen == ["part 0 ", "part 1 "] and caught.value.code == 503


def test_engine_error_mid_array_stream_keeps_the_array_parseable(
    server: RunningEmulator, engine: FailingEngine
) -> None:
    engine.before = 1
    with httpx.Client(base_url=server.url) as http:
        response = http.post(STREAM, headers=KEY, json=HELLO)
    elements = response.json()
    assert response.status_code == 200 and len(elements) == 2
    assert elements[1]["error"]["status"] == "UNAVAILABLE"


def test_chunks_are_written_as_produced(server: RunningEmulator, engine: FailingEngine) -> None:
    engine.before, engine.error, engine.gate = 1, None, threading.Event()
    try:
        with httpx.Client(base_url=server.url, timeout=5) as http:
            with http.stream("POST", STREAM, params={"alt": "sse"}, headers=KEY, json=HELLO) as response:
                lines = response.iter_lines()
                first = next(lines)  # arrives while the engine is still blocked on the gate
                assert first.startswith('data: {"candidates": [{"content": {"parts": [{"text": "part 0 "}]')
                assert not engine.gate.is_set()
                engine.gate.set()
                rest = [line for line in lines if line]
        assert len(rest) == 1 and '"finishReason": "STOP"' in rest[0]
    finally:
        engine.gate.set()


def test_engine_that_yields_nothing_still_finishes_cleanly(server: RunningEmulator, engine: FailingEngine) -> None:
    engine.error, engine.silent = None, True
    with httpx.Client(base_url=server.url) as http:
        unary = http.post("/v1beta/models/gemini-2.5-flash:generateContent", headers=KEY, json=HELLO)
        stream = http.post(STREAM, params={"alt": "sse"}, headers=KEY, json=HELLO)
    assert unary.status_code == 200 and unary.json()["candidates"][0]["finishReason"] == "STOP"
    assert stream.status_code == 200 and stream.content.count(b"data: ") == 1
    assert b'"finishReason": "STOP"' in stream.content
