"""The OpenAI-compatible surface's handlers: credential, body, translation, the native generate path, printing.

A chat completion is served by the very path a native generateContent call takes (`handlers.start_generation`):
the translated body is checked by the native field and request rules, resolved against the same catalogue and
handed to the same engine as the same `GenerateRequest`, so scripts, matchers, faults, strict mode, the journal,
replay and the openai engine apply unchanged. The bearer token is the API key: it names the same namespace as that
key on the native API. The journal keeps a chat completion as the native request it became (rpc
"openai.chat.completions"), or as sent when it could not be translated.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, tokens
from gemini_emulator.protocol.headers import BASE_HEADERS
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.seam import Chunk, Embedder
from gemini_emulator.wire import auth, embeddings, faults, handlers, sending, validate
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.openai_compat import images, printing, translate
from gemini_emulator.wire.sending import Body, Stream

JSON_TYPE = "application/json"
_SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


def _json(body: Any, status: int = 200) -> Response:
    return Body(orjson.dumps(body), status, BASE_HEADERS | {"content-type": JSON_TYPE})


def error_response(error: errors.ApiError) -> Response:
    return Body(printing.error_body(error), error.code, BASE_HEADERS | error.headers | {"content-type": JSON_TYPE})


def credential(ctx: handlers.Context, request: Incoming) -> str:
    """The caller's key: the bearer token (what the openai SDKs send), else the native key header or ?key=."""
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    key = (token.strip() if scheme.lower() == "bearer" else "") or auth.api_key(request.headers, request.query)
    if not key:
        raise errors.unregistered_caller()
    if ctx.settings.api_key is not None and key != ctx.settings.api_key:
        raise errors.api_key_invalid()
    return key


async def dispatch(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> Response:
    """Serve one request of the surface; every failure is this surface's error answer."""
    record.rpc = "openai." + target.method
    try:
        record.namespace = auth.namespace_of(request.headers, credential(ctx, request), ctx.settings.admin_token)
        if target.method.startswith("models.") and ctx.shared_models is not None:  # every process's models
            await ctx.refresh_models()
        if target.method == "models.list":
            return _json(printing.model_list(ctx.catalogue.listing()))
        if target.method == "models.get":
            record.model = target.model
            return _json(printing.model_entry(ctx.catalogue.get(target.model, target.version)))
        body = await handlers.read_body(ctx, request, record)
        if target.method == "embeddings":
            return await _embeddings(ctx, target, body, record)
        if target.method == "images.generations":
            return await images.generations(ctx, target, body, record, request.receive)
        return await _chat(ctx, target, body, record, request.receive)
    except errors.ApiError as error:
        return error_response(printing.compat_error(error))


async def _embeddings(ctx: handlers.Context, target: Target, body: dict[str, Any], record: Record) -> Response:
    """An embeddings call as the native batchEmbedContents call google-genai sends (the model repeated in each
    request, as the SDK writes it), so an engine that answers methods itself (a replay recording) is asked first,
    as the native path asks it; else the wire computes it with the engine's vectors."""
    asked = translate.embeddings(body)
    record.model = asked.model
    model = ctx.catalogue.resolve(asked.model, "embedContent", target.version, DEVELOPER)
    requests: list[dict[str, Any]] = [
        {"content": {"parts": [{"text": t}]}, "model": "models/" + asked.model} for t in asked.texts
    ]
    if asked.dimensions is not None:
        for one in requests:
            one["outputDimensionality"] = asked.dimensions
    native = {"requests": requests}
    batch = Target("call", DEVELOPER, target.family, target.version, "models/" + asked.model, "batchEmbedContents")
    answer = await handlers.engine_answer(ctx, batch, model, native, record)
    if answer is None:
        if not isinstance(ctx.engine, Embedder):
            raise errors.not_implemented(f"embeddings with the {ctx.engine.name} engine")
        answer = embeddings.answer(ctx.engine, batch, model, native)
    used = sum(tokens.count_text(t) for t in asked.texts)
    return _json(printing.embedding_list(_vectors(answer), asked.model, asked.base64, used))


def _vectors(answer: dict[str, Any]) -> list[list[float]]:
    """The vectors of a native batchEmbedContents answer; an answer of another shape (a recording of another
    method) cannot be printed as OpenAI's list."""
    found = answer.get("embeddings")
    if not isinstance(found, list) or not all(isinstance(e, dict) and isinstance(e.get("values"), list) for e in found):
        raise errors.not_implemented("OpenAI embeddings from an engine answer without embeddings[].values")
    return [e["values"] for e in found]


async def _chat(
    ctx: handlers.Context, target: Target, body: dict[str, Any], record: Record, receive: Receive
) -> Response:
    chat = translate.chat(body)
    record.model = chat.model
    record.body = chat.native  # journaled as the native request it became: the journal's helpers read it alike
    method = "streamGenerateContent" if chat.stream else "generateContent"
    call = Target("call", DEVELOPER, target.family, target.version, model="models/" + chat.model, method=method)
    native = validate.check_fields(chat.native, "GenerateContentRequest", DEVELOPER, target.version)  # normalised
    model = await handlers.resolve_model(ctx, call, native, record.namespace, chat.stream)
    await handlers.read_shared(ctx, call, native, record.namespace)  # extra_body.google.cached_content, on Redis
    gen, builder, _ = handlers.prepare_generation(ctx, call, model, native, record.namespace, chat.stream, chat.native)
    created = int(time.time())
    printer = printing.ChunkPrinter(chat.model, created, chat.include_usage)
    first: faults.Built | None = None
    try:
        answer = await handlers.answer_of(ctx, gen)
        if not chat.stream:
            if isinstance(answer, list):
                chunk, *others = handlers.merge(answer)
            else:
                chunk, *others = await sending.until_hang_up(receive, handlers.collect(answer))
        elif isinstance(answer, list):  # all of it at hand: every chunk built now, sent together
            ready: list[faults.Built] | None = handlers.built_ready(answer, builder, call, False, {})
        else:
            ready = None
            bodies = handlers.built(answer, builder, call, False, {})
            first = await sending.until_hang_up(receive, anext(bodies, None))  # a hang-up during a delay ends it
    finally:
        record.entry = gen.notes.get("entry")
    if not chat.stream:
        built = builder.build(chunk, final=True, stream=False, siblings=others)
        return _unary(printing.completion(built, chat.model, created), chunk)
    if first is None and not ready:
        ready = [(builder.build(Chunk(finish_reason="STOP"), final=True, stream=True), None)]
    if ready is not None:
        return faults.streamed_ready(_Events(printer), ready, BASE_HEADERS | _SSE_HEADERS)
    assert first is not None
    return Stream(faults.streamed(_Events(printer), first, bodies), BASE_HEADERS | _SSE_HEADERS)


def _unary(body: dict[str, Any], chunk: Chunk) -> Response:
    """A unary answer with the chunk's fault carried out, as the native wire carries it out (wire.faults)."""
    return faults.unary(orjson.dumps(body), BASE_HEADERS | {"content-type": JSON_TYPE}, chunk.fault)


def _is_final(native: dict[str, Any]) -> bool:
    if native.get("promptFeedback") and not native.get("candidates"):
        return True
    return any(isinstance(c, dict) and c.get("finishReason") for c in native.get("candidates") or [])


class _Events:
    """The SSE body (a framing.Framer): one chunk event per native chunk, then `data: [DONE]`; a failure after the
    first event is one error event and the end."""

    def __init__(self, printer: printing.ChunkPrinter) -> None:
        self.printer = printer

    def first(self, native: dict[str, Any]) -> bytes:
        return printing.sse_event(self.printer.chunk(native, _is_final(native)))

    next = first

    @staticmethod
    def failed(error: errors.ApiError) -> tuple[bytes, ...]:
        return (printing.stream_error(error),)

    @staticmethod
    def end() -> tuple[bytes, ...]:
        return (printing.DONE,)
