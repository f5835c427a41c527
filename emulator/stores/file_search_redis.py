"""File search stores on Redis (`--store redis://...`): a store created, a document uploaded or imported through
one process is listed, fetched, deleted and searched through any other.

The in-memory twin is stores/file_search.py (FileSearchStores); the room (wire/resources/file_search.py) and a
generate call's `fileSearch` retrieval (wire/resources/searched.py) take this store when the setting names Redis
(`ctx.shared_search`). What is the same: names, views, paging (newest first, the token the next item's name),
STATE_PENDING until the document's ready time (here the wall clock, `time.time`, which every process on one host
shares), the bounds (stores per namespace, documents per store, bytes per document, the overall byte budget of
sizeBytes, `--file-search-budget-bytes`), and search results: the same ranking code (file_search.rank) over the
same prepared chunks in the same upload order. Every check-and-change is one Lua call, so two processes never
both pass a bound.

A document's record holds its metadata and, apart, the bytes its text is read from (its first MAX_TEXT_BYTES; a
media document's whole bytes in a third key, read only by a media download). Each process keeps a bounded LRU
(PARSED_DOCS documents, PARSED_BYTES of text) of parsed documents (chunks and inverted index) keyed by the
document's name and creation stamp, as engines/scripted/redis_store.py caches parsed script entries by version:
a search costs one round trip for the named stores' document lists (SNAPSHOT: each document's name, creation
stamp, ready time, forced state and size, no text), plus one (TEXTS) per FETCH_BYTES of the records and texts of
the active documents this process has not parsed (parsed off the event loop when large). A cached document is
kept as searches read it; its state comes from the fresh list each time, so a document released, failed or
deleted through another process is searched, or not, at once. The process that adds a document parses it before
the add, so it never fetches it back.

Keys (P is seam.state.KEY_PREFIX + "fs:", N a namespace, S a store's name `fileSearchStores/ID`, D a document's
name `fileSearchStores/ID/documents/ID`):
  P z:N     sorted set of the namespace's store names, scored by creation (P seq)
  P s:N:S   hash: the store (display model created updated size)
  P d:N:S   sorted set of the store's document names, scored by creation (P seq)
  P o:N:D   hash: the document (display mime size meta created ready source forced error operation words overlap
            nchunks media)
  P t:N:D   the bytes its text is read from (at most MAX_TEXT_BYTES)
  P m:N:D   a media document's whole bytes
  P used    bytes (sizeBytes) held by every namespace's documents
  P next:N  the state set for the namespace's next document (JSON)

Round trips: store create 1, get 1, list 1, delete 1; document get 1, list 1, delete 1; an upload's or an
import's room checks 1 each, its operation's create 1 (stores/operations_redis.py, where the document's
`operation` lives: polled done through any process) and the add 1; take_next 1; a search 1, plus 1 per
FETCH_BYTES of texts it has not parsed; a media download 1; the admin API's state of one document 2 (its read, then
the document and its operation changed in one call).
"""

from __future__ import annotations

import asyncio
import builtins
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores import file_search as fs
from gemini_emulator.stores.file_search import Document, FileSearchStore, Hit, Prepared, StoreFull
from gemini_emulator.stores.operations_redis import PREFIX as OPERATIONS

PREFIX = KEY_PREFIX + "fs:"
PARSED_DOCS = 1024  # parsed documents a process keeps
PARSED_BYTES = 64 << 20  # ... and the bytes of text they were parsed from
OFF_LOOP_BYTES = 32 * 1024  # texts to parse larger than this in all are parsed in a worker thread
FETCH_BYTES = 16 << 20  # texts fetched per round trip (a reply's bound), at most
MAX_SEARCHED_STORES = 40  # distinct stores one generate call's fileSearch tools may name (best-known bound)

_COMMON = """
local function drop_doc(P, ns, doc)
  local o = P .. 'o:' .. ns .. ':' .. doc
  local size = tonumber(redis.call('HGET', o, 'size') or '0')
  redis.call('DEL', o, P .. 't:' .. ns .. ':' .. doc, P .. 'm:' .. ns .. ':' .. doc)
  return size
end
local function drop_store(P, ns, name)
  local d = P .. 'd:' .. ns .. ':' .. name
  local freed = 0
  for _, doc in ipairs(redis.call('ZRANGE', d, 0, -1)) do freed = freed + drop_doc(P, ns, doc) end
  redis.call('DEL', d, P .. 's:' .. ns .. ':' .. name)
  redis.call('ZREM', P .. 'z:' .. ns, name)
  if freed ~= 0 then redis.call('INCRBY', P .. 'used', -freed) end
  return freed
end
local function counts(P, ns, name, now)
  local a, p, f = 0, 0, 0
  for _, doc in ipairs(redis.call('ZRANGE', P .. 'd:' .. ns .. ':' .. name, 0, -1)) do
    local r = redis.call('HMGET', P .. 'o:' .. ns .. ':' .. doc, 'forced', 'ready')
    local state = r[1]
    if not state or state == '' then
      if now >= tonumber(r[2] or '0') then state = 'STATE_ACTIVE' else state = 'STATE_PENDING' end
    end
    if state == 'STATE_ACTIVE' then a = a + 1 elseif state == 'STATE_PENDING' then p = p + 1 else f = f + 1 end
  end
  return {a, p, f}
end
local function store_row(P, ns, name, now)
  local s = redis.call('HGETALL', P .. 's:' .. ns .. ':' .. name)
  if #s == 0 then return nil end
  return {name, s, counts(P, ns, name, now)}
end
"""

CREATE_STORE = """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
local z = P .. 'z:' .. ns
if redis.call('ZCARD', z) >= tonumber(ARGV[7]) then return -1 end
local s = P .. 's:' .. ns .. ':' .. name
if redis.call('EXISTS', s) == 1 then return 0 end
redis.call('HSET', s, 'display', ARGV[4], 'model', ARGV[5], 'created', ARGV[6], 'updated', ARGV[6], 'size', 0)
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), name)
return 1
"""

READ_STORE = (
    _COMMON
    + """
local row = store_row(ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
if row == nil then return {} end
return row
"""
)

PAGE_STORES = (
    _COMMON
    + """
local P, ns, token, size, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local z = P .. 'z:' .. ns
local start = 0
if token ~= '' then start = redis.call('ZREVRANK', z, token) or 0 end
local names = redis.call('ZREVRANGE', z, start, start + size)
local out = {}
for i = 1, math.min(#names, size) do
  local row = store_row(P, ns, names[i], now)
  if row ~= nil then out[#out + 1] = row end
end
local following = ''
if #names > size then following = names[size + 1] end
return {following, out}
"""
)

DELETE_STORE = (
    _COMMON
    + """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', P .. 's:' .. ns .. ':' .. name) == 0 then return 0 end
if ARGV[4] ~= '1' and redis.call('ZCARD', P .. 'd:' .. ns .. ':' .. name) > 0 then return -1 end
drop_store(P, ns, name)
return 1
"""
)

ROOM = """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', P .. 's:' .. ns .. ':' .. name) == 0 then return -1 end
return redis.call('ZCARD', P .. 'd:' .. ns .. ':' .. name)
"""

# ARGV: P ns store doc max_documents budget size now_ns media? text media, then the document's field/value pairs
ADD_DOC = """
local P, ns, store, doc = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local maxdocs, budget, size = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local s = P .. 's:' .. ns .. ':' .. store
if redis.call('EXISTS', s) == 0 then return -3 end
local d = P .. 'd:' .. ns .. ':' .. store
if redis.call('ZCARD', d) >= maxdocs then return -1 end
local used = tonumber(redis.call('GET', P .. 'used') or '0')
if used + size > budget then return -2 end
local o = P .. 'o:' .. ns .. ':' .. doc
if redis.call('EXISTS', o) == 1 then return 0 end
local fields = {}
for i = 12, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', o, unpack(fields))
redis.call('SET', P .. 't:' .. ns .. ':' .. doc, ARGV[10])
if ARGV[9] == '1' then redis.call('SET', P .. 'm:' .. ns .. ':' .. doc, ARGV[11]) end
redis.call('ZADD', d, redis.call('INCR', P .. 'seq'), doc)
redis.call('HINCRBY', s, 'size', size)
redis.call('HSET', s, 'updated', ARGV[8])
redis.call('INCRBY', P .. 'used', size)
return 1
"""

GET_DOC = """
local P, ns, store, doc = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('EXISTS', P .. 's:' .. ns .. ':' .. store) == 0 then return {-3} end
local h = redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. doc)
if #h == 0 then return {0} end
if ARGV[5] == '1' then
  return {1, h, redis.call('GET', P .. 'm:' .. ns .. ':' .. doc) or ''}
end
return {1, h}
"""

PAGE_DOCS = """
local P, ns, store, token, size = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('EXISTS', P .. 's:' .. ns .. ':' .. store) == 0 then return {-3} end
local d = P .. 'd:' .. ns .. ':' .. store
local start = 0
if token ~= '' then start = redis.call('ZREVRANK', d, token) or 0 end
local names = redis.call('ZREVRANGE', d, start, start + size)
local out = {}
for i = 1, math.min(#names, size) do
  local h = redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. names[i])
  if #h > 0 then out[#out + 1] = {names[i], h} end
end
local following = ''
if #names > size then following = names[size + 1] end
return {1, following, out}
"""

DELETE_DOC = (
    _COMMON
    + """
local P, ns, store, doc = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local s = P .. 's:' .. ns .. ':' .. store
if redis.call('EXISTS', s) == 0 then return -3 end
local o = P .. 'o:' .. ns .. ':' .. doc
if redis.call('EXISTS', o) == 0 then return 0 end
if ARGV[5] ~= '1' and tonumber(redis.call('HGET', o, 'nchunks') or '0') > 0 then return -1 end
local size = drop_doc(P, ns, doc)
redis.call('ZREM', P .. 'd:' .. ns .. ':' .. store, doc)
redis.call('HINCRBY', s, 'size', -size)
redis.call('HSET', s, 'updated', ARGV[6])
if size ~= 0 then redis.call('INCRBY', P .. 'used', -size) end
return 1
"""
)

# The named stores' documents, in upload order: {} for a store that is not the caller's, else {name, rows}, each
# row {document, created, ready, forced, size} (what tells a parsed one and its state; the rest is in TEXTS).
SNAPSHOT = """
local P, ns = ARGV[1], ARGV[2]
local out = {}
for i = 3, #ARGV do
  local store = ARGV[i]
  if redis.call('EXISTS', P .. 's:' .. ns .. ':' .. store) == 0 then
    out[#out + 1] = {}
  else
    local rows = {}
    for _, doc in ipairs(redis.call('ZRANGE', P .. 'd:' .. ns .. ':' .. store, 0, -1)) do
      local r = redis.call('HMGET', P .. 'o:' .. ns .. ':' .. doc, 'created', 'ready', 'forced', 'size')
      if r[1] then rows[#rows + 1] = {doc, r[1], r[2], r[3] or '', r[4] or '0'} end
    end
    out[#out + 1] = {store, rows}
  end
end
return out
"""

# The records and texts of documents a process has not parsed: {hash, text} each ({} for one deleted meanwhile).
TEXTS = """
local P, ns = ARGV[1], ARGV[2]
local out = {}
for i = 3, #ARGV do
  local h = redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. ARGV[i])
  local t = redis.call('GET', P .. 't:' .. ns .. ':' .. ARGV[i])
  if #h == 0 or not t then out[#out + 1] = {} else out[#out + 1] = {h, t} end
end
return out
"""

# The admin API's: one document's state (ARGV[5] '' keeps its ready time, else the new one) and, in the same call,
# its operation's (ARGV[7] the operation's hash in stores/operations_redis.py, '' for none; ARGV[8] what it does:
# `release` its hold, `fail` with the document's error, or `hold` it while not done; ARGV[9] the time now), as
# file_search.FileSearchView.set_state changes an in-memory operation. Only a `fileSearch` operation is changed.
SET_STATE = """
local o = ARGV[1] .. 'o:' .. ARGV[2] .. ':' .. ARGV[3]
if redis.call('EXISTS', o) == 0 then return 0 end
redis.call('HSET', o, 'forced', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', o, 'ready', ARGV[5]) end
if ARGV[6] == '' then redis.call('HDEL', o, 'error') else redis.call('HSET', o, 'error', ARGV[6]) end
local op, action = ARGV[7], ARGV[8]
if op ~= '' and redis.call('HGET', op, 'kind') == 'fileSearch' then
  local f = redis.call('HMGET', op, 'cancelled', 'held', 'response', 'error', 'ready')
  if action == 'release' then
    redis.call('HSET', op, 'held', '0')
  elseif action == 'fail' then
    if f[1] ~= '1' then
      redis.call('HDEL', op, 'response')
      redis.call('HSET', op, 'error', ARGV[6], 'ready', ARGV[9], 'held', '0')
    end
  elseif action == 'hold' then
    local done = f[1] == '1' or (f[2] ~= '1' and (f[3] or f[4]) and tonumber(ARGV[9]) >= tonumber(f[5] or '0'))
    if not done then redis.call('HSET', op, 'held', '1') end
  end
end
return 1
"""

# Every store of a namespace with its documents (the admin API's listing; bounded by the per-namespace bounds).
ALL = (
    _COMMON
    + """
local P, ns, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = {}
for _, name in ipairs(redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)) do
  local row = store_row(P, ns, name, now)
  if row ~= nil then
    local docs = {}
    for _, doc in ipairs(redis.call('ZRANGE', P .. 'd:' .. ns .. ':' .. name, 0, -1)) do
      local h = redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. doc)
      if #h > 0 then docs[#docs + 1] = {doc, h} end
    end
    row[4] = docs
    out[#out + 1] = row
  end
end
return out
"""
)

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do drop_store(P, ns, name) end
redis.call('DEL', P .. 'z:' .. ns, P .. 'next:' .. ns)
return #names
"""
)

SCRIPTS = {
    "create_store": CREATE_STORE,
    "read_store": READ_STORE,
    "page_stores": PAGE_STORES,
    "delete_store": DELETE_STORE,
    "room": ROOM,
    "add_doc": ADD_DOC,
    "get_doc": GET_DOC,
    "page_docs": PAGE_DOCS,
    "delete_doc": DELETE_DOC,
    "snapshot": SNAPSHOT,
    "texts": TEXTS,
    "set_state": SET_STATE,
    "all": ALL,
    "reset": RESET,
}


def _fields(flat: Any) -> dict[str, bytes]:
    """A hash from a Lua reply's flat field/value list."""
    if isinstance(flat, dict):
        return {_text(k): bytes(v) for k, v in flat.items()}
    return {_text(flat[i]): bytes(flat[i + 1]) for i in range(0, len(flat), 2)}


class SharedStore(FileSearchStore):
    """A store as Redis holds it: its size and its documents' counts by state as counted there (its `documents`
    are not loaded)."""

    def __init__(self, name: str, namespace: str, fields: dict[str, bytes], counts: Sequence[int]) -> None:
        super().__init__(
            name,
            namespace,
            fields.get("display", b"").decode(),
            fields.get("model", b"").decode() or fs.DEFAULT_EMBEDDING_MODEL,
            int(fields.get("created", b"0")),
            int(fields.get("updated", b"0")),
        )
        self.held = int(fields.get("size", b"0"))
        self.counted = (int(counts[0]), int(counts[1]), int(counts[2])) if counts else (0, 0, 0)

    @property
    def size(self) -> int:
        return self.held

    def state_counts(self) -> tuple[int, int, int]:
        return self.counted


def _store(namespace: str, row: Any) -> SharedStore:
    """A SharedStore from a store row ({name, hash, counts})."""
    return SharedStore(_text(row[0]), namespace, _fields(row[1]), row[2])


def _document(name: str, fields: dict[str, bytes], prepared: Prepared | None = None) -> Document:
    """A Document from its hash (its chunks and index from `prepared`, else none: a listing's)."""
    chunks, index = prepared if prepared is not None else ([], {})
    error = fields.get("error")
    doc = Document(
        name=name,
        display_name=fields.get("display", b"").decode(),
        mime_type=fields.get("mime", b"").decode(),
        size=int(fields.get("size", b"0")),
        custom_metadata=orjson.loads(fields["meta"]) if fields.get("meta") else [],
        chunks=chunks,
        index=index,
        created_ns=int(fields.get("created", b"0")),
        ready_at=float(fields.get("ready", b"0")),
        clock=time.time,
        source=fields.get("source", b"").decode(),
        forced_state=fields.get("forced", b"").decode(),
        error=orjson.loads(error) if error else None,
        operation=fields.get("operation", b"").decode(),
        media=b"" if fields.get("media") == b"1" else None,  # its bytes are read only by a media download
    )
    doc.chunk_count = int(fields.get("nchunks", b"0"))  # type: ignore[attr-defined]
    return doc


def _searched(name: str, fields: dict[str, bytes], prepared: Prepared) -> Document:
    """A document as a search reads it: parsed, and active (a search takes only the documents active then)."""
    doc = _document(name, fields, prepared)
    doc.forced_state, doc.error = "STATE_ACTIVE", None
    return doc


Wanted = tuple[builtins.list[Document], int, tuple[str, str, int], int]  # a place, its key, its text's bound
_SKIPPED = Document("", "", "", 0, [], [], {}, 0, 0.0, time.time)  # a snapshot's place for one not yet parsed


def chunk_count(doc: Document) -> int:
    """How many chunks a document has (a listed one from Redis carries the count, not the chunks)."""
    return int(getattr(doc, "chunk_count", len(doc.chunks)))


class Snapshot:
    """The named stores of one caller as one search reads them (file_search.Searchable): the stores that exist,
    and their active documents with their chunks, in upload order."""

    def __init__(self, stores: dict[str, builtins.list[Document]]) -> None:
        self.stores = stores

    def get(self, namespace: str, name: str) -> Any:
        docs = self.stores.get(name)
        return None if docs is None else FileSearchStore(name, namespace, "", "", 0, 0)

    def search(
        self,
        namespace: str,
        store_names: Iterable[str],
        query: str,
        top_k: int = fs.DEFAULT_TOP_K,
        accept: Callable[[Document], bool] | None = None,
    ) -> builtins.list[Hit]:
        wanted = set(fs.query_words(query))
        if not wanted:
            return []
        docs = [(n, d) for n in store_names for d in self.stores.get(n, ())]
        return fs.rank(docs, wanted, top_k, accept)


class RedisFileSearchStores:
    """Every namespace's file search stores in one Redis (module docstring: keys, round trips). The request path's
    methods are coroutines on redis.asyncio; `summaries`, `remove`, `reset`, `set_state`, `next_state` and `used`
    (the admin API's, run off the loop) use the sync client. A Redis that cannot be reached is the 503."""

    remote = True

    def __init__(
        self,
        link: RedisLink,
        budget_bytes: int = 256 << 20,
        max_stores: int = fs.MAX_STORES_PER_NAMESPACE,
        max_documents: int = fs.MAX_DOCUMENTS_PER_STORE,
    ) -> None:
        self.link = link
        self.budget_bytes = budget_bytes
        self.max_stores = max_stores
        self.max_documents = max_documents
        self.clock = time.time  # the shared operations' clock (the wall's), in which the room hands over ready times
        # parsed documents as searches read them (always STATE_ACTIVE: a search takes only the active ones)
        self._parsed: OrderedDict[tuple[str, str, int], tuple[Document, int]] = OrderedDict()
        self._parsed_bytes = 0
        self._lock = threading.Lock()
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    # --- calls -------------------------------------------------------------------------------------------
    async def _call(self, script: str, args: Sequence[Any]) -> Any:
        return await self._lua.call(script, args)

    async def _command(self, method: str, *args: Any) -> Any:
        try:
            result = await getattr(self.link.aio, method)(*args)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result

    def _call_sync(self, script: str, args: Sequence[Any]) -> Any:
        return self._lua.call_sync(script, args)

    # --- stores ------------------------------------------------------------------------------------------
    async def create(self, namespace: str, display_name: str = "", embedding_model: str = "") -> FileSearchStore:
        now = time.time_ns()
        model = embedding_model or fs.DEFAULT_EMBEDDING_MODEL
        for _ in range(8):
            name = "fileSearchStores/" + fs.derived_id(display_name)
            made = await self._call(
                "create_store", [PREFIX, namespace, name, display_name, model, now, self.max_stores]
            )
            if made == -1:
                raise errors.ApiError(
                    429,
                    f"gemini-emulator: at most {self.max_stores} file search stores per API key; delete one first.",
                )
            if made == 1:
                return FileSearchStore(name, namespace, display_name, model, now, now)
        raise errors.ApiError(500, "gemini-emulator: no free file search store name was drawn.")  # pragma: no cover

    async def get(self, namespace: str, name: str) -> FileSearchStore | None:
        row = await self._call("read_store", [PREFIX, namespace, name, repr(time.time())])
        return _store(namespace, row) if row else None

    async def require(self, namespace: str, name: str) -> FileSearchStore:
        store = await self.get(namespace, name)
        if store is None:
            raise fs.store_not_found(name.removeprefix("fileSearchStores/"))
        return store

    async def list(
        self, namespace: str, page_size: int, page_token: str = ""
    ) -> tuple[builtins.list[FileSearchStore], str]:
        following, rows = await self._call("page_stores", [PREFIX, namespace, page_token, page_size, repr(time.time())])
        return [_store(namespace, row) for row in rows], _text(following)

    async def delete(self, namespace: str, name: str, force: bool = False) -> None:
        done = await self._call("delete_store", [PREFIX, namespace, name, "1" if force else "0"])
        if done == 0:
            raise fs.store_not_found(name.removeprefix("fileSearchStores/"))
        if done == -1:
            raise fs.non_empty("FileSearchStore")

    # --- documents ---------------------------------------------------------------------------------------
    async def check_room(self, namespace: str, store_name: str, size: int | None) -> FileSearchStore:
        """The store (its name), when a document of `size` bytes (None: not known yet) may still join it."""
        count = await self._call("room", [PREFIX, namespace, store_name])
        if count == -1:
            raise fs.store_not_found(store_name.removeprefix("fileSearchStores/"))
        if size is not None and size > fs.MAX_DOCUMENT_BYTES:
            raise errors.ApiError(400, f"The document exceeds the maximum size of {fs.MAX_DOCUMENT_BYTES} bytes.")
        if count >= self.max_documents:
            raise errors.ApiError(
                429, f"gemini-emulator: at most {self.max_documents} documents per file search store."
            )
        return FileSearchStore(store_name, namespace, "", "", 0, 0)

    async def add_document(
        self,
        namespace: str,
        store_name: str,
        data: bytes,
        mime_type: str,
        *,
        size: int | None = None,
        display_name: str = "",
        custom_metadata: builtins.list[dict[str, Any]] | None = None,
        chunk_words: int = fs.DEFAULT_CHUNK_WORDS,
        overlap_words: int = 0,
        ready_at: float | None = None,
        document_id: str | None = None,
        source: str = "",
        forced: tuple[str, dict[str, Any] | None] | None = None,
        operation: str = "",
        prepared: Prepared | None = None,
        media: bytes | None = None,
        text: bytes | None = None,
    ) -> Document:
        """A new document (FileSearchStores.add_document); `text` the bytes its text was read from (`data`'s first
        MAX_TEXT_BYTES without it), `ready_at` on `self.clock` as the room's operations give it."""
        size = len(data) if size is None else size
        head = (data if text is None else text)[: fs.MAX_TEXT_BYTES]
        if prepared is None:
            prepared = await asyncio.to_thread(fs.prepare, head, mime_type, chunk_words, overlap_words)
        if size > fs.MAX_DOCUMENT_BYTES:
            await self.check_room(namespace, store_name, size)  # 403 before 400, as in memory
        now_ns, wall = time.time_ns(), time.time()
        ready = wall if ready_at is None else wall + max(0.0, ready_at - self.clock())
        state, error = forced if forced is not None else ("", None)
        fields: dict[str, Any] = {
            "display": display_name,
            "mime": mime_type,
            "size": size,
            "meta": orjson.dumps(list(custom_metadata or [])),
            "created": now_ns,
            "ready": repr(ready),
            "source": source,
            "forced": state,
            "operation": operation,
            "words": chunk_words,
            "overlap": overlap_words,
            "nchunks": len(prepared[0]),
            "media": "1" if media is not None else "0",
        }
        if error is not None:
            fields["error"] = orjson.dumps(error)
        pairs = [item for pair in fields.items() for item in pair]
        doc_id = document_id or fs.derived_id(display_name)
        for _ in range(8):
            name = f"{store_name}/documents/{doc_id}"
            args = [PREFIX, namespace, store_name, name, self.max_documents, self.budget_bytes, size, now_ns]
            args += ["1" if media is not None else "0", head, media or b"", *pairs]
            added = await self._call("add_doc", args)
            if added == -3:
                raise fs.store_not_found(store_name.removeprefix("fileSearchStores/"))
            if added == -1:
                raise errors.ApiError(
                    429, f"gemini-emulator: at most {self.max_documents} documents per file search store."
                )
            if added == -2:
                raise StoreFull(self.budget_bytes)
            if added == 1:
                held = {k: str(v).encode() if not isinstance(v, bytes) else v for k, v in fields.items()}
                self._keep((namespace, name, now_ns), _searched(name, held, prepared), len(head))
                return _document(name, held, prepared)
            doc_id = fs.derived_id(display_name)
        raise errors.ApiError(500, "gemini-emulator: no free document name was drawn.")  # pragma: no cover

    async def take_next(self, namespace: str) -> tuple[str, dict[str, Any] | None] | None:
        """The state set for the namespace's next document (consumed, by one process only), or None."""
        held = await self._command("getdel", PREFIX + "next:" + namespace)
        if held is None:
            return None
        state, error = orjson.loads(held)
        return str(state), error

    def next_state(self, namespace: str, state: str, error: dict[str, Any] | None = None) -> None:
        key = PREFIX + "next:" + namespace
        if state == "STATE_ACTIVE":
            self.link.command("delete", key)
        else:
            self.link.command("set", key, orjson.dumps([state, error if state == "STATE_FAILED" else None]))

    async def _doc(self, namespace: str, name: str, media: bool = False) -> Any:
        store_name = name.partition("/documents/")[0]
        reply = await self._call("get_doc", [PREFIX, namespace, store_name, name, "1" if media else "0"])
        if reply[0] == -3:
            raise fs.store_not_found(store_name.removeprefix("fileSearchStores/"))
        return reply

    async def document(self, namespace: str, name: str) -> Document:
        reply = await self._doc(namespace, name)
        if reply[0] == 0:
            raise fs.document_not_found(name)
        return _document(name, _fields(reply[1]))

    async def media_document(self, namespace: str, name: str) -> Document:
        """The document whose media blob is `name`, with its bytes (FileSearchStores.media_document)."""
        store_name, _, blob = name.partition("/media/")
        reply = await self._doc(namespace, f"{store_name}/documents/{blob}", media=True)
        doc = _document(f"{store_name}/documents/{blob}", _fields(reply[1])) if reply[0] == 1 else None
        if doc is None or doc.media is None:
            raise errors.ApiError(404, f"Media {name} not found.")
        doc.media = bytes(reply[2])
        return doc

    async def documents(
        self, namespace: str, store_name: str, page_size: int, page_token: str = ""
    ) -> tuple[builtins.list[Document], str]:
        reply = await self._call("page_docs", [PREFIX, namespace, store_name, page_token, page_size])
        if reply[0] == -3:
            raise fs.store_not_found(store_name.removeprefix("fileSearchStores/"))
        return [_document(_text(n), _fields(h)) for n, h in reply[2]], _text(reply[1])

    async def delete_document(self, namespace: str, name: str, force: bool = False) -> None:
        store_name = name.partition("/documents/")[0]
        args = [PREFIX, namespace, store_name, name, "1" if force else "0", time.time_ns()]
        done = await self._call("delete_doc", args)
        if done == -3:
            raise fs.store_not_found(store_name.removeprefix("fileSearchStores/"))
        if done == 0:
            raise fs.document_not_found(name)
        if done == -1:
            raise fs.non_empty("Document")

    # --- retrieval ---------------------------------------------------------------------------------------
    async def snapshot(self, namespace: str, store_names: Iterable[str], texts: bool = True) -> Snapshot:
        """The named stores (those that are the caller's) with their active documents, parsed (`texts`: False
        when the query has no words to look up: then no document is parsed or fetched)."""
        names = list(dict.fromkeys(store_names))
        if len(names) > MAX_SEARCHED_STORES:
            raise errors.invalid_argument(f"file_search tools name at most {MAX_SEARCHED_STORES} stores in all.")
        reply = await self._call("snapshot", [PREFIX, namespace, *names]) if names else []
        now = time.time()
        stores: dict[str, builtins.list[Document]] = {}
        wanted: builtins.list[Wanted] = []
        for row in reply:
            if not row:
                continue
            docs: builtins.list[Document] = []
            stores[_text(row[0])] = docs
            for doc_name, created, ready, forced, size in row[1]:
                if forced or float(ready) > now:  # held, failed or not yet ready: not searched
                    continue
                key = (namespace, _text(doc_name), int(created))
                known = self._known(key) if texts else None
                if known is not None:
                    docs.append(known)
                elif texts:
                    wanted.append((docs, len(docs), key, min(int(size), fs.MAX_TEXT_BYTES)))
                    docs.append(_SKIPPED)
        if wanted:
            group: builtins.list[Wanted] = []
            for item in wanted:  # at most FETCH_BYTES of text a round trip
                if group and sum(w[3] for w in group) + item[3] > FETCH_BYTES:
                    await self._parse_missing(namespace, group)
                    group = []
                group.append(item)
            await self._parse_missing(namespace, group)
            for docs in stores.values():  # those deleted since the first round trip
                docs[:] = [d for d in docs if d is not _SKIPPED]
        return Snapshot(stores)

    async def _parse_missing(self, namespace: str, wanted: builtins.list[Wanted]) -> None:
        """Fetch (one round trip) and parse the documents this process has not parsed, each put in its place."""
        reply = await self._call("texts", [PREFIX, namespace, *(key[1] for _, _, key, _ in wanted)])
        work = [(place, _fields(row[0]), bytes(row[1])) for place, row in zip(wanted, reply, strict=True) if row]

        def parse() -> builtins.list[Prepared]:
            return [
                fs.prepare(head, f.get("mime", b"").decode(), int(f.get("words", b"200")), int(f.get("overlap", b"0")))
                for _, f, head in work
            ]

        total = sum(len(head) for _, _, head in work)
        parsed = await asyncio.to_thread(parse) if total > OFF_LOOP_BYTES else parse()
        for ((docs, at, key, _), fields, head), prepared in zip(work, parsed, strict=True):
            docs[at] = self._keep(key, _searched(key[1], fields, prepared), len(head))

    def _known(self, key: tuple[str, str, int]) -> Document | None:
        with self._lock:
            held = self._parsed.get(key)
            if held is None:
                return None
            self._parsed.move_to_end(key)
            return held[0]

    def _keep(self, key: tuple[str, str, int], doc: Document, cost: int) -> Document:
        """Remember a parsed document, forgetting the least recently used past PARSED_DOCS or PARSED_BYTES."""
        if cost > PARSED_BYTES:
            return doc
        with self._lock:
            old = self._parsed.pop(key, None)
            if old is not None:
                self._parsed_bytes -= old[1]
            self._parsed[key] = (doc, cost)
            self._parsed_bytes += cost
            while len(self._parsed) > PARSED_DOCS or self._parsed_bytes > PARSED_BYTES:
                _, (_, gone) = self._parsed.popitem(last=False)
                self._parsed_bytes -= gone
        return doc

    @property
    def parsed(self) -> int:
        """How many parsed documents this process keeps."""
        with self._lock:
            return len(self._parsed)

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def names(self) -> builtins.list[str]:
        """The namespaces holding stores."""
        found: builtins.list[str] = []
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found += [_text(k)[len(PREFIX) + 2 :] for k in keys]
            if int(cursor) == 0:
                break
        return sorted(set(found))

    def all(self, namespace: str | None = None) -> builtins.list[tuple[SharedStore, builtins.list[Document]]]:
        """Every store of the namespace (of every namespace: None), oldest first, with its documents."""
        out = []
        for space in [namespace] if namespace is not None else self.names():
            for row in self._call_sync("all", [PREFIX, space, repr(time.time())]):
                docs = [_document(_text(n), _fields(h)) for n, h in row[3]] if len(row) > 3 else []
                out.append((_store(space, row), docs))
        return out

    def document_sync(self, namespace: str, name: str) -> Document | None:
        reply = self._call_sync("get_doc", [PREFIX, namespace, name.partition("/documents/")[0], name, "0"])
        return _document(name, _fields(reply[1])) if reply[0] == 1 else None

    def set_state(
        self,
        namespace: str,
        name: str,
        forced: str,
        ready: float | None,
        error: Any,
        operation: str = "",
        action: str = "",
    ) -> bool:
        """One document's forced state (admin API), its ready time moved when given; and, in the same Lua call,
        its shared operation (`operation`, the name; `action`: release, fail or hold, as SET_STATE says)."""
        args: builtins.list[Any] = [PREFIX, namespace, name, forced, repr(ready) if ready is not None else ""]
        args.append(orjson.dumps(error) if error is not None else "")
        op_key = f"{OPERATIONS}o:{namespace}:{operation}" if operation else ""
        return bool(self._call_sync("set_state", [*args, op_key, action, repr(time.time())]))

    def remove(self, namespace: str, name: str) -> bool:
        if "/documents/" in name:
            store_name = name.partition("/documents/")[0]
            done = self._call_sync("delete_doc", [PREFIX, namespace, store_name, name, "1", time.time_ns()])
        else:
            done = self._call_sync("delete_store", [PREFIX, namespace, name, "1"])
        return done == 1

    def reset(self, namespace: str | None = None) -> None:
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", [PREFIX, space])
        if namespace is None:
            for key in self.link.command("keys", PREFIX + "next:*"):
                self.link.command("delete", key)
        with self._lock:
            if namespace is None:
                self._parsed.clear()
                self._parsed_bytes = 0

    @property
    def used(self) -> int:
        """Bytes (sizeBytes) held by every namespace's documents, as Redis counts them."""
        return int(self.link.command("get", PREFIX + "used") or 0)
