"""Long-running operations on Redis (`--store redis://...`): an operation created through one process is polled,
listed, cancelled and deleted through any other, and polled done there on its schedule.

The in-memory twin is stores/operations.py (OperationStore); an Operation read from here is the same dataclass,
its clock the wall clock (`time.time`, which every process on one host shares), so `done()`, `state()` and
`view()` print the same. What lives here: Veo's operations (wire/media/veo.py). Its producer (the process that
took the predictLongRunning call, which asked the engine once) hands the operation its result with `complete`,
one Lua call that leaves a cancelled operation cancelled; every process then reads the one result. And the file
search stores' upload and import operations (wire/resources/file_search.py), created with their result (a
document's names, or its scripted error) and held or released with their document's scripted state: the admin
API's `PUT /__emulator/fileSearchStores/state` changes the document and its operation in one Lua call
(stores/file_search_redis.py SET_STATE, which writes the `P o:N:O` hash of a `fileSearch` operation). A Developer
tuning create's operation is printed from its job, itself on Redis (stores/tunings_redis.py), not kept here
(docs/scaling.md).

A producer that dies mid-generation is noticed: while it works it holds a lease (`P c:N:O`, LEASE_MS, renewed by
`keep` every third of it); a read that finds the operation still without a result and the lease lapsed ends it
with ABANDONED (UNAVAILABLE, "the emulator process generating this result stopped"), once, in the same Lua call,
rather than leaving it running forever (its engine answer cannot be asked again elsewhere: the process that died
had consumed the script entry).

Bounds: at most `max_per_namespace` operations per caller, past it the oldest done one forgotten (then the oldest),
as in memory; and, here only, the results' bytes, MAX_BYTES_PER_NAMESPACE per caller and MAX_BYTES in all, counted
in Redis: a result past one fails its operation with RESOURCE_EXHAUSTED instead (a Vertex video answer carries its
videos inline).

Keys (P is seam.state.KEY_PREFIX + "o:", N a namespace, O an operation's name):
  P o:N:O   hash: the operation (kind created ready metadata steps response error held cancelled size leased)
  P c:N:O   the producer's lease (PX), while it works on the result
  P z:N     sorted set of the caller's names by creation (P seq): newest first in a listing
  P bytes   hash N -> bytes held        P total  bytes held by everyone

Round trips: create 1 (with its result or without), get 1, list 1, cancel 1, delete 1, complete 1; the producer's
lease 1 per LEASE_MS / 3.
"""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import Sequence
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.operations import (
    CANCELLED_STATUS,
    MAX_PER_NAMESPACE,
    PAGE_DEFAULT,
    PAGE_MAX,
    Operation,
    error_status,
    new_id,
    operation_not_found,
)

PREFIX = KEY_PREFIX + "o:"
MAX_BYTES_PER_NAMESPACE = 64 << 20
MAX_BYTES = 512 << 20
LEASE_MS = 15_000  # a producer not heard from for this long is taken to be dead
ABANDONED = {"code": 14, "message": "gemini-emulator: the emulator process generating this result stopped."}

_COMMON = """
local function done(o, now)
  local f = redis.call('HMGET', o, 'cancelled', 'held', 'response', 'error', 'ready')
  if f[1] == '1' then return true end
  return f[2] ~= '1' and (f[3] or f[4]) and now >= tonumber(f[5])
end
local function forget(P, ns, name)
  local o = P .. 'o:' .. ns .. ':' .. name
  local size = tonumber(redis.call('HGET', o, 'size') or '0')
  redis.call('DEL', o, P .. 'c:' .. ns .. ':' .. name)
  redis.call('ZREM', P .. 'z:' .. ns, name)
  if size ~= 0 then
    redis.call('HINCRBY', P .. 'bytes', ns, -size)
    redis.call('INCRBY', P .. 'total', -size)
  end
end
-- A leased operation still without a result whose producer's lease lapsed: ended ABANDONED (true if it was).
local function abandoned(P, ns, name, now, status)
  local o = P .. 'o:' .. ns .. ':' .. name
  local f = redis.call('HMGET', o, 'leased', 'cancelled', 'response', 'error')
  if f[1] ~= '1' or f[2] == '1' or f[3] or f[4] then return false end
  if redis.call('EXISTS', P .. 'c:' .. ns .. ':' .. name) == 1 then return false end
  redis.call('HSET', o, 'error', status, 'held', '0', 'ready', tostring(now), 'leased', '0', 'abandoned', '1')
  return true
end
"""

CREATE = (
    _COMMON
    + """
local P, ns, name, now, maxops = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local o = P .. 'o:' .. ns .. ':' .. name
if redis.call('EXISTS', o) == 1 then return 0 end
redis.call('HSET', o, 'kind', ARGV[6], 'created', ARGV[4], 'ready', ARGV[7], 'held', ARGV[8], 'cancelled', '0',
  'size', 0, 'leased', ARGV[11] ~= '' and '1' or '0')
if ARGV[11] ~= '' then redis.call('SET', P .. 'c:' .. ns .. ':' .. name, '1', 'PX', tonumber(ARGV[11])) end
if ARGV[9] ~= '' then redis.call('HSET', o, 'metadata', ARGV[9]) end
if ARGV[10] ~= '' then redis.call('HSET', o, 'steps', ARGV[10]) end
if ARGV[12] ~= '' then redis.call('HSET', o, ARGV[12], ARGV[13]) end
local z = P .. 'z:' .. ns
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), name)
local guard = 0
while redis.call('ZCARD', z) > maxops and guard < 100 do
  guard = guard + 1
  local names = redis.call('ZRANGE', z, 0, -1)
  local victim = names[1]
  for _, other in ipairs(names) do
    if done(P .. 'o:' .. ns .. ':' .. other, now) then victim = other break end
  end
  forget(P, ns, victim)
end
return 1
"""
)

READ = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
abandoned(P, ns, name, now, ARGV[5])
return redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. name)
"""
)

PAGE = (
    _COMMON
    + """
local P, ns, token, size, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local z = P .. 'z:' .. ns
local start = 0
if token ~= '' then start = redis.call('ZREVRANK', z, token) or 0 end
local names = redis.call('ZREVRANGE', z, start, start + size)
local out = {}
for i = 1, math.min(#names, size) do
  abandoned(P, ns, names[i], now, ARGV[6])
  out[#out + 1] = {names[i], redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. names[i])}
end
local following = ''
if #names > size then following = names[size + 1] end
return {following, out}
"""
)

CANCEL = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local o = P .. 'o:' .. ns .. ':' .. name
if redis.call('EXISTS', o) == 0 then return {} end
if not done(o, now) then
  local size = tonumber(redis.call('HGET', o, 'size') or '0')
  redis.call('HSET', o, 'cancelled', '1', 'error', ARGV[5], 'size', 0)
  redis.call('HDEL', o, 'response')
  if size ~= 0 then
    redis.call('HINCRBY', P .. 'bytes', ns, -size)
    redis.call('INCRBY', P .. 'total', -size)
  end
end
return redis.call('HGETALL', o)
"""
)

DELETE = (
    _COMMON
    + """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', P .. 'o:' .. ns .. ':' .. name) == 0 then return 0 end
forget(P, ns, name)
return 1
"""
)

# The producer's result: 1 given; 0 the operation is gone; -1 cancelled meanwhile; -4 ended ABANDONED meanwhile
# (the lease lapsed); -2/-3 past a byte budget (the operation then fails with ARGV[9], RESOURCE_EXHAUSTED).
COMPLETE = """
local P, ns, name, field, value, ready = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local maxns, maxall = tonumber(ARGV[7]), tonumber(ARGV[8])
local o = P .. 'o:' .. ns .. ':' .. name
if redis.call('EXISTS', o) == 0 then return 0 end
if redis.call('HGET', o, 'cancelled') == '1' then return -1 end
if redis.call('HGET', o, 'abandoned') == '1' then return -4 end
local old = tonumber(redis.call('HGET', o, 'size') or '0')
local size = #value
local used = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0') - old
local total = tonumber(redis.call('GET', P .. 'total') or '0') - old
local code = 1
if used + size > maxns then code = -2 elseif total + size > maxall then code = -3 end
if code ~= 1 then field, value, size = 'error', ARGV[9], 0 end
redis.call('DEL', P .. 'c:' .. ns .. ':' .. name)
redis.call('HSET', o, 'leased', '0')
redis.call('HDEL', o, 'response', 'error')
redis.call('HSET', o, field, value, 'size', size)
if ready ~= '' then redis.call('HSET', o, 'ready', ready, 'held', '0') end
redis.call('HINCRBY', P .. 'bytes', ns, size - old)
redis.call('INCRBY', P .. 'total', size - old)
return code
"""

RELEASE = """
local o = KEYS[1]
if redis.call('EXISTS', o) == 0 then return 0 end
redis.call('HSET', o, 'held', '0')
return 1
"""

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do forget(P, ns, name) end
redis.call('DEL', P .. 'z:' .. ns)
return #names
"""
)

KEEP = """
local c = KEYS[1]
if redis.call('EXISTS', c) == 0 then return 0 end
redis.call('PEXPIRE', c, tonumber(ARGV[1]))
return 1
"""

SCRIPTS = {
    "keep": KEEP,
    "create": CREATE,
    "read": READ,
    "page": PAGE,
    "cancel": CANCEL,
    "delete": DELETE,
    "complete": COMPLETE,
    "release": RELEASE,
    "reset": RESET,
}


def _fields(flat: Any) -> dict[bytes, bytes]:
    if isinstance(flat, dict):
        return {bytes(k): bytes(v) for k, v in flat.items()}
    return {bytes(flat[i]): bytes(flat[i + 1]) for i in range(0, len(flat), 2)}


class RedisOperationStore:
    """Every caller's shared operations in one Redis (module docstring: what, bounds, keys, round trips). The
    request path's calls are coroutines on redis.asyncio; `all`, `remove` and `reset` (the admin API's, off the
    event loop) use the sync client. A Redis that cannot be reached is the 503."""

    def __init__(
        self, link: RedisLink, default_delay_s: float = 0.5, max_per_namespace: int = MAX_PER_NAMESPACE
    ) -> None:
        self.link = link
        self.default_delay_s = default_delay_s
        self.max_per_namespace = max_per_namespace
        self.clock = time.time
        self.lease_ms = LEASE_MS
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    async def _call(self, script: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        return await self._lua.call(script, args, keys)

    def _call_sync(self, script: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        return self._lua.call_sync(script, args, keys)

    # --- the request path --------------------------------------------------------------------------------
    async def create(
        self,
        namespace: str,
        kind: str,
        *,
        name: str | None = None,
        parent: str = "",
        metadata: dict[str, Any] | None = None,
        delay_s: float | None = None,
        steps: list[tuple[float, str]] | None = None,
        hold: bool = False,
        leased: bool = False,
        response: dict[str, Any] | None = None,
        error: errors.ApiError | dict[str, Any] | None = None,
    ) -> Operation:
        """OperationStore.create: a result comes later, through `complete`, or with the create (`response` or
        `error`, in the same Lua call: a file search document's operation, whose result is a few names, not counted
        in the byte budgets); `leased`: its producer holds a lease (renewed by `keep`) until then, and a lapsed one
        ends the operation ABANDONED."""
        result: list[Any] = ["", ""]
        if error is not None:
            result = ["error", orjson.dumps(error_status(error))]
        elif response is not None:
            result = ["response", orjson.dumps(response)]
        if steps:
            delay = steps[-1][0]
        else:
            delay = self.default_delay_s if delay_s is None else max(0.0, delay_s)
        for _ in range(100):
            now = time.time()
            drawn = name
            if drawn is None:
                drawn = (f"{parent}/operations/" if parent else "operations/") + new_id()
            args: list[Any] = [PREFIX, namespace, drawn, repr(now), self.max_per_namespace, kind, repr(now + delay)]
            args += ["1" if hold else "0", orjson.dumps(metadata) if metadata is not None else ""]
            args += [orjson.dumps(steps) if steps else "", self.lease_ms if leased else "", *result]
            if await self._call("create", args):
                op = self._operation(namespace, drawn, {b"kind": kind.encode()}, now, now + delay, hold, metadata)
                if error is not None:
                    op.error = error_status(error)
                elif response is not None:
                    op.response = response
                return op
            if name is not None:
                raise errors.ApiError(409, f"Operation {name} already exists.", status="ALREADY_EXISTS")
        raise errors.internal()  # pragma: no cover: 100 names drawn twice in a row

    async def complete(
        self,
        op: Operation,
        response: dict[str, Any] | None = None,
        error: errors.ApiError | dict[str, Any] | None = None,
        at: float | None = None,
    ) -> None:
        """OperationStore.complete, in Redis and on `op` (the producer's copy, which its webhook watches)."""
        if error is not None:
            field, value = "error", error_status(error)
        else:
            field, value = "response", response if response is not None else {}
        ready = time.time() + max(0.0, at) if at is not None else None
        full = {"code": 8, "message": "gemini-emulator: the operation's result would pass the emulator's byte budget."}
        args = [PREFIX, op.namespace, op.name, field, orjson.dumps(value), repr(ready) if ready is not None else ""]
        code = await self._call("complete", [*args, MAX_BYTES_PER_NAMESPACE, MAX_BYTES, orjson.dumps(full)])
        if code == -1:
            op.cancelled, op.error, op.response = True, dict(CANCELLED_STATUS), None
            return
        if code == -4:
            op.error, op.response, op.held = dict(ABANDONED), None, False
            return
        if code in (-2, -3):
            field, value = "error", full
        if field == "error":
            op.error, op.response = value, None
        else:
            op.response, op.error = value, None
        if ready is not None:
            op.ready_at, op.held = ready, False

    async def keep(self, op: Operation, stop: asyncio.Event) -> None:
        """Renew `op`'s lease every third of it while its producer works, until `stop` is set (the producer is
        done) or the lease is gone (the result stored, the operation deleted). A renewal that cannot reach Redis
        is skipped (the link logs it). The producer sets `stop` rather than cancelling this: redis-py may turn a
        cancel that lands mid-command into a timeout."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), self.lease_ms / 3000)
                return
            except TimeoutError:
                pass
            try:
                if not await self._call("keep", [self.lease_ms], [f"{PREFIX}c:{op.namespace}:{op.name}"]):
                    return
            except errors.ApiError:
                pass

    async def get(self, namespace: str, name: str) -> Operation | None:
        args = [PREFIX, namespace, name, repr(time.time()), orjson.dumps(ABANDONED)]
        flat = await self._call("read", args)
        return self.loaded(namespace, name, flat) if flat else None

    async def require(self, namespace: str, name: str) -> Operation:
        op = await self.get(namespace, name)
        if op is None:
            raise operation_not_found(name)
        return op

    async def list(
        self, namespace: str, page_size: int = PAGE_DEFAULT, page_token: str = ""
    ) -> tuple[builtins.list[Operation], str]:
        """A page of the caller's operations, newest first, and the next page's token ("" at the end)."""
        size = PAGE_DEFAULT if page_size <= 0 else min(page_size, PAGE_MAX)
        args = [PREFIX, namespace, page_token, size, repr(time.time()), orjson.dumps(ABANDONED)]
        following, rows = await self._call("page", args)
        return [self.loaded(namespace, _text(n), flat) for n, flat in rows if flat], _text(following)

    async def cancel(self, namespace: str, name: str) -> Operation:
        flat = await self._call("cancel", [PREFIX, namespace, name, repr(time.time()), orjson.dumps(CANCELLED_STATUS)])
        if not flat:
            raise operation_not_found(name)
        return self.loaded(namespace, name, flat)

    async def delete(self, namespace: str, name: str) -> None:
        if not await self._call("delete", [PREFIX, namespace, name]):
            raise operation_not_found(name)

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def names(self) -> builtins.list[str]:
        found: set[str] = set()
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found.update(_text(k)[len(PREFIX) + 2 :] for k in keys)
            if int(cursor) == 0:
                break
        return sorted(found)

    def all(self, namespace: str | None = None) -> builtins.list[Operation]:
        """Every shared operation of a namespace (None: of all), oldest first."""
        out = []
        for space in [namespace] if namespace is not None else self.names():
            for raw in self.link.command("zrange", PREFIX + "z:" + space, 0, self.max_per_namespace):
                name = _text(raw)
                flat = self._call_sync("read", [PREFIX, space, name, repr(time.time()), orjson.dumps(ABANDONED)])
                if flat:
                    out.append(self.loaded(space, name, flat))
        return out

    def remove(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("delete", [PREFIX, namespace, name]))

    def release(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("release", [], [f"{PREFIX}o:{namespace}:{name}"]))

    def reset(self, namespace: str | None = None) -> None:
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", [PREFIX, space])

    def held(self, namespace: str | None = None) -> int:
        if namespace:
            return int(self.link.command("hget", PREFIX + "bytes", namespace) or 0)
        return int(self.link.command("get", PREFIX + "total") or 0)

    # --- reading -----------------------------------------------------------------------------------------
    def loaded(self, namespace: str, name: str, flat: Any) -> Operation:
        """An Operation from a hash's field/value reply."""
        fields = _fields(flat)
        op = self._operation(
            namespace,
            name,
            fields,
            float(fields.get(b"created", b"0")),
            float(fields.get(b"ready", b"0")),
            fields.get(b"held") == b"1",
            orjson.loads(fields[b"metadata"]) if b"metadata" in fields else None,
        )
        op.cancelled = fields.get(b"cancelled") == b"1"
        if b"response" in fields:
            op.response = orjson.loads(fields[b"response"])
        if b"error" in fields:
            op.error = orjson.loads(fields[b"error"])
        if b"steps" in fields:
            op.steps = [(float(at), str(state)) for at, state in orjson.loads(fields[b"steps"])]
        return op

    def _operation(
        self,
        namespace: str,
        name: str,
        fields: dict[bytes, bytes],
        created: float,
        ready: float,
        held: bool,
        metadata: dict[str, Any] | None,
    ) -> Operation:
        return Operation(
            name=name,
            namespace=namespace,
            kind=fields.get(b"kind", b"").decode(),
            created=created,
            ready_at=ready,
            clock=time.time,
            metadata=metadata,
            held=held,
        )
