"""The Files room (Developer API): uploads on `POST /upload/{v}/files` in the three forms production takes, and
`GET /{v}/files` (a page), `GET /{v}/files/{id}`, `DELETE /{v}/files/{id}`, `GET /{v}/files/{id}:download?alt=media`.
State: gemini_emulator.stores.files (ctx.files).

The resumable protocol as google-genai 3.6.1 speaks it (a capture of its exchange with production, 2025-06; see
docs/conformance.md): `start` (headers `X-Goog-Upload-Protocol: resumable`, `X-Goog-Upload-Command: start`,
`X-Goog-Upload-Header-Content-Length/-Type`, JSON body `{"file": {mimeType, sizeBytes, displayName?, name?}}`)
is answered 200 with an empty text/plain body and `X-Goog-Upload-URL`: this emulator's own scheme, host and port
(from the request's Host), `?upload_id=...&upload_protocol=resumable`. The id names the session server-side,
which holds the caller's namespace: the follow-ups carry no key. Then `upload` chunks at `X-Goog-Upload-Offset`
(each answered `active` with `X-Goog-Upload-Size-Received`), the last one `upload, finalize`, answered `final`
with `{"file": File}`; `query` reports the bytes received, `cancel` drops the session. A wrong offset is a 400
that leaves the session open (`active`); a finished, unknown or expired session is a 404 (`final`).
Multipart (`X-Goog-Upload-Protocol: multipart` or `?uploadType=multipart`, a `multipart/related` body of the
JSON metadata then the bytes) and raw (`X-Goog-Upload-Protocol: raw`, `?uploadType=media`, or a plain body)
uploads answer the same `{"file": File}` at once.

The journal keeps an upload's metadata and, for its bytes, only their size and sha256.
"""

from __future__ import annotations

import asyncio
import mimetypes
import re
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.protocol.headers import BASE_HEADERS, DOWNLOAD_HEADERS
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.files import (
    MAX_DISPLAY_NAME,
    NAME_ID,
    FilesFull,
    FileTooLarge,
    Spool,
    SpoolClosed,
    StoredFile,
    UploadSession,
)
from gemini_emulator.wire import auth, validate
from gemini_emulator.wire.handlers import Context, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.common import caller, mime_type, page_size
from gemini_emulator.wire.resources.filedata import no_permission
from gemini_emulator.wire.sending import Body, Stream

PAGE_DEFAULT, PAGE_MAX = 10, 100  # production's files.list: 10 unless asked, at most 100
CHUNK_GRANULARITY = 8 * 1024 * 1024  # X-Goog-Upload-Chunk-Granularity in production's start answer
UPLOAD_HEADERS = {"server": "UploadServer"}  # the upload front end's own
DEFAULT_MIME = "application/octet-stream"


# --- errors (docs/conformance.md: which are captured, which best-known) -----------------------------------


def _upload_error(message: str, code: int = 400) -> errors.ApiError:
    return errors.ApiError(code, message)


def _files_full(limit: int) -> errors.ApiError:
    return errors.ApiError(
        429,
        f"gemini-emulator: the stored files' byte budget ({limit} bytes, --files-budget-bytes) is spent; delete "
        "files or reset the namespace.",
    )


def _too_large(limit: int) -> errors.ApiError:
    return errors.ApiError(400, f"The file exceeds the maximum size of {limit} bytes.")


# --- the room --------------------------------------------------------------------------------------------


async def handle(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    if ctx.shared_files is not None:  # --store redis://...: every process's files (files_shared.py)
        from gemini_emulator.wire.resources import files_shared

        return await files_shared.handle(ctx, ctx.shared_files, request, target, record)
    verb = target.method.partition(".")[2]
    if verb == "upload" and request.query.get("upload_id"):
        return await _continue(ctx, request, target, record, request.query["upload_id"])
    namespace = caller(ctx, request, target, record)
    if verb == "upload":
        return await _upload(ctx, request, target, record, namespace)
    if verb == "create":
        return await _create(ctx, request, record, namespace)
    if verb == "register":
        return await _register(ctx, request, target, record)
    if verb == "list":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        token = request.query.get("pageToken", "")
        page, following = ctx.files.list(namespace, size, token)
        base = base_url(request, ctx.settings.tls)
        body: dict[str, Any] = {"files": [f.view(base) for f in page]} if page else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    stored = ctx.files.get(namespace, target.name)
    if stored is None:
        raise no_permission(target.name.removeprefix("files/"))
    if verb == "delete":
        ctx.files.delete(namespace, target.name)
        return json_response({})
    if verb == "download":
        if request.query.get("alt") != "media":  # without it the download method answers the File (best-known)
            return json_response(stored.view(base_url(request, ctx.settings.tls)))
        sized = {"content-type": stored.mime_type, "content-length": str(stored.size)}
        return Stream(_chunks(ctx, stored), BASE_HEADERS | DOWNLOAD_HEADERS | sized)
    return json_response(stored.view(base_url(request, ctx.settings.tls)))


async def _chunks(ctx: Context, stored: StoredFile) -> Any:
    for chunk in ctx.files.iter_bytes(stored):
        yield chunk


def base_url(request: Incoming, tls: bool = False) -> str:
    """This emulator as the caller reached it: scheme (https under --tls, else a proxy's X-Forwarded-Proto, else
    http) and Host: what upload URLs and file uris point at."""
    host = request.headers.get("host", "127.0.0.1")
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    scheme = "https" if tls else forwarded if forwarded in ("http", "https") else "http"
    return f"{scheme}://{host}"


def _answer(body: bytes, status: int, content_type: str, extra: dict[str, str]) -> Response:
    headers = ({"vary": "Origin, X-Origin, Referer"} if body else {}) | UPLOAD_HEADERS | extra
    return Body(body, status, headers | {"content-type": content_type})


def _file_answer(ctx: Context, stored: StoredFile, request: Incoming, extra: dict[str, str]) -> Response:
    body = printers.pretty({"file": stored.view(base_url(request, ctx.settings.tls))})
    return _answer(body, 200, framing.JSON_TYPE, extra)


def _error(error: errors.ApiError, extra: dict[str, str]) -> Response:
    return _answer(printers.pretty(error.envelope()), error.code, framing.JSON_TYPE, extra | error.headers)


def _protocol(request: Incoming) -> str:
    given = request.headers.get("x-goog-upload-protocol", "") or request.query.get("uploadType", "")
    given = given.strip().lower()
    if given in ("media", "raw"):
        return "raw"
    if given:
        return given
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    return "multipart" if media == "multipart/related" else "raw"


def _metadata(body: Any) -> dict[str, Any]:
    """The `file` of an upload's metadata (CreateFileRequest), checked as production checks field types."""
    if not isinstance(body, dict):
        raise errors.root_not_object()
    unknown = [k for k in body if k != "file"]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(unknown[0], "")])
    file = body.get("file", {})
    if file is None:
        file = {}
    if not isinstance(file, dict):
        raise errors.payload_violations([errors.invalid_value("file", "TYPE_MESSAGE", orjson.dumps(file).decode())])
    known = {"name", "displayName", "display_name", "mimeType", "mime_type", "sizeBytes", "size_bytes", "source"}
    for key, value in file.items():
        if key not in known:
            raise errors.payload_violations([errors.unknown_name(key, "file")])
        if key in ("sizeBytes", "size_bytes"):
            text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
            if not isinstance(text, str) or not validate.int_text_ok("int64", text):
                raise errors.payload_violations(
                    [errors.invalid_value("file.size_bytes", "TYPE_INT64", orjson.dumps(value).decode())]
                )
        elif not isinstance(value, str):
            snake = re.sub(r"([A-Z])", lambda m: "_" + m[1].lower(), key)
            raise errors.payload_violations(
                [errors.invalid_value(f"file.{snake}", "TYPE_STRING", orjson.dumps(value).decode())]
            )
    return file


def _checked(ctx: Context, namespace: str, file: dict[str, Any], mime_hint: str) -> tuple[str, str, str | None]:
    """mime type, display name and the requested name (None: a new id) of a file to make."""
    mime, display, name = checked_fields(file, mime_hint)
    if name is not None and ctx.files.exists(namespace, name):
        raise already_exists(name)
    return mime, display, name


def already_exists(name: str) -> errors.ApiError:
    return errors.ApiError(409, f"File {name} already exists.", status="ALREADY_EXISTS")


def checked_fields(file: dict[str, Any], mime_hint: str) -> tuple[str, str, str | None]:
    """mime type, display name and the requested name of a file to make, checked (not yet whether it is free)."""
    mime = mime_type(str(file.get("mimeType") or file.get("mime_type") or mime_hint or DEFAULT_MIME))
    display = str(file.get("displayName") or file.get("display_name") or "")
    if len(display) > MAX_DISPLAY_NAME:
        raise errors.invalid_argument(f"Display name must be at most {MAX_DISPLAY_NAME} characters.")
    name = file.get("name") or None
    if name is not None:
        file_id = str(name).removeprefix("files/")
        if NAME_ID.fullmatch(file_id) is None:
            raise errors.invalid_argument(
                "Invalid file name: the ID must be at most 40 lowercase letters, digits or dashes, not starting "
                "or ending with a dash."
            )
        name = "files/" + file_id
    return mime, display, name


async def _upload(ctx: Context, request: Incoming, target: Target, record: Record, namespace: str) -> Response:
    protocol = _protocol(request)
    if protocol == "resumable":
        command = request.headers.get("x-goog-upload-command", "").strip().lower()
        if command != "start":
            raise errors.invalid_argument(
                "A resumable upload begins with X-Goog-Upload-Command: start (its URL carries no upload_id)."
            )
        raw = await ctx.bodies.read(request.receive, request.headers)
        body = await validate.parsed_body(raw) if raw.strip() else {}
        record.body = body
        file = _metadata(body)
        declared_text = request.headers.get("x-goog-upload-header-content-length", "")
        declared = str(file.get("sizeBytes") or file.get("size_bytes") or declared_text or "")
        if declared and not validate.int_text_ok("int64", declared):
            raise errors.invalid_argument(f"Invalid X-Goog-Upload-Header-Content-Length: {declared[:40]}")
        size = int(declared) if declared else None
        if size is not None and (size < 0 or size > ctx.files.max_file_bytes):
            raise _too_large(ctx.files.max_file_bytes)
        hint = request.headers.get("x-goog-upload-header-content-type", "")
        mime, display, name = _checked(ctx, namespace, file, hint)
        session = ctx.files.start_upload(namespace, mime, display, name, size)
        base = base_url(request, ctx.settings.tls)
        url = f"{base}/upload/{target.version}/files?upload_id={session.id}&upload_protocol=resumable"
        headers = {
            "x-guploader-uploadid": session.id,
            "x-goog-upload-status": "active",
            "x-goog-upload-url": url,
            "x-goog-upload-control-url": url,
            "x-goog-upload-chunk-granularity": str(CHUNK_GRANULARITY),
        }
        return _answer(b"", 200, "text/plain; charset=utf-8", headers)
    if protocol == "multipart":
        raw = await ctx.bodies.read(request.receive, request.headers)
        meta, media, media_type = _multipart(request.headers.get("content-type", ""), raw)
        record.body = {"metadata": meta, "upload": _digest_note(media)}
        mime, display, name = _checked(ctx, namespace, _metadata(meta), media_type)
        spool = ctx.files.spool()
        try:
            _write(ctx, spool, media)
        except BaseException:
            spool.discard()
            raise
        return _file_answer(ctx, ctx.files.store(namespace, spool, mime, display, name), request, {})
    if protocol != "raw":
        raise errors.invalid_argument(f"Unsupported upload protocol: {protocol[:40]}")
    hint = request.headers.get("content-type", "").partition(";")[0].strip()
    mime, display, name = _checked(ctx, namespace, {}, hint)
    spool = ctx.files.spool()
    try:
        await _receive_into(ctx, request, spool)
    except BaseException:
        spool.discard()
        raise
    record.body = {"upload": {"bytes": spool.size, "sha256": spool.digest.hexdigest()}}
    return _file_answer(ctx, ctx.files.store(namespace, spool, mime, display, name), request, {})


async def _create(ctx: Context, request: Incoming, record: Record, namespace: str) -> Response:
    """`POST /{v}/files`, the media.upload method's metadata URI: a File record without bytes (best-known; see
    docs/conformance.md), answered `{"file": File}` as an upload is."""
    raw = await ctx.bodies.read(request.receive, request.headers)
    body = await validate.parsed_body(raw) if raw.strip() else {}
    record.body = body
    mime, display, name = _checked(ctx, namespace, _metadata(body), "")
    stored = ctx.files.record(namespace, mime, display, name)
    return json_response({"file": stored.view(base_url(request, ctx.settings.tls))})


MAX_REGISTER_URIS = 100  # emulator bound (production's own is not published)
_GCS_URI = re.compile(r"gs://(?P<bucket>[a-z0-9][a-z0-9._-]{1,220}[a-z0-9])/(?P<object>[^\r\n#?]{1,1024})")
REGISTER_RPC = "google.ai.generativelanguage.v1beta.FileService.RegisterFiles"


async def _register(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    """`POST /{v}/files:register {"uris": ["gs://bucket/object", ...]}` (google-genai `files.register_files`):
    one File per uri, source REGISTERED, answered `{"files": [...]}`. It needs an OAuth token beside the key (the
    SDK sends both); the files belong to the key's project, so the namespace is the key's. The emulator cannot
    read Cloud Storage: the file's MIME type comes from the object's extension and its size and hash are unknown."""
    record.rpc = target.method
    credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
    key = auth.api_key(request.headers, request.query)
    record.namespace = namespace = auth.namespace_of(request.headers, key or credential, ctx.settings.admin_token)
    if not auth.bearer(request.headers):
        raise errors.oauth_token_missing(REGISTER_RPC)
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
    if len(uris) > MAX_REGISTER_URIS:
        raise errors.invalid_argument(f"At most {MAX_REGISTER_URIS} uris can be registered in one request.")
    for index, uri in enumerate(uris):
        if not isinstance(uri, str):
            value = orjson.dumps(uri).decode()
            raise errors.payload_violations([errors.invalid_value(f"uris[{index}]", "TYPE_STRING", value)])
        if _GCS_URI.fullmatch(uri) is None:
            raise errors.invalid_argument(
                f"Invalid Google Cloud Storage URI: {uri[:200]}. Expected gs://bucket/object."
            )
    made = []
    for uri in uris:
        guessed = mimetypes.guess_type(uri.rsplit("/", 1)[-1])[0] or DEFAULT_MIME
        made.append(ctx.files.record(namespace, guessed, source="REGISTERED", gcs_uri=uri))
    base = base_url(request, ctx.settings.tls)
    return json_response({"files": [f.view(base) for f in made]})


def _digest_note(data: bytes) -> dict[str, Any]:
    import hashlib

    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _write(ctx: Context, spool: Spool, data: bytes) -> None:
    try:
        spool.write(data)
    except FileTooLarge:
        raise _too_large(spool.limit) from None
    except FilesFull:
        raise _files_full(ctx.files.budget_bytes) from None
    except SpoolClosed:
        raise _session_gone() from None


def _session_gone() -> errors.ApiError:
    return errors.ApiError(404, "The upload session was not found; it may have finished or expired.")


async def _receive_into(ctx: Context, request: Incoming, spool: Spool) -> None:
    """The request body streamed into `spool` (never held whole), within the body deadline."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > spool.limit - spool.size:
        raise _too_large(spool.limit)
    timeout = ctx.settings.body_timeout or None
    try:
        async with asyncio.timeout(timeout):
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    raise errors.cancelled()
                _write(ctx, spool, message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        raise errors.body_timeout(ctx.settings.body_timeout) from None


_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.IGNORECASE)


def _multipart(content_type: str, raw: bytes) -> tuple[Any, bytes, str]:
    """A multipart/related upload: (the JSON metadata, the media bytes, the media part's content type)."""
    found = _BOUNDARY.search(content_type)
    if found is None or not content_type.lower().startswith("multipart/"):
        raise errors.invalid_argument("A multipart upload needs Content-Type: multipart/related; boundary=...")
    delimiter = b"--" + found[1].strip().encode("latin-1")
    pieces = raw.split(delimiter)
    parts: list[tuple[dict[str, str], bytes]] = []
    for piece in pieces[1:]:
        if piece.startswith(b"--"):
            break
        head, sep, content = piece.lstrip(b"\r\n").partition(b"\r\n\r\n")
        if not sep:
            raise errors.invalid_argument("Malformed multipart body: a part without headers.")
        headers = {}
        for line in head.split(b"\r\n"):
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        parts.append((headers, content.removesuffix(b"\r\n")))
    if len(parts) != 2:
        raise errors.invalid_argument("A multipart upload has two parts: the metadata, then the media.")
    (_, meta_bytes), (media_headers, media) = parts
    meta = validate.parse_body(meta_bytes) if meta_bytes.strip() else {}
    return meta, media, media_headers.get("content-type", "")


# What a finished resumable upload becomes: (ctx, session, the finishing request, answer headers) -> the answer.
Finisher = Callable[[Context, UploadSession, Incoming, dict[str, str]], Awaitable[Response]]


async def _continue(ctx: Context, request: Incoming, target: Target, record: Record, upload_id: str) -> Response:
    return await continue_upload(ctx, request, target, record, upload_id, "file", _finish_file)


async def continue_upload(
    ctx: Context, request: Incoming, target: Target, record: Record, upload_id: str, kind: str, finish: Finisher
) -> Response:
    """A follow-up of a resumable upload (no key: the session names the namespace) of `kind` (a session of
    another kind is not found here); `finish` makes the finalized bytes what they become."""
    record.rpc = target.method
    session = ctx.files.upload(upload_id)
    if session is not None and session.kind != kind:
        session = None
    if session is None:
        return _error(_session_gone(), {"x-goog-upload-status": "final"})
    record.namespace = session.namespace
    spool = session.spool
    ids = {"x-guploader-uploadid": session.id}
    commands = {c.strip() for c in request.headers.get("x-goog-upload-command", "").lower().split(",") if c.strip()}
    received = {"x-goog-upload-size-received": str(spool.size)}
    if not commands or not commands <= {"upload", "finalize", "query", "cancel"}:
        error = errors.invalid_argument("X-Goog-Upload-Command must be upload, finalize, query or cancel.")
        return _error(error, ids | {"x-goog-upload-status": "active"} | received)
    if "cancel" in commands:
        ctx.files.end_upload(upload_id, discard=True)
        return _answer(b"", 200, "text/plain; charset=utf-8", ids | {"x-goog-upload-status": "cancelled"})
    if "query" in commands:
        return _answer(b"", 200, "text/plain; charset=utf-8", ids | {"x-goog-upload-status": "active"} | received)
    if session.receiving:  # two requests feeding one spool would interleave their bytes
        error = errors.invalid_argument("Another request is uploading to this session; wait for it to finish.")
        return _error(error, ids | {"x-goog-upload-status": "active"} | received)
    offset = request.headers.get("x-goog-upload-offset", "")
    if "upload" in commands and offset != str(spool.size):
        error = errors.invalid_argument(
            f"X-Goog-Upload-Offset is {offset[:20] or 'missing'}; the upload has received {spool.size} bytes."
        )
        return _error(error, ids | {"x-goog-upload-status": "active"} | received)
    try:
        if "upload" in commands:
            session.receiving = True
            try:
                await _receive_into(ctx, request, spool)
            finally:
                session.receiving = False
    except errors.ApiError as refused:
        ctx.files.end_upload(upload_id, discard=True)  # the bytes it held are given back
        return _error(refused, ids | {"x-goog-upload-status": "final"})
    record.body = {"upload": {"offset": int(offset or 0), "bytes": spool.size - int(offset or 0)}}
    if "finalize" not in commands:
        received = {"x-goog-upload-size-received": str(spool.size)}
        return _answer(b"", 200, "text/plain; charset=utf-8", ids | {"x-goog-upload-status": "active"} | received)
    ctx.files.end_upload(upload_id)
    if session.declared_size is not None and spool.size != session.declared_size:
        spool.discard()
        error = errors.invalid_argument(
            f"The upload was finalized with {spool.size} bytes; its start declared {session.declared_size}."
        )
        return _error(error, ids | {"x-goog-upload-status": "final"})
    record.body = {"upload": {"bytes": spool.size, "sha256": spool.digest.hexdigest()}}
    try:
        return await finish(ctx, session, request, ids | {"x-goog-upload-status": "final"})
    except SpoolClosed:  # cancelled while it was being finished
        return _error(_session_gone(), ids | {"x-goog-upload-status": "final"})


async def _finish_file(ctx: Context, session: UploadSession, request: Incoming, headers: dict[str, str]) -> Response:
    spool = session.spool
    if session.name is not None and ctx.files.exists(session.namespace, session.name):
        spool.discard()
        error = errors.ApiError(409, f"File {session.name} already exists.", status="ALREADY_EXISTS")
        return _error(error, headers)
    stored = ctx.files.store(session.namespace, spool, session.mime_type, session.display_name, session.name)
    return _file_answer(ctx, stored, request, headers)


class FilesView:
    """The files as the admin API lists and removes them (admin.api.Resources): metadata, size and hash only. On
    Redis through its sync client, off the event loop (`off_loop`: the admin API calls it in a worker thread)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @property
    def off_loop(self) -> bool:
        return self.ctx.shared_files is not None

    def _store(self) -> Any:
        return self.ctx.shared_files if self.ctx.shared_files is not None else self.ctx.files

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": f.namespace,
                "name": f.name,
                "displayName": f.display_name,
                "mimeType": f.mime_type,
                "sizeBytes": f.size,
                "sha256": f.sha256_hex,
                "state": f.state,
                "source": f.source,
                "createTime": f.view("")["createTime"],
            }
            for f in self._store().all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if self.ctx.shared_files is not None:
            return self.ctx.shared_files.remove(namespace, name)
        return self.ctx.files.delete(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.ctx.files.reset(namespace)
        if self.ctx.shared_files is not None:
            self.ctx.shared_files.reset(namespace)

    def set_state(self, namespace: str, name: str | None, state: str, error: dict[str, Any] | None) -> bool:
        """The admin API's `PUT /__emulator/files/state`: one file's state, or (no name) the next upload's."""
        status = {"code": int(error.get("code", 3)), "message": error["message"]} if error else None
        store = self._store()
        if name is None:
            store.next_state(namespace, state, status)
            return True
        return bool(store.set_state(namespace, "files/" + name.removeprefix("files/"), state, status))


# For the other upload rooms (wire/resources/file_search.py): the upload front end's answers and body readers.
upload_answer = _answer
upload_protocol = _protocol
upload_error = _error
read_multipart = _multipart
receive_into = _receive_into
digest_note = _digest_note
write_spool = _write
