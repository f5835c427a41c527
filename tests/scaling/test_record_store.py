"""The Redis twin of Keyed (stores/keyed_redis.py) on a real redis-server: two stores on one Redis stand for two
processes. The bounds (count per caller and overall, bytes per caller and overall) are counted in Redis across
both; a compare-and-set change raced by eight stores loses none of them; paging follows page_of's token rule;
delete and reset leave the counts and no key behind; each request-path call is the round trips the docstring
says (counted at the socket); eight trigger stores reading one advanced clock at once take each fire once; an
environment's files are kept in chunks beside it, dropped with what replaces them and with it, and counted; a
change that keeps losing its races is a 409 ABORTED."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio.connection

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import KEY_PREFIX, RedisLink
from gemini_emulator.stores import keyed_redis
from gemini_emulator.stores.environments import FileExists
from gemini_emulator.stores.keyed import Full, page_of
from gemini_emulator.stores.keyed_redis import RedisKeyed
from gemini_emulator.stores.records_redis import (
    CHUNK_BYTES,
    RedisEnvironmentStore,
    RedisTriggerStore,
    RedisWebhookStore,
)


class Notes(RedisKeyed[dict[str, Any]]):
    """A record kind for these tests: JSON objects, their `text` counted in bytes."""

    kind = "t"
    noun = "notes"

    def dump(self, record: dict[str, Any]) -> bytes:
        return orjson.dumps(record)

    def load(self, data: bytes) -> dict[str, Any]:
        return dict(orjson.loads(data))

    def size_of(self, record: dict[str, Any]) -> int:
        return len(record.get("text", ""))


def _notes(url: str, count: int = 2, **bounds: int) -> list[Notes]:
    kw = {"per_namespace": 3, "overall": 5, "bytes_per_namespace": 0, "bytes_overall": 0} | bounds
    return [
        Notes(
            RedisLink(url),
            kw["per_namespace"],
            kw["overall"],
            bytes_per_namespace=kw["bytes_per_namespace"],
            bytes_overall=kw["bytes_overall"],
        )
        for _ in range(count)
    ]


def test_count_bounds_hold_across_stores(redis_url: str) -> None:
    first, second = _notes(redis_url)

    async def run() -> None:
        assert await first.add("a", "1", {"id": "1"}) and await second.add("a", "2", {"id": "2"})
        assert not await second.add("a", "1", {"id": "1"})  # the id is taken, whichever process asks
        assert await second.add("a", "3", {"id": "3"})
        with pytest.raises(Full, match="this caller has 3 notes"):
            await first.add("a", "4", {"id": "4"})
        assert await first.add("b", "1", {}) and await second.add("b", "2", {})
        with pytest.raises(Full, match="the emulator holds 5 notes"):
            await first.add("c", "1", {})
        assert await first.delete("a", "2") and not await second.delete("a", "2")
        assert await second.add("c", "1", {})  # room again, in all
        assert await first.count("a") == 2 and first.held() == (5, 0)

    asyncio.run(run())


def test_byte_bounds_hold_across_stores_and_changes(redis_url: str) -> None:
    first, second = _notes(redis_url, per_namespace=10, overall=10, bytes_per_namespace=10, bytes_overall=15)

    async def run() -> None:
        await first.add("a", "1", {"text": "x" * 6})
        with pytest.raises(Full, match="this caller's notes would take more than 10 bytes"):
            await second.add("a", "2", {"text": "x" * 5})
        await second.add("b", "1", {"text": "x" * 9})
        with pytest.raises(Full, match="the emulator's notes would take more than 15 bytes"):
            await first.add("a", "2", {"text": "x"})
        with pytest.raises(Full):  # a change that grows a record past a bound stores nothing
            await second.change("a", "1", lambda note: note.update(text="x" * 11))
        assert (await first.get("a", "1")) == {"text": "x" * 6}
        shrunk = await second.change("a", "1", lambda note: note.update(text="x"))
        assert shrunk == {"text": "x"} and first.held("a") == (1, 1) and first.held() == (2, 10)
        await first.delete("b", "1")
        assert second.held() == (1, 1)

    asyncio.run(run())


def test_racing_changes_lose_none(redis_url: str) -> None:
    stores = _notes(redis_url, 8)

    async def run() -> dict[str, Any] | None:
        await stores[0].add("a", "n", {"seen": []})

        async def append(index: int) -> None:
            for step in range(5):
                mark = f"{index}.{step}"
                await stores[index].change("a", "n", lambda note, mark=mark: note["seen"].append(mark))

        await asyncio.gather(*(append(i) for i in range(8)))
        return await stores[0].get("a", "n")

    final = asyncio.run(run())
    assert final is not None and sorted(final["seen"]) == sorted(f"{i}.{s}" for i in range(8) for s in range(5))


def test_pages_follow_the_memory_rule_and_reset_leaves_nothing(redis_url: str) -> None:
    (store,) = _notes(redis_url, 1, per_namespace=10, overall=10, bytes_per_namespace=100, bytes_overall=100)
    ids = [f"n{i}" for i in range(7)]

    async def run() -> None:
        for record_id in ids:
            await store.add("a", record_id, {"id": record_id, "text": "ab"})
        for size in (1, 3, 7, 10):
            for token in ["", *ids]:
                page = await store.page("a", size, token)
                expected = page_of([{"id": i, "text": "ab"} for i in ids], ids, size, token)
                assert page == expected
        assert await store.page("a", 3, "nobody") is None
        assert await store.page("empty", 3, "") == ([], "")
        assert await store.ids("a") == ids
        some = await store.many("a", ["n2", "x", "n0"])
        assert some == [{"id": "n2", "text": "ab"}, None, {"id": "n0", "text": "ab"}]

    asyncio.run(run())
    assert store.names() == ["a"] and [r["id"] for r in store.all("a")] == ids
    store.reset()
    assert store.held() == (0, 0) and store.names() == []
    client = redis.Redis.from_url(redis_url)
    assert [k for k in client.keys(KEY_PREFIX + "k:t:*") if not k.endswith((b":n", b":total", b":seq"))] == []


def test_each_call_is_its_round_trips(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RedisWebhookStore(RedisLink(redis_url))
    replies = [0]
    read = redis.asyncio.connection.AbstractConnection.read_response

    async def counted(self: Any, *args: Any, **kw: Any) -> Any:
        replies[0] += 1  # one reply read: one round trip (the store sends no pipelines)
        return await read(self, *args, **kw)

    async def run() -> dict[str, int]:
        warm, _ = await store.create("a", "http://127.0.0.1:1/x", ["batch.succeeded"])  # connects, loads the scripts
        await store.update("a", warm.id, uri=None, events=None, name="w", state=None)
        await store.page("a", 10)
        await store.delete("a", warm.id)
        monkeypatch.setattr(redis.asyncio.connection.AbstractConnection, "read_response", counted)
        counted_trips: dict[str, int] = {}
        replies[0] = 0
        hook, _ = await store.create("a", "http://127.0.0.1:1/x", ["batch.succeeded"])
        counted_trips["create"] = replies[0]
        steps = [
            ("get", store.get("a", hook.id)),
            ("page", store.page("a", 10)),
            ("update", store.update("a", hook.id, uri=None, events=None, name="n", state=None)),
            ("rotate", store.rotate("a", hook.id)),
            ("subscribed", store.subscribed("a", "batch.succeeded")),
            ("delete", store.delete("a", hook.id)),
        ]
        for name, step in steps:
            replies[0] = 0
            await step
            counted_trips[name] = replies[0]
        return counted_trips

    assert asyncio.run(run()) == {
        "create": 1,
        "get": 1,
        "page": 1,
        "update": 2,
        "rotate": 2,
        "subscribed": 1,
        "delete": 1,
    }


def test_a_due_trigger_fires_once_across_stores(redis_url: str) -> None:
    stores = [RedisTriggerStore(RedisLink(redis_url)) for _ in range(8)]
    interaction = {"agent": "a", "input": "x"}

    async def run() -> list[list[tuple[Any, float]]]:
        for _ in range(5):
            await stores[0].create("a", "*/5 * * * *", "UTC", interaction)
        busy = await stores[1].create("a", "*/5 * * * *", "UTC", interaction)
        await stores[1].begin(busy, 0.0)  # its previous execution still runs: its fires skipped, once
        stores[0].clock.advance("a", 30 * 60 - time.time() % 300 + 150)  # six fires each
        return await asyncio.gather(*(store.due("a") for store in stores))

    taken = asyncio.run(run())
    fires = [(trigger.id, when) for each in taken for trigger, when in each]
    assert len(fires) == len(set(fires)) == 5 * 6  # each fire taken by one store only
    (trigger,) = [t for t in stores[2].all("a") if any(e.status == "skipped" for e in t.executions)]
    assert [e.status for e in trigger.executions] == ["in_progress", "skipped"]
    assert all(t.next_run > time.time() + stores[2].clock.load_sync("a") for t in stores[2].all("a"))


def test_environment_files_are_kept_in_chunks_and_counted(redis_url: str) -> None:
    first, second = (RedisEnvironmentStore(RedisLink(redis_url)) for _ in range(2))
    big = bytes(range(256)) * (10 * CHUNK_BYTES // 1024)  # 2.5 chunks
    client = redis.Redis.from_url(redis_url)

    def chunks(env_id: str) -> int:
        return int(client.hlen(f"{KEY_PREFIX}k:en:x:a:{env_id}"))

    async def run() -> None:
        env = await first.create("a", {}, {"src/big.bin": (big, "application/octet-stream")}, False)
        assert chunks(env.id) == 3 and first.held("a") == (1, len(big))
        seen = await second.get("a", env.id)
        assert seen is not None and seen.files["src/big.bin"].size == len(big)
        assert await second.file_data(seen, "src/big.bin") == big  # read through another store
        kept = await second.write(seen, {"src/big.bin": (b"small", "text/plain"), "b.txt": (b"b", "text/plain")}, True)
        assert [path for path, _ in kept] == ["src/big.bin", "b.txt"]
        assert chunks(env.id) == 2 and first.held() == (1, 6)  # the old chunks dropped in the same call
        copy = await first.files_of(await first.get("a", env.id) or env)
        assert copy == {"src/big.bin": (b"small", "text/plain"), "b.txt": (b"b", "text/plain")}
        with pytest.raises(FileExists):
            await first.write(seen, {"b.txt": (b"again", "text/plain")}, False)
        assert await first.delete("a", env.id)
        assert chunks(env.id) == 0 and first.held() == (0, 0)

    asyncio.run(run())


def test_a_change_that_keeps_losing_is_a_409_not_a_5xx(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _notes(redis_url)
    monkeypatch.setattr(keyed_redis, "SWAP_TRIES", 3)

    async def run() -> None:
        await first.add("a", "n", {"seen": 0})

        original = first.read

        async def read_then_meddle(namespace: str, record_id: str) -> Any:
            found = await original(namespace, record_id)
            await second.change(namespace, record_id, lambda other: other.update(seen=other["seen"] + 1))
            return found

        monkeypatch.setattr(first, "read", read_then_meddle)
        with pytest.raises(errors.ApiError) as lost:
            await first.change("a", "n", lambda note: note.update(seen=-1))
        assert lost.value.code == 409 and lost.value.status == "ABORTED"
        assert (await second.get("a", "n")) == {"seen": 3}  # the three changes that won, none of the loser's

    asyncio.run(run())
