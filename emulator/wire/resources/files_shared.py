"""The Files room on Redis (`--store redis://...`): the same wire as wire/resources/files.py (its module docstring:
the three upload forms, the resumable protocol, list/get/delete/download, the errors), with the files and the
upload sessions in stores/files_redis.py, so any process answers any of them and one upload's chunks may come
through different processes. A Redis that cannot be reached is production's 503 UNAVAILABLE envelope (the upload
front end's headers kept); a download whose Redis goes away after its first chunk ends short of its
Content-Length (the status line was sent)."""

from __future__ import annotations

import asyncio
import mimetypes
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.protocol.headers import BASE_HEADERS, DOWNLOAD_HEADERS
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.files import FilesFull, FileTooLarge, SpoolClosed, StoredFile
from gemini_emulator.stores.files_redis import RedisFileStore, RedisSession, RedisSpool
from gemini_emulator.wire import auth, validate
from gemini_emulator.wire.handlers import Context, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import files as room
from gemini_emulator.wire.resources.common import caller, page_size
from gemini_emulator.wire.resources.filedata import no_permission
from gemini_emulator.wire.sending import Stream

_TEXT = "text/plain; charset=utf-8"

# What a finished resumable upload of another kind than a file becomes (files.py's Finisher, on Redis): (ctx, the
# store, the session, its spool (every byte in Redis), the finishing request, the answer headers) -> the answer.
# The session is still held by the finishing request; the finisher ends it (giving its bytes back).
Finisher = Callable[[Context, RedisFileStore, RedisSession, RedisSpool, Incoming, dict[str, str]], Awaitable[Response]]


async def handle(ctx: Context, store: RedisFileStore, request: Incoming, target: Target, record: Record) -> Response:
    verb = target.method.partition(".")[2]
    if verb == "upload" and request.query.get("upload_id"):
        return await _continue(ctx, store, request, target, record, request.query["upload_id"])
    namespace = caller(ctx, request, target, record)
    if verb == "upload":
        return await _upload(ctx, store, request, target, record, namespace)
    if verb == "create":
        return await _create(ctx, store, request, record, namespace)
    if verb == "register":
        return await _register(ctx, store, request, target, record)
    base = room.base_url(request, ctx.settings.tls)
    if verb == "list":
        size = page_size(request.query, room.PAGE_DEFAULT, room.PAGE_MAX)
        page, following = await store.list(namespace, size, request.query.get("pageToken", ""))
        body: dict[str, Any] = {"files": [f.view(base) for f in page]} if page else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    stored = await store.get(namespace, target.name)
    if stored is None:
        raise no_permission(target.name.removeprefix("files/"))
    if verb == "delete":
        await store.delete(namespace, target.name)
        return json_response({})
    if verb == "download":
        if request.query.get("alt") != "media":
            return json_response(stored.view(base))
        first = await store.first_chunk(stored)  # before the status line: a Redis gone here is still the 503
        if first is None:  # expired between the two reads
            raise no_permission(stored.id)
        sized = {"content-type": stored.mime_type, "content-length": str(stored.size)}
        return Stream(_chunks(store, stored, first), BASE_HEADERS | DOWNLOAD_HEADERS | sized)
    return json_response(stored.view(base))


async def _chunks(store: RedisFileStore, stored: StoredFile, first: bytes) -> AsyncIterator[bytes]:
    if not first:
        return
    yield first
    try:
        async for chunk in store.chunks(stored, 1, len(first)):
            yield chunk
    except errors.ApiError:  # Redis gone mid-download: the body ends short (the status line was sent)
        return


async def _checked(
    store: RedisFileStore, namespace: str, file: dict[str, Any], hint: str
) -> tuple[str, str, str | None]:
    mime, display, name = room.checked_fields(file, hint)
    if name is not None and await store.exists(namespace, name):
        raise room.already_exists(name)
    return mime, display, name


async def _write(store: RedisFileStore, spool: RedisSpool, data: bytes) -> None:
    try:
        await spool.write(data)
    except FileTooLarge:
        raise room._too_large(spool.limit) from None
    except FilesFull:
        raise room._files_full(store.budget_bytes) from None
    except SpoolClosed:
        raise room._session_gone() from None


async def _flush(store: RedisFileStore, spool: RedisSpool) -> None:
    try:
        await spool.flush()
    except FileTooLarge:
        raise room._too_large(spool.limit) from None
    except FilesFull:
        raise room._files_full(store.budget_bytes) from None
    except SpoolClosed:
        raise room._session_gone() from None


async def _receive_into(ctx: Context, store: RedisFileStore, request: Incoming, spool: RedisSpool) -> None:
    """The request body streamed into `spool` a chunk at a time (files.py's _receive_into, on Redis)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > spool.limit - spool.size:
        raise room._too_large(spool.limit)
    timeout = ctx.settings.body_timeout or None
    try:
        async with asyncio.timeout(timeout):
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    raise errors.cancelled()
                await _write(store, spool, message.get("body", b""))
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        raise errors.body_timeout(ctx.settings.body_timeout) from None
    await _flush(store, spool)


async def _stored(
    store: RedisFileStore,
    namespace: str,
    spool: RedisSpool,
    mime: str,
    display: str,
    name: str | None,
) -> StoredFile:
    try:
        stored = await store.store(namespace, spool, mime, display, name)
    except SpoolClosed:
        raise room._session_gone() from None
    if stored is None:  # the name was taken meanwhile (through another process)
        await spool.discard()
        raise room.already_exists(name or "")
    return stored


async def _upload(
    ctx: Context, store: RedisFileStore, request: Incoming, target: Target, record: Record, namespace: str
) -> Response:
    protocol = room._protocol(request)
    if protocol == "resumable":
        command = request.headers.get("x-goog-upload-command", "").strip().lower()
        if command != "start":
            raise errors.invalid_argument(
                "A resumable upload begins with X-Goog-Upload-Command: start (its URL carries no upload_id)."
            )
        raw = await ctx.bodies.read(request.receive, request.headers)
        body = await validate.parsed_body(raw) if raw.strip() else {}
        record.body = body
        file = room._metadata(body)
        declared_text = request.headers.get("x-goog-upload-header-content-length", "")
        declared = str(file.get("sizeBytes") or file.get("size_bytes") or declared_text or "")
        if declared and not validate.int_text_ok("int64", declared):
            raise errors.invalid_argument(f"Invalid X-Goog-Upload-Header-Content-Length: {declared[:40]}")
        size = int(declared) if declared else None
        if size is not None and (size < 0 or size > store.max_file_bytes):
            raise room._too_large(store.max_file_bytes)
        hint = request.headers.get("x-goog-upload-header-content-type", "")
        mime, display, name = await _checked(store, namespace, file, hint)
        upload_id = await store.start_upload(namespace, mime, display, name, size)
        base = room.base_url(request, ctx.settings.tls)
        url = f"{base}/upload/{target.version}/files?upload_id={upload_id}&upload_protocol=resumable"
        headers = {
            "x-guploader-uploadid": upload_id,
            "x-goog-upload-status": "active",
            "x-goog-upload-url": url,
            "x-goog-upload-control-url": url,
            "x-goog-upload-chunk-granularity": str(room.CHUNK_GRANULARITY),
        }
        return room._answer(b"", 200, _TEXT, headers)
    if protocol == "multipart":
        raw = await ctx.bodies.read(request.receive, request.headers)
        meta, media, media_type = room._multipart(request.headers.get("content-type", ""), raw)
        record.body = {"metadata": meta, "upload": room._digest_note(media)}
        mime, display, name = await _checked(store, namespace, room._metadata(meta), media_type)
        spool = store.spool()
        try:
            await _write(store, spool, media)
            stored = await _stored(store, namespace, spool, mime, display, name)
        except BaseException:
            await _quietly(spool.discard())
            raise
        return room._file_answer(ctx, stored, request, {})
    if protocol != "raw":
        raise errors.invalid_argument(f"Unsupported upload protocol: {protocol[:40]}")
    hint = request.headers.get("content-type", "").partition(";")[0].strip()
    mime, display, name = await _checked(store, namespace, {}, hint)
    spool = store.spool()
    try:
        await _receive_into(ctx, store, request, spool)
        record.body = {"upload": {"bytes": spool.size, "sha256": spool.digest.hexdigest()}}
        stored = await _stored(store, namespace, spool, mime, display, name)
    except BaseException:
        await _quietly(spool.discard())
        raise
    return room._file_answer(ctx, stored, request, {})


async def _quietly(call: Any) -> None:
    """Give bytes back on the way out of a failed request; a Redis gone meanwhile leaves them to the expiry."""
    try:
        await call
    except errors.ApiError:
        pass


async def _create(ctx: Context, store: RedisFileStore, request: Incoming, record: Record, namespace: str) -> Response:
    raw = await ctx.bodies.read(request.receive, request.headers)
    body = await validate.parsed_body(raw) if raw.strip() else {}
    record.body = body
    mime, display, name = await _checked(store, namespace, room._metadata(body), "")
    stored = await store.record(namespace, mime, display, name)
    if stored is None:
        raise room.already_exists(name or "")
    return json_response({"file": stored.view(room.base_url(request, ctx.settings.tls))})


async def _register(ctx: Context, store: RedisFileStore, request: Incoming, target: Target, record: Record) -> Response:
    """files.py's _register, the files made on Redis."""
    record.rpc = target.method
    credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
    key = auth.api_key(request.headers, request.query)
    record.namespace = namespace = auth.namespace_of(request.headers, key or credential, ctx.settings.admin_token)
    if not auth.bearer(request.headers):
        raise errors.oauth_token_missing(room.REGISTER_RPC)
    body = await read_body(ctx, request, record)
    if not isinstance(body, dict):
        raise errors.root_not_object()
    for name in body:
        if name != "uris":
            raise errors.payload_violations([errors.unknown_name(name, "")])
    uris = body.get("uris")
    if uris is not None and not isinstance(uris, list):
        raise errors.payload_violations([errors.not_repeating("uris", "")])
    if not uris:
        raise errors.field_errors("RegisterFilesRequest.", ["uris: uris is not specified"])
    if len(uris) > room.MAX_REGISTER_URIS:
        raise errors.invalid_argument(f"At most {room.MAX_REGISTER_URIS} uris can be registered in one request.")
    for index, uri in enumerate(uris):
        if not isinstance(uri, str):
            value = orjson.dumps(uri).decode()
            raise errors.payload_violations([errors.invalid_value(f"uris[{index}]", "TYPE_STRING", value)])
        if room._GCS_URI.fullmatch(uri) is None:
            raise errors.invalid_argument(
                f"Invalid Google Cloud Storage URI: {uri[:200]}. Expected gs://bucket/object."
            )
    made = []
    for uri in uris:
        guessed = mimetypes.guess_type(uri.rsplit("/", 1)[-1])[0] or room.DEFAULT_MIME
        stored = await store.record(namespace, guessed, source="REGISTERED", gcs_uri=uri)
        assert stored is not None  # a new id is never taken
        made.append(stored)
    base = room.base_url(request, ctx.settings.tls)
    return json_response({"files": [f.view(base) for f in made]})


async def _continue(
    ctx: Context, store: RedisFileStore, request: Incoming, target: Target, record: Record, upload_id: str
) -> Response:
    return await continue_upload(ctx, store, request, target, record, upload_id, "file", None)


async def continue_upload(
    ctx: Context,
    store: RedisFileStore,
    request: Incoming,
    target: Target,
    record: Record,
    upload_id: str,
    kind: str,
    finish: Finisher | None,
) -> Response:
    """A follow-up of a resumable upload of `kind` (files.py's continue_upload; a session of another kind is not
    found here): the session taken in Redis for this request (so another request, through any process, feeding it
    meanwhile is refused), its bytes appended a chunk at a time at the offset they continue. A finalized `file`
    upload becomes a file; any other kind is what `finish` makes of it."""
    try:
        return await _continue_taken(ctx, store, request, target, record, upload_id, kind, finish)
    except errors.ApiError as refused:
        if refused.code == 503:  # Redis gone: the upload front end's answer, the session left as it was
            return room._error(refused, {})
        raise


async def _continue_taken(
    ctx: Context,
    store: RedisFileStore,
    request: Incoming,
    target: Target,
    record: Record,
    upload_id: str,
    kind: str,
    finish: Finisher | None,
) -> Response:
    record.rpc = target.method
    commands = {c.strip() for c in request.headers.get("x-goog-upload-command", "").lower().split(",") if c.strip()}
    valid = bool(commands) and commands <= {"upload", "finalize", "query", "cancel"}
    claim = valid and "cancel" not in commands and "query" not in commands
    offset = request.headers.get("x-goog-upload-offset", "")
    token = secrets.token_hex(8)
    code, session = await store.take(upload_id, claim, offset if "upload" in commands else None, token)
    if session is not None and session.kind != kind:
        if code == 1 and claim:  # taken by mistake: another kind's session is left as it was
            await store.release(upload_id, token)
        session = None
    if session is None:
        return room._error(room._session_gone(), {"x-goog-upload-status": "final"})
    record.namespace = session.namespace
    ids = {"x-guploader-uploadid": session.id}
    received = {"x-goog-upload-size-received": str(session.size)}
    if not valid:
        error = errors.invalid_argument("X-Goog-Upload-Command must be upload, finalize, query or cancel.")
        return room._error(error, ids | {"x-goog-upload-status": "active"} | received)
    if "cancel" in commands:
        await store.end_upload(upload_id)
        return room._answer(b"", 200, _TEXT, ids | {"x-goog-upload-status": "cancelled"})
    if "query" in commands:
        return room._answer(b"", 200, _TEXT, ids | {"x-goog-upload-status": "active"} | received)
    if code == 2:
        error = errors.invalid_argument("Another request is uploading to this session; wait for it to finish.")
        return room._error(error, ids | {"x-goog-upload-status": "active"} | received)
    if code == 3:
        error = errors.invalid_argument(
            f"X-Goog-Upload-Offset is {offset[:20] or 'missing'}; the upload has received {session.size} bytes."
        )
        return room._error(error, ids | {"x-goog-upload-status": "active"} | received)
    spool = store.receiver(session, token)
    try:
        if "upload" in commands:
            await _receive_into(ctx, store, request, spool)
    except errors.ApiError as refused:
        if refused.code == 503:
            raise
        if refused.code != 404:  # 404: the session is gone, or (its take lapsed) another request's now
            await _quietly(store.end_upload(upload_id))  # the bytes it held are given back
        return room._error(refused, ids | {"x-goog-upload-status": "final"})
    except BaseException:
        await _quietly(store.release(upload_id, token))
        raise
    record.body = {"upload": {"offset": int(offset or 0), "bytes": spool.size - int(offset or 0)}}
    if "finalize" not in commands:
        store.keep_digest(spool)
        await store.release(upload_id, token)
        received = {"x-goog-upload-size-received": str(spool.size)}
        return room._answer(b"", 200, _TEXT, ids | {"x-goog-upload-status": "active"} | received)
    final = ids | {"x-goog-upload-status": "final"}
    if session.declared_size is not None and spool.size != session.declared_size:
        await store.end_upload(upload_id)
        error = errors.invalid_argument(
            f"The upload was finalized with {spool.size} bytes; its start declared {session.declared_size}."
        )
        return room._error(error, final)
    sha = await store.final_digest(session, spool)
    record.body = {"upload": {"bytes": spool.size, "sha256": sha}}
    if finish is not None:
        return await finish(ctx, store, session, spool, request, final)
    if session.name is not None and await store.exists(session.namespace, session.name):
        await store.end_upload(upload_id)
        return room._error(room.already_exists(session.name), final)
    try:
        stored = await store.store(
            session.namespace, spool, session.mime_type, session.display_name, session.name, sha256_hex=sha
        )
    except SpoolClosed:  # cancelled while it was being finished
        return room._error(room._session_gone(), final)
    if stored is None:
        await store.end_upload(upload_id)
        return room._error(room.already_exists(session.name or ""), final)
    return room._answer(
        printers.pretty({"file": stored.view(room.base_url(request, ctx.settings.tls))}), 200, framing.JSON_TYPE, final
    )
