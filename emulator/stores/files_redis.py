"""Stored files on Redis (`--store redis://...`): a file uploaded through one process is read, listed, downloaded
and deleted through any other, and a resumable upload's chunks may land on different processes.

The in-memory twin is stores/files.py (FileStore); the files room (wire/resources/files.py) hands its requests to
wire/resources/files_shared.py when the setting names Redis. What is the same: the File message (StoredFile.view),
the 48 h expiry (checked on read, and a Redis TTL past it as a backstop), the per-file max, MAX_FILES_PER_NAMESPACE
(past it the namespace's oldest file is forgotten), the byte budget (--files-budget-bytes: every process's files
and uploads in progress together, counted in Redis), the states (`set_state`, `next_state`), the upload sessions'
bounds (MAX_SESSIONS, MAX_SESSIONS_PER_NAMESPACE, SESSION_TTL_S). Files are PROCESSING until `ready` on the wall
clock (`time.time`, which every process on one host shares).

Bytes are kept in chunks of at most CHUNK_BYTES, one key each, never one large value. Each chunk is written by one
Lua call that checks the budget, the file's limit and the offset it continues (so two requests racing one offset
cannot both append: the second sees another offset, production's 400). A resumable upload's request first takes
the session (a lease, RECEIVE_LEASE_MS, renewed by each chunk), so a second request feeding it meanwhile is refused
as in one process. A finalized upload's sha256 is the finalizing process's running hash when it fed every byte
itself (it keeps the hashes of the sessions it fed last), else computed by reading the chunks back (they came
through several processes, and a hash's state cannot travel between them); a one-request upload hashes as it goes.

Keys (P is seam.state.KEY_PREFIX + "f:", N a namespace, F a file's name `files/ID`, B a blob id, U an upload id):
  P m:N:F   hash: the file (mime display source forced error created expires ready blob size sha known gcs)
  P z:N     sorted set of the namespace's file names, scored by creation (P seq)
  P b:B     hash: a blob's size and chunk count (n); no TTL, so the budget is always given back
  P d:B:I   chunk I of blob B (TTL: 48 h and GRACE_MS from its writing)
  P u:U     hash: an upload session (ns mime display name declared kind blob started recv until extra)
  P s:N     sorted set of the namespace's upload ids, by start;  P s  every upload id, by start
  P x       sorted set of what ends when: `f:B:N:F` (a file's expiry), `u:B:U` (a session's), `b:B` (a one-request
            upload's blob not yet a file); every call that reserves bytes first forgets up to PRUNE_BATCH of them.
            A member names its blob, so its bytes are given back even when the hash's TTL (2 h later) came first
  The hashes m: and u: have a TTL GRACE_MS past their expiry; the chunks GRACE_MS past 48 h from their writing.
  P total   bytes held by every file and upload          P next:N  the namespace's next file's state (JSON)

Round trips: get 1, list 1, delete 1, exists 1; a one-request upload: 1 per CHUNK_BYTES of bytes, then the commit 1;
a resumable start 1; each chunk request: the take 1, 1 per CHUNK_BYTES, the release 1 (a finalize: the commit 1,
after reading the chunks back, 1 per chunk, when other processes fed some of them); a download 1 + 1 per chunk.
"""

from __future__ import annotations

import base64
import builtins
import hashlib
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.files import (
    EXPIRY_NS,
    MAX_FILE_BYTES,
    MAX_FILES_PER_NAMESPACE,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_NAMESPACE,
    REPLICA_NAME,
    SESSION_TTL_S,
    Blob,
    FilesFull,
    FileTooLarge,
    SpoolClosed,
    StoredFile,
)
from gemini_emulator.stores.operations import new_id

PREFIX = KEY_PREFIX + "f:"
CHUNK_BYTES = 1 << 20  # bytes per key
GRACE_MS = 2 * 3600 * 1000  # a TTL's margin past the expiry the read check enforces
RECEIVE_LEASE_MS = 60_000  # a request feeding an upload holds it this long past its last chunk
PRUNE_BATCH = 32

_COMMON = """
local function drop_blob(P, blob)
  local b = P .. 'b:' .. blob
  local f = redis.call('HMGET', b, 'size', 'n')
  redis.call('ZREM', P .. 'x', 'b:' .. blob)
  if not f[1] then return end
  for i = 0, tonumber(f[2]) - 1 do redis.call('DEL', P .. 'd:' .. blob .. ':' .. i) end
  redis.call('DEL', b)
  redis.call('DECRBY', P .. 'total', tonumber(f[1]))
end
local function drop_file(P, ns, name)
  local m = P .. 'm:' .. ns .. ':' .. name
  local blob = redis.call('HGET', m, 'blob')
  redis.call('DEL', m)
  redis.call('ZREM', P .. 'z:' .. ns, name)
  if blob then
    redis.call('ZREM', P .. 'x', 'f:' .. blob .. ':' .. ns .. ':' .. name)
    if blob ~= '' then drop_blob(P, blob) end
  end
end
local function drop_session(P, id, keep_blob)
  local u = P .. 'u:' .. id
  local f = redis.call('HMGET', u, 'ns', 'blob')
  redis.call('DEL', u)
  redis.call('ZREM', P .. 's', id)
  if f[1] then redis.call('ZREM', P .. 's:' .. f[1], id) end
  if f[2] then
    redis.call('ZREM', P .. 'x', 'u:' .. f[2] .. ':' .. id)
    if not keep_blob then drop_blob(P, f[2]) end
  end
end
-- What is due in P x; a member names its blob, so the bytes are given back even if a hash's TTL came first.
local function prune(P, now)
  local due = redis.call('ZRANGEBYSCORE', P .. 'x', '-inf', now, 'LIMIT', 0, 32)  -- PRUNE_BATCH
  for _, m in ipairs(due) do
    local kind, rest = m:sub(1, 1), m:sub(3)
    if kind == 'b' then drop_blob(P, rest)
    elseif kind == 'u' then
      local blob, id = rest:match('^([^:]*):(.*)$')
      if blob then drop_session(P, id, false) drop_blob(P, blob) end
    else
      local blob, ns, name = rest:match('^([^:]*):(.*):(files/[^:]*)$')
      if blob then
        drop_file(P, ns, name)
        if blob ~= '' then drop_blob(P, blob) end
      end
    end
    redis.call('ZREM', P .. 'x', m)
  end
end
"""

# One chunk of a blob: KEYS none; ARGV P blob data limit budget now expected session token lease ttl_at pending_at
WRITE = (
    _COMMON
    + """
local P, blob, data = ARGV[1], ARGV[2], ARGV[3]
local limit, budget, now, expected = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local session, token = ARGV[8], ARGV[9]
prune(P, now)
if session ~= '' then
  local u = P .. 'u:' .. session
  if redis.call('HGET', u, 'recv') ~= token then return {-3} end
  redis.call('HSET', u, 'until', now + tonumber(ARGV[10]))
end
local b = P .. 'b:' .. blob
local f = redis.call('HMGET', b, 'size', 'n')
local size, n = tonumber(f[1] or '0'), tonumber(f[2] or '0')
if (not f[1]) and (session ~= '' or expected ~= 0) then return {-3} end
if size ~= expected then return {-4, size} end
if size + #data > limit then return {-1} end
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total + #data > budget then return {-2} end
if not f[1] and ARGV[12] ~= '' then redis.call('ZADD', P .. 'x', tonumber(ARGV[12]), 'b:' .. blob) end
redis.call('SET', P .. 'd:' .. blob .. ':' .. n, data, 'PXAT', tonumber(ARGV[11]))
redis.call('HSET', b, 'size', size + #data, 'n', n + 1)
redis.call('INCRBY', P .. 'total', #data)
return {1, size + #data}
"""
)

# A blob (or none) made the namespace's file: ARGV P ns name blob mime display source created expires_ms ready sha
# known gcs max_per_ns now session token free_only ttl_at
COMMIT = (
    _COMMON
    + """
local P, ns, name, blob = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, session, token = tonumber(ARGV[15]), ARGV[16], ARGV[17]
prune(P, now)
if session ~= '' and redis.call('HGET', P .. 'u:' .. session, 'recv') ~= token then return {-3} end
if blob ~= '' and redis.call('EXISTS', P .. 'b:' .. blob) == 0 then return {-3} end
local m = P .. 'm:' .. ns .. ':' .. name
if redis.call('EXISTS', m) == 1 then return {0} end
local size = 0
if blob ~= '' then size = tonumber(redis.call('HGET', P .. 'b:' .. blob, 'size')) end
local forced, err = '', ''
local nxt = redis.call('GET', P .. 'next:' .. ns)
if nxt then
  local rule = cjson.decode(nxt)
  forced = rule.state
  if rule.error ~= nil and rule.error ~= cjson.null then err = cjson.encode(rule.error) end
  redis.call('DEL', P .. 'next:' .. ns)
end
redis.call('HSET', m, 'mime', ARGV[5], 'display', ARGV[6], 'source', ARGV[7], 'created', ARGV[8],
  'expires', ARGV[9], 'ready', ARGV[10], 'sha', ARGV[11], 'known', ARGV[12], 'gcs', ARGV[13], 'blob', blob,
  'size', size, 'forced', forced, 'error', err)
redis.call('PEXPIREAT', m, tonumber(ARGV[19]))
redis.call('ZADD', P .. 'z:' .. ns, redis.call('INCR', P .. 'seq'), name)
redis.call('ZADD', P .. 'x', math.floor(tonumber(ARGV[9]) / 1000000), 'f:' .. blob .. ':' .. ns .. ':' .. name)
if blob ~= '' then redis.call('ZREM', P .. 'x', 'b:' .. blob) end
if session ~= '' then drop_session(P, session, true) end
local z = P .. 'z:' .. ns
local guard = 0
while redis.call('ZCARD', z) > tonumber(ARGV[14]) and guard < 100 do
  guard = guard + 1
  drop_file(P, ns, redis.call('ZRANGE', z, 0, 0)[1])
end
return {1, forced, err}
"""
)

# ARGV P now: the file's hash (after the read check), or {}.
READ = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local m = P .. 'm:' .. ns .. ':' .. name
local h = redis.call('HGETALL', m)
if #h == 0 then return {} end
local expires = tonumber(redis.call('HGET', m, 'expires'))
if math.floor(expires / 1000000) <= now then drop_file(P, ns, name) return {} end
return h
"""
)

PAGE = (
    _COMMON
    + """
local P, ns, token, size, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
prune(P, now)
local z = P .. 'z:' .. ns
local start = 0
if token ~= '' then start = redis.call('ZREVRANK', z, token) or 0 end
local names = redis.call('ZREVRANGE', z, start, start + size)
local out = {}
for i = 1, math.min(#names, size) do
  out[#out + 1] = {names[i], redis.call('HGETALL', P .. 'm:' .. ns .. ':' .. names[i])}
end
local following = ''
if #names > size then following = names[size + 1] end
return {following, out}
"""
)

DELETE = (
    _COMMON
    + """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', P .. 'm:' .. ns .. ':' .. name) == 0 then return 0 end
drop_file(P, ns, name)
return 1
"""
)

# ARGV P id ns mime display name declared kind extra now ttl_ms max max_ns blob grace_ms
START = (
    _COMMON
    + """
local P, id, ns, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[10])
local ttl, maxall, maxns, blob = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]), ARGV[14]
prune(P, now)
local mine = P .. 's:' .. ns
local guard = 0
while redis.call('ZCARD', mine) >= maxns and guard < 1000 do
  guard = guard + 1
  local oldest = redis.call('ZRANGE', mine, 0, 0)[1]
  drop_session(P, oldest, false)
  redis.call('ZREM', mine, oldest)
end
while redis.call('ZCARD', P .. 's') >= maxall and guard < 1000 do
  guard = guard + 1
  local held, order = {}, {}
  for _, other in ipairs(redis.call('ZRANGE', P .. 's', 0, -1)) do
    local owner = redis.call('HGET', P .. 'u:' .. other, 'ns')
    if not owner then drop_session(P, other, false) else
      if not held[owner] then held[owner] = 0 order[#order + 1] = owner end
      held[owner] = held[owner] + 1
    end
  end
  local hog, most = nil, -1
  for _, owner in ipairs(order) do if held[owner] > most then hog, most = owner, held[owner] end end
  if hog then
    local oldest = redis.call('ZRANGE', P .. 's:' .. hog, 0, 0)[1]
    drop_session(P, oldest, false)
    redis.call('ZREM', P .. 's:' .. hog, oldest)
  end
end
local u = P .. 'u:' .. id
redis.call('HSET', u, 'ns', ns, 'mime', ARGV[4], 'display', ARGV[5], 'name', ARGV[6], 'declared', ARGV[7],
  'kind', ARGV[8], 'extra', ARGV[9], 'started', now, 'blob', blob, 'recv', '', 'until', 0)
redis.call('PEXPIRE', u, ttl + tonumber(ARGV[15]))
redis.call('ZADD', P .. 's', now, id)
redis.call('ZADD', mine, now, id)
redis.call('ZADD', P .. 'x', now + ttl, 'u:' .. blob .. ':' .. id)
redis.call('HSET', P .. 'b:' .. blob, 'size', 0, 'n', 0)
return 1
"""
)

# A follow-up request takes the session: ARGV P id now token lease take check_offset offset
# -> {} unknown; {code, size, hash...}: code 1 taken (or looked at), 2 another request holds it, 3 wrong offset
TAKE = (
    _COMMON
    + """
local P, id, now, token, lease = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
prune(P, now)
local u = P .. 'u:' .. id
local h = redis.call('HGETALL', u)
if #h == 0 then return {} end
local blob = redis.call('HGET', u, 'blob')
local size = tonumber(redis.call('HGET', P .. 'b:' .. blob, 'size') or '0')
if ARGV[6] ~= '1' then return {1, size, h} end
local busy = redis.call('HGET', u, 'recv') ~= '' and tonumber(redis.call('HGET', u, 'until')) > now
if busy then return {2, size, h} end
if ARGV[7] == '1' and ARGV[8] ~= tostring(size) then return {3, size, h} end
redis.call('HSET', u, 'recv', token, 'until', now + lease)
return {1, size, h}
"""
)

RELEASE = """
local u = ARGV[1] .. 'u:' .. ARGV[2]
if redis.call('HGET', u, 'recv') == ARGV[3] then redis.call('HSET', u, 'recv', '', 'until', 0) end
return 1
"""

END = (
    _COMMON
    + """
local P, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', P .. 'u:' .. id) == 0 then return 0 end
drop_session(P, id, false)
return 1
"""
)

DISCARD = (
    _COMMON
    + """
drop_blob(ARGV[1], ARGV[2])
return 1
"""
)

SET_STATE = """
local m = ARGV[1] .. 'm:' .. ARGV[2] .. ':' .. ARGV[3]
if redis.call('EXISTS', m) == 0 then return 0 end
redis.call('HSET', m, 'forced', ARGV[4], 'error', ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', m, 'ready', ARGV[6]) end
return 1
"""

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do drop_file(P, ns, name) end
for _, id in ipairs(redis.call('ZRANGE', P .. 's:' .. ns, 0, -1)) do drop_session(P, id, false) end
redis.call('DEL', P .. 'z:' .. ns, P .. 'next:' .. ns, P .. 's:' .. ns)
return #names
"""
)

SCRIPTS = {
    "write": WRITE,
    "commit": COMMIT,
    "read": READ,
    "page": PAGE,
    "delete": DELETE,
    "start": START,
    "take": TAKE,
    "release": RELEASE,
    "end": END,
    "discard": DISCARD,
    "set_state": SET_STATE,
    "reset": RESET,
}


def _fields(flat: Any) -> dict[str, str]:
    if isinstance(flat, dict):
        return {_text(k): _text(v) for k, v in flat.items()}
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class RedisSpool:
    """Bytes arriving for one file, written to Redis a chunk at a time: `await write(data)`, `await flush()`. For
    a resumable upload's request, `session` and `token` are its take of the session, and `size` begins at the
    bytes the session held."""

    store: RedisFileStore
    blob: str
    limit: int
    size: int = 0  # bytes accepted (written to Redis or buffered here)
    written: int = 0  # bytes in Redis
    session: str = ""
    token: str = ""
    digest: Any = field(default_factory=hashlib.sha256)
    hashed: bool = True  # `digest` covers every byte of the blob (a session continued elsewhere: not)
    closed: bool = False
    _buffer: bytearray = field(default_factory=bytearray)

    async def write(self, data: bytes) -> None:
        """Count and keep `data`: FileTooLarge past the limit, FilesFull past the budget, SpoolClosed once the
        upload is gone (cancelled, expired, taken by another request)."""
        if not data:
            return
        if self.closed:
            raise SpoolClosed()
        if self.size + len(data) > self.limit:
            raise FileTooLarge(self.limit)
        self.size += len(data)
        self.digest.update(data)
        self._buffer += data
        while len(self._buffer) >= CHUNK_BYTES:
            await self._put(bytes(self._buffer[:CHUNK_BYTES]))
            del self._buffer[:CHUNK_BYTES]

    async def flush(self) -> None:
        if self._buffer:
            await self._put(bytes(self._buffer))
            self._buffer.clear()

    async def _put(self, data: bytes) -> None:
        now = _now_ms()
        pending_at = "" if self.session else str(now + int(SESSION_TTL_S * 1000))
        ttl_at = now + EXPIRY_NS // 1_000_000 + GRACE_MS
        args = [PREFIX, self.blob, data, self.limit, self.store.budget_bytes, now, self.written, self.session]
        args += [self.token, RECEIVE_LEASE_MS, ttl_at, pending_at]
        reply = await self.store._call("write", args)
        code = int(reply[0])
        if code == 1:
            self.written += len(data)
            return
        if code == -1:
            raise FileTooLarge(self.limit)
        if code == -2:
            raise FilesFull(self.store.budget_bytes)
        self.closed = True
        raise SpoolClosed()

    async def discard(self) -> None:
        """Give the bytes back (an upload refused or abandoned); a session's bytes go with its session."""
        if self.closed or self.session:
            return
        self.closed = True
        if self.written:
            await self.store._call("discard", [PREFIX, self.blob])


@dataclass
class RedisSession:
    """A resumable upload as one follow-up request found it."""

    id: str
    namespace: str
    mime_type: str
    display_name: str
    name: str | None
    declared_size: int | None
    kind: str
    blob: str
    size: int
    extra: dict[str, Any]


class RedisFileStore:
    """Every namespace's files and resumable uploads in one Redis (module docstring: keys, bounds, round trips).
    The request path's methods are coroutines on redis.asyncio; `all`, `set_state`, `next_state`, `remove`,
    `reset`, `used` and `counts` (the admin API's and the tests') use the sync client. A Redis that cannot be
    reached is the 503 (seam.state.RedisLink)."""

    remote = True

    def __init__(
        self,
        link: RedisLink,
        budget_bytes: int = 2 << 30,
        video_processing_s: float = 0.5,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_per_namespace: int = MAX_FILES_PER_NAMESPACE,
        replica: str = "",
    ) -> None:
        if replica and REPLICA_NAME.fullmatch(replica) is None:
            raise ValueError(f"a replica name is 1 to 16 letters and digits, not {replica[:80]!r}")
        self.link = link
        self.upload_prefix = f"{replica}-" if replica else ""
        self.budget_bytes = budget_bytes
        self.video_processing_s = video_processing_s
        self.max_file_bytes = max_file_bytes
        self.max_per_namespace = max_per_namespace
        self.token = secrets.token_hex(8)
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)
        # upload id -> (the running sha256 of its bytes, how many): the sessions this process fed last
        self._digests: OrderedDict[str, tuple[Any, int]] = OrderedDict()

    # --- calls -------------------------------------------------------------------------------------------
    async def _call(self, script: str, args: Sequence[Any]) -> Any:
        return await self._lua.call(script, args)

    def _call_sync(self, script: str, args: Sequence[Any]) -> Any:
        return self._lua.call_sync(script, args)

    async def _get(self, key: str) -> bytes | None:
        try:
            value = await self.link.aio.get(key)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return bytes(value) if value is not None else None

    # --- files -------------------------------------------------------------------------------------------
    def loaded(self, namespace: str, name: str, flat: Any) -> StoredFile:
        """A StoredFile from its hash (its bytes stay in Redis: `extra` names the blob and its chunk count)."""
        f = _fields(flat)
        error = orjson.loads(f["error"]) if f.get("error") else None
        return StoredFile(
            name=name,
            namespace=namespace,
            mime_type=f.get("mime", ""),
            blob=Blob(int(f.get("size", "0")), None, None),
            sha256_hex=f.get("sha", ""),
            created_ns=int(f.get("created", "0")),
            expires_ns=int(f.get("expires", "0")),
            ready_at=float(f.get("ready", "0")),
            clock=time.time,
            display_name=f.get("display", ""),
            source=f.get("source", "UPLOADED"),
            forced_state=f.get("forced", ""),
            error=error,
            extra={"blob": f.get("blob", "")},
            bytes_known=f.get("known", "1") == "1",
            gcs_uri=f.get("gcs", ""),
        )

    async def get(self, namespace: str, name: str) -> StoredFile | None:
        flat = await self._call("read", [PREFIX, namespace, name, _now_ms()])
        return self.loaded(namespace, name, flat) if flat else None

    async def exists(self, namespace: str, name: str) -> bool:
        return await self.get(namespace, name) is not None

    async def list(self, namespace: str, page_size: int, page_token: str = "") -> tuple[list[StoredFile], str]:
        """A page of the namespace's files, newest first, and the next page's token (as FileStore.list)."""
        following, rows = await self._call("page", [PREFIX, namespace, page_token, page_size, _now_ms()])
        files = [self.loaded(namespace, _text(name), flat) for name, flat in rows if flat]
        return files, _text(following)

    async def delete(self, namespace: str, name: str) -> bool:
        return bool(await self._call("delete", [PREFIX, namespace, name]))

    def spool(self, limit: int | None = None) -> RedisSpool:
        """A new one-request upload's bytes, at most `limit` (and the per-file max). No round trip until bytes."""
        bound = min(limit if limit is not None else self.max_file_bytes, self.max_file_bytes)
        return RedisSpool(self, secrets.token_hex(12), bound)

    async def store(
        self,
        namespace: str,
        spool: RedisSpool | None,
        mime_type: str,
        display_name: str = "",
        name: str | None = None,
        source: str = "UPLOADED",
        sha256_hex: str | None = None,
        known: bool = True,
        gcs_uri: str = "",
    ) -> StoredFile | None:
        """The spool's bytes (None: no bytes) as the namespace's file `name` (or a new id); None when `name` was
        taken meanwhile. SpoolClosed when the bytes are gone (the upload cancelled or expired)."""
        if spool is not None:
            if spool.closed:
                raise SpoolClosed()
            await spool.flush()
        now_ns = time.time_ns()
        processing = self.video_processing_s if mime_type.startswith("video/") else 0.0
        wanted = name
        sha = (
            sha256_hex
            if sha256_hex is not None
            else (spool.digest.hexdigest() if spool else hashlib.sha256().hexdigest())
        )
        blob = spool.blob if spool is not None and (spool.written or spool.session) else ""
        session, token = (spool.session, spool.token) if spool is not None else ("", "")
        for _ in range(8):
            chosen = wanted or "files/" + new_id()
            args: list[Any] = [PREFIX, namespace, chosen, blob, mime_type, display_name, source, now_ns]
            args += [now_ns + EXPIRY_NS, repr(time.time() + processing), sha, "1" if known else "0", gcs_uri]
            args += [self.max_per_namespace, _now_ms(), session, token, ""]
            args += [now_ns // 1_000_000 + EXPIRY_NS // 1_000_000 + GRACE_MS]
            reply = await self._call("commit", args)
            code = int(reply[0])
            if code == -3:
                if spool is not None:
                    spool.closed = True
                raise SpoolClosed()
            if code == 1:
                if spool is not None:
                    spool.closed = True
                stored = StoredFile(
                    name=chosen,
                    namespace=namespace,
                    mime_type=mime_type,
                    blob=Blob(spool.written if spool is not None else 0, None, None),
                    sha256_hex=sha,
                    created_ns=now_ns,
                    expires_ns=now_ns + EXPIRY_NS,
                    ready_at=float(args[9]),
                    clock=time.time,
                    display_name=display_name,
                    source=source,
                    forced_state=_text(reply[1]),
                    error=orjson.loads(reply[2]) if _text(reply[2]) else None,
                    extra={"blob": blob},
                    bytes_known=known,
                    gcs_uri=gcs_uri,
                )
                return stored
            if wanted is not None:
                return None
        raise RuntimeError("no free file id after 8 draws")  # pragma: no cover (new_id has 2**64 values)

    async def put(
        self, namespace: str, data: bytes, mime_type: str, display_name: str = "", source: str = "GENERATED"
    ) -> StoredFile:
        """Bytes a producer made (a batch's results, a video) as a file; FilesFull past the budget."""
        spool = self.spool()
        try:
            await spool.write(data)
            stored = await self.store(namespace, spool, mime_type, display_name, source=source)
        except BaseException:
            await spool.discard()
            raise
        assert stored is not None
        return stored

    async def record(
        self,
        namespace: str,
        mime_type: str,
        display_name: str = "",
        name: str | None = None,
        source: str = "UPLOADED",
        gcs_uri: str = "",
    ) -> StoredFile | None:
        """A file without bytes (FileStore.record); None when `name` was taken meanwhile."""
        return await self.store(namespace, None, mime_type, display_name, name, source, known=False, gcs_uri=gcs_uri)

    async def chunks(self, file: StoredFile, first: int = 0, sent: int = 0) -> AsyncIterator[bytes]:
        """The file's bytes from chunk `first` (`sent` bytes before it), one chunk (at most CHUNK_BYTES) per round
        trip; ends early if they expired meanwhile."""
        blob = file.extra.get("blob", "")
        if not blob or not file.size:
            return
        for index in range(first, MAX_FILE_BYTES // CHUNK_BYTES + 2):
            if sent >= file.size:
                return
            data = await self._get(f"{PREFIX}d:{blob}:{index}")
            if data is None:
                return
            sent += len(data)
            yield data

    async def read(self, file: StoredFile) -> bytes:
        return b"".join([chunk async for chunk in self.chunks(file)])

    async def first_chunk(self, file: StoredFile) -> bytes | None:
        """The first chunk (a download reads it before it answers, so a Redis gone is still a 503)."""
        blob = file.extra.get("blob", "")
        if not blob or not file.size:
            return b""
        return await self._get(f"{PREFIX}d:{blob}:0")

    # --- resumable uploads ---------------------------------------------------------------------------------
    async def start_upload(
        self,
        namespace: str,
        mime_type: str,
        display_name: str,
        name: str | None,
        declared_size: int | None,
        kind: str = "file",
        extra: dict[str, Any] | None = None,
    ) -> str:
        """A new upload session's id (FileStore.start_upload: unguessable, the replica's `NAME-` first; the same
        bounds, held in Redis)."""
        upload_id = self.upload_prefix + base64.urlsafe_b64encode(os.urandom(48)).decode().rstrip("=")
        args: list[Any] = [PREFIX, upload_id, namespace, mime_type, display_name, name or ""]
        args += ["" if declared_size is None else declared_size, kind, orjson.dumps(extra or {}), _now_ms()]
        args += [int(SESSION_TTL_S * 1000), MAX_SESSIONS, MAX_SESSIONS_PER_NAMESPACE, secrets.token_hex(12)]
        args += [GRACE_MS]
        await self._call("start", args)
        return upload_id

    async def take(
        self, upload_id: str, claim: bool, offset: str | None, token: str
    ) -> tuple[int, RedisSession | None]:
        """The session (None: unknown or expired) and, with `claim`, whether this request took it: 1 taken (or
        only looked at), 2 another request is feeding it, 3 `offset` is not the bytes it holds (None: no check)."""
        args = [PREFIX, upload_id, _now_ms(), token, RECEIVE_LEASE_MS, "1" if claim else "0"]
        args += ["0" if offset is None else "1", offset or ""]
        reply = await self._call("take", args)
        if not reply:
            return 0, None
        code, size, f = int(reply[0]), int(reply[1]), _fields(reply[2])
        declared = f.get("declared", "")
        session = RedisSession(
            id=upload_id,
            namespace=f.get("ns", ""),
            mime_type=f.get("mime", ""),
            display_name=f.get("display", ""),
            name=f.get("name") or None,
            declared_size=int(declared) if declared else None,
            kind=f.get("kind", "file"),
            blob=f.get("blob", ""),
            size=size,
            extra=orjson.loads(f.get("extra") or "{}"),
        )
        return code, session

    def receiver(self, session: RedisSession, token: str) -> RedisSpool:
        """The spool a request that took `session` feeds (its bytes continue the session's)."""
        limit = session.declared_size if session.declared_size is not None else self.max_file_bytes
        bound = session.extra.get("limit")  # another kind's own bound (a file search document's 100 MB)
        if isinstance(bound, int) and bound >= 0:
            limit = min(limit, bound)
        spool = RedisSpool(self, session.blob, min(limit, self.max_file_bytes), session=session.id, token=token)
        spool.size = spool.written = session.size
        known = self._digests.pop(session.id, None)
        if known is not None and known[1] == session.size:  # this process wrote every byte so far
            spool.digest = known[0]
        else:
            spool.hashed = session.size == 0
        return spool

    def keep_digest(self, spool: RedisSpool) -> None:
        """After a chunk request: this process's running hash of the session, while it covers every byte (a
        later request through this process continues it; through another, the finalize reads the bytes back)."""
        if spool.hashed and not spool._buffer:
            self._digests[spool.session] = (spool.digest.copy(), spool.written)
            while len(self._digests) > MAX_SESSIONS:
                self._digests.popitem(last=False)

    async def final_digest(self, session: RedisSession, spool: RedisSpool) -> str:
        """The finished upload's sha256: the running hash when this process saw every byte, else read back."""
        self._digests.pop(session.id, None)
        if spool.hashed:
            return str(spool.digest.hexdigest())
        return await self.session_digest(session, spool.written)

    async def release(self, upload_id: str, token: str) -> None:
        await self._call("release", [PREFIX, upload_id, token])

    async def end_upload(self, upload_id: str) -> None:
        """The session and its bytes are gone (cancelled, refused)."""
        self._digests.pop(upload_id, None)
        await self._call("end", [PREFIX, upload_id])

    def _session_file(self, session: RedisSession, size: int) -> StoredFile:
        stand_in = StoredFile(
            session.name or "", session.namespace, "", Blob(size, None, None), "", 0, 0, 0.0, time.time
        )
        stand_in.extra["blob"] = session.blob
        return stand_in

    async def session_digest(self, session: RedisSession, size: int) -> str:
        """The sha256 of the session's bytes, read back chunk by chunk."""
        digest = hashlib.sha256()
        async for chunk in self.chunks(self._session_file(session, size)):
            digest.update(chunk)
        return digest.hexdigest()

    async def session_head(self, session: RedisSession, size: int, keep: int) -> bytes:
        """The first `keep` of the session's `size` bytes (a finished upload that becomes no file, as FileStore.drain
        gives a file search document its bytes): one round trip per chunk read, none past `keep`."""
        out = bytearray()
        if keep <= 0:
            return b""
        async for chunk in self.chunks(self._session_file(session, size)):
            out += chunk[: keep - len(out)]
            if len(out) >= keep:
                break
        return bytes(out)

    # --- the admin API and tests (sync client) -------------------------------------------------------------
    def names(self) -> builtins.list[str]:
        found: builtins.list[str] = []
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found += [_text(k)[len(PREFIX) + 2 :] for k in keys]
            if int(cursor) == 0:
                break
        return sorted(set(found))

    def all(self, namespace: str | None = None) -> builtins.list[StoredFile]:
        """Every file of a namespace (or of all), oldest first, expired ones left out."""
        out: builtins.list[StoredFile] = []
        now = time.time_ns()
        for space in [namespace] if namespace is not None else self.names():
            names = [_text(n) for n in self.link.command("zrange", PREFIX + "z:" + space, 0, -1)]
            pipe = self.link.sync.pipeline(transaction=False)
            for name in names:
                pipe.hgetall(f"{PREFIX}m:{space}:{name}")
            try:
                rows = pipe.execute()
            except failures() as exc:
                raise self.link.unavailable(exc) from None
            for name, row in zip(names, rows, strict=True):
                if row:
                    stored = self.loaded(space, name, row)
                    if stored.expires_ns > now:
                        out.append(stored)
        return out

    def remove(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("delete", [PREFIX, namespace, name]))

    def set_state(self, namespace: str, name: str, state: str, error: dict[str, Any] | None = None) -> bool:
        forced = "" if state == "ACTIVE" else state
        shown = orjson.dumps(error).decode() if error and state == "FAILED" else ""
        ready = repr(time.time()) if state == "ACTIVE" else ""
        return bool(self._call_sync("set_state", [PREFIX, namespace, name, forced, shown, ready]))

    def next_state(self, namespace: str, state: str, error: dict[str, Any] | None = None) -> None:
        key = PREFIX + "next:" + namespace
        if state == "ACTIVE":
            self.link.command("delete", key)
        else:
            rule = {"state": state, "error": error if state == "FAILED" else None}
            self.link.command("set", key, orjson.dumps(rule))

    def reset(self, namespace: str | None = None) -> None:
        if namespace is not None:
            self._call_sync("reset", [PREFIX, namespace])
            return
        cursor = 0  # everything: every file, upload, blob and the byte count
        for _ in range(100_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "*", 1000)
            if keys:
                self.link.command("delete", *keys)
            if int(cursor) == 0:
                break

    @property
    def used(self) -> int:
        """Bytes held by every file and upload (as Redis counts them)."""
        return int(self.link.command("get", PREFIX + "total") or 0)

    def counts(self) -> dict[str, tuple[int, int]]:
        return {space: (len(held), sum(f.size for f in held)) for space in self.names() if (held := self.all(space))}
