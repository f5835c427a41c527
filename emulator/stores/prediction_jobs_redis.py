"""Vertex batch prediction jobs on Redis (`--store redis://...`): a job created through one process is read,
listed, cancelled and deleted through any other.

The in-memory twin is wire/resources/prediction_jobs.py's PredictionJobs; the room takes this store when the
setting names Redis. What is the same: a job walks the plan its namespace had when it was created (the Developer
batches' plan, `PUT /__emulator/batches`, read in the create's own Lua call from the key stores/batches_redis.py's
RedisPlans keeps: `gemini-emulator:b:plan:N`) by the clock, here the wall clock (`time.time`, which the processes
of one host share; replicas on other hosts need synchronised clocks); at most MAX_JOBS_PER_NAMESPACE per caller
(past it the oldest is forgotten, in the create's call); a cancel takes only a job still PENDING or RUNNING, checked
and set in one Lua call, so two processes racing a cancel and the schedule agree. Nothing is answered (the job's
input is Cloud Storage or BigQuery): a job is its create body, its plan and its times.

Keys (P is seam.state.KEY_PREFIX + "bp:", N a namespace, J a job's name, projects/P/locations/L/batchPredictionJobs/ID):
  P o:N:J   hash: body (the create's JSON), plan (JSON), created (wall seconds), created_ns, cancelled (0: not)
  P z:N     sorted set of the caller's job names, scored by creation (P seq)
No Redis expiry, as in memory: the count bound forgets the oldest. Round trips (one Lua call each): create 1, get 1,
list 1 (a page, with its jobs), cancel 1, delete 1.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Sequence
from typing import Any

import orjson

from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text

PREFIX = KEY_PREFIX + "bp:"
PLAN_PREFIX = KEY_PREFIX + "b:plan:"  # stores/batches_redis.py RedisPlans: the caller's plan, shared with batches

# ARGV P ns parent id-head now created_ns body default-plan max plan-key -> {the job's name, the plan's JSON}.
# The id is the microseconds' head and the store's sequence (unique across processes, as memory's per-process count).
CREATE = """
local P, ns, maxjobs = ARGV[1], ARGV[2], tonumber(ARGV[9])
local seq = redis.call('INCR', P .. 'seq')
local name = ARGV[3] .. '/batchPredictionJobs/' .. ARGV[4] .. string.format('%06d', seq % 1000000)
local plan = redis.call('GET', ARGV[10]) or ARGV[8]
local o = P .. 'o:' .. ns .. ':' .. name
redis.call('HSET', o, 'body', ARGV[7], 'plan', plan, 'created', ARGV[5], 'created_ns', ARGV[6], 'cancelled', '0')
local z = P .. 'z:' .. ns
redis.call('ZADD', z, seq, name)
local guard = 0
while redis.call('ZCARD', z) > maxjobs and guard < 100 do
  guard = guard + 1
  local oldest = redis.call('ZRANGE', z, 0, 0)[1]
  redis.call('DEL', P .. 'o:' .. ns .. ':' .. oldest)
  redis.call('ZREM', z, oldest)
end
return {name, plan}
"""

READ = """
return redis.call('HGETALL', ARGV[1] .. 'o:' .. ARGV[2] .. ':' .. ARGV[3])
"""

# ARGV P ns parent start size -> {matching count, start used, name1, fields1, ...}: newest first, the names under
# parent only; a start past them is 0 (as the memory room reads a stale page token)
PAGE = """
local P, ns, parent, start, size = ARGV[1], ARGV[2], ARGV[3] .. '/', tonumber(ARGV[4]), tonumber(ARGV[5])
local mine = {}
for _, name in ipairs(redis.call('ZREVRANGE', P .. 'z:' .. ns, 0, -1)) do
  if string.sub(name, 1, #parent) == parent then mine[#mine + 1] = name end
end
if start >= #mine then start = 0 end
local out = {#mine, start}
for i = start + 1, math.min(start + size, #mine) do
  out[#out + 1] = mine[i]
  out[#out + 1] = redis.call('HGETALL', P .. 'o:' .. ns .. ':' .. mine[i])
end
return out
"""

# ARGV P ns name now -> 0 unknown, 1 cancelled now, 2 already past PENDING/RUNNING (left as it is)
CANCEL = """
local o = ARGV[1] .. 'o:' .. ARGV[2] .. ':' .. ARGV[3]
local f = redis.call('HMGET', o, 'plan', 'created', 'cancelled')
if not f[1] then return 0 end
if f[3] ~= '0' then return 2 end
local p = cjson.decode(f[1])
local now = tonumber(ARGV[4])
if p.hold or now < tonumber(f[2]) + p.pendingMs / 1000 + p.runningMs / 1000 then
  redis.call('HSET', o, 'cancelled', ARGV[4])
  return 1
end
return 2
"""

DELETE = """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
if redis.call('DEL', P .. 'o:' .. ns .. ':' .. name) == 0 then return 0 end
redis.call('ZREM', P .. 'z:' .. ns, name)
return 1
"""

RESET = """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do redis.call('DEL', P .. 'o:' .. ns .. ':' .. name) end
redis.call('DEL', P .. 'z:' .. ns)
return #names
"""

SCRIPTS = {"create": CREATE, "read": READ, "page": PAGE, "cancel": CANCEL, "delete": DELETE, "reset": RESET}


def fields(flat: Any) -> dict[str, str]:
    """A job's hash as HGETALL answers it, as text."""
    items = list(flat or [])
    if isinstance(flat, dict):
        return {_text(k): _text(v) for k, v in flat.items()}
    return {_text(items[i]): _text(items[i + 1]) for i in range(0, len(items) - 1, 2)}


class RedisPredictionJobs:
    """Every namespace's batch prediction jobs in one Redis (module docstring: keys, round trips). The request
    path's methods are coroutines on redis.asyncio and answer a job as (its name, its fields); `all`, `remove` and
    `reset` (the admin API's, called in a worker thread) use the sync client. A Redis that cannot be reached is the
    503 (seam.state.RedisLink)."""

    remote = True

    def __init__(self, link: RedisLink, max_per_namespace: int) -> None:
        self.link = link
        self.max_per_namespace = max_per_namespace
        self.clock = time.time  # the wall clock every process of a host shares
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    async def _call(self, script: str, args: Sequence[Any]) -> Any:
        return await self._lua.call(script, args)

    def _call_sync(self, script: str, args: Sequence[Any]) -> Any:
        return self._lua.call_sync(script, args)

    async def create(
        self, namespace: str, parent: str, body: dict[str, Any], default_plan: dict[str, Any]
    ) -> tuple[str, dict[str, str]]:
        """Store a new job under `parent` (the caller's plan, else `default_plan`, fixed in it): its name and
        fields."""
        now, now_ns = time.time(), time.time_ns()
        created, text = repr(now), orjson.dumps(body)
        head = f"{(now_ns // 1000) % 10**13:013d}"
        args: list[Any] = [PREFIX, namespace, parent, head, created, now_ns, text, orjson.dumps(default_plan)]
        args += [self.max_per_namespace, PLAN_PREFIX + namespace]
        name, plan = await self._call("create", args)
        made = {"body": text.decode(), "plan": _text(plan), "created": created, "created_ns": str(now_ns)}
        return _text(name), made | {"cancelled": "0"}

    async def get(self, namespace: str, name: str) -> dict[str, str] | None:
        found = fields(await self._call("read", [PREFIX, namespace, name]))
        return found or None

    async def page(
        self, namespace: str, parent: str, start: int, size: int
    ) -> tuple[builtins.list[tuple[str, dict[str, str]]], int, int]:
        """The caller's jobs under `parent`, newest first, from `start` (0 when past them; at most `size`), how
        many there are, and the start used."""
        reply = await self._call("page", [PREFIX, namespace, parent, start, size])
        rows = [(_text(reply[i]), fields(reply[i + 1])) for i in range(2, len(reply) - 1, 2)]
        return rows, int(reply[0]), int(reply[1])

    async def cancel(self, namespace: str, name: str) -> int:
        """0: no such job; 1: cancelled now; 2: done already (left as it is)."""
        return int(await self._call("cancel", [PREFIX, namespace, name, repr(time.time())]))

    async def delete(self, namespace: str, name: str) -> bool:
        return bool(await self._call("delete", [PREFIX, namespace, name]))

    # --- the admin API (sync client, in a worker thread) -------------------------------------------------
    def names(self) -> builtins.list[str]:
        found: builtins.list[str] = []
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found += [_text(k)[len(PREFIX) + 2 :] for k in keys]
            if int(cursor) == 0:
                break
        return sorted(set(found))

    def all(self, namespace: str | None = None) -> builtins.list[tuple[str, str, dict[str, str]]]:
        """(namespace, name, fields) of every job of a namespace (or of all), oldest first."""
        out: builtins.list[tuple[str, str, dict[str, str]]] = []
        for space in [namespace] if namespace is not None else self.names():
            names = [_text(n) for n in self.link.command("zrange", PREFIX + "z:" + space, 0, -1)]
            pipe = self.link.sync.pipeline(transaction=False)
            for name in names:
                pipe.hgetall(f"{PREFIX}o:{space}:{name}")
            try:
                rows = pipe.execute()
            except failures() as exc:
                raise self.link.unavailable(exc) from None
            out += [(space, name, fields(row)) for name, row in zip(names, rows, strict=True) if row]
        return out

    def remove(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("delete", [PREFIX, namespace, name]))

    def reset(self, namespace: str | None = None) -> None:
        if namespace is not None:
            self._call_sync("reset", [PREFIX, namespace])
            return
        cursor = 0
        for _ in range(100_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "*", 1000)
            if keys:
                self.link.command("delete", *keys)
            if int(cursor) == 0:
                break
