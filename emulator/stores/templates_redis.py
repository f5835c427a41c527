"""Server prompt templates on Redis (`--store redis://...`): a namespace's templates set through the admin API of
one process are served by every process (stores/templates.py's TemplateStore is the in-memory twin).

Each namespace's templates are kept as the sources they were set from (JSON, one hash field each) with a version
grown by every change; a process parses a source once per version (`_parsed`, at most CACHE entries, the oldest
forgotten) and serves the parsed template from then on. A call's look-up is one Lua call (the caller's template,
else the shared set's, with its version). Bounds as in memory: MAX_TEMPLATES per namespace and
MAX_TEMPLATE_BYTES a template (checked by `parse` before anything is sent), MAX_NAMESPACES namespaces (past it the
one set longest ago is forgotten, in the same call that sets another).

Keys (P is seam.state.KEY_PREFIX + "t:", N a namespace): `P h:N` hash id -> source JSON, `P o:N` the ids in the
order they were set, `P v:N` the version, `P z` sorted set of the namespaces by when they were set (`P seq`).

Round trips: a template call 1 (`find`); the admin API's set, clear, remove and reset 1 each, its listings 1 per
namespace (the sync client, as the batches' admin view).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from gemini_emulator.seam import SHARED
from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.templates import MAX_NAMESPACES, MAX_TEMPLATES, Template, parse

PREFIX = KEY_PREFIX + "t:"
CACHE = 4096  # parsed templates kept per process

# ARGV: P ns maxns, then (id, source) pairs in the order given (none: the namespace's templates forgotten).
SET = """
local P, ns, maxns = ARGV[1], ARGV[2], tonumber(ARGV[3])
redis.call('DEL', P .. 'h:' .. ns, P .. 'o:' .. ns)
redis.call('INCR', P .. 'v:' .. ns)
if #ARGV < 4 then
  redis.call('ZREM', P .. 'z', ns)
  return 0
end
for i = 4, #ARGV, 2 do
  redis.call('HSET', P .. 'h:' .. ns, ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', P .. 'o:' .. ns, ARGV[i])
end
redis.call('ZADD', P .. 'z', redis.call('INCR', P .. 'seq'), ns)
local guard = 0
while redis.call('ZCARD', P .. 'z') > maxns and guard < 100 do
  guard = guard + 1
  local oldest = redis.call('ZRANGE', P .. 'z', 0, 0)[1]
  redis.call('DEL', P .. 'h:' .. oldest, P .. 'o:' .. oldest)
  redis.call('INCR', P .. 'v:' .. oldest)
  redis.call('ZREM', P .. 'z', oldest)
end
return 1
"""

# ARGV: P ns shared id. {namespace found in, version, source} or {}.
FIND = """
local P, ns, shared, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local source = redis.call('HGET', P .. 'h:' .. ns, id)
if source then return {ns, redis.call('GET', P .. 'v:' .. ns) or '0', source} end
if ns ~= shared then
  source = redis.call('HGET', P .. 'h:' .. shared, id)
  if source then return {shared, redis.call('GET', P .. 'v:' .. shared) or '0', source} end
end
return {}
"""

REMOVE = """
local P, ns, id = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HDEL', P .. 'h:' .. ns, id) == 0 then return 0 end
redis.call('LREM', P .. 'o:' .. ns, 1, id)
redis.call('INCR', P .. 'v:' .. ns)
if redis.call('EXISTS', P .. 'h:' .. ns) == 0 then redis.call('ZREM', P .. 'z', ns) end
return 1
"""

# The namespace's version and its sources in the order they were set.
LISTED = """
local P, ns = ARGV[1], ARGV[2]
local ids = redis.call('LRANGE', P .. 'o:' .. ns, 0, -1)
local sources = {}
if #ids > 0 then sources = redis.call('HMGET', P .. 'h:' .. ns, unpack(ids)) end
return {redis.call('GET', P .. 'v:' .. ns) or '0', sources}
"""

SCRIPTS = {"set": SET, "find": FIND, "remove": REMOVE, "listed": LISTED}


class RedisTemplateStore:
    """Templates by namespace on Redis (module docstring); `find` looks in the caller's, then in SHARED's."""

    remote = True

    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self._parsed: OrderedDict[tuple[str, str, str], Template] = OrderedDict()
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    def _call_sync(self, script: str, *args: Any) -> Any:
        return self._lua.call_sync(script, [PREFIX, *args])

    def _template(self, namespace: str, version: str, source: bytes) -> Template:
        """The parsed template of `source` (as it was set at `version`), parsed once per process."""
        entry = orjson.loads(source)
        key = (namespace, version, str(entry.get("id", "")))
        found = self._parsed.get(key)
        if found is None:
            found = parse(entry)
            self._parsed[key] = found
            while len(self._parsed) > CACHE:
                self._parsed.popitem(last=False)
        return found

    # --- the request path --------------------------------------------------------------------------------
    async def find(self, namespace: str, template_id: str) -> Template | None:
        reply = await self._lua.call("find", [PREFIX, namespace, SHARED, template_id])
        if not reply:
            return None
        return self._template(_text(reply[0]), _text(reply[1]), bytes(reply[2]))

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def set(self, namespace: str, entries: Any) -> list[Template]:
        """As TemplateStore.set: every template parsed (ValueError, nothing changed), then kept in one call."""
        if isinstance(entries, dict) and entries.keys() == {"templates"}:
            entries = entries["templates"]
        elif isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise ValueError('expected a list of templates, one template, or {"templates": [...]}')
        if len(entries) > MAX_TEMPLATES:
            raise ValueError(f"{len(entries)} templates, more than the {MAX_TEMPLATES} a namespace may hold")
        parsed: dict[str, Template] = {}
        for entry in entries:
            template = parse(entry)
            if template.id in parsed:
                raise ValueError(f"template {template.id}: given twice")
            parsed[template.id] = template
        pairs = [item for t in parsed.values() for item in (t.id, orjson.dumps(t.source))]
        self._call_sync("set", namespace, MAX_NAMESPACES, *pairs)
        return list(parsed.values())

    def listed(self, namespace: str) -> list[Template]:
        version, sources = self._call_sync("listed", namespace)
        return [self._template(namespace, _text(version), bytes(source)) for source in sources if source is not None]

    def namespaces(self) -> list[str]:
        return [_text(n) for n in self.link.command("zrange", PREFIX + "z", 0, -1)]

    def remove(self, namespace: str, template_id: str) -> bool:
        return bool(self._call_sync("remove", namespace, template_id))

    def reset(self, namespace: str | None = None) -> None:
        """Forget a namespace's templates, or every namespace's but the shared (start-up) set."""
        for space in self.namespaces() if namespace is None else [namespace]:
            if space != SHARED:
                self._call_sync("set", space, MAX_NAMESPACES)
