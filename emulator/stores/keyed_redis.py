"""The Redis twin of `Keyed` (stores/keyed.py), for `--store redis://...`: each namespace's records of one kind, by
id, oldest first, shared by every process and replica on the store.

A record is its JSON bytes (a store gives `dump` and `load`). What is the same as in memory: the order (oldest
first, by creation), the bounds (per namespace and overall in count, and in bytes where the store counts them:
counted in Redis, so they hold across every process), fresh ids, the paging rule (`page_of`: a token is the id of
the first record of the next page; a token naming no record is None), delete, reset, the admin views. A namespace
with no record left leaves no key behind.

Every check-and-change is one Lua call: ADD checks the id is free and every bound, then stores; SWAP stores a
changed record only when its version is the one read (a compare-and-set: a store's own change, such as a webhook's
rotation, is read, changed in Python and swapped, again from a fresh read when another process changed it first,
at most SWAP_TRIES times, after a short random wait), checking the byte bounds on the difference.

Keys (P is seam.state.KEY_PREFIX + "k:" + the kind's short name + ":", N a namespace):
  P r:N    hash id -> the record's JSON bytes
  P v:N    hash id -> its version (grown by each SWAP)     P s:N  hash id -> its counted bytes (where not 0)
  P q:N    sorted set of the ids a kind scores (`score_of`: a trigger's next run), kept with each ADD and SWAP
  P x:N:I  hash: record I's side fields (bytes kept beside it: an environment's files, in chunks), set and dropped
           in the ADD or SWAP that changes the record, deleted with it
  P z:N    sorted set of the ids, scored by creation (P seq): the order
  P n      records held by everyone   P bytes  hash N -> bytes held   P total  bytes held by everyone

Round trips: add 1, get 1, many 1, page 1, ids 1, count 1, side 1, delete 1, change 2 (read, swap; 2 more per
lost race).
The request path's methods are coroutines on redis.asyncio; the `*_sync` ones (the admin views', and the threads')
use the sync client. A Redis that cannot be reached is the 503 (seam.state.RedisLink.unavailable).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.stores.keyed import Full, Page

T = TypeVar("T")
SWAP_TRIES = 32  # a change retried from a fresh read at most this often when other processes keep changing it
BACKOFF_S = 0.002  # after the nth lost race, a random wait of up to n times this (at most ~1 s in all)
FRESH_TRIES = 16  # ids drawn before giving up (a 12-character random id is never taken twice in practice)
SCAN_LIMIT = 10_000  # SCAN calls an admin listing of every namespace makes at most

_DROP_IF_EMPTY = """
local function drop_if_empty(P, ns)
  if redis.call('ZCARD', P .. 'z:' .. ns) == 0 then
    redis.call('DEL', P .. 'r:' .. ns, P .. 'v:' .. ns, P .. 's:' .. ns, P .. 'z:' .. ns, P .. 'q:' .. ns)
    redis.call('HDEL', P .. 'bytes', ns)
  end
end
local function score(P, ns, id, value)
  if value == '' then redis.call('ZREM', P .. 'q:' .. ns, id) else redis.call('ZADD', P .. 'q:' .. ns, value, id) end
end
"""

# ARGV: P ns id record size per_ns overall bytes_ns bytes_all score, then the side fields' (name, bytes) pairs. {1}:
# added; {0}: the id is taken; {-1..-4}: which bound (per namespace, overall, bytes per namespace, bytes overall).
ADD = (
    _DROP_IF_EMPTY
    + """
local P, ns, id, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[5])
local z = P .. 'z:' .. ns
if redis.call('HEXISTS', P .. 'r:' .. ns, id) == 1 then return 0 end
if redis.call('ZCARD', z) >= tonumber(ARGV[6]) then return -1 end
if tonumber(redis.call('GET', P .. 'n') or '0') >= tonumber(ARGV[7]) then return -2 end
if size > 0 then
  local bns, ball = tonumber(ARGV[8]), tonumber(ARGV[9])
  if bns > 0 and tonumber(redis.call('HGET', P .. 'bytes', ns) or '0') + size > bns then return -3 end
  if ball > 0 and tonumber(redis.call('GET', P .. 'total') or '0') + size > ball then return -4 end
  redis.call('HSET', P .. 's:' .. ns, id, size)
  redis.call('HINCRBY', P .. 'bytes', ns, size)
  redis.call('INCRBY', P .. 'total', size)
end
redis.call('HSET', P .. 'r:' .. ns, id, ARGV[4])
redis.call('HSET', P .. 'v:' .. ns, id, 1)
for i = 11, #ARGV, 2 do redis.call('HSET', P .. 'x:' .. ns .. ':' .. id, ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), id)
score(P, ns, id, ARGV[10])
redis.call('INCR', P .. 'n')
return 1
"""
)

# ARGV: P ns id version record size bytes_ns bytes_all score n, then n side (name, bytes) pairs to set and the side
# names to drop. {1}: swapped; {0}: changed since (read again); {-1}: gone;
# {-3}/{-4}: the difference passes a byte bound.
SWAP = (
    _DROP_IF_EMPTY
    + """
local P, ns, id, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[6])
local version = redis.call('HGET', P .. 'v:' .. ns, id)
if not version then return -1 end
if version ~= ARGV[4] then return 0 end
local old = tonumber(redis.call('HGET', P .. 's:' .. ns, id) or '0')
local more = size - old
if more > 0 then
  local bns, ball = tonumber(ARGV[7]), tonumber(ARGV[8])
  if bns > 0 and tonumber(redis.call('HGET', P .. 'bytes', ns) or '0') + more > bns then return -3 end
  if ball > 0 and tonumber(redis.call('GET', P .. 'total') or '0') + more > ball then return -4 end
end
if more ~= 0 then
  redis.call('HINCRBY', P .. 'bytes', ns, more)
  redis.call('INCRBY', P .. 'total', more)
end
if size > 0 then redis.call('HSET', P .. 's:' .. ns, id, size) else redis.call('HDEL', P .. 's:' .. ns, id) end
redis.call('HSET', P .. 'r:' .. ns, id, ARGV[5])
redis.call('HINCRBY', P .. 'v:' .. ns, id, 1)
score(P, ns, id, ARGV[9])
local x, sets = P .. 'x:' .. ns .. ':' .. id, tonumber(ARGV[10])
for i = 11, 10 + 2 * sets, 2 do redis.call('HSET', x, ARGV[i], ARGV[i + 1]) end
for i = 11 + 2 * sets, #ARGV do redis.call('HDEL', x, ARGV[i]) end
return 1
"""
)

READ = """
local P, ns, id = ARGV[1], ARGV[2], ARGV[3]
return {redis.call('HGET', P .. 'r:' .. ns, id), redis.call('HGET', P .. 'v:' .. ns, id)}
"""

# ARGV: P ns token size. {-1}: the token names no record; else {following, records...}.
PAGE = """
local P, ns, token, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local z = P .. 'z:' .. ns
local start = 0
if token ~= '' then
  start = redis.call('ZRANK', z, token)
  if not start then return {-1} end
end
local ids = redis.call('ZRANGE', z, start, start + size)
local following = ''
if #ids > size then following = table.remove(ids) end
local out = {following}
if #ids > 0 then
  for _, record in ipairs(redis.call('HMGET', P .. 'r:' .. ns, unpack(ids))) do out[#out + 1] = record end
end
return out
"""

DELETE = (
    _DROP_IF_EMPTY
    + """
local P, ns, id = ARGV[1], ARGV[2], ARGV[3]
local record = redis.call('HGET', P .. 'r:' .. ns, id)
if not record then return false end
local size = tonumber(redis.call('HGET', P .. 's:' .. ns, id) or '0')
redis.call('HDEL', P .. 'r:' .. ns, id)
redis.call('HDEL', P .. 'v:' .. ns, id)
redis.call('HDEL', P .. 's:' .. ns, id)
redis.call('ZREM', P .. 'z:' .. ns, id)
redis.call('ZREM', P .. 'q:' .. ns, id)
redis.call('DEL', P .. 'x:' .. ns .. ':' .. id)
redis.call('DECR', P .. 'n')
if size ~= 0 then
  redis.call('HINCRBY', P .. 'bytes', ns, -size)
  redis.call('INCRBY', P .. 'total', -size)
end
drop_if_empty(P, ns)
return record
"""
)

RESET = """
local P, ns = ARGV[1], ARGV[2]
local count = redis.call('ZCARD', P .. 'z:' .. ns)
local size = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
for _, id in ipairs(redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)) do redis.call('DEL', P .. 'x:' .. ns .. ':' .. id) end
redis.call('DEL', P .. 'r:' .. ns, P .. 'v:' .. ns, P .. 's:' .. ns, P .. 'z:' .. ns, P .. 'q:' .. ns)
redis.call('HDEL', P .. 'bytes', ns)
if count ~= 0 then redis.call('DECRBY', P .. 'n', count) end
if size ~= 0 then redis.call('DECRBY', P .. 'total', size) end
return count
"""

# Every record of a namespace, oldest first: {ids..., records...} in two halves.
ALL = """
local P, ns = ARGV[1], ARGV[2]
local ids = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
if #ids == 0 then return {} end
local out = {}
for _, id in ipairs(ids) do out[#out + 1] = id end
for _, record in ipairs(redis.call('HMGET', P .. 'r:' .. ns, unpack(ids))) do out[#out + 1] = record end
return out
"""

SCRIPTS = {"add": ADD, "swap": SWAP, "read": READ, "page": PAGE, "delete": DELETE, "reset": RESET, "all": ALL}


def lost_races(record_id: str) -> errors.ApiError:
    """What a change that lost SWAP_TRIES races in a row to other processes' changes of the record gets: a 409
    ABORTED (Google's status for a concurrency conflict; best-known wording), never a 5xx."""
    return errors.ApiError(
        409, f"gemini-emulator: {record_id[:100]} was changed by other requests meanwhile; try again.", status="ABORTED"
    )


def text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisKeyed(Generic[T]):
    """Records of one kind per namespace on Redis (module docstring), bounded as `Keyed` bounds them. A store
    subclasses it with its `kind` (a short key prefix), `dump`/`load` and `size_of`, and writes its own changes
    with `add` and `change`."""

    remote = True
    scripts: Mapping[str, str] = SCRIPTS  # a store may add its own (the tunings' index: stores/tunings_redis.py)
    full: type[Exception] = Full
    noun = "records"
    kind = "x"

    def __init__(
        self,
        link: RedisLink,
        per_namespace: int,
        overall: int,
        *,
        bytes_per_namespace: int = 0,
        bytes_overall: int = 0,
    ) -> None:
        self.link = link
        self.per_namespace, self.overall = per_namespace, overall
        self.bytes_per_namespace, self.bytes_overall = bytes_per_namespace, bytes_overall
        self.prefix = f"{KEY_PREFIX}k:{self.kind}:"
        self._lua = LuaScripts(link, self.scripts)  # its Lua calls (seam.state)

    # --- what a store gives ------------------------------------------------------------------------------
    def dump(self, record: T) -> bytes:
        """A record as kept (JSON bytes)."""
        raise NotImplementedError

    def load(self, data: bytes) -> T:
        """A record from its kept bytes."""
        raise NotImplementedError

    def size_of(self, record: T) -> int:
        """The bytes a record counts against the byte bounds (none by default)."""
        return 0

    def score_of(self, record: T) -> float | None:
        """The record's score in the namespace's index (`P q:N`, read with `scored`), kept with each ADD and SWAP;
        None: not in it (the default)."""
        return None

    def _score(self, record: T) -> str:
        value = self.score_of(record)
        return "" if value is None else repr(float(value))

    # --- calls -------------------------------------------------------------------------------------------
    async def _call(self, script: str, *args: Any) -> Any:
        return await self._lua.call(script, [self.prefix, *args])

    def _call_sync(self, script: str, *args: Any) -> Any:
        return self._lua.call_sync(script, [self.prefix, *args])

    def _bound(self, code: int) -> Exception:
        """The `full` a refused ADD or SWAP code names (Keyed's wording)."""
        if code == -1:
            return self.full(f"this caller has {self.per_namespace} {self.noun}, the emulator's bound per caller")
        if code == -2:
            return self.full(f"the emulator holds {self.overall} {self.noun}, its bound")
        if code == -3:
            return self.full(f"this caller's {self.noun} would take more than {self.bytes_per_namespace} bytes")
        return self.full(f"the emulator's {self.noun} would take more than {self.bytes_overall} bytes")

    # --- the request path --------------------------------------------------------------------------------
    async def add(self, namespace: str, record_id: str, record: T, side: Mapping[str, bytes] | None = None) -> bool:
        """Keep `record` under `record_id` (False: the namespace holds that id already), or `full` past a bound;
        `side`: its side fields (bytes kept beside it, read with `side`, gone with it)."""
        data = self.dump(record)
        pairs = [item for pair in (side or {}).items() for item in pair]
        code = int(
            await self._call(
                "add",
                namespace,
                record_id,
                data,
                self.size_of(record),
                self.per_namespace,
                self.overall,
                self.bytes_per_namespace,
                self.bytes_overall,
                self._score(record),
                *pairs,
            )
        )
        if code < 0:
            raise self._bound(code)
        return code == 1

    async def add_fresh(self, namespace: str, new_id: Callable[[], str], build: Callable[[str], T]) -> T:
        """A new record `build(id)` under an id from `new_id` the namespace does not hold yet (Keyed._fresh_id)."""
        for _ in range(FRESH_TRIES):
            record_id = new_id()
            record = build(record_id)
            if await self.add(namespace, record_id, record):
                return record
        raise self.full(f"no fresh id for another of the {self.noun}")

    async def read(self, namespace: str, record_id: str) -> tuple[T, bytes] | None:
        """The record and its version (for `swap`), None when the namespace holds none of that id."""
        data, version = await self._call("read", namespace, record_id)
        return None if data is None else (self.load(bytes(data)), bytes(version))

    async def get(self, namespace: str, record_id: str) -> T | None:
        found = await self.read(namespace, record_id)
        return None if found is None else found[0]

    async def change(self, namespace: str, record_id: str, how: Callable[[T], Any]) -> T | None:
        """The record after `how(record)` changed it (in place) and it was swapped in: None when there is none
        (or `how` returned False: nothing to change), `full` when the change passes a byte bound. `how` may return
        (side fields to set, side field names to drop), swapped in with the record."""
        side: tuple[Mapping[str, bytes], Sequence[str]] = ({}, ())
        for tries in range(SWAP_TRIES):
            if tries:
                await asyncio.sleep(random.uniform(0, BACKOFF_S * tries))
            found = await self.read(namespace, record_id)
            if found is None:
                return None
            record, version = found
            changed = how(record)
            if changed is False:
                return None
            if isinstance(changed, tuple):
                side = changed
            code = int(
                await self._call(
                    "swap",
                    namespace,
                    record_id,
                    version,
                    self.dump(record),
                    self.size_of(record),
                    self.bytes_per_namespace,
                    self.bytes_overall,
                    self._score(record),
                    len(side[0]),
                    *[item for pair in side[0].items() for item in pair],
                    *side[1],
                )
            )
            if code == 1:
                return record
            if code == -1:
                return None
            if code < 0:
                raise self._bound(code)
        raise lost_races(record_id)

    async def page(self, namespace: str, size: int, token: str = "") -> Page[T] | None:
        """As Keyed.page: up to `size` records from the one `token` names, and the next page's token."""
        reply = await self._call("page", namespace, token, size)
        if reply and reply[0] == -1:
            return None
        return [self.load(bytes(data)) for data in reply[1:] if data is not None], text(reply[0])

    async def many(self, namespace: str, ids: Sequence[str]) -> list[T | None]:
        """The records of `ids` (None for one not held), in one round trip."""
        if not ids:
            return []
        try:
            held = await self.link.aio.hmget(self.prefix + "r:" + namespace, list(ids))
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return [None if data is None else self.load(bytes(data)) for data in held]

    async def side(self, namespace: str, record_id: str, names: Sequence[str]) -> list[bytes | None]:
        """The record's side fields `names` (None for one not kept), in one round trip."""
        if not names:
            return []
        try:
            held = await self.link.aio.hmget(f"{self.prefix}x:{namespace}:{record_id}", list(names))
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return [None if data is None else bytes(data) for data in held]

    async def scored(self, namespace: str, most: float) -> list[str]:
        """The ids whose score (`score_of`) is at most `most`, lowest first, in one round trip."""
        try:
            held = await self.link.aio.zrangebyscore(self.prefix + "q:" + namespace, "-inf", repr(float(most)))
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return [text(i) for i in held]

    async def ids(self, namespace: str) -> list[str]:
        try:
            held = await self.link.aio.zrange(self.prefix + "z:" + namespace, 0, -1)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return [text(i) for i in held]

    async def count(self, namespace: str) -> int:
        try:
            return int(await self.link.aio.zcard(self.prefix + "z:" + namespace))
        except failures() as exc:
            raise self.link.unavailable(exc) from None

    async def delete(self, namespace: str, record_id: str) -> bool:
        return await self._call("delete", namespace, record_id) is not None

    async def taken(self, namespace: str, record_id: str) -> T | None:
        """Delete the record and return it (None: there was none)."""
        data = await self._call("delete", namespace, record_id)
        return None if data is None else self.load(bytes(data))

    # --- the admin views and threads (sync) --------------------------------------------------------------
    def names(self) -> list[str]:
        """The namespaces holding records."""
        found: set[str] = set()
        cursor: Any = 0
        start = len(self.prefix) + 2
        for _ in range(SCAN_LIMIT):
            cursor, keys = self.link.command("scan", cursor, self.prefix + "z:*", 1000)
            found.update(text(k)[start:] for k in keys)
            if int(cursor) == 0:
                break
        return sorted(found)

    def get_sync(self, namespace: str, record_id: str) -> T | None:
        data = self.link.command("hget", self.prefix + "r:" + namespace, record_id)
        return None if data is None else self.load(bytes(data))

    def all(self, namespace: str | None = None) -> list[T]:
        """Every record, or one namespace's, oldest first within a namespace (the admin views)."""
        return [record for _, record in self.owned(namespace)]

    def owned(self, namespace: str | None = None) -> list[tuple[str, T]]:
        """(namespace, record) for every record, or one namespace's, oldest first within a namespace."""
        out: list[tuple[str, T]] = []
        for space in [namespace] if namespace is not None else self.names():
            reply = self._call_sync("all", space)
            half = len(reply) // 2
            out += [(space, self.load(bytes(data))) for data in reply[half:] if data is not None]
        return out

    def delete_sync(self, namespace: str, record_id: str) -> bool:
        return self._call_sync("delete", namespace, record_id) is not None

    def reset(self, namespace: str | None = None) -> None:
        """Forget every namespace's records, or one namespace's."""
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", space)

    def held(self, namespace: str | None = None) -> tuple[int, int]:
        """(records, bytes) a namespace holds, or everyone, as Redis counts them."""
        if namespace is not None:
            count = self.link.command("zcard", self.prefix + "z:" + namespace)
            size = self.link.command("hget", self.prefix + "bytes", namespace)
        else:
            count = self.link.command("get", self.prefix + "n")
            size = self.link.command("get", self.prefix + "total")
        return int(count or 0), int(size or 0)
