"""Veo: `:predictLongRunning` starts a video generation as a long-running operation; it is polled with
`GET {operation name}` on the Developer API (the operations room, wire/resources/operations.py) and with
`POST {model}:fetchPredictOperation {"operationName"}` on Vertex AI, as google-genai 3.6.1 does
(operations.py `get`, `_fetch_predict_videos_operation`).

The request is a PredictRequest (`instances: [{prompt, image?, lastFrame?, video?, referenceImages?}]`,
`parameters: {aspectRatio, durationSeconds, resolution, sampleCount, personGeneration, negativePrompt, seed,
storageUri, generateAudio, enhancePrompt}`); the engine answers it as a generateContent call (method
"predictLongRunning", the prompt and images as contents), in the background, so a script entry decides the
operation: its `delayMs` holds it pending that long, an `error` fails it, a `blockReason` filters every video
(`raiMediaFilteredCount`). Done, the operation's response holds the videos: on the Developer API as generated files
(`generateVideoResponse.generatedSamples[].video.uri`, downloadable through the Files API), on Vertex inline
(`videos[].bytesBase64Encoded`, or `gcsUri` under a storageUri). The videos are small valid MP4 containers of the
asked size and length (gemini_emulator.media.video).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import uuid
from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.media import images, video
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import VERTEX, Target
from gemini_emulator.stores.files import FilesFull
from gemini_emulator.stores.operations import Operation, OperationStore
from gemini_emulator.stores.operations_redis import RedisOperationStore
from gemini_emulator.wire import auth, handlers, validate
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.files import base_url

log = logging.getLogger("gemini_emulator")
KIND = "veo"
MAX_SAMPLES = 4
DURATIONS = (4, 5, 6, 7, 8)
DEVELOPER_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse"
VERTEX_TYPE = "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse"
_TASKS: set[asyncio.Task[None]] = set()  # background generations under way (kept referenced until done)
MAX_RUNNING = 256
MAX_RUNNING_PER_NAMESPACE = 32  # one key's share of MAX_RUNNING: a key past it gets its own 429, nobody else
_RUNNING: dict[str, int] = {}  # generations under way per namespace


def claims(ctx: handlers.Context, target: Target) -> bool:
    """Whether this call is Veo's: predictLongRunning (on any model: only Veo's serve it), fetchPredictOperation."""
    return target.method in ("fetchPredictOperation", "predictLongRunning")  # other models: the catalogue's 404


async def call(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> Response:
    record.rpc, record.model = target.method, target.model.removeprefix("models/")
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        body = await handlers.read_body(ctx, request, record)
        if target.method == "fetchPredictOperation":
            return await _fetch(ctx, target, record.namespace, body)
        body = validate.check_fields(body, "ImagenPredictRequest", target.backend, target.version)
        model = ctx.catalogue.resolve(
            target.model, target.method, target.version, target.backend, target.project, target.location
        )
        return await _start(ctx, request, target, record, model, body)
    except errors.ApiError as error:
        return handlers.error_response(error)


async def _fetch(ctx: handlers.Context, target: Target, namespace: str, body: dict[str, Any]) -> Response:
    unknown = sorted(set(body) - {"operationName", "operation_name"})
    if unknown:
        raise errors.payload_violations([errors.unknown_name(unknown[0], "")])
    name = body.get("operationName", body.get("operation_name"))
    if not isinstance(name, str) or not name:
        raise errors.invalid_argument("operationName is required.")
    shared = ctx.shared_operations
    op = await shared.get(namespace, name) if shared is not None else ctx.operations.get(namespace, name)
    if op is None or op.kind != KIND:
        raise errors.ApiError(404, f"Operation {name} not found.")
    return handlers.json_response(op.view())


class _Ask:
    """What one Veo call asks for."""

    def __init__(self, body: dict[str, Any]) -> None:
        instances = body.get("instances")
        if not isinstance(instances, list) or not instances or not isinstance(instances[0], dict):
            raise errors.invalid_argument("instances must hold one instance object.")
        instance = instances[0]
        params = body.get("parameters") or {}
        if not isinstance(params, dict):
            raise errors.invalid_argument("parameters must be an object.")
        self.params = params
        prompt = instance.get("prompt", "")
        self.parts: list[dict[str, Any]] = []
        for key in ("image", "lastFrame"):
            picture = instance.get(key)
            if isinstance(picture, dict):
                data = picture.get("bytesBase64Encoded") or picture.get("imageBytes")
                if isinstance(data, str) and data:
                    mime = str(picture.get("mimeType") or images.PNG_MIME)
                    self.parts.append({"inlineData": {"mimeType": mime, "data": data}})
        if not isinstance(prompt, str) or (not prompt.strip() and not self.parts):
            raise errors.invalid_argument("A prompt or an image is required.")
        self.prompt = prompt
        count = params.get("sampleCount", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_SAMPLES:
            raise errors.invalid_argument(f"sampleCount must be between 1 and {MAX_SAMPLES}.")
        self.count = count
        seconds = params.get("durationSeconds", 8)
        if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds not in DURATIONS:
            raise errors.invalid_argument(f"durationSeconds must be one of {', '.join(map(str, DURATIONS))}.")
        self.seconds = seconds
        aspect = params.get("aspectRatio", "16:9")
        if aspect not in ("16:9", "9:16"):
            raise errors.invalid_argument(f"Unsupported aspect ratio: {aspect}. Supported: 16:9, 9:16.")
        self.size = video.dimensions(str(params.get("resolution") or "720p"), str(aspect))


async def _start(
    ctx: handlers.Context, request: Incoming, target: Target, record: Record, model: str, body: dict[str, Any]
) -> Response:
    ask = _Ask(body)
    namespace = record.namespace
    if _RUNNING.get(namespace, 0) >= MAX_RUNNING_PER_NAMESPACE:
        raise errors.ApiError(
            429, f"gemini-emulator: at most {MAX_RUNNING_PER_NAMESPACE} video generations of one caller run at once."
        )
    if len(_TASKS) >= MAX_RUNNING:
        raise errors.ApiError(429, f"gemini-emulator: at most {MAX_RUNNING} video generations run at once.")
    generate = {"contents": [{"role": "user", "parts": [{"text": ask.prompt or "(image)"}, *ask.parts]}]}
    gen, _, _, answer = handlers.start_generation(ctx, target, model, generate, namespace, False, body)
    vertex = target.backend == VERTEX
    shared = ctx.shared_operations  # the Redis store: the operation polled through every process
    store: OperationStore | RedisOperationStore = shared if shared is not None else ctx.operations
    name, parent = None, f"models/{model}"  # the Developer API's: drawn under the model
    if vertex:
        where = f"projects/{target.project or 'project'}/locations/{target.location or 'us-central1'}"
        name, parent = f"{where}/publishers/google/models/{model}/operations/{uuid.uuid4()}", ""
    if shared is not None:  # leased: if this process dies before the result, a reader ends it ABANDONED
        op = await shared.create(namespace, KIND, name=name, parent=parent, hold=True, leased=True)
    else:
        op = ctx.operations.create(namespace, KIND, name=name, parent=parent, hold=True)
    base = base_url(request, ctx.settings.tls)

    async def run() -> None:
        if shared is None:
            await produce()
            return
        stop = asyncio.Event()
        keeper = asyncio.create_task(shared.keep(op, stop))  # the lease renewed while the engine answers
        try:
            await produce()
        finally:
            stop.set()
            await keeper

    async def produce() -> None:
        result: dict[str, Any]
        try:
            try:
                chunks = await handlers.collect(answer)
            finally:
                record.entry = gen.notes.get("entry")
            remaining = max(0.0, op.ready_at - op.clock())
            if any(c.block_reason for c in chunks):
                response = _filtered(vertex, ask.count)
            else:
                response = await _videos(ctx, namespace, gen.fingerprint, ask, vertex, base)
            result = {"response": response, "at": remaining}
        except errors.ApiError as error:
            result = {"error": error, "at": 0}
        except FilesFull as full:
            result = {"error": errors.ApiError(429, f"gemini-emulator: {full}"), "at": 0}
        try:
            done = store.complete(op, **result)
            if done is not None:
                await done
        except errors.ApiError:  # the shared store unreachable (its link logged why): the result cannot be kept
            log.error("a video generation's result was lost: the state store is unavailable")
            return
        if ctx.video_done is not None:  # webhooks: video.generated once the operation reports done
            ctx.video_done(op)

    task = asyncio.create_task(run())
    _TASKS.add(task)
    _RUNNING[namespace] = _RUNNING.get(namespace, 0) + 1

    def ended(done: asyncio.Task[None]) -> None:
        _TASKS.discard(done)
        left = _RUNNING.get(namespace, 1) - 1
        if left > 0:
            _RUNNING[namespace] = left
        else:
            _RUNNING.pop(namespace, None)

    task.add_done_callback(ended)
    return handlers.json_response(op.view())


def _filtered(vertex: bool, count: int) -> dict[str, Any]:
    reasons = ["Your prompt was blocked by the safety filters."]  # best-known wording
    if vertex:
        return {"@type": VERTEX_TYPE, "raiMediaFilteredCount": count, "raiMediaFilteredReasons": reasons}
    inner = {"raiMediaFilteredCount": count, "raiMediaFilteredReasons": reasons}
    return {"@type": DEVELOPER_TYPE, "generateVideoResponse": inner}


async def _videos(
    ctx: handlers.Context, namespace: str, seed: str, ask: _Ask, vertex: bool, base: str
) -> dict[str, Any]:
    clips = [video.mp4(*ask.size, ask.seconds, f"{seed}:{i}") for i in range(ask.count)]
    if vertex:
        storage = ask.params.get("storageUri")
        if isinstance(storage, str) and storage:
            items = [
                {"gcsUri": f"{storage.rstrip('/')}/sample_{i}.mp4", "mimeType": video.MP4_MIME}
                for i in range(len(clips))
            ]
        else:
            items = [{"bytesBase64Encoded": base64.b64encode(c).decode(), "mimeType": video.MP4_MIME} for c in clips]
        return {"@type": VERTEX_TYPE, "raiMediaFilteredCount": 0, "videos": items}
    samples = []
    for clip in clips:
        stored = await ctx.file_access.put(namespace, clip, video.MP4_MIME, source="GENERATED")  # Redis or here
        samples.append({"video": {"uri": f"{base}/v1beta/{stored.name}:download?alt=media"}})
    return {"@type": DEVELOPER_TYPE, "generateVideoResponse": {"generatedSamples": samples}}


def operation_of(ctx: handlers.Context, namespace: str, name: str) -> Operation | None:
    """A Veo operation of the namespace, for tests and the admin view."""
    op = ctx.operations.get(namespace, name)
    return op if op is not None and op.kind == KIND else None
