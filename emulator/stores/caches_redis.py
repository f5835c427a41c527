"""Cached contents on Redis (`--store redis://...`): a cache created through one process is read, listed,
patched, used by generateContent and deleted through any other, its expiry and the bounds held across all of them.

The in-memory twin is stores/caches.py (CacheStore); this store keeps its rules: expiry by the clock (here the wall
clock, `time.time_ns`, which every process on one host shares), checked on read to the nanosecond; at most
`max_per_namespace` entries and `max_bytes_per_namespace` bytes per caller and `max_bytes` in all, counted in
Redis, past one a create refused (CacheFull, the same wording); nothing evicted behind a caller's back. Every
check-and-change is one Lua call, so two processes never both pass a bound.

Expiry: each entry's hash carries a Redis TTL (PEXPIREAT, a millisecond past its expireTime), so Redis frees what
nobody reads again; the entry's bytes and count are given back by the sweep every call begins with (the entries
whose expiry has passed, from one sorted set over every caller, at most SWEEP of them a call), so the budgets
never count a dead entry for long, whoever's it was.

Keys (P is seam.state.KEY_PREFIX + "c:", N a namespace, C a cache's name `cachedContents/ID` or
`projects/P/locations/L/cachedContents/ID`):
  P e:N:C   hash: the entry (model served members display tt tm size parent created updated expires), with a TTL
  P z:N     sorted set of the caller's names, scored by creation (P seq): the listing's order, oldest first
  P s:N     hash C -> size (outlives the entry's hash, so the sweep can give its bytes back)
  P x       sorted set of "len(N):N C" over every caller, scored by expiry in ms: the sweep's
  P bytes   hash N -> bytes held        P total  bytes held by everyone

Round trips: create 1 (CREATE: sweep, bounds, the entry), get 1 (READ), list 1 (PAGE), patch 1 (EXPIRY),
delete 1 (DELETE). A generate call naming a cache reads it once (READ, through `fetch` before the call is built).
"""

from __future__ import annotations

import builtins
import contextvars
import time
from collections.abc import Sequence
from typing import Any

from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.caches import (
    MAX_BYTES,
    MAX_BYTES_PER_NAMESPACE,
    MAX_PER_NAMESPACE,
    PAGE_DEFAULT,
    PAGE_MAX,
    CachedContent,
    CacheFull,
    new_id,
)

PREFIX = KEY_PREFIX + "c:"
SWEEP = 200  # expired entries given back per call, at most
FIELDS = ("model", "served", "display", "tt", "tm", "size", "parent", "name", "created", "updated", "expires")

# `passed(a, b)`: ns timestamp strings compared exactly (a <= b; Lua numbers are doubles, 19 digits are not).
# `forget` drops an entry and gives its bytes back; `sweep` forgets what expired (at most SWEEP).
_COMMON = """
local function passed(a, b)
  if #a ~= #b then return #a < #b end
  return a <= b
end
local function member(ns, name)  -- the sweep's "N C", length-prefixed: a namespace may hold any character
  return #ns .. ':' .. ns .. name
end
local function forget(P, ns, name)
  local size = tonumber(redis.call('HGET', P .. 's:' .. ns, name) or '0')
  redis.call('DEL', P .. 'e:' .. ns .. ':' .. name)
  redis.call('ZREM', P .. 'z:' .. ns, name)
  redis.call('HDEL', P .. 's:' .. ns, name)
  redis.call('ZREM', P .. 'x', member(ns, name))
  if size ~= 0 then
    redis.call('HINCRBY', P .. 'bytes', ns, -size)
    redis.call('INCRBY', P .. 'total', -size)
  end
end
local function sweep(P, now, limit)
  local ms = math.floor(tonumber(now) / 1000000)
  local due = redis.call('ZRANGEBYSCORE', P .. 'x', '-inf', ms, 'LIMIT', 0, limit)
  for _, due_one in ipairs(due) do
    local cut = string.find(due_one, ':', 1, true)
    local n = tonumber(string.sub(due_one, 1, cut - 1))
    local ns, name = string.sub(due_one, cut + 1, cut + n), string.sub(due_one, cut + n + 1)
    local exp = redis.call('HGET', P .. 'e:' .. ns .. ':' .. name, 'expires')
    if not exp or passed(exp, now) then forget(P, ns, name) end
  end
end
local function live(P, ns, name, now)
  local e = P .. 'e:' .. ns .. ':' .. name
  local exp = redis.call('HGET', e, 'expires')
  if not exp then  -- dropped by its Redis TTL: its bytes given back here
    if redis.call('HEXISTS', P .. 's:' .. ns, name) == 1 then forget(P, ns, name) end
    return false
  end
  if passed(exp, now) then forget(P, ns, name) return false end
  return true
end
"""

CREATE = (
    _COMMON
    + """
local P, ns, name, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local maxn, maxns, maxall, size = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
sweep(P, now, tonumber(ARGV[10]))
local e = P .. 'e:' .. ns .. ':' .. name
if redis.call('EXISTS', e) == 1 then return {0} end
local count = redis.call('ZCARD', P .. 'z:' .. ns)
if count >= maxn then return {-1, count} end
local used = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
if used + size > maxns then return {-2, used + size} end
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total + size > maxall then return {-3, total + size} end
redis.call('HSET', e, 'model', ARGV[11], 'served', ARGV[12], 'members', ARGV[13], 'display', ARGV[14],
  'tt', ARGV[15], 'tm', ARGV[16], 'size', size, 'parent', ARGV[17], 'name', name,
  'created', now, 'updated', now, 'expires', expires)
local ms = math.floor(tonumber(expires) / 1000000)
redis.call('PEXPIREAT', e, ms + 1)
redis.call('ZADD', P .. 'z:' .. ns, redis.call('INCR', P .. 'seq'), name)
redis.call('HSET', P .. 's:' .. ns, name, size)
redis.call('ZADD', P .. 'x', ms, member(ns, name))
redis.call('HINCRBY', P .. 'bytes', ns, size)
redis.call('INCRBY', P .. 'total', size)
return {1}
"""
)

# One live entry's fields (ARGV[5] '1': with its members), or {}.
READ = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not live(P, ns, name, now) then return {} end
local e = P .. 'e:' .. ns .. ':' .. name
local out = redis.call('HMGET', e, unpack(ARGV, 6))
if ARGV[5] == '1' then out[#out + 1] = redis.call('HGET', e, 'members') end
return out
"""
)

# A page of the caller's live entries under a parent, oldest first: {next token, {fields...}...}.
PAGE = (
    _COMMON
    + """
local P, ns, now, parent, token, size = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
sweep(P, now, tonumber(ARGV[7]))
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
local kept = {}
for _, name in ipairs(names) do
  local e = P .. 'e:' .. ns .. ':' .. name
  if live(P, ns, name, now) and redis.call('HGET', e, 'parent') == parent then kept[#kept + 1] = name end
end
local start = 1
if token ~= '' then
  for i, name in ipairs(kept) do if name == token then start = i break end end
end
local rows = {}
for i = start, math.min(#kept, start + size - 1) do
  rows[#rows + 1] = redis.call('HMGET', P .. 'e:' .. ns .. ':' .. kept[i], unpack(ARGV, 8))
end
local following = ''
if start + size <= #kept then following = kept[start + size] end
return {following, rows}
"""
)

EXPIRY = (
    _COMMON
    + """
local P, ns, name, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if not live(P, ns, name, now) then return {} end
local e = P .. 'e:' .. ns .. ':' .. name
redis.call('HSET', e, 'expires', expires, 'updated', now)
local ms = math.floor(tonumber(expires) / 1000000)
redis.call('PEXPIREAT', e, ms + 1)
redis.call('ZADD', P .. 'x', ms, member(ns, name))
return redis.call('HMGET', e, unpack(ARGV, 6))
"""
)

DELETE = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not live(P, ns, name, now) then return 0 end
forget(P, ns, name)
return 1
"""
)

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do forget(P, ns, name) end
redis.call('DEL', P .. 'z:' .. ns, P .. 's:' .. ns)
return #names
"""
)

SCRIPTS = {"create": CREATE, "read": READ, "page": PAGE, "expiry": EXPIRY, "delete": DELETE, "reset": RESET}

# The entry a generate call names, read before the call is built (RedisCacheStore.fetch), for the sync look-up
# the request's builder makes (wire/resources/cached.resolve): (namespace, name, entry or None).
_FETCHED: contextvars.ContextVar[tuple[str, str, CachedContent | None] | None] = contextvars.ContextVar(
    "gemini_emulator_fetched_cache", default=None
)


class RedisCacheStore:
    """Every caller's cached contents in one Redis (module docstring: expiry, bounds, keys, round trips). The
    request path's calls are coroutines on redis.asyncio (`remote`: the room awaits them); `all`, `counts`,
    `remove` and `reset` (the admin API's) use the sync client. A Redis that cannot be reached is the 503."""

    remote = True

    def __init__(
        self,
        link: RedisLink,
        max_per_namespace: int = MAX_PER_NAMESPACE,
        max_bytes_per_namespace: int = MAX_BYTES_PER_NAMESPACE,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.link = link
        self.max_per_namespace = max_per_namespace
        self.max_bytes_per_namespace = max_bytes_per_namespace
        self.max_bytes = max_bytes
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)
        self.sync_reads = 0

    def now(self) -> int:
        return time.time_ns()

    # --- calls -------------------------------------------------------------------------------------------
    async def _call(self, script: str, args: Sequence[Any]) -> Any:
        return await self._lua.call(script, args)

    def _call_sync(self, script: str, args: Sequence[Any]) -> Any:
        return self._lua.call_sync(script, args)

    # --- the request path --------------------------------------------------------------------------------
    async def create(self, namespace: str, entry: CachedContent, expires: int) -> CachedContent:
        """Store `entry` under a new name (CacheStore.create); CacheFull past a bound."""
        vertex = bool(entry.parent)
        for _ in range(100):  # a name drawn twice in 36**40 (or 9*10**18): draw again
            now = time.time_ns()
            name = f"{entry.parent}cachedContents/{new_id(vertex)}"
            args: list[Any] = [PREFIX, namespace, name, now, expires, self.max_per_namespace]
            args += [self.max_bytes_per_namespace, self.max_bytes, entry.size, SWEEP, entry.model]
            args += [entry.served_model, entry.members, entry.display_name, entry.tokens_text, entry.tokens_media]
            reply = await self._call("create", [*args, entry.parent])
            if reply[0] == 1:
                entry.name, entry.created, entry.updated, entry.expires = name, now, now, expires
                return entry
            if reply[0] == -1:
                raise CacheFull(
                    f"this caller holds {reply[1]} cached contents, the most the emulator keeps per caller; "
                    "delete some first"
                )
            if reply[0] == -2:
                raise CacheFull(
                    f"this caller's cached contents would take {reply[1]} bytes, past the emulator's "
                    f"{self.max_bytes_per_namespace} per caller; delete some first"
                )
            if reply[0] == -3:
                raise CacheFull(f"the emulator's cached contents would take more than {self.max_bytes} bytes")
        raise CacheFull("no free cache name could be drawn")  # pragma: no cover: 100 collisions in a row

    async def get(self, namespace: str, name: str, members: bool = False) -> CachedContent | None:
        """The live entry called `name` in this namespace, or None; `members`: with its cached contents."""
        args = [PREFIX, namespace, name, time.time_ns(), "1" if members else "0", *FIELDS]
        row = await self._call("read", args)
        return _entry(row, members) if row else None

    async def fetch(self, namespace: str, name: str) -> None:
        """Read the entry a generate or countTokens call names, for `cached` (the sync look-up its builder
        makes, in this task) to find."""
        _FETCHED.set((namespace, name, await self.get(namespace, name, members=True)))

    def cached(self, namespace: str, name: str) -> CachedContent | None:
        """The entry `fetch` read for this request (the generate path's sync look-up); else, off the request
        path only, one sync read."""
        held = _FETCHED.get()
        if held is not None and held[0] == namespace and held[1] == name:
            return held[2]
        self.sync_reads += 1  # a caller that did not fetch first (the contract tests hold this at 0)
        row = self._call_sync("read", [PREFIX, namespace, name, time.time_ns(), "1", *FIELDS])
        return _entry(row, True) if row else None

    async def list(
        self, namespace: str, page_size: int = PAGE_DEFAULT, page_token: str = "", parent: str = ""
    ) -> tuple[builtins.list[CachedContent], str]:
        """A page of the caller's live entries under `parent`, oldest first, and the next page's token."""
        size = PAGE_DEFAULT if page_size <= 0 else min(page_size, PAGE_MAX)
        args = [PREFIX, namespace, time.time_ns(), parent, page_token, size, SWEEP, *FIELDS]
        following, rows = await self._call("page", args)
        return [_entry(row, False) for row in rows], _text(following)

    async def set_expiry(self, namespace: str, name: str, expires: int) -> CachedContent | None:
        row = await self._call("expiry", [PREFIX, namespace, name, time.time_ns(), expires, *FIELDS])
        return _entry(row, False) if row else None

    async def delete(self, namespace: str, name: str) -> bool:
        return bool(await self._call("delete", [PREFIX, namespace, name, time.time_ns()]))

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def names(self) -> builtins.list[str]:
        """The namespaces holding entries."""
        found: set[str] = set()
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found.update(_text(k)[len(PREFIX) + 2 :] for k in keys)
            if int(cursor) == 0:
                break
        return sorted(found)

    def all(self, namespace: str | None = None) -> builtins.list[tuple[str, CachedContent]]:
        """(namespace, entry) for every live entry (without its members), or one namespace's, oldest first."""
        out: builtins.list[tuple[str, CachedContent]] = []
        for space in [namespace] if namespace is not None else self.names():
            for raw in self.link.command("zrange", PREFIX + "z:" + space, 0, MAX_PER_NAMESPACE - 1):
                row = self._call_sync("read", [PREFIX, space, _text(raw), time.time_ns(), "0", *FIELDS])
                if row:
                    out.append((space, _entry(row, False)))
        return out

    def counts(self) -> dict[str, int]:
        return {ns: n for ns in self.names() if (n := len(self.all(ns)))}

    def remove(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("delete", [PREFIX, namespace, name, time.time_ns()]))

    def reset(self, namespace: str | None = None) -> None:
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", [PREFIX, space])

    def held(self, namespace: str | None = None) -> int:
        """Bytes held by a caller's entries, or by everyone's (as Redis counts them)."""
        if namespace:
            return int(self.link.command("hget", PREFIX + "bytes", namespace) or 0)
        return int(self.link.command("get", PREFIX + "total") or 0)


def _entry(row: Sequence[Any], members: bool) -> CachedContent:
    """A CachedContent from a FIELDS row (and its members last, when read)."""
    model, served, display, tt, tm, size, parent, name, created, updated, expires = (
        b"" if v is None else bytes(v) for v in row[: len(FIELDS)]
    )
    return CachedContent(
        model=model.decode(),
        served_model=served.decode(),
        members=bytes(row[len(FIELDS)] or b"") if members else b"",
        display_name=display.decode(),
        tokens_text=int(tt or 0),
        tokens_media=int(tm or 0),
        size=int(size or 0),
        parent=parent.decode(),
        name=name.decode(),
        created=int(created or 0),
        updated=int(updated or 0),
        expires=int(expires or 0),
    )
