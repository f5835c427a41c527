"""The replay engine's conversation progress on Redis (`--store redis://...`): which exchange of each capture comes
next for a caller, and which exchanges it was already served, shared by every process, so a recorded conversation
whose turns reach different processes plays in order (engines/replay.py `Replayer`, whose in-memory twin is
`_Played`; the same choice, made in one Lua call: atomic across processes).

Keys (P is seam.state.KEY_PREFIX + "rp:", N a namespace):
  P c:N    hash capture name -> the index of its next exchange (the cursor)
  P s:N    set of the exchanges served, "capture#index"
  P names  sorted set of the namespaces, scored by last use: past MAX_NAMESPACES the idlest is forgotten

Bounds: a namespace's keys hold at most one field per capture and one member per recorded exchange (the captures
directory bounds both); at most MAX_CANDIDATES equally good matches are offered to one choice (the first, in the
captures' order); MAX_NAMESPACES namespaces. Round trips: a replayed request 1 (CHOOSE), a reset 1 per namespace;
`holds` (does a recording answer this?) none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gemini_emulator.seam.state import KEY_PREFIX, RedisLink, failures

PREFIX = KEY_PREFIX + "rp:"
MAX_NAMESPACES = 10_000
MAX_CANDIDATES = 1_000

# ARGV: P ns maxns, then (capture, index) per candidate, best first. The candidate chosen (1-based): the next
# exchange of a capture under way, else the first not served yet, else the first; its cursor and served set moved.
CHOOSE = """
local P, ns, maxns = ARGV[1], ARGV[2], tonumber(ARGV[3])
local c, s, names = P .. 'c:' .. ns, P .. 's:' .. ns, P .. 'names'
if not redis.call('ZSCORE', names, ns) and redis.call('ZCARD', names) >= maxns then
  local idlest = redis.call('ZRANGE', names, 0, 0)[1]
  redis.call('DEL', P .. 'c:' .. idlest, P .. 's:' .. idlest)
  redis.call('ZREM', names, idlest)
end
local now = redis.call('TIME')
redis.call('ZADD', names, now[1] + now[2] / 1000000, ns)
local n = (#ARGV - 3) / 2
local chosen = 0
for i = 1, n do
  if tonumber(redis.call('HGET', c, ARGV[2 + 2 * i]) or '0') == tonumber(ARGV[3 + 2 * i]) then
    chosen = i
    break
  end
end
if chosen == 0 then
  for i = 1, n do
    if redis.call('SISMEMBER', s, ARGV[2 + 2 * i] .. '#' .. ARGV[3 + 2 * i]) == 0 then
      chosen = i
      break
    end
  end
end
if chosen == 0 then chosen = 1 end
local capture, index = ARGV[2 + 2 * chosen], tonumber(ARGV[3 + 2 * chosen])
if index + 1 > tonumber(redis.call('HGET', c, capture) or '0') then redis.call('HSET', c, capture, index + 1) end
redis.call('SADD', s, capture .. '#' .. index)
return chosen
"""

RESET = """
local P, ns = ARGV[1], ARGV[2]
redis.call('DEL', P .. 'c:' .. ns, P .. 's:' .. ns)
redis.call('ZREM', P .. 'names', ns)
return 1
"""


class RedisReplayProgress:
    """Every caller's conversation progress in one Redis (module docstring). `choose` is the request path's (on
    redis.asyncio); `reset` the admin API's (the sync client, which the admin API calls in a worker thread on this
    store). A Redis that cannot be reached is the 503 (seam.state.RedisLink)."""

    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self._aio: Any = None
        self._aio_client: Any = None
        self._sync: dict[str, Any] = {}

    async def choose(self, namespace: str, candidates: Sequence[tuple[str, int]]) -> int:
        """The position in `candidates` (capture name, exchange index; best first) of the exchange to serve; the
        caller's conversation moves on in the same Lua call."""
        offered = candidates[:MAX_CANDIDATES]
        args: list[Any] = [PREFIX, namespace, MAX_NAMESPACES]
        for capture, index in offered:
            args += [capture, index]
        try:
            client = self.link.aio
            if client is not self._aio_client:
                self._aio = client.register_script(CHOOSE)
                self._aio_client = client
            chosen = await self._aio(keys=[], args=args)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return int(chosen) - 1

    def reset(self, namespace: str | None = None) -> None:
        """Forget the progress of one namespace, or of all."""
        try:
            if not self._sync:
                self._sync = {"reset": self.link.sync.register_script(RESET)}
            if namespace is not None:
                self._sync["reset"](keys=[], args=[PREFIX, namespace])
                return
            cursor = 0
            for _ in range(10_000):
                cursor, keys = self.link.sync.scan(cursor, match=PREFIX + "*", count=1000)
                if keys:
                    self.link.sync.delete(*keys)
                if int(cursor) == 0:
                    break
        except failures() as exc:
            raise self.link.unavailable(exc) from None
