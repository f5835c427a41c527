"""Tuning jobs on Redis (`--store redis://...`): a Vertex tuningJob or Developer tunedModel created through one
process is got, listed, cancelled and deleted through any other, and its tuned model answers generate calls on
every process.

The in-memory twin is stores/tunings.py (Tunings); a job read from here is the same TuningJob dataclass, its clock
the wall clock (`time.time`, which every process on one host shares, not a process's monotonic clock), so
`phase()` reads the same state everywhere. The jobs are per-key records (stores/keyed_redis.py, kind "tj"): the
bounds are Tunings' (MAX_JOBS_PER_NAMESPACE, MAX_JOBS, MAX_KEPT_TOTAL bytes of create bodies), counted in Redis;
past the per-caller bound the oldest finished job is forgotten first, as in memory. The tuned model and endpoint
names of a job are kept in an index beside it, written in the Lua call that adds the job and dropped in the one
that deletes it, so a look-up by tuned model name is one round trip. Each caller's schedule (`PUT
/__emulator/tunings`) is a Redis key, read by the create that uses it.

Keys (P is seam.state.KEY_PREFIX, N a namespace): the keyed records' `P k:tj:...` (r, v, s, x, z: keyed_redis.py),
  P k:tj:t:N   hash: tuned model or endpoint name -> job name
  P tp:N       the caller's tuning schedule (Plan.to_json)

Round trips: create 2 (the schedule, the add; 2 more when the caller's bound makes it forget a finished job), get
1, a tuned-model look-up 1 (a generate call on a tuned model, never on a plain one), list 1, cancel 2 (read,
swap), delete 1. The admin views (summaries, remove, reset, the schedule and the release it makes) use the sync
client.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import orjson

from gemini_emulator.seam.state import KEY_PREFIX, RedisLink, failures
from gemini_emulator.stores.batches import Plan, Plans
from gemini_emulator.stores.batches_redis import plan_from
from gemini_emulator.stores.keyed_redis import (
    _DROP_IF_EMPTY,
    ADD,
    DELETE,
    RESET,
    SCRIPTS,
    SWAP_TRIES,
    RedisKeyed,
    lost_races,
)
from gemini_emulator.stores.tunings import (
    FINAL,
    MAX_JOBS,
    MAX_JOBS_PER_NAMESPACE,
    MAX_KEPT_TOTAL,
    TuningJob,
    TuningsFull,
)

PLAN_PREFIX = KEY_PREFIX + "tp:"
SCAN_LIMIT = 10_000  # SCAN calls a reset of every caller's schedule makes at most

# ADD with the side pairs ("t", tuned model, "e", endpoint) kept beside the job, and the index written.
_ADD_INDEXED = (
    "local function add()\n"
    + ADD
    + """
end
local code = add()
if code == 1 then redis.call('HSET', ARGV[1] .. 't:' .. ARGV[2], ARGV[12], ARGV[3], ARGV[14], ARGV[3]) end
return code
"""
)

_DELETE_INDEXED = (
    "local names = redis.call('HMGET', ARGV[1] .. 'x:' .. ARGV[2] .. ':' .. ARGV[3], 't', 'e')\n"
    + "local function drop()\n"
    + DELETE
    + """
end
local record = drop()
if record then
  for _, name in ipairs(names) do
    if name then redis.call('HDEL', ARGV[1] .. 't:' .. ARGV[2], name) end
  end
end
return record
"""
)

_RESET_INDEXED = (
    "local function reset()\n"
    + RESET
    + """
end
local count = reset()
redis.call('DEL', ARGV[1] .. 't:' .. ARGV[2])
return count
"""
)

# The job a tuned model or endpoint name indexes (nil: none).
_FIND = """
local id = redis.call('HGET', ARGV[1] .. 't:' .. ARGV[2], ARGV[3])
if not id then return false end
return redis.call('HGET', ARGV[1] .. 'r:' .. ARGV[2], id)
"""

assert _DROP_IF_EMPTY in ADD  # the wrapped scripts define their helpers inside the wrapping function


class _Jobs(RedisKeyed[TuningJob]):
    """The jobs as keyed records, with their tuned-model index."""

    kind = "tj"
    noun = "tuning jobs"
    full = TuningsFull
    scripts = SCRIPTS | {"add_indexed": _ADD_INDEXED, "delete_indexed": _DELETE_INDEXED}
    scripts = scripts | {"reset_indexed": _RESET_INDEXED, "find": _FIND}

    def dump(self, record: TuningJob) -> bytes:
        return orjson.dumps(
            {
                "name": record.name,
                "namespace": record.namespace,
                "surface": record.surface,
                "tunedModel": record.tuned_model,
                "endpoint": record.endpoint,
                "baseModel": record.base_model,
                "kept": record.kept.decode(),
                "examples": record.examples,
                "plan": record.plan.to_json(),
                "created": record.created,
                "createdNs": record.created_ns,
                "cancelled": record.cancelled,
                "released": record.released,
                "extra": record.extra,
            }
        )

    def load(self, data: bytes) -> TuningJob:
        raw = orjson.loads(data)
        return TuningJob(
            name=raw["name"],
            namespace=raw["namespace"],
            surface=raw["surface"],
            tuned_model=raw["tunedModel"],
            endpoint=raw["endpoint"],
            base_model=raw["baseModel"],
            kept=raw["kept"].encode(),
            examples=raw["examples"],
            plan=plan_from(orjson.dumps(raw["plan"])),
            created=raw["created"],
            created_ns=raw["createdNs"],
            cancelled=raw["cancelled"],
            released=raw["released"],
            extra=raw["extra"],
        )

    def size_of(self, record: TuningJob) -> int:
        return len(record.kept)

    async def add_indexed(self, job: TuningJob) -> int:
        """1: added with its index; 0: the name is taken; below 0: the bound ADD names."""
        return int(
            await self._call(
                "add_indexed",
                job.namespace,
                job.name,
                self.dump(job),
                self.size_of(job),
                self.per_namespace,
                self.overall,
                self.bytes_per_namespace,
                self.bytes_overall,
                "",
                "t",
                job.tuned_model,
                "e",
                job.endpoint,
            )
        )

    async def find(self, namespace: str, name: str) -> TuningJob | None:
        data = await self._call("find", namespace, name)
        return None if data is None else self.load(bytes(data))


class TuningPlans(Plans):
    """Each caller's tuning schedule on Redis (a schedule set through one process holds for the jobs created
    through another). `get` and `set` are the admin API's (sync client); a create reads it with `aget`."""

    def __init__(self, link: RedisLink, default: Plan | None = None) -> None:
        super().__init__(default or Plan())
        self.link = link

    def get(self, namespace: str) -> Plan:
        held = self.link.command("get", PLAN_PREFIX + namespace)
        return plan_from(held) if held is not None else self.default

    async def aget(self, namespace: str) -> Plan:
        try:
            held = await self.link.aio.get(PLAN_PREFIX + namespace)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return plan_from(held) if held is not None else self.default

    def set(self, namespace: str, plan: Plan | None) -> None:
        if plan is None:
            self.link.command("delete", PLAN_PREFIX + namespace)
        else:
            self.link.command("set", PLAN_PREFIX + namespace, orjson.dumps(plan.to_json()))

    def reset(self, namespace: str | None = None) -> None:
        if namespace is not None:
            self.link.command("delete", PLAN_PREFIX + namespace)
            return
        cursor: Any = 0
        for _ in range(SCAN_LIMIT):
            cursor, keys = self.link.command("scan", cursor, PLAN_PREFIX + "*", 1000)
            if keys:
                self.link.command("delete", *keys)
            if int(cursor) == 0:
                break


class RedisTunings:
    """Every caller's tuning jobs on Redis (module docstring): the async methods are the request path's (the wire
    room, the generate path's tuned-model look-up), the sync ones the admin API's."""

    remote = True

    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self.jobs = _Jobs(link, MAX_JOBS_PER_NAMESPACE, MAX_JOBS, bytes_overall=MAX_KEPT_TOTAL)
        self.plans = TuningPlans(link)
        self.clock = time.time  # the wall clock: every process reads one job's phase alike

    def wall_ns(self, at: float) -> int:
        """The wall-clock time (ns) of a moment on the store's clock (itself the wall clock)."""
        return round(at * 1e9)

    # --- the request path ----------------------------------------------------------------------------------
    async def acreate(self, job: TuningJob) -> TuningJob:
        """Keep a new job (its plan and clock set here), or TuningsFull."""
        job.plan = await self.plans.aget(job.namespace)
        job.created, job.created_ns = self.clock(), time.time_ns()
        code = await self.jobs.add_indexed(job)
        if code == -1 and await self._forget_finished(job.namespace):
            code = await self.jobs.add_indexed(job)
        if code == -1:
            raise TuningsFull(
                f"this caller has {MAX_JOBS_PER_NAMESPACE} unfinished tuning jobs, the emulator's bound per caller"
            )
        if code == -2:
            raise TuningsFull(f"the emulator holds {MAX_JOBS} tuning jobs, its bound; cancel or delete some")
        if code < 0:
            raise TuningsFull(f"the emulator's tuning jobs would keep more than {MAX_KEPT_TOTAL} bytes of settings")
        if code == 0:
            raise TuningsFull("no fresh name for another tuning job")
        return job

    async def _forget_finished(self, namespace: str) -> bool:
        """Forget the caller's oldest finished job (False: none is finished)."""
        reply = await self.jobs._call("all", namespace)
        half = len(reply) // 2
        now = self.clock()
        for data in reply[half:]:
            if data is not None and (job := self.jobs.load(bytes(data))).phase(now)[0] in FINAL:
                await self.jobs._call("delete_indexed", namespace, job.name)
                return True
        return False

    async def aget(self, namespace: str, name: str) -> TuningJob | None:
        return await self.jobs.get(namespace, name)

    async def aby_tuned(self, namespace: str, name: str) -> TuningJob | None:
        """The job whose tuned model or endpoint is `name` (a tuned model's version suffix `@N` ignored)."""
        return await self.jobs.find(namespace, name.split("@", 1)[0])

    async def aall(self, namespace: str) -> list[TuningJob]:
        """The caller's jobs, oldest first."""
        reply = await self.jobs._call("all", namespace)
        half = len(reply) // 2
        return [self.jobs.load(bytes(data)) for data in reply[half:] if data is not None]

    async def acancel(self, job: TuningJob) -> None:
        """End a job that is not done yet (a finished one is left as it is)."""

        def end(held: TuningJob) -> bool:
            now = self.clock()
            if held.phase(now)[0] in FINAL:
                return False
            held.cancelled = now
            return True

        changed = await self.jobs.change(job.namespace, job.name, end)
        if changed is not None:
            job.cancelled = changed.cancelled

    async def aforget_operation(self, namespace: str, name: str, operation: str) -> bool:
        """Forget a job's create operation (a DELETE of it), the job kept; False: no such job or operation."""

        def forget(held: TuningJob) -> bool:
            return held.extra.pop("operation", None) == operation

        return await self.jobs.change(namespace, name, forget) is not None

    async def aremove(self, namespace: str, name: str) -> bool:
        return await self.jobs._call("delete_indexed", namespace, name) is not None

    # --- the admin API (sync client) -----------------------------------------------------------------------
    def all(self, namespace: str | None = None) -> list[TuningJob]:
        return self.jobs.all(namespace)

    def remove(self, namespace: str, name: str) -> bool:
        return self.jobs._call_sync("delete_indexed", namespace, name) is not None

    def release(self, namespace: str, plan: Plan) -> int:
        """Let a caller's held jobs finish on `plan`'s final state; how many there were."""
        released = 0
        for job in self.jobs.all(namespace):
            if job.plan.hold and not job.released and not job.cancelled and self._release(job, plan):
                released += 1
        return released

    def _release(self, job: TuningJob, plan: Plan) -> bool:
        """One held job released by a compare-and-set (False: it was released, cancelled or deleted meanwhile)."""
        for _ in range(SWAP_TRIES):
            data, version = self.jobs._call_sync("read", job.namespace, job.name)
            if data is None:
                return False
            held = self.jobs.load(bytes(data))
            if not held.plan.hold or held.released or held.cancelled:
                return False
            held.plan = replace(held.plan, state=plan.state, error=plan.error)
            held.released = self.clock()
            code = int(
                self.jobs._call_sync(
                    "swap",
                    job.namespace,
                    job.name,
                    version,
                    self.jobs.dump(held),
                    self.jobs.size_of(held),
                    0,
                    MAX_KEPT_TOTAL,
                    "",
                    0,
                )
            )
            if code == 1:
                return True
            if code == -1:
                return False
        raise lost_races(job.name)

    def reset(self, namespace: str | None = None) -> None:
        for space in [namespace] if namespace is not None else self.jobs.names():
            self.jobs._call_sync("reset_indexed", space)
        self.plans.reset(namespace)
