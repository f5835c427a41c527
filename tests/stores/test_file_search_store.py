"""The file search store on its own: derived names, chunking, retrieval ranking and bounds, the byte budget,
force deletes and isolation."""

from __future__ import annotations

import re

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.stores import file_search as fs


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_names_are_derived_as_production_derives_them() -> None:
    assert re.fullmatch(r"testfilesearchstore-[a-z0-9]{12}", fs.derived_id("test-file-search-store"))
    assert re.fullmatch(r"testfilesearchgroundingstre-[a-z0-9]{12}", fs.derived_id("test-file-search-grounding-stream"))
    assert re.fullmatch(r"[a-z0-9]{12}-[a-z0-9]{12}", fs.derived_id(""))
    assert re.fullmatch(r"[a-z0-9]{12}-[a-z0-9]{12}", fs.derived_id("!!!"))


def test_chunks_overlap_and_cover_the_text() -> None:
    text = " ".join(f"w{i}" for i in range(10))
    assert fs.chunk_text(text, 4, 1) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert fs.chunk_text(text, 100, 0) == [text]
    assert fs.chunk_text("   ", 4, 0) == []


def test_binary_documents_keep_their_printable_runs() -> None:
    assert fs.extract_text(b"\xff\xfe\x00Hello there\x00\x01ok\x00", "application/pdf") == "Hello there"
    assert fs.extract_text("héllo".encode(), "application/octet-stream") == "héllo"


def test_search_ranks_by_shared_words_and_skips_pending_documents() -> None:
    clock = Clock()
    stores = fs.FileSearchStores(clock=clock)
    store = stores.create("a", "docs")
    stores.add_document("a", store.name, b"Bananas are yellow fruit.", "text/plain")
    stores.add_document("a", store.name, b"Paris is the capital of France.", "text/plain")
    later = stores.add_document("a", store.name, b"France exports cheese from Paris.", "text/plain", ready_at=200.0)
    hits = stores.search("a", [store.name], "What is the capital of France?")
    assert [h.text for h in hits] == ["Paris is the capital of France."]
    assert stores.search("a", [store.name], "hello?") == []  # nothing shared: nothing retrieved
    clock.now = 300.0
    hits = stores.search("a", [store.name], "capital of France, Paris")
    assert [h.document.name for h in hits] == [hits[0].document.name, later.name]
    assert hits[0].score == 3 and hits[1].score == 2
    assert stores.search("b", [store.name], "Paris") == []  # another namespace's store is not searched


def test_budget_force_and_isolation() -> None:
    stores = fs.FileSearchStores(budget_bytes=10)
    store = stores.create("a")
    stores.add_document("a", store.name, b"12345678", "text/plain")
    with pytest.raises(fs.StoreFull):
        stores.add_document("a", store.name, b"123", "text/plain")
    with pytest.raises(errors.ApiError) as refused:
        stores.delete("a", store.name)
    assert refused.value.message == "Cannot delete non-empty FileSearchStore"
    with pytest.raises(errors.ApiError) as hidden:
        stores.delete("b", store.name, force=True)
    assert hidden.value.code == 403
    stores.delete("a", store.name, force=True)
    assert stores.used == 0 and stores.all() == []


def test_stores_per_namespace_are_bounded() -> None:
    stores = fs.FileSearchStores(max_stores=2)
    stores.create("a")
    stores.create("a")
    with pytest.raises(errors.ApiError) as full:
        stores.create("a")
    assert full.value.code == 429
    stores.create("b")
