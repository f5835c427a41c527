"""Upstream answers for the openai engine's tests: OpenAI chat-completion bodies and SSE streams, as bytes."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx

UPSTREAM = "http://upstream.test/v1"
CHAT_URL = UPSTREAM + "/chat/completions"
SECRET = "sk-upstream-secret-0123456789"
MODEL = "gemini-2.5-flash"
GENERATE = f"/v1beta/models/{MODEL}:generateContent"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
KEY = {"x-goog-api-key": "openai-test"}


def completion(
    content: str | None = "Hello!",
    finish: str | None = "stop",
    usage: dict[str, Any] | None = None,
    **message: Any,
) -> dict[str, Any]:
    """A chat.completion body with one choice."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "upstream-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content, **message}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def tool_call(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    """One chat.completion.chunk event with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": fields, "finish_reason": finish}],
    }


def usage_event(prompt: int, completion_tokens: int, reasoning: int = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }
    if reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": usage}


def sse(*events: dict[str, Any] | str, done: bool = True) -> bytes:
    """An OpenAI SSE body: `data: {json}` events, then `data: [DONE]` unless `done` is False."""
    lines = [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def sse_response(body: bytes) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


class Pieces(httpx.AsyncByteStream):
    """A response body sent piece by piece; waits on `gate` before `gated_from`, then may raise `error`."""

    def __init__(
        self,
        pieces: list[bytes],
        error: Exception | None = None,
        gate: threading.Event | None = None,
        gated_from: int = 1,
    ) -> None:
        self.pieces, self.error, self.gate, self.gated_from = pieces, error, gate, gated_from
        self.gate_timed_out = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i, piece in enumerate(self.pieces):
            if self.gate is not None and i == self.gated_from:
                self.gate_timed_out = not await asyncio.to_thread(self.gate.wait, 10)
            yield piece
        if self.error is not None:
            raise self.error


def sent(route: Any) -> dict[str, Any]:
    """The JSON body of the last request a respx route received."""
    return json.loads(route.calls.last.request.content)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}
