"""Interactions on Redis (`--store redis://...`): an interaction made through one process is read, chained onto
(`previous_interaction_id`), cancelled and deleted through any other; a background one is polled from any.

The in-memory twin is stores/interactions.py's InteractionStore, and the bounds are its own, counted in Redis so
they hold across processes: at most `max_per_namespace` interactions and `max_bytes_per_namespace` bytes per
caller (past either its oldest are forgotten), `max_bytes` over everyone (past it a new one is refused,
StoreFull). Each put, settle and cancel is one Lua call.

A background run is the asyncio task of the process that created it (this store keeps its own tasks, `tasks`, and
gives a Stored read here its task): while it runs the kept record's state is `run` and its view the running one;
when it ends, `settle` stores the finished view only if the record is still that run (same `tag`, state `run`):
an interaction deleted, forgotten or cancelled meanwhile stays so. A cancel through any process is one CANCEL
call: the state becomes `cancelled` with the cancelled view, so the run's later settle stores nothing and its end
is published once (by the canceller). A run's record names its process (`owner`, this store's `token`), which
holds a lease (`P alive:TOKEN`, LEASE_MS, renewed every BEAT_S while it has runs): a reader that finds a run whose
process's lease has lapsed keeps it failed (GONE). MAX_BACKGROUND (wire/media/interactions.py) counts this
process's runs.

Keys (P is seam.state.KEY_PREFIX + "i:", N a namespace, I an interaction id):
  P o:N:I   hash: body (the view's JSON: printed once finished), head (the HEAD keys' JSON), turns (the history,
            one JSON content a line), state (run done cancelled failed), tag (the put's own), size, owner
  P alive:T a process's lease (PX), while it has runs
  P z:N     sorted set of the caller's ids, scored by their last put (P seq): the order, oldest first
  P bytes   hash N -> bytes held        P total  bytes held by everyone

Round trips: put 1, get 1 (2 when it finds a dead process's run), delete 1, settle 1, cancel 1; a lease renewal
every BEAT_S while this process has runs.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.interactions import (
    HEAD,
    MAX_BYTES,
    MAX_BYTES_PER_NAMESPACE,
    MAX_PER_NAMESPACE,
    Stored,
    StoreFull,
    new_id,
)

PREFIX = KEY_PREFIX + "i:"
SCAN_LIMIT = 10_000
LEASE_MS = 15_000  # a process's runs are taken to have died with it when it has not renewed this for so long
BEAT_S = 5.0  # how often a process with runs under way renews its lease
MAX_RUNS = 10_000  # runs a process keeps its lease for
GONE = "gemini-emulator: the process running this interaction ended before it finished."  # best-known wording

_EVICT = """
local function evict(P, ns, used, maxns, maxbns)
  local z = P .. 'z:' .. ns
  local guard = 0
  while guard < 100000 do
    local count = redis.call('ZCARD', z)
    if not (count > maxns or (used > maxbns and count > 1)) then break end
    guard = guard + 1
    local oldest = redis.call('ZRANGE', z, 0, 0)[1]
    local o = P .. 'o:' .. ns .. ':' .. oldest
    used = used - tonumber(redis.call('HGET', o, 'size') or '0')
    redis.call('DEL', o)
    redis.call('ZREM', z, oldest)
  end
  return used
end
local function set_used(P, ns, before, used)
  if used ~= before then redis.call('INCRBY', P .. 'total', used - before) end
  if redis.call('ZCARD', P .. 'z:' .. ns) == 0 then redis.call('HDEL', P .. 'bytes', ns)
  else redis.call('HSET', P .. 'bytes', ns, used) end
end
"""

# ARGV: P ns id tag size body head turns state maxns maxbns maxall owner lease_ms. 1 kept; -1 past everyone's
# bound. A run's record names its process (`owner`), whose lease (P alive:OWNER) is set in the same call.
PUT = (
    _EVICT
    + """
local P, ns, id, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[5])
local maxns, maxbns, maxall = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local before = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total - before + math.min(size, maxbns) > maxall then return -1 end
local o = P .. 'o:' .. ns .. ':' .. id
local used = before - tonumber(redis.call('HGET', o, 'size') or '0')
redis.call('DEL', o)
redis.call('HSET', o, 'tag', ARGV[4], 'size', size, 'body', ARGV[6], 'head', ARGV[7], 'turns', ARGV[8],
  'state', ARGV[9], 'owner', ARGV[13])
if ARGV[9] == 'run' then redis.call('SET', P .. 'alive:' .. ARGV[13], '1', 'PX', ARGV[14]) end
redis.call('ZADD', P .. 'z:' .. ns, redis.call('INCR', P .. 'seq'), id)
used = evict(P, ns, used + size, maxns, maxbns)
set_used(P, ns, before, used)
return 1
"""
)

# ARGV: P ns id tag size body head turns state maxbns [want_tag]. 1 stored; 0 the run is no longer the kept one.
SETTLE = (
    _EVICT
    + """
local P, ns, id, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[5])
local o = P .. 'o:' .. ns .. ':' .. id
local held = redis.call('HMGET', o, 'tag', 'state', 'size')
if held[2] ~= 'run' or (ARGV[4] ~= '' and held[1] ~= ARGV[4]) then return 0 end
local before = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
redis.call('HSET', o, 'size', size, 'body', ARGV[6], 'head', ARGV[7], 'turns', ARGV[8], 'state', ARGV[9])
local used = evict(P, ns, before - tonumber(held[3]) + size, 2147483647, tonumber(ARGV[10]))
set_used(P, ns, before, used)
return 1
"""
)

# The record's fields, and whether its run's process still holds its lease (0: a run whose process is gone).
READ = """
local row = redis.call('HMGET', KEYS[1], 'body', 'head', 'turns', 'state', 'tag', 'size', 'owner')
local alive = 1
if row[4] == 'run' and row[7] then alive = redis.call('EXISTS', ARGV[1] .. 'alive:' .. row[7]) end
row[7] = alive
return row
"""

DELETE = """
local P, ns, id = ARGV[1], ARGV[2], ARGV[3]
local o = P .. 'o:' .. ns .. ':' .. id
local size = redis.call('HGET', o, 'size')
if not size then return 0 end
redis.call('DEL', o)
redis.call('ZREM', P .. 'z:' .. ns, id)
redis.call('INCRBY', P .. 'total', -tonumber(size))
if redis.call('ZCARD', P .. 'z:' .. ns) == 0 then redis.call('HDEL', P .. 'bytes', ns)
else redis.call('HINCRBY', P .. 'bytes', ns, -tonumber(size)) end
return 1
"""

RESET = """
local P, ns = ARGV[1], ARGV[2]
local ids = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, id in ipairs(ids) do redis.call('DEL', P .. 'o:' .. ns .. ':' .. id) end
local size = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
redis.call('DEL', P .. 'z:' .. ns)
redis.call('HDEL', P .. 'bytes', ns)
if size ~= 0 then redis.call('INCRBY', P .. 'total', -size) end
return #ids
"""

BEAT = """
return redis.call('SET', ARGV[1] .. 'alive:' .. ARGV[2], '1', 'PX', ARGV[3])
"""

SCRIPTS = {"beat": BEAT, "put": PUT, "settle": SETTLE, "read": READ, "delete": DELETE, "reset": RESET}


def _now() -> str:
    """Now as an interaction's `updated` prints it (wire/media/interactions.py's form)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class RedisInteractionStore:
    """Every caller's interactions in one Redis (module docstring: keys, runs, bounds, round trips). The request
    path's methods are coroutines; `all`, `delete_sync` and `clear` (the admin view's) use the sync client."""

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
        self.tasks: dict[tuple[str, str], asyncio.Task[Any]] = {}  # this process's background runs
        self.token = secrets.token_hex(8)  # this process, as its runs' records name it
        # this process's runs not settled yet (background and streamed), oldest first, at most MAX_RUNS (a stream its
        # client left is never settled: past the bound the oldest is no longer renewed)
        self._runs: dict[tuple[str, str], None] = {}
        self._beat: asyncio.Task[None] | None = None
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    async def _call(self, script: str, args: list[Any], keys: list[str] | None = None) -> Any:
        return await self._lua.call(script, args, keys or ())

    def _call_sync(self, script: str, args: list[Any], keys: list[str] | None = None) -> Any:
        return self._lua.call_sync(script, args, keys or ())

    @staticmethod
    def _fields(stored: Stored, state: str) -> list[Any]:
        """size body head turns state, as PUT and SETTLE take them (a running view as JSON, else as printed)."""
        body = orjson.dumps(stored.view) if state == "run" else stored.body()
        head = orjson.dumps({key: stored.view[key] for key in HEAD if key in stored.view})
        return [len(body) + sum(len(t) for t in stored.turns), body, head, b"\n".join(stored.turns), state]

    # --- the request path --------------------------------------------------------------------------------
    async def put(self, namespace: str, stored: Stored) -> Stored:
        """As InteractionStore.put; a Stored with a running task is kept in state `run`."""
        if not stored.view.get("id"):
            stored.view["id"] = new_id()
        stored.tag = secrets.token_hex(8)
        running = not stored.printed and stored.view.get("status") == "in_progress"  # a background or streamed run
        fields = self._fields(stored, "run" if running else "done")
        args = [PREFIX, namespace, stored.id, stored.tag, *fields]
        args += [self.max_per_namespace, self.max_bytes_per_namespace, self.max_bytes, self.token, LEASE_MS]
        code = await self._call("put", args)
        if code == -1:
            raise StoreFull(f"the emulator's interactions would take more than {self.max_bytes} bytes")
        stored.size = int(fields[0])
        if running:
            self._runs[(namespace, stored.id)] = None
            while len(self._runs) > MAX_RUNS:
                del self._runs[next(iter(self._runs))]
            if self._beat is None or self._beat.done():
                self._beat = asyncio.get_running_loop().create_task(self._beating())
        return stored

    async def _beating(self) -> None:
        """Renew this process's lease while it has runs under way (a Redis that cannot be reached meanwhile only
        lets it lapse: the runs' records then read as failed elsewhere). Ends when cancelled, even where redis-py
        turns the cancel into a connection error."""
        task = asyncio.current_task()
        while self._runs and not (task is not None and task.cancelling()):
            await asyncio.sleep(BEAT_S)
            try:
                await self._call("beat", [PREFIX, self.token, LEASE_MS])
            except errors.ApiError:
                pass

    def track(self, namespace: str, stored: Stored) -> None:
        """`stored.task` is this process's run of it: a Stored read here gets it; it is forgotten when it ends."""
        task, key = stored.task, (namespace, stored.id)
        if task is not None:
            self.tasks[key] = task
            task.add_done_callback(lambda _: self.tasks.pop(key, None))

    async def settle(self, namespace: str, stored: Stored) -> bool:
        """The run has finished: store its finished record, unless it is no longer the kept run (False)."""
        self._runs.pop((namespace, stored.id), None)
        if not stored.tag:  # never kept (store: false)
            return False
        fields = self._fields(stored, "done")
        args = [PREFIX, namespace, stored.id, stored.tag, *fields, self.max_bytes_per_namespace]
        return bool(await self._call("settle", args))

    async def cancel(self, namespace: str, stored: Stored) -> bool:
        """A run cancelled through any process: its cancelled view (`stored`, changed by the caller) kept, the
        run's later settle storing nothing; False when it was not running."""
        fields = self._fields(stored, "cancelled")
        args = [PREFIX, namespace, stored.id, "", *fields, self.max_bytes_per_namespace]
        return bool(await self._call("settle", args))

    async def get(self, namespace: str, interaction_id: str) -> Stored | None:
        key = f"{PREFIX}o:{namespace}:{interaction_id}"
        body, head, turns, state, tag, size, alive = await self._call("read", [PREFIX], [key])
        if body is None:
            return None
        stored = self._loaded(namespace, interaction_id, body, head, turns, state, tag, size)
        if not alive:  # its run's process is gone: the run failed (kept so by the first reader to see it)
            failed = errors.ApiError(503, GONE).envelope()["error"]
            stored.view.update(status="failed", updated=_now(), errors=[failed])
            stored.view.pop("_user_steps", None)
            stored.finish()
            fields = self._fields(stored, "failed")
            await self._call(
                "settle", [PREFIX, namespace, stored.id, stored.tag, *fields, self.max_bytes_per_namespace]
            )
        return stored

    def _loaded(
        self, namespace: str, interaction_id: str, body: Any, head: Any, turns: Any, state: Any, tag: Any, size: Any
    ) -> Stored:
        lines = bytes(turns).split(b"\n") if turns else []
        if _text(state) == "run":
            stored = Stored(view=orjson.loads(body), turns=lines)
            stored.task = self.tasks.get((namespace, interaction_id))
        else:
            stored = Stored(view=orjson.loads(head), turns=lines, printed=bytes(body))
        stored.tag, stored.size = _text(tag), int(size or 0)
        return stored

    async def delete(self, namespace: str, interaction_id: str) -> bool:
        """Forget it (its run, wherever it is, then stores nothing); False when there was none."""
        return bool(await self._call("delete", [PREFIX, namespace, interaction_id]))

    def running(self, namespace: str) -> int:
        """This process's background runs of the namespace (MAX_BACKGROUND bounds them per process)."""
        return sum(1 for (space, _), task in self.tasks.items() if space == namespace and not task.done())

    # --- the admin view (sync) ---------------------------------------------------------------------------
    def names(self) -> list[str]:
        found: set[str] = set()
        cursor: Any = 0
        for _ in range(SCAN_LIMIT):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found.update(_text(k)[len(PREFIX) + 2 :] for k in keys)
            if int(cursor) == 0:
                break
        return sorted(found)

    def all(self, namespace: str | None = None) -> list[tuple[str, Stored]]:
        out: list[tuple[str, Stored]] = []
        for space in [namespace] if namespace is not None else self.names():
            ids = [_text(i) for i in self.link.command("zrange", PREFIX + "z:" + space, 0, -1)]
            pipe = self.link.sync.pipeline(transaction=False)
            for interaction_id in ids:
                pipe.hmget(f"{PREFIX}o:{space}:{interaction_id}", "body", "head", "turns", "state", "tag", "size")
            try:
                rows = pipe.execute()
            except failures() as exc:
                raise self.link.unavailable(exc) from None
            for interaction_id, row in zip(ids, rows, strict=True):
                if row[0] is not None:
                    out.append((space, self._loaded(space, interaction_id, *row)))
        return out

    def delete_sync(self, namespace: str, interaction_id: str) -> bool:
        task = self.tasks.get((namespace, interaction_id))
        if task is not None:
            task.cancel()
        return bool(self._call_sync("delete", [PREFIX, namespace, interaction_id]))

    def count(self, namespace: str) -> int:
        return int(self.link.command("zcard", PREFIX + "z:" + namespace))

    def held(self, namespace: str | None = None) -> int:
        value = (
            self.link.command("hget", PREFIX + "bytes", namespace)
            if namespace
            else self.link.command("get", PREFIX + "total")
        )
        return int(value or 0)

    def clear(self, namespace: str | None = None) -> None:
        """Forget a namespace's interactions (None: everyone's), cancelling this process's runs of them."""
        for (space, _), task in list(self.tasks.items()):
            if namespace is None or space == namespace:
                task.cancel()
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", [PREFIX, space])
