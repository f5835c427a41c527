"""Environments: `POST|GET /{v}/environments`, `GET|DELETE /{v}/environments/{id}`, and their workspaces' files:
`GET /{v}/environments/{id}/files/{path}` (metadata or a directory's listing, `page_size`, `page_token`,
`recursive`; `?alt=media` the bytes) and the resumable upload `PUT /upload/{v}/environments/{id}/files/{path}`
(`X-Goog-Upload-Command: start`, `overwrite`, `extract`) then `POST` to the `X-Goog-Upload-URL` it answers, as
google-genai 3.6.1's `client.environments` and `client.environments.files` (list, upload, download) call them
(_gaos/environments.py, _gaos/files.py, _gaos/_internal.py, google_genai.py; its tests/gaos/
test_environments_lifecycle.py), on the caller's namespace (stores/environments.py).

An environment's `sources` of type `inline` become workspace files at their `target` (base64 when `encoding` says
so); `from_environment` copies another's configuration and files; `extract=true` unpacks a tar or tar.gz upload
under the path (bounded: the store's limits, regular files and directories only). An interaction's `environment`
("remote", a Environment object, or a stored environment's id) is `provision`'s: a new environment, or the one named
(interactions print its `environment_id`). On `--store redis://...` an upload's session is the Files API's in Redis
(stores/files_redis.py, kind `environmentFile`, continued by files_shared.continue_upload), so its follow-ups may
reach any process. Field names from the SDK; ids' form, key order, page sizes, the upload's
final answer (`{"file": EnvironmentFile}`, as the SDK's own test server answers) and errors' wording are best-known
(docs/conformance.md, "Agents and environments (issue 33)").
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import io
import mimetypes
import tarfile
from typing import Any
from urllib.parse import quote

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.protocol.headers import BASE_HEADERS
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.environments import (
    MAX_FILE_BYTES,
    MAX_FILES,
    MODES,
    SOURCE_TYPES,
    BadPath,
    Environment,
    EnvironmentsFull,
    EnvironmentStore,
    FileExists,
    WorkspaceFile,
    clean_path,
    stamp,
)
from gemini_emulator.stores.files import UploadSession
from gemini_emulator.stores.files_redis import RedisFileStore, RedisSession, RedisSpool
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.records_redis import RedisEnvironmentStore
from gemini_emulator.wire.handlers import Context, error_response, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import files, files_shared
from gemini_emulator.wire.resources.agents import NOT_FOUND, page_size, page_start, page_token
from gemini_emulator.wire.resources.common import caller
from gemini_emulator.wire.sending import Body

FIELDS = ("custom_config", "from_environment", "mode", "network", "sources", "system_instruction")
SOURCE_FIELDS = ("type", "source", "target", "content", "encoding")
ALLOWLIST_FIELDS = ("domain", "credential", "transform")
MAX_SOURCES = 100
UPLOAD_KIND = "environmentFile"  # the files store's upload sessions of this room
DEFAULT_MIME = "application/octet-stream"
Environments = EnvironmentStore | RedisEnvironmentStore  # in memory (the default) or on Redis (--store redis://...)


async def serve(ctx: Context, store: Environments, request: Incoming, target: Target, record: Record) -> Response:
    """Every environments URL (routes: action `environments`)."""
    if target.method == "upload" and request.query.get("upload_id"):
        upload_id = request.query["upload_id"]
        if ctx.shared_files is not None:  # on Redis the session is there, so any process continues it
            shared = _shared_finisher(store)
            return await files_shared.continue_upload(
                ctx, ctx.shared_files, request, target, record, upload_id, UPLOAD_KIND, shared
            )
        return await files.continue_upload(ctx, request, target, record, upload_id, UPLOAD_KIND, _finisher(store))
    try:
        namespace = caller(ctx, request, target, record)
        record.rpc = f"environments.{target.method}"
        if target.method == "create":
            body = await read_body(ctx, request, record)
            made = await create(store, namespace, body)
            return json_response(view(made, created=True))
        if target.method == "list":
            return json_response(await _list(store, namespace, request))
        env = await settled(store.touched(namespace, target.resource.removeprefix("environments/")))
        if env is None:
            raise errors.ApiError(404, NOT_FOUND)
        if target.method == "get":
            return json_response(view(env))
        if target.method == "delete":
            await settled(store.delete(namespace, env.id))
            return json_response({})
        path = _path(target.name)
        if target.method == "files":
            return await _files(store, env, path, request)
        return await _start_upload(ctx, env, path, request, target, record)  # upload
    except errors.ApiError as error:
        return error_response(error)


def view(env: Environment, created: bool = False) -> dict[str, Any]:
    """An Environment as printed (best-known key order; `environment_key` only in the create's answer)."""
    out: dict[str, Any] = {"id": env.id, "status": "active"}
    for key in ("mode", "network", "sources", "custom_config"):
        if key in env.config:
            out[key] = env.config[key]
    if created and env.key:
        out["environment_key"] = env.key
    out["file_count"] = str(len(env.files))
    out["size_bytes"] = str(env.size)
    out["created"] = stamp(env.created)
    out["updated"] = stamp(env.updated)
    out["last_accessed"] = stamp(env.accessed)
    return out


def journal_body(raw: bytes, content_type: str = framing.JSON_TYPE) -> bytes:
    """An answer as journaled: a self_hosted environment's key REDACTED (it is a credential); a download's bytes
    as their size and sha256."""
    if raw and not content_type.startswith("application/json"):
        return orjson.dumps({"download": {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}})
    if b'"environment_key"' not in raw:
        return raw
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    if isinstance(body, dict) and "environment_key" in body:
        body["environment_key"] = "REDACTED"
    return printers.pretty(body)


# --- create ------------------------------------------------------------------------------------------------------


async def create(store: Environments, namespace: str, body: Any) -> Environment:
    """A new environment from a CreateEnvironmentRequest body; its ApiError when the body is not one."""
    if body is None or body == b"":
        body = {}
    if not isinstance(body, dict):
        raise errors.root_not_object()
    unknown = [key for key in body if key not in FIELDS]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(key, "") for key in unknown])
    config: dict[str, Any] = {}
    workspace: dict[str, tuple[bytes, str]] = {}
    origin = body.get("from_environment")
    if origin is not None:
        if not isinstance(origin, str) or not origin:
            raise errors.invalid_argument("from_environment must be an environment name.")
        if body.get("sources"):
            raise errors.invalid_argument("sources must be empty when from_environment is set.")
        source = await settled(store.get(namespace, origin.removeprefix("environments/")))
        if source is None:
            raise errors.ApiError(404, NOT_FOUND)
        config = dict(source.config)
        if isinstance(store, RedisEnvironmentStore):
            workspace = await store.files_of(source)
        else:
            workspace = {path: (held.data, held.mime_type) for path, held in source.files.items()}
    mode = body.get("mode", config.get("mode"))
    if mode is not None:
        if mode not in MODES:
            raise errors.payload_violations([errors.invalid_value("mode", "TYPE_ENUM", _text(mode))])
        config["mode"] = mode
    for key in ("custom_config", "system_instruction"):
        if body.get(key) is not None:
            if mode != "self_hosted":
                raise errors.invalid_argument(f"{key} is only supported when mode is self_hosted.")
            expected = dict if key == "custom_config" else str
            if not isinstance(body[key], expected):
                kind = "TYPE_MESSAGE" if expected is dict else "TYPE_STRING"
                raise errors.payload_violations([errors.invalid_value(key, kind, _text(body[key]))])
            config[key] = body[key]
    if body.get("network") is not None:
        config["network"] = _network(body["network"])
    if body.get("sources") is not None:
        config["sources"] = _sources(body["sources"])
        workspace.update(_inline_files(config["sources"]))
    try:
        return await settled(store.create(namespace, config, workspace, mode == "self_hosted"))
    except EnvironmentsFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.", status="RESOURCE_EXHAUSTED") from None
    except ValueError as too_big:
        raise errors.invalid_argument(str(too_big)) from None


async def provision(store: Environments, namespace: str, spec: Any) -> Environment:
    """An interaction's `environment`: a stored environment's id (or `environments/id`), "remote" (a new one), or
    an Environment object (`{"type": "remote", sources, network, env, environment_id?}`: the one it names, else
    a new one of its sources and network); 404 for an id the namespace does not have."""
    if isinstance(spec, str):
        if spec == "remote":
            return await create(store, namespace, {})
        found = await settled(store.touched(namespace, spec.removeprefix("environments/")))
        if found is None:
            raise errors.ApiError(404, NOT_FOUND)
        return found
    if not isinstance(spec, dict) or spec.get("type", "remote") != "remote":
        raise errors.invalid_argument('environment must be "remote", an environment id, or {"type": "remote", ...}.')
    named = spec.get("environment_id")
    if isinstance(named, str) and named:
        return await provision(store, namespace, named)
    wanted = {key: spec[key] for key in ("mode", "network", "sources", "custom_config") if key in spec}
    return await create(store, namespace, wanted)


def _network(value: Any) -> Any:
    if value == "disabled":
        return value
    if not isinstance(value, dict) or set(value) - {"allowlist"}:
        raise errors.invalid_argument('network must be "disabled" or {"allowlist": [...]}.')
    allowlist = value.get("allowlist")
    if allowlist == "disabled" or allowlist is None:
        return dict(value)
    if not isinstance(allowlist, list) or len(allowlist) > MAX_SOURCES:
        raise errors.invalid_argument(f'network.allowlist must be "disabled" or at most {MAX_SOURCES} entries.')
    for index, entry in enumerate(allowlist):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("domain"), str)
            or set(entry) - set(ALLOWLIST_FIELDS)
        ):
            raise errors.invalid_argument(f"network.allowlist[{index}] must be {{domain, credential?, transform?}}.")
    return dict(value)


def _sources(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise errors.payload_violations([errors.invalid_value("sources", "TYPE_MESSAGE (repeated)", _text(value))])
    if len(value) > MAX_SOURCES:
        raise errors.invalid_argument(f"An environment has at most {MAX_SOURCES} sources.")
    out = []
    for index, source in enumerate(value):
        if not isinstance(source, dict):
            raise errors.invalid_argument(f"sources[{index}] must be an object.")
        unknown = [key for key in source if key not in SOURCE_FIELDS]
        if unknown:
            raise errors.payload_violations([errors.unknown_name(k, f"sources[{index}]") for k in unknown])
        kind = str(source.get("type", "")).lower()  # the SDK's own test sends "INLINE"
        if kind not in SOURCE_TYPES:
            raise errors.invalid_argument(f"sources[{index}].type must be one of {', '.join(SOURCE_TYPES)}.")
        if kind == "inline" and not (isinstance(source.get("target"), str) and source["target"]):
            raise errors.invalid_argument(f"sources[{index}].target is required for an inline source.")
        if kind != "inline" and not (isinstance(source.get("source"), str) and source["source"]):
            raise errors.invalid_argument(f"sources[{index}].source is required for a {kind} source.")
        out.append(dict(source))
    return out


def _inline_files(sources: list[dict[str, Any]]) -> dict[str, tuple[bytes, str]]:
    written: dict[str, tuple[bytes, str]] = {}
    for index, source in enumerate(sources):
        if str(source.get("type", "")).lower() != "inline":
            continue
        content = source.get("content", "")
        if not isinstance(content, str):
            raise errors.invalid_argument(f"sources[{index}].content must be a string.")
        if str(source.get("encoding", "")).lower() == "base64":
            try:
                data = base64.b64decode(content, validate=True)
            except (binascii.Error, ValueError):
                raise errors.invalid_argument(f"sources[{index}].content is not base64.") from None
        else:
            data = content.encode()
        if len(data) > MAX_FILE_BYTES:
            raise errors.invalid_argument(f"sources[{index}].content is past {MAX_FILE_BYTES} bytes.")
        path = _path(source["target"])
        if not path:
            raise errors.invalid_argument(f"sources[{index}].target must name a file.")
        written[path] = (data, mimetypes.guess_type(path)[0] or "text/plain")
    return written


async def _list(store: Environments, namespace: str, request: Incoming) -> dict[str, Any]:
    mode = request.query.get("mode", "")
    if mode and mode not in MODES:
        raise errors.payload_violations([errors.invalid_value("mode", "TYPE_ENUM", f'"{mode[:40]}"')])
    held = [
        env for env in await settled(store.listed(namespace)) if not mode or env.config.get("mode", "on_demand") == mode
    ]
    ids = [env.id for env in held]
    start, size = page_start(request.query, ids), page_size(request.query)
    out: dict[str, Any] = {}
    if held[start : start + size]:
        out["environments"] = [view(env) for env in held[start : start + size]]
    if start + size < len(ids):
        out["next_page_token"] = page_token(ids[start + size])
    return out


# --- files -------------------------------------------------------------------------------------------------------


def _path(given: str) -> str:
    try:
        return clean_path(given)
    except BadPath as bad:
        raise errors.invalid_argument(str(bad)) from None


def file_view(path: str, held: WorkspaceFile) -> dict[str, Any]:
    """An EnvironmentFile for a file (key order as the SDK's own test server prints it; best-known)."""
    return {
        "name": path.rpartition("/")[2],
        "path": path,
        "type": "file",
        "size_bytes": str(held.size),
        "mime_type": held.mime_type,
        "created": stamp(held.created),
        "modified": stamp(held.modified),
    }


def _directory_view(path: str) -> dict[str, Any]:
    return {"name": path.rpartition("/")[2], "path": path, "type": "directory"}


async def _files(store: Environments, env: Environment, path: str, request: Incoming) -> Response:
    """A file's metadata (or its bytes with `alt=media`), or a directory's entries, paged."""
    held = env.files.get(path)
    if request.query.get("alt") == "media":
        if held is None:
            raise (
                errors.ApiError(404, NOT_FOUND)
                if not _is_directory(env, path)
                else errors.invalid_argument(f"{path or '/'} is a directory: only a file can be downloaded.")
            )
        headers = BASE_HEADERS | {"content-type": held.mime_type}
        data = await store.file_data(env, path) if isinstance(store, RedisEnvironmentStore) else held.data
        return Body(data, 200, headers)
    if held is not None:
        return json_response({"files": [file_view(path, held)]})
    if not _is_directory(env, path):
        raise errors.ApiError(404, NOT_FOUND)
    recursive = request.query.get("recursive", "").lower() in ("true", "1")
    entries = _entries(env, path, recursive)
    keys = [entry["path"] for entry in entries]
    start, size = page_start(request.query, keys), page_size(request.query)
    out: dict[str, Any] = {}
    if entries[start : start + size]:
        out["files"] = entries[start : start + size]
    if start + size < len(keys):
        out["next_page_token"] = page_token(keys[start + size])
    return json_response(out)


def _is_directory(env: Environment, path: str) -> bool:
    return not path or any(held.startswith(path + "/") for held in env.files)


def _entries(env: Environment, path: str, recursive: bool) -> list[dict[str, Any]]:
    """The directory's entries, by path: its files (every file under it when recursive) and subdirectories."""
    prefix = path + "/" if path else ""
    under = sorted(p for p in env.files if p.startswith(prefix))
    if recursive:
        return [file_view(p, env.files[p]) for p in under]
    entries: dict[str, dict[str, Any]] = {}
    for held in under:
        first, _, rest = held[len(prefix) :].partition("/")
        child = prefix + first
        if rest:
            entries.setdefault(child, _directory_view(child))
        else:
            entries[child] = file_view(child, env.files[child])
    return [entries[key] for key in sorted(entries)]


async def _start_upload(
    ctx: Context, env: Environment, path: str, request: Incoming, target: Target, record: Record
) -> Response:
    """The resumable upload's `start`: a session of the files store (its bytes budgeted there), its URL answered."""
    if request.headers.get("x-goog-upload-command", "").strip().lower() != "start":
        raise errors.invalid_argument("A resumable upload begins with X-Goog-Upload-Command: start.")
    if not path:
        raise errors.invalid_argument("path must name a file (or, with extract, a directory).")
    declared_text = request.headers.get("x-goog-upload-header-content-length", "").strip()
    if declared_text and not declared_text.isdigit():
        raise errors.invalid_argument(f"Invalid X-Goog-Upload-Header-Content-Length: {declared_text[:40]}")
    declared = int(declared_text) if declared_text else None
    if declared is not None and declared > MAX_FILE_BYTES:
        raise errors.ApiError(413, f"gemini-emulator: an environment file takes at most {MAX_FILE_BYTES} bytes.")
    await ctx.bodies.read(request.receive, request.headers)  # the start carries no body of use
    mime = request.headers.get("x-goog-upload-header-content-type", "").strip() or DEFAULT_MIME
    flags = {key: request.query.get(key, "").lower() in ("true", "1") for key in ("overwrite", "extract")}
    record.body = {"path": path, "mime_type": mime, **flags}
    extra: dict[str, Any] = {"environment": env.id, "path": path, **flags}
    if ctx.shared_files is not None:  # the session in Redis (stores/files_redis.py), with an environment file's bound
        extra["limit"] = MAX_FILE_BYTES
        upload_id = await ctx.shared_files.start_upload(env.namespace, mime, "", None, declared, UPLOAD_KIND, extra)
    else:
        session = ctx.files.start_upload(env.namespace, mime, "", None, declared, UPLOAD_KIND, extra)
        session.spool.limit = min(session.spool.limit, MAX_FILE_BYTES)
        upload_id = session.id
    base = files.base_url(request, ctx.settings.tls)
    url = f"{base}/upload/{target.version}/environments/{env.id}/files/{quote(path)}?upload_id={upload_id}"
    headers = {
        "x-guploader-uploadid": upload_id,
        "x-goog-upload-status": "active",
        "x-goog-upload-url": url,
        "x-goog-upload-control-url": url,
        "x-goog-upload-chunk-granularity": str(files.CHUNK_GRANULARITY),
    }
    return files.upload_answer(b"", 200, "text/plain; charset=utf-8", headers)


def _finisher(store: Environments) -> files.Finisher:
    async def finish(ctx: Context, session: UploadSession, request: Incoming, headers: dict[str, str]) -> Response:
        """A finalized upload: the file (or the archive's files) written to the workspace."""
        data = ctx.files.drain(session.spool, MAX_FILE_BYTES)
        try:
            answer = await _written(store, session.namespace, session.extra, session.mime_type, data)
        except errors.ApiError as refused:
            return files.upload_error(refused, headers)
        return files.upload_answer(printers.pretty(answer), 200, framing.JSON_TYPE, headers)

    return finish


def _shared_finisher(store: Environments) -> files_shared.Finisher:
    async def finish(
        ctx: Context,
        files_store: RedisFileStore,
        session: RedisSession,
        spool: RedisSpool,
        request: Incoming,
        headers: dict[str, str],
    ) -> Response:
        """_finisher on Redis: the bytes the session holds (fed through any process) read back, the session ended
        (its bytes given back to the files' budget), then the file written as in memory."""
        data = await files_store.session_head(session, spool.size, MAX_FILE_BYTES)
        await files_store.end_upload(session.id)
        try:
            answer = await _written(store, session.namespace, session.extra, session.mime_type, data)
        except errors.ApiError as refused:
            if refused.code == 503:
                raise
            return files.upload_error(refused, headers)
        return files.upload_answer(printers.pretty(answer), 200, framing.JSON_TYPE, headers)

    return finish


async def _written(
    store: Environments, namespace: str, extra: dict[str, Any], mime_type: str | None, data: bytes
) -> dict[str, Any]:
    """A finished upload's bytes written to its environment's workspace (the file, or the archive's files); the
    upload's final answer."""
    env = await settled(store.get(namespace, extra["environment"]))
    if env is None:
        raise errors.ApiError(404, NOT_FOUND)
    if extra["extract"]:
        written = await asyncio.to_thread(_unpack, data, extra["path"])
    else:
        written = {extra["path"]: (data, mime_type or DEFAULT_MIME)}
    try:
        kept = await settled(store.write(env, written, bool(extra["overwrite"])))
    except FileExists as there:
        raise errors.ApiError(409, f"File {there} already exists.", status="ALREADY_EXISTS") from None
    except BadPath as bad:
        raise errors.invalid_argument(str(bad)) from None
    except EnvironmentsFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.", status="RESOURCE_EXHAUSTED") from None
    except KeyError:
        raise errors.ApiError(404, NOT_FOUND) from None
    if extra["extract"]:
        return {"files": [file_view(path, held) for path, held in kept]}
    return {"file": file_view(*kept[0])}


def _unpack(data: bytes, under: str) -> dict[str, tuple[bytes, str]]:
    """A tar or tar.gz archive's regular files, by workspace path under `under` (bounded: at most MAX_FILES members
    read, MAX_FILE_BYTES in all); its 400 when it is not an archive or names a path that cannot be one."""
    out: dict[str, tuple[bytes, str]] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            for count, member in enumerate(archive):
                if count >= MAX_FILES:
                    raise errors.invalid_argument(f"The archive holds more than {MAX_FILES} entries.")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise errors.invalid_argument(f"The archive's {member.name[:100]} is not a regular file.")
                total += member.size
                if total > MAX_FILE_BYTES:
                    raise errors.invalid_argument(f"The archive unpacks to more than {MAX_FILE_BYTES} bytes.")
                path = _path(f"{under}/{member.name}")
                handle = archive.extractfile(member)
                content = handle.read(member.size) if handle is not None else b""
                out[path] = (content, mimetypes.guess_type(path)[0] or DEFAULT_MIME)
    except (tarfile.TarError, EOFError, OSError):
        raise errors.invalid_argument("The upload is not a tar or tar.gz archive.") from None
    return out


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()[:100]


class AdminView:
    """The environments as the admin API lists, removes and resets them (admin.api.Resources)."""

    def __init__(self, store: Environments) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": env.namespace,
                "name": f"environments/{env.id}",
                "mode": env.config.get("mode", "on_demand"),
                "files": len(env.files),
                "sizeBytes": env.size,
                "created": stamp(env.created),
            }
            for env in self.store.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.store, RedisEnvironmentStore):  # the sync client, as the batches' admin view
            return self.store.delete_sync(namespace, name.removeprefix("environments/"))
        return self.store.delete(namespace, name.removeprefix("environments/"))

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
