"""Scripts on Redis (`--store redis://...`): every worker process and replica reads and consumes one script book.

The same contract as `ScriptStore` (tests/scaling/test_store_contract.py runs one suite over both): entries in order
per namespace, matchers before plain entries, `times`, strict mode, the shared namespace "*", MAX_ENTRIES and
MAX_NAMESPACES. An entry is consumed exactly once across all processes.

Keys (P is seam.state.KEY_PREFIX + "s:", N a namespace):
  P o:N   list of the pending entries' ids, oldest first
  P e:N   hash id -> "<index> <the entry's JSON spec>" (parsed where read, cached by version)
  P t:N   hash id -> times (-1: forever)          P u:N  hash id -> times served
  P p:N   set of the plain entries' ids (no matcher)
  P m:N   hash: ver (the namespace's version), strict ("1", "0"; absent: follow), next (entry index), answered,
          matched (the newest matched entry's id)
  P names sorted set of the namespaces besides "*", scored by last use (the idlest is forgotten past MAX_NAMESPACES)
  P seq   entry ids (never reused)             P ver  versions (never reused, so a forgotten namespace's
                                                        version cannot come back and pass a stale cache)

A plain request costs one round trip (PROBE: each of the caller's and the shared namespace's version, pending
count and strict setting), shared with the other requests that probe in the same turn of the event loop: their
probes go as one PROBE call of every namespace asked (PROBE_BATCH at most), as the journal's group commit does.
With entries, the parsed entries of the version probed are used from this process's cache (or SNAPSHOT fetches
the ids and only the specs not cached yet), the entry is chosen here (matchers are Python: RE2, predicates of JSON
paths), and CONSUME serves it atomically only if it is still pending. When another
process served it first, a plain entry's place goes, in the same call, to the first plain entry still pending if
no matched entry was added since the snapshot (the choice a fresh snapshot would make: the matched entries it saw
did not match); otherwise the choice is made again on a fresh snapshot (MAX_ATTEMPTS bounds it).

The request path goes through redis.asyncio (`answer`); the ScriptBook methods the admin API (in a worker
thread) and fixtures (their own threads) call use the sync client. Lua scripts name their keys themselves
(prefix + namespace): one Redis or Valkey, not a cluster.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import orjson

from gemini_emulator.engines.scripted.entries import Entry, Subject, parse_entries, parse_entry
from gemini_emulator.engines.scripted.store import MAX_ENTRIES, MAX_NAMESPACES, Misses, Selection
from gemini_emulator.seam import SHARED, EntryError, GenerateRequest
from gemini_emulator.seam.state import KEY_PREFIX, RedisLink, failures

PREFIX = KEY_PREFIX + "s:"
MAX_ATTEMPTS = 1000  # choices made again after losing a race (each loss means another request consumed an entry)
PROBE_BATCH = 256  # namespaces probed in one call at most
KINDS = ("o:", "e:", "t:", "u:", "m:", "p:")

_TOUCH = """
local function touch(P, ns, shared, maxns)
  if ns ~= shared then
    local names = P .. 'names'
    if not redis.call('ZSCORE', names, ns) and redis.call('ZCARD', names) >= maxns then
      local idlest = redis.call('ZRANGE', names, 0, 0)[1]
      for _, k in ipairs({'o:', 'e:', 't:', 'u:', 'm:', 'p:'}) do redis.call('DEL', P .. k .. idlest) end
      redis.call('ZREM', names, idlest)
    end
    local now = redis.call('TIME')
    redis.call('ZADD', names, now[1] + now[2] / 1000000, ns)
  end
  redis.call('HSETNX', P .. 'm:' .. ns, 'next', 0)
end
"""

ADD = (
    _TOUCH
    + """
local P, ns, shared = ARGV[1], ARGV[2], ARGV[3]
local maxns, maxe, replace, n = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6] == '1', tonumber(ARGV[7])
local o, e, t, u, m = P .. 'o:' .. ns, P .. 'e:' .. ns, P .. 't:' .. ns, P .. 'u:' .. ns, P .. 'm:' .. ns
local held = 0
if not replace then held = redis.call('LLEN', o) end
if held + n > maxe then return {-1, held} end
touch(P, ns, shared, maxns)
if replace then redis.call('DEL', o, e, t, u, P .. 'p:' .. ns) end
for i = 1, n do
  local id = redis.call('INCR', P .. 'seq')
  local index = redis.call('HINCRBY', m, 'next', 1) - 1
  local at = 7 + 3 * (i - 1)
  redis.call('RPUSH', o, id)
  redis.call('HSET', e, id, index .. ' ' .. ARGV[at + 1])
  redis.call('HSET', t, id, ARGV[at + 2])
  if ARGV[at + 3] == '1' then
    redis.call('SADD', P .. 'p:' .. ns, id)
  else
    redis.call('HSET', m, 'matched', id)
  end
end
redis.call('HSET', m, 'ver', redis.call('INCR', P .. 'ver'))
return {n, held}
"""
)

PROBE = """
local P = ARGV[1]
local out = {}
for i = 2, #ARGV do
  local meta = redis.call('HMGET', P .. 'm:' .. ARGV[i], 'ver', 'strict')
  out[#out + 1] = meta[1] or '0'
  out[#out + 1] = redis.call('LLEN', P .. 'o:' .. ARGV[i])
  out[#out + 1] = meta[2] or ''
end
return out
"""

SNAPSHOT = """
local P, ns, known = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ver = redis.call('HGET', P .. 'm:' .. ns, 'ver') or '0'
local ids = redis.call('LRANGE', P .. 'o:' .. ns, 0, -1)
local fresh = {}
local e = P .. 'e:' .. ns
for _, id in ipairs(ids) do
  if tonumber(id) > known then
    fresh[#fresh + 1] = id
    fresh[#fresh + 1] = redis.call('HGET', e, id)
  end
end
return {ver, ids, fresh}
"""

CONSUME = """
local P, ns, shared, id, known = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local e, m, plain = P .. 'e:' .. ns, P .. 'm:' .. ns, P .. 'p:' .. ns
if redis.call('HEXISTS', e, id) == 0 then
  -- Served elsewhere. A plain entry's place goes to the first plain entry still pending, when no matched entry
  -- was added since the caller's snapshot (those it saw did not match): the choice a fresh snapshot would make.
  if known == 0 or tonumber(redis.call('HGET', m, 'matched') or '0') > known then return {-1, id} end
  id = nil
  for _, candidate in ipairs(redis.call('LRANGE', P .. 'o:' .. ns, 0, 99)) do
    if redis.call('SISMEMBER', plain, candidate) == 1 then id = candidate break end
  end
  if not id or tonumber(id) > known then return {-1, '0'} end
end
local served = redis.call('HINCRBY', P .. 'u:' .. ns, id, 1)
redis.call('HINCRBY', m, 'answered', 1)
local times = tonumber(redis.call('HGET', P .. 't:' .. ns, id))
if times ~= -1 and served >= times then
  redis.call('LREM', P .. 'o:' .. ns, 1, id)
  redis.call('HDEL', e, id)
  redis.call('HDEL', P .. 't:' .. ns, id)
  redis.call('HDEL', P .. 'u:' .. ns, id)
  redis.call('SREM', plain, id)
  redis.call('HSET', m, 'ver', redis.call('INCR', P .. 'ver'))
end
if ns ~= shared then
  local now = redis.call('TIME')
  redis.call('ZADD', P .. 'names', 'XX', now[1] + now[2] / 1000000, ns)
end
return {served, id}
"""

STRICT = (
    _TOUCH
    + """
local P, ns, shared, maxns, value = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local m = P .. 'm:' .. ns
if value == '' and redis.call('EXISTS', m) == 0 then return 0 end
touch(P, ns, shared, maxns)
if value == '' then redis.call('HDEL', m, 'strict') else redis.call('HSET', m, 'strict', value) end
return 1
"""
)

RESET = """
local P, ns = ARGV[1], ARGV[2]
for _, k in ipairs({'o:', 'e:', 't:', 'u:', 'm:', 'p:'}) do redis.call('DEL', P .. k .. ns) end
redis.call('ZREM', P .. 'names', ns)
return 1
"""

SCRIPTS = {"add": ADD, "probe": PROBE, "snapshot": SNAPSHOT, "consume": CONSUME, "strict": STRICT, "reset": RESET}

Call = tuple[str, list[Any]]  # a script's name and its ARGV


@dataclass
class _Cached:
    """One namespace's pending entries as parsed here, at a version."""

    ver: int
    ids: list[int] = field(default_factory=list)
    entries: dict[int, Entry] = field(default_factory=dict)

    @property
    def known(self) -> int:
        return max(self.entries, default=0)


@dataclass
class Outcome:
    """What answers a request: the entry (or None), the matchers that missed, and the caller's strict mode."""

    entry: Entry | None
    near_misses: Misses
    strict: bool


class RedisScriptStore:
    """All namespaces' scripts in one Redis (module docstring: keys, round trips); a `seam.ScriptBook`."""

    remote = True  # the engine asks `answer` (async) instead of the in-memory calls; the admin API calls off-loop

    def __init__(self, link: RedisLink, strict: bool = False) -> None:
        self.link = link
        self.default_strict = strict
        self._lock = threading.Lock()
        self._cache: dict[str, _Cached] = {}
        self._sync_scripts: dict[str, Any] = {}
        self._aio_scripts: dict[str, Any] = {}
        self._aio_client: Any = None
        self._probes: dict[str, list[asyncio.Future[list[Any]]]] = {}  # namespace -> its waiting probes
        self._prober: asyncio.Task[None] | None = None

    # --- I/O: one call, through the sync or the asyncio client ------------------------------------------

    def _run(self, call: Call) -> Any:
        if not self._sync_scripts:
            client = self.link.sync
            self._sync_scripts = {name: client.register_script(text) for name, text in SCRIPTS.items()}
        try:
            result = self._sync_scripts[call[0]](args=call[1])
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result

    async def _arun(self, call: Call) -> Any:
        client = self.link.aio
        if client is not self._aio_client:
            self._aio_scripts = {name: client.register_script(text) for name, text in SCRIPTS.items()}
            self._aio_client = client
        try:
            result = await self._aio_scripts[call[0]](args=call[1])
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result

    def _drive(self, steps: Generator[Call, Any, Any]) -> Any:
        try:
            call = next(steps)
            while True:
                call = steps.send(self._run(call))
        except StopIteration as done:
            return done.value

    async def _adrive(self, steps: Generator[Call, Any, Any]) -> Any:
        try:
            call = next(steps)
            while True:
                result = await (self._aprobe(call[1][1]) if call[0] == "probe" else self._arun(call))
                call = steps.send(result)
        except StopIteration as done:
            return done.value

    async def _aprobe(self, namespace: str) -> list[Any]:
        """PROBE of `namespace` and the shared one, sent with every other probe asked in this turn of the loop."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[list[Any]] = loop.create_future()
        self._probes.setdefault(namespace, []).append(waiter)
        if self._prober is None or self._prober.done() or self._prober.get_loop() is not loop:
            self._prober = loop.create_task(self._send_probes())
        return await waiter

    async def _send_probes(self) -> None:
        await asyncio.sleep(0)  # let the requests probing in this turn of the loop join
        while self._probes:
            names = list(self._probes)[:PROBE_BATCH]
            waiting = [self._probes.pop(name) for name in names]
            try:
                out = await self._arun(("probe", [PREFIX, SHARED, *names]))
            except BaseException as exc:  # the 503, a bug, or this task cancelled: no waiter is left waiting
                failed = exc if isinstance(exc, Exception) else self.link.unavailable(exc)
                for waiters in [*waiting, *self._probes.values()]:
                    for waiter in waiters:
                        if not waiter.done():
                            waiter.set_exception(failed)
                if not isinstance(exc, Exception):
                    self._probes.clear()
                    raise
                continue
            shared = out[:3]
            for i, waiters in enumerate(waiting):
                own = out[3 + 3 * i : 6 + 3 * i]
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result([*own, *shared])

    def _sync(self, method: str, *args: Any) -> Any:
        return self.link.command(method, *args)

    # --- the ScriptBook --------------------------------------------------------------------------------

    def add(
        self,
        namespace: str,
        entries: Any,
        *,
        replace: bool = False,
        predicate: Callable[[GenerateRequest], bool] | None = None,
    ) -> int:
        """As ScriptStore.add; a Python `predicate` cannot be shared between processes, so it is refused."""
        if predicate is not None:
            raise EntryError("predicate", "a JSON matcher: a Python predicate cannot be shared through Redis")
        listed = entries.get("entries") if isinstance(entries, dict) else entries
        if isinstance(listed, list) and len(listed) > MAX_ENTRIES:
            raise EntryError("entries", f"at most {MAX_ENTRIES} pending entries per namespace")
        parsed = parse_entries(entries)
        args: list[Any] = [PREFIX, namespace, SHARED, MAX_NAMESPACES, MAX_ENTRIES, int(replace), len(parsed)]
        for entry in parsed:
            try:
                args += [orjson.dumps(entry.spec), entry.times, int(entry.match.empty)]
            except (orjson.JSONEncodeError, TypeError):
                raise EntryError("entry", "JSON data (the Redis store keeps entries as JSON)") from None
        added, held = self._run(("add", args))
        if added == -1:
            raise EntryError("entries", f"at most {MAX_ENTRIES} pending entries per namespace ({held} held)")
        return len(parsed)

    def pending(self, name: str) -> list[dict[str, Any]]:
        pipe = self.link.sync.pipeline(transaction=True)
        pipe.lrange(PREFIX + "o:" + name, 0, -1).hgetall(PREFIX + "e:" + name).hgetall(PREFIX + "u:" + name)
        try:
            ids, specs, served = pipe.execute()
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        out = []
        for raw in ids:
            text = specs.get(raw)
            if text is None:
                continue
            entry = _parse(int(raw), text)
            entry.served = int(served.get(raw, 0))
            out.append(entry.describe())
        return out

    def pending_counts(self) -> dict[str, int]:
        names = self.names()
        pipe = self.link.sync.pipeline(transaction=False)
        for name in names:
            pipe.llen(PREFIX + "o:" + name)
        try:
            counts = pipe.execute()
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return dict(zip(names, (int(c) for c in counts), strict=True))

    def names(self) -> list[str]:
        pipe = self.link.sync.pipeline(transaction=True)
        pipe.zrange(PREFIX + "names", 0, -1).exists(PREFIX + "m:" + SHARED)
        try:
            names, shared = pipe.execute()
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return sorted([n.decode() for n in names] + ([SHARED] if shared else []))

    def set_strict(self, name: str, strict: bool | None) -> None:
        value = "" if strict is None else "1" if strict else "0"
        self._run(("strict", [PREFIX, name, SHARED, MAX_NAMESPACES, value]))

    def is_strict(self, name: str) -> bool:
        probe = self._run(("probe", [PREFIX, name, SHARED]))
        return self._strict(probe[2], probe[5])

    def _strict(self, own: Any, shared: Any) -> bool:
        if own:
            return bool(own == b"1" or own == "1")
        if shared:
            return bool(shared == b"1" or shared == "1")
        return self.default_strict

    def reset(self, name: str | None = None) -> None:
        if name is not None:
            self._run(("reset", [PREFIX, name]))
        else:
            keep = {(PREFIX + "seq").encode(), (PREFIX + "ver").encode()}
            try:
                batch: list[bytes] = []
                for key in self.link.sync.scan_iter(match=PREFIX + "*", count=1000):
                    if key not in keep:
                        batch.append(key)
                    if len(batch) >= 1000:
                        self.link.sync.unlink(*batch)
                        batch = []
                if batch:
                    self.link.sync.unlink(*batch)
            except failures() as exc:
                raise self.link.unavailable(exc) from None
        with self._lock:
            if name is None:
                self._cache.clear()
            else:
                self._cache.pop(name, None)

    # --- what the engine asks -------------------------------------------------------------------------

    async def answer(self, request: GenerateRequest) -> Outcome:
        """The entry that answers `request`, served (async: the request path), or none and the caller's strict
        mode. One round trip when neither namespace holds entries."""
        return await self._adrive(self._choose(request, serve=True))

    def holds_entries(self, name: str) -> bool:
        out = self._run(("probe", [PREFIX, name, SHARED]))
        return bool(int(out[1]) or int(out[4]))

    def select(self, request: GenerateRequest) -> Selection:
        outcome: Outcome = self._drive(self._choose(request, serve=True))
        return Selection(outcome.entry, outcome.near_misses)

    def peek(self, request: GenerateRequest) -> Entry | None:
        outcome: Outcome = self._drive(self._choose(request, serve=False))
        return outcome.entry

    def select_if(self, request: GenerateRequest, accept: Callable[[Entry], bool]) -> Entry | None:
        outcome: Outcome = self._drive(self._choose(request, serve=True, accept=accept))
        return outcome.entry

    async def apeek(self, request: GenerateRequest) -> Entry | None:
        """peek, its round trips awaited (the unknown-model path)."""
        outcome: Outcome = await self._adrive(self._choose(request, serve=False))
        return outcome.entry

    def holds_kind(self, namespace: str, kind: str) -> bool:
        """Whether the caller's or the shared script holds an entry of this answer kind (sync: for threads)."""
        spaces: list[_Cached] = self._drive(self._entries_of(namespace))
        return any(kind in e.spec for cached in spaces for e in cached.entries.values())

    async def aholds_kind(self, namespace: str, kind: str) -> bool:
        """holds_kind, its round trips awaited (the countTokens and unknown-model paths)."""
        spaces: list[_Cached] = await self._adrive(self._entries_of(namespace))
        return any(kind in e.spec for cached in spaces for e in cached.entries.values())

    async def aselect_if(self, request: GenerateRequest, accept: Callable[[Entry], bool]) -> Entry | None:
        """select_if, its round trips awaited."""
        outcome: Outcome = await self._adrive(self._choose(request, serve=True, accept=accept))
        return outcome.entry

    def _entries_of(self, namespace: str) -> Generator[Call, Any, list[_Cached]]:
        probe = yield ("probe", [PREFIX, namespace, SHARED])
        out = []
        for name, ver, count in ((namespace, int(probe[0]), int(probe[1])), (SHARED, int(probe[3]), int(probe[4]))):
            if count:
                out.append((yield from self._fresh(name, ver)))
        return out

    def _fresh(self, name: str, ver: int) -> Generator[Call, Any, _Cached]:
        """The namespace's entries at version `ver` or later, from the cache or a snapshot."""
        with self._lock:
            cached = self._cache.get(name)
        if cached is not None and cached.ver >= ver:
            return cached
        known = cached.known if cached is not None else 0
        new_ver, ids, fresh = yield ("snapshot", [PREFIX, name, known])
        entries = dict(cached.entries) if cached is not None else {}
        for i in range(0, len(fresh), 2):
            entries[int(fresh[i])] = _parse(int(fresh[i]), fresh[i + 1])
        order = [int(i) for i in ids]
        kept = {i: entries[i] for i in order if i in entries}
        result = _Cached(int(new_ver), order, kept)
        with self._lock:
            if len(self._cache) > MAX_NAMESPACES and name not in self._cache:
                self._cache.pop(next(iter(self._cache)))
            self._cache[name] = result
        return result

    def _choose(
        self, request: GenerateRequest, serve: bool, accept: Callable[[Entry], bool] | None = None
    ) -> Generator[Call, Any, Outcome]:
        namespace = request.namespace
        for _ in range(MAX_ATTEMPTS):
            probe = yield ("probe", [PREFIX, namespace, SHARED])
            strict = self._strict(probe[2], probe[5])
            misses: Misses = []
            spaces = ((namespace, int(probe[0]), int(probe[1])), (SHARED, int(probe[3]), int(probe[4])))
            if not spaces[0][2] and not spaces[1][2]:
                return Outcome(None, misses, strict)
            chosen: tuple[str, int, Entry] | None = None
            chosen_cache = _Cached(0)
            subject = Subject(request)
            for name, ver, count in spaces:
                if not count:
                    continue
                cached = yield from self._fresh(name, ver)
                found = _answering(cached, request, subject, misses)
                if found is not None:
                    chosen, chosen_cache = (name, *found), cached
                    break
            if chosen is None:
                return Outcome(None, misses, strict)
            name, entry_id, entry = chosen
            if not serve or (accept is not None and not accept(entry)):
                return Outcome(entry if not serve else None, misses, strict)
            known = chosen_cache.known if entry.match.empty else 0  # a plain entry may be served in another's place
            served, got = yield ("consume", [PREFIX, name, SHARED, entry_id, known])
            if int(served) != -1:
                return Outcome(chosen_cache.entries.get(int(got), entry), misses, strict)
            with self._lock:  # another process served it first: choose again on a fresh snapshot (the specs
                stale = self._cache.get(name)  # parsed already are kept: only new ones are fetched)
                if stale is not None:
                    stale.ver = -1
        raise self.link.unavailable(RuntimeError(f"no entry could be served after {MAX_ATTEMPTS} races"))


def _parse(entry_id: int, text: bytes | str) -> Entry:
    """An entry as stored ("<index> <JSON spec>"), parsed as when it was added."""
    raw = text.encode() if isinstance(text, str) else text
    index, _, spec = raw.partition(b" ")
    entry = parse_entry(orjson.loads(spec))
    entry.index = int(index)
    return entry


def _answering(cached: _Cached, request: GenerateRequest, subject: Subject, misses: Misses) -> tuple[int, Entry] | None:
    """ScriptStore._answering over one namespace's cached entries: the first matched entry whose matcher holds,
    else the first plain one."""
    entries = [(i, cached.entries[i]) for i in cached.ids if i in cached.entries]
    for entry_id, entry in entries:
        if entry.match.empty:
            continue
        why = entry.match.failures(request, subject)
        if not why:
            return entry_id, entry
        misses.append((entry.name, why))
    for entry_id, entry in entries:
        if entry.match.empty:
            return entry_id, entry
    return None
