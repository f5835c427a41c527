"""The request journal: every API request and what was sent back, capped, with credentials redacted.

Each record holds time, namespace, HTTP method, path, query, headers, the parsed body, the RPC and model,
which script entry answered (or "zero-config"), the status, and the response body as sent (streams
included). API keys, bearer tokens, App Check tokens and cookies never enter it: header values and the
`key` query parameter are replaced by "REDACTED", and namespaces are named by a digest of the credential.
The oldest records are evicted past the cap, and evictions are counted.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from time import monotonic
from time import time as wall_clock
from typing import Any

import orjson

from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.wire.incoming import RawHeaders

REDACTED = "REDACTED"
SECRET_HEADERS = frozenset(
    {
        "x-goog-api-key",
        "authorization",
        "cookie",
        "set-cookie",
        "x-firebase-appcheck",
        "proxy-authorization",
        ADMIN_TOKEN_HEADER,
    }
)
SECRET_QUERY = frozenset({"key", "access_token"})
MAX_RESPONSE_TEXT = 1 << 20  # a journaled response body keeps its first MiB


_SECRET_NAMES = frozenset(name.encode() for name in SECRET_HEADERS)
_HEADER_SETS: dict[tuple[tuple[bytes, bytes], ...], dict[str, str]] = {}
_HEADER_SETS_MAX = 1024


def redact_headers(raw: RawHeaders) -> dict[str, str]:
    """A request's headers as the journal keeps them (ASGI's lowercase names; a repeated name keeps its last
    value), secrets replaced. Clients send the same header set again and again, so each distinct set is
    redacted once and its one read-only dict shared by every record that carries it (a bounded table)."""
    key = tuple(raw)
    known = _HEADER_SETS.get(key)
    if known is not None:
        return known
    redacted = {_shared(k): REDACTED if k in _SECRET_NAMES else _shared(v) for k, v in raw}
    if len(_HEADER_SETS) >= _HEADER_SETS_MAX:
        _HEADER_SETS.clear()
    _HEADER_SETS[key] = redacted
    return redacted


_STRINGS: dict[bytes, str] = {}
_STRINGS_MAX = 4096


def _shared(raw: bytes) -> str:
    """One decoded copy of each header name and of values that repeat (user agents, content types, hosts) for
    the whole journal, instead of one per record; a bounded table, so unique values cost nothing extra."""
    known = _STRINGS.get(raw)
    if known is not None:
        return known
    text = raw.decode("latin-1")
    if len(_STRINGS) < _STRINGS_MAX and len(raw) <= 256:
        _STRINGS[raw] = text
    return text


_NO_QUERY: dict[str, str] = {}  # shared by every record without a query (records never change it)


def redact_query(query: Mapping[str, str]) -> dict[str, str]:
    if not query:
        return _NO_QUERY
    return {k: (REDACTED if k in SECRET_QUERY else v) for k, v in query.items()}


class _Json(str):
    """A parsed body kept as its compact JSON text, a tenth of the parsed objects' size (a body that was not JSON
    stays a plain str)."""

    __slots__ = ()

    def parsed(self) -> Any:
        return orjson.loads(str(self))  # orjson reads exact str only


@dataclass(slots=True)
class Record:
    """One request as the journal keeps it; filled in as the request is handled. Kept lean (the journal holds
    thousands): slots, the body as compact JSON text and the response as the bytes sent, decoded when read."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    wall: float = field(default_factory=wall_clock)
    started: float = field(default_factory=monotonic)
    id: int = 0
    namespace: str = ""
    rpc: str = ""
    model: str = ""
    entry: str | None = None
    stored_body: Any = None  # see `body`
    status: int = 0
    sent: bytes = b""
    duration_ms: float = 0.0
    complete: bool = False  # False while a stream is still being sent, or if it was cut off

    @property
    def time(self) -> str:
        return datetime.fromtimestamp(self.wall, UTC).isoformat(timespec="microseconds")

    @property
    def body(self) -> Any:
        """The parsed request body (or its text when it was not JSON)."""
        stored = self.stored_body
        return stored.parsed() if type(stored) is _Json else stored

    @body.setter
    def body(self, value: Any) -> None:
        if isinstance(value, dict | list):
            try:  # key order kept; decoded because orjson's bytes are over-allocated (4 KiB for a short body)
                value = _Json(orjson.dumps(value).decode())
            except (orjson.JSONEncodeError, TypeError):  # integers past 64 bits: kept as parsed
                pass
        self.stored_body = value

    @property
    def response(self) -> str:
        """The response body as sent (its first MiB)."""
        return self.sent.decode("utf-8", "replace")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": self.time,
            "namespace": self.namespace,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "rpc": self.rpc,
            "model": self.model,
            "entry": self.entry,
            "body": self.body,
            "status": self.status,
            "response": self.response,
            "durationMs": round(self.duration_ms, 3),
            "complete": self.complete,
        }


class Journal:
    """A bounded, thread-safe list of records, oldest evicted first."""

    def __init__(self, cap: int = 10_000) -> None:
        self.cap = cap
        self.evicted = 0
        self._records: deque[Record] = deque()
        self._next_id = 1
        self._lock = threading.Lock()

    def begin(self, method: str, path: str, query: Mapping[str, str], headers: RawHeaders) -> Record:
        """A new record for a request (`headers`: the ASGI scope's raw list), appended; the oldest evicted."""
        record = Record(method, path, redact_query(query), redact_headers(headers))
        with self._lock:
            record.id = self._next_id
            self._next_id += 1
            self._records.append(record)
            while len(self._records) > self.cap:
                self._records.popleft()
                self.evicted += 1
        return record

    @staticmethod
    def finish(record: Record, status: int, body: bytes, complete: bool = True) -> None:
        record.status = status
        record.sent = bytes(body[:MAX_RESPONSE_TEXT])
        record.duration_ms = (monotonic() - record.started) * 1000
        record.complete = complete

    async def tee(
        self, record: Record, status: int, pieces: AsyncIterable[bytes | str | memoryview]
    ) -> AsyncIterator[bytes | str | memoryview]:
        """Pass a streamed body through, journaling it as it was sent (complete only if it ended cleanly)."""
        sent: list[bytes] = []
        size = 0
        complete = False
        try:
            async for piece in pieces:
                if size < MAX_RESPONSE_TEXT:
                    sent.append(piece if isinstance(piece, bytes) else _as_bytes(piece))
                    size += len(piece)
                yield piece
            complete = True
        finally:
            self.finish(record, status, b"".join(sent), complete)

    def query(
        self, namespace: str | None = None, model: str | None = None, rpc: str | None = None, since: int = 0
    ) -> list[Record]:
        """Records in order, filtered; `since` keeps ids greater than it."""
        with self._lock:
            records = list(self._records)
        return [
            r
            for r in records
            if r.id > since
            and (namespace is None or r.namespace == namespace)
            and (model is None or r.model == model.removeprefix("models/"))
            and (rpc is None or r.rpc == rpc)
        ]

    def counts(self) -> dict[str, int]:
        """Records held per namespace."""
        with self._lock:
            return dict(Counter(r.namespace for r in self._records))

    def clear(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._records.clear()
            else:
                self._records = deque(r for r in self._records if r.namespace != namespace)


def _as_bytes(piece: str | memoryview) -> bytes:
    """A streamed piece that is not bytes (Starlette allows str and memoryview; ours are all bytes)."""
    return piece.encode() if isinstance(piece, str) else bytes(piece)
