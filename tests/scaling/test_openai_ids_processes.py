"""The openai engine's tool-call ids across processes (engines/openai/ids_redis.py): two `gemini-emulator serve
--engine openai --store redis://...` processes in front of one OpenAI-compatible upstream that, like Mistral,
issues ids of its own form and refuses a conversation naming any other. A function call answered through one
process and its function response sent through the other reach the upstream with the id it issued, unary and
streamed; without the shared store (the memory one, one process per turn) the same conversation is refused; and
a Redis that cannot be reached is the 503 envelope for a history with function calls."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

TOOL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The weather in a city",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}),
        )
    ]
)


class Strict:
    """A chat-completions upstream issuing nine-character ids (Mistral's form) and refusing, with a 400, any
    conversation whose tool calls carry an id it did not issue."""

    def __init__(self) -> None:
        self.issued: set[str] = set()
        self.seen: list[list[str]] = []  # the tool-call ids of each request that named some
        self.refused = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                status, answer = outer.answer(body)
                data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
                self.send_response(status)
                kind = "text/event-stream" if isinstance(answer, str) else "application/json"
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, body: dict[str, Any]) -> tuple[int, Any]:
        named = [c["id"] for m in body["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        named += [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
        if named:
            self.seen.append(named)
            if not set(named) <= self.issued:
                self.refused += 1
                return 400, {"object": "error", "message": "Tool call id was not issued here", "type": "invalid"}
            return 200, _completion({"role": "assistant", "content": "It is sunny in Paris."})
        call_id = secrets.token_hex(8)[:9]
        self.issued.add(call_id)
        call = {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
        if body.get("stream"):
            events = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call | {"index": 0}]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            ]
            return 200, "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        return 200, _completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[Strict]:
    strict = Strict()
    monkeypatch.setenv("GEMINI_EMULATOR_ENGINE", "openai")
    monkeypatch.setenv("GEMINI_EMULATOR_OPENAI_BASE_URL", strict.url)
    monkeypatch.setenv("GEMINI_EMULATOR_OPENAI_API_KEY", "sk-test")
    yield strict
    strict.close()


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


def _conversation(first: genai.Client, second: genai.Client, stream: bool) -> httpx.Response | str:
    """A call answered through `first`, its response sent through `second`: the answer's text, or the error."""
    config = types.GenerateContentConfig(
        tools=[TOOL], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    ask = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
    if stream:
        chunks = list(first.models.generate_content_stream(model="gemini-2.5-flash", contents=[ask], config=config))
        parts = [
            p
            for c in chunks
            for p in (c.candidates[0].content.parts if c.candidates and c.candidates[0].content else None) or []
        ]
    else:
        answer = first.models.generate_content(model="gemini-2.5-flash", contents=[ask], config=config)
        parts = answer.candidates[0].content.parts if answer.candidates and answer.candidates[0].content else []
    called = [p for p in parts or [] if p.function_call]
    assert len(called) == 1 and called[0].function_call and called[0].function_call.name == "get_weather"
    response = types.Part.from_function_response(name="get_weather", response={"sky": "sunny"})
    history = [ask, types.Content(role="model", parts=called), types.Content(role="user", parts=[response])]
    try:
        return str(second.models.generate_content(model="gemini-2.5-flash", contents=history, config=config).text)
    except genai.errors.APIError as refused:
        return f"{refused.code} {refused.message}"


@pytest.mark.slow
def test_a_call_answered_through_one_process_keeps_its_upstream_id_through_the_other(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
    upstream: Strict,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    for stream in (False, True):
        assert _conversation(on_a, on_b, stream) == "It is sunny in Paris."
    assert upstream.refused == 0 and len(upstream.seen) == 2
    assert all(len(set(ids)) == 1 and next(iter(ids)) in upstream.issued for ids in upstream.seen)


@pytest.mark.slow
def test_without_the_shared_store_another_process_mints_ids_the_upstream_refuses(
    serve: Any,  # noqa: F811
    upstream: Strict,
) -> None:
    a, b = serve("memory"), serve("memory")
    answer = _conversation(_client(a.url), _client(b.url), False)
    assert isinstance(answer, str) and answer.startswith("400 ") and upstream.refused == 1


def test_redis_unreachable_is_the_503_envelope(tmp_path: Path, upstream: Strict) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url, engine="openai"))
    try:
        call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
        reply = {"functionResponse": {"name": "get_weather", "response": {"sky": "sunny"}}}
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {"role": "model", "parts": [call]},
                {"role": "user", "parts": [reply]},
            ]
        }
        server.stop()
        answer = httpx.post(
            f"{running.url}/v1beta/models/gemini-2.5-flash:generateContent", json=body, headers=KEY, timeout=10
        )
        assert answer.status_code == 503, answer.text[:300]
        assert answer.json()["error"] == {
            "code": 503,
            "message": "The service is currently unavailable.",
            "status": "UNAVAILABLE",
        }
    finally:
        running.stop()
        server.stop()
