"""Ephemeral tokens and Live resumption handles on Redis (`--store redis://...`): a token minted through one
process starts sessions on any other, its uses, expireTime and newSessionExpireTime held across all of them; a
handle saved by a session on one process resumes on another. Open Live sessions themselves (and their count
against the session limits) stay in the process holding the socket (stores/live.py's LiveStore), as issue 34 says.

The rules are LiveStore's: a mint drops the caller's oldest tokens past MAX_TOKENS or
MAX_TOKEN_BYTES_PER_NAMESPACE and is refused (TokensFull) past MAX_TOKEN_BYTES over everyone, those bytes counted in
Redis; a session start spends a use unless it resumes, after newSessionExpireTime none starts, after expireTime
none may send (the room checks that per message against the expireTime it read when the session began: a
token's times never change, so a message costs no round trip); handles expire RESUMPTION_TTL_S after they are
saved, at most MAX_HANDLES per caller (the oldest forgotten). Times are the wall clock (`time.time`). Every
check-and-change is one Lua call: two processes never both spend a token's last use.

A token's name is a credential, so no key holds it: a token is keyed by the SHA-256 of its name (T below), and
keeps only the name's first 20 characters, as the admin API shows them. An expired token is kept (refused as
expired, as in memory) until a mint's sweep, at most SWEEP a call over every caller, or its Redis TTL
(GRACE_S past its expireTime) forgets it; its bytes are given back by the sweep.

Keys (P is seam.state.KEY_PREFIX + "t:", N a namespace):
  P k:T      hash: the token (ns uses exp nexp setup mask size shown), with a TTL
  P z:N      sorted set of the caller's token ids by mint order (P seq)     P s:N  hash T -> size
  P x        sorted set of "N T" over every caller, by expireTime in ms: the sweep's
  P bytes    hash N -> bytes held      P total  bytes held by everyone
  P h:N:H    a resumption handle's saved state (JSON), with its TTL        P hz:N  the caller's handles, oldest first

Round trips: mint 1, a session's start 2 (the token read for its namespace, then the spend), resuming 1 more,
each saved handle 1 (after a turn of a session that asked for resumption).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Sequence
from typing import Any

import orjson

from gemini_emulator.seam.state import KEY_PREFIX, LuaScripts, RedisLink, failures
from gemini_emulator.seam.state import reply_text as _text
from gemini_emulator.stores.live import (
    MAX_HANDLES,
    MAX_TOKEN_BYTES,
    MAX_TOKEN_BYTES_PER_NAMESPACE,
    MAX_TOKENS,
    RESUMPTION_TTL_S,
    TOKEN_OVERHEAD,
    Saved,
    Token,
    TokensFull,
    new_token_name,
)

PREFIX = KEY_PREFIX + "t:"
SWEEP = 200  # expired tokens forgotten per mint, at most
GRACE_S = 3600  # an expired token's hash outlives its expireTime by this (refused as expired meanwhile)
_TOKEN = ("ns", "uses", "exp", "nexp", "setup", "mask", "shown")

_COMMON = """
local function forget(P, ns, id)
  local size = tonumber(redis.call('HGET', P .. 's:' .. ns, id) or '0')
  redis.call('DEL', P .. 'k:' .. id)
  redis.call('ZREM', P .. 'z:' .. ns, id)
  redis.call('HDEL', P .. 's:' .. ns, id)
  redis.call('ZREM', P .. 'x', ns .. ' ' .. id)
  if size ~= 0 then
    redis.call('HINCRBY', P .. 'bytes', ns, -size)
    redis.call('INCRBY', P .. 'total', -size)
  end
end
"""

MINT = (
    _COMMON
    + """
local P, ns, id, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local exp, size = tonumber(ARGV[5]), tonumber(ARGV[9])
local maxn, maxns, maxall, limit = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local due = redis.call('ZRANGEBYSCORE', P .. 'x', '-inf', math.floor(now * 1000), 'LIMIT', 0, limit)
for _, member in ipairs(due) do
  local other, oid = string.sub(member, 1, -42), string.sub(member, -40)  -- "N T", T 40 hex digits
  local e = redis.call('HGET', P .. 'k:' .. oid, 'exp')
  if not e or now > tonumber(e) then forget(P, other, oid) end
end
local z = P .. 'z:' .. ns
for _ = 1, maxn + 1 do
  local count = redis.call('ZCARD', z)
  local used = tonumber(redis.call('HGET', P .. 'bytes', ns) or '0')
  if count == 0 or (count < maxn and used + size <= maxns) then break end
  forget(P, ns, redis.call('ZRANGE', z, 0, 0)[1])
end
local total = tonumber(redis.call('GET', P .. 'total') or '0')
if total + size > maxall then return 0 end
local k = P .. 'k:' .. id
redis.call('HSET', k, 'ns', ns, 'uses', ARGV[8], 'exp', ARGV[5], 'nexp', ARGV[6], 'setup', ARGV[7],
  'mask', ARGV[14], 'size', size, 'shown', ARGV[15])
redis.call('PEXPIREAT', k, math.floor((math.max(exp, now) + tonumber(ARGV[16])) * 1000))
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), id)
redis.call('HSET', P .. 's:' .. ns, id, size)
redis.call('ZADD', P .. 'x', math.floor(exp * 1000), ns .. ' ' .. id)
redis.call('HINCRBY', P .. 'bytes', ns, size)
redis.call('INCRBY', P .. 'total', size)
return 1
"""
)

READ = """
return redis.call('HMGET', KEYS[1], 'ns', 'uses', 'exp', 'nexp', 'setup', 'mask', 'shown')
"""

# {refusal} or {'', the token's fields after the spend}
SPEND = """
local k, now, resuming = KEYS[1], tonumber(ARGV[1]), ARGV[2] == '1'
local f = redis.call('HMGET', k, 'ns', 'uses', 'exp', 'nexp', 'setup', 'mask', 'shown')
if not f[1] then return {'unknown'} end
if now > tonumber(f[3]) or (not resuming and now > tonumber(f[4])) then return {'expired'} end
if not resuming then
  if tonumber(f[2]) <= 0 then return {'used'} end
  f[2] = tostring(redis.call('HINCRBY', k, 'uses', -1))
end
return {'', f}
"""

SAVE = """
local P, ns, handle, state, ttl, maxh = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('SET', P .. 'h:' .. ns .. ':' .. handle, state, 'EX', ttl)
local z = P .. 'hz:' .. ns
redis.call('ZADD', z, redis.call('INCR', P .. 'seq'), handle)
redis.call('EXPIRE', z, ttl)
for _ = 1, 100 do
  if redis.call('ZCARD', z) <= maxh then break end
  local oldest = redis.call('ZRANGE', z, 0, 0)[1]
  redis.call('DEL', P .. 'h:' .. ns .. ':' .. oldest)
  redis.call('ZREM', z, oldest)
end
return 1
"""

FORGET = (
    _COMMON
    + """
local P, ns, name, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('ZREM', P .. 'hz:' .. ns, name) == 1 then
  return redis.call('DEL', P .. 'h:' .. ns .. ':' .. name)
end
if redis.call('HGET', P .. 'k:' .. id, 'ns') ~= ns then return 0 end
forget(P, ns, id)
return 1
"""
)

RESET = (
    _COMMON
    + """
local P, ns = ARGV[1], ARGV[2]
for _, id in ipairs(redis.call('ZRANGE', P .. 'z:' .. ns, 0, -1)) do forget(P, ns, id) end
for _, handle in ipairs(redis.call('ZRANGE', P .. 'hz:' .. ns, 0, -1)) do
  redis.call('DEL', P .. 'h:' .. ns .. ':' .. handle)
end
redis.call('DEL', P .. 'z:' .. ns, P .. 's:' .. ns, P .. 'hz:' .. ns)
return 1
"""
)

SCRIPTS = {"mint": MINT, "read": READ, "spend": SPEND, "save": SAVE, "forget": FORGET, "reset": RESET}


def token_id(name: str) -> str:
    """The key part standing for a token: its name is a credential, never written to Redis."""
    return hashlib.sha256(name.encode()).hexdigest()[:40]


def _token(name: str, row: Sequence[Any]) -> Token:
    """A Token from a READ/SPEND row (`name`: the full name when the caller has it, else the shown part)."""
    ns, uses, exp, nexp, setup, mask, shown = row
    return Token(
        name=name or _text(shown),
        namespace=_text(ns),
        uses=int(uses),
        expire_time=float(exp),
        new_session_expire_time=float(nexp),
        locked_setup=bytes(setup or b""),
        field_mask=_text(mask or b""),
    )


class RedisLiveShared:
    """Every caller's ephemeral tokens and resumption handles in one Redis (module docstring: rules, keys, round
    trips). The request path's calls are coroutines; `tokens`, `handles`, `forget`, `reset` and `counts` (the
    admin API's, off the event loop) use the sync client. A Redis that cannot be reached is the 503."""

    def __init__(self, link: RedisLink, replica: str = "") -> None:
        self.link = link
        self.replica = replica  # names the tokens minted here (stores/live.py new_token_name)
        self._lua = LuaScripts(link, SCRIPTS)  # its Lua calls (seam.state)

    async def _call(self, script: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        return await self._lua.call(script, args, keys)

    def _call_sync(self, script: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        return self._lua.call_sync(script, args, keys)

    # --- the request path --------------------------------------------------------------------------------
    async def mint(
        self,
        namespace: str,
        uses: int,
        expire_time: float,
        new_session_expire_time: float,
        constraints: dict[str, Any] | None,
        field_mask: str = "",
    ) -> Token:
        """A new token (LiveStore.mint); TokensFull past the bound over everyone."""
        token = Token(
            name=new_token_name(self.replica),
            namespace=namespace,
            uses=uses,
            expire_time=expire_time,
            new_session_expire_time=new_session_expire_time,
            locked_setup=orjson.dumps(constraints) if constraints is not None else b"",
            field_mask=field_mask,
        )
        if token.size > MAX_TOKEN_BYTES_PER_NAMESPACE:
            raise TokensFull(
                f"a token's setup may take at most {MAX_TOKEN_BYTES_PER_NAMESPACE - TOKEN_OVERHEAD} bytes of JSON"
            )
        args: list[Any] = [PREFIX, namespace, token_id(token.name), repr(time.time()), repr(expire_time)]
        args += [repr(new_session_expire_time), token.locked_setup, uses, token.size, MAX_TOKENS]
        args += [MAX_TOKEN_BYTES_PER_NAMESPACE, MAX_TOKEN_BYTES, SWEEP, field_mask, token.name[:20], GRACE_S]
        if not await self._call("mint", args):
            raise TokensFull(f"the emulator's ephemeral tokens would take more than {MAX_TOKEN_BYTES} bytes")
        return token

    async def token(self, name: str) -> Token | None:
        row = await self._call("read", [], [PREFIX + "k:" + token_id(name)])
        return _token(name, row) if row and row[0] is not None else None

    async def spend(self, name: str, resuming: bool = False) -> tuple[str, Token | None]:
        """LiveStore.spend, with the token as it is after it: ("", token) when it may start, else (why, None)."""
        args = [repr(time.time()), "1" if resuming else "0"]
        reply = await self._call("spend", args, [PREFIX + "k:" + token_id(name)])
        refusal = _text(reply[0])
        return (refusal, None) if refusal else ("", _token(name, reply[1]))

    async def save(self, namespace: str, setup: dict[str, Any], contents: list[dict[str, Any]]) -> str:
        handle = "live-" + secrets.token_hex(16)
        state = orjson.dumps({"setup": setup, "contents": contents})
        await self._call("save", [PREFIX, namespace, handle, state, RESUMPTION_TTL_S, MAX_HANDLES])
        return handle

    async def resume(self, namespace: str, handle: str) -> Saved | None:
        try:
            held = await self.link.aio.get(f"{PREFIX}h:{namespace}:{handle}")
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if held is None:
            return None
        state = orjson.loads(held)
        return Saved(state["setup"], state["contents"])

    # --- the admin API (sync) ----------------------------------------------------------------------------
    def _spaces(self, pattern: str, cut: int) -> list[str]:
        found: set[str] = set()
        cursor = 0
        for _ in range(10_000):
            cursor, keys = self.link.command("scan", cursor, PREFIX + pattern, 1000)
            found.update(_text(k)[len(PREFIX) + cut :] for k in keys)
            if int(cursor) == 0:
                break
        return sorted(found)

    def tokens(self, namespace: str | None = None) -> list[Token]:
        """The tokens held (named by their first 20 characters only: the rest is never stored)."""
        out = []
        for space in [namespace] if namespace is not None else self._spaces("z:*", 2):
            for raw in self.link.command("zrange", PREFIX + "z:" + space, 0, MAX_TOKENS):
                row = self.link.command("hmget", PREFIX + "k:" + _text(raw), *_TOKEN)
                if row and row[0] is not None:
                    out.append(_token("", row))
        return out

    def handles(self, namespace: str | None = None) -> list[tuple[str, str, Saved]]:
        out = []
        for space in [namespace] if namespace is not None else self._spaces("hz:*", 3):
            for raw in self.link.command("zrange", PREFIX + "hz:" + space, 0, MAX_HANDLES):
                handle = _text(raw)
                held = self.link.command("get", f"{PREFIX}h:{space}:{handle}")
                if held is not None:
                    state = orjson.loads(held)
                    out.append((space, handle, Saved(state["setup"], state["contents"])))
        return out

    def forget(self, namespace: str, name: str) -> bool:
        return bool(self._call_sync("forget", [PREFIX, namespace, name, token_id(name)]))

    def reset(self, namespace: str | None = None) -> None:
        spaces = {namespace} if namespace is not None else {*self._spaces("z:*", 2), *self._spaces("hz:*", 3)}
        for space in spaces:
            self._call_sync("reset", [PREFIX, space])

    def held(self, namespace: str | None = None) -> int:
        """Bytes the tokens hold, a caller's or everyone's (as Redis counts them)."""
        if namespace:
            return int(self.link.command("hget", PREFIX + "bytes", namespace) or 0)
        return int(self.link.command("get", PREFIX + "total") or 0)
