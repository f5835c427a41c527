"""Memory without bounds (issue 14, second section): namespaces, the journal, admin bodies, hang-ups, idle sockets."""

from __future__ import annotations

import contextlib
import resource
import select
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from redteam import ADMIN, GENERATE, JSON_TYPE, STREAM, body, post_head, raw_request, server, within
from served import spawn

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.engines.scripted.store import MAX_ENTRIES, MAX_NAMESPACES
from gemini_emulator.testing.server import RunningEmulator, start


@pytest.fixture(scope="module")
def running() -> Iterator[RunningEmulator]:
    with server(journal_cap=50, body_timeout=1) as emulator:
        yield emulator


@pytest.fixture
def http(running: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=running.url, timeout=10) as client:
        client.post(f"{ADMIN}/reset?all=true")
        yield client


def test_reading_makes_no_namespace(http: httpx.Client, running: RunningEmulator) -> None:
    """Asking whether strict mode is on made a namespace that lived forever."""
    for i in range(20):
        assert http.get(f"{ADMIN}/script", headers={"x-goog-api-key": f"looker-{i}"}).is_success
        http.put(f"{ADMIN}/strict", headers={"x-goog-api-key": f"looker-{i}"} | JSON_TYPE, json={"strict": None})
        http.post(GENERATE, headers={"x-goog-api-key": f"caller-{i}"}, json=body("hi"))
    assert running.store is not None and running.store.names() == []


def test_the_namespace_header_is_capped(http: httpx.Client) -> None:
    # 8,000 characters: far over our 128-character cap, but under h11's 16 KiB incomplete-event limit. A header of
    # 60,000 was refused by h11 itself ("Invalid HTTP request received.") whenever the request came in two reads.
    long = {"x-goog-api-key": "k", "x-emulator-namespace": "n" * 8_000}
    for response in (http.post(GENERATE, headers=long, json=body("hi")), http.get(f"{ADMIN}/script", headers=long)):
        assert response.status_code == 400 and "x-emulator-namespace" in response.json()["error"]["message"]
    fine = {"x-goog-api-key": "k", "x-emulator-namespace": "n" * 128}
    assert http.post(GENERATE, headers=fine, json=body("hi")).status_code == 200


def test_namespaces_are_bounded_and_the_idlest_goes(http: httpx.Client, running: RunningEmulator) -> None:
    assert running.store is not None
    for i in range(MAX_NAMESPACES + 10):
        running.store.add(f"space-{i}", [])  # the same store the admin API writes to
    assert http.post(f"{ADMIN}/script", headers={"x-emulator-namespace": "newest"}, json={"text": "x"}).is_success
    names = running.store.names()
    assert len(names) == MAX_NAMESPACES and "newest" in names and "space-0" not in names


def test_a_cut_body_is_stored_cut_and_the_journal_pages(http: httpx.Client, running: RunningEmulator) -> None:
    big = body("x" * (3 * 1024 * 1024))
    assert http.post(GENERATE, headers={"x-goog-api-key": "big"}, json=big).status_code == 200
    record = http.get(f"{ADMIN}/journal", headers={"x-goog-api-key": "big"}).json()["records"][-1]
    assert record["bodyTruncated"] is True and len(record["body"]) == 1 << 20
    for i in range(30):
        http.post(GENERATE, headers={"x-goog-api-key": "pages"}, json=body(f"call {i}"))
    page = http.get(f"{ADMIN}/journal", params={"limit": 10}, headers={"x-goog-api-key": "pages"}).json()
    assert len(page["records"]) == 10 and page["next"] == page["records"][-1]["id"]
    assert len(AdminClient(running.url, api_key="pages").journal()) == 30  # the client reads every page


def test_one_namespace_floods_and_only_its_own_records_go(http: httpx.Client) -> None:
    """The journal cap was global: test A's 3 records went to 0 under B's traffic."""
    for i in range(3):
        http.post(GENERATE, headers={"x-goog-api-key": "quiet"}, json=body(f"a {i}"))
    for i in range(120):
        http.post(GENERATE, headers={"x-goog-api-key": "noisy"}, json=body(f"b {i}"))
    quiet = http.get(f"{ADMIN}/journal", headers={"x-goog-api-key": "quiet"}).json()
    noisy = http.get(f"{ADMIN}/journal", headers={"x-goog-api-key": "noisy"}).json()
    assert len(quiet["records"]) == 3 and quiet["evicted"] == 0
    assert len(noisy["records"]) == 47 and noisy["evicted"] == 73


def test_the_journal_byte_budget_evicts_the_biggest(http: httpx.Client, running: RunningEmulator) -> None:
    journal = running._server.config.app.state.journal  # the running server's journal, its budget lowered
    journal.max_bytes = 4 << 20
    try:
        http.post(GENERATE, headers={"x-goog-api-key": "small"}, json=body("keep me"))
        for _ in range(8):
            http.post(GENERATE, headers={"x-goog-api-key": "heavy"}, json=body("y" * (1 << 20)))
        assert journal._held_bytes <= 4 << 20
        assert len(http.get(f"{ADMIN}/journal", headers={"x-goog-api-key": "small"}).json()["records"]) == 1
        assert http.get(f"{ADMIN}/journal", headers={"x-goog-api-key": "heavy"}).json()["evicted"] >= 4
    finally:
        journal.max_bytes = 256 << 20


@pytest.mark.slow  # over a second: left out of make test-fast
def test_admin_bodies_have_the_apis_limit_and_deadline(running: RunningEmulator) -> None:
    """A 400 MiB body was read whole, and a stalled one held forever."""
    sock = raw_request(
        running.url,
        post_head(f"{ADMIN}/script", b"")[:-4].replace(b"content-length: 0", b"content-length: 419430400")
        + b"\r\n\r\n",
    )
    assert b" 400 " in sock.recv(4096).split(b"\r\n")[0]
    sock.close()
    stalled = raw_request(running.url, post_head(f"{ADMIN}/script", b'{"text": "never finished"}')[:-10])
    stalled.settimeout(10)
    assert b" 408 " in stalled.recv(4096).split(b"\r\n")[0]  # body_timeout=1
    stalled.close()


def test_entries_per_namespace_are_capped(http: httpx.Client) -> None:
    response = http.post(f"{ADMIN}/script", json=[{"text": "x"}] * (MAX_ENTRIES + 1))
    assert response.status_code == 400 and str(MAX_ENTRIES) in response.json()["error"]["message"]
    assert http.post(f"{ADMIN}/script", json=[{"text": "x"}] * MAX_ENTRIES).is_success
    response = http.post(f"{ADMIN}/script", json={"text": "one more"})
    assert response.status_code == 400 and str(MAX_ENTRIES) in response.json()["error"]["message"]


@pytest.mark.parametrize("path", [GENERATE, STREAM], ids=["unary", "stream"])
def test_a_hang_up_during_a_scripted_delay_is_noticed(http: httpx.Client, path: str, running: RunningEmulator) -> None:
    """2,000 hang-ups during delayMs stayed in flight until their delays ended."""
    h = {"x-goog-api-key": "hangs-up"}
    assert http.post(f"{ADMIN}/script", headers=h, json={"text": "late", "delayMs": 120_000}).is_success
    sock = raw_request(running.url, post_head(path, httpx.Request("POST", "/", json=body("hi")).content, "hangs-up"))
    within(5, lambda: http.get(f"{ADMIN}/journal", headers=h).json()["records"])
    sock.close()
    record = within(5, lambda: [r for r in http.get(f"{ADMIN}/journal", headers=h).json()["records"] if r["status"]])
    assert record[0]["status"] == 499


@pytest.mark.parametrize("stream", [False, True], ids=["unary", "stream"])
def test_a_hang_up_during_a_delay_is_noticed_on_the_openai_surface(
    http: httpx.Client, stream: bool, running: RunningEmulator
) -> None:
    """The OpenAI-compatible surface shares the native path's hang-up watch (its chat completions waited it out)."""
    key = f"hangs-up-compat-{stream}"
    h = {"x-goog-api-key": key}
    assert http.post(f"{ADMIN}/script", headers=h, json={"text": "late", "delayMs": 120_000}).is_success
    chat = {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    head = post_head("/v1beta/openai/chat/completions", httpx.Request("POST", "/", json=chat).content, key)
    head = head.replace(f"x-goog-api-key: {key}".encode(), f"authorization: Bearer {key}".encode())
    sock = raw_request(running.url, head)
    within(5, lambda: http.get(f"{ADMIN}/journal", headers=h).json()["records"])
    sock.close()
    record = within(5, lambda: [r for r in http.get(f"{ADMIN}/journal", headers=h).json()["records"] if r["status"]])
    assert record[0]["status"] == 499


def test_delays_are_capped(http: httpx.Client) -> None:
    for key in ("delayMs", "chunkDelayMs"):
        response = http.post(f"{ADMIN}/script", json={"text": "x", key: 300_001})
        assert response.status_code == 400 and "300000" in response.json()["error"]["message"]


def _half_heads(url: str, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        socks.append(raw_request(url, b"GET /__emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
    return socks


STACKS = ["httptools", "h11"]  # every HTTP stack `serve` runs on keeps the same bounds


@pytest.mark.slow  # over a second: left out of make test-fast
@pytest.mark.parametrize("stack", STACKS)
def test_connections_that_never_finish_their_head_are_closed(stack: str) -> None:
    served = spawn(env={"GEMINI_EMULATOR_HEADER_TIMEOUT": "1", "GEMINI_EMULATOR_HTTP": stack, "PATH": "/usr/bin:/bin"})
    try:
        socks = _half_heads(served.url, 20)
        started = time.monotonic()
        for sock in socks:
            sock.settimeout(10)
            assert sock.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < 5
        assert httpx.get(served.url + f"{ADMIN}/health").status_code == 200
    finally:
        served.terminate()


def _limit_files(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@pytest.mark.slow  # over a second: left out of make test-fast
@pytest.mark.parametrize("stack", STACKS)
def test_idle_connections_cannot_lock_callers_out_or_flood_the_log(stack: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """1,100 half-open connections under ulimit -n 1024: unreachable, and 170 MB of accept-error tracebacks."""
    import served as served_module

    real_popen = served_module.subprocess.Popen
    monkeypatch.setattr(
        served_module.subprocess, "Popen", lambda *a, **k: real_popen(*a, **k, preexec_fn=lambda: _limit_files(200))
    )
    served = spawn(env={"GEMINI_EMULATOR_HTTP": stack, "PATH": "/usr/bin:/bin"})
    try:
        socks = _half_heads(served.url, 400)  # twice the server's file descriptors
        assert httpx.get(served.url + f"{ADMIN}/health", timeout=5).status_code == 200
        for sock in socks:
            sock.close()
        assert httpx.get(served.url + f"{ADMIN}/health", timeout=5).status_code == 200
        assert len(served.output()) < 20_000, served.output()[-3000:]
    finally:
        served.terminate()


@pytest.mark.parametrize("stack", STACKS)
def test_a_head_that_never_ends_is_refused_not_held(stack: str) -> None:
    """llhttp (httptools) has no bound of its own on a request head: one endless header would grow without end."""
    running = start(Settings(port=0, http=stack))
    try:
        with socket.create_connection((running.host, running.port), timeout=10) as sock:
            sock.sendall(b"GET /__emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: ")
            sent, answer, total = 0, b"", 32 * 1024 * 1024
            while sent < total:
                readable, writable, _ = select.select([sock], [sock], [], 5)
                if readable or not writable:
                    break
                try:
                    sent += sock.send(b"a" * 65536)
                except (BrokenPipeError, ConnectionResetError):
                    break
            with contextlib.suppress(ConnectionResetError):
                answer = sock.recv(4096)
        # Refused long before the end (what went out beyond the bound sat in the kernel's socket buffers).
        assert sent < total // 2, f"{sent} bytes of one header were taken in"
        assert answer.startswith(b"HTTP/1.1 400 ") and b'"status": "INVALID_ARGUMENT"' in answer, answer[:300]
    finally:
        running.stop()
