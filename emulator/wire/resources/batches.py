"""The batches room (Developer API): `models/M:batchGenerateContent` and `models/M:asyncBatchEmbedContent` make a
job, `batches/{id}` get / delete, `batches` list, `batches/{id}:cancel`.

A job is a long-running Operation (stores/operations.py) named `batches/{id}` whose metadata is a
GenerateContentBatch (EmbedContentBatch) with its `state` walking BATCH_STATE_PENDING, _RUNNING, then _SUCCEEDED
(or _FAILED, _CANCELLED, _EXPIRED) on the caller's plan (stores/batches.py; `PUT /__emulator/batches`). Each
request is answered the way a generateContent (embedContent) call would be, through handlers.start_generation:
the same validation, script entries, engine and zero-config answers, so a test scripts its batch items as it
scripts its calls. A request production would refuse, or one a script answers with an error, becomes that item's
`error` (a google.rpc.Status). Requests are answered on the first read that finds the job past RUNNING, one job at
a time over the whole server, yielding to the event loop between items, so a job of 10,000 requests holds no other
caller; nothing runs unasked. Requests are kept as JSON bytes and each answer as its printed (pretty) bytes, made
once while the job is answered, so a view splices them into its page with bytes operations (`printed`) instead
of printing thousands of answers (millions of floats, for embeddings) in one go. Both are counted: a caller's
jobs hold at most MAX_BYTES_PER_NAMESPACE, all jobs together MAX_BYTES, and a job whose answers would pass either
fails with RESOURCE_EXHAUSTED rather than growing. A file job reads its input a line at a time (a line longer than the
request body limit is that item's error) and writes its answers into the results file as they come.

Shapes: google-genai 3.6.1's batches.py (`_BatchJob_from_mldev` reads `metadata.{displayName, state, createTime,
endTime, updateTime, model, output}`; `output.inlinedResponses.inlinedResponses[]` or `output.responsesFile`; list
reads `operations`); the Gemini API reference (GenerateContentBatch fields, BatchStats); no capture of production
exists (docs/conformance.md, "Batches").
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, printers
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.seam import Embedder
from gemini_emulator.stores.batches import FINAL_STATES, BatchJob, Plan, Plans
from gemini_emulator.stores.batches_redis import (
    CHUNK_BYTES,
    CHUNK_ITEMS,
    WAIT_S,
    BudgetPassed,
    RedisBatchStore,
    budget_error,
)
from gemini_emulator.stores.caches import stamp
from gemini_emulator.stores.files import FilesFull, FileTooLarge, SpoolClosed
from gemini_emulator.stores.operations import CANCELLED_STATUS, Operation, OperationStore, error_status, new_id
from gemini_emulator.wire import auth, deliveries, embeddings, handlers, validate
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import cached, filedata

log = logging.getLogger("gemini_emulator")
METHODS = frozenset({"batchGenerateContent", "asyncBatchEmbedContent"})
MAX_REQUESTS = 10_000  # per job (production's bound is the 20 MB request; the body limit applies first)
MAX_BYTES_PER_NAMESPACE = 256 << 20  # requests and answers held by one caller's jobs
MAX_BYTES = 1 << 30  # ... by every caller's jobs together
PAGE_DEFAULT, PAGE_MAX = 50, 1000
_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main."
_KIND = "batch"
FAILED_STATUS = {"code": 13, "message": "The batch failed."}  # best-known (docs/conformance.md)
EXPIRED_STATUS = {"code": 4, "message": "The batch expired before it could complete."}  # best-known
_NOT_FOUND = "Requested entity was not found."  # Google's generic 404 text (best-known for batches)


class Batches:
    """The room's state: the operations it makes (shared with the other rooms), each caller's plan, and the lock
    that answers one job at a time (so the byte bounds each job checks against are exact). With `shared` (the
    Redis store, `--store redis://...`) the jobs live there instead, seen and answered by every process
    (stores/batches_redis.py); `operations` then serves only the other rooms."""

    def __init__(
        self, operations: OperationStore, plans: Plans | None = None, shared: RedisBatchStore | None = None
    ) -> None:
        self.operations = operations
        self.plans = plans or Plans()
        self.shared = shared
        self.answering = asyncio.Lock()
        self.on_created: Callable[[Operation], None] | None = None  # webhooks watch new jobs (app.py sets it)

    async def find(self, namespace: str, name: str) -> Operation | None:
        """A job by name (None: no such job of this caller's)."""
        if self.shared is not None:
            return await self.shared.get(namespace, name)
        op = self.operations.get(namespace, name)
        return op if op is not None and "job" in op.extra else None

    def held(self, namespace: str | None = None) -> int:
        """Bytes held by one caller's jobs, or by every caller's."""
        if self.shared is not None:
            return self.shared.held(namespace)
        ops = _jobs(self, namespace) if namespace is not None else self.operations.all()
        return sum(o.extra["job"].size for o in ops if "job" in o.extra)


def _caller(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> str:
    credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
    record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
    return record.namespace


async def create(ctx: handlers.Context, room: Batches, request: Incoming, target: Target, record: Record) -> Response:
    """POST models/{m}:batchGenerateContent or :asyncBatchEmbedContent: a new job, as production's Operation."""
    embed = target.method == "asyncBatchEmbedContent"
    record.rpc, record.model = target.method, target.model.removeprefix("models/")
    try:
        namespace = _caller(ctx, request, target, record)
        body = await handlers.read_body(ctx, request, record)
        message = "AsyncBatchEmbedContentRequest" if embed else "BatchGenerateContentRequest"
        body = validate.check_fields(body, message, target.backend, target.version)
        model = ctx.catalogue.resolve(target.model, target.method, target.version, target.backend)
        job = _job(body, model, embed, message)
        hosts = deliveries.webhook_hosts(ctx.settings.webhook_hosts)
        dynamic = deliveries.dynamic_config(body["batch"].get("webhookConfig"), hosts, "batch.webhook_config")
        if job.input_file:  # the caller's own file, whole (its lines are read when the job runs)
            stored = await ctx.file_access.get(namespace, job.input_file)
            if stored is None:
                raise filedata.no_permission(job.input_file.removeprefix("files/"))
            if stored.state != "ACTIVE":
                raise filedata.not_active(stored.id)
        if room.shared is not None:
            return handlers.json_response(view(await _create_shared(room, namespace, job, dynamic)))
        used = room.held(namespace)
        if used + job.size > MAX_BYTES_PER_NAMESPACE:
            raise errors.ApiError(
                429,
                f"gemini-emulator: this caller's batches would hold {used + job.size} bytes, past the emulator's "
                f"{MAX_BYTES_PER_NAMESPACE} per caller; delete some first.",
            )
        if room.held() + job.size > MAX_BYTES:
            raise errors.ApiError(
                429, f"gemini-emulator: the emulator's batches would hold more than {MAX_BYTES} bytes."
            )
        job.plan = room.plans.get(namespace)
        job.created_ns = time.time_ns()
        plan = job.plan
        steps = [(0.0, "PENDING"), (plan.pending_s, "RUNNING"), (plan.pending_s + plan.running_s, plan.state)]
        op = room.operations.create(namespace, _KIND, name=_new_name(room, namespace), steps=steps, hold=plan.hold)
        op.extra["job"] = job
        if dynamic is not None:
            op.extra["webhook"] = dynamic  # its events go to these URIs instead of the registered webhooks
        op.printer = view
        if room.on_created is not None:
            room.on_created(op)
        return handlers.json_response(view(op))
    except errors.ApiError as error:
        return handlers.error_response(error)


async def _create_shared(room: Batches, namespace: str, job: BatchJob, dynamic: Any) -> Operation:
    """A new job in the Redis store: its budgets, plan and bound checked there, in one call."""
    assert room.shared is not None
    for _ in range(100):  # a name already taken (40 random characters: never, in practice) draws another
        try:
            op = await room.shared.create(
                namespace, f"batches/{new_id(40)}", job, room.plans.default, dynamic, MAX_BYTES_PER_NAMESPACE, MAX_BYTES
            )
        except BudgetPassed as passed:
            raise budget_error(passed, MAX_BYTES_PER_NAMESPACE, MAX_BYTES) from None
        if op is not None:
            if dynamic is not None:
                op.extra["webhook"] = dynamic
            op.printer = view
            if room.on_created is not None:
                room.on_created(op)
            return op
    raise errors.internal()


def _new_name(room: Batches, namespace: str) -> str:
    name = f"batches/{new_id(40)}"
    while room.operations.get(namespace, name) is not None:
        name = f"batches/{new_id(40)}"
    return name


def _job(body: dict[str, Any], model: str, embed: bool, message: str) -> BatchJob:
    """The job a (validated, normalised) create body asks for, or production's 400 (best-known wording)."""
    batch = body.get("batch")
    where = f"{message}.batch"
    if not isinstance(batch, dict):
        raise errors.field_errors(f"{message}.", ["batch: batch is required"])
    source = batch.get("inputConfig")
    if not isinstance(source, dict):
        raise errors.field_errors(f"{where}.", ["input_config: input_config is required"])
    requests_box, file_name = source.get("requests"), source.get("fileName")
    if requests_box is not None and file_name is not None:
        raise errors.oneof_already_set("source", "fileName")
    display = str(batch.get("displayName") or "")
    if file_name is not None:
        if not isinstance(file_name, str) or not file_name.startswith("files/"):
            raise errors.field_errors(f"{where}.", ["input_config.file_name: must be a file name (files/ID)"])
        return BatchJob("embed" if embed else "generate", model, display, input_file=file_name, size=len(file_name))
    items = requests_box.get("requests") if isinstance(requests_box, dict) else None
    if not items:
        raise errors.field_errors(f"{where}.", ["input_config: requests or file_name must be given"])
    if len(items) > MAX_REQUESTS:
        raise errors.field_errors(f"{where}.", [f"input_config.requests: at most {MAX_REQUESTS} requests"])
    kept = [orjson.dumps(i if isinstance(i, dict) else {}) for i in items]
    size = sum(len(i) for i in kept)
    return BatchJob("embed" if embed else "generate", model, display, requests=kept, size=size)


def _jobs(room: Batches, namespace: str) -> list[Operation]:
    ops, _ = room.operations.list(namespace, kind=_KIND, page_size=PAGE_MAX)
    return [o for o in ops if "job" in o.extra]


async def serve(ctx: handlers.Context, room: Batches, request: Incoming, target: Target, record: Record) -> Response:
    """GET batches, GET/DELETE batches/{id}, POST batches/{id}:cancel."""
    record.rpc = f"batches.{target.method}"
    try:
        namespace = _caller(ctx, request, target, record)
        if target.method == "list":
            return handlers.printed_response(await _list(ctx, room, request.query, namespace))
        name = f"batches/{_resource_id(target)}"
        op = await room.find(namespace, name)
        if op is None:
            raise errors.ApiError(404, _NOT_FOUND)
        record.model = op.extra["job"].model
        if target.method == "get":
            await settle(ctx, room, op)
            slots: dict[str, list[bytes]] = {}
            shown = view(op, slots)
            return handlers.printed_response(printed(shown, slots))
        if target.method == "cancel":
            validate.check_fields(
                await handlers.read_body(ctx, request, record), "CancelRequest", target.backend, target.version
            )
            if room.shared is not None:
                if not await room.shared.cancel(namespace, name, dict(CANCELLED_STATUS)):
                    raise errors.ApiError(404, _NOT_FOUND)
            elif not op.done():
                room.operations.cancel(namespace, name)
                op.extra["job"].ended_ns = time.time_ns()
            return handlers.json_response({})
        if room.shared is not None:
            if not await room.shared.delete(namespace, name):
                raise errors.ApiError(404, _NOT_FOUND)
            return handlers.json_response({})
        room.operations.delete(namespace, name)
        return handlers.json_response({})
    except errors.ApiError as error:
        return handlers.error_response(error)


def _resource_id(target: Target) -> str:
    return target.resource


async def _list(ctx: handlers.Context, room: Batches, query: Mapping[str, str], namespace: str) -> bytes:
    size_text = query.get("pageSize", "")
    if size_text and not validate.int_text_ok("int32", size_text):
        raise errors.payload_violations([errors.invalid_value("page_size", "TYPE_INT32", f'"{size_text}"')])
    size = int(size_text) if size_text else PAGE_DEFAULT
    size = PAGE_DEFAULT if size <= 0 else min(size, PAGE_MAX)
    token = query.get("pageToken", "")
    if room.shared is not None:
        page, following = await room.shared.page(namespace, size, token)
    else:
        page, following = room.operations.list(namespace, kind=_KIND, page_size=size, page_token=token)
    shown = []
    slots: dict[str, list[bytes]] = {}
    for op in page:
        if "job" in op.extra:
            await settle(ctx, room, op)
            shown.append(view(op, slots))
    out: dict[str, Any] = {}
    if shown:
        out["operations"] = shown
    if following:
        out["nextPageToken"] = following
    return printed(out, slots)


async def settle(ctx: handlers.Context, room: Batches, op: Operation) -> None:
    """Answer a job's requests once its schedule is past RUNNING (first read wins; later reads wait for it)."""
    job: BatchJob = op.extra["job"]
    if op.cancelled or op.has_result or op.held or op.clock() < op.ready_at:
        return
    if room.shared is not None:
        await _settle_shared(ctx, room, room.shared, op)
        return
    async with room.answering:
        if op.has_result or op.cancelled:
            return
        state = job.plan.state
        if state == "SUCCEEDED" and job.input_file:
            await _answer_file(ctx, room, op, job)
        elif state == "SUCCEEDED":
            await _answer_inlined(ctx, room, op, job)
        elif state == "CANCELLED":
            room.operations.complete(op, error=dict(CANCELLED_STATUS))
            op.cancelled = True
        else:
            status = job.plan.error or (EXPIRED_STATUS if state == "EXPIRED" else FAILED_STATUS)
            job.requests = []
            room.operations.complete(op, error=status)
        job.ended_ns = time.time_ns()


_ANSWERED = {"@type": _TYPE + "GenerateContentBatchOutput"}  # op.response once answered: view() prints the output


async def refresh(room: Batches, op: Operation) -> bool:
    """Bring `op` up to date (the Redis store: as another process may have changed it); False once it is gone."""
    if room.shared is None:
        return room.operations.get(op.namespace, op.name) is op
    fresh = await room.shared.get(op.namespace, op.name)
    if fresh is None:
        return False
    extra = op.extra
    op.__dict__.update(fresh.__dict__)
    op.extra = extra | fresh.extra
    op.printer = view
    return True


async def _settle_shared(ctx: handlers.Context, room: Batches, shared: RedisBatchStore, op: Operation) -> None:
    """`settle` on the Redis store: the plan's end written once by whoever reads first, or the answers computed
    by the one process that claims the job; a read that finds another process answering waits for it (WAIT_S,
    polled), then shows what there is (RUNNING)."""
    deadline = time.monotonic() + WAIT_S
    pause = 0.02
    while True:
        job: BatchJob = op.extra["job"]
        state = job.plan.state
        if state == "CANCELLED":
            await shared.finish(op, dict(CANCELLED_STATUS), cancelled=True, drop_requests=False)
        elif state != "SUCCEEDED":
            status = job.plan.error or (EXPIRED_STATUS if state == "EXPIRED" else FAILED_STATUS)
            await shared.finish(op, status, cancelled=False, drop_requests=True)
        else:
            requests = await shared.claim(op)
            if requests is not None:
                await _answer_shared(ctx, shared, op, job, requests)
        if not await refresh(room, op) or op.has_result or op.cancelled or time.monotonic() >= deadline:
            return
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.2)


async def _answer_shared(
    ctx: handlers.Context, shared: RedisBatchStore, op: Operation, job: BatchJob, requests: list[bytes]
) -> None:
    """Answer a claimed job: each request in turn, the loop served between them, the answers stored in chunks
    (each reserved against the byte budgets in Redis), then committed; a chunk the claim no longer covers
    (cancelled, deleted, the lease lost) ends it storing nothing more."""
    if job.input_file:
        await _answer_file_shared(ctx, shared, op, job)
        return
    chunk: list[bytes] = []
    count = good = pending = 0
    for i, raw in enumerate(requests):
        answered = await _answer(ctx, op.namespace, job, i, orjson.loads(raw))
        good += "response" in answered
        count += 1
        shown = printers.pretty(answered)[:-1]  # its trailing newline left out: the view joins them
        chunk.append(shown)
        pending += len(shown)
        if (pending >= CHUNK_BYTES or len(chunk) >= CHUNK_ITEMS) and not await _store(shared, op, chunk):
            return
        if len(chunk) == 0:
            pending = 0
        await asyncio.sleep(0)  # everyone else's requests between two items
    if chunk and not await _store(shared, op, chunk):
        return
    await shared.commit(op, _ANSWERED, (count, good), "", failed=False)


async def _store(shared: RedisBatchStore, op: Operation, chunk: list[bytes]) -> bool:
    """Store a chunk of answers (emptying `chunk`); False when answering must stop (the job failed, or gone)."""
    stored = await shared.store(op, chunk, MAX_BYTES_PER_NAMESPACE, MAX_BYTES)
    chunk.clear()
    if stored == 1:
        return True
    if stored in (-1, -3):
        mine = f"{MAX_BYTES_PER_NAMESPACE} bytes of batches per caller"
        bound = mine if stored == -1 else f"{MAX_BYTES} bytes of batches in all"
        why = {"code": 8, "message": f"gemini-emulator: the batch's answers would pass the emulator's {bound}."}
        await shared.commit(op, why, None, "", failed=True)
    return False


async def _answer_file_shared(ctx: handlers.Context, shared: RedisBatchStore, op: Operation, job: BatchJob) -> None:
    """A file job on the Redis store: as `_answer_file`, the input read from (and the answers written to) the
    files on Redis (ctx.shared_files: every process's), a chunk at a time."""
    files = ctx.shared_files
    assert files is not None  # the Redis store holds both batches and files
    stored = await files.get(op.namespace, job.input_file)
    if stored is None:
        gone = error_status(filedata.no_permission(job.input_file[len("files/") :]))
        await shared.commit(op, gone, None, "", failed=True)
        return
    spool = files.spool()
    count = good = 0
    try:
        async for line in _alines(files.chunks(stored), ctx.settings.max_body_bytes):
            if count >= MAX_REQUESTS:
                break
            answered = await _answer_line(ctx, op, job, count, line)
            good += "response" in answered
            count += 1
            await spool.write(orjson.dumps(answered) + b"\n")
            await asyncio.sleep(0)
        result = await files.store(op.namespace, spool, "application/jsonl", f"{op.name}-responses", source="GENERATED")
    except (FilesFull, FileTooLarge, SpoolClosed):
        await spool.discard()
        why = {"code": 8, "message": "gemini-emulator: no room in the Files byte budget for the batch's answers."}
        await shared.commit(op, why, None, "", failed=True)
        return
    assert result is not None  # a new id is never taken
    if not await shared.commit(op, _ANSWERED, (count, good), result.name, failed=False):
        await files.delete(op.namespace, result.name)  # cancelled or deleted meanwhile: the answers go too


async def _alines(chunks: AsyncIterator[bytes], limit: int) -> AsyncIterator[bytes | None]:
    """`_lines` over chunks read from Redis."""
    pending = bytearray()
    too_long = False
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if too_long or len(pending) + end - start > limit:
                yield None
            else:
                pending += chunk[start:end]
                if pending.strip():
                    yield bytes(pending)
            pending.clear()
            too_long = False
            start = end + 1
        if not too_long:
            pending += chunk[start:]
            if len(pending) > limit:
                pending.clear()
                too_long = True
    if too_long:
        yield None
    elif pending.strip():
        yield bytes(pending)


async def _answer_inlined(ctx: handlers.Context, room: Batches, op: Operation, job: BatchJob) -> None:
    """An inlined job: each request answered in turn, the loop served between them, the answers kept as JSON
    bytes while they fit the byte bounds (else the job fails, RESOURCE_EXHAUSTED). `room.answering` is held."""
    mine, everyone = room.held(op.namespace) - job.size, room.held() - job.size
    results: list[bytes] = []
    held = good = 0
    for i, raw in enumerate(job.requests):
        if _abandoned(room, op):
            return
        answered = await _answer(ctx, op.namespace, job, i, orjson.loads(raw))
        good += "response" in answered
        shown = printers.pretty(answered)[:-1]  # its trailing newline left out: the view joins them
        held += len(shown)
        if mine + held > MAX_BYTES_PER_NAMESPACE or everyone + held > MAX_BYTES:
            _no_room(room, op, job, f"the batch's answers would pass the emulator's {_bound(mine, everyone, held)}")
            return
        results.append(shown)
        await asyncio.sleep(0)  # everyone else's requests between two items
    job.results, job.requests, job.size, job.counts = results, [], held, (len(results), good)
    room.operations.complete(op, response=_ANSWERED)


def _abandoned(room: Batches, op: Operation) -> bool:
    """The job was cancelled or deleted while it was being answered: asking the engine more is wasted."""
    return op.cancelled or room.operations.get(op.namespace, op.name) is not op


def _bound(mine: int, everyone: int, held: int) -> str:
    if mine + held > MAX_BYTES_PER_NAMESPACE:
        return f"{MAX_BYTES_PER_NAMESPACE} bytes of batches per caller"
    return f"{MAX_BYTES} bytes of batches in all"


def _no_room(room: Batches, op: Operation, job: BatchJob, why: str) -> None:
    """The job fails for want of room (RESOURCE_EXHAUSTED), holding nothing."""
    job.requests, job.results, job.size, job.outcome = [], None, 0, "FAILED"
    room.operations.complete(op, error={"code": 8, "message": f"gemini-emulator: {why}."})


async def _answer_file(ctx: handlers.Context, room: Batches, op: Operation, job: BatchJob) -> None:
    """A file job: each line of the input file ({"key", "request"}) answered, the answers ({"key", "response"} or
    {"key", "error"}) one per line in a new file of the caller's, named in `output.responsesFile`. Lines are read
    and answers written as they come, the loop served between them. An input file gone by then, or no room for
    the answers, fails the job."""
    stored = ctx.files.get(op.namespace, job.input_file)
    if stored is None:
        job.outcome = "FAILED"
        room.operations.complete(op, error=error_status(filedata.no_permission(job.input_file[len("files/") :])))
        return
    spool = ctx.files.spool()
    count = good = 0
    try:
        for i, line in enumerate(_lines(ctx.files.iter_bytes(stored), ctx.settings.max_body_bytes)):
            if i >= MAX_REQUESTS or _abandoned(room, op):
                break
            answered = await _answer_line(ctx, op, job, i, line)
            good += "response" in answered
            count += 1
            spool.write(orjson.dumps(answered) + b"\n")
            await asyncio.sleep(0)  # everyone else's requests between two lines
        if _abandoned(room, op):
            spool.discard()
            return
        job.counts = (count, good)
        result = ctx.files.store(op.namespace, spool, "application/jsonl", f"{op.name}-responses", source="GENERATED")
    except (FilesFull, FileTooLarge):
        spool.discard()
        _no_room(room, op, job, "no room in the Files byte budget for the batch's answers")
        return
    job.output_file = result.name
    room.operations.complete(op, response=_ANSWERED)


def _lines(chunks: Iterator[bytes], limit: int) -> Iterator[bytes | None]:
    """The non-blank lines of a file read in chunks; None for a line longer than `limit` bytes (never held)."""
    pending = bytearray()
    too_long = False
    for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if too_long or len(pending) + end - start > limit:
                yield None
            else:
                pending += chunk[start:end]
                if pending.strip():
                    yield bytes(pending)
            pending.clear()
            too_long = False
            start = end + 1
        if not too_long:
            pending += chunk[start:]
            if len(pending) > limit:
                pending.clear()
                too_long = True
    if too_long:
        yield None
    elif pending.strip():
        yield bytes(pending)


async def _answer_line(ctx: handlers.Context, op: Operation, job: BatchJob, index: int, line: bytes | None) -> Any:
    """One input line's answer: {"key"?, "response"} or {"key"?, "error"}."""
    where = f"Line {index + 1} of {job.input_file}"
    if line is None:
        message = f"{where} is longer than the {ctx.settings.max_body_bytes} bytes a request may hold."
        return {"error": {"code": 3, "message": message}}
    try:
        validate.check_containers(line)
        item = orjson.loads(line)
    except errors.ApiError as refused:
        return {"error": {"code": 3, "message": f"{where}: {refused.message}"}}
    except orjson.JSONDecodeError:
        item = None
    if not isinstance(item, dict):
        return {"error": {"code": 3, "message": f"{where} is not a JSON object."}}
    answered = await _answer(ctx, op.namespace, job, index, {k: v for k, v in item.items() if k != "metadata"})
    return ({"key": item["key"]} if "key" in item else {}) | answered


async def _answer(
    ctx: handlers.Context, namespace: str, job: BatchJob, index: int, item: dict[str, Any]
) -> dict[str, Any]:
    """One request's result: {"response": ...} or {"error": Status}, then its metadata as given."""
    request = item.get("request")
    out: dict[str, Any] = {}
    try:
        if not isinstance(request, dict):
            raise errors.field_errors("InlinedRequest.", ["request: request is required"])
        if job.kind == "embed":
            out["response"] = _embed(ctx, job.model, request)
        else:
            out["response"] = await _generate(ctx, namespace, job.model, request)
    except errors.ApiError as error:
        # {code, message} without details: google-genai 3.6.1 types JobError.details as strings, so a Status with
        # detail objects (a quota error's Help, RetryInfo...) would not parse (docs/conformance.md).
        out = {"error": {k: v for k, v in error_status(error).items() if k != "details"}}
    except Exception:  # an engine's own failure fails its item, not the read that ran the job
        log.exception("batch item %d of a %s job failed", index, job.kind)
        out = {"error": {"code": 13, "message": errors.INTERNAL}}
    if "metadata" in item:
        out["metadata"] = item["metadata"]
    return out


async def _generate(ctx: handlers.Context, namespace: str, model: str, request: dict[str, Any]) -> dict[str, Any]:
    """A generateContent answer to one batch request, as the native unary path builds it."""
    target = Target("call", DEVELOPER, "developer", "v1beta", model=model, method="generateContent")
    sent = {k: v for k, v in request.items() if k != "model"}
    body = validate.check_fields(sent, "GenerateContentRequest", DEVELOPER, "v1beta")
    if ctx.shared_files is not None:  # on Redis: the files its fileData names, for filedata.check
        await filedata.prefetch(ctx.shared_files, target, body, namespace)
    if ctx.shared_caches is not None:  # a cache on the Redis store, read before the call is built
        await cached.fetch(ctx.shared_caches, target, body, namespace)
    gen, builder, _, answer = handlers.start_generation(ctx, target, model, body, namespace, False, request)
    chunk, *others = await handlers.collect(answer)
    if chunk.fault is not None:  # a dropped or cut connection has no place in a batch: the item fails
        raise errors.internal()
    return builder.build(chunk, final=True, stream=False, siblings=others)


def _embed(ctx: handlers.Context, model: str, request: dict[str, Any]) -> dict[str, Any]:
    """An embedContent answer to one batch request."""
    if not isinstance(ctx.engine, Embedder):
        raise errors.not_implemented(f"embeddings with the {ctx.engine.name} engine")
    target = Target("call", DEVELOPER, "developer", "v1beta", model=model, method="embedContent")
    body = validate.check_fields(request, "EmbedContentRequest", DEVELOPER, "v1beta")
    return embeddings.answer(ctx.engine, target, model, body)


def _output(job: BatchJob, typed: bool, answers: Any) -> dict[str, Any]:
    """The job's output (GenerateContentBatchOutput): inlined responses (`answers`: the list, or its slot), or the
    responses file."""
    kind = "EmbedContentBatchOutput" if job.kind == "embed" else "GenerateContentBatchOutput"
    out: dict[str, Any] = {"@type": _TYPE + kind} if typed else {}
    if job.output_file:
        out["responsesFile"] = job.output_file
    else:
        out["inlinedResponses"] = {"inlinedResponses": answers}
    return out


def state_of(op: Operation) -> str:
    """A job's state by the clock (PENDING, RUNNING, or its final state once answered)."""
    return _state(op)


def _state(op: Operation) -> str:
    if op.cancelled:
        return "CANCELLED"
    state = op.state() or "PENDING"
    outcome = op.extra["job"].outcome
    return outcome if outcome and state in FINAL_STATES else state


def view(op: Operation, slots: dict[str, list[bytes]] | None = None) -> dict[str, Any]:
    """The job as production's Operation: name, metadata (the batch), done, then response or error; every room
    that prints operations prints a batch through this (`Operation.printer`), its answers parsed for the view.
    With `slots`, the answers list is a slot string instead, and `slots` maps it to the printed answers (for
    `printed`)."""
    job: BatchJob = op.extra["job"]
    state = _state(op)
    done = op.done() and state in FINAL_STATES
    total = job.counts[0] if job.counts else job.request_count()
    kind = "EmbedContentBatch" if job.kind == "embed" else "GenerateContentBatch"
    meta: dict[str, Any] = {"@type": _TYPE + kind, "model": f"models/{job.model}", "name": op.name}
    meta["displayName"] = job.display_name
    answers: Any = []
    if done and state == "SUCCEEDED":
        if slots is None:
            answers = [orjson.loads(result) for result in job.results or []]
        else:
            answers = f"{_SLOT}{len(slots)}"
            slots[answers] = job.results or []
        meta["output"] = _output(job, typed=False, answers=answers)
    meta["createTime"] = stamp(job.created_ns)
    if done:
        meta["endTime"] = stamp(job.ended_ns or job.created_ns)
    meta["updateTime"] = stamp(job.ended_ns if done and job.ended_ns else job.created_ns)
    meta["batchStats"] = _stats(job, total, done, state)
    meta["state"] = "BATCH_STATE_" + state
    body = op.view(meta)
    if done and "response" in body:
        body["response"] = _output(job, typed=True, answers=answers)
    if not done:
        body.pop("done", None)
        body.pop("response", None)
        body.pop("error", None)
    return body


_SLOT = f"gemini-emulator-answers-{secrets.token_hex(8)}-"  # unguessable: no display name can hold it


def printed(body: dict[str, Any], slots: dict[str, list[bytes]]) -> bytes:
    """`printers.pretty(body)` where each slot string of `slots` stands for its list of printed answers: the
    skeleton printed, then each answer list spliced in at its slot's indentation (bytes operations only)."""
    text = printers.pretty(body)
    for slot, answers in slots.items():
        token = b'"' + slot.encode() + b'"'
        pieces = text.split(token)
        out = [pieces[0]]
        for piece in pieces[1:]:
            line = out[-1][out[-1].rfind(b"\n") + 1 :]
            indent = len(line) - len(line.lstrip(b" "))
            out.append(_printed_list(answers, indent))
            out.append(piece)
        text = b"".join(out)
    return text


def _printed_list(items: list[bytes], indent: int) -> bytes:
    """A list of printed items as `printers.pretty` prints it on a line indented `indent` spaces."""
    if not items:
        return b"[]"
    inner = b"\n" + b" " * (indent + 2)
    return (
        b"[" + inner + (b"," + inner).join(item.replace(b"\n", inner) for item in items) + b"\n" + b" " * indent + b"]"
    )


def _stats(job: BatchJob, total: int, done: bool, state: str) -> dict[str, str]:
    """BatchStats, int64 as strings, zero counts left out (proto3 JSON)."""
    stats = {"requestCount": str(total)} if total else {}
    if done and state == "SUCCEEDED" and job.counts:
        good = job.counts[1]
        if good:
            stats["successfulRequestCount"] = str(good)
        if total - good:
            stats["failedRequestCount"] = str(total - good)
    elif not done and total:
        stats["pendingRequestCount"] = str(total)
    return stats


def schedule_from(body: Any) -> Plan:
    """A Plan from the admin API's body {pendingMs, runningMs, state, hold, error}, or a ValueError saying why."""
    if not isinstance(body, dict):
        raise ValueError("expected an object {pendingMs, runningMs, state, hold, error}")
    known = {"pendingMs", "runningMs", "state", "hold", "error"}
    extra = set(body) - known
    if extra:
        raise ValueError(f"unknown field {sorted(extra)[0]!r}; known: {', '.join(sorted(known))}")
    values: dict[str, Any] = {}
    for name, attr in (("pendingMs", "pending_s"), ("runningMs", "running_s")):
        if name in body:
            ms = body[name]
            if isinstance(ms, bool) or not isinstance(ms, int | float) or not 0 <= ms <= 86_400_000:
                raise ValueError(f"{name}: expected milliseconds from 0 to 86400000")
            values[attr] = ms / 1000
    state = str(body.get("state", "SUCCEEDED")).upper().removeprefix("BATCH_STATE_")
    if state not in FINAL_STATES:
        raise ValueError(f"state: expected one of {', '.join(sorted(FINAL_STATES))}")
    hold = body.get("hold", False)
    if not isinstance(hold, bool):
        raise ValueError("hold: expected true or false")
    error = body.get("error")
    if error is not None:
        if not isinstance(error, dict) or not isinstance(error.get("message", ""), str):
            raise ValueError("error: expected a google.rpc.Status {code, message}")
        code = error.get("code", 13)
        if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= 16:
            raise ValueError("error.code: expected a google.rpc.Code number from 0 to 16")
        error = {"code": code, "message": error.get("message", "")}
    return Plan(state=state, hold=hold, error=error, **values)


def release(room: Batches, namespace: str) -> int:
    """End the hold of every held job of a namespace; how many there were."""
    if room.shared is not None:
        return room.shared.release(namespace)
    held = [o for o in _jobs(room, namespace) if o.held]
    for op in held:
        room.operations.release(op)
        op.ready_at = min(op.ready_at, op.clock())
    return len(held)


class AdminView:
    """The batch jobs as the admin API lists and removes them (admin.api.Resources); off the event loop when
    they are in Redis (their sync client)."""

    def __init__(self, room: Batches) -> None:
        self.room = room
        self.off_loop = room.shared is not None

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        shared = self.room.shared
        if shared is not None:
            spaces = [namespace] if namespace is not None else shared.names()
        else:
            spaces = [namespace] if namespace is not None else sorted(self.room.operations.counts())
        out = []
        for ns in spaces:
            for op in reversed(shared.all(ns) if shared is not None else _jobs(self.room, ns)):
                job: BatchJob = op.extra["job"]
                out.append(
                    {
                        "namespace": ns,
                        "name": op.name,
                        "model": f"models/{job.model}",
                        "displayName": job.display_name,
                        "state": "BATCH_STATE_" + _state(op),
                        "requestCount": len(job.results) if job.results is not None else job.request_count(),
                    }
                )
        return out

    def remove(self, namespace: str, name: str) -> bool:
        if self.room.shared is not None:
            return self.room.shared.remove(namespace, name)
        op = self.room.operations.get(namespace, name)
        if op is None or "job" not in op.extra:
            return False
        self.room.operations.delete(namespace, name)
        return True

    def reset(self, namespace: str | None = None) -> None:
        self.room.plans.reset(namespace)  # the operations store is reset with the other stores
        if self.room.shared is not None:
            self.room.shared.reset(namespace)


class ScheduleView:
    """Each caller's schedule for its next batch jobs, as the admin API sets it (admin.api.Schedule)."""

    def __init__(self, room: Batches) -> None:
        self.room = room

    def show(self, namespace: str) -> dict[str, Any]:
        return {"namespace": namespace, "schedule": self.room.plans.get(namespace).to_json()}

    def set(self, namespace: str, body: Any) -> dict[str, Any]:
        plan = schedule_from(body)
        self.room.plans.set(namespace, plan)
        released = 0 if plan.hold else release(self.room, namespace)
        return self.show(namespace) | {"released": released}

    def clear(self, namespace: str) -> dict[str, Any]:
        self.room.plans.set(namespace, None)
        return self.show(namespace) | {"released": release(self.room, namespace)}
