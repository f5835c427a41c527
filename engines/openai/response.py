"""OpenAI chat-completions answers and failures -> Gemini chunks and Google errors.

finish_reason stop/length/tool_calls/content_filter -> STOP/MAX_TOKENS/STOP/SAFETY; a refusal -> SAFETY with
the refusal kept out of the answer text (it becomes the finishMessage); reasoning (`reasoning_content` or
`reasoning`) -> thought parts when includeThoughts; tool calls -> functionCall parts with object args, an id
and, on the first, a thoughtSignature; usage -> usageMetadata overrides (reasoning tokens are thoughts).
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from gemini_emulator.engines.openai.ids import CallIdStore, minted_id, turn_key
from gemini_emulator.engines.synth.calls import function_call_message, mint_call_id, mint_signature
from gemini_emulator.protocol import errors, tokens
from gemini_emulator.protocol.routes import VERTEX
from gemini_emulator.seam import Chunk, GenerateRequest

FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP", "function_call": "STOP"}
FINISH |= {"content_filter": "SAFETY", "end_turn": "STOP", "max_tokens": "MAX_TOKENS"}
_REASONING_KEYS = ("reasoning_content", "reasoning")
_MESSAGE_LIMIT = 500
_REDACTED = "[redacted]"


def finish_reason(value: Any) -> str:
    """Gemini's finishReason for an OpenAI finish_reason (unknown reasons are OTHER)."""
    if value is None:
        return "STOP"
    return FINISH.get(str(value), "OTHER")


def reasoning_of(message: dict[str, Any]) -> str:
    for key in _REASONING_KEYS:
        if isinstance(message.get(key), str) and message[key]:
            return str(message[key])
    return ""


def usage_override(usage: Any, request: GenerateRequest) -> dict[str, Any] | None:
    """usageMetadata fields from an OpenAI `usage` object; the wire layer recomputes the total from them."""
    if not isinstance(usage, dict) or not isinstance(usage.get("prompt_tokens"), int):
        return None
    prompt = usage["prompt_tokens"]
    completion = given if isinstance(given := usage.get("completion_tokens"), int) else 0
    thoughts = _detail(usage, "completion_tokens_details", "reasoning_tokens")
    cached = _detail(usage, "prompt_tokens_details", "cached_tokens")
    _, media = tokens.count_prompt(request.contents, request.system_instruction, request.tools)
    media = min(media, prompt)
    candidates = max(completion - thoughts, 0)
    out: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "promptTokensDetails": tokens.modality_details(prompt - media, media),
        "thoughtsTokenCount": thoughts,
        "cachedContentTokenCount": cached,
    }
    if request.backend == VERTEX:
        out["candidatesTokensDetails"] = [{"modality": "TEXT", "tokenCount": candidates}] if candidates else None
    return out


def _detail(usage: dict[str, Any], group: str, name: str) -> int:
    value = usage.get(group)
    count = value.get(name) if isinstance(value, dict) else None
    return count if isinstance(count, int) else 0


@dataclass
class PendingCall:
    """A tool call as the upstream sent it (arguments may arrive in pieces when streamed)."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def call_parts(
    calls: list[PendingCall], request: GenerateRequest, ids: CallIdStore, upstream: str
) -> list[dict[str, Any]]:
    """functionCall parts for the upstream's tool calls; their upstream ids are remembered for the replay."""
    named: list[tuple[str, Any]] = []
    for call in calls:
        if not call.name:
            raise errors.upstream_invalid(upstream, "a tool call has no function name")
        named.append((call.name, _arguments(call, upstream)))
    key = turn_key(request.namespace, request.contents, named)
    upstream_ids = [call.id or minted_id(key, n) for n, call in enumerate(calls)]
    duplicates = sorted({i for i in upstream_ids if upstream_ids.count(i) > 1})
    if duplicates:
        raise errors.upstream_invalid(upstream, f"two tool calls share the id {duplicates[0]!r}")
    ids.remember(key, upstream_ids)
    parts = []
    for n, ((name, args), upstream_id) in enumerate(zip(named, upstream_ids, strict=True)):
        part: dict[str, Any] = {"functionCall": {"name": name, "args": args, "id": mint_call_id(upstream_id)}}
        if n == 0:
            part["thoughtSignature"] = mint_signature(upstream_id)
        parts.append(part)
    return parts


def _arguments(call: PendingCall, upstream: str) -> dict[str, Any]:
    text = "".join(call.arguments).strip()
    if not text:
        return {}
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise errors.upstream_invalid(
            upstream, f"the arguments of tool call {call.name!r} are not JSON: {_clip(text)}"
        ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.upstream_invalid(
            upstream, f"the arguments of tool call {call.name!r} are not a JSON object: {_clip(text)}"
        )
    return value


def pending_calls(tool_calls: Any, upstream: str) -> list[PendingCall]:
    """A unary message's `tool_calls` (arguments may be a string, as OpenAI sends, or an object)."""
    if tool_calls is None:
        return []
    if not isinstance(tool_calls, list):
        raise errors.upstream_invalid(upstream, "tool_calls is not a list")
    out = []
    for call in tool_calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise errors.upstream_invalid(upstream, "a tool call has no function")
        arguments = function.get("arguments")
        text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
        call_id = call.get("id") if isinstance(call.get("id"), str) else ""
        out.append(PendingCall(call_id, str(function.get("name") or ""), [text]))
    return out


def final_details(reason: Any, refusal: str, has_calls: bool, request: GenerateRequest) -> tuple[str, str | None]:
    """(finishReason, finishMessage) for the end of the answer."""
    if refusal:
        return "SAFETY", refusal
    mapped = finish_reason(reason)
    message = function_call_message(request) if has_calls else None
    return mapped, message


def unary_chunks(answer: Any, request: GenerateRequest, ids: CallIdStore, upstream: str, thoughts: bool) -> list[Chunk]:
    """The whole Gemini answer for a non-streamed completion: one chunk per choice, with its index."""
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(choices, list) or not choices:
        raise errors.upstream_invalid(upstream, "the answer has no choices")
    usage = usage_override(answer.get("usage"), request)
    chunks = []
    for n, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise errors.upstream_invalid(upstream, "a choice has no message")
        index = given if isinstance(given := choice.get("index"), int) else n
        parts: list[dict[str, Any]] = []
        reasoning = reasoning_of(message)
        if thoughts and reasoning:
            parts.append({"text": reasoning, "thought": True})
        refusal = given if isinstance(given := message.get("refusal"), str) else ""
        content = message.get("content")
        if isinstance(content, str) and content and not refusal:
            parts.append({"text": content})
        calls = pending_calls(message.get("tool_calls"), upstream)
        if calls and not refusal:
            parts.extend(call_parts(calls, request, ids, upstream))
        reason, note = final_details(choice.get("finish_reason"), refusal, bool(calls), request)
        chunks.append(Chunk(parts=parts, finish_reason=reason, finish_message=note, usage=usage, index=index))
    return sorted(chunks, key=lambda chunk: chunk.index)


# --- failures --------------------------------------------------------------------------------------


def label(base_url: str) -> str:
    """The upstream as error texts name it: scheme, host, port and path, never credentials or a query."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def redact(text: str, secret: str) -> str:
    """`text` without `secret`, nor the start of it that a clipped excerpt may end in (4 characters or more)."""
    if not secret:
        return text
    text = text.replace(secret, _REDACTED)
    stem = text.removesuffix("…").rstrip("'\"")
    for size in range(min(len(secret) - 1, len(stem)), 3, -1):
        if stem.endswith(secret[:size]):
            return stem[:-size] + _REDACTED + text[len(stem) :]
    return text


def scrubbed(error: errors.ApiError, secret: str) -> errors.ApiError:
    """`error` with the upstream key taken out of its message and details (the one choke point every failure
    of the engine passes: an upstream that echoes the key in any body, event or header it sends must not get
    it to the caller or the journal)."""
    if not secret:
        return error
    error.message = redact(error.message, secret)
    error.details = [_scrub_value(detail, secret) for detail in error.details]
    return error


def _scrub_value(value: Any, secret: str) -> Any:
    if isinstance(value, str):
        return redact(value, secret)
    if isinstance(value, dict):
        return {k: _scrub_value(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, secret) for v in value]
    return value


def _clip(text: str) -> str:
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT] + "…"


def upstream_message(body: bytes) -> str:
    """The upstream's error text: `error.message` (OpenAI, vLLM, Ollama), `message`, `detail`, else the body."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace").strip()
    if isinstance(value, dict):
        inner = value.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        for key in ("error", "message", "detail"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return orjson.dumps(value).decode()


def http_error(
    status: int, body: bytes, headers: dict[str, str], request: GenerateRequest, upstream: str, secret: str
) -> errors.ApiError:
    """The Google error for an upstream's HTTP failure, with the upstream's words in a DebugInfo detail."""
    said = _clip(redact(upstream_message(body), secret))
    if status >= 500 or status in (408, 409):
        error = errors.upstream_unavailable(upstream, f"it answered HTTP {status}: {said}")
        return error
    if status == 401:
        error = errors.api_key_invalid() if request.backend != VERTEX else errors.named("unauthenticated")
    elif status == 403:
        error = errors.named("permission")
    elif status == 404:
        error = errors.model_not_found(request.model, request.version, "generateContent")
    elif status == 429:
        delay = retry_after(headers)
        error = errors.quota_exceeded(request.model) if delay is None else errors.quota_exceeded(request.model, delay)
    else:
        error = errors.invalid_argument()
    error.details.append(errors.upstream_said(upstream, status, said))
    return error


def error_body(payload: Any, request: GenerateRequest, upstream: str, secret: str) -> errors.ApiError:
    """An `{"error": ...}` event in an upstream stream, or such a body sent with HTTP 200."""
    inner = payload.get("error") if isinstance(payload, dict) else None
    code = inner.get("code") if isinstance(inner, dict) else None
    status = code if isinstance(code, int) and 400 <= code <= 599 else 500
    return http_error(status, orjson.dumps(payload), {}, request, upstream, secret)


def retry_after(headers: dict[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date); None when neither is usable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(float(lowered["retry-after-ms"]) / 1000, 0.0)
        value = lowered.get("retry-after", "").strip()
        if value:
            if value.replace(".", "", 1).isdigit():
                return float(value)
            when = email.utils.parsedate_to_datetime(value)
            return max(when.timestamp() - time.time(), 0.0)
    except (ValueError, TypeError):
        pass
    return None
