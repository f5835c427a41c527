"""The Redis file search store's own contract (stores/file_search_redis.py), on a real redis-server: two stores on
one Redis stand for two processes (each with its own cache of parsed documents). Search results are the memory
store's, from a cold cache or a warm one; the bounds (stores per namespace, documents per store, the byte budget)
hold across both however the calls race; a document is STATE_PENDING until its ready time by the wall clock, for
both; the parsed-document cache stays within its bound; each call is the documented round trips; a Redis that
cannot be reached is the 503."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores import file_search_redis
from gemini_emulator.stores.file_search import FileSearchStores, Hit, StoreFull, prepare
from gemini_emulator.stores.file_search_redis import RedisFileSearchStores

from redis_env import free_port

TEXTS = [
    ("paris", b"Paris is the capital of France. The Eiffel Tower is in Paris. " * 30, (12, 3)),
    ("rome", b"Rome is the capital of Italy. The Colosseum stands in Rome. Tower of Pisa is near. " * 20, (20, 0)),
    ("mix", b"Capital cities: Paris, Rome, Berlin. Towers and colosseums and rivers. " * 40, (7, 6)),
    ("notes", b"Nothing about cities here, only zebras and giraffes grazing on the savanna.", (200, 0)),
]
QUERIES = ["capital of France", "tower in Paris", "Rome colosseum", "zebras", "rivers towers cities", "the and"]


def _stores(url: str, count: int = 2, **kw: Any) -> list[RedisFileSearchStores]:
    return [RedisFileSearchStores(RedisLink(url), **kw) for _ in range(count)]


def _shown(hits: list[Hit], stores: dict[str, str]) -> list[tuple[str, str, str, int]]:
    return [(stores[h.store], h.document.display_name, h.text, h.score) for h in hits]


def test_search_results_are_the_memory_stores_cold_or_warm(redis_url: str) -> None:
    memory = FileSearchStores()
    a, b = _stores(redis_url)

    async def run() -> None:
        names: dict[str, str] = {}
        mem_names: dict[str, str] = {}
        for label in ("one", "two"):
            st = await a.create("ns", label)
            names[st.name] = label
            mem_names[memory.create("ns", label).name] = label
        red_order, mem_order = list(names), list(mem_names)
        for i, (display, data, (words, overlap)) in enumerate(TEXTS * 2):
            meta = [{"key": "n", "numericValue": i}]
            store_i = i % 2
            memory.add_document(
                "ns",
                mem_order[store_i],
                data,
                "text/plain",
                display_name=display,
                custom_metadata=meta,
                chunk_words=words,
                overlap_words=overlap,
            )
            await a.add_document(
                "ns",
                red_order[store_i],
                b"",
                "text/plain",
                size=len(data),
                display_name=display,
                custom_metadata=meta,
                chunk_words=words,
                overlap_words=overlap,
                text=data,
                prepared=prepare(data, "text/plain", words, overlap),
            )
        for accept in (None, lambda d: d.custom_metadata[0]["numericValue"] % 3 != 0):
            for query in QUERIES:
                for top_k in (1, 5, 20):
                    want = _shown(memory.search("ns", mem_order, query, top_k, accept), mem_names)
                    for store in (b, a):  # B parses every document from Redis; A kept its own parse
                        snap = await store.snapshot("ns", red_order)
                        assert _shown(snap.search("ns", red_order, query, top_k, accept), names) == want, query
        assert b.parsed == len(TEXTS) * 2

    asyncio.run(run())


def test_bounds_hold_across_processes_however_the_calls_race(redis_url: str) -> None:
    a, b = _stores(redis_url, max_stores=3, max_documents=4, budget_bytes=1000)

    async def run() -> None:
        made = await asyncio.gather(
            *(s.create("ns", f"s{i}") for i, s in enumerate([a, b] * 3)), return_exceptions=True
        )
        refused = [m for m in made if isinstance(m, errors.ApiError)]
        assert len(refused) == 3 and all(r.code == 429 for r in refused)
        store = next(m for m in made if not isinstance(m, BaseException)).name

        async def add(s: RedisFileSearchStores, size: int) -> Any:
            return await s.add_document("ns", store, b"", "text/plain", size=size, text=b"words here")

        added = await asyncio.gather(*(add(s, 100) for s in [a, b] * 4), return_exceptions=True)
        full = [x for x in added if isinstance(x, errors.ApiError)]
        assert len(full) == 4 and all(x.code == 429 and "documents per" in x.message for x in full)
        other = [m for m in made if not isinstance(m, BaseException) and m.name != store][0].name
        raced = await asyncio.gather(
            *(s.add_document("ns", other, b"", "text/plain", size=250, text=b"w") for s in [a, b] * 2),
            return_exceptions=True,
        )
        assert sum(isinstance(x, StoreFull) for x in raced) == 2  # 400 held + 2 x 250 = 900 of 1000
        assert a.used == b.used == 900
        await b.delete("ns", store, force=True)
        assert a.used == 500

    asyncio.run(run())


def test_pending_until_its_ready_time_by_the_wall_clock_for_both(redis_url: str) -> None:
    a, b = _stores(redis_url)

    async def run() -> None:
        store = (await a.create("ns", "s")).name
        data = b"Zebras graze on the savanna at dawn."
        doc = await a.add_document("ns", store, b"", "text/plain", size=len(data), text=data, ready_at=a.clock() + 0.4)
        assert (await b.document("ns", doc.name)).state == "STATE_PENDING"
        assert (await b.get("ns", store)).view()["pendingDocumentsCount"] == "1"  # type: ignore[union-attr]
        assert (await b.snapshot("ns", [store])).search("ns", [store], "zebras") == []
        deadline = time.monotonic() + 5
        while (await b.document("ns", doc.name)).state != "STATE_ACTIVE":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        hits = (await b.snapshot("ns", [store])).search("ns", [store], "zebras")
        assert [h.text for h in hits] == [data.decode()]

    asyncio.run(run())


def test_the_parsed_documents_stay_within_their_bound(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_search_redis, "PARSED_DOCS", 2)
    a, b = _stores(redis_url)

    async def run() -> None:
        store = (await a.create("ns", "s")).name
        for i in range(5):
            data = f"document {i} about zebras number{i}".encode()
            await a.add_document("ns", store, b"", "text/plain", size=len(data), text=data, display_name=f"d{i}")
        assert a.parsed == 2
        hits = (await b.snapshot("ns", [store])).search("ns", [store], "zebras", top_k=10)
        assert sorted(h.document.display_name for h in hits) == [f"d{i}" for i in range(5)]
        assert b.parsed == 2

    asyncio.run(run())


def test_each_call_is_its_documented_round_trips(redis_url: str) -> None:
    (store,) = _stores(redis_url, 1)
    calls: list[str] = []
    call, command = store._call, store._command

    async def counted_call(script: str, *args: Any) -> Any:
        calls.append(script)
        return await call(script, *args)

    async def counted_command(method: str, *args: Any) -> Any:
        calls.append(method)
        return await command(method, *args)

    store._call = counted_call  # type: ignore[method-assign]
    store._command = counted_command  # type: ignore[method-assign]
    cold = RedisFileSearchStores(store.link)
    cold._call, cold._command = counted_call, counted_command  # type: ignore[method-assign]

    async def run() -> list[list[str]]:
        seen = []
        for step in (
            lambda: store.create("ns", "s"),
            lambda: store.list("ns", 10),
        ):
            calls.clear()
            made = await step()
            seen.append(list(calls))
        name = made[0][0].name
        data = b"zebras graze"
        for step in (
            lambda: store.get("ns", name),
            lambda: store.check_room("ns", name, 10),
            lambda: store.add_document("ns", name, b"", "text/plain", size=len(data), text=data),
            lambda: store.documents("ns", name, 10),
            lambda: store.take_next("ns"),
            lambda: store.snapshot("ns", [name]),
            lambda: cold.snapshot("ns", [name]),
            lambda: cold.snapshot("ns", [name]),
        ):
            calls.clear()
            await step()
            seen.append(list(calls))
        doc = (await store.documents("ns", name, 10))[0][0].name
        for step in (lambda: store.document("ns", doc), lambda: store.delete_document("ns", doc, True)):
            calls.clear()
            await step()
            seen.append(list(calls))
        calls.clear()
        await store.delete("ns", name)
        seen.append(list(calls))
        return seen

    assert asyncio.run(run()) == [
        ["create_store"],
        ["page_stores"],
        ["read_store"],
        ["room"],
        ["add_doc"],  # parsed beforehand by the room, kept in this process
        ["page_docs"],
        ["getdel"],
        ["snapshot"],  # this process parsed the document when it added it
        ["snapshot", "texts"],  # another process: its record and text fetched once, then parsed
        ["snapshot"],  # ... and kept
        ["get_doc"],
        ["delete_doc"],
        ["delete_store"],
    ]


def test_a_redis_that_cannot_be_reached_is_the_503() -> None:
    (store,) = _stores(f"redis://127.0.0.1:{free_port()}/0", 1)
    for call in (lambda: store.snapshot("ns", ["fileSearchStores/x"]), lambda: store.create("ns", "x")):
        with pytest.raises(errors.ApiError) as down:
            asyncio.run(call())  # type: ignore[arg-type]
        assert down.value.code == 503 and down.value.message == "The service is currently unavailable."


def test_a_document_deleted_between_the_two_round_trips_is_not_searched(redis_url: str) -> None:
    a, b = _stores(redis_url)
    call = b._call

    async def run() -> None:
        store = (await a.create("ns", "s")).name
        kept = await a.add_document("ns", store, b"", "text/plain", size=5, text=b"zebras stay", display_name="kept")
        gone = await a.add_document("ns", store, b"", "text/plain", size=5, text=b"zebras go", display_name="gone")

        async def racing(script: str, *args: Any) -> Any:
            if script == "texts":  # another process deletes one between B's listing and its fetch
                await a.delete_document("ns", gone.name, force=True)
            return await call(script, *args)

        b._call = racing  # type: ignore[method-assign]
        hits = (await b.snapshot("ns", [store])).search("ns", [store], "zebras")
        assert [h.document.name for h in hits] == [kept.name]

    asyncio.run(run())


def test_texts_are_fetched_at_most_fetch_bytes_a_round_trip(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_search_redis, "FETCH_BYTES", 40)
    a, b = _stores(redis_url)
    calls: list[str] = []
    call = b._call

    async def counted(script: str, *args: Any) -> Any:
        calls.append(script)
        return await call(script, *args)

    b._call = counted  # type: ignore[method-assign]

    async def run() -> None:
        store = (await a.create("ns", "s")).name
        for i in range(5):
            data = f"zebras number {i} graze".encode()  # 22 bytes: one fits in 40, two do not
            await a.add_document("ns", store, b"", "text/plain", size=len(data), text=data, display_name=f"d{i}")
        hits = (await b.snapshot("ns", [store])).search("ns", [store], "zebras", top_k=10)
        assert [h.document.display_name for h in hits] == [f"d{i}" for i in range(5)]

    asyncio.run(run())
    assert calls == ["snapshot"] + ["texts"] * 5
