"""The journal on Redis (`--store redis://...`): one ordered log per namespace, shared by every worker and replica.

The same contract as `Journal` (tests/scaling/test_store_contract.py): records in order, the record cap and
MAX_BYTES (past either, the oldest record of the namespace holding the most is evicted and counted), pages of
GET /__emulator/journal, credentials redacted. Redaction happens in `begin` (the headers and query kept are the
redacted ones) and the body is the journal's own elided copy, so no credential is ever sent to Redis.

Keys (P is seam.state.KEY_PREFIX + "j:", N a namespace):
  P rec      hash id -> "<size> <the record's JSON without its id>"
  P all      sorted set of every record id (score: the id)      P z:N  the namespace's ids
  P counts   hash N -> records held        P bytes  hash N -> bytes held
  P held, P held_bytes                      P seq    record ids, in the order records were finished
  P evicted  hash N -> records evicted      P evicted_total

Writes are a group commit: `finish` queues the record and one task writes everything queued in one Lua call
(APPEND), so a burst of requests costs one round trip, not one each; its reply also carries the version of the
models added at run time (stores/models_redis.py), which is how a process learns they changed. The app awaits
`flushed()` before it sends a unary answer, so a record is in Redis before its caller has the answer and any
process reads it. A stream's or a Live session's record is written when it ends, shortly after its last byte
(in-flight records are seen only by the memory journal). Reads (the admin API, from a worker thread) use the sync
client.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from collections import Counter
from collections.abc import Mapping
from typing import Any

import orjson

from gemini_emulator.admin.journal import (
    _HEADER_SETS,
    _NO_QUERY,
    MAX_BYTES,
    PAGE_BYTES,
    PAGE_RECORDS,
    Journal,
    Record,
    redact_headers,
    redact_query,
)
from gemini_emulator.seam.state import KEY_PREFIX, MODELS_VERSION, RedisLink, failures
from gemini_emulator.wire.incoming import RawHeaders

PREFIX = KEY_PREFIX + "j:"
BATCH_RECORDS = 512  # records per APPEND call
BATCH_BYTES = 8 << 20  # bytes of records per APPEND call (a record always goes, however big)
MAX_QUEUED = 20_000  # records waiting for Redis (it is slow or down): past it the oldest are dropped and logged
SCAN_CHUNK = 500  # ids read per round trip when paging

log = logging.getLogger("gemini_emulator")

APPEND = """
local P, cap, maxb, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rec, all, counts, bytes = P .. 'rec', P .. 'all', P .. 'counts', P .. 'bytes'
local ids = {}
for i = 1, n do
  local ns, size, value = ARGV[2 + 3 * i], tonumber(ARGV[3 + 3 * i]), ARGV[4 + 3 * i]
  local id = redis.call('INCR', P .. 'seq')
  redis.call('HSET', rec, id, size .. ' ' .. value)
  redis.call('ZADD', all, id, id)
  redis.call('ZADD', P .. 'z:' .. ns, id, id)
  redis.call('HINCRBY', counts, ns, 1)
  redis.call('HINCRBY', bytes, ns, size)
  redis.call('INCR', P .. 'held')
  redis.call('INCRBY', P .. 'held_bytes', size)
  ids[i] = id
end
local function biggest(hash)
  local flat = redis.call('HGETALL', hash)
  local best, most = nil, -1
  for i = 1, #flat, 2 do
    local v = tonumber(flat[i + 1])
    if v > most then best, most = flat[i], v end
  end
  return best
end
local function evict(ns)
  local z = P .. 'z:' .. ns
  local first = redis.call('ZRANGE', z, 0, 0)[1]
  local size = tonumber(string.match(redis.call('HGET', rec, first), '^(%d+) '))
  redis.call('HDEL', rec, first)
  redis.call('ZREM', all, first)
  redis.call('ZREM', z, first)
  if redis.call('HINCRBY', counts, ns, -1) <= 0 then
    redis.call('HDEL', counts, ns)
    redis.call('HDEL', bytes, ns)
  else
    redis.call('HINCRBY', bytes, ns, -size)
  end
  redis.call('DECR', P .. 'held')
  redis.call('DECRBY', P .. 'held_bytes', size)
  redis.call('HINCRBY', P .. 'evicted', ns, 1)
  redis.call('INCR', P .. 'evicted_total')
end
while tonumber(redis.call('GET', P .. 'held') or '0') > cap do evict(biggest(counts)) end
while tonumber(redis.call('GET', P .. 'held_bytes') or '0') > maxb do evict(biggest(bytes)) end
ids[n + 1] = redis.call('GET', '@MODELS@') or '0'  -- the run-time models' version, for the writer to compare
return ids
""".replace("@MODELS@", MODELS_VERSION)

CLEAR = """
local P, ns = ARGV[1], ARGV[2]
local z = P .. 'z:' .. ns
local ids = redis.call('ZRANGE', z, 0, -1)
for _, id in ipairs(ids) do
  redis.call('HDEL', P .. 'rec', id)
  redis.call('ZREM', P .. 'all', id)
end
local size = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
redis.call('DEL', z)
redis.call('HDEL', P .. 'counts', ns)
redis.call('HDEL', P .. 'bytes', ns)
redis.call('DECRBY', P .. 'held', #ids)
redis.call('DECRBY', P .. 'held_bytes', size)
return #ids
"""


class StoredRecord:
    """A record as read back from Redis: what the admin API's page shows (`to_json`) and pages by."""

    __slots__ = ("id", "size", "_data")

    def __init__(self, record_id: int, size: int, data: dict[str, Any]) -> None:
        self.id, self.size, self._data = record_id, size, data

    @property
    def namespace(self) -> str:
        return str(self._data.get("namespace", ""))

    @property
    def model(self) -> str:
        return str(self._data.get("model", ""))

    @property
    def rpc(self) -> str:
        return str(self._data.get("rpc", ""))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, **self._data}


_PROVISIONAL = itertools.count(1)


class RedisJournal(Journal):
    """The journal kept in one Redis (module docstring: keys, group commit, what reads see)."""

    deferred = True  # the app awaits `flushed()` before sending a unary answer

    def __init__(self, link: RedisLink, cap: int = 10_000, max_bytes: int = MAX_BYTES) -> None:
        self.link = link
        self.cap = cap
        self.max_bytes = max_bytes
        self._queue: list[tuple[Record, bytes]] = []
        self._queued_bytes = 0
        self._done: asyncio.Future[None] | None = None  # the future of the batch being queued
        self._task: asyncio.Task[None] | None = None
        self._aio_append: Any = None
        self._aio_client: Any = None
        self._dropped = 0
        self._pid_base = os.getpid() << 24

    # --- writing ---------------------------------------------------------------------------------------

    def begin(self, method: str, path: str, query: Mapping[str, str], headers: RawHeaders) -> Record:
        """A new record (redacted now: nothing unredacted is ever queued). Its id is provisional, unique to this
        process, until the record is written (then the log's own)."""
        known = _HEADER_SETS.get(tuple(headers))
        record = Record(
            method,
            path,
            redact_query(query) if query else _NO_QUERY,
            known if known is not None else redact_headers(headers),
        )
        record.id = self._pid_base + next(_PROVISIONAL)
        return record

    def finish(self, record: Record, status: int, body: bytes, complete: bool = True, elided: bool = False) -> None:
        """Fill in the answer and queue the record for the next write."""
        if record.size:  # finished already
            return
        record.size = record.answered(status, body, complete, elided)
        data = record.to_json()
        del data["id"]
        value = orjson.dumps(data)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a thread of its own (a fixture): write now, blocking that thread only
            self._write_now([(record, value)])
            return
        if len(self._queue) >= MAX_QUEUED:
            self._queue.pop(0)
            self._dropped += 1
        self._queue.append((record, value))
        self._queued_bytes += len(value)
        if self._done is None or self._done.done():
            self._done = loop.create_future()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._flush())

    async def flushed(self) -> None:
        """Returns once every record queued so far is written (or could not be: Redis down, logged)."""
        done = self._done
        if done is not None and not done.done():
            await asyncio.shield(done)

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # let the records finishing in this turn of the loop join the batch
        while self._queue:
            batch: list[tuple[Record, bytes]] = []
            size = 0
            while self._queue and len(batch) < BATCH_RECORDS and (not batch or size < BATCH_BYTES):
                item = self._queue.pop(0)
                batch.append(item)
                size += len(item[1])
            self._queued_bytes -= size
            done = None
            if not self._queue:  # the last batch resolves the waiters' future; later records get a new one
                done, self._done = self._done, None
            try:
                await self._append_aio(batch)
            except failures() as exc:
                self.link.unavailable(exc)  # logged (rate-limited); these records are lost
            except Exception:
                log.exception("journal write to %s failed", self.link.shown)
            finally:
                if done is not None and not done.done():
                    done.set_result(None)
        if self._dropped:
            log.error("journal: %d records dropped while %s was unavailable", self._dropped, self.link.shown)
            self._dropped = 0

    def _args(self, batch: list[tuple[Record, bytes]]) -> list[Any]:
        args: list[Any] = [PREFIX, self.cap, self.max_bytes, len(batch)]
        for record, value in batch:
            args += [record.namespace, record.size, value]
        return args

    async def _append_aio(self, batch: list[tuple[Record, bytes]]) -> None:
        client = self.link.aio
        if client is not self._aio_client:
            self._aio_append, self._aio_client = client.register_script(APPEND), client
        ids = await self._aio_append(args=self._args(batch))
        if self.link.failing:
            self.link.recovered()
        for (record, _), record_id in zip(batch, ids[: len(batch)], strict=True):
            record.id = int(record_id)
        refresh = self.link.saw_models(int(ids[len(batch)]))
        if refresh is not None:  # the models changed through another process: learnt before these answers go
            await refresh

    def _write_now(self, batch: list[tuple[Record, bytes]]) -> None:
        try:
            ids = self.link.sync.register_script(APPEND)(args=self._args(batch))
        except failures() as exc:
            self.link.unavailable(exc)
            return
        for (record, _), record_id in zip(batch, ids[: len(batch)], strict=True):
            record.id = int(record_id)

    # --- reading (sync: the admin API calls these in a worker thread) -------------------------------

    def _sync(self, method: str, *args: Any) -> Any:
        return self.link.command(method, *args)

    @property
    def evicted(self) -> int:
        return int(self._sync("get", PREFIX + "evicted_total") or 0)

    @evicted.setter
    def evicted(self, value: int) -> None:  # the base class's __init__ sets it; nothing to keep here
        pass

    @property
    def evicted_by(self) -> Counter[str]:
        return Counter({k.decode(): int(v) for k, v in self._sync("hgetall", PREFIX + "evicted").items()})

    @evicted_by.setter
    def evicted_by(self, value: Counter[str]) -> None:
        pass

    def page(  # type: ignore[override]
        self,
        namespace: str | None = None,
        model: str | None = None,
        rpc: str | None = None,
        since: int = 0,
        limit: int = PAGE_RECORDS,
        max_bytes: int | None = PAGE_BYTES,
    ) -> tuple[list[StoredRecord], int | None]:
        """As Journal.page, over the log in Redis (SCAN_CHUNK records a round trip)."""
        index = PREFIX + ("all" if namespace is None else "z:" + namespace)
        model = model.removeprefix("models/") if model is not None else None
        out: list[StoredRecord] = []
        size = 0
        cursor = since
        for _ in range(1 + (self.cap + MAX_QUEUED) // SCAN_CHUNK + 1):  # bounded: the log holds at most cap records
            ids = self._sync("zrangebyscore", index, f"({cursor}", "+inf", 0, SCAN_CHUNK)
            if not ids:
                break
            values = self._sync("hmget", PREFIX + "rec", ids)
            for raw_id, value in zip(ids, values, strict=True):
                if value is None:  # evicted between the two calls
                    continue
                head, _, text = value.partition(b" ")
                r = StoredRecord(int(raw_id), int(head), orjson.loads(text))
                if (model is not None and r.model != model) or (rpc is not None and r.rpc != rpc):
                    continue
                if len(out) >= limit or (max_bytes is not None and out and size + r.size > max_bytes):
                    return out, out[-1].id
                out.append(r)
                size += r.size
            cursor = int(ids[-1])
        return out, None

    def query(  # type: ignore[override]
        self,
        namespace: str | None = None,
        model: str | None = None,
        rpc: str | None = None,
        since: int = 0,
        limit: int | None = None,
    ) -> list[StoredRecord]:
        return self.page(namespace, model, rpc, since, limit or self.cap + MAX_QUEUED + 1, max_bytes=None)[0]

    def counts(self) -> dict[str, int]:
        return {k.decode(): int(v) for k, v in self._sync("hgetall", PREFIX + "counts").items() if int(v)}

    def clear(self, namespace: str | None = None) -> None:
        if namespace is not None:
            try:
                self.link.sync.register_script(CLEAR)(args=[PREFIX, namespace])
            except failures() as exc:
                raise self.link.unavailable(exc) from None
            return
        keep = {(PREFIX + name).encode() for name in ("seq", "evicted", "evicted_total")}
        try:
            keys = [k for k in self.link.sync.scan_iter(match=PREFIX + "*", count=1000) if k not in keep]
            for i in range(0, len(keys), 1000):
                self.link.sync.unlink(*keys[i : i + 1000])
        except failures() as exc:
            raise self.link.unavailable(exc) from None
