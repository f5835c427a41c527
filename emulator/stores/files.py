"""Stored files (the Files API), per namespace, with their bytes held in memory up to a budget and spilled to a
temporary directory past it. The wire room (gemini_emulator.wire.resources.files) speaks the upload protocols;
other producers (a batch's result file, a generated video) store bytes directly:

    files = FileStore(budget_bytes=2 << 30, memory_bytes=64 << 20)
    f = files.put(namespace, b"{...}\\n", "application/jsonl", display_name="results", source="GENERATED")
    f.name            # "files/abc123": printed by view(base_url) with the uri, sizeBytes, sha256Hash...
    files.get(namespace, "files/abc123")   # None for another namespace's, a deleted or an expired file
    files.read(f)     # the bytes (iter_bytes(f) for chunks)

An upload in progress is a `Spool`: `spool()` gives one, `write()` feeds it (counted against the budget as it
grows; past it or past MAX_FILE_BYTES a write raises FilesFull or FileTooLarge), `store(namespace, spool, ...)`
makes it a file. Files expire 48 hours after creation, as production's do (checked on read). A file's state is
PROCESSING until `ready_at` (video files take `video_processing_s`, others none), then ACTIVE; `set_state` makes
one stay PROCESSING or go FAILED (the admin API's `PUT /__emulator/files/state`), and `next_state` does that to a
namespace's next upload. `close()` removes the temporary directory (also done at interpreter exit).
"""

from __future__ import annotations

import atexit
import base64
import builtins
import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from time import monotonic
from typing import Any, Protocol

from gemini_emulator.stores.operations import new_id

MAX_FILE_BYTES = 2 * 1024**3  # production: 2 GB per file
EXPIRY_NS = 48 * 3600 * 10**9  # production: files are kept 48 hours
MAX_FILES_PER_NAMESPACE = 10_000
MAX_DISPLAY_NAME = 512
NAME_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")  # up to 40 of [a-z0-9-], no dash at either end
STATES = ("PROCESSING", "ACTIVE", "FAILED")
REPLICA_NAME = re.compile(r"[A-Za-z0-9]{1,16}")  # config.REPLICA_PATTERN: no dash, so `NAME-` begins no other's ids
_READ_CHUNK = 1 << 20


class FilesFull(Exception):
    """The byte budget of stored files is spent."""


class FileTooLarge(Exception):
    """A file past MAX_FILE_BYTES (or the upload's declared size)."""


class SpoolClosed(Exception):
    """Bytes for an upload that has ended (cancelled, evicted or made a file) while they were arriving."""


def stamp(ns: int, digits: int = 6) -> str:
    """An RFC 3339 UTC time with `digits` fractional digits, as production prints File times."""
    seconds, rest = divmod(ns, 10**9)
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{rest:09d}"[: len(text) + 1 + digits] + "Z"


class Spool:
    """Bytes arriving for one file: in memory while the store's memory budget allows, else in a file of its
    temporary directory. Hashes as it goes."""

    def __init__(self, store: FileStore, limit: int) -> None:
        self.store = store
        self.limit = limit
        self.size = 0
        self.digest = hashlib.sha256()
        self._memory: bytearray | None = bytearray()
        self._path: str | None = None
        self._file: Any = None
        self.closed = False

    def write(self, data: bytes) -> None:
        """Count and keep `data`; SpoolClosed once the spool was finished or discarded (its bytes already given
        back: what arrives after must not be spent from the budget again)."""
        if not data:
            return
        if self.closed:
            raise SpoolClosed()
        if self.size + len(data) > self.limit:
            raise FileTooLarge(self.limit)
        in_memory = self.store._reserve(len(data), self._memory is not None)
        self.size += len(data)
        self.digest.update(data)
        if in_memory and self._memory is not None:
            self._memory += data
            return
        if self._file is None:
            self._spill()
        self._file.write(data)

    def _spill(self) -> None:
        fd, self._path = tempfile.mkstemp(dir=self.store.directory(), prefix="file-")
        self._file = os.fdopen(fd, "wb")
        if self._memory:
            self._file.write(self._memory)
            with self.store._lock:
                self.store._memory_used -= len(self._memory)
        self._memory = None

    def finish(self) -> Blob:
        """The bytes as a Blob, once: SpoolClosed for a spool already finished or discarded (a blob released
        twice would give its size back twice)."""
        if self.closed:
            raise SpoolClosed()
        if self._file is not None:
            self._file.close()
            self._file = None
        self.closed = True
        return Blob(self.size, bytes(self._memory) if self._memory is not None else None, self._path)

    def discard(self) -> None:
        """Give the bytes back (an upload cancelled, refused or abandoned)."""
        if self.closed:
            return
        blob = self.finish()
        self.store._release(blob)


@dataclass
class Blob:
    """A stored file's bytes: `memory`, or the file at `path`."""

    size: int
    memory: bytes | None
    path: str | None


@dataclass
class StoredFile:
    """One file; `view(base_url)` is production's File message."""

    name: str
    namespace: str
    mime_type: str
    blob: Blob
    sha256_hex: str
    created_ns: int
    expires_ns: int
    ready_at: float
    clock: Callable[[], float]
    display_name: str = ""
    source: str = "UPLOADED"
    forced_state: str = ""  # "PROCESSING" (held) or "FAILED" (set by a script or the admin API)
    error: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # a producer's own notes (never printed)
    bytes_known: bool = True  # False: a metadata-only or registered file, whose size and hash are not printed
    gcs_uri: str = ""  # a registered file's Cloud Storage object (files:register)

    @property
    def id(self) -> str:
        return self.name.removeprefix("files/")

    @property
    def size(self) -> int:
        return self.blob.size

    @property
    def state(self) -> str:
        if self.forced_state:
            return self.forced_state
        return "ACTIVE" if self.clock() >= self.ready_at else "PROCESSING"

    def view(self, base_url: str) -> dict[str, Any]:
        """The File as production prints it (field order of the File message; a capture of google-genai's upload
        answer): name, displayName (when set), mimeType, sizeBytes (int64 as a string), createTime, updateTime,
        expirationTime, sha256Hash (base64 of the hex digest, as production spells it), uri, downloadUri (generated
        files), state, source, error (FAILED). A file whose bytes the emulator never saw (metadata-only, registered)
        prints neither sizeBytes nor sha256Hash (proto3 JSON leaves unset fields out)."""
        body: dict[str, Any] = {"name": self.name}
        if self.display_name:
            body["displayName"] = self.display_name
        created = stamp(self.created_ns)
        body["mimeType"] = self.mime_type
        if self.bytes_known:
            body["sizeBytes"] = str(self.size)
        body |= {"createTime": created, "updateTime": created, "expirationTime": stamp(self.expires_ns, 9)}
        if self.bytes_known:
            body["sha256Hash"] = base64.b64encode(self.sha256_hex.encode()).decode()
        body["uri"] = f"{base_url}/v1beta/{self.name}"
        if self.source == "GENERATED":
            body["downloadUri"] = f"{base_url}/v1beta/{self.name}:download?alt=media"
        state = self.state
        body["state"] = state
        body["source"] = self.source
        if state == "FAILED":
            body["error"] = self.error or {"code": 3, "message": "File processing failed."}
        return body


MAX_SESSIONS = 256  # resumable uploads open at once, all namespaces together
MAX_SESSIONS_PER_NAMESPACE = 32  # one key's share: past it that key's own oldest session gives way
SESSION_TTL_S = 3600.0  # an upload not finished within the hour is dropped


@dataclass
class UploadSession:
    """A resumable upload between its `start` and its `finalize`: who started it and what it said the file is."""

    id: str
    namespace: str
    mime_type: str
    display_name: str
    name: str | None
    declared_size: int | None
    spool: Spool
    started: float
    kind: str = "file"  # what the finished bytes become: "file", or "document" (a file search store's upload)
    receiving: bool = False  # a request is streaming bytes into the spool now
    extra: dict[str, Any] = field(default_factory=dict)  # the starter's own notes (a document's store, metadata)


class FileStore:
    """Every namespace's files (module docstring: the API and the bounds). Thread-safe."""

    def __init__(
        self,
        budget_bytes: int = 2 << 30,
        memory_bytes: int = 64 << 20,
        video_processing_s: float = 0.5,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_per_namespace: int = MAX_FILES_PER_NAMESPACE,
        clock: Callable[[], float] = monotonic,
        wall_ns: Callable[[], int] = time.time_ns,
        replica: str = "",
    ) -> None:
        if replica and REPLICA_NAME.fullmatch(replica) is None:
            raise ValueError(f"a replica name is 1 to 16 letters and digits, not {replica[:80]!r}")
        self.upload_prefix = f"{replica}-" if replica else ""  # begins every upload id (docs/scaling.md)
        self.budget_bytes = budget_bytes
        self.memory_bytes = memory_bytes
        self.video_processing_s = video_processing_s
        self.max_file_bytes = max_file_bytes
        self.max_per_namespace = max_per_namespace
        self.clock = clock
        self.wall_ns = wall_ns
        self.used = 0  # bytes held by files and spools
        self._memory_used = 0
        self._spaces: dict[str, OrderedDict[str, StoredFile]] = {}
        self._next: dict[str, tuple[str, dict[str, Any] | None]] = {}
        self._sessions: OrderedDict[str, UploadSession] = OrderedDict()
        self._lock = threading.RLock()
        self._dir: str | None = None
        self._finalizer: weakref.finalize | None = None
        self.elsewhere = False  # True on --store redis://...: the Files API's files are in Redis, not here

    # --- bytes -------------------------------------------------------------------------------------

    def directory(self) -> str:
        """The temporary directory spilled files go to, made on first use; removed by `close` or at exit."""
        with self._lock:
            if self._dir is None:
                self._dir = tempfile.mkdtemp(prefix="gemini-emulator-files-")
                self._finalizer = weakref.finalize(self, shutil.rmtree, self._dir, True)
                atexit.register(self._finalizer)
            return self._dir

    def close(self) -> None:
        """Forget every file and remove the temporary directory."""
        self.reset()
        if self._finalizer is not None:
            self._finalizer()
            self._dir = None
            self._finalizer = None

    def _reserve(self, size: int, may_stay_in_memory: bool) -> bool:
        """Count `size` more bytes against the budget (FilesFull past it); True when they may be kept in memory
        (counted against the memory budget too)."""
        with self._lock:
            if self.used + size > self.budget_bytes:
                raise FilesFull(self.budget_bytes)
            self.used += size
            if may_stay_in_memory and self._memory_used + size <= self.memory_bytes:
                self._memory_used += size
                return True
            return False

    def _release(self, blob: Blob) -> None:
        with self._lock:
            self.used -= blob.size
            if blob.memory is not None:
                self._memory_used -= len(blob.memory)
        if blob.path is not None:
            try:
                os.unlink(blob.path)
            except OSError:
                pass

    def spool(self, limit: int | None = None) -> Spool:
        """A new upload's bytes, at most `limit` (and MAX_FILE_BYTES)."""
        return Spool(self, min(limit if limit is not None else self.max_file_bytes, self.max_file_bytes))

    def drain(self, spool: Spool, keep: int) -> bytes:
        """A finished upload that becomes no file (a file search store's document): its first `keep` bytes;
        the rest are given back to the budget at once."""
        blob = spool.finish()
        try:
            if blob.memory is not None:
                return blob.memory[:keep]
            if blob.path is None:
                return b""
            with open(blob.path, "rb") as handle:
                return handle.read(keep)
        finally:
            self._release(blob)

    def read(self, file: StoredFile) -> bytes:
        return b"".join(self.iter_bytes(file))

    def iter_bytes(self, file: StoredFile) -> Iterator[bytes]:
        """The file's bytes in chunks of at most a MiB."""
        blob = file.blob
        if blob.memory is not None:
            for start in range(0, len(blob.memory), _READ_CHUNK):
                yield blob.memory[start : start + _READ_CHUNK]
            return
        if blob.path is None:
            return
        with open(blob.path, "rb") as handle:
            while chunk := handle.read(_READ_CHUNK):
                yield chunk

    # --- resumable uploads -------------------------------------------------------------------------

    def start_upload(
        self,
        namespace: str,
        mime_type: str,
        display_name: str,
        name: str | None,
        declared_size: int | None,
        kind: str = "file",
        extra: dict[str, Any] | None = None,
    ) -> UploadSession:
        """A new upload session, its id unguessable (it is the only credential the follow-up requests carry; with a
        replica name it begins `NAME-`, which only routes: the 64 random characters after it are the secret).
        Past MAX_SESSIONS_PER_NAMESPACE the namespace's own oldest session gives way; past MAX_SESSIONS the oldest
        of the namespace holding the most (so one key cannot evict another's upload in progress); sessions past
        SESSION_TTL_S are dropped."""
        limit = declared_size if declared_size is not None else self.max_file_bytes
        session = UploadSession(
            id=self.upload_prefix + base64.urlsafe_b64encode(os.urandom(48)).decode().rstrip("="),
            namespace=namespace,
            mime_type=mime_type,
            display_name=display_name,
            name=name,
            declared_size=declared_size,
            spool=self.spool(limit),
            started=self.clock(),
            kind=kind,
            extra=dict(extra or {}),
        )
        with self._lock:
            self._prune_sessions()
            mine = [k for k, v in self._sessions.items() if v.namespace == namespace]
            while len(mine) >= MAX_SESSIONS_PER_NAMESPACE:
                self._sessions.pop(mine.pop(0)).spool.discard()
            while len(self._sessions) >= MAX_SESSIONS:
                held: dict[str, int] = {}
                for other in self._sessions.values():
                    held[other.namespace] = held.get(other.namespace, 0) + 1
                hog = max(held, key=lambda ns: held[ns])
                oldest = next(k for k, v in self._sessions.items() if v.namespace == hog)
                self._sessions.pop(oldest).spool.discard()
            self._sessions[session.id] = session
        return session

    def upload(self, upload_id: str) -> UploadSession | None:
        with self._lock:
            self._prune_sessions()
            return self._sessions.get(upload_id)

    def end_upload(self, upload_id: str, discard: bool = False) -> None:
        """The session is over (finalized: its spool became a file; else its bytes are given back)."""
        with self._lock:
            session = self._sessions.pop(upload_id, None)
        if session is not None and discard:
            session.spool.discard()

    def _prune_sessions(self) -> None:
        deadline = self.clock() - SESSION_TTL_S
        for key in [k for k, v in self._sessions.items() if v.started < deadline]:
            self._sessions.pop(key).spool.discard()

    # --- files -------------------------------------------------------------------------------------

    def store(
        self,
        namespace: str,
        spool: Spool,
        mime_type: str,
        display_name: str = "",
        name: str | None = None,
        source: str = "UPLOADED",
    ) -> StoredFile:
        """A finished spool as the namespace's file `name` (or a new id). The caller checked the name is free."""
        blob = spool.finish()
        now_ns = self.wall_ns()
        processing = self.video_processing_s if mime_type.startswith("video/") else 0.0
        with self._lock:
            space = self._live(namespace)
            if name is None:
                name = "files/" + new_id()
                while name in space:
                    name = "files/" + new_id()
            stored = StoredFile(
                name=name,
                namespace=namespace,
                mime_type=mime_type,
                blob=blob,
                sha256_hex=spool.digest.hexdigest(),
                created_ns=now_ns,
                expires_ns=now_ns + EXPIRY_NS,
                ready_at=self.clock() + processing,
                clock=self.clock,
                display_name=display_name,
                source=source,
            )
            forced = self._next.pop(namespace, None)
            if forced is not None:
                stored.forced_state, stored.error = forced
            space[name] = stored
            while len(space) > self.max_per_namespace:
                self._forget(space, next(iter(space)))
        return stored

    def put(
        self,
        namespace: str,
        data: bytes,
        mime_type: str,
        display_name: str = "",
        source: str = "GENERATED",
    ) -> StoredFile:
        """Bytes a producer made (a batch's results, a video) as a file; FilesFull past the budget."""
        spool = self.spool()
        try:
            spool.write(data)
        except Exception:
            spool.discard()
            raise
        return self.store(namespace, spool, mime_type, display_name, source=source)

    def record(
        self,
        namespace: str,
        mime_type: str,
        display_name: str = "",
        name: str | None = None,
        source: str = "UPLOADED",
        gcs_uri: str = "",
    ) -> StoredFile:
        """A file without bytes: a metadata-only create (`POST /{v}/files`) or a registered Cloud Storage object
        (`files:register`, `gcs_uri`): no size or hash is printed, and its bytes read as empty."""
        stored = self.store(namespace, self.spool(), mime_type, display_name, name, source)
        stored.bytes_known = False
        stored.gcs_uri = gcs_uri
        return stored

    def _live(self, namespace: str) -> OrderedDict[str, StoredFile]:
        """The namespace's files, the expired ones forgotten (the caller holds the lock)."""
        space = self._spaces.setdefault(namespace, OrderedDict())
        now = self.wall_ns()
        for name in [n for n, f in space.items() if f.expires_ns <= now]:
            self._forget(space, name)
        return space

    def _forget(self, space: OrderedDict[str, StoredFile], name: str) -> None:
        stored = space.pop(name)
        self._release(stored.blob)

    def exists(self, namespace: str, name: str) -> bool:
        return self.get(namespace, name) is not None

    def get(self, namespace: str, name: str) -> StoredFile | None:
        with self._lock:
            if namespace not in self._spaces:
                return None
            return self._live(namespace).get(name)

    def list(self, namespace: str, page_size: int, page_token: str = "") -> tuple[builtins.list[StoredFile], str]:
        """A page of the namespace's files, newest first, and the next page's token ("" at the end): the name of
        the next file to show (an unknown token starts over)."""
        with self._lock:
            files = list(reversed(self._live(namespace).values())) if namespace in self._spaces else []
        start = next((i for i, f in enumerate(files) if f.name == page_token), 0) if page_token else 0
        page = files[start : start + page_size]
        following = files[start + page_size].name if start + page_size < len(files) else ""
        return page, following

    def all(self, namespace: str | None = None) -> builtins.list[StoredFile]:
        with self._lock:
            names = [namespace] if namespace is not None else list(self._spaces)
            return [f for n in names if n in self._spaces for f in self._live(n).values()]

    def delete(self, namespace: str, name: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None or name not in space:
                return False
            self._forget(space, name)
            return True

    def set_state(self, namespace: str, name: str, state: str, error: dict[str, Any] | None = None) -> bool:
        """Make a file stay PROCESSING, go FAILED (with `error`, a google.rpc.Status) or be ACTIVE."""
        stored = self.get(namespace, name)
        if stored is None:
            return False
        stored.forced_state = "" if state == "ACTIVE" else state
        stored.error = error if state == "FAILED" else None
        if state == "ACTIVE":
            stored.ready_at = self.clock()
        return True

    def next_state(self, namespace: str, state: str, error: dict[str, Any] | None = None) -> None:
        """The namespace's next stored file gets `state` (PROCESSING or FAILED; ACTIVE clears the rule)."""
        with self._lock:
            if state == "ACTIVE":
                self._next.pop(namespace, None)
            else:
                self._next[namespace] = (state, error if state == "FAILED" else None)

    def counts(self) -> dict[str, tuple[int, int]]:
        """Per namespace: files held and their bytes."""
        with self._lock:
            return {k: (len(v), sum(f.size for f in v.values())) for k, v in self._spaces.items() if v}

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            names = [namespace] if namespace is not None else list(self._spaces)
            for name in names:
                space = self._spaces.pop(name, None)
                self._next.pop(name, None)
                for stored in (space or {}).values():
                    self._release(stored.blob)
            for key in [k for k, v in self._sessions.items() if namespace is None or v.namespace == namespace]:
                self._sessions.pop(key).spool.discard()


class FileReader(Protocol):
    """The async face of stored files that other rooms read and write through (a generate request's fileData, a
    batch's input and result files, a generated video, a file search import): FileAccess over the in-memory
    store, or stores.files_redis.RedisFileStore on `--store redis://...`."""

    remote: bool

    async def get(self, namespace: str, name: str) -> StoredFile | None: ...

    async def read(self, file: StoredFile) -> bytes: ...

    def chunks(self, file: StoredFile) -> AsyncIterator[bytes]: ...

    async def put(
        self, namespace: str, data: bytes, mime_type: str, display_name: str = "", source: str = "GENERATED"
    ) -> StoredFile: ...

    async def delete(self, namespace: str, name: str) -> bool: ...


class FileAccess:
    """FileReader over a FileStore: each method answers at once (the memory store holds the bytes here)."""

    remote = False

    def __init__(self, files: FileStore) -> None:
        self.files = files

    async def get(self, namespace: str, name: str) -> StoredFile | None:
        return self.files.get(namespace, name)

    async def read(self, file: StoredFile) -> bytes:
        return self.files.read(file)

    async def chunks(self, file: StoredFile) -> AsyncIterator[bytes]:
        for chunk in self.files.iter_bytes(file):
            yield chunk

    async def put(
        self, namespace: str, data: bytes, mime_type: str, display_name: str = "", source: str = "GENERATED"
    ) -> StoredFile:
        return self.files.put(namespace, data, mime_type, display_name, source)

    async def delete(self, namespace: str, name: str) -> bool:
        return self.files.delete(namespace, name)
