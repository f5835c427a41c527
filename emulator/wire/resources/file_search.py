"""The file search stores room (Developer API): `fileSearchStores` create, list, get, delete (`?force=`), the
upload of a document (`POST /upload/{v}/fileSearchStores/{id}:uploadToFileSearchStore`, resumable as google-genai
sends it, multipart or raw), `:importFile` (a Files API file), and `documents` list, get, delete. State:
gemini_emulator.stores.file_search (ctx.file_search); what a generate call's `fileSearch` tool retrieves:
wire/resources/searched.py.

Shapes from pydantic-ai's cassettes (test_google_model_file_search_*.yaml, production 2025-11 and 2026-07; see
docs/conformance.md "File search stores"): a create answers the FileSearchStore (name derived from the display
name, createTime = updateTime with 6 fractional digits, embeddingModel, no zero counts); the upload's `start`
answers 200, an empty text/plain body and `X-Goog-Upload-URL` on the same path with `?upload_id=...&upload_protocol
=resumable`; its finalize answers `final` and the operation `{name: fileSearchStores/S/upload/operations/D,
response: {@type ...UploadToFileSearchStoreResponse, parent, documentName, mimeType, sizeBytes}}` with no `done`
(the document is active at once, and a poll of the operation answers `done: true`); a delete with `force=True`
answers `{}`. An import's operation is `fileSearchStores/S/operations/ID`, done (and its document active) on the
operations' schedule, `--operation-delay-ms` (best-known shapes).

The journal keeps an upload's metadata and, for its bytes, only their size and sha256 (as the Files room does).
"""

from __future__ import annotations

import asyncio
import builtins
import time
from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.protocol.headers import BASE_HEADERS, DOWNLOAD_HEADERS
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores import file_search as fs
from gemini_emulator.stores.file_search_redis import RedisFileSearchStores, chunk_count
from gemini_emulator.stores.files import UploadSession
from gemini_emulator.stores.files_redis import RedisFileStore, RedisSession, RedisSpool
from gemini_emulator.stores.operations import Operation
from gemini_emulator.wire import validate
from gemini_emulator.wire.handlers import Context, json_response
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import files, files_shared
from gemini_emulator.wire.resources.common import caller, mime_type, page_size
from gemini_emulator.wire.resources.filedata import no_permission, not_active

PAGE_DEFAULT, PAGE_MAX = 10, 20  # the REST reference: 10 unless asked, at most 20 (stores and documents)
UPLOAD_RESPONSE = "type.googleapis.com/google.ai.generativelanguage.v1main.UploadToFileSearchStoreResponse"
IMPORT_RESPONSE = "type.googleapis.com/google.ai.generativelanguage.v1main.ImportFileResponse"
DEFAULT_MIME = "application/octet-stream"


def _s(kind: str, repeated: bool = False) -> dict[str, Any]:
    return {"kind": kind, "repeated": repeated}


def _m(type_name: str, repeated: bool = False) -> dict[str, Any]:
    return {"kind": "message", "type": type_name, "repeated": repeated}


# The request messages (the REST reference's fields), checked as the generate bodies are (validate.py).
MESSAGES: dict[str, dict[str, dict[str, Any]]] = {
    "FileSearchStore": {
        "name": _s("string"),
        "displayName": _s("string"),
        "embeddingModel": _s("string"),
    },
    "UploadToFileSearchStoreRequest": {
        "displayName": _s("string"),
        "customMetadata": _m("CustomMetadata", repeated=True),
        "chunkingConfig": _m("ChunkingConfig"),
        "mimeType": _s("string"),
    },
    "ImportFileRequest": {
        "fileName": _s("string"),
        "customMetadata": _m("CustomMetadata", repeated=True),
        "chunkingConfig": _m("ChunkingConfig"),
    },
    "CustomMetadata": {
        "key": _s("string"),
        "stringValue": _s("string"),
        "stringListValue": _m("StringList"),
        "numericValue": _s("float"),
    },
    "StringList": {"values": _s("string", repeated=True)},
    "ChunkingConfig": {"whiteSpaceConfig": _m("WhiteSpaceConfig")},
    "WhiteSpaceConfig": {"maxTokensPerChunk": _s("int32"), "maxOverlapTokens": _s("int32")},
}
_TABLE: validate.Schema | None = None


def _checked(body: dict[str, Any], message: str, version: str) -> dict[str, Any]:
    """`body` checked against `message` (production's 400 listing unknown names and mistyped values), its
    field names in lowerCamelCase."""
    global _TABLE
    if _TABLE is None:
        _TABLE = validate.extended(MESSAGES)
    normalised, violations = validate.walk(body, message, "developer", version, _TABLE)
    if violations:
        raise errors.payload_violations(violations)
    return normalised


async def _json(ctx: Context, request: Incoming, record: Record) -> dict[str, Any]:
    """The request's JSON object ({} for an empty body), journaled as sent."""
    raw = await ctx.bodies.read(request.receive, request.headers)
    if not raw.strip():
        return {}
    try:
        body = await validate.parsed_body(raw)
    except errors.ApiError:
        record.body = raw.decode("utf-8", "replace")
        raise
    record.body = body
    if not isinstance(body, dict):
        raise errors.root_not_object()
    return body


def _force(query: dict[str, str] | Any) -> bool:
    """`?force=` as production reads a bool (google-genai sends Python's `True`, which production took)."""
    text = str(query.get("force", "")).strip()
    if text.lower() in ("true", "1"):
        return True
    if text.lower() in ("", "false", "0"):
        return False
    raise errors.payload_violations([errors.invalid_value("force", "TYPE_BOOL", f'"{text[:40]}"')])


# --- the store: in memory (the default) or on Redis (`--store redis://...`, ctx.shared_search) ------------------


class LocalStores:
    """The in-memory store (stores/file_search.py) behind the coroutines the room awaits, which the Redis store
    (stores/file_search_redis.py) answers over the network: one room for both."""

    __slots__ = ("stores",)

    def __init__(self, stores: fs.FileSearchStores) -> None:
        self.stores = stores

    @property
    def budget_bytes(self) -> int:
        return self.stores.budget_bytes

    async def create(self, namespace: str, display_name: str = "", embedding_model: str = "") -> fs.FileSearchStore:
        return self.stores.create(namespace, display_name, embedding_model)

    async def require(self, namespace: str, name: str) -> fs.FileSearchStore:
        return self.stores.require(namespace, name)

    async def list(
        self, namespace: str, page_size: int, page_token: str = ""
    ) -> tuple[builtins.list[fs.FileSearchStore], str]:
        return self.stores.list(namespace, page_size, page_token)

    async def delete(self, namespace: str, name: str, force: bool = False) -> None:
        self.stores.delete(namespace, name, force)

    async def check_room(self, namespace: str, store_name: str, size: int | None) -> fs.FileSearchStore:
        return self.stores.check_room(namespace, store_name, size)

    async def add_document(
        self, namespace: str, store_name: str, data: bytes, mime_type: str, **given: Any
    ) -> fs.Document:
        given.pop("text", None)  # what Redis keeps to parse the document again elsewhere; memory keeps the parse
        return self.stores.add_document(namespace, store_name, data, mime_type, **given)

    async def take_next(self, namespace: str) -> tuple[str, dict[str, Any] | None] | None:
        return self.stores.take_next(namespace)

    async def document(self, namespace: str, name: str) -> fs.Document:
        return self.stores.document(namespace, name)

    async def media_document(self, namespace: str, name: str) -> fs.Document:
        return self.stores.media_document(namespace, name)

    async def documents(
        self, namespace: str, store_name: str, page_size: int, page_token: str = ""
    ) -> tuple[builtins.list[fs.Document], str]:
        return self.stores.documents(namespace, store_name, page_size, page_token)

    async def delete_document(self, namespace: str, name: str, force: bool = False) -> None:
        self.stores.delete_document(namespace, name, force)


def stores_of(ctx: Context) -> LocalStores | RedisFileSearchStores:
    """The file search stores the room works on: Redis's when the setting names it, else this process's."""
    return ctx.shared_search if ctx.shared_search is not None else LocalStores(ctx.file_search)


# --- the room --------------------------------------------------------------------------------------------


async def handle(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    verb = target.method.partition(".")[2]
    if verb == "upload" and request.query.get("upload_id"):
        upload_id = request.query["upload_id"]
        if ctx.shared_files is not None:  # on Redis the session is there, so any process continues it
            return await files_shared.continue_upload(
                ctx, ctx.shared_files, request, target, record, upload_id, "document", _finish_shared
            )
        return await files.continue_upload(ctx, request, target, record, upload_id, "document", _finish_upload)
    namespace = caller(ctx, request, target, record)
    stores = stores_of(ctx)
    body: dict[str, Any]
    if verb == "create":
        body = _checked(await _json(ctx, request, record), "FileSearchStore", target.version)
        display = _display_name(body.get("displayName"))
        model = str(body.get("embeddingModel") or "")
        if model and not model.startswith("models/"):
            model = "models/" + model
        return json_response((await stores.create(namespace, display, model)).view())
    if verb == "list":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        page, following = await stores.list(namespace, size, request.query.get("pageToken", ""))
        body = {"fileSearchStores": [s.view() for s in page]} if page else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    if verb == "get":
        return json_response((await stores.require(namespace, target.name)).view())
    if verb == "delete":
        await stores.delete(namespace, target.name, _force(request.query))
        return json_response({})
    if verb == "upload":
        return await _upload(ctx, request, target, record, namespace)
    if verb == "uploadMetadata":
        await stores.require(namespace, target.name)
        raise errors.invalid_argument(
            f"Media upload requests are sent to POST /upload/{target.version}/{target.name}:uploadToFileSearchStore."
        )
    if verb == "importFile":
        return json_response(await _import(ctx, target, await _json(ctx, request, record), namespace))
    if verb == "listDocuments":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        docs, following = await stores.documents(namespace, target.name, size, request.query.get("pageToken", ""))
        body = {"documents": [d.view() for d in docs]} if docs else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    if verb == "getDocument":
        return json_response((await stores.document(namespace, target.name)).view())
    if verb == "deleteDocument":
        await stores.delete_document(namespace, target.name, _force(request.query))
        return json_response({})
    if verb == "downloadMedia":  # DownloadMedia, `GET /{v}/{name=fileSearchStores/*/media/*}?alt=media`
        doc = await stores.media_document(namespace, target.name)
        if request.query.get("alt") != "media":
            raise errors.invalid_argument("gemini-emulator: a file search store's media is downloaded with alt=media.")
        media = doc.media or b""
        sized = {"content-type": doc.mime_type, "content-length": str(len(media))}
        return Response(media, headers=BASE_HEADERS | DOWNLOAD_HEADERS | sized)
    raise errors.not_implemented(f"the {target.method} method")


def _display_name(value: Any) -> str:
    display = str(value or "")
    if len(display) > fs.MAX_DISPLAY_NAME:
        raise errors.invalid_argument(f"Display name must be at most {fs.MAX_DISPLAY_NAME} characters.")
    return display


def _custom_metadata(items: Any) -> list[dict[str, Any]]:
    """CustomMetadata entries as production keeps them: a key and exactly one value each, at most 20."""
    entries = list(items or [])
    if len(entries) > fs.MAX_CUSTOM_METADATA:
        raise errors.invalid_argument(f"A document may have at most {fs.MAX_CUSTOM_METADATA} custom metadata.")
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry.get("key"):
            raise errors.invalid_argument(f"custom_metadata[{i}].key is required.")
        values = [k for k in ("stringValue", "stringListValue", "numericValue") if k in entry]
        if len(values) != 1:
            raise errors.invalid_argument(
                f"custom_metadata[{i}] must set exactly one of string_value, string_list_value, numeric_value."
            )
        out.append({"key": entry["key"], values[0]: entry[values[0]]})
    return out


def _chunking(config: Any) -> tuple[int, int]:
    """(words per chunk, overlap) from a ChunkingConfig; the defaults without one."""
    white = (config or {}).get("whiteSpaceConfig") or {}
    size = white.get("maxTokensPerChunk")
    overlap = white.get("maxOverlapTokens")
    size = fs.DEFAULT_CHUNK_WORDS if size in (None, 0) else size
    overlap = 0 if overlap is None else overlap
    if not 1 <= size <= fs.MAX_CHUNK_WORDS:
        raise errors.invalid_argument(f"max_tokens_per_chunk must be between 1 and {fs.MAX_CHUNK_WORDS}.")
    if not 0 <= overlap < size:
        raise errors.invalid_argument("max_overlap_tokens must be at least 0 and less than max_tokens_per_chunk.")
    return size, overlap


def _mime(given: str) -> str:
    return mime_type(given or DEFAULT_MIME)


def _plan(body: dict[str, Any], version: str, mime_hint: str) -> dict[str, Any]:
    """An upload's metadata (UploadToFileSearchStoreRequest), checked: what its document will be."""
    body = _checked(body, "UploadToFileSearchStoreRequest", version)
    return {
        "mimeType": _mime(str(body.get("mimeType") or mime_hint or "")),
        "displayName": _display_name(body.get("displayName")),
        "customMetadata": _custom_metadata(body.get("customMetadata")),
        "chunking": _chunking(body.get("chunkingConfig")),
    }


async def _upload(ctx: Context, request: Incoming, target: Target, record: Record, namespace: str) -> Response:
    protocol = files.upload_protocol(request)
    if protocol == "resumable":
        command = request.headers.get("x-goog-upload-command", "").strip().lower()
        if command != "start":
            raise errors.invalid_argument(
                "A resumable upload begins with X-Goog-Upload-Command: start (its URL carries no upload_id)."
            )
        plan = _plan(
            await _json(ctx, request, record),
            target.version,
            request.headers.get("x-goog-upload-header-content-type", ""),
        )
        declared_text = request.headers.get("x-goog-upload-header-content-length", "").strip()
        if declared_text and not (declared_text.isdigit() and validate.int_text_ok("int64", declared_text)):
            raise errors.invalid_argument(f"Invalid X-Goog-Upload-Header-Content-Length: {declared_text[:40]}")
        declared = int(declared_text) if declared_text else None
        await stores_of(ctx).check_room(namespace, target.name, declared)
        extra: dict[str, Any] = {"store": target.name, "plan": plan, "version": target.version}
        if ctx.shared_files is not None:  # the session in Redis (stores/files_redis.py), with a document's bound
            extra["limit"] = fs.MAX_DOCUMENT_BYTES
            upload_id = await ctx.shared_files.start_upload(
                namespace, plan["mimeType"], plan["displayName"], None, declared, "document", extra
            )
        else:
            session = ctx.files.start_upload(
                namespace, plan["mimeType"], plan["displayName"], None, declared, "document", extra
            )
            session.spool.limit = min(session.spool.limit, fs.MAX_DOCUMENT_BYTES)  # a document's bound
            upload_id = session.id
        base = files.base_url(request, ctx.settings.tls)
        url = (
            f"{base}/upload/{target.version}/{target.name}:uploadToFileSearchStore"
            f"?upload_id={upload_id}&upload_protocol=resumable"
        )
        headers = {
            "x-guploader-uploadid": upload_id,
            "x-goog-upload-status": "active",
            "x-goog-upload-url": url,
            "x-goog-upload-control-url": url,
            "x-goog-upload-chunk-granularity": str(files.CHUNK_GRANULARITY),
        }
        return files.upload_answer(b"", 200, "text/plain; charset=utf-8", headers)
    spool = ctx.files.spool(fs.MAX_DOCUMENT_BYTES)
    try:
        if protocol == "multipart":
            raw = await ctx.bodies.read(request.receive, request.headers)
            meta, media, media_type = files.read_multipart(request.headers.get("content-type", ""), raw)
            record.body = {"metadata": meta, "upload": files.digest_note(media)}
            if not isinstance(meta, dict):
                raise errors.root_not_object()
            plan = _plan(meta, target.version, media_type)
            await stores_of(ctx).check_room(namespace, target.name, len(media))
            files.write_spool(ctx, spool, media)
        elif protocol == "raw":
            hint = request.headers.get("content-type", "").partition(";")[0].strip()
            plan = _plan({}, target.version, hint)
            await stores_of(ctx).check_room(namespace, target.name, None)
            await files.receive_into(ctx, request, spool)
            record.body = {"upload": {"bytes": spool.size, "sha256": spool.digest.hexdigest()}}
        else:
            raise errors.invalid_argument(f"Unsupported upload protocol: {protocol[:40]}")
    except BaseException:
        spool.discard()
        raise
    size = spool.size
    data = ctx.files.drain(spool, _kept(plan))  # the rest: back to the budget
    answer = await _store_upload(ctx, namespace, target.name, size, data, plan)
    return files.upload_answer(printers.pretty(answer), 200, framing.JSON_TYPE, {})


def _kept(plan: dict[str, Any]) -> int:
    """How many of an upload's bytes its document keeps: a media document's whole, of the others the text."""
    return fs.MAX_DOCUMENT_BYTES if fs.is_media(plan["mimeType"]) else fs.MAX_TEXT_BYTES


async def _finish_upload(ctx: Context, session: UploadSession, request: Incoming, headers: dict[str, str]) -> Response:
    """A finalized resumable upload: the document and its operation (the answer carries the operation)."""
    extra = session.extra
    size = session.spool.size
    data = ctx.files.drain(session.spool, _kept(extra["plan"]))  # the rest: back to the budget
    try:
        answer = await _store_upload(ctx, session.namespace, extra["store"], size, data, extra["plan"])
    except errors.ApiError as refused:
        return files.upload_error(refused, headers)
    return files.upload_answer(printers.pretty(answer), 200, framing.JSON_TYPE, headers)


async def _finish_shared(
    ctx: Context,
    store: RedisFileStore,
    session: RedisSession,
    spool: RedisSpool,
    request: Incoming,
    headers: dict[str, str],
) -> Response:
    """_finish_upload on Redis: the bytes the session holds (fed through any process) read back as far as the
    document keeps them, the session ended (its bytes given back), then the document as in memory."""
    extra = session.extra
    plan = dict(extra["plan"])
    plan["chunking"] = tuple(plan["chunking"])  # JSON made the pair a list
    size = spool.size
    data = await store.session_head(session, size, _kept(plan))
    await store.end_upload(session.id)
    try:
        answer = await _store_upload(ctx, session.namespace, extra["store"], size, data, plan)
    except errors.ApiError as refused:
        if refused.code == 503:
            raise
        return files.upload_error(refused, headers)
    return files.upload_answer(printers.pretty(answer), 200, framing.JSON_TYPE, headers)


async def _store_upload(
    ctx: Context, namespace: str, store_name: str, size: int, data: bytes, plan: dict[str, Any]
) -> dict[str, Any]:
    """The uploaded bytes (`size` of them, `data` the first the document keeps) as a document of the store, its
    operation made; the upload's first answer."""
    media = fs.is_media(plan["mimeType"])  # a media document is kept whole; of the others only the text
    stores = stores_of(ctx)
    await stores.check_room(namespace, store_name, size)
    text = data[: fs.MAX_TEXT_BYTES]
    prepared = await asyncio.to_thread(fs.prepare, text, plan["mimeType"], *plan["chunking"])  # off the loop
    store = await stores.check_room(namespace, store_name, size)  # still there, still with room
    doc_id = fs.derived_id(plan["displayName"])
    response = {
        "@type": UPLOAD_RESPONSE,
        "parent": store.name,
        "documentName": f"{store.name}/documents/{doc_id}",
        "mimeType": plan["mimeType"],
        "sizeBytes": str(size),
    }
    # Indexed by the time the finalize answers (the cassettes generate from it at once, grounded): the document
    # is active now and its operation done at the first poll, though the answer itself has no `done`.
    op_name = f"{store.name}/upload/operations/{doc_id}"
    forced = await stores.take_next(namespace)
    op = await _operation(ctx, namespace, op_name, response, 0.0, forced)
    await _add(
        ctx,
        namespace,
        op.name,
        store.name,
        plan,
        size,
        doc_id,
        op.ready_at,
        "",
        forced,
        prepared,
        data if media else None,
        text,
    )
    return {"name": op.name, "response": response}


FAILED_STATUS = {"code": 3, "message": "Document processing failed."}  # best-known wording


async def _operation(
    ctx: Context,
    namespace: str,
    name: str,
    response: dict[str, Any],
    delay_s: float | None,
    forced: tuple[str, dict[str, Any] | None] | None,
) -> Operation:
    """A document's operation: done with `response` on its schedule; held while the document is scripted to stay
    STATE_PENDING, failed with the scripted error when it is to be STATE_FAILED. On Redis the shared operations'
    (polled through any process; its result given in the create's one Lua call)."""
    state, error = forced or ("", None)
    shared = ctx.shared_operations
    if shared is not None:
        if state == "STATE_FAILED":
            return await shared.create(
                namespace, "fileSearch", name=name, error=error or FAILED_STATUS, delay_s=delay_s
            )
        return await shared.create(
            namespace, "fileSearch", name=name, response=response, delay_s=delay_s, hold=state == "STATE_PENDING"
        )
    if state == "STATE_FAILED":
        return ctx.operations.create(namespace, "fileSearch", name=name, error=error or FAILED_STATUS, delay_s=delay_s)
    return ctx.operations.create(
        namespace, "fileSearch", name=name, response=response, delay_s=delay_s, hold=state == "STATE_PENDING"
    )


async def _add(
    ctx: Context,
    namespace: str,
    op_name: str,
    store_name: str,
    plan: dict[str, Any],
    size: int,
    doc_id: str,
    ready_at: float,
    source: str,
    forced: tuple[str, dict[str, Any] | None] | None,
    prepared: fs.Prepared,
    media: bytes | None = None,
    text: bytes = b"",
) -> None:
    words, overlap = plan["chunking"]
    if forced is not None and forced[0] == "STATE_FAILED":
        forced = ("STATE_FAILED", forced[1] or FAILED_STATUS)
    try:
        await stores_of(ctx).add_document(
            namespace,
            store_name,
            b"",
            plan["mimeType"],
            size=size,
            display_name=plan["displayName"],
            custom_metadata=plan["customMetadata"],
            chunk_words=words,
            overlap_words=overlap,
            ready_at=ready_at,
            document_id=doc_id,
            source=source,
            forced=forced,
            operation=op_name,
            prepared=prepared,
            media=media,
            text=text,
        )
    except BaseException as failure:
        await _forget(ctx, namespace, op_name)
        if isinstance(failure, fs.StoreFull):
            raise _store_full(stores_of(ctx).budget_bytes) from None
        raise


async def _forget(ctx: Context, namespace: str, op_name: str) -> None:
    """The operation of a document that was not added, forgotten (on Redis: best effort, Redis may be gone)."""
    shared = ctx.shared_operations
    if shared is None:
        ctx.operations.remove(namespace, op_name)
        return
    try:
        await shared.delete(namespace, op_name)
    except errors.ApiError:
        pass  # gone already, or Redis unreachable: the failure that brought us here is the answer


def _store_full(limit: int) -> errors.ApiError:
    return errors.ApiError(
        429,
        f"gemini-emulator: the file search documents' byte budget ({limit} bytes, --file-search-budget-bytes) is "
        "spent; delete documents or stores, or reset the namespace.",
    )


async def _import(ctx: Context, target: Target, body: dict[str, Any], namespace: str) -> dict[str, Any]:
    """importFile: a Files API file as a new document of the store; its operation's first answer."""
    body = _checked(body, "ImportFileRequest", target.version)
    stores = stores_of(ctx)
    store = await stores.require(namespace, target.name)
    given = str(body.get("fileName") or "")
    if not given:
        raise errors.invalid_argument("file_name is required.")
    metadata, chunking = _custom_metadata(body.get("customMetadata")), _chunking(body.get("chunkingConfig"))
    file_name = "files/" + given.removeprefix("files/")
    stored = await ctx.file_access.get(namespace, file_name)  # on Redis: every process's files
    if stored is None:
        raise no_permission(file_name.removeprefix("files/"))
    if stored.state != "ACTIVE":
        raise not_active(stored.id)
    await stores.check_room(namespace, store.name, stored.size)
    plan: dict[str, Any] = {
        "mimeType": stored.mime_type,
        "displayName": stored.display_name or stored.id,
        "customMetadata": metadata,
        "chunking": chunking,
    }
    media = await ctx.file_access.read(stored) if fs.is_media(stored.mime_type) else None  # kept whole
    head = bytearray(media[: fs.MAX_TEXT_BYTES] if media is not None else b"")
    if media is None:
        async for piece in ctx.file_access.chunks(stored):
            head += piece[: fs.MAX_TEXT_BYTES - len(head)]
            if len(head) >= fs.MAX_TEXT_BYTES:
                break
    prepared = await asyncio.to_thread(fs.prepare, bytes(head), plan["mimeType"], *plan["chunking"])
    store = await stores.check_room(namespace, store.name, stored.size)  # still there, still with room
    doc_id = fs.derived_id(plan["displayName"])
    response = {"@type": IMPORT_RESPONSE, "parent": store.name, "documentName": f"{store.name}/documents/{doc_id}"}
    forced = await stores.take_next(namespace)
    op = await _operation(ctx, namespace, f"{store.name}/operations/{doc_id}", response, None, forced)
    await _add(
        ctx,
        namespace,
        op.name,
        store.name,
        plan,
        stored.size,
        doc_id,
        op.ready_at,
        stored.name,
        forced,
        prepared,
        media,
        bytes(head),
    )
    return {"name": op.name}


class FileSearchView:
    """The stores and their documents as the admin API lists and removes them (admin.api.Resources). On Redis
    (`ctx.shared_search`) the view reads it through the sync client, so the admin API calls it in a worker thread
    (`off_loop`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.off_loop = ctx.shared_search is not None

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        shared = self.ctx.shared_search
        held: list[tuple[fs.FileSearchStore, list[fs.Document]]]
        if shared is not None:
            held = list(shared.all(namespace))
        else:
            held = [(store, list(store.documents.values())) for store in self.ctx.file_search.all(namespace)]
        out: list[dict[str, Any]] = []
        for store, docs in held:
            view = store.view()
            out.append(
                {
                    "namespace": store.namespace,
                    "name": store.name,
                    "displayName": store.display_name,
                    "sizeBytes": store.size,
                    "documents": len(docs),
                    "createTime": view["createTime"],
                }
            )
            for doc in docs:
                out.append(
                    {
                        "namespace": store.namespace,
                        "name": doc.name,
                        "displayName": doc.display_name,
                        "mimeType": doc.mime_type,
                        "sizeBytes": doc.size,
                        "state": doc.state,
                        "chunks": chunk_count(doc),
                    }
                )
        return out

    def remove(self, namespace: str, name: str) -> bool:
        if self.ctx.shared_search is not None:
            return self.ctx.shared_search.remove(namespace, name)
        try:
            if "/documents/" in name:
                self.ctx.file_search.delete_document(namespace, name, force=True)
            else:
                self.ctx.file_search.delete(namespace, name, force=True)
        except errors.ApiError:
            return False
        return True

    def reset(self, namespace: str | None = None) -> None:
        if self.ctx.shared_search is not None:
            self.ctx.shared_search.reset(namespace)
        self.ctx.file_search.reset(namespace)

    def set_state(self, namespace: str, name: str | None, state: str, error: dict[str, Any] | None) -> bool:
        """The admin API's `PUT /__emulator/fileSearchStores/state`: one document's state (its operation held,
        failed or released with it), or (no name) the next upload's or import's."""
        status = {"code": int(error.get("code", 3)), "message": error["message"]} if error else None
        stores = self.ctx.file_search
        shared = self.ctx.shared_search
        if name is None:
            (shared or stores).next_state(namespace, state, status)
            return True
        if shared is not None:
            found = shared.document_sync(namespace, name)
            if found is None:
                return False
            doc = found
            if self.ctx.shared_operations is not None:  # the document and its shared operation in one Lua call
                return self._set_shared(shared, namespace, doc, state, status)
        else:
            try:
                doc = stores.document(namespace, name)
            except errors.ApiError:
                return False
        op = self.ctx.operations.get(namespace, doc.operation)
        if state == "STATE_ACTIVE":
            now = time.time() if shared is not None else stores.clock()
            doc.forced_state, doc.error, doc.ready_at = "", None, min(doc.ready_at, now)
            if op is not None:
                self.ctx.operations.release(op)
        elif state == "STATE_FAILED":
            doc.forced_state, doc.error = state, status or FAILED_STATUS
            if op is not None:
                self.ctx.operations.complete(op, error=doc.error, at=0.0)
        else:
            doc.forced_state = state
            if op is not None and not op.done():
                op.held = True
        if shared is not None:
            ready = doc.ready_at if state == "STATE_ACTIVE" else None
            return shared.set_state(namespace, doc.name, doc.forced_state, ready, doc.error)
        return True

    @staticmethod
    def _set_shared(
        shared: RedisFileSearchStores, namespace: str, doc: fs.Document, state: str, status: dict[str, Any] | None
    ) -> bool:
        """set_state on Redis: the document's state and its operation's hold, failure or release in one call."""
        if state == "STATE_ACTIVE":
            return shared.set_state(
                namespace, doc.name, "", min(doc.ready_at, time.time()), None, doc.operation, "release"
            )
        if state == "STATE_FAILED":
            return shared.set_state(namespace, doc.name, state, None, status or FAILED_STATUS, doc.operation, "fail")
        return shared.set_state(namespace, doc.name, state, None, doc.error, doc.operation, "hold")
