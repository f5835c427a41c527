"""The Redis operation store's own contract (stores/operations_redis.py), on a real redis-server: two stores on one
Redis stand for two processes. An operation created through one is done through the other on the wall clock once
its producer gives it a result; a cancel through one outlasts the producer's later result; a result past the byte
budget fails the operation instead; the per-caller bound forgets the oldest done operation first; every call is one
round trip."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores import operations_redis
from gemini_emulator.stores.operations_redis import ABANDONED, RedisOperationStore


def _stores(url: str, count: int = 2, **kw: Any) -> list[RedisOperationStore]:
    return [RedisOperationStore(RedisLink(url), **kw) for _ in range(count)]


def test_made_on_one_done_on_another_and_a_cancel_outlasts_the_result(redis_url: str) -> None:
    a, b = _stores(redis_url)

    async def run() -> None:
        op = await a.create("n", "veo", parent="models/veo", hold=True, metadata={"m": 1})
        seen = await b.get("n", op.name)
        assert seen is not None and not seen.done() and seen.view() == {"name": op.name, "metadata": {"m": 1}}
        await a.complete(op, response={"ok": True}, at=0.2)
        assert not (await b.require("n", op.name)).done()  # its schedule: 0.2 s more
        deadline = time.monotonic() + 5
        while not (await b.require("n", op.name)).done():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert (await b.require("n", op.name)).view()["response"] == {"ok": True}
        assert await b.get("other", op.name) is None
        second = await a.create("n", "veo", parent="models/veo", hold=True)
        cancelled = await b.cancel("n", second.name)
        assert cancelled.done() and cancelled.view()["error"]["code"] == 1
        await a.complete(second, response={"late": True}, at=0)
        assert second.cancelled  # the producer's copy learns it too
        assert (await b.require("n", second.name)).view()["error"]["code"] == 1

    asyncio.run(run())


def test_a_result_past_the_budget_fails_and_the_bound_forgets_done_first(redis_url: str, monkeypatch: Any) -> None:
    monkeypatch.setattr(operations_redis, "MAX_BYTES_PER_NAMESPACE", 1000)
    (store,) = _stores(redis_url, 1, max_per_namespace=3)

    async def run() -> list[str]:
        big = await store.create("n", "veo", name="o/big", hold=True)
        await store.complete(big, response={"x": "y" * 2000}, at=0)
        assert big.error is not None and big.error["code"] == 8
        assert (await store.require("n", "o/big")).view()["error"]["code"] == 8 and store.held("n") < 1000
        held = [await store.create("n", "veo", name=f"o/{i}", hold=True) for i in range(3)]
        assert held
        page, following = await store.list("n", 10)
        assert following == ""
        return [op.name for op in page]

    assert asyncio.run(run()) == ["o/2", "o/1", "o/0"]  # o/big, done, forgotten first


def test_each_call_is_one_round_trip(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1)
    calls: list[str] = []
    original = store._call

    async def counted(script: str, *args: Any, **kw: Any) -> Any:
        calls.append(script)
        return await original(script, *args, **kw)

    store._call = counted  # type: ignore[method-assign]

    async def run() -> None:
        op = await store.create("n", "veo", parent="models/v", hold=True)
        await store.complete(op, response={}, at=0)
        await store.get("n", op.name)
        await store.list("n")
        await store.cancel("n", op.name)
        await store.delete("n", op.name)

    asyncio.run(run())
    assert calls == ["create", "complete", "read", "page", "cancel", "delete"]


def test_a_producer_that_stops_renewing_its_lease_leaves_its_operation_abandoned(redis_url: str) -> None:
    a, b = _stores(redis_url)
    a.lease_ms = 300

    async def run() -> None:
        kept = await a.create("n", "veo", parent="models/v", hold=True, leased=True)
        dead = await a.create("n", "veo", parent="models/v", hold=True, leased=True)
        stop = asyncio.Event()
        keeper = asyncio.create_task(a.keep(kept, stop))  # the live producer renews; the dead one's lease lapses
        try:
            deadline = time.monotonic() + 5
            while not (await b.require("n", dead.name)).done():
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            assert (await b.require("n", dead.name)).view()["error"]["code"] == 14  # UNAVAILABLE, once
            await asyncio.sleep(0.4)  # a lapse passes (nothing to wait on: what is shown is that nothing happens)
            assert not (await b.require("n", kept.name)).done()
            await a.complete(kept, response={"ok": 1}, at=0)
            assert (await b.require("n", kept.name)).view()["response"] == {"ok": 1}
            await a.complete(dead, response={"late": 1}, at=0)  # a producer back from the dead changes nothing
            assert (await b.require("n", dead.name)).view()["error"]["code"] == 14 and dead.error == ABANDONED
        finally:
            stop.set()
            await asyncio.wait_for(keeper, 5)

    asyncio.run(run())


def test_a_document_state_changes_only_its_own_file_search_operation(redis_url: str) -> None:
    """The file search store's SET_STATE (stores/file_search_redis.py) changes the document's operation in the same
    call: a hold held, a failure ending it with the error, a release; a cancelled one stays cancelled, and an
    operation of another kind named by mistake is left as it was."""
    from gemini_emulator.stores.file_search_redis import RedisFileSearchStores

    ops, other = _stores(redis_url)
    search = RedisFileSearchStores(RedisLink(redis_url))

    async def run() -> None:
        store = await search.create("n", "s")
        doc = await search.add_document("n", store.name, b"Paris is in France.", "text/plain", operation="x")
        made = await ops.create("n", "fileSearch", name="fs/op", response={"documentName": doc.name}, delay_s=0)
        assert (await other.require("n", "fs/op")).done()
        assert search.set_state("n", doc.name, "STATE_PENDING", None, None, "fs/op", "hold")
        assert (await other.require("n", "fs/op")).done()  # done already: a hold does not take it back
        held = await ops.create("n", "fileSearch", name="fs/held", response={"d": 1}, delay_s=30)
        assert search.set_state("n", doc.name, "STATE_PENDING", None, None, held.name, "hold")
        assert (await other.require("n", held.name)).held
        assert search.set_state("n", doc.name, "", time.time(), None, held.name, "release")
        assert not (await other.require("n", held.name)).held
        failure = {"code": 9, "message": "No."}
        assert search.set_state("n", doc.name, "STATE_FAILED", None, failure, made.name, "fail")
        assert (await other.require("n", made.name)).view()["error"] == failure
        await other.cancel("n", held.name)
        assert search.set_state("n", doc.name, "STATE_FAILED", None, failure, held.name, "fail")
        assert (await ops.require("n", held.name)).view()["error"]["code"] == 1  # still cancelled
        veo = await ops.create("n", "veo", parent="models/veo", hold=True)
        assert search.set_state("n", doc.name, "STATE_FAILED", None, failure, veo.name, "fail")
        after = await other.require("n", veo.name)
        assert after.held and after.error is None  # not a file search operation: untouched

    asyncio.run(run())
