"""The Redis twin of Tunings (stores/tunings_redis.py) on a real redis-server: two stores on one Redis stand for
two processes. A job added through one is found through the other by its name, its tuned model (a version
suffix ignored) and its endpoint; the caller's bound counts across both, the oldest finished job forgotten past
it as in memory; a delete and a reset leave no record, side field or index key behind; a schedule set through
one is the plan of the other's next create; each request-path call is the round trips the docstring says."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
import redis.asyncio.connection

from gemini_emulator.seam.state import KEY_PREFIX, RedisLink
from gemini_emulator.stores.batches import Plan
from gemini_emulator.stores.tunings import TuningJob, TuningsFull
from gemini_emulator.stores.tunings_redis import RedisTunings

PARENT = "projects/p/locations/l"


def _job(number: int, namespace: str = "ns") -> TuningJob:
    return TuningJob(
        name=f"{PARENT}/tuningJobs/{number}",
        namespace=namespace,
        surface="vertex",
        tuned_model=f"{PARENT}/models/m{number}",
        endpoint=f"{PARENT}/endpoints/e{number}",
        base_model="gemini-2.5-flash",
        kept=b'{"baseModel":"gemini-2.5-flash"}',
        examples=0,
        plan=Plan(),
        created=0.0,
        created_ns=0,
    )


def _keys(url: str, namespace: str = "ns") -> list[bytes]:
    """The keys naming `namespace` (the shared counters aside)."""
    return sorted(k for k in redis.Redis.from_url(url).keys(KEY_PREFIX + "*") if namespace.encode() in k)


def test_a_job_is_found_through_another_store_by_each_of_its_names(redis_url: str) -> None:
    a, b = RedisTunings(RedisLink(redis_url)), RedisTunings(RedisLink(redis_url))

    async def run() -> None:
        made = await a.acreate(_job(1))
        assert made.created > 1e9  # the wall clock, which every process shares
        for name in (made.name,):
            found = await b.aget("ns", name)
            assert found is not None and found.tuned_model == made.tuned_model
        for name in (made.tuned_model, made.tuned_model + "@1", made.endpoint):
            found = await b.aby_tuned("ns", name)
            assert found is not None and found.name == made.name, name
        assert await b.aby_tuned("other", made.tuned_model) is None  # namespaces apart
        assert [j.name for j in await b.aall("ns")] == [made.name]
        assert await b.aremove("ns", made.name)
        assert await a.aby_tuned("ns", made.endpoint) is None  # the index went with it
        assert _keys(redis_url) == []

    asyncio.run(run())


def test_the_callers_bound_counts_across_stores_and_forgets_the_oldest_finished(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = RedisTunings(RedisLink(redis_url)), RedisTunings(RedisLink(redis_url))
    for store in (a, b):
        monkeypatch.setattr(store.jobs, "per_namespace", 2)
    a.plans.set("ns", Plan(pending_s=0, running_s=0, hold=True))  # RUNNING until released: none finishes by itself

    async def run() -> None:
        first = await a.acreate(_job(1))
        await b.acreate(_job(2))
        with pytest.raises(TuningsFull, match="unfinished"):
            await b.acreate(_job(3))
        await a.acancel(first)  # finished: the next create past the bound forgets it
        assert first.cancelled
        await b.acreate(_job(3))
        assert [j.name.rsplit("/", 1)[1] for j in await a.aall("ns")] == ["2", "3"]
        assert await a.aby_tuned("ns", first.tuned_model) is None

    asyncio.run(run())
    assert b.release("ns", Plan(state="FAILED")) == 2  # the admin API's release, through the other store
    assert {j.phase(a.clock())[0] for j in a.all("ns")} == {"FAILED"}
    a.reset("ns")
    assert _keys(redis_url) == []


def test_a_schedule_set_through_one_store_is_the_other_s_plan(redis_url: str) -> None:
    a, b = RedisTunings(RedisLink(redis_url)), RedisTunings(RedisLink(redis_url))
    a.plans.set("ns", Plan(pending_s=1.5, running_s=2, state="FAILED"))
    made = asyncio.run(b.acreate(_job(1)))
    assert (made.plan.pending_s, made.plan.running_s, made.plan.state) == (1.5, 2, "FAILED")
    assert b.plans.get("ns") == a.plans.get("ns")
    a.plans.set("ns", None)
    assert b.plans.get("ns") == Plan()


def test_each_call_is_its_round_trips(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RedisTunings(RedisLink(redis_url))
    replies = [0]
    read = redis.asyncio.connection.AbstractConnection.read_response

    async def counted(self: Any, *args: Any, **kw: Any) -> Any:
        replies[0] += 1  # one reply read: one round trip (the store sends no pipelines)
        return await read(self, *args, **kw)

    async def run() -> dict[str, int]:
        warm = await store.acreate(_job(1))  # connects, loads the scripts
        await store.aby_tuned("ns", warm.endpoint)
        await store.acancel(warm)
        await store.aall("ns")
        await store.aremove("ns", warm.name)
        monkeypatch.setattr(redis.asyncio.connection.AbstractConnection, "read_response", counted)
        trips: dict[str, int] = {}
        replies[0] = 0
        job = await store.acreate(_job(2))
        trips["create"] = replies[0]
        steps = [
            ("get", store.aget("ns", job.name)),
            ("tuned model", store.aby_tuned("ns", job.tuned_model)),
            ("list", store.aall("ns")),
            ("cancel", store.acancel(job)),
            ("delete", store.aremove("ns", job.name)),
        ]
        for name, step in steps:
            replies[0] = 0
            await step
            trips[name] = replies[0]
        return trips

    assert asyncio.run(run()) == {"create": 2, "get": 1, "tuned model": 1, "list": 1, "cancel": 2, "delete": 1}
