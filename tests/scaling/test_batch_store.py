"""The Redis batch store's own contract (stores/batches_redis.py), on a real redis-server: two stores on one Redis
stand for two processes. A job is claimed by one of them only, whatever the race; a lapsed claim is taken over
with the partial answers dropped; the byte budgets are counted in Redis across both; the per-caller bound
forgets the oldest done job first; every call is one round trip."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores import batches_redis
from gemini_emulator.stores.batches import BatchJob, Plan
from gemini_emulator.stores.batches_redis import BudgetPassed, RedisBatchStore

NOW = Plan(pending_s=0, running_s=0)


def _job(*texts: str) -> BatchJob:
    requests = [f'{{"request":{{"contents":[{{"parts":[{{"text":"{t}"}}]}}]}}}}'.encode() for t in texts]
    return BatchJob("generate", "gemini-2.5-flash", "", requests=requests, size=sum(map(len, requests)))


def _stores(url: str, count: int = 2, **kw: Any) -> list[RedisBatchStore]:
    return [RedisBatchStore(RedisLink(url), **kw) for _ in range(count)]


def test_one_claim_wins_the_race(redis_url: str) -> None:
    stores = _stores(redis_url, 8)

    async def run() -> list[Any]:
        op = await stores[0].create("a", "batches/one", _job("x", "y"), NOW, None, 1 << 20, 1 << 30)
        assert op is not None
        return await asyncio.gather(*(s.claim(op) for s in stores))

    claims = asyncio.run(run())
    won = [c for c in claims if c is not None]
    assert len(won) == 1 and len(won[0]) == 2


def test_answers_committed_once_and_a_lapsed_claim_taken_over(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _stores(redis_url)
    monkeypatch.setattr(batches_redis, "CLAIM_LEASE_MS", 50)

    async def run() -> None:
        op = await first.create("a", "batches/two", _job("x", "y"), NOW, None, 1 << 20, 1 << 30)
        assert op is not None
        assert await first.claim(op) is not None
        assert await first.store(op, [b'{"response":1}'], 1 << 20, 1 << 30) == 1  # then "dies"
        await asyncio.sleep(0.1)  # the lease lapses
        assert await second.claim(op) is not None  # taken over, the partial answer dropped
        assert await first.store(op, [b"late"], 1 << 20, 1 << 30) == -2  # the dead one stores nothing more
        assert not await first.commit(op, {}, (2, 2), "", failed=False)
        assert await second.store(op, [b'{"response":"x"}', b'{"response":"y"}'], 1 << 20, 1 << 30) == 1
        assert await second.commit(op, {"@type": "t"}, (2, 2), "", failed=False)
        assert await first.claim(op) is None  # answered: nobody answers it again
        read = await first.get("a", "batches/two")
        assert read is not None and read.has_result
        assert read.extra["job"].results == [b'{"response":"x"}', b'{"response":"y"}']
        assert read.extra["job"].counts == (2, 2)
        sizes = sum(len(r) for r in read.extra["job"].results)
        assert first.held("a") == second.held() == read.extra["job"].size == sizes  # the requests released

    asyncio.run(run())


def test_budgets_are_counted_across_processes(redis_url: str) -> None:
    first, second = _stores(redis_url)
    job = _job("x" * 100)

    async def run() -> None:
        per_caller = job.size * 2
        assert await first.create("a", "batches/1", _job("x" * 100), NOW, None, per_caller, 1 << 30)
        assert await second.create("a", "batches/2", _job("x" * 100), NOW, None, per_caller, 1 << 30)
        with pytest.raises(BudgetPassed) as passed:
            await first.create("a", "batches/3", _job("x" * 100), NOW, None, per_caller, 1 << 30)
        assert passed.value.mine
        everyone = job.size * 3
        assert await second.create("b", "batches/4", _job("x" * 100), NOW, None, per_caller, everyone)
        with pytest.raises(BudgetPassed) as passed:
            await second.create("c", "batches/5", _job("x" * 100), NOW, None, per_caller, everyone)
        assert not passed.value.mine
        assert await first.delete("a", "batches/1")
        assert await second.create("c", "batches/5", _job("x" * 100), NOW, None, per_caller, everyone)
        assert first.held() == job.size * 3 and first.held("a") == job.size

        op = await first.get("a", "batches/2")  # answers that would pass the caller's budget fail the job
        assert op is not None and await first.claim(op) is not None
        assert await first.store(op, [b"y" * (job.size + 1)], job.size, 1 << 30) == -1
        assert first.held("a") == job.size  # nothing of the refused chunk is held

    asyncio.run(run())


def test_the_bound_forgets_the_oldest_done_job_first(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1, max_per_namespace=3)

    async def run() -> list[str]:
        held = Plan(pending_s=0, running_s=0, hold=True)
        await store.create("a", "batches/held", _job("x"), held, None, 1 << 20, 1 << 30)
        first = await store.create("a", "batches/done", _job("x"), NOW, None, 1 << 20, 1 << 30)
        assert first is not None and await store.cancel("a", "batches/done", {"code": 1}) == 2  # done
        for name in ("batches/c", "batches/d"):
            await store.create("a", name, _job("x"), held, None, 1 << 20, 1 << 30)
        ops, following = await store.page("a", 10, "")
        assert following == ""
        return [op.name for op in ops]

    assert asyncio.run(run()) == ["batches/d", "batches/c", "batches/held"]
    assert store.held("a") == 3 * _job("x").size


def test_each_call_is_one_round_trip(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1)
    calls: list[str] = []
    original = store._call

    async def counted(script: str, *args: Any, **kw: Any) -> Any:
        calls.append(script)
        return await original(script, *args, **kw)

    store._call = counted  # type: ignore[method-assign]

    async def run() -> None:
        await store.create("a", "batches/x", _job("x"), NOW, None, 1 << 20, 1 << 30)
        await store.get("a", "batches/x")
        await store.page("a", 10, "")
        await store.cancel("a", "batches/x", {"code": 1})
        await store.delete("a", "batches/x")

    asyncio.run(run())
    assert calls == ["create", "read", "page", "cancel", "delete"]  # each script is one EVALSHA
