"""The Redis file store (stores/files_redis.py) on a real redis-server: the Redis twins of the four room tests
that read the in-memory store's counters (the budget, a refused or cancelled upload, the admin API's states, a
stalled chunk), and the store's own facts: bytes in chunks of at most a MiB, each key with a TTL past the 48 h
expiry, an expired file forgotten on read with its bytes given back, the count bound per namespace, two stores
racing one offset (one wins), the round trips per call, and a Redis gone mid-upload or mid-download (503)."""

from __future__ import annotations

import asyncio
import io
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.config import Settings
from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores.files import EXPIRY_NS, FilesFull
from gemini_emulator.stores.files_redis import CHUNK_BYTES, PREFIX, SCRIPTS, RedisFileStore
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

MiB = 1 << 20


@pytest.fixture
def running(redis_url: str) -> Iterator[RunningEmulator]:
    served = start(Settings(port=0, store=redis_url, files_budget_bytes=1000))
    yield served
    served.stop()


def _shared(running: RunningEmulator) -> RedisFileStore:
    store = running.context.shared_files
    assert store is not None
    return store


def _start(http: httpx.Client, size: int, mime: str = "text/plain") -> str:
    answer = http.post(
        "/upload/v1beta/files",
        headers={
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
        },
        json={"file": {"mimeType": mime, "sizeBytes": size}},
    )
    assert answer.status_code == 200, answer.text
    return answer.headers["x-goog-upload-url"]


def test_the_byte_budget_is_counted_in_redis_and_freed_on_delete(running: RunningEmulator) -> None:
    client = genai.Client(api_key="budget", http_options=types.HttpOptions(base_url=running.url))
    kept = client.files.upload(file=io.BytesIO(b"a" * 600), config={"mime_type": "text/plain"})
    with pytest.raises(errors.ClientError) as full:
        client.files.upload(file=io.BytesIO(b"b" * 600), config={"mime_type": "text/plain"})
    assert full.value.code == 429 and "--files-budget-bytes" in full.value.message
    assert _shared(running).used == 600  # the refused upload's bytes were given back
    client.files.delete(name=kept.name)
    assert _shared(running).used == 0
    client.files.upload(file=io.BytesIO(b"c" * 900), config={"mime_type": "text/plain"})
    assert _shared(running).used == 900


def test_refused_and_cancelled_uploads_hold_nothing(running: RunningEmulator) -> None:
    with httpx.Client(base_url=running.url, headers={"x-goog-api-key": "k"}) as http:
        short = _start(http, 10)
        answer = http.post(
            short, headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}, content=b"abc"
        )
        assert answer.status_code == 400 and answer.headers["x-goog-upload-status"] == "final"
        over = _start(http, 2)
        answer = http.post(
            over, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=b"abc"
        )
        assert answer.status_code == 400 and answer.headers["x-goog-upload-status"] == "final"
        cancelled = _start(http, 5)
        part = http.post(
            cancelled, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=b"ab"
        )
        assert part.headers["x-goog-upload-size-received"] == "2"
        assert _shared(running).used == 2
        answer = http.post(cancelled, headers={"X-Goog-Upload-Command": "cancel"})
        assert answer.headers["x-goog-upload-status"] == "cancelled"
        assert http.get("/v1beta/files").json() == {}
    assert _shared(running).used == 0


def test_states_set_through_the_admin_api_on_redis(running: RunningEmulator) -> None:
    key = {"x-goog-api-key": "states"}
    client = genai.Client(api_key="states", http_options=types.HttpOptions(base_url=running.url))
    admin = httpx.Client(base_url=running.url + "/__emulator", headers=key)
    assert admin.put("/files/state", json={"state": "PROCESSING"}).status_code == 200  # the next upload
    held = client.files.upload(file=io.BytesIO(b"a"), config={"mime_type": "text/plain"})
    assert held.state == types.FileState.PROCESSING
    failed = admin.put(
        "/files/state", json={"name": held.name, "state": "FAILED", "error": {"code": 3, "message": "bad"}}
    )
    assert failed.status_code == 200
    seen = client.files.get(name=held.name)
    assert seen.state == types.FileState.FAILED and seen.error is not None and seen.error.message == "bad"
    assert admin.put("/files/state", json={"name": held.name, "state": "ACTIVE"}).status_code == 200
    assert client.files.get(name=held.name).state == types.FileState.ACTIVE
    listed = admin.get("/resources", params={"kind": "files"}).json()["resources"]["files"]
    assert [(f["name"], f["sizeBytes"], f["state"]) for f in listed] == [(held.name, 1, "ACTIVE")]
    assert admin.delete("/resources", params={"name": held.name}).status_code == 200
    assert _shared(running).all(listed[0]["namespace"]) == [] and _shared(running).used == 0
    admin.close()


@pytest.mark.slow
def test_a_stalled_chunk_gets_408_and_its_bytes_are_freed(redis_url: str) -> None:
    running = start(Settings(port=0, body_timeout=1, store=redis_url))
    try:
        http = httpx.Client(base_url=running.url, headers={"x-goog-api-key": "stall"})
        url = _start(http, 100)
        path = url.split(running.url, 1)[1]
        with socket.create_connection((running.host, running.port), timeout=10) as sock:
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {running.host}:{running.port}\r\nContent-Length: 100\r\n"
                "X-Goog-Upload-Command: upload, finalize\r\nX-Goog-Upload-Offset: 0\r\n\r\n"
            )
            sock.sendall(head.encode() + b"x" * 10)
            answer = sock.recv(65536).decode("latin-1")
        assert answer.startswith("HTTP/1.1 408"), answer[:200]
        assert "x-goog-upload-status: final" in answer.lower()
        assert _shared(running).used == 0
        http.close()
    finally:
        running.stop()


def _store(url: str, **kw: Any) -> RedisFileStore:
    return RedisFileStore(RedisLink(url), **kw)


def test_bytes_are_chunked_and_every_key_has_a_ttl_past_the_expiry(redis_url: str, redis_server: RedisServer) -> None:
    store = _store(redis_url)
    data = bytes(range(256)) * (14 * 1024)  # 3.5 MiB

    async def run() -> Any:
        made = await store.put("ns", data, "application/octet-stream")
        return made, await store.get("ns", made.name), await store.read(made)

    made, seen, read = asyncio.run(run())
    assert seen is not None and seen.size == len(data) and read == data
    assert seen.sha256_hex == made.sha256_hex
    redis = redis_server.client()
    chunks = sorted(redis.keys(PREFIX + "d:*"))
    assert len(chunks) == 4 and max(redis.strlen(k) for k in chunks) == CHUNK_BYTES == MiB
    day2_ms = EXPIRY_NS // 1_000_000
    for key in [*chunks, f"{PREFIX}m:ns:{made.name}".encode()]:
        assert day2_ms < redis.pttl(key) <= day2_ms + 3 * 3600 * 1000
    assert store.used == len(data)


def test_an_expired_file_is_forgotten_on_read_and_its_bytes_given_back(
    redis_url: str, redis_server: RedisServer
) -> None:
    store = _store(redis_url)

    async def made() -> Any:
        return await store.put("ns", b"x" * 100, "text/plain")

    stored = asyncio.run(made())
    redis = redis_server.client()
    redis.hset(f"{PREFIX}m:ns:{stored.name}", "expires", time.time_ns() - 1)  # its 48 hours are over
    assert asyncio.run(store.get("ns", stored.name)) is None
    assert store.used == 0 and redis.keys(PREFIX + "d:*") == []
    other = asyncio.run(made())  # and one nobody reads: the next reserving call forgets it
    blob = redis.hget(f"{PREFIX}m:ns:{other.name}", "blob").decode()
    redis.delete(f"{PREFIX}m:ns:{other.name}")  # its hash's TTL came first: the schedule still gives its bytes back
    redis.zadd(PREFIX + "x", {f"f:{blob}:ns:{other.name}": 0})
    asyncio.run(store.put("ns2", b"y", "text/plain"))
    assert store.used == 1 and asyncio.run(store.list("ns", 10)) == ([], "")


def test_the_count_bound_forgets_the_namespace_s_oldest(redis_url: str) -> None:
    store = _store(redis_url, max_per_namespace=3)

    async def run() -> list[str]:
        names = [(await store.put("ns", b"%d" % i, "text/plain")).name for i in range(5)]
        await store.put("other", b"o", "text/plain")
        page, _ = await store.list("ns", 10)
        assert [f.name for f in page] == names[:1:-1]
        return names

    asyncio.run(run())
    assert store.used == 4  # three of ns's, one of other's


def test_two_stores_share_one_budget(redis_url: str) -> None:
    first, second = _store(redis_url, budget_bytes=1000), _store(redis_url, budget_bytes=1000)

    async def run() -> None:
        await first.put("a", b"x" * 700, "text/plain")
        with pytest.raises(FilesFull):
            await second.put("b", b"y" * 400, "text/plain")

    asyncio.run(run())
    assert second.used == 700


def test_two_requests_racing_one_offset_one_wins(redis_url: str) -> None:
    """Two stores (two processes) each take the session at offset 0 after it lapsed, or race it: one appends,
    the other is refused (another request holds it, or the offset moved on): never both."""
    stores = [_store(redis_url) for _ in range(8)]

    async def run() -> list[int]:
        upload = await stores[0].start_upload("ns", "text/plain", "", None, 10)
        takes = await asyncio.gather(*(s.take(upload, True, "0", f"t{i}") for i, s in enumerate(stores)))
        return [code for code, _ in takes]

    codes = asyncio.run(run())
    assert sorted(codes) == [1] + [2] * 7

    async def lapsed() -> tuple[list[int], int]:
        upload = await stores[0].start_upload("ns", "text/plain", "", None, 10)
        code, session = await stores[0].take(upload, True, "0", "a")
        assert code == 1 and session is not None
        await stores[0].release(upload, "a")
        _, again = await stores[1].take(upload, True, "0", "b")
        assert again is not None
        spool = stores[1].receiver(again, "b")
        await spool.write(b"hello")
        await spool.flush()
        await stores[1].release(upload, "b")
        late, seen = await stores[0].take(upload, True, "0", "c")  # the offset moved on
        assert seen is not None
        return [late], seen.size

    late, size = asyncio.run(lapsed())
    assert late == [3] and size == 5


def test_round_trips_per_call(tmp_path: Any) -> None:
    """One Lua call for get, list, delete, a small put (write + commit: two), a resumable start and a take;
    a download is one GET per chunk (INFO commandstats counts every client's calls, so the test has a
    redis-server of its own: another test's server left running on the shared one would add its calls)."""
    own = RedisServer(tmp_path / "redis").start()
    try:
        _round_trips(_store(own.url), own.client())
    finally:
        own.stop()


def _round_trips(store: RedisFileStore, redis: Any) -> None:
    for text in SCRIPTS.values():  # loaded, as a running server's are after its first calls: no NOSCRIPT retries
        redis.script_load(text)

    def calls(step: Any) -> dict[str, int]:
        redis.config_resetstat()
        asyncio.run(step())
        stats = redis.info("commandstats")
        return {k: v["calls"] for k, v in stats.items() if k in ("cmdstat_evalsha", "cmdstat_eval")}

    made: list[Any] = []

    async def put() -> None:
        made.append(await store.put("ns", b"x" * (2 * MiB + 1), "text/plain"))

    assert calls(put)["cmdstat_evalsha"] == 3 + 1  # a chunk per MiB (3) and the commit
    assert calls(lambda: store.get("ns", made[0].name)) == {"cmdstat_evalsha": 1}
    assert calls(lambda: store.list("ns", 10)) == {"cmdstat_evalsha": 1}

    async def download() -> None:
        assert len(await store.read(made[0])) == 2 * MiB + 1

    redis.config_resetstat()
    asyncio.run(download())
    assert redis.info("commandstats")["cmdstat_get"]["calls"] == 3
    assert calls(lambda: store.start_upload("ns", "text/plain", "", None, None)) == {"cmdstat_evalsha": 1}
    assert calls(lambda: store.delete("ns", made[0].name)) == {"cmdstat_evalsha": 1}


@pytest.mark.slow
def test_redis_gone_mid_upload_and_mid_download_is_503(tmp_path: Any) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=redis.url))
    try:
        key = {"x-goog-api-key": "down"}
        with httpx.Client(base_url=running.url, headers=key, timeout=30) as http:
            url = _start(http, 3 * MiB)
            first = http.post(
                url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=b"a" * MiB
            )
            assert first.status_code == 200
            made = http.post(
                "/upload/v1beta/files",
                params={"uploadType": "media"},
                content=b"d" * MiB,
                headers={"content-type": "text/plain"},
            ).json()["file"]
            redis.stop()
            began = time.monotonic()
            chunk = http.post(
                url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": str(MiB)}, content=b"b" * MiB
            )
            assert chunk.status_code == 503 and chunk.json()["error"]["status"] == "UNAVAILABLE"
            raw = http.post("/upload/v1beta/files", params={"uploadType": "media"}, content=b"c" * 10)
            assert raw.status_code == 503 and raw.json()["error"] == {
                "code": 503,
                "message": "The service is currently unavailable.",
                "status": "UNAVAILABLE",
            }
            download = http.get(f"/v1beta/{made['name']}:download", params={"alt": "media"})
            assert download.status_code == 503 and download.json()["error"]["code"] == 503
            assert http.get("/v1beta/files").status_code == 503
            assert time.monotonic() - began < 15  # each within the socket timeouts, no hang
    finally:
        running.stop()
        redis.stop()


@pytest.mark.slow
def test_redis_gone_after_a_download_began_ends_it_short_without_a_hang(tmp_path: Any) -> None:
    """The status line was sent with the first chunk: a Redis gone after it ends the body short of its
    Content-Length (the client sees an incomplete body), within the socket timeouts."""
    redis = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=redis.url))
    try:
        key = {"x-goog-api-key": "down"}
        size = 32 * MiB
        with httpx.Client(base_url=running.url, headers=key, timeout=30) as http:
            made = http.post("/upload/v1beta/files", params={"uploadType": "media"}, content=b"d" * size).json()["file"]
            began = time.monotonic()
            received = 0
            with (
                pytest.raises(httpx.HTTPError),
                http.stream("GET", f"/v1beta/{made['name']}:download", params={"alt": "media"}) as download,
            ):
                assert download.status_code == 200 and download.headers["content-length"] == str(size)
                for piece in download.iter_raw(MiB):
                    received += len(piece)
                    if received >= MiB and redis.process is not None:
                        redis.stop()
            assert MiB <= received < size and time.monotonic() - began < 15
            assert http.get("/v1beta/files").status_code == 503
    finally:
        running.stop()
        redis.stop()


def test_sessions_keep_their_bounds_and_a_lapsed_one_gives_its_bytes_back(
    redis_url: str, redis_server: RedisServer
) -> None:
    store = _store(redis_url)
    redis = redis_server.client()

    async def run() -> None:
        ids = [await store.start_upload("ns", "text/plain", "", None, None) for _ in range(33)]
        assert (await store.take(ids[0], False, None, "t"))[1] is None  # the caller's 33rd evicted its oldest
        assert all([(await store.take(i, False, None, "t"))[1] is not None for i in ids[1:]])
        code, session = await store.take(ids[1], True, "0", "t")
        assert code == 1 and session is not None
        spool = store.receiver(session, "t")
        await spool.write(b"x" * 10)
        await spool.flush()
        assert store.used == 10
        redis.zadd(PREFIX + "x", {f"u:{session.blob}:{ids[1]}": 0})  # its hour is over
        await store.start_upload("other", "text/plain", "", None, None)  # any reserving call works the schedule
        assert (await store.take(ids[1], False, None, "t"))[1] is None and store.used == 0

    asyncio.run(run())
    assert redis.zcard(PREFIX + "s:ns") == 31 and redis.zcard(PREFIX + "s") == 32


def _start_keyed(http: httpx.Client, key: str) -> str:
    started = http.post(
        "/upload/v1beta/files",
        params={"key": key},
        headers={"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"},
        json={"file": {"displayName": "held", "mimeType": "text/plain"}},
    )
    assert started.status_code == 200, started.text
    return str(started.headers["x-goog-upload-url"])


def test_a_cancel_while_a_chunk_arrives_gives_back_every_byte_on_redis(running: RunningEmulator) -> None:
    """tests/redteam/test_redteam_round2.py's race on Redis: the rest of a chunk arriving after a cancel finds
    the session gone (404) and spends nothing; every byte is given back once."""
    import threading

    store = _shared(running)
    store.budget_bytes = 64 * MiB
    url = _start_keyed(httpx.Client(base_url=running.url), "race")
    piece = b"x" * MiB
    go_on, sent_first = threading.Event(), threading.Event()

    def body() -> Any:
        yield piece
        sent_first.set()
        go_on.wait(10)
        yield from [piece] * 7

    answers: list[httpx.Response] = []
    upload = {"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}
    worker = threading.Thread(target=lambda: answers.append(httpx.post(url, content=body(), headers=upload)))
    worker.start()
    assert sent_first.wait(10)
    deadline = time.monotonic() + 10
    while store.used == 0:  # the first MiB is in Redis
        assert time.monotonic() < deadline
        time.sleep(0.01)
    cancelled = httpx.post(url, headers={"x-goog-upload-command": "cancel"})
    assert cancelled.headers["x-goog-upload-status"] == "cancelled"
    go_on.set()
    worker.join(20)
    assert answers[0].status_code == 404 and answers[0].headers["x-goog-upload-status"] == "final"
    assert store.used == 0
    assert httpx.get(running.url + "/v1beta/files", params={"key": "race"}).json() == {}


def test_one_keys_resumable_uploads_cannot_evict_anothers_on_redis(running: RunningEmulator) -> None:
    from gemini_emulator.stores.files import MAX_SESSIONS

    with httpx.Client(base_url=running.url) as http:
        victim = _start_keyed(http, "victim")
        for _ in range(MAX_SESSIONS + 10):
            _start_keyed(http, "hog")
        query = http.post(victim, headers={"x-goog-upload-command": "query"})
    assert query.status_code == 200 and query.headers["x-goog-upload-status"] == "active"


def test_a_batch_items_file_uris_are_checked_against_the_files_on_redis(running: RunningEmulator) -> None:
    client = genai.Client(api_key="batchfiles", http_options=types.HttpOptions(base_url=running.url))
    notes = client.files.upload(file=io.BytesIO(b"notes"), config={"mime_type": "text/plain"})
    httpx.put(
        running.url + "/__emulator/batches",
        json={"pendingMs": 0, "runningMs": 0},
        headers={"x-goog-api-key": "batchfiles"},
    ).raise_for_status()

    def ask(uri: str) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"fileData": {"fileUri": uri, "mimeType": "text/plain"}}]}]}

    job = client.batches.create(model="gemini-2.5-flash", src=[ask(notes.uri or ""), ask("files/nosuchfile")])  # type: ignore[arg-type]
    deadline = time.monotonic() + 20
    while not (seen := client.batches.get(name=job.name or "")).done:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert seen.dest is not None and seen.dest.inlined_responses is not None
    known, unknown = seen.dest.inlined_responses
    assert known.response is not None and f"the attached file {notes.name}" in (known.response.text or "")
    assert unknown.error is not None and unknown.error.code == 7  # PERMISSION_DENIED, as in memory


def test_the_finalizing_process_hashes_what_it_fed_and_reads_back_what_it_did_not(redis_url: str) -> None:
    """A session fed through one store (process) keeps its running sha256 there; a store that did not see every
    byte reads them back at the finalize. Both give the sha256 of the whole."""
    import hashlib

    first, second = _store(redis_url), _store(redis_url)

    async def feed(store: RedisFileStore, upload: str, data: bytes, offset: int, final: bool) -> str:
        code, session = await store.take(upload, True, str(offset), "t")
        assert code == 1 and session is not None
        spool = store.receiver(session, "t")
        await spool.write(data)
        await spool.flush()
        if not final:
            store.keep_digest(spool)
            await store.release(upload, "t")
            return ""
        return await store.final_digest(session, spool) + ("" if spool.hashed else " (read back)")

    async def run() -> tuple[str, str]:
        same = await first.start_upload("ns", "text/plain", "", None, None)
        await feed(first, same, b"a" * (MiB + 5), 0, False)
        one = await feed(first, same, b"b" * 7, MiB + 5, True)
        mixed = await first.start_upload("ns", "text/plain", "", None, None)
        await feed(first, mixed, b"a" * (MiB + 5), 0, False)
        await feed(second, mixed, b"c" * 3, MiB + 5, False)
        two = await feed(first, mixed, b"b" * 7, MiB + 8, True)
        return one, two

    one, two = asyncio.run(run())
    assert one == hashlib.sha256(b"a" * (MiB + 5) + b"b" * 7).hexdigest()
    assert two == hashlib.sha256(b"a" * (MiB + 5) + b"c" * 3 + b"b" * 7).hexdigest() + " (read back)"


@pytest.mark.slow
def test_a_redis_that_hangs_holds_no_event_loop_for_files(tmp_path: Any) -> None:
    """On a Redis that accepted the connection but no longer answers (SIGSTOP), a files.get, a chunk and the admin
    API's files listing each wait for their 503 while the process answers its health check at once."""
    import os
    import signal
    import threading
    from concurrent.futures import ThreadPoolExecutor

    redis = RedisServer(tmp_path / "redis").start()
    assert redis.process is not None
    running = start(Settings(port=0, store=redis.url))
    key = {"x-goog-api-key": "hang"}
    try:
        with httpx.Client(base_url=running.url, headers=key, timeout=30) as http:
            made = http.post("/upload/v1beta/files", content=b"x", headers={"content-type": "text/plain"}).json()
            url = _start(http, 10)
            os.kill(redis.process.pid, signal.SIGSTOP)
            sent = threading.Barrier(4)
            asks = [
                ("GET", f"/v1beta/{made['file']['name']}", {}, b""),
                (
                    "POST",
                    url.split(running.url, 1)[1],
                    {"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"},
                    b"ab",
                ),
                ("GET", "/__emulator/resources?kind=files", {}, b""),
            ]

            def asked(method: str, path: str, headers: dict[str, str], content: bytes) -> int:
                with httpx.Client(base_url=running.url, headers=key, timeout=30) as own:
                    own.event_hooks = {"request": [lambda _: sent.wait(10)]}
                    return own.request(method, path, headers=headers, content=content).status_code

            with ThreadPoolExecutor(3) as pool:
                waiting = [pool.submit(asked, *ask) for ask in asks]
                sent.wait(10)  # all three are on their way
                began = time.monotonic()
                health = httpx.get(running.url + "/__emulator/health", timeout=30)
                answered_in = time.monotonic() - began
                statuses = [w.result(timeout=60) for w in waiting]
        assert health.status_code == 200 and answered_in < 1.0
        assert statuses == [503, 503, 503]
    finally:
        if redis.process is not None:
            os.kill(redis.process.pid, signal.SIGCONT)
        running.stop()
        redis.stop()


@pytest.mark.slow
def test_redis_gone_while_a_chunk_streams_in_is_503(tmp_path: Any) -> None:
    """Redis stops between two MiB of one chunk request: the request is answered 503 with the envelope and the
    upload front end's headers, not a 500, within the timeouts."""
    import threading

    redis = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=redis.url))
    try:
        with httpx.Client(base_url=running.url, headers={"x-goog-api-key": "mid"}, timeout=30) as http:
            url = _start(http, 4 * MiB)
        go_on, sent_first = threading.Event(), threading.Event()

        def body() -> Any:
            yield b"x" * MiB
            sent_first.set()
            go_on.wait(10)
            yield from [b"y" * MiB] * 3

        answers: list[httpx.Response] = []
        upload = {"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}
        worker = threading.Thread(
            target=lambda: answers.append(httpx.post(url, content=body(), headers=upload, timeout=30))
        )
        worker.start()
        assert sent_first.wait(10)
        deadline = time.monotonic() + 10
        while _shared(running).used == 0:  # the first MiB is in Redis
            assert time.monotonic() < deadline
            time.sleep(0.01)
        redis.stop()
        began = time.monotonic()
        go_on.set()
        worker.join(30)
        assert answers and answers[0].status_code == 503, answers[0].text[:200] if answers else "no answer"
        assert answers[0].json()["error"]["status"] == "UNAVAILABLE"
        assert answers[0].headers["server"] == "UploadServer" and time.monotonic() - began < 15
    finally:
        running.stop()
        redis.stop()
