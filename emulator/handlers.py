"""Thin handlers: read the request, check it, ask the engine, hand the answer to printers and framers.

Order of checks follows production's front end: route, credential, body size, JSON, field names and
types, model, then the request's own rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from emulator import auth, catalogue, enums, errors, framing, printers, responses, tokens, validate
from emulator.config import Settings
from emulator.headers import BASE_HEADERS, SERVICE_TIER_HEADER
from emulator.routes import DEVELOPER, Target
from engines.base import Chunk, Engine, GenerateRequest

_MESSAGE_FOR = {"countTokens": "CountTokensRequest"}
_PAGE_DEFAULT, _PAGE_MAX = 50, 1000


class Context:
    """Per-app state the handlers need: settings, the engine, the catalogue."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self.catalogue = catalogue.load()


def _response(content: bytes, status: int, content_type: str, headers: dict[str, str]) -> Response:
    # The content type is set verbatim: Starlette would append "; charset=utf-8" to text/event-stream.
    return Response(content, status_code=status, headers=headers | {"content-type": content_type})


def json_response(body: Any, status: int = 200, extra: dict[str, str] | None = None) -> Response:
    return _response(printers.pretty(body), status, framing.JSON_TYPE, BASE_HEADERS | (extra or {}))


def error_response(error: errors.ApiError, stream_mode: str = "") -> Response:
    """An error before any answer bytes: pretty envelope, array-wrapped for JSON-array streams."""
    headers = BASE_HEADERS | error.headers
    if stream_mode == "array":
        return _response(framing.array_error(error), error.code, framing.JSON_TYPE, headers)
    # js-genai's recording of a 404 on an alt=sse call kept Content-Type: text/event-stream.
    media = framing.SSE_TYPE if stream_mode == "sse" else framing.JSON_TYPE
    return _response(printers.pretty(error.envelope()), error.code, media, headers)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused early (by Content-Length, or as soon as it grows past the limit)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise errors.payload_too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for piece in request.stream():
        size += len(piece)
        if size > limit:
            raise errors.payload_too_large(limit)
        chunks.append(piece)
    return b"".join(chunks)


def stream_mode(query: Mapping[str, str], target: Target) -> str:
    if target.method != "streamGenerateContent":
        return ""
    return "sse" if query.get("alt") == "sse" else "array"


async def call(ctx: Context, request: Request, target: Target) -> Response:
    """POST {model}:{method}."""
    query = request.query_params
    mode = stream_mode(query, target)
    try:
        namespace = auth.authenticate(target, request.headers, query, ctx.settings.api_key)
        raw = await read_body(request, ctx.settings.max_body_bytes)
        if target.method not in ("generateContent", "streamGenerateContent", "countTokens"):
            raise errors.not_implemented(f"the {target.method} method")
        body = validate.parse_body(raw)
        message = _MESSAGE_FOR.get(target.method, "GenerateContentRequest")
        validate.check_fields(body, message, target.backend, target.version)
        model = ctx.catalogue.resolve(
            target.model, target.method, target.version, target.backend, target.project, target.location
        )
        int_enums = enums.wants_int_enums(query.get("$alt", ""))
        if target.method == "countTokens":
            return _count_tokens(target, body, int_enums)
        gen = _generate_request(target, model, body, namespace, stream=bool(mode))
        usage = _usage(target, gen.contents, gen.system_instruction, gen.tools)
        builder = responses.ResponseBuilder(target.backend, model, gen.fingerprint, usage)
        extra = {SERVICE_TIER_HEADER: responses.SERVICE_TIER} if target.backend == DEVELOPER else {}
        if not mode:
            chunk = await _collect(ctx.engine.generate(gen))
            reason = chunk.finish_reason or "STOP"  # a unary answer always says how it ended
            answer = builder.build(chunk.parts, reason, chunk.finish_message, final=True, stream=False)
            return json_response(_encode(answer, target, int_enums), extra=extra)
        chunks = _built(ctx.engine.generate(gen), builder, target, int_enums)
        first = await anext(chunks, None)
        if first is None:  # an engine that yielded nothing still gets a well-formed, finished stream
            first = _encode(builder.build([], "STOP", None, final=True, stream=True), target, int_enums)
    except errors.ApiError as error:
        return error_response(error, mode)
    frame = framing.sse if mode == "sse" else framing.json_array
    media = framing.SSE_TYPE if mode == "sse" else framing.JSON_TYPE
    headers = BASE_HEADERS | extra | (framing.SSE_HEADERS if mode == "sse" else {}) | {"content-type": media}
    return StreamingResponse(frame(first, chunks), headers=headers)


def _generate_request(
    target: Target, model: str, body: dict[str, Any], namespace: str, stream: bool
) -> GenerateRequest:
    contents = validate.check_contents(body.get("contents"))
    return GenerateRequest(
        model=model,
        requested_model=target.model,
        backend=target.backend,
        stream=stream,
        namespace=namespace,
        contents=contents,
        system_instruction=_get(body, "systemInstruction", "system_instruction"),
        generation_config=_get(body, "generationConfig", "generation_config") or {},
        tools=_get(body, "tools") or [],
        tool_config=_get(body, "toolConfig", "tool_config"),
        safety_settings=_get(body, "safetySettings", "safety_settings") or [],
        body=body,
        fingerprint=fingerprint(model, body),
    )


def _get(body: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in body:
            return body[name]
    return None


def fingerprint(model: str, body: dict[str, Any]) -> str:
    """Stable digest of what was asked: key order and whitespace do not matter."""
    digest = hashlib.sha256(model.encode() + b"\0" + printers.canonical(body))
    return digest.hexdigest()


def _usage(target: Target, contents: list[Any], system: Any, tools: list[Any] | None) -> responses.Usage:
    text, media = tokens.count_prompt(contents, system, tools)
    billable = tokens.billable_characters(contents, system) if target.backend != DEVELOPER else 0
    return responses.Usage(prompt_text=text, prompt_media=media, billable_chars=billable)


def _count_tokens(target: Target, body: dict[str, Any], int_enums: bool) -> Response:
    inner = _get(body, "generateContentRequest", "generate_content_request") or {}
    contents = _get(body, "contents") or _get(inner, "contents")
    validate.check_contents(contents, "CountTokensRequest" if "contents" in body else "GenerateContentRequest")
    system = _get(body, "systemInstruction", "system_instruction") or _get(
        inner, "systemInstruction", "system_instruction"
    )
    tools = _get(body, "tools") or _get(inner, "tools")
    answer = responses.count_tokens(target.backend, _usage(target, contents, system, tools))
    return json_response(_encode(answer, target, int_enums))


def _encode(answer: dict[str, Any], target: Target, int_enums: bool) -> dict[str, Any]:
    return enums.to_ints(answer, target.backend) if int_enums else answer


async def _collect(chunks: AsyncIterator[Chunk]) -> Chunk:
    """A unary answer from an engine's chunks: parts concatenated, adjacent plain text merged."""
    merged = Chunk()
    async for chunk in chunks:
        for part in chunk.parts:
            last = merged.parts[-1] if merged.parts else None
            if last is not None and set(last) == {"text"} and set(part) == {"text"}:
                merged.parts[-1] = {"text": last["text"] + part["text"]}
            else:
                merged.parts.append(dict(part))
        merged.finish_reason = chunk.finish_reason or merged.finish_reason
        merged.finish_message = chunk.finish_message or merged.finish_message
    return merged


async def _built(
    chunks: AsyncIterator[Chunk], builder: responses.ResponseBuilder, target: Target, int_enums: bool
) -> AsyncIterator[dict[str, Any]]:
    """Engine chunks as response bodies; the final one is the chunk carrying a finish reason."""
    async for chunk in chunks:
        body = builder.build(
            chunk.parts, chunk.finish_reason, chunk.finish_message, final=chunk.finish_reason is not None, stream=True
        )
        yield _encode(body, target, int_enums)


async def get_model(ctx: Context, request: Request, target: Target) -> Response:
    try:
        auth.authenticate(target, request.headers, request.query_params, ctx.settings.api_key)
        if target.backend != DEVELOPER:
            model = ctx.catalogue.get(target.model, target.version)
            return json_response({"name": "publishers/google/models/" + model["name"].removeprefix("models/")})
        return json_response(ctx.catalogue.get(target.model, target.version))
    except errors.ApiError as error:
        return error_response(error)


async def list_models(ctx: Context, request: Request, target: Target) -> Response:
    try:
        auth.authenticate(target, request.headers, request.query_params, ctx.settings.api_key)
        models = ctx.catalogue.listing()
        if target.backend != DEVELOPER:
            return json_response(responses.vertex_model_list(models))
        size_text = request.query_params.get("pageSize", "")
        token = request.query_params.get("pageToken", "")
        if size_text and not size_text.lstrip("-").isdigit():
            raise errors.payload_violations([errors.invalid_value("page_size", "TYPE_INT32", f'"{size_text}"')])
        size = int(size_text) if size_text else _PAGE_DEFAULT
        size = _PAGE_DEFAULT if size <= 0 else min(size, _PAGE_MAX)
        if not responses.valid_page_token(token):
            raise errors.invalid_argument()
        return json_response(responses.model_list(models, size, token))
    except errors.ApiError as error:
        return error_response(error)
