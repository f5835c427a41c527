"""Thin handlers: read the request, check it, ask the engine, hand the answer to printers and framers.

Order of checks follows production's front end: route, credential, body size, JSON, field names and
types, model, then the request's own rules.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.config import Settings
from gemini_emulator.protocol import enums, errors, framing, printers, tokens
from gemini_emulator.protocol.headers import BASE_HEADERS, SERVICE_TIER_HEADER
from gemini_emulator.protocol.routes import DEVELOPER, REGISTRIES, SERVED_METHODS, TUNED_FAMILIES, Target
from gemini_emulator.seam import (
    Chunk,
    Embedder,
    Engine,
    GenerateRequest,
    MethodAnswerer,
    ModelServer,
    ReadyAnswerer,
)
from gemini_emulator.seam.capabilities import Answer
from gemini_emulator.stores.agents import AgentStore
from gemini_emulator.stores.caches import CacheStore
from gemini_emulator.stores.caches_redis import RedisCacheStore
from gemini_emulator.stores.environments import EnvironmentStore
from gemini_emulator.stores.file_search import FileSearchStores
from gemini_emulator.stores.file_search_redis import RedisFileSearchStores
from gemini_emulator.stores.files import FileAccess, FileReader, FileStore
from gemini_emulator.stores.files_redis import RedisFileStore
from gemini_emulator.stores.models_redis import SharedModels
from gemini_emulator.stores.operations import OperationStore
from gemini_emulator.stores.operations_redis import RedisOperationStore
from gemini_emulator.stores.records_redis import RedisAgentStore, RedisEnvironmentStore, RedisVoices
from gemini_emulator.stores.voices import Voices
from gemini_emulator.wire import (
    auth,
    catalogue,
    embeddings,
    faults,
    model_rules,
    responses,
    schema_rules,
    sending,
    tool_rules,
    validate,
    voice_rules,
)
from gemini_emulator.wire.bodies import BodyReader
from gemini_emulator.wire.draining import Drain, shutting_down
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.media import compute_tokens
from gemini_emulator.wire.resources import cached, filedata, searched
from gemini_emulator.wire.sending import Body, Stream

_MESSAGE_FOR = {
    "countTokens": "CountTokensRequest",
    "computeTokens": "ComputeTokensRequest",
    "embedContent": "EmbedContentRequest",  # not in wire_fields.json yet: names are not checked
    "batchEmbedContents": "BatchEmbedContentsRequest",
    "predict": "PredictRequest",
}
# Response headers an engine's answer may decide (Chunk.headers); the wire keeps the rest (content type, framing).
ENGINE_HEADERS = (SERVICE_TIER_HEADER,)
_PAGE_DEFAULT, _PAGE_MAX = 50, 1000
log = logging.getLogger("gemini_emulator")
_DEVELOPER_EXTRA = {SERVICE_TIER_HEADER: responses.SERVICE_TIER}  # Developer API answers add this header


class ModelFacts(NamedTuple):
    """What the handlers read of a catalogue model on every generate call, read once."""

    outputs: tuple[str, ...]  # the responseModalities its answers carry by default
    tts: bool  # a speech model: a request must name its modalities
    thinking: bool  # the model thinks (thought tokens, signatures)


class CallPlan(NamedTuple):
    """What `call` derives from its target alone, worked out once per target (Context.plan)."""

    model_named: str  # the model as the URL names it, without "models/" (the journal's)
    served: bool  # a method the wire serves (SERVED_METHODS); others only an engine that holds the answer
    message: str  # the request message the body is checked as
    model: str | None  # the catalogue id serving the call; None: resolved on each call (a refusal, a Registry URL)
    generates: bool  # generateContent or streamGenerateContent (else countTokens, computeTokens, embeddings)
    streams: bool  # streamGenerateContent


_PLANS_MAX = 1024  # targets: clients call the same few URLs


class Context:
    """Per-app state the handlers need: settings, the engine, the catalogue."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self.catalogue = catalogue.load()
        self.base_catalogue = self.catalogue  # with the `--models` file's models: what the admin API's are added to
        self.user_models: list[Any] = []  # the admin API's entries (PUT /__emulator/models)
        self.user_model_ids: list[str] = []  # ... and the ids they serve
        # On `--store redis://...` (app.py): the admin API's models in Redis, this process's copy built from
        # `models_version` (stores/models_redis.py: how a process learns of changes without a round trip of its own)
        self.shared_models: SharedModels | None = None
        self.models_version = 0
        self._models_refresh: asyncio.Task[bool] | None = None
        self.bodies = BodyReader(settings.max_body_bytes, settings.body_timeout)
        self.drain = Drain()
        # The engine's optional capabilities, asked once (an isinstance of a runtime-checkable protocol is not cheap)
        # answers at once, when it can (handlers.answer_of); may answer countTokens & co. itself (_engine_answer)
        self.ready_engine = engine if isinstance(engine, ReadyAnswerer) else None
        self.method_engine = engine if isinstance(engine, MethodAnswerer) else None
        self._facts: dict[str, ModelFacts] = {}  # by catalogue model: as many as the catalogue holds
        # by target, at most _PLANS_MAX: by its id (a frozen dataclass hashes all its fields in Python, on each
        # look-up), with the target kept beside its plan, so that no other target takes its id while it is here
        self._plans: dict[int, tuple[Target, CallPlan]] = {}
        # cachedContents, per namespace (wire/resources/caches.py serves them); on `--store redis://` app.py sets
        # both to the Redis store (stores/caches_redis.py), whose entry a generate call reads before it is built
        self.caches: CacheStore | RedisCacheStore = CacheStore()
        self.shared_caches: RedisCacheStore | None = None
        self.voices: Voices | RedisVoices = Voices()  # custom voices, per namespace (wire/resources/voices.py)
        # managed agents and their sandboxes, per namespace (wire/resources/agents.py, environments.py serve them;
        # interactions and triggers name them)
        self.agents: AgentStore | RedisAgentStore = AgentStore()  # app.create_app: on Redis with --store redis://
        self.environments: EnvironmentStore | RedisEnvironmentStore = EnvironmentStore()
        # long-running operations (wire/resources/operations.py serves them; batches and media make them)
        self.operations = OperationStore(default_delay_s=settings.operation_delay_ms / 1000)
        # ... and on `--store redis://` (set by app.py) Veo's, shared by every process (stores/operations_redis.py)
        self.shared_operations: RedisOperationStore | None = None
        # file search stores and their documents (wire/resources/file_search.py serves them)
        self.file_search = FileSearchStores(budget_bytes=settings.file_search_budget_bytes)
        # ... or, on `--store redis://...`, in Redis, shared by every process (app.py sets it; the room and
        # searched.py take it in place of `file_search`)
        self.shared_search: RedisFileSearchStores | None = None
        self.files = FileStore(  # uploaded and generated files (wire/resources/files.py serves them)
            budget_bytes=settings.files_budget_bytes,
            memory_bytes=settings.files_memory_bytes,
            video_processing_s=settings.file_processing_ms / 1000,
            replica=settings.replica,  # names the upload ids it hands out, for a proxy's routing (docs/scaling.md)
        )
        # On `--store redis://...` (app.py): every process's files, which the files room serves instead
        self.shared_files: RedisFileStore | None = None
        # what other rooms read and make files through: the store above, or this process's own
        self.file_access: FileReader = FileAccess(self.files)
        # A tuned model's calls (routes.TUNED_FAMILIES): the catalogue id its tuning job's base model is, for the
        # caller's namespace, or the surface's 404; set by the tunings room (wire/resources/tunings.py).
        self.tuned_models: Callable[[str, Target], str | Awaitable[str]] | None = None  # on Redis: awaited
        # On Redis, a Developer tuning create's operation as printed from its job (wire/resources/tunings.py).
        self.tuning_operation: Callable[[str, str, str], Awaitable[dict[str, Any] | None]] | None = None
        # Webhook events (wire/resources/webhooks.py, set by app.py): a Veo operation given its result, a background
        # interaction ended (its namespace and view).
        self.video_done: Callable[[Any], None] | None = None
        # a background interaction's end: (namespace, its view, its webhook_config's deliveries.Dynamic or None)
        self.interaction_ended: Callable[[str, dict[str, Any], Any], None] | None = None

    def start_models(self, entries: Any, where: str) -> list[str]:
        """The server's own models (the `--models` file) added to the catalogue it starts with."""
        self.base_catalogue, named = catalogue.with_models(self.base_catalogue, entries, where)
        self._use(self.base_catalogue)
        return named

    def set_models(self, entries: Any) -> list[str]:
        """The admin API's models on top of the server's (ValueError saying what is wrong); [] takes them away."""
        listed = catalogue.entry_list(entries)
        adding, named = catalogue.with_models(self.base_catalogue, listed)
        self.user_models, self.user_model_ids = listed, named
        self._use(adding)
        return named

    async def refresh_models(self) -> bool:
        """On Redis: the admin API's models as Redis holds them now (one round trip; the entries fetched only when
        their version moved); whether this process's catalogue changed. The 503 when Redis cannot be reached."""
        shared = self.shared_models
        if shared is None:
            return False
        known = self.models_version
        version, entries = await shared.fetch(known)
        if entries is None:
            return False
        if self.models_version == version:  # another refresh (or this process's own change) applied it meanwhile
            return True
        try:
            self.set_models(entries)
        except ValueError:  # the entries name a model this process's catalogue lacks (another --models file)
            log.warning("models set through another process do not fit this one's catalogue; kept its own")
        self.models_version = version
        return True

    def saw_models(self, version: int) -> asyncio.Task[bool] | None:
        """RedisLink.on_models: a journal write saw the models' version. Another than this process's is fetched
        (the task returned, which the journal awaits before its writers' answers go out: the request that saw the
        change was served by the catalogue this process had, every later one by the new)."""
        if version == self.models_version:
            return None
        if self._models_refresh is None or self._models_refresh.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # a write made outside the loop (a fixture's thread): the next one tells
                return None
            self._models_refresh = loop.create_task(self._refresh_quietly())
        return self._models_refresh

    async def _refresh_quietly(self) -> bool:
        try:
            return await self.refresh_models()
        except errors.ApiError:  # Redis gone (logged by the link): the next write tells again
            return False

    def _use(self, serving: catalogue.Catalogue) -> None:
        """Serve from `serving`: what was worked out from the catalogue before is forgotten."""
        self.catalogue = serving
        self._facts.clear()
        self._plans.clear()

    def model_facts(self, model: str) -> ModelFacts | None:
        """The catalogue's facts about `model`; None for a model the catalogue does not hold."""
        facts = self._facts.get(model)
        if facts is None and model in self.catalogue.models:
            outputs = tuple(self.catalogue.output_modalities(model)[0])
            thinking = bool(self.catalogue.models[model].get("thinking"))
            facts = self._facts[model] = ModelFacts(outputs, self.catalogue.kind(model) == "tts", thinking)
        return facts

    def plan(self, target: Target) -> CallPlan:
        """`call`'s facts about `target` (CallPlan), worked out on its first call."""
        known = self._plans.get(id(target))
        if known is not None and known[0] is target:
            return known[1]
        model = None
        if target.family not in REGISTRIES:
            try:
                model = _catalogue_model(self, target)
            except errors.ApiError:  # refused on every call, unless the engine serves it (`_resolve`)
                pass
        message = _MESSAGE_FOR.get(target.method, "GenerateContentRequest")
        named = target.model.removeprefix("models/")
        generates = target.method in ("generateContent", "streamGenerateContent")
        streams = target.method == "streamGenerateContent"
        plan = CallPlan(named, target.method in SERVED_METHODS, message, model, generates, streams)
        if len(self._plans) >= _PLANS_MAX:
            self._plans.clear()
        self._plans[id(target)] = (target, plan)
        return plan


def _response(content: bytes, status: int, content_type: str, headers: dict[str, str]) -> Response:
    # The content type is set verbatim: Starlette would append "; charset=utf-8" to text/event-stream.
    return Body(content, status, headers | {"content-type": content_type})


class ModelsView:
    """The user's models as the admin API shows, sets and clears them (admin.api.Models): global, on top of the
    catalogue and the `--models` file. On Redis (`ctx.shared_models`) its methods are coroutines (redis.asyncio,
    awaited by the admin API): a change is checked here, then stored in Redis for every process."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def show(self) -> Any:
        if self.ctx.shared_models is not None:
            return self._show_shared()
        return self._shown()

    def _shown(self) -> dict[str, Any]:
        return {"models": self.ctx.user_models, "serving": self.ctx.user_model_ids}

    def set(self, body: Any) -> Any:
        if self.ctx.shared_models is not None:
            listed = catalogue.entry_list(body)
            catalogue.with_models(self.ctx.base_catalogue, listed)  # the ValueError saying what is wrong, first
            return self._store(listed)
        self.ctx.set_models(body)
        return self._shown()

    def clear(self) -> Any:
        return self.set([])

    async def _show_shared(self) -> dict[str, Any]:
        await self.ctx.refresh_models()
        return self._shown()

    async def _store(self, listed: list[Any]) -> dict[str, Any]:
        shared = self.ctx.shared_models
        assert shared is not None
        version = await shared.put(listed)
        self.ctx.set_models(listed)
        self.ctx.models_version = version
        return self._shown()


async def read_body(ctx: Context, request: Incoming, record: Record) -> Any:
    """The request's JSON body, within the size and time limits, journaled as sent (its text when it is not
    JSON, before the 400 for it is raised)."""
    return await _journaled_body(await ctx.bodies.read(request.receive, request.headers), record)


async def _journaled_body(raw: bytes, record: Record) -> Any:
    """`read_body` once the bytes are in: the body parsed and journaled."""
    try:
        body = await validate.parsed_body(raw)
    except errors.ApiError:
        record.body = raw.decode("utf-8", "replace")
        raise
    record.body = body
    return body


def json_response(body: Any, status: int = 200, extra: dict[str, str] | None = None) -> Response:
    headers = _unary_headers(extra) if extra else _PLAIN_UNARY_HEADERS
    return Body(printers.pretty(body), status, headers)


def printed_response(printed: bytes, status: int = 200) -> Response:
    """A unary body printed already (`printers.pretty`): what a store keeps as bytes."""
    return Body(printed, status, _PLAIN_UNARY_HEADERS)


def error_response(error: errors.ApiError, stream_mode: str = "") -> Response:
    """An error before any answer bytes: pretty envelope, array-wrapped for JSON-array streams."""
    headers = BASE_HEADERS | error.headers
    if stream_mode == "array":
        return _response(framing.array_error(error), error.code, framing.JSON_TYPE, headers)
    # js-genai's recording of a 404 on an alt=sse call kept Content-Type: text/event-stream.
    media = framing.SSE_TYPE if stream_mode == "sse" else framing.JSON_TYPE
    return _response(printers.pretty(error.envelope()), error.code, media, headers)


def stream_mode(query: Mapping[str, str], streams: bool) -> str:
    """How a call's answer is framed: "" (unary), "sse" (`alt=sse`) or "array" (a JSON-array stream)."""
    if not streams:
        return ""
    return "sse" if query.get("alt") == "sse" else "array"


async def call(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    """POST {model}:{method}; `record` is this request's journal record, filled in as facts are known."""
    query, headers = request.query, request.headers
    known = ctx._plans.get(id(target))  # ctx.plan, less a call for a target seen before
    plan = known[1] if known is not None and known[0] is target else ctx.plan(target)
    mode = stream_mode(query, plan.streams) if plan.streams else ""
    record.rpc, record.model = target.method, plan.model_named
    settings = ctx.settings
    try:
        credential = auth.authenticate(target, headers, query, settings.api_key)
        record.namespace = namespace = auth.namespace_of(headers, credential, settings.admin_token)
        # read_body, with one coroutine less; the normalised body below is a copy where respelled
        raw = await ctx.bodies.read(request.receive, headers)
        sent = await _journaled_body(raw, record)
        if not plan.served:  # only an engine that holds the answer serves these: it sees the body as sent
            answered = await _engine_answer(ctx, _probe(target, sent, sent, namespace, bool(mode)), record)
            if answered is None:
                raise errors.not_implemented(f"the {target.method} method")
            return json_response(answered)
        # lowerCamelCase from here; a big body's walk off the loop, as its parse was (validate.parsed_body)
        check = (target.backend, target.version)
        if len(raw) <= validate.OFF_LOOP_BYTES:
            body = validate.check_fields(sent, plan.message, *check)
        else:
            body = await asyncio.to_thread(validate.check_fields, sent, plan.message, *check)
        if plan.model is not None:
            model, refused = plan.model, None
        else:
            model, refused = await _resolve_call(ctx, target, body, sent, namespace, bool(mode))
        int_enums = "$alt" in query and enums.wants_int_enums(query["$alt"])
        await read_shared(ctx, target, body, namespace)
        if not plan.generates:
            return await _other_method(ctx, target, model, refused, body, sent, record, int_enums)
        try:
            gen, builder, extra = prepare_generation(ctx, target, model, body, namespace, bool(mode), sent)
        except voice_rules.Unchecked:  # the Redis store: a stored voice, looked up before the engine is asked
            later: list[str] = []
            gen, builder, extra = prepare_generation(ctx, target, model, body, namespace, bool(mode), sent, later)
            await voice_rules.confirm(ctx.voices, namespace, later)
        if not mode:
            try:
                answer = await answer_of(ctx, gen)
                if isinstance(answer, list):
                    chunk, *others = merge(answer)
                else:
                    chunk, *others = await sending.until_hang_up(request.receive, _collect(answer))
            finally:
                record.entry = gen.notes.get("entry")
            body = builder.build(chunk, True, False, others)
            wire = extra if chunk.headers is None else _answer_headers(extra, chunk.headers)
            return _unary(body, chunk, target, int_enums, wire)
        first: faults.Built | None = None
        clean: list[dict[str, Any]] | None = None
        try:
            answer = await answer_of(ctx, gen)
            if isinstance(answer, list):  # all of it at hand: every body built now, sent together
                ready: list[faults.Built] | None = None
                if answer and _faultless(answer):
                    clean = built_bodies(answer, builder, target, int_enums, extra)
                else:
                    ready = built_ready(answer, builder, target, int_enums, extra)
            else:
                ready = None
                chunks = _built(answer, builder, target, int_enums, extra)
                first = await sending.until_hang_up(request.receive, anext(chunks, None))
        finally:
            record.entry = gen.notes.get("entry")
        if (
            first is None and not ready and clean is None
        ):  # an engine that yielded nothing still gets a well-formed, finished stream
            stop = builder.build(Chunk(finish_reason="STOP"), final=True, stream=True)
            ready = [(_encode(stop, target, int_enums), None)]
    except errors.ApiError as error:
        return error_response(error, mode)
    frame = framing.sse if mode == "sse" else framing.json_array
    headers = _STREAM_HEADERS[mode] if not extra else _stream_headers(mode, extra)
    if clean is not None:
        return faults.whole_ready(frame, clean, headers)
    if ready is not None:
        return faults.streamed_ready(frame, ready, headers)
    assert first is not None
    return Stream(faults.streamed(frame, first, chunks), headers)


async def _other_method(
    ctx: Context,
    target: Target,
    model: str,
    refused: errors.ApiError | None,
    body: dict[str, Any],
    sent: dict[str, Any],
    record: Record,
    int_enums: bool,
) -> Response:
    """countTokens, computeTokens and the embedding calls (the other methods the wire serves), once the body is
    checked (`sent`: as it was sent) and the model resolved."""
    answered = await _engine_answer(ctx, _probe(target, body, sent, record.namespace, False, model), record)
    if answered is not None:
        return json_response(answered)
    if refused is not None:  # the engine vouched for the model but has no answer after all
        raise refused
    if target.method == "computeTokens":  # Vertex only: the Developer API's catalogue refused it above
        contents = validate.check_contents(body.get("contents"), "ComputeTokensRequest")
        limit = ctx.catalogue.models.get(model, {}).get("inputTokenLimit") or compute_tokens.DEFAULT_LIMIT
        compute_tokens.check_size(contents, limit)
        return printed_response(await asyncio.to_thread(compute_tokens.printed, contents))
    if target.method == "countTokens":
        return _count_tokens(ctx, target, model, body, record.namespace, int_enums)
    if not isinstance(ctx.engine, Embedder):  # an embedding call: embedContent, batchEmbedContents, predict
        raise errors.not_implemented(f"embeddings with the {ctx.engine.name} engine")
    return json_response(embeddings.answer(ctx.engine, target, model, body))


def prepare_generation(
    ctx: Context,
    target: Target,
    model: str,
    body: dict[str, Any],
    namespace: str,
    stream: bool,
    sent: dict[str, Any] | None = None,
    voices_later: list[str] | None = None,
) -> tuple[GenerateRequest, responses.ResponseBuilder, dict[str, str]]:
    """A checked generate call, ready for the engine: its request, the response builder and the answer's wire
    headers (a stream's first chunk may change them). `body` is validated and normalised
    (validate.check_fields); `sent` is the body as the client sent it, when that is another object. On the Redis
    store a stored voice the body names raises voice_rules.Unchecked, or with `voices_later` is added to it, for
    the caller to look up (voice_rules.confirm)."""
    gen, usage, text_only = _generate_request(ctx, target, model, body, sent, namespace, stream=stream)
    if not text_only or len(body) > 1:  # plain text contents alone break none of these rules
        model_rules.check(model, gen.thinking, body, target.backend, text_only)
        schema_rules.check(body)
        tool_rules.check(body, text_only)
        speech = (body.get("generationConfig") or {}).get("speechConfig")
        if speech is not None:
            voice_rules.check_speech(ctx.voices, namespace, speech, voices_later)
    builder = responses.ResponseBuilder(
        target.backend,
        model,
        gen.fingerprint,
        usage,
        bool(gen.tools) and responses.server_tools(gen.tools),
        ctx.catalogue.image_tokens,
    )
    # X-Gemini-Service-Tier: on unary Developer answers only (docs/conformance.md: every byte-exact 2026-06
    # unary trace has it; no stream recorded since serviceTier appeared has it); an engine's first chunk
    # may still set or drop it.
    extra = dict(_DEVELOPER_EXTRA) if target.backend == DEVELOPER and not stream else {}
    return gen, builder, extra


async def answer_of(ctx: Context, gen: GenerateRequest) -> Answer:
    """The engine's answer to `gen`: a list when the engine has all of it at once (seam.ReadyAnswerer; awaited
    when the engine's answer is an awaitable, as on the Redis store), else its chunks as they come, which end, at
    a shutdown's deadline, with an error (wire/draining.py)."""
    if ctx.shared_search is not None and isinstance(gen.retrieved, searched.Pending):
        return ctx.drain.until(_searched_then(ctx, gen, gen.retrieved, ctx.ready_engine))
    ready = ctx.ready_engine
    if ready is not None:
        if ctx.drain.ended:
            raise shutting_down()
        answer = ready.answer_ready(gen)
        if isinstance(answer, list):
            return answer
        if inspect.isawaitable(answer):
            answer = await answer
            if isinstance(answer, list):
                return answer
        return ctx.drain.until(answer)
    return ctx.drain.until(ctx.engine.generate(gen))


def start_generation(
    ctx: Context,
    target: Target,
    model: str,
    body: dict[str, Any],
    namespace: str,
    stream: bool,
    sent: dict[str, Any] | None = None,
) -> tuple[GenerateRequest, responses.ResponseBuilder, dict[str, str], AsyncIterator[Chunk]]:
    """A checked generate call handed to the engine (prepare_generation), with the engine's chunks as they come;
    the engine is asked when they are first awaited. The OpenAI-compatible surface (wire.openai_compat), batches,
    media, Interactions and Live come through here, with the bodies they translated."""
    try:
        gen, builder, extra = prepare_generation(ctx, target, model, body, namespace, stream, sent)
    except voice_rules.Unchecked:  # the Redis store: the stored voices looked up when the chunks are first awaited
        later: list[str] = []
        gen, builder, extra = prepare_generation(ctx, target, model, body, namespace, stream, sent, later)
        if ctx.shared_search is not None and isinstance(gen.retrieved, searched.Pending):
            searched_first = _searched_then(ctx, gen, gen.retrieved, None)
            return gen, builder, extra, _voices_first(ctx, namespace, later, ctx.drain.until(searched_first))
        return gen, builder, extra, _voices_first(ctx, namespace, later, ctx.drain.until(ctx.engine.generate(gen)))
    if ctx.shared_search is not None and isinstance(gen.retrieved, searched.Pending):
        return gen, builder, extra, ctx.drain.until(_searched_then(ctx, gen, gen.retrieved, None))
    # The chunks end, at a shutdown's deadline, with an error (wire/draining.py).
    return gen, builder, extra, ctx.drain.until(ctx.engine.generate(gen))


async def _voices_first(
    ctx: Context, namespace: str, names: list[str], chunks: AsyncIterator[Chunk]
) -> AsyncIterator[Chunk]:
    """`chunks`, once the stored voices `names` are found (else their 400 where the first chunk was awaited)."""
    await voice_rules.confirm(ctx.voices, namespace, names)
    async for chunk in chunks:
        yield chunk


async def _searched_then(
    ctx: Context, gen: GenerateRequest, pending: searched.Pending, ready: ReadyAnswerer | None
) -> AsyncIterator[Chunk]:
    """The engine's chunks once the request's fileSearch tools have searched the stores in Redis (what the
    engine is handed as `gen.retrieved`); a store that is not the caller's is the error before any chunk."""
    gen.retrieved = await pending.resolve()
    answer = ready.answer_ready(gen) if ready is not None else ctx.engine.generate(gen)
    if not isinstance(answer, list) and inspect.isawaitable(answer):
        answer = await answer
    if isinstance(answer, list):
        for chunk in answer:
            yield chunk
    else:
        async for chunk in answer:
            yield chunk


async def read_shared(ctx: Context, target: Target, body: dict[str, Any], namespace: str) -> None:
    """On the Redis store, what a generate-shaped body names and the call's sync checks and build then look up,
    read first (awaited, never on the event loop's time): the files its fileData uris name (filedata.check) and
    the cached content it names (the builder's). Every path that hands a caller's body to prepare_generation or
    start_generation calls it; on the memory store it returns at once."""
    if ctx.shared_files is not None:
        await filedata.prefetch(ctx.shared_files, target, body, namespace)
    if ctx.shared_caches is not None:
        await cached.fetch(ctx.shared_caches, target, body, namespace)


async def resolve_model(ctx: Context, target: Target, body: dict[str, Any], namespace: str, stream: bool) -> str:
    """The catalogue id serving a generate call (or the model as written, for an engine that serves it)."""
    model, _ = await _resolve(ctx, target, lambda: _probe(target, body, body, namespace, stream))
    return model


def _unary(body: dict[str, Any], chunk: Chunk, target: Target, int_enums: bool, extra: dict[str, str]) -> Response:
    """A unary answer, with the chunk's fault carried out (emulator/wire/faults.py)."""
    content = printers.pretty(body if chunk.raw is not None or not int_enums else _encode(body, target, True))
    if not extra:
        headers = _PLAIN_UNARY_HEADERS
    else:
        headers = _DEVELOPER_UNARY_HEADERS if extra == _DEVELOPER_EXTRA else _unary_headers(extra)
    return faults.unary(content, headers, chunk.fault)


def _unary_headers(extra: dict[str, str]) -> dict[str, str]:
    """A whole JSON answer's headers (a unary answer, json_response), with its own (`extra`)."""
    return BASE_HEADERS | extra | {"content-type": framing.JSON_TYPE}


def _stream_headers(mode: str, extra: dict[str, str]) -> dict[str, str]:
    """A streamed answer's headers (`mode` "sse" or "array"), with the answer's own (`extra`)."""
    media = framing.SSE_TYPE if mode == "sse" else framing.JSON_TYPE
    return BASE_HEADERS | extra | (framing.SSE_HEADERS if mode == "sse" else {}) | {"content-type": media}


# The usual answers' headers, laid out once (shared: the responses only read them).
_PLAIN_UNARY_HEADERS = _unary_headers({})
_DEVELOPER_UNARY_HEADERS = _unary_headers(_DEVELOPER_EXTRA)
_STREAM_HEADERS = {mode: _stream_headers(mode, {}) for mode in ("sse", "array")}


def _answer_headers(wire: dict[str, str], given: dict[str, str] | None) -> dict[str, str]:
    """The wire's answer headers with an engine's own (Chunk.headers) applied: for each header an engine may
    decide, its value, or no header when the engine's headers leave it out."""
    if given is None:
        return wire
    kept = {k: v for k, v in wire.items() if k not in ENGINE_HEADERS}
    return kept | {k: given[k] for k in ENGINE_HEADERS if k in given}


def _probe(
    target: Target, body: dict[str, Any], sent: dict[str, Any], namespace: str, stream: bool, model: str | None = None
) -> GenerateRequest:
    """The request as an engine's optional capabilities see it, before the method's own checks: `model` (the
    catalogue id serving it) or else the model as written, whatever contents the body holds. The body is
    normalised, except for the methods the wire does not serve (computeTokens...), which it hands over as sent."""
    inner = body.get("generateContentRequest")
    contents = body.get("contents") or (inner.get("contents") if isinstance(inner, dict) else None)
    # GenerateRequest's fields in their order (see _generate_request)
    return GenerateRequest(
        model if model is not None else target.model.removeprefix("models/"),  # model
        target.model,  # requested_model
        target.backend,  # backend
        stream,  # stream
        namespace,  # namespace
        [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else [],  # contents
        None,  # system_instruction
        {},  # generation_config
        [],  # tools
        None,  # tool_config
        [],  # safety_settings
        body,  # body
        "",  # fingerprint
        target.method,  # method
        target.version,  # version
        {},  # notes
        False,  # thinking
        0,  # prompt_tokens
        sent,  # sent
    )


async def _resolve_call(
    ctx: Context, target: Target, body: dict[str, Any], sent: dict[str, Any], namespace: str, stream: bool
) -> tuple[str, errors.ApiError | None]:
    """`_resolve` for `call` (the probe built only when an engine capability is asked)."""
    if target.family in TUNED_FAMILIES and ctx.tuned_models is not None:  # a tuned model of the caller's
        model = ctx.tuned_models(namespace, target)
        return (model if isinstance(model, str) else await model), None
    return await _resolve(ctx, target, lambda: _probe(target, body, sent, namespace, stream))


async def _resolve(
    ctx: Context, target: Target, probe: Callable[[], GenerateRequest]
) -> tuple[str, errors.ApiError | None]:
    """The catalogue id serving the call, and None; or, for a model the catalogue refuses but the engine
    serves (ModelServer, awaited when its answer is an awaitable), the model as written and the catalogue's
    refusal."""
    if target.family in REGISTRIES:  # the Vertex Model Registry holds no publisher model (docs/conformance.md)
        raise errors.vertex_registry_model_not_found(target.project, target.location, target.model)
    model = ctx.plan(target).model
    if model is not None:
        return model, None
    try:  # the catalogue's refusal, raised afresh for each call
        return _catalogue_model(ctx, target), None
    except errors.ApiError as refusal:
        if ctx.shared_models is not None and await ctx.refresh_models():  # added through another process?
            try:
                return _catalogue_model(ctx, target), None
            except errors.ApiError:
                pass
        if isinstance(ctx.engine, ModelServer):
            served = ctx.engine.serves_model(asked := probe())
            if served if isinstance(served, bool) else await served:
                return asked.model, refusal
        raise


def _catalogue_model(ctx: Context, target: Target) -> str:
    """The catalogue id serving `target`'s call, or the catalogue's 404."""
    return ctx.catalogue.resolve(
        target.model, target.method, target.version, target.backend, target.project, target.location
    )


async def engine_answer(
    ctx: Context, target: Target, model: str, body: dict[str, Any], record: Record
) -> dict[str, Any] | None:
    """The engine's own answer (MethodAnswerer) to a method the wire computes, asked as the native path asks it:
    `body` as sent, `model` the catalogue id serving it. None when the engine has none."""
    probe = _probe(target, body, body, record.namespace, False, model)
    return await _engine_answer(ctx, probe, record)


async def _engine_answer(ctx: Context, probe: GenerateRequest, record: Record) -> dict[str, Any] | None:
    """The engine's own answer to a method the wire computes (MethodAnswerer), or None."""
    engine = ctx.method_engine
    if engine is None:
        return None
    try:
        answer = engine.answer_method(probe)
        return await answer if inspect.isawaitable(answer) else answer
    finally:
        record.entry = probe.notes.get("entry")


def _generate_request(
    ctx: Context,
    target: Target,
    model: str,
    body: dict[str, Any],
    sent: dict[str, Any] | None,
    namespace: str,
    stream: bool,
) -> tuple[GenerateRequest, responses.Usage, bool]:
    """The engine's view of the request, the prompt's token usage (one estimator for both), and whether every
    part of the request's contents is plain text (validate.contents_checked)."""
    contents, text_only = validate.contents_checked(body.get("contents"))
    if not text_only:  # fileData uris name the caller's own files
        filedata.check(ctx.files, target, contents, namespace)
    if len(body) == 1:  # contents alone, the usual request: what the look-ups below would find
        system: Any = None
        tools: list[Any] = []
        tool_config: Any = None
        cache: cached.CacheUse | None = None
        config: dict[str, Any] = {}
        safety: list[Any] = []
    else:
        system = body.get("systemInstruction")
        tools = body.get("tools") or []
        tool_config = body.get("toolConfig")
        cache = cached.resolve(ctx.caches, target, model, body, namespace) if "cachedContent" in body else None
        config = body.get("generationConfig") or {}
        safety = body.get("safetySettings") or []
    usage = _usage(target, contents, system, tools)
    facts = ctx._facts.get(model) or ctx.model_facts(model)  # model_facts, less a call for a model seen before
    if facts is None:  # a model only an engine serves (a recording of a retired one): its answer says what it holds
        outputs = tuple(str(m) for m in config.get("responseModalities") or ["TEXT"])
    elif not config.get("responseModalities") and not facts.tts:  # the model's own default
        outputs = facts.outputs
    else:
        outputs = model_rules.output_modalities(model, ctx.catalogue.output_modalities(model), config, facts.tts)
    prompt_tokens = usage.prompt
    if not prompt_tokens:  # an empty-text prompt still reports 1 (2 of 2 VCR recordings, Developer)
        usage.prompt_text = prompt_tokens = 1
    if cache is not None:  # the model reads the cache first; usage counts it in the prompt and as cached
        contents = cache.contents + contents
        system, tools, tool_config = cache.system_instruction, cache.tools, cache.tool_config
        _add_cached(usage, cache)
        prompt_tokens = usage.prompt
    if not tools:
        retrieved: list[dict[str, Any]] = []
    elif ctx.shared_search is None:
        retrieved = searched.retrieve(ctx.file_search, target, tools, contents, namespace)
    else:  # in Redis: searched when the engine is first asked (answer_of, start_generation), awaited
        retrieved = searched.pending(ctx.shared_search, target, tools, contents, namespace)
    # GenerateRequest's fields in their order: a call by keywords costs twice as much (CPython gathers them in a
    # dict first); tests/wire/test_positional_builds.py holds these calls to their keyword spelling.
    request = GenerateRequest(
        model,  # model
        target.model,  # requested_model
        target.backend,  # backend
        stream,  # stream
        namespace,  # namespace
        contents,  # contents
        system,  # system_instruction
        config,  # generation_config
        tools,  # tools
        tool_config,  # tool_config
        safety,  # safety_settings
        body,  # body
        fingerprint(model, body),  # fingerprint
        target.method,  # method
        target.version,  # version
        {},  # notes
        facts is not None and facts.thinking,  # thinking
        prompt_tokens,  # prompt_tokens
        sent,  # sent
        outputs,  # output_modalities
        None,  # image_size
        retrieved,  # retrieved: what fileSearch tools found
    )
    return request, usage, text_only


def fingerprint(model: str, body: dict[str, Any]) -> str:
    """Stable digest of what was asked: key order, whitespace and (the body being normalised) the spelling of
    field names do not matter."""
    digest = hashlib.sha256(model.encode() + b"\0" + printers.canonical(body))
    return digest.hexdigest()


def _usage(target: Target, contents: list[Any], system: Any, tools: list[Any] | None) -> responses.Usage:
    text, media = tokens.count_prompt(contents, system, tools)
    billable = tokens.billable_characters(contents, system) if target.backend != DEVELOPER else 0
    return responses.Usage(text, media, 0, billable)  # prompt_text, prompt_media, candidates, billable_chars


def _count_tokens(
    ctx: Context, target: Target, model: str, body: dict[str, Any], namespace: str, int_enums: bool
) -> Response:
    inner = body.get("generateContentRequest") or {}
    message = "CountTokensRequest" if "contents" in body else "GenerateContentRequest"
    contents, text_only = validate.contents_checked(body.get("contents") or inner.get("contents"), message)
    if not text_only:
        filedata.check(ctx.files, target, contents, namespace)
    system = body.get("systemInstruction") or inner.get("systemInstruction")
    tools = body.get("tools") or inner.get("tools")
    named = isinstance(inner, dict) and "cachedContent" in inner
    cache = cached.resolve(ctx.caches, target, model, inner, namespace) if named else None
    usage = _usage(target, contents, system, tools)
    if cache is not None:
        _add_cached(usage, cache)
    answer = responses.count_tokens(target.backend, usage)
    return json_response(_encode(answer, target, True) if int_enums else answer)


def _add_cached(usage: responses.Usage, cache: cached.CacheUse) -> None:
    """A cache's tokens into a prompt's usage: counted in the prompt, and as cached."""
    usage.cached_text, usage.cached_media = cache.entry.tokens_text, cache.entry.tokens_media
    usage.prompt_text += usage.cached_text
    usage.prompt_media += usage.cached_media


def _encode(answer: dict[str, Any], target: Target, int_enums: bool) -> dict[str, Any]:
    return enums.to_ints(answer, target.backend) if int_enums else answer


_KEPT = (
    "finish_reason",
    "finish_message",
    "safety_ratings",
    "block_reason",
    "usage",
    "grounding",
    "fault",
    "headers",
)


async def _collect(chunks: AsyncIterator[Chunk]) -> list[Chunk]:
    """A unary answer from an engine's chunks as they come (see `merge`); the chunks after one whose fault sends
    nothing of it are not asked for."""
    taken: list[Chunk] = []
    async for chunk in chunks:
        taken.append(chunk)
        if chunk.fault is not None and chunk.fault.before_chunk and not chunk.parts:
            break
    return merge(taken)


def merge(chunks: list[Chunk]) -> list[Chunk]:
    """A unary answer from an engine's chunks, one merged chunk per candidate index (first: index 0):
    parts concatenated (adjacent plain text merged), the last finish details and fault kept; raw chunks
    merge into the last raw response's first candidate."""
    if len(chunks) == 1 and chunks[0].raw is None and len(chunks[0].parts) <= 1:  # the usual answer: one chunk
        only = chunks[0]
        finish = only.finish_reason if only.block_reason is not None else only.finish_reason or "STOP"
        return [  # Chunk's fields in their order (cheaper than by keywords; tests/wire/test_merge.py holds it)
            Chunk(
                [dict(part) for part in only.parts],  # parts
                finish,  # finish_reason
                only.finish_message,  # finish_message
                only.safety_ratings,  # safety_ratings
                only.block_reason,  # block_reason
                only.usage,  # usage
                None,  # raw
                only.index,  # index
                only.grounding,  # grounding
                only.fault,  # fault
                only.headers,  # headers
            )
        ]
    return merge_all(chunks)


def merge_all(chunks: list[Chunk]) -> list[Chunk]:
    """`merge` worked out in full, for any answer (tests/wire/test_merge.py holds the one-chunk shortcut to it)."""
    merged: dict[int, Chunk] = {}
    raws: list[dict[str, Any]] = []
    for chunk in chunks:
        if chunk.raw is not None:
            raws.append(chunk.raw)
        target = merged.get(chunk.index)
        if target is None:
            target = merged[chunk.index] = Chunk(index=chunk.index)
        for part in chunk.parts:
            last = target.parts[-1] if target.parts else None
            if last is not None and len(last) == 1 and len(part) == 1 and "text" in last and "text" in part:
                target.parts[-1] = {"text": last["text"] + part["text"]}
            else:
                target.parts.append(dict(part))
        for name in _KEPT:
            value = getattr(chunk, name)
            if value is not None:
                setattr(target, name, value)
        if chunk.fault is not None and chunk.fault.before_chunk and not chunk.parts:
            break
    answer = [merged[i] for i in sorted(merged)] or [Chunk()]
    first = answer[0]
    if raws:
        first.raw = _merge_raw(raws)
    for chunk in answer:
        if chunk.raw is None and chunk.block_reason is None:
            chunk.finish_reason = chunk.finish_reason or "STOP"  # a unary answer always says how it ended
    first.fault = next((c.fault for c in answer if c.fault), None)
    return answer


def _merge_raw(raws: list[dict[str, Any]]) -> dict[str, Any]:
    """Streamed raw chunks as one unary response: the last chunk, its first candidate holding every part."""
    if len(raws) == 1:
        return raws[0]
    parts = [p for r in raws for c in r.get("candidates", [])[:1] for p in c.get("content", {}).get("parts", [])]
    last = dict(raws[-1])
    if last.get("candidates"):
        candidate = dict(last["candidates"][0])
        candidate["content"] = dict(candidate.get("content", {})) | {"parts": parts}
        last["candidates"] = [candidate, *last["candidates"][1:]]
    return last


async def _built(
    chunks: AsyncIterator[Chunk],
    builder: responses.ResponseBuilder,
    target: Target,
    int_enums: bool,
    headers: dict[str, str],
) -> AsyncIterator[faults.Built]:
    """Engine chunks as response bodies, each with its chunk's fault (faults.streamed carries them out), and
    the first chunk's own headers into `headers` (read once the first body is out). The final body is the one
    whose chunk carries a finish reason (or a block reason); a chunk whose fault sends nothing of it ends the
    answer with no body."""
    first = True
    async for chunk in chunks:
        if first:
            _take_headers(chunk, headers)
            first = False
        if chunk.fault is not None and chunk.fault.before_chunk:
            yield None, chunk.fault
            return
        yield _built_body(chunk, builder, target, int_enums)


def built_ready(
    chunks: list[Chunk], builder: responses.ResponseBuilder, target: Target, int_enums: bool, headers: dict[str, str]
) -> list[faults.Built]:
    """`_built` for an answer that is all at hand (a list of chunks): every body at once."""
    if chunks:
        _take_headers(chunks[0], headers)
    out: list[faults.Built] = []
    for chunk in chunks:
        if chunk.fault is not None and chunk.fault.before_chunk:
            out.append((None, chunk.fault))
            break
        out.append(_built_body(chunk, builder, target, int_enums))
    return out


def _faultless(chunks: list[Chunk]) -> bool:
    """No chunk of a ready answer carries a fault: nothing to break, `built_bodies` serves it."""
    for chunk in chunks:
        if chunk.fault is not None:
            return False
    return True


def built_bodies(
    chunks: list[Chunk], builder: responses.ResponseBuilder, target: Target, int_enums: bool, headers: dict[str, str]
) -> list[dict[str, Any]]:
    """`built_ready` for a non-empty answer none of whose chunks carries a fault: the bodies alone."""
    _take_headers(chunks[0], headers)
    return [_body(chunk, builder, target, int_enums) for chunk in chunks]


def _take_headers(first: Chunk, headers: dict[str, str]) -> None:
    """The first chunk's own headers (Chunk.headers) applied to the answer's `headers`, in place."""
    if first.headers is not None:
        answered = _answer_headers(headers, first.headers)
        headers.clear()
        headers.update(answered)


def _built_body(chunk: Chunk, builder: responses.ResponseBuilder, target: Target, int_enums: bool) -> faults.Built:
    return _body(chunk, builder, target, int_enums), chunk.fault


def _body(chunk: Chunk, builder: responses.ResponseBuilder, target: Target, int_enums: bool) -> dict[str, Any]:
    """One streamed chunk's body, its enums as numbers when asked (a raw chunk is sent as it is)."""
    final = chunk.finish_reason is not None or chunk.block_reason is not None
    body = builder.build(chunk, final, True)
    if int_enums and chunk.raw is None:
        body = enums.to_ints(body, target.backend)
    return body


async def get_model(ctx: Context, request: Incoming, target: Target) -> Response:
    try:
        auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        if ctx.shared_models is not None:  # the models added through any process, as Redis holds them now
            await ctx.refresh_models()
        if target.backend != DEVELOPER:
            model = ctx.catalogue.get(target.model, target.version)
            return json_response({"name": "publishers/google/models/" + model["name"].removeprefix("models/")})
        return json_response(ctx.catalogue.get(target.model, target.version))
    except errors.ApiError as error:
        return error_response(error)


async def list_models(ctx: Context, request: Incoming, target: Target) -> Response:
    try:
        auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        if ctx.shared_models is not None:
            await ctx.refresh_models()
        models = ctx.catalogue.listing()
        if target.backend != DEVELOPER:
            return json_response(responses.vertex_model_list(models))
        size_text = request.query.get("pageSize", "")
        token = request.query.get("pageToken", "")
        if size_text and not validate.int_text_ok("int32", size_text):
            raise errors.payload_violations([errors.invalid_value("page_size", "TYPE_INT32", f'"{size_text}"')])
        size = int(size_text) if size_text else _PAGE_DEFAULT
        size = _PAGE_DEFAULT if size <= 0 else min(size, _PAGE_MAX)
        if not responses.valid_page_token(token):
            raise errors.invalid_argument()
        return json_response(responses.model_list(models, size, token))
    except errors.ApiError as error:
        return error_response(error)


collect = _collect  # for wire.openai_compat: one merged chunk per candidate
built = _built  # for wire.openai_compat: engine chunks as native response bodies, with their faults
