"""The request journal: every API request and what was sent back, capped, with credentials redacted.

Each record holds time, namespace, HTTP method, path, query, headers, the parsed body, the RPC and model,
which script entry answered (or "zero-config"), the status, and the response body as sent (streams
included), media in either body by its size (`elide_media`), not its bytes. API keys, bearer tokens, App Check
tokens and cookies never enter it: header values and the `key` query parameter are replaced by "REDACTED" (an
Authorization header keeps its scheme: "Bearer REDACTED", "Firebase REDACTED"), and namespaces are named by a
digest of the credential.

The journal is bounded twice: by its record cap (--journal-cap) and by MAX_BYTES of stored bodies; a request body,
like a response body, keeps its first MiB. Past either bound the oldest record of the namespace holding the most
(records, or bytes) is evicted, so one namespace's traffic evicts its own records, not another's; evictions are
counted per namespace. Reads come in pages (PAGE_RECORDS records or PAGE_BYTES, whichever comes first).
"""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict, deque
from collections.abc import Mapping
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
SECRET_QUERY = frozenset({"key", "access_token", "upload_id"})  # upload_id: a resumable upload's only credential
MAX_RESPONSE_TEXT = 1 << 20  # a journaled response body keeps its first MiB
MAX_BODY_TEXT = 1 << 20  # so does a request body (as JSON text)
MAX_BYTES = 256 << 20  # stored bodies across the journal
RECORD_OVERHEAD = 1024  # what a record costs beyond its bodies (its fields, headers shared between records)
PAGE_RECORDS = 1000  # records per page of GET /__emulator/journal (at most; ?limit= asks for fewer)
PAGE_BYTES = 16 << 20  # stored bodies per page (a page always holds at least one record)


# Media in bodies (inline images, speech, Imagen and Veo bytes) is journaled by size, not by its bytes: a base64
# value of MEDIA_MIN_CHARS or more under one of these keys becomes "<N bytes of base64 media>", its mimeType
# (a sibling key) left as it was. The pattern is linear (one character class, no nesting).
MEDIA_MIN_CHARS = 256
_MEDIA_VALUE = re.compile(
    rb'("(?:data|bytesBase64Encoded|videoBytes|imageBytes|audio)"\s*:\s*")([A-Za-z0-9+/_=-]{%d,})"' % MEDIA_MIN_CHARS
)


# Every base64 character as "a", anything else as " ": a body without MEDIA_MIN_CHARS "a"s in a row holds no media
# value, which this finds faster than the pattern can (most bodies: text answers, short prompts).
_BASE64_RUN = bytes(0x61 if re.fullmatch(rb"[A-Za-z0-9+/_=-]", bytes([c])) else 0x20 for c in range(256))
_LONG_RUN = b"a" * MEDIA_MIN_CHARS


def elide_media(body: bytes) -> bytes:
    """`body` with every long base64 media value replaced by its decoded size."""
    if len(body) < MEDIA_MIN_CHARS or b'"' not in body or _LONG_RUN not in body.translate(_BASE64_RUN):
        return body
    return _MEDIA_VALUE.sub(lambda m: m[1] + b'<%d bytes of base64 media>"' % _decoded_size(m[2]), body)


def _decoded_size(text: bytes) -> int:
    return len(text) * 3 // 4 - (len(text) - len(text.rstrip(b"=")))


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
    redacted = {_shared(k): _redacted(k, v) if k in _SECRET_NAMES else _shared(v) for k, v in raw}
    if len(_HEADER_SETS) >= _HEADER_SETS_MAX:
        _HEADER_SETS.clear()
    _HEADER_SETS[key] = redacted
    return redacted


def _redacted(name: bytes, value: bytes) -> str:
    """A secret header's journaled value: "REDACTED", after the scheme of an Authorization header ("Bearer
    REDACTED", "Firebase REDACTED": which credential a call carried, never the credential)."""
    scheme, space, _ = value.partition(b" ")
    if name == b"authorization" and space and scheme.isalpha() and len(scheme) <= 16:
        return f"{scheme.decode('ascii')} {REDACTED}"
    return REDACTED


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
    body_cut: bool = False  # the request body was past MAX_BODY_TEXT: `body` is the first MiB of its JSON text
    size: int = 0  # bytes counted against MAX_BYTES, set when the record is finished
    # A server prompt template call: {"id", "request": the call's own body} as compact JSON text (its first MiB,
    # counted as bodies are); `body` is then the GenerateContentRequest the template rendered.
    template: str | None = None
    delivery: dict[str, Any] | None = None  # a webhook delivery attempt: webhook, event, attempt, outcome (no secret)

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
                text = orjson.dumps(value)  # a body shorter than MEDIA_MIN_CHARS holds no media (elide_media)
                value = _Json((text if len(text) < MEDIA_MIN_CHARS else elide_media(text)).decode())
            except (orjson.JSONEncodeError, TypeError):  # integers past 64 bits: kept as text
                value = str(value)
        if isinstance(value, str) and len(value) > MAX_BODY_TEXT:
            value, self.body_cut = str(value[:MAX_BODY_TEXT]), True
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
            **({"bodyTruncated": True} if self.body_cut else {}),
            **({"template": _template_json(self.template)} if self.template is not None else {}),
            "status": self.status,
            "response": self.response,
            "durationMs": round(self.duration_ms, 3),
            "complete": self.complete,
            **({"delivery": self.delivery} if self.delivery is not None else {}),
        }


def template_text(template_id: str, request: Any) -> str:
    """A template call's `template` field as the record keeps it: compact JSON, the request's first MiB."""
    try:
        text = orjson.dumps({"id": template_id, "request": request}).decode()
    except (orjson.JSONEncodeError, TypeError):  # integers past 64 bits
        text = orjson.dumps({"id": template_id, "request": str(request)[:MAX_BODY_TEXT]}).decode()
    if len(text) > MAX_BODY_TEXT:
        text = orjson.dumps({"id": template_id, "requestTruncated": True}).decode()
    return text


def _template_json(text: str) -> Any:
    return orjson.loads(text)


class Tap:
    """One streamed body on its way into its record: its first MiB kept as sent, media elided piece by piece."""

    __slots__ = ("_journal", "_record", "_status", "_sent", "_size", "_ended")

    def __init__(self, journal: Journal, record: Record, status: int) -> None:
        self._journal, self._record, self._status = journal, record, status
        self._sent: list[bytes] = []
        self._size = 0
        self._ended = False

    def add(self, piece: bytes) -> None:
        if self._size < MAX_RESPONSE_TEXT:
            kept = elide_media(piece)
            self._sent.append(kept)
            self._size += len(kept)

    def end(self, complete: bool) -> None:
        """The body is over (`complete`: it ended cleanly); only the first call counts."""
        if not self._ended:
            self._ended = True
            # One piece is elided already; across pieces a value may span two, so the whole body is looked at again.
            elided = len(self._sent) == 1
            self._journal.finish(self._record, self._status, b"".join(self._sent), complete, elided)


class Journal:
    """A bounded, thread-safe list of records (module docstring: what is evicted, and when)."""

    deferred = False  # records are held at once (RedisJournal's are written later: the app awaits `flushed`)

    def __init__(self, cap: int = 10_000, max_bytes: int = MAX_BYTES) -> None:
        self.cap = cap
        self.max_bytes = max_bytes
        self.evicted = 0
        self.evicted_by: Counter[str] = Counter()
        self._records: dict[int, Record] = {}  # by id, oldest first (in-flight ones included)
        self._finished: defaultdict[str, deque[Record]] = defaultdict(deque)  # per namespace, oldest first
        self._bytes: Counter[str] = Counter()
        self._held = 0  # finished records
        self._held_bytes = 0
        self._next_id = 1
        self._lock = threading.Lock()

    def begin(self, method: str, path: str, query: Mapping[str, str], headers: RawHeaders) -> Record:
        """A new record for a request (`headers`: the ASGI scope's raw list), appended."""
        # redact_query and redact_headers, less their calls for a request without a query and a known header set
        known = _HEADER_SETS.get(tuple(headers))
        record = Record(
            method,
            path,
            redact_query(query) if query else _NO_QUERY,
            known if known is not None else redact_headers(headers),
        )
        with self._lock:
            record.id = self._next_id
            self._next_id += 1
            self._records[record.id] = record
        return record

    def finish(self, record: Record, status: int, body: bytes, complete: bool = True, elided: bool = False) -> None:
        """Fill in the answer (`elided`: its media already elided, as a Tap does piece by piece); the record now
        counts against the bounds, and the biggest namespaces' oldest records are evicted past them."""
        record.status = status
        # A copy of exactly its size: orjson's output (a printed answer) keeps the buffer it was printed into,
        # several KiB for a short body, which 10,000 records would hold on to.
        record.sent = bytes(memoryview(body if elided else elide_media(bytes(body)))[:MAX_RESPONSE_TEXT])
        record.duration_ms = (monotonic() - record.started) * 1000
        record.complete = complete
        stored = record.stored_body
        size = RECORD_OVERHEAD + len(record.sent) + (len(stored) if isinstance(stored, str) else 0)
        if record.template is not None:
            size += len(record.template)
        with self._lock:
            if record.id not in self._records or record.size:  # cleared while it was in flight, or finished
                return
            record.size = size
            name = record.namespace
            self._finished[name].append(record)
            self._held += 1
            self._held_bytes += record.size
            self._bytes[name] += record.size
            while self._held > self.cap:
                finished = self._finished  # one namespace (the usual case) needs no search for the biggest
                biggest = next(iter(finished)) if len(finished) == 1 else max(finished, key=lambda n: len(finished[n]))
                self._evict(biggest)
            while self._held_bytes > self.max_bytes:
                self._evict(max(self._finished, key=self._bytes.__getitem__))

    def _evict(self, name: str) -> None:
        """Drop the namespace's oldest finished record (the caller holds the lock)."""
        held = self._finished[name]
        record = held.popleft()
        if not held:
            del self._finished[name]
        self._records.pop(record.id, None)
        self._held -= 1
        self._held_bytes -= record.size
        left = self._bytes[name] - record.size
        if left:
            self._bytes[name] = left
        else:
            del self._bytes[name]
        self.evicted += 1
        self.evicted_by[name] += 1

    async def flushed(self) -> None:
        """Every finished record is held already (RedisJournal waits for its write here)."""

    def tap(self, record: Record, status: int) -> Tap:
        """What journals a streamed body as it is sent (emulator/wire/sending.py's Stream feeds it each piece):
        complete only if the body ended cleanly."""
        return Tap(self, record, status)

    def query(
        self,
        namespace: str | None = None,
        model: str | None = None,
        rpc: str | None = None,
        since: int = 0,
        limit: int | None = None,
    ) -> list[Record]:
        """Records in order, filtered; `since` keeps ids greater than it; `limit` records at most."""
        return self.page(namespace, model, rpc, since, limit or len(self._records) + 1, max_bytes=None)[0]

    def page(
        self,
        namespace: str | None = None,
        model: str | None = None,
        rpc: str | None = None,
        since: int = 0,
        limit: int = PAGE_RECORDS,
        max_bytes: int | None = PAGE_BYTES,
    ) -> tuple[list[Record], int | None]:
        """One page of `query`: up to `limit` records and about `max_bytes` of bodies (at least one record), and
        the `since` that reads the next page (None: this was the last)."""
        with self._lock:
            records = list(self._records.values())
        model = model.removeprefix("models/") if model is not None else None
        out: list[Record] = []
        size = 0
        for r in records:
            if not (
                r.id > since
                and (namespace is None or r.namespace == namespace)
                and (model is None or r.model == model)
                and (rpc is None or r.rpc == rpc)
            ):
                continue
            if len(out) >= limit or (max_bytes is not None and out and size + r.size > max_bytes):
                return out, out[-1].id
            out.append(r)
            size += r.size or RECORD_OVERHEAD + len(r.sent)
        return out, None

    def counts(self) -> dict[str, int]:
        """Records held per namespace."""
        with self._lock:
            return dict(Counter(r.namespace for r in self._records.values()))

    def clear(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._records.clear()
                self._finished.clear()
                self._bytes.clear()
                self._held = self._held_bytes = 0
                return
            for record in [r for r in self._records.values() if r.namespace == namespace]:
                self._records.pop(record.id, None)
                if record.size:  # finished: counted
                    self._held -= 1
                    self._held_bytes -= record.size
            self._finished.pop(namespace, None)
            self._bytes.pop(namespace, None)  # the namespace's finished records' bytes: all of them gone
