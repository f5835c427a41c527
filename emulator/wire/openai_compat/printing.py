"""Native Gemini response bodies -> this surface's OpenAI-shaped bodies; its error envelope and SSE framing.

The printers read the GenerateContentResponse the native wire built (or an engine's raw one), so usage, finish
reasons, tool calls and thought signatures come from one place. Key order is alphabetical (best-known: the
compatibility layer prints protobuf Structs, whose keys come out sorted; no capture of a success body found).
"""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import Any

import orjson

from gemini_emulator.protocol import errors, framing

# Gemini finishReason -> OpenAI finish_reason.
_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
DONE = b"data: [DONE]\n\n"


def sse_event(body: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(body) + b"\n\n"


def error_body(error: errors.ApiError) -> bytes:
    """An error answer: production's envelope wrapped in a list (`[{"error": {...}}]`, as quoted from
    /v1beta/openai/ answers in public issue threads)."""
    return framing.array_error(compat_error(error))


def stream_error(error: errors.ApiError) -> bytes:
    """A failure after the stream began: one `data:` event holding the error object, and no [DONE]
    (best-known; an object, not a list, so the openai SDKs raise it as an APIError)."""
    return sse_event(compat_error(error).envelope())


def compat_error(error: errors.ApiError) -> errors.ApiError:
    """The native error as this surface words it: an unknown model points at ModelService.ListModels and
    carries no details (openai.NotFoundError text quoted in public issue threads)."""
    if error.code == 404 and "Call ListModels" in error.message:
        return errors.ApiError(404, error.message.replace("Call ListModels", "Call ModelService.ListModels"))
    return error


def call_id(response_id: str, index: int, call: dict[str, Any]) -> str:
    """The tool call's id: Gemini's own when it gave one, else one derived from the response (best-known)."""
    given = call.get("id")
    if isinstance(given, str) and given:
        return given
    digest = hashlib.sha256(f"{response_id}:{index}:{call.get('name')}".encode()).hexdigest()
    return "function-call-" + str(int(digest[:16], 16))


def usage(native: dict[str, Any]) -> dict[str, Any]:
    meta = native.get("usageMetadata") or {}
    prompt = int(meta.get("promptTokenCount") or 0)
    completion = int(meta.get("candidatesTokenCount") or 0)
    out: dict[str, Any] = {"completion_tokens": completion}
    thoughts = int(meta.get("thoughtsTokenCount") or 0)
    if thoughts:
        out["completion_tokens_details"] = {"reasoning_tokens": thoughts}
    out["prompt_tokens"] = prompt
    cached = int(meta.get("cachedContentTokenCount") or 0)
    if cached:
        out["prompt_tokens_details"] = {"cached_tokens": cached}
    out["total_tokens"] = int(meta.get("totalTokenCount") or prompt + completion + thoughts)
    return out


def _message_parts(candidate: dict[str, Any], rid: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(content, tool_calls) of one candidate: text joined; thoughts (when asked for) in <thought> tags."""
    parts = (candidate.get("content") or {}).get("parts") or []
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        call = part.get("functionCall")
        if isinstance(text, str):
            (thoughts if part.get("thought") else texts).append(text)
        elif isinstance(call, dict):
            one: dict[str, Any] = {}
            signature = part.get("thoughtSignature")
            if isinstance(signature, str):
                one["extra_content"] = {"google": {"thought_signature": signature}}
            arguments = orjson.dumps(call.get("args") or {}).decode()
            one["function"] = {"arguments": arguments, "name": call.get("name", "")}
            one["id"] = call_id(rid, len(calls), call)
            one["type"] = "function"
            calls.append(one)
    content = "".join(texts)
    if thoughts:
        content = "<thought>" + "".join(thoughts) + "</thought>" + content
    return (content if content or not calls else None), calls


def finish_reason(candidate: dict[str, Any], has_calls: bool) -> str | None:
    reason = candidate.get("finishReason")
    if reason is None:
        return None
    if has_calls and reason == "STOP":
        return "tool_calls"
    return _FINISH.get(reason, "stop")


def completion(native: dict[str, Any], model: str, created: int) -> dict[str, Any]:
    """A chat.completion from a unary GenerateContentResponse."""
    rid = str(native.get("responseId", ""))
    choices = []
    candidates = native.get("candidates")
    if not candidates and native.get("promptFeedback"):  # a blocked prompt: no candidates
        choices.append(
            {"finish_reason": "content_filter", "index": 0, "message": {"content": None, "role": "assistant"}}
        )
    for position, candidate in enumerate(candidates or []):
        content, calls = _message_parts(candidate, rid)
        message: dict[str, Any] = {"content": content, "role": "assistant"}
        if calls:
            message["tool_calls"] = calls
        choices.append(
            {
                "finish_reason": finish_reason(candidate, bool(calls)) or "stop",
                "index": candidate.get("index", position),
                "message": message,
            }
        )
    return {
        "choices": choices,
        "created": created,
        "id": rid,
        "model": model,
        "object": "chat.completion",
        "usage": usage(native),
    }


class ChunkPrinter:
    """chat.completion.chunk bodies for one stream: tool-call indexes run on across chunks, per choice."""

    def __init__(self, model: str, created: int, include_usage: bool) -> None:
        self.model, self.created, self.include_usage = model, created, include_usage
        self._calls: dict[int, int] = {}  # choice index -> tool calls sent so far
        self._had_calls: set[int] = set()

    def chunk(self, native: dict[str, Any], final: bool) -> dict[str, Any]:
        rid = str(native.get("responseId", ""))
        choices = []
        candidates = native.get("candidates")
        if not candidates and native.get("promptFeedback"):
            choices.append({"delta": {"role": "assistant"}, "finish_reason": "content_filter", "index": 0})
        for position, candidate in enumerate(candidates or []):
            index = candidate.get("index", position)
            content, calls = _message_parts(candidate, rid)
            delta: dict[str, Any] = {}
            if content is not None and (content or not calls):
                delta["content"] = content
            delta["role"] = "assistant"
            if calls:
                start = self._calls.get(index, 0)
                delta["tool_calls"] = [{"index": start + k, **call} for k, call in enumerate(calls)]
                self._calls[index] = start + len(calls)
                self._had_calls.add(index)
            reason = finish_reason(candidate, index in self._had_calls)
            choices.append({"delta": delta, "finish_reason": reason, "index": index})
        body: dict[str, Any] = {
            "choices": choices,
            "created": self.created,
            "id": rid,
            "model": self.model,
            "object": "chat.completion.chunk",
        }
        if final and self.include_usage:
            body["usage"] = usage(native)
        return body


def embedding_list(vectors: list[list[float]], model: str, as_base64: bool, tokens: int) -> dict[str, Any]:
    data = []
    for i, vector in enumerate(vectors):
        value: Any = vector
        if as_base64:  # little-endian float32, as OpenAI's base64 encoding is
            value = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
        data.append({"embedding": value, "index": i, "object": "embedding"})
    return {
        "data": data,
        "model": model,
        "object": "list",
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def model_entry(model: dict[str, Any]) -> dict[str, Any]:
    """One model in OpenAI's shape: the id as the native API names it ("models/..."), owned by google."""
    name = model["name"] if str(model["name"]).startswith("models/") else "models/" + model["name"]
    return {"id": name, "object": "model", "owned_by": "google"}


def model_list(models: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": [model_entry(m) for m in models], "object": "list"}
