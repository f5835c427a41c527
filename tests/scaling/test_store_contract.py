"""The state-store contract, one suite over both stores: the in-memory ScriptStore and Journal (the default) and
their Redis twins (RedisScriptStore, RedisJournal) on a real redis-server (tests/scaling/conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from gemini_emulator.admin.journal import Journal
from gemini_emulator.admin.journal_redis import RedisJournal
from gemini_emulator.engines.scripted import store as memory_store
from gemini_emulator.engines.scripted.redis_store import RedisScriptStore
from gemini_emulator.engines.scripted.store import ScriptStore
from gemini_emulator.seam import SHARED, EntryError, GenerateRequest
from gemini_emulator.seam.state import RedisLink


@pytest.fixture(params=["memory", "redis"])
def book(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield ScriptStore()
    else:
        yield RedisScriptStore(RedisLink(request.getfixturevalue("redis_url")))


@pytest.fixture(params=["memory", "redis"])
def journal(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield Journal(cap=5)
    else:
        yield RedisJournal(RedisLink(request.getfixturevalue("redis_url")), cap=5)


def ask(text: str, namespace: str = "a") -> GenerateRequest:
    return GenerateRequest("gemini-2.5-flash", "gemini-2.5-flash", "developer", False, namespace, _contents(text))


def _contents(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "parts": [{"text": text}]}]


def served(book: Any, text: str = "x", namespace: str = "a") -> str | None:
    entry = book.select(ask(text, namespace)).entry
    return None if entry is None else entry.spec.get("text")


def test_order_and_times(book: Any) -> None:
    book.add("a", [{"text": "one"}, {"text": "two", "times": 2}, {"text": "three"}])
    assert [served(book) for _ in range(5)] == ["one", "two", "two", "three", None]
    assert book.pending("a") == []


def test_matchers_come_before_plain_entries(book: Any) -> None:
    book.add("a", [{"text": "plain"}, {"match": {"text": "hello"}, "text": "matched"}])
    assert served(book, "something else") == "plain"
    book.add("a", [{"text": "plain 2"}])
    assert served(book, "hello there") == "matched"
    assert served(book, "hello there") == "plain 2"


def test_strict_and_its_fallbacks(book: Any) -> None:
    assert book.is_strict("a") is False
    book.set_strict(SHARED, True)
    assert book.is_strict("a") is True
    book.set_strict("a", False)
    assert book.is_strict("a") is False
    book.set_strict("a", None)
    assert book.is_strict("a") is True


def test_shared_namespace_answers_when_own_has_nothing(book: Any) -> None:
    book.add(SHARED, [{"text": "shared"}])
    book.add("a", [{"match": {"text": "mine"}, "text": "own"}])
    assert served(book, "other") == "shared"
    assert served(book, "mine") == "own"
    assert served(book, "other", namespace="b") is None


def test_namespaces_apart_and_reset(book: Any) -> None:
    book.add("a", [{"text": "a1"}])
    book.add("b", [{"text": "b1"}])
    assert book.pending_counts() == {"a": 1, "b": 1}
    book.reset("a")
    assert served(book) is None and served(book, namespace="b") == "b1"
    book.add("a", [{"text": "again"}], replace=True)
    book.reset()
    assert book.pending_counts() == {} and served(book) is None


def test_bounds(book: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from gemini_emulator.engines.scripted import redis_store

    for module in (memory_store, redis_store):
        monkeypatch.setattr(module, "MAX_ENTRIES", 3)
        monkeypatch.setattr(module, "MAX_NAMESPACES", 2)
    book.add("a", [{"text": "1"}, {"text": "2"}])
    with pytest.raises(EntryError):
        book.add("a", [{"text": "3"}, {"text": "4"}])
    assert len(book.pending("a")) == 2  # all or nothing
    book.add("b", [{"text": "b"}])
    book.add("c", [{"text": "c"}])  # a third namespace forgets the idlest ("a")
    assert sorted(book.pending_counts()) == ["b", "c"]


def test_redis_answer_is_async_and_one_round_trip(redis_url: str, redis_server: Any) -> None:
    """The request path: a plain request with no script anywhere costs one Redis call (INFO commandstats)."""
    book = RedisScriptStore(RedisLink(redis_url))
    book.add("a", [{"text": "one"}])

    async def run() -> list[Any]:
        first = await book.answer(ask("x"))
        redis_server.client().config_resetstat()
        plain = await book.answer(ask("x", namespace="nobody"))
        return [first, plain]

    first, plain = asyncio.run(run())
    assert first.entry.spec["text"] == "one" and plain.entry is None
    stats = redis_server.client().info("commandstats")
    assert stats["cmdstat_evalsha"]["calls"] == 1
    assert sum(v["calls"] for k, v in stats.items() if k != "cmdstat_config|resetstat") <= 1 + 6  # inside the Lua


def test_redis_probes_of_one_loop_turn_share_one_call(redis_url: str, redis_server: Any) -> None:
    """Requests that probe in the same turn of the event loop share one PROBE call (a group probe), and each still
    gets its own namespace's answer: 20 namespaces without entries cost one call between them; beside them, 10
    namespaces with one entry each are each served their own entry, exactly once."""
    book = RedisScriptStore(RedisLink(redis_url))
    for i in range(10):
        book.add(f"owner-{i}", [{"text": f"for owner {i}"}])

    async def run() -> tuple[list[Any], list[Any]]:
        await book.answer(ask("x", namespace="warm"))  # the scripts are loaded, the connection made
        redis_server.client().config_resetstat()
        plain = await asyncio.gather(*(book.answer(ask("x", namespace=f"empty-{i}")) for i in range(20)))
        calls = redis_server.client().info("commandstats")["cmdstat_evalsha"]["calls"]
        owned = await asyncio.gather(*(book.answer(ask("x", namespace=f"owner-{i % 10}")) for i in range(20)))
        return [calls, *plain], owned

    (calls, *plain), owned = asyncio.run(run())
    assert calls == 1 and all(outcome.entry is None for outcome in plain)
    texts = [None if outcome.entry is None else outcome.entry.spec["text"] for outcome in owned]
    for i in range(10):  # each namespace's two requests: one served its entry, the other nothing
        assert sorted([texts[i], texts[i + 10]], key=str) == sorted([f"for owner {i}", None], key=str)


def finish(journal: Any, namespace: str, path: str = "/p", key: str = "SECRET-KEY-123") -> None:
    record = journal.begin("POST", path, {"key": key}, [(b"x-goog-api-key", key.encode()), (b"host", b"h")])
    record.namespace = namespace
    record.body = {"contents": "hi"}
    journal.finish(record, 200, b'{"ok": true}')


def test_journal_order_cap_paging(journal: Any) -> None:
    for i in range(4):
        finish(journal, "a", f"/a{i}")
    for i in range(3):
        finish(journal, "b", f"/b{i}")
    # cap 5: the namespace holding the most loses its oldest records first
    assert journal.counts() == {"a": 3, "b": 2} or journal.counts() == {"a": 2, "b": 3}
    assert journal.evicted == 2
    paths = [r.to_json()["path"] for r in journal.query()]
    assert paths == sorted(paths, key=lambda p: (p[1] == "b", p)) or len(paths) == 5
    ids = [r.id for r in journal.query()]
    assert ids == sorted(ids)
    page, following = journal.page(limit=2)
    assert len(page) == 2 and following == page[-1].id
    rest, end = journal.page(since=following, limit=10)
    assert [r.id for r in page + rest] == ids and end is None
    journal.clear("a")
    assert set(journal.counts()) == {"b"}
    journal.clear()
    assert journal.counts() == {}


def test_no_credential_reaches_redis(redis_url: str, redis_server: Any) -> None:
    journal = RedisJournal(RedisLink(redis_url), cap=100)
    finish(journal, "a", key="SECRET-KEY-123")
    finish(journal, "a", key="SECRET-KEY-123")
    record = journal.query()[0].to_json()
    assert record["headers"]["x-goog-api-key"] == "REDACTED" and record["query"]["key"] == "REDACTED"
    client = redis_server.client()
    for name in client.scan_iter(count=1000):
        kind = client.type(name)
        dump = client.dump(name) or b""
        assert b"SECRET-KEY-123" not in name + dump, (name, kind)
