"""The file store on its own: the byte budget, spilling past the memory budget, the temporary directory's
removal, expiry, states, sessions and isolation."""

from __future__ import annotations

import base64
import hashlib
import os

import pytest

from gemini_emulator.stores import files as files_module
from gemini_emulator.stores.files import EXPIRY_NS, FilesFull, FileStore, FileTooLarge


class Clock:
    def __init__(self) -> None:
        self.now = 10.0
        self.wall = 1_764_650_000 * 10**9

    def __call__(self) -> float:
        return self.now

    def ns(self) -> int:
        return self.wall


def test_budget_counts_every_byte_and_deleting_gives_them_back() -> None:
    store = FileStore(budget_bytes=100, memory_bytes=100)
    first = store.put("a", b"x" * 60, "text/plain")
    with pytest.raises(FilesFull):
        store.put("b", b"y" * 41, "text/plain")  # the budget is shared: another namespace is refused too
    assert store.used == 60
    store.delete("a", first.name)
    assert store.used == 0
    store.put("b", b"y" * 100, "text/plain")
    store.reset()
    assert store.used == 0


def test_past_the_memory_budget_bytes_spill_to_disk_and_the_directory_goes_on_close() -> None:
    store = FileStore(budget_bytes=1 << 20, memory_bytes=10)
    small = store.put("a", b"tiny", "text/plain")
    big = store.put("a", b"z" * 5000, "application/octet-stream")
    assert small.blob.memory == b"tiny" and small.blob.path is None
    assert big.blob.memory is None and big.blob.path is not None and os.path.getsize(big.blob.path) == 5000
    assert store.read(big) == b"z" * 5000
    directory = store.directory()
    store.delete("a", big.name)
    assert not os.path.exists(big.blob.path)
    store.close()
    assert not os.path.exists(directory)


def test_a_spool_that_grows_past_memory_moves_what_it_held() -> None:
    store = FileStore(budget_bytes=1 << 20, memory_bytes=8)
    spool = store.spool()
    spool.write(b"abcd")
    spool.write(b"efghijkl")  # past 8 bytes: the first four go to disk with it
    stored = store.store("a", spool, "text/plain")
    assert store.read(stored) == b"abcdefghijkl" and stored.blob.path is not None
    assert store._memory_used == 0
    store.close()


def test_per_file_limit() -> None:
    store = FileStore(max_file_bytes=10)
    spool = store.spool()
    with pytest.raises(FileTooLarge):
        spool.write(b"x" * 11)
    spool.discard()
    assert store.used == 0


def test_view_spells_fields_as_production() -> None:
    clock = Clock()
    store = FileStore(clock=clock, wall_ns=clock.ns)
    stored = store.put("a", b"hello", "text/plain", display_name="Greeting", source="UPLOADED")
    view = stored.view("http://127.0.0.1:9")
    assert list(view) == [
        "name",
        "displayName",
        "mimeType",
        "sizeBytes",
        "createTime",
        "updateTime",
        "expirationTime",
        "sha256Hash",
        "uri",
        "state",
        "source",
    ]
    assert view["sizeBytes"] == "5"
    assert base64.b64decode(view["sha256Hash"]).decode() == hashlib.sha256(b"hello").hexdigest()
    assert view["createTime"] == "2025-12-02T04:33:20.000000Z"
    assert view["expirationTime"] == "2025-12-04T04:33:20.000000000Z"
    assert view["uri"] == f"http://127.0.0.1:9/v1beta/{stored.name}"
    generated = store.put("a", b"{}", "application/jsonl").view("http://h")
    assert generated["source"] == "GENERATED" and generated["downloadUri"].endswith(":download?alt=media")


def test_expired_files_are_gone_and_their_bytes_freed() -> None:
    clock = Clock()
    store = FileStore(clock=clock, wall_ns=clock.ns)
    stored = store.put("a", b"data", "text/plain")
    clock.wall += EXPIRY_NS - 1
    assert store.get("a", stored.name) is stored
    clock.wall += 1
    assert store.get("a", stored.name) is None and store.used == 0


def test_videos_process_first_and_states_can_be_forced() -> None:
    clock = Clock()
    store = FileStore(video_processing_s=2, clock=clock, wall_ns=clock.ns)
    video = store.put("a", b"v", "video/mp4", source="UPLOADED")
    assert video.state == "PROCESSING"
    clock.now += 2
    assert video.state == "ACTIVE"
    store.set_state("a", video.name, "FAILED", {"code": 3, "message": "bad codec"})
    assert video.view("")["error"] == {"code": 3, "message": "bad codec"} and video.state == "FAILED"
    store.next_state("a", "PROCESSING")
    held = store.put("a", b"i", "image/png")
    later = store.put("a", b"j", "image/png")
    clock.now += 100
    assert (held.state, later.state) == ("PROCESSING", "ACTIVE")


def test_namespaces_and_sessions() -> None:
    clock = Clock()
    store = FileStore(clock=clock, wall_ns=clock.ns)
    stored = store.put("a", b"data", "text/plain")
    assert store.get("b", stored.name) is None and not store.delete("b", stored.name)
    session = store.start_upload("a", "text/plain", "", None, 4)
    assert len(session.id) >= 60 and store.upload(session.id) is session
    session.spool.write(b"ab")
    clock.now += files_module.SESSION_TTL_S + 1
    assert store.upload(session.id) is None and store.used == 4  # the abandoned upload's bytes are back
    page, token = store.list("a", 10)
    assert page == [stored] and token == ""
