"""The models added at run time (`PUT /__emulator/models`) on Redis (`--store redis://...`): set through one
process, served by all.

The entries are kept as their JSON under a version; each process keeps the catalogue it built from the version it
read last (wire/handlers.Context.refresh_models), as the script store keeps parsed entries by version. No request
pays a round trip to learn of a change by itself:

- a request naming a model this process's catalogue does not hold asks once before refusing it (an added model is
  served at once, by every process);
- the journal's group commit, which every journaled request on Redis awaits anyway, returns the version with the
  record ids (admin/journal_redis.py APPEND reads MODELS_VERSION in the same Lua call; seam.state.RedisLink
  passes it on): a process that sees another version fetches the entries in the background, so a change to a
  model it already serves (an override of a catalogue id, a removal) holds from its next requests;
- the models list and get (Developer, Vertex, OpenAI-compatible) and the admin API's GET ask each time.

Keys (P is seam.state.KEY_PREFIX + "models:"): `P v` the version (INCR per change), `P entries` the entries'
JSON. Round trips: a change 1 (one Lua call: the entries and the version together); a fetch 1 (the entries only
when the version is not the caller's). Bounded: catalogue.MAX_USER_MODELS entries, checked before they are sent.
"""

from __future__ import annotations

from typing import Any

import orjson

from gemini_emulator.seam.state import MODELS_VERSION, RedisLink, failures

ENTRIES = MODELS_VERSION.removesuffix("v") + "entries"

# ARGV version-key entries-key entries-json -> the new version
PUT = """
local v = redis.call('INCR', ARGV[1])
redis.call('SET', ARGV[2], ARGV[3])
return v
"""

# ARGV version-key entries-key known -> {version} when it is `known`, else {version, entries or ''}
FETCH = """
local v = redis.call('GET', ARGV[1]) or '0'
if v == ARGV[3] then return {v} end
return {v, redis.call('GET', ARGV[2]) or ''}
"""


class SharedModels:
    """The admin API's models in one Redis (module docstring). Coroutines on redis.asyncio; a Redis that cannot be
    reached is the 503 (seam.state.RedisLink)."""

    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self._client: Any = None
        self._scripts: dict[str, Any] = {}

    async def _call(self, name: str, args: list[Any]) -> Any:
        try:
            client = self.link.aio
            if client is not self._client:
                self._scripts = {"put": client.register_script(PUT), "fetch": client.register_script(FETCH)}
                self._client = client
            result = await self._scripts[name](keys=[], args=args)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result

    async def put(self, entries: list[Any]) -> int:
        """Store `entries` (checked already) as every process's; the new version."""
        return int(await self._call("put", [MODELS_VERSION, ENTRIES, orjson.dumps(entries)]))

    def fetch_sync(self, known: int) -> tuple[int, list[Any] | None]:
        """`fetch` through the sync client (a process starting, before it serves)."""
        try:
            reply = self.link.sync.register_script(FETCH)(args=[MODELS_VERSION, ENTRIES, str(known)])
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return _fetched(reply)

    async def fetch(self, known: int) -> tuple[int, list[Any] | None]:
        """The version and, when it is not `known`, the entries (None: unchanged)."""
        return _fetched(await self._call("fetch", [MODELS_VERSION, ENTRIES, str(known)]))


def _fetched(reply: Any) -> tuple[int, list[Any] | None]:
    version = int(reply[0])
    if len(reply) < 2:
        return version, None
    text = reply[1]
    return version, orjson.loads(text) if text else []
