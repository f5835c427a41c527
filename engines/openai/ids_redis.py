"""The openai engine's tool-call ids on Redis (`--store redis://...`; engines/openai/ids.py says what they map):
a function-call turn answered through one process keeps the upstream's ids when the conversation's next request
reaches another, which matters for upstreams that accept only ids of their own form (Mistral's nine characters,
some vLLM tool parsers).

Keys (P is seam.state.KEY_PREFIX + "oi:"): `P t:K` a turn's ids (JSON), K its digest (ids.turn_key: a sha256 over
the caller's namespace, already a salted hash, and the conversation; no key, no text), with a TTL of TTL_S;
`P z` every turn by when it was written, so past CAP turns the oldest are dropped (as the memory store's
DEFAULT_CAP). Round trips: a request whose history holds function-call turns 1 (MGET of their ids), an answer
with calls 1 (REMEMBER, one Lua call); other requests none.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import orjson

from gemini_emulator.engines.openai.ids import DEFAULT_CAP
from gemini_emulator.seam.state import KEY_PREFIX, RedisLink, failures

PREFIX = KEY_PREFIX + "oi:"
TTL_S = 24 * 3600  # a conversation's turn is kept this long after it was answered
MAX_KEYS = 512  # turns asked in one MGET at most (a longer history's oldest turns keep their echoed ids)

# ARGV P now ttl cap n key1 ids1 ... -> 1
REMEMBER = """
local P, now, ttl, cap, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 1, n do
  local key = ARGV[4 + 2 * i]
  redis.call('SET', P .. 't:' .. key, ARGV[5 + 2 * i], 'EX', ttl)
  redis.call('ZADD', P .. 'z', now, key)
end
redis.call('ZREMRANGEBYSCORE', P .. 'z', '-inf', now - ttl * 1000)
local over = redis.call('ZCARD', P .. 'z') - cap
if over > 0 then
  for _, key in ipairs(redis.call('ZRANGE', P .. 'z', 0, over - 1)) do redis.call('DEL', P .. 't:' .. key) end
  redis.call('ZREMRANGEBYRANK', P .. 'z', 0, over - 1)
end
return 1
"""


class RedisCallIds:
    """Every process's function-call turns in one Redis (module docstring). Coroutines on redis.asyncio; a Redis
    that cannot be reached is the 503 (seam.state.RedisLink)."""

    def __init__(self, link: RedisLink, cap: int = DEFAULT_CAP) -> None:
        self.link = link
        self.cap = cap
        self._client: Any = None
        self._remember: Any = None

    async def recall_many(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """The ids of the turns named (the latest MAX_KEYS of them) that some process answered."""
        asked = list(dict.fromkeys(keys))[-MAX_KEYS:]
        if not asked:
            return {}
        try:
            values = await self.link.aio.mget([PREFIX + "t:" + key for key in asked])
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        found: dict[str, list[str]] = {}
        for key, value in zip(asked, values, strict=True):
            if value is not None:
                ids = orjson.loads(value)
                if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
                    found[key] = ids
        return found

    async def remember_many(self, turns: dict[str, list[str]]) -> None:
        """Keep the turns' ids for every process (one Lua call)."""
        if not turns:
            return
        args: list[Any] = [PREFIX, int(time.time() * 1000), TTL_S, self.cap, len(turns)]
        for key, ids in turns.items():
            args += [key, orjson.dumps(ids)]
        try:
            client = self.link.aio
            if client is not self._client:
                self._remember, self._client = client.register_script(REMEMBER), client
            await self._remember(keys=[], args=args)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
