"""Many processes, one emulator: `gemini-emulator serve --store redis://... --workers 4` over real sockets, with a
real redis-server (tests/scaling/conftest.py). Scripts consumed exactly once under 50 concurrent clients, the
journal whole from any worker, a killed worker, Redis restarted mid-run; and --workers refused without Redis."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from redis_env import RedisServer, free_port

GEMINI = str(Path(sys.executable).with_name("gemini-emulator"))
KEY = {"x-goog-api-key": "scaling-key"}
GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent"
BODY = {"contents": [{"role": "user", "parts": [{"text": "next"}]}]}


class Served:
    def __init__(self, process: subprocess.Popen[bytes], url: str) -> None:
        self.process, self.url = process, url

    def workers(self) -> list[int]:
        """The worker processes' pids (children of the supervisor), from /proc."""
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                pids.append(int(stat.parent.name))
        return pids


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[bytes]] = []

    def start(store: str, workers: int = 1, extra: tuple[str, ...] = ()) -> Served:
        port = free_port()
        command = [GEMINI, "serve", "--port", str(port), "--store", store, "--workers", str(workers), *extra]
        log = (tmp_path / f"server-{port}.log").open("wb")
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=os.environ | {"PYTHONUNBUFFERED": "1"}
        )
        started.append(process)
        served = Served(process, f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / f"server-{port}.log").read_text()
            try:
                if httpx.get(served.url + "/__emulator/health", timeout=1).status_code == 200:
                    if workers == 1 or len(served.workers()) >= workers:
                        return served
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the emulator did not start within 60 s")

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def test_workers_refused_on_the_memory_store() -> None:
    done = subprocess.run([GEMINI, "serve", "--workers", "2"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--workers 2 needs --store redis://" in done.stderr and "its own scripts and journal" in done.stderr


async def consume(url: str, count: int, clients: int = 50) -> list[tuple[int, str]]:
    """`count` generate calls from `clients` concurrent connections: (status, text or error status) each."""
    results: list[tuple[int, str]] = []
    queue = iter(range(count))

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, headers=KEY, timeout=30) as http:
            for _ in queue:
                try:
                    answer = await http.post(GENERATE, json=BODY)
                except httpx.HTTPError as exc:
                    results.append((0, type(exc).__name__))
                    continue
                body = answer.json()
                if answer.status_code == 200:
                    results.append((200, body["candidates"][0]["content"]["parts"][0]["text"]))
                else:
                    results.append((answer.status_code, body["error"]["status"]))

    await asyncio.gather(*(client() for _ in range(clients)))
    return results


def journal_texts(url: str) -> list[str]:
    """Every journaled generate answer's text, read in pages (each page on a fresh connection: any worker)."""
    texts, since = [], 0
    for _ in range(100):
        page = httpx.get(url + "/__emulator/journal", params={"since": since}, headers=KEY, timeout=30).json()
        texts += [r["entry"] for r in page["records"] if r["path"] == GENERATE]
        if "next" not in page:
            return texts
        since = page["next"]
    raise AssertionError("the journal did not end within 100 pages")


@pytest.mark.slow
def test_thousand_entries_consumed_exactly_once_by_four_workers(serve: Any, redis_url: str) -> None:
    served = serve(redis_url, workers=4)
    entries = [{"name": f"e{i}", "text": f"answer {i}"} for i in range(1000)]
    added = httpx.post(served.url + "/__emulator/script", json=entries, headers=KEY, timeout=30).json()
    assert added["added"] == 1000
    results = asyncio.run(consume(served.url, 1000))
    assert [s for s, _ in results] == [200] * 1000
    assert sorted(t for _, t in results) == sorted(e["text"] for e in entries)  # every text exactly once
    for _ in range(4):  # any worker's journal holds all 1,000 in order of service
        names = journal_texts(served.url)
        assert sorted(names) == sorted(e["name"] for e in entries)
    assert httpx.get(served.url + "/__emulator/script", headers=KEY).json()["entries"] == []
    strict = httpx.put(served.url + "/__emulator/strict", json={"strict": True}, headers=KEY).json()
    assert strict["strict"] is True
    for _ in range(8):  # strict holds in every worker
        answer = httpx.post(served.url + GENERATE, json=BODY, headers=KEY)
        assert answer.status_code == 400, answer.text


@pytest.mark.slow
def test_a_killed_worker_loses_no_acknowledged_entry(serve: Any, redis_url: str) -> None:
    served = serve(redis_url, workers=4)
    entries = [{"name": f"e{i}", "text": f"answer {i}"} for i in range(600)]
    httpx.post(served.url + "/__emulator/script", json=entries, headers=KEY, timeout=30).raise_for_status()

    async def run() -> list[tuple[int, str]]:
        load = asyncio.create_task(consume(served.url, 600, clients=20))
        await asyncio.sleep(0.3)
        os.kill(served.workers()[0], signal.SIGKILL)
        return await load

    results = asyncio.run(run())
    acknowledged = [t for s, t in results if s == 200]
    assert len(acknowledged) == len(set(acknowledged)) and len(acknowledged) >= 300
    pending = {e["entry"]["text"] for e in httpx.get(served.url + "/__emulator/script", headers=KEY).json()["entries"]}
    assert not pending & set(acknowledged)  # an answered entry is gone from the script everywhere
    names = set(journal_texts(served.url))
    assert {f"e{t.split()[1]}" for t in acknowledged} <= names  # and in the journal
    deadline = time.monotonic() + 30  # the supervisor starts a worker in its place
    while len(served.workers()) < 4:
        assert time.monotonic() < deadline
        time.sleep(0.1)


@pytest.mark.slow
def test_redis_restarted_mid_run(serve: Any, tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis", appendonly=True).start()
    try:
        served = serve(redis.url, workers=2)
        httpx.post(served.url + "/__emulator/script", json=[{"text": f"t{i}"} for i in range(6)], headers=KEY)
        first = [httpx.post(served.url + GENERATE, json=BODY, headers=KEY).json() for _ in range(2)]
        assert [f["candidates"][0]["content"]["parts"][0]["text"] for f in first] == ["t0", "t1"]
        redis.stop()
        started = time.monotonic()
        down = httpx.post(served.url + GENERATE, json=BODY, headers=KEY, timeout=10)
        assert time.monotonic() - started < 5
        assert down.status_code == 503
        assert down.json()["error"] == {
            "code": 503,
            "message": "The service is currently unavailable.",
            "status": "UNAVAILABLE",
        }
        assert httpx.get(served.url + "/__emulator/journal", headers=KEY).status_code == 503
        redis.start()  # the same port and data directory: appendonly kept the script
        deadline = time.monotonic() + 20
        texts = []
        while len(texts) < 4:
            assert time.monotonic() < deadline
            answer = httpx.post(served.url + GENERATE, json=BODY, headers=KEY, timeout=10)
            if answer.status_code == 200:
                texts.append(answer.json()["candidates"][0]["content"]["parts"][0]["text"])
            else:
                assert answer.status_code == 503
                time.sleep(0.1)
        assert texts == ["t2", "t3", "t4", "t5"]
    finally:
        redis.stop()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "path", "answered"),
    [
        ("POST", "/v1beta/models/gemini-2.5-flash:countTokens", 200),  # asks the store for a replay entry
        ("GET", "/__emulator/resources?kind=batches", 200),  # the admin view of the batch jobs held in Redis
        ("POST", "/v1beta/models/gemini-0.9-retired:generateContent", 404),  # could a replay entry serve it?
        ("GET", "/v1beta/fileSearchStores", 200),  # the file search stores room (stores/file_search_redis.py)
        ("GET", "/__emulator/resources?kind=fileSearchStores", 200),  # ... and their admin view, in a worker thread
    ],
)
def test_a_redis_that_hangs_holds_no_event_loop(
    serve: Any, tmp_path: Path, method: str, path: str, answered: int
) -> None:
    """On a Redis that accepted the connection but no longer answers (SIGSTOP), each request that needs it waits
    for its 503 (the 2 s socket timeout) while the process goes on serving others: countTokens asks the store
    whether a replay entry could answer it, so does a call for a model the catalogue does not know, and the admin
    API's resource views read the batch jobs (in a worker thread, never on the loop). Five such requests are sent
    whole before the health check connects; a loop held by any of them would answer health after its 503."""
    redis = RedisServer(tmp_path / "redis").start()
    assert redis.process is not None
    try:
        served = serve(redis.url)
        body = BODY if method == "POST" else None
        assert httpx.request(method, served.url + path, json=body, headers=KEY).status_code == answered  # connected
        os.kill(redis.process.pid, signal.SIGSTOP)
        payload = json.dumps(body).encode() if body is not None else b""
        raw = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: {KEY['x-goog-api-key']}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
        ).encode() + payload
        waiting = []
        for _ in range(5):
            conn = socket.create_connection(("127.0.0.1", int(served.url.rsplit(":", 1)[1])), timeout=30)
            conn.sendall(raw)
            waiting.append(conn)

        health = httpx.get(served.url + "/__emulator/health", timeout=30)
        # A loop held by one of the five would have sent that one's 503 before health's answer: bytes waiting.
        answered_first, _, _ = select.select(waiting, [], [], 0)
        statuses = []
        for conn in waiting:
            got = b""
            while chunk := conn.recv(65536):
                got += chunk
            conn.close()
            statuses.append(got.split(b"\r\n", 1)[0])
        assert health.status_code == 200
        assert answered_first == []
        assert statuses == [b"HTTP/1.1 503 Service Unavailable"] * 5
    finally:
        if redis.process is not None:
            os.kill(redis.process.pid, signal.SIGCONT)
        redis.stop()
