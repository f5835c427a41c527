"""The cached-contents store on its own: expiry by its clock, isolation, paging and bounds."""

from __future__ import annotations

import pytest

from gemini_emulator.stores.caches import CachedContent, CacheFull, CacheStore, stamp

SECOND = 10**9


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000 * SECOND

    def __call__(self) -> int:
        return self.now


def _entry(size: int = 10) -> CachedContent:
    return CachedContent(model="models/gemini-2.5-flash", tokens_text=2000, size=size)


def test_expiry_by_the_clock_and_isolation() -> None:
    clock = Clock()
    store = CacheStore(clock=clock)
    made = store.create("a", _entry(), clock.now + 10 * SECOND)
    assert store.get("a", made.name) is made
    assert store.get("b", made.name) is None  # another caller's name is simply not there
    clock.now += 9 * SECOND
    assert store.set_expiry("a", made.name, clock.now + 5 * SECOND) is made and made.updated == clock.now
    clock.now += 5 * SECOND
    assert store.get("a", made.name) is None and store.counts() == {}
    assert not store.delete("a", made.name)


def test_lookups_under_unknown_keys_keep_nothing() -> None:
    store = CacheStore()
    for i in range(1000):
        assert store.get(f"k{i}", "cachedContents/x") is None
        assert store.list(f"k{i}") == ([], "")
    assert store._spaces == {}


def test_paging_and_parent() -> None:
    clock = Clock()
    store = CacheStore(clock=clock)
    names = [store.create("a", _entry(), clock.now + SECOND).name for _ in range(5)]
    vertex = CachedContent(model="m", parent="projects/p/locations/l/")
    store.create("a", vertex, clock.now + SECOND)
    page, token = store.list("a", page_size=2)
    assert [e.name for e in page] == names[:2] and token == names[2]
    page, token = store.list("a", page_size=2, page_token=token)
    assert [e.name for e in page] == names[2:4]
    page, token = store.list("a", page_size=2, page_token=token)
    assert [e.name for e in page] == names[4:] and token == ""
    assert [e.name for e in store.list("a", parent="projects/p/locations/l/")[0]] == [vertex.name]
    assert vertex.name.rsplit("/", 1)[1].isdigit()


def test_bounds_refuse_without_evicting() -> None:
    clock = Clock()
    store = CacheStore(max_per_namespace=2, max_bytes_per_namespace=100, max_bytes=150, clock=clock)
    store.create("a", _entry(), clock.now + SECOND)
    store.create("a", _entry(), clock.now + SECOND)
    with pytest.raises(CacheFull, match="holds 2"):
        store.create("a", _entry(), clock.now + SECOND)
    with pytest.raises(CacheFull, match="per caller"):
        store.create("b", _entry(size=101), clock.now + SECOND)
    store.create("b", _entry(size=90), clock.now + SECOND)
    with pytest.raises(CacheFull, match="150 bytes"):
        store.create("c", _entry(size=41), clock.now + SECOND)
    assert store.counts() == {"a": 2, "b": 1}
    store.reset("b")
    store.create("c", _entry(size=40), clock.now + SECOND)
    store.reset()
    assert store.counts() == {}


def test_stamp_digits() -> None:
    ns = 1_780_000_000 * SECOND + 123_456_789
    assert stamp(ns) == "2026-05-28T20:26:40.123456Z"
    assert stamp(ns, 9) == "2026-05-28T20:26:40.123456789Z"
