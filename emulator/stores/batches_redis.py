"""Batch jobs on Redis (`--store redis://...`): a job created through one process is read, listed, cancelled,
deleted and answered through any other, its answers computed once.

The in-memory twin is the operations store (stores/operations.py, kind "batch") with a BatchJob in `extra`; the
batches room (wire/resources/batches.py) takes this store when the setting names Redis. What is the same: the
schedule (PENDING, RUNNING, then the plan's state, by the clock: here the wall clock, `time.time`, which every
process on one host shares), the plan of the caller's next jobs (`PUT /__emulator/batches`), at most
MAX_PER_NAMESPACE jobs per caller (past it the oldest done one is forgotten, else the oldest), the byte budgets
(MAX_BYTES_PER_NAMESPACE per caller, MAX_BYTES in all: requests until answered, then answers; counted in Redis, so
they hold across every process), cancel and delete. Every check-and-change is one Lua call, so two processes never
both pass a budget or both cancel.

Answers are computed once: the process that first reads a job past its RUNNING phase takes a claim (SET NX with a
lease, CLAIM_LEASE_MS, renewed with each chunk of answers it stores); another process that reads the job meanwhile
waits for the answers (bounded, WAIT_S, then shows it RUNNING). Answers go to Redis in chunks (CHUNK_BYTES), each
chunk's bytes reserved against both budgets in the call that stores it; a chunk that would pass a budget fails the
job (RESOURCE_EXHAUSTED), as in memory. A claim whose holder died lapses; the next reader drops the partial answers
and answers the job again (no answer was shown before the job was done). A chunk or commit whose claim is no longer
the caller's (lapsed and retaken, the job cancelled or deleted) stores nothing.

Keys (P is seam.state.KEY_PREFIX + "b:", N a namespace, J a job's name `batches/ID`):
  P o:N:J   hash: the job (kind model display input plan created created_ns ready held cancelled response error
            ended size qbytes rbytes outcome counts output n webhook)
  P q:N:J   list: the requests' JSON bytes, one per item (dropped once answered)
  P r:N:J   list: the answers' printed bytes, one per item
  P c:N:J   the claim: the answering process's token, with its lease (PX)
  P z:N     sorted set of the caller's job names, scored by creation (P seq)
  P bytes   hash N -> bytes held        P total  bytes held by everyone
  P plan:N  the caller's plan (JSON), for its next jobs

Round trips: create 1 (CREATE: budgets, the plan, the requests, the bound), get 1 (READ), list 1 (PAGE), cancel 1,
delete 1; answering a job: claim 1, its requests 1, then 1 per CHUNK_BYTES of answers, and the commit 1.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.batches import BatchJob, Plan, Plans
from gemini_emulator.stores.operations import MAX_PER_NAMESPACE, Operation

PREFIX = KEY_PREFIX + "b:"
CLAIM_LEASE_MS = 15_000  # a claim not renewed for this long is taken to be its holder's death
CHUNK_BYTES = 1 << 20  # answers stored per round trip
CHUNK_ITEMS = 512
WAIT_S = 5.0  # a read waits this long for another process's answers, then shows the job RUNNING

# Lua helpers: `done` is Operation.done() over the hash; `forget` drops a job and its bytes.
_COMMON = """
local function done(P, o, now)
  local f = redis.call('HMGET', o, 'cancelled', 'held', 'response', 'error', 'ready')
  if f[1] == '1' then return true end
  return f[2] ~= '1' and (f[3] or f[4]) and now >= tonumber(f[5])
end
local function forget(P, ns, name)
  local o = P .. 'o:' .. ns .. ':' .. name
  local size = tonumber(redis.call('HGET', o, 'size') or '0')
  redis.call('DEL', o, P .. 'q:' .. ns .. ':' .. name, P .. 'r:' .. ns .. ':' .. name, P .. 'c:' .. ns .. ':' .. name)
  redis.call('ZREM', P .. 'z:' .. ns, name)
  if size ~= 0 then
    redis.call('HINCRBY', P .. 'bytes', ns, -size)
    redis.call('INCRBY', P .. 'total', -size)
  end
end
local function drop_answers(P, ns, name)
  local o = P .. 'o:' .. ns .. ':' .. name
  local rb = tonumber(redis.call('HGET', o, 'rbytes') or '0')
  redis.call('DEL', P .. 'r:' .. ns .. ':' .. name)
  if rb ~= 0 then
    redis.call('HINCRBY', o, 'size', -rb)
    redis.call('HSET', o, 'rbytes', 0)
    redis.call('HINCRBY', P .. 'bytes', ns, -rb)
    redis.call('INCRBY', P .. 'total', -rb)
  end
end
"""

CREATE = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local maxns, maxall, maxops, size = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local o = P .. 'o:' .. ns .. ':' .. name
if redis.call('EXISTS', o) == 1 then return {0} end
local used = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
if used + size > maxns then return {-1, used + size} end
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total + size > maxall then return {-2, total + size} end
local plan = redis.call('GET', P .. 'plan:' .. ns) or ARGV[10]
local p = cjson.decode(plan)
local n = tonumber(ARGV[16])
redis.call('HSET', o, 'kind', ARGV[11], 'model', ARGV[12], 'display', ARGV[13], 'input', ARGV[14],
  'plan', plan, 'created', ARGV[4], 'created_ns', ARGV[5],
  'ready', tostring(now + p.pendingMs / 1000 + p.runningMs / 1000), 'held', p.hold and '1' or '0',
  'cancelled', '0', 'ended', '0', 'size', size, 'qbytes', size, 'rbytes', 0, 'n', n)
if ARGV[15] ~= '' then redis.call('HSET', o, 'webhook', ARGV[15]) end
for i = 1, n do redis.call('RPUSH', P .. 'q:' .. ns .. ':' .. name, ARGV[16 + i]) end
local z = P .. 'z:' .. ns
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), name)
redis.call('HINCRBY', P .. 'bytes', ns, size)
redis.call('INCRBY', P .. 'total', size)
local guard = 0
while redis.call('ZCARD', z) > maxops and guard < 100 do
  guard = guard + 1
  local names = redis.call('ZRANGE', z, 0, -1)
  local victim = names[1]
  for _, other in ipairs(names) do
    if done(P, P .. 'o:' .. ns .. ':' .. other, now) then victim = other break end
  end
  forget(P, ns, victim)
end
return {1, plan}
"""
)

# One job (its hash, and its answers once it has a response).
READ = """
local o, r = KEYS[1], KEYS[2]
local h = redis.call('HGETALL', o)
if #h == 0 then return {} end
local answers = {}
if redis.call('HEXISTS', o, 'response') == 1 then answers = redis.call('LRANGE', r, 0, -1) end
return {h, answers}
"""

PAGE = """
local P, ns, token, size = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local z = P .. 'z:' .. ns
local start = 0
if token ~= '' then start = redis.call('ZREVRANK', z, token) or 0 end
local names = redis.call('ZREVRANGE', z, start, start + size)
local out = {}
for i = 1, math.min(#names, size) do
  local name = names[i]
  local o = P .. 'o:' .. ns .. ':' .. name
  local answers = {}
  if redis.call('HEXISTS', o, 'response') == 1 then
    answers = redis.call('LRANGE', P .. 'r:' .. ns .. ':' .. name, 0, -1)
  end
  out[#out + 1] = {name, redis.call('HGETALL', o), answers}
end
local following = ''
if #names > size then following = names[size + 1] end
return {following, out}
"""

CANCEL = (
    _COMMON
    + """
local P, ns, name, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local o = P .. 'o:' .. ns .. ':' .. name
if redis.call('EXISTS', o) == 0 then return 0 end
if done(P, o, now) then return 1 end
redis.call('HSET', o, 'cancelled', '1', 'error', ARGV[6], 'ended', ARGV[5])
redis.call('HDEL', o, 'response')
drop_answers(P, ns, name)
redis.call('DEL', P .. 'c:' .. ns .. ':' .. name)
return 2
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

# A job whose plan ends it without answers (FAILED, EXPIRED, CANCELLED): its error, once, by whoever reads first.
FINISH = """
local P, ns, name = ARGV[1], ARGV[2], ARGV[3]
local o = P .. 'o:' .. ns .. ':' .. name
local f = redis.call('HMGET', o, 'cancelled', 'response', 'error')
if redis.call('EXISTS', o) == 0 or f[1] == '1' or f[2] or f[3] then return 0 end
redis.call('HSET', o, 'error', ARGV[5], 'ended', ARGV[4], 'cancelled', ARGV[6])
if ARGV[7] == '1' then redis.call('DEL', P .. 'q:' .. ns .. ':' .. name) end
return 1
"""

CLAIM = (
    _COMMON
    + """
local P, ns, name, token, lease = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local o = P .. 'o:' .. ns .. ':' .. name
local f = redis.call('HMGET', o, 'cancelled', 'response', 'error')
if redis.call('EXISTS', o) == 0 or f[1] == '1' or f[2] or f[3] then return {0} end
if not redis.call('SET', P .. 'c:' .. ns .. ':' .. name, token, 'NX', 'PX', lease) then return {0} end
drop_answers(P, ns, name)
return {1, redis.call('LRANGE', P .. 'q:' .. ns .. ':' .. name, 0, -1)}
"""
)

# Whether the claim is still the caller's and the job still wants answers (else: -2, the caller stops).
_MINE = """
local function mine(P, ns, name, token)
  local o = P .. 'o:' .. ns .. ':' .. name
  if redis.call('GET', P .. 'c:' .. ns .. ':' .. name) ~= token then return false end
  return redis.call('EXISTS', o) == 1 and redis.call('HGET', o, 'cancelled') ~= '1'
end
"""

STORE = (
    _COMMON
    + _MINE
    + """
local P, ns, name, token, lease = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local maxns, maxall, n = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
if not mine(P, ns, name, token) then return {-2} end
local o = P .. 'o:' .. ns .. ':' .. name
local qb = tonumber(redis.call('HGET', o, 'qbytes') or '0')
local add = 0
for i = 1, n do add = add + #ARGV[8 + i] end
local used = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
if used + add - qb > maxns then return {-1, 1} end
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total + add - qb > maxall then return {-1, 2} end
for i = 1, n do redis.call('RPUSH', P .. 'r:' .. ns .. ':' .. name, ARGV[8 + i]) end
redis.call('HINCRBY', o, 'size', add)
redis.call('HINCRBY', o, 'rbytes', add)
redis.call('HINCRBY', P .. 'bytes', ns, add)
redis.call('INCRBY', P .. 'total', add)
redis.call('PEXPIRE', P .. 'c:' .. ns .. ':' .. name, lease)
return {1}
"""
)

# The claim's end: the answers (response, counts, output file) or the job's failure (no_room: holding nothing).
COMMIT = (
    _COMMON
    + _MINE
    + """
local P, ns, name, token, ended, failed = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6] == '1'
if not mine(P, ns, name, token) then return 0 end
local o = P .. 'o:' .. ns .. ':' .. name
redis.call('DEL', P .. 'c:' .. ns .. ':' .. name, P .. 'q:' .. ns .. ':' .. name)
local qb = tonumber(redis.call('HGET', o, 'qbytes') or '0')
local gone = qb
if failed then
  drop_answers(P, ns, name)
  local rest = tonumber(redis.call('HGET', o, 'size') or '0')
  gone = rest
  redis.call('HSET', o, 'error', ARGV[7], 'outcome', 'FAILED')
else
  redis.call('HSET', o, 'response', ARGV[7], 'counts', ARGV[8])
  if ARGV[9] ~= '' then redis.call('HSET', o, 'output', ARGV[9]) end
end
redis.call('HSET', o, 'ended', ended, 'qbytes', 0)
redis.call('HINCRBY', o, 'size', -gone)
redis.call('HINCRBY', P .. 'bytes', ns, -gone)
redis.call('INCRBY', P .. 'total', -gone)
return 1
"""
)

RELEASE = """
local P, ns, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local count = 0
for _, name in ipairs(redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)) do
  local o = P .. 'o:' .. ns .. ':' .. name
  if redis.call('HGET', o, 'held') == '1' then
    count = count + 1
    local ready = tonumber(redis.call('HGET', o, 'ready'))
    redis.call('HSET', o, 'held', '0', 'ready', tostring(math.min(ready, now)))
  end
end
return count
"""

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
local names = redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)
for _, name in ipairs(names) do forget(P, ns, name) end
redis.call('DEL', P .. 'z:' .. ns, P .. 'plan:' .. ns)
return #names
"""
)

SCRIPTS = {
    "create": CREATE,
    "read": READ,
    "page": PAGE,
    "cancel": CANCEL,
    "delete": DELETE,
    "finish": FINISH,
    "claim": CLAIM,
    "store": STORE,
    "commit": COMMIT,
    "release": RELEASE,
    "reset": RESET,
}


class BudgetPassed(Exception):
    """A create that would pass a byte budget: `mine` (per caller) or everyone's, with the bytes it would hold."""

    def __init__(self, mine: bool, would_hold: int) -> None:
        super().__init__(would_hold)
        self.mine, self.would_hold = mine, would_hold


class RedisPlans(Plans):
    """Each caller's plan, on Redis (the batches' CREATE reads it there, so a plan set through one process holds
    for jobs created through another) and in this process (Vertex batch prediction jobs, which stay per process,
    read it here)."""

    def __init__(self, link: RedisLink, default: Plan | None = None) -> None:
        super().__init__(default)
        self.link = link

    def get(self, namespace: str) -> Plan:
        held = self.link.command("get", PREFIX + "plan:" + namespace)
        return plan_from(held) if held is not None else self.default

    def set(self, namespace: str, plan: Plan | None) -> None:
        super().set(namespace, plan)
        key = PREFIX + "plan:" + namespace
        if plan is None:
            self.link.command("delete", key)
        else:
            self.link.command("set", key, orjson.dumps(plan.to_json()))

    def reset(self, namespace: str | None = None) -> None:
        super().reset(namespace)  # the namespace's Redis plan goes with its jobs (RedisBatchStore.reset)


def plan_from(raw: bytes | str) -> Plan:
    """A Plan from its JSON (Plan.to_json)."""
    data = orjson.loads(raw)
    return Plan(
        pending_s=data["pendingMs"] / 1000,
        running_s=data["runningMs"] / 1000,
        state=data["state"],
        hold=bool(data["hold"]),
        error=data.get("error"),
    )


class RedisBatchStore:
    """The batch jobs of every caller in one Redis (module docstring: keys, claims, budgets, round trips). The
    request path's methods are coroutines on redis.asyncio; `summaries`, `remove`, `reset` and `release` (the
    admin API's) use the sync client. A Redis that cannot be reached is the 503 (seam.state.RedisLink)."""

    remote = True

    def __init__(self, link: RedisLink, max_per_namespace: int = MAX_PER_NAMESPACE) -> None:
        self.link = link
        self.max_per_namespace = max_per_namespace
        self.token = secrets.token_hex(8)  # this process's claims
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    # --- calls -------------------------------------------------------------------------------------------
    async def _call(self, script: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        return await self._lua.call(script, args, keys)

    def _call_sync(self, script: str, args: Sequence[Any]) -> Any:
        return self._lua.call_sync(script, args)

    # --- the request path --------------------------------------------------------------------------------
    async def create(
        self,
        namespace: str,
        name: str,
        job: BatchJob,
        default_plan: Plan,
        webhook: Any,
        max_per_namespace_bytes: int,
        max_bytes: int,
    ) -> Operation | None:
        """A new job (None: the name is taken; draw another), or BudgetPassed."""
        now, now_ns = time.time(), time.time_ns()
        args: list[Any] = [PREFIX, namespace, name, repr(now), now_ns, max_per_namespace_bytes, max_bytes]
        args += [self.max_per_namespace, job.size, orjson.dumps(default_plan.to_json()), job.kind, job.model]
        args += [job.display_name, job.input_file, orjson.dumps(webhook) if webhook is not None else ""]
        args += [len(job.requests), *job.requests]
        reply = await self._call("create", args)
        if reply[0] == 0:
            return None
        if reply[0] < 0:
            raise BudgetPassed(reply[0] == -1, int(reply[1]))
        job.plan = plan_from(reply[1])
        job.created_ns = now_ns
        return self._operation(
            namespace,
            name,
            {
                b"created": repr(now).encode(),
                b"ready": repr(now + job.plan.pending_s + job.plan.running_s).encode(),
                b"held": b"1" if job.plan.hold else b"0",
                b"n": str(len(job.requests)).encode(),
            },
            job,
        )

    async def get(self, namespace: str, name: str) -> Operation | None:
        keys = [f"{PREFIX}o:{namespace}:{name}", f"{PREFIX}r:{namespace}:{name}"]
        reply = await self._call("read", [], keys)
        if not reply:
            return None
        return self.loaded(namespace, name, reply[0], reply[1])

    async def page(self, namespace: str, size: int, token: str) -> tuple[list[Operation], str]:
        following, rows = await self._call("page", [PREFIX, namespace, token, size])
        ops = [self.loaded(namespace, _text(name), flat, answers) for name, flat, answers in rows if flat]
        return ops, _text(following)

    async def cancel(self, namespace: str, name: str, status: dict[str, Any]) -> int:
        """0: no such job; 1: it was done already (left as it is); 2: cancelled."""
        args = [PREFIX, namespace, name, repr(time.time()), time.time_ns(), orjson.dumps(status)]
        return int(await self._call("cancel", args))

    async def delete(self, namespace: str, name: str) -> bool:
        return bool(await self._call("delete", [PREFIX, namespace, name]))

    async def finish(self, op: Operation, status: dict[str, Any], cancelled: bool, drop_requests: bool) -> None:
        """End a job its plan ends without answers (first reader wins; a later call changes nothing)."""
        args = [PREFIX, op.namespace, op.name, time.time_ns(), orjson.dumps(status), "1" if cancelled else "0"]
        await self._call("finish", [*args, "1" if drop_requests else "0"])

    async def claim(self, op: Operation) -> list[bytes] | None:
        """This process's claim to answer `op`, with its requests; None: another holds it, or it needs none."""
        reply = await self._call("claim", [PREFIX, op.namespace, op.name, self.token, CLAIM_LEASE_MS])
        return [bytes(r) for r in reply[1]] if reply[0] == 1 else None

    async def store(self, op: Operation, answers: list[bytes], max_ns: int, max_all: int) -> int:
        """Store a chunk of answers under the claim: 1 stored; 0 it would pass the caller's budget (-1 in the
        reply) ... returned as -1 (caller's) / -3 (everyone's); -2 the claim is gone (stop)."""
        args = [PREFIX, op.namespace, op.name, self.token, CLAIM_LEASE_MS, max_ns, max_all, len(answers), *answers]
        reply = await self._call("store", args)
        if reply[0] == -1:
            return -1 if reply[1] == 1 else -3
        return int(reply[0])

    async def commit(
        self, op: Operation, status: dict[str, Any], counts: tuple[int, int] | None, output: str, failed: bool
    ) -> bool:
        """End the claim: the job answered (`status` its response) or failed (`status` its error)."""
        shown = f"{counts[0]} {counts[1]}" if counts else ""
        args = [PREFIX, op.namespace, op.name, self.token, time.time_ns(), "1" if failed else "0"]
        return bool(await self._call("commit", [*args, orjson.dumps(status), shown, output]))

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def names(self) -> list[str]:
        """The namespaces holding jobs."""
        found = []
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + "z:*", 1000)
            found += [_text(k)[len(PREFIX) + 2 :] for k in keys]
            if int(cursor) == 0:
                break
        return sorted(set(found))

    def all(self, namespace: str) -> list[Operation]:
        """A namespace's jobs, oldest first (without their answers)."""
        names = [_text(n) for n in self.link.command("zrange", PREFIX + "z:" + namespace, 0, -1)]
        pipe = self.link.sync.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(f"{PREFIX}o:{namespace}:{name}")
        try:
            rows = pipe.execute()
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return [self._operation(namespace, n, row, None) for n, row in zip(names, rows, strict=True) if row]

    def remove(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("delete", [PREFIX, namespace, name]))

    def release(self, namespace: str) -> int:
        return int(self._call_sync("release", [PREFIX, namespace, repr(time.time())]))

    def reset(self, namespace: str | None = None) -> None:
        for space in [namespace] if namespace is not None else self.names():
            self._call_sync("reset", [PREFIX, space])
        if namespace is None:  # every plan too
            for key in self.link.command("keys", PREFIX + "plan:*"):
                self.link.command("delete", key)

    def held(self, namespace: str | None = None) -> int:
        """Bytes held by a caller's jobs, or by everyone's (as Redis counts them)."""
        value = (
            self.link.command("hget", PREFIX + "bytes", namespace)
            if namespace
            else self.link.command("get", PREFIX + "total")
        )
        return int(value or 0)

    # --- reading -----------------------------------------------------------------------------------------
    def loaded(self, namespace: str, name: str, flat: Any, answers: Any) -> Operation:
        """An Operation from a READ or PAGE reply (a flat field/value list, the answers)."""
        if isinstance(flat, dict):
            fields = {bytes(k): bytes(v) for k, v in flat.items()}
        else:
            fields = {bytes(flat[i]): bytes(flat[i + 1]) for i in range(0, len(flat), 2)}
        return self._operation(namespace, name, fields, None, [bytes(a) for a in answers])

    def _operation(
        self,
        namespace: str,
        name: str,
        fields: dict[bytes, bytes],
        job: BatchJob | None,
        answers: list[bytes] | None = None,
    ) -> Operation:
        fields = {bytes(k): bytes(v) for k, v in fields.items()}
        if job is None:
            counts = fields.get(b"counts")
            job = BatchJob(
                kind=fields.get(b"kind", b"generate").decode(),
                model=fields.get(b"model", b"").decode(),
                display_name=fields.get(b"display", b"").decode(),
                input_file=fields.get(b"input", b"").decode(),
                plan=plan_from(fields[b"plan"]) if b"plan" in fields else Plan(),
                created_ns=int(fields.get(b"created_ns", b"0")),
                output_file=fields.get(b"output", b"").decode(),
                ended_ns=int(fields.get(b"ended", b"0")),
                size=int(fields.get(b"size", b"0")),
                outcome=fields.get(b"outcome", b"").decode(),
            )
            if counts:
                total, good = counts.split()
                job.counts = (int(total), int(good))
            if b"response" in fields:
                job.results = answers or []
        job.listed = int(fields.get(b"n", b"0"))
        created = float(fields.get(b"created", b"0"))
        plan = job.plan
        steps = [(0.0, "PENDING"), (plan.pending_s, "RUNNING"), (plan.pending_s + plan.running_s, plan.state)]
        op = Operation(
            name=name,
            namespace=namespace,
            kind="batch",
            created=created,
            ready_at=float(fields.get(b"ready", b"0")),
            clock=time.time,
            steps=steps,
            response=orjson.loads(fields[b"response"]) if b"response" in fields else None,
            error=orjson.loads(fields[b"error"]) if b"error" in fields else None,
            held=fields.get(b"held") == b"1",
            cancelled=fields.get(b"cancelled") == b"1",
        )
        op.extra["job"] = job
        if b"webhook" in fields:
            op.extra["webhook"] = orjson.loads(fields[b"webhook"])
        return op


def budget_error(passed: BudgetPassed, max_per_namespace: int, max_bytes: int) -> errors.ApiError:
    """The 429 a create past a budget gets (the in-memory room's wording)."""
    if passed.mine:
        return errors.ApiError(
            429,
            f"gemini-emulator: this caller's batches would hold {passed.would_hold} bytes, past the emulator's "
            f"{max_per_namespace} per caller; delete some first.",
        )
    return errors.ApiError(429, f"gemini-emulator: the emulator's batches would hold more than {max_bytes} bytes.")
