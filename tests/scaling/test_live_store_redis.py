"""The Redis token and handle store's own contract (stores/live_redis.py), on a real redis-server: two stores on
one Redis stand for two processes. A token's uses are spent exactly once each under a race across both; its
newSessionExpireTime and expireTime hold (a resumption spends nothing); a caller's oldest tokens go past the bound;
a token's name is written nowhere in Redis; a handle saved through one resumes through the other; a Redis that
cannot be reached is the 503."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, RedisLink
from gemini_emulator.stores import live_redis
from gemini_emulator.stores.live_redis import RedisLiveShared

from redis_env import RedisServer


def _stores(url: str, count: int = 2) -> list[RedisLiveShared]:
    return [RedisLiveShared(RedisLink(url)) for _ in range(count)]


def test_uses_are_spent_once_each_under_a_race(redis_url: str) -> None:
    a, b = _stores(redis_url)

    async def run() -> list[str]:
        now = time.time()
        token = await a.mint("n", 3, now + 60, now + 60, {"model": "m"}, "model")
        seen = await b.token(token.name)
        assert seen is not None and seen.namespace == "n" and seen.constraints == {"model": "m"}
        assert seen.field_mask == "model" and seen.uses == 3
        spent = await asyncio.gather(*((a, b)[i % 2].spend(token.name) for i in range(10)))
        assert sorted(t.uses for why, t in spent if t is not None) == [0, 1, 2]
        assert (await a.spend(token.name, resuming=True))[0] == ""  # a resumption is no use
        return [why for why, _ in spent]

    refusals = asyncio.run(run())
    assert refusals.count("") == 3 and refusals.count("used") == 7


def test_expiry_times_hold(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1)

    async def run() -> None:
        now = time.time()
        late = await store.mint("n", 5, now + 60, now - 1, None)  # no new session, resumptions still
        assert await store.spend(late.name) == ("expired", None)
        assert (await store.spend(late.name, resuming=True))[0] == ""
        gone = await store.mint("n", 5, now - 1, now - 1, None)
        assert await store.spend(gone.name, resuming=True) == ("expired", None)  # still known: refused as expired
        assert await store.spend("auth_tokens/never") == ("unknown", None)
        odd = "x y:z"  # an explicit namespace may hold any character: its expired token is still swept
        await store.mint(odd, 1, time.time() - 1, time.time() - 1, None)
        await store.mint("n", 1, time.time() + 60, time.time() + 60, None)  # a mint sweeps what expired
        assert store.held(odd) == 0

    asyncio.run(run())


def test_the_oldest_tokens_go_and_no_name_reaches_redis(
    redis_url: str, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_redis, "MAX_TOKENS", 3)
    (store,) = _stores(redis_url, 1)

    async def run() -> list[str]:
        now = time.time()
        return [(await store.mint("n", 1, now + 60, now + 60, {"x": "y" * 100})).name for _ in range(5)]

    names = asyncio.run(run())
    assert [t.name for t in store.tokens("n")] == [n[:20] for n in names[2:]]
    assert store.held("n") == store.held() == 3 * (len(b'{"x":"' + b"y" * 100 + b'"}') + 256)
    client = redis_server.client()
    dump = b"".join(k + repr(client.dump(k)).encode() for k in client.keys(KEY_PREFIX + "*"))
    assert not any(n.encode() in dump or n[12:].encode() in dump for n in names)  # the secret part nowhere
    assert store.forget("n", names[4]) and not store.forget("other", names[3])
    assert len(store.tokens("n")) == 2
    store.reset("n")
    assert store.tokens() == [] and store.held() == 0


def test_a_handle_saved_on_one_store_resumes_on_another(redis_url: str) -> None:
    a, b = _stores(redis_url)

    async def run() -> None:
        handle = await a.save("n", {"model": "m"}, [{"role": "user", "parts": [{"text": "hi"}]}])
        saved = await b.resume("n", handle)
        assert saved is not None and saved.setup == {"model": "m"} and saved.contents[0]["parts"][0]["text"] == "hi"
        assert await b.resume("other", handle) is None
        assert [h for _, h, _ in b.handles("n")] == [handle]

    asyncio.run(run())


def test_an_unreachable_redis_is_the_503(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    url = redis.url
    redis.stop()
    (store,) = _stores(url, 1)

    async def run() -> None:
        for call in (store.mint("n", 1, time.time() + 9, time.time() + 9, None), store.spend("auth_tokens/x")):
            with pytest.raises(errors.ApiError) as caught:
                await call
            assert caught.value.code == 503

    asyncio.run(run())
