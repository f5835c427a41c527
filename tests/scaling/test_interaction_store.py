"""The Redis interaction store (stores/interactions_redis.py) on a real redis-server, two stores standing for two
processes: a run is kept as running while its process renews its lease, read as failed (once, kept so) when the
process is gone, and its late end then stores nothing; a cancel through the other store is kept at once and the
run's end stores nothing after it; the byte bounds are counted across both."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest

from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores import interactions_redis
from gemini_emulator.stores.interactions import Stored, StoreFull
from gemini_emulator.stores.interactions_redis import GONE, RedisInteractionStore


def _running(text: str = "x") -> Stored:
    view = {"id": "", "status": "in_progress", "created": "2026-12-07T00:00:00Z", "model": "m", "object": "interaction"}
    return Stored.of(view, [{"role": "user", "parts": [{"text": text}]}])


async def _until(seconds: float, ready: Any) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = await ready()
        if found:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"not so within {seconds} s")


def test_a_run_whose_process_is_gone_reads_as_failed(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interactions_redis, "LEASE_MS", 300)
    monkeypatch.setattr(interactions_redis, "BEAT_S", 0.05)
    a, b = RedisInteractionStore(RedisLink(redis_url)), RedisInteractionStore(RedisLink(redis_url))

    async def run() -> None:
        kept = await a.put("n", _running())
        renewed = time.monotonic() + 0.6
        while time.monotonic() < renewed:  # past two leases: renewed, still running
            seen = await b.get("n", kept.id)
            assert seen is not None and seen.view["status"] == "in_progress"
            await asyncio.sleep(0.05)
        assert a._beat is not None
        a._runs.clear()  # the process "dies": its lease is no longer renewed
        await _until(5, lambda: asyncio.sleep(0, a._beat is not None and a._beat.done()))

        async def failed() -> Stored | None:
            seen = await b.get("n", kept.id)
            return seen if seen is not None and seen.view["status"] == "failed" else None

        gone = await _until(5, failed)
        assert orjson.loads(gone.printed)["errors"][0] == {"code": 503, "message": GONE, "status": "UNAVAILABLE"}
        again = await a.get("n", kept.id)
        assert again is not None and again.printed == gone.printed  # kept so
        kept.view["status"] = "completed"
        kept.finish()
        assert not await a.settle("n", kept)  # the late end stores nothing

    asyncio.run(run())


def test_a_cancel_through_another_store_is_kept_and_the_end_stores_nothing(redis_url: str) -> None:
    a, b = RedisInteractionStore(RedisLink(redis_url)), RedisInteractionStore(RedisLink(redis_url))

    async def run() -> None:
        kept = await a.put("n", _running())
        seen = await b.get("n", kept.id)
        assert seen is not None
        seen.view["status"] = "cancelled"
        assert await b.cancel("n", seen)
        assert not await b.cancel("n", seen)  # once
        kept.view["status"] = "completed"
        kept.finish()
        assert not await a.settle("n", kept)
        final = await a.get("n", kept.id)
        assert final is not None and final.view["status"] == "cancelled"

    asyncio.run(run())


def test_the_byte_bound_over_everyone_is_counted_across_stores(redis_url: str) -> None:
    a, b = (RedisInteractionStore(RedisLink(redis_url), max_bytes=900) for _ in range(2))

    async def run() -> None:
        first = _running("x" * 300)
        first.finish()
        await a.put("one", first)
        second = _running("y" * 300)
        second.finish()
        with pytest.raises(StoreFull):
            await b.put("two", second)
        assert await a.delete("one", first.id)
        await b.put("two", second)
        assert a.held() == b.held("two") == second.size

    asyncio.run(run())
