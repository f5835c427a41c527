"""The Redis cache store's own contract (stores/caches_redis.py), on a real redis-server: two stores on one Redis
stand for two processes. An entry made through one is read, patched and deleted through the other; the count and
byte bounds are counted in Redis across both, exactly at the edge under a race; an expired entry is gone to the
nanosecond and its bytes given back by the sweep (its hash dropped by Redis's own TTL); every call is one round
trip; a Redis that cannot be reached is the 503."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores.caches import CachedContent, CacheFull
from gemini_emulator.stores.caches_redis import PREFIX, RedisCacheStore

from redis_env import RedisServer

HOUR = 3600 * 10**9


def _entry(size: int = 20, parent: str = "") -> CachedContent:
    members = b'{"contents":[' + b"1" * max(0, size - 15) + b"]}"
    return CachedContent(
        model="models/gemini-2.5-flash",
        served_model="gemini-2.5-flash",
        members=members,
        display_name="d",
        tokens_text=1500,
        size=len(members),
        parent=parent,
    )


def _stores(url: str, count: int = 2, **kw: Any) -> list[RedisCacheStore]:
    return [RedisCacheStore(RedisLink(url), **kw) for _ in range(count)]


def test_an_entry_made_on_one_store_is_read_patched_and_deleted_on_another(redis_url: str) -> None:
    a, b = _stores(redis_url)

    async def run() -> None:
        made = await a.create("n", _entry(), time.time_ns() + HOUR)
        seen = await b.get("n", made.name, members=True)
        assert seen is not None and seen.members == made.members and seen.tokens == 1500
        assert seen.created == made.created and seen.expires == made.expires and seen.display_name == "d"
        assert await b.get("other", made.name) is None  # another caller's namespace sees nothing
        later = time.time_ns() + 2 * HOUR
        moved = await b.set_expiry("n", made.name, later)
        assert moved is not None and moved.expires == later and moved.updated >= made.updated
        page, following = await a.list("n")
        assert [e.name for e in page] == [made.name] and following == "" and page[0].expires == later
        assert await b.delete("n", made.name) and not await a.delete("n", made.name)
        assert await a.get("n", made.name) is None and a.held("n") == 0 and a.held() == 0

    asyncio.run(run())


def test_bounds_are_counted_across_stores_exactly_under_a_race(redis_url: str) -> None:
    stores = _stores(redis_url, 4, max_per_namespace=5, max_bytes_per_namespace=1 << 20, max_bytes=1 << 20)

    async def one(store: RedisCacheStore) -> bool:
        try:
            await store.create("n", _entry(), time.time_ns() + HOUR)
        except CacheFull as full:
            assert "5 cached contents" in str(full)
            return False
        return True

    async def run() -> list[bool]:
        return await asyncio.gather(*(one(stores[i % 4]) for i in range(12)))

    assert sum(asyncio.run(run())) == 5
    size = _entry().size
    assert stores[0].held("n") == 5 * size and stores[1].held() == 5 * size

    (tight,) = _stores(redis_url, 1, max_bytes_per_namespace=10 * size, max_bytes=14 * size)

    async def budgets() -> None:
        await tight.create("m", _entry(size * 9), time.time_ns() + HOUR)
        with pytest.raises(CacheFull, match="per caller"):
            await tight.create("m", _entry(size * 2), time.time_ns() + HOUR)
        with pytest.raises(CacheFull, match="more than"):  # everyone's: 5 + 9 held
            await tight.create("o", _entry(), time.time_ns() + HOUR)

    asyncio.run(budgets())


def test_expiry_to_the_nanosecond_and_the_sweep_gives_bytes_back(redis_url: str, redis_server: RedisServer) -> None:
    a, b = _stores(redis_url)

    async def run() -> None:
        soon = await a.create("n", _entry(), time.time_ns() + 300 * 10**6)  # 0.3 s
        kept = await a.create("k", _entry(), time.time_ns() + HOUR)
        ttl = redis_server.client().pttl(f"{PREFIX}e:n:{soon.name}")
        assert 0 < ttl <= 302  # Redis's own TTL drops the hash a millisecond after the read check would
        deadline = time.monotonic() + 5
        while await b.get("n", soon.name) is not None:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert time.time_ns() >= soon.expires
        assert b.held("n") == 0 and b.held() == kept.size  # given back at once by the read that found it gone
        odd = "a b:c 1"  # an explicit namespace may hold any character
        gone = await a.create(odd, _entry(), time.time_ns() + 100 * 10**6)
        await asyncio.sleep(0.25)  # past its expiry: nothing to poll, the next call is the sweep under test
        redis_server.client().delete(f"{PREFIX}e:{odd}:{gone.name}")  # as Redis's TTL would have
        await b.list("k")  # any call sweeps every caller's expired entries
        assert b.held(odd) == 0 and b.held() == kept.size

    asyncio.run(run())


def test_each_call_is_one_round_trip(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1)
    calls: list[str] = []
    original = store._call

    async def counted(script: str, *args: Any, **kw: Any) -> Any:
        calls.append(script)
        return await original(script, *args, **kw)

    store._call = counted  # type: ignore[method-assign]

    async def run() -> None:
        made = await store.create("n", _entry(), time.time_ns() + HOUR)
        await store.get("n", made.name)
        await store.fetch("n", made.name)
        assert store.cached("n", made.name) is not None  # what fetch read: no round trip
        await store.list("n")
        await store.set_expiry("n", made.name, time.time_ns() + HOUR)
        await store.delete("n", made.name)

    asyncio.run(run())
    assert calls == ["create", "read", "read", "page", "expiry", "delete"]


def test_an_unreachable_redis_is_the_503(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    url = redis.url
    redis.stop()
    (store,) = _stores(url, 1)

    async def run() -> None:
        with pytest.raises(errors.ApiError) as caught:
            await store.create("n", _entry(), time.time_ns() + HOUR)
        assert caught.value.code == 503
        with pytest.raises(errors.ApiError):
            await store.get("n", "cachedContents/x")

    asyncio.run(run())
