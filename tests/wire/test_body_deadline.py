"""A sender that stalls mid-body gets a 408 in the Google envelope once `body_timeout` passes; one that hangs
up mid-body is journaled as cancelled and leaves nothing in the log. Real sockets, a real server process."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from served import Served, spawn

from gemini_emulator.protocol.errors import BODY_TIMEOUT

GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent"
VALID = b'{"contents": [{"role": "user", "parts": [{"text": "Hello there"}]}]}'
TIMEOUT_S = 1
BOUND_S = 30  # a bound for a hang, not a speed check


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = spawn("--body-timeout", str(TIMEOUT_S))
    yield served
    served.terminate()


def _head(length: int) -> bytes:
    return (
        f"POST {GENERATE} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-goog-api-key: k\r\ncontent-type: application/json\r\n"
        f"content-length: {length}\r\n\r\n"
    ).encode()


def _answer(sock: socket.socket) -> tuple[bytes, dict]:
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    head, body = data.split(b"\r\n\r\n", 1)
    return head, json.loads(body)


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 1 << 30


def test_a_body_that_stalls_gets_a_408_envelope_after_the_timeout(server: Served) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND_S) as sock:
        started = time.monotonic()
        sock.sendall(_head(len(VALID)) + VALID[:10])  # then nothing more
        head, body = _answer(sock)
        waited = time.monotonic() - started
    assert head.startswith(b"HTTP/1.1 408 "), head
    assert body == {
        "error": {"code": 408, "message": BODY_TIMEOUT.format(seconds=TIMEOUT_S), "status": "DEADLINE_EXCEEDED"}
    }
    assert waited >= TIMEOUT_S  # never before its deadline (the sweep may add up to a second after it)


@pytest.mark.slow  # over a second: left out of make test-fast
def test_a_body_trickling_in_past_the_timeout_is_cut_off_too(server: Served) -> None:
    """The deadline bounds the whole body, so a sender cannot hold a request open a byte at a time."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND_S) as sock:
        sock.sendall(_head(len(VALID)))
        sock.settimeout(0.2)
        answered = b""
        for byte in VALID[:-1]:  # a byte every 200 ms: ~14 s for the whole body, far past the deadline
            try:
                answered = sock.recv(65536)
            except TimeoutError:
                sock.sendall(bytes([byte]))
                continue
            break
        sock.settimeout(BOUND_S)
        head = answered.split(b"\r\n", 1)[0]
    assert head.startswith(b"HTTP/1.1 408 "), answered


def test_a_whole_body_is_answered_and_the_deadline_does_not_linger(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=BOUND_S) as http:
        for _ in range(3):
            answer = http.post(GENERATE, content=VALID, headers={"x-goog-api-key": "k"})
            assert answer.status_code == 200


def test_hanging_up_mid_body_is_journaled_as_cancelled_and_logs_nothing(server: Served) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND_S) as sock:
        sock.sendall(_head(len(VALID)) + VALID[:10])
    with httpx.Client(base_url=server.url, timeout=BOUND_S) as http:
        for _ in range(100):  # the server learns of the hang-up asynchronously: poll the journal for it
            records = http.get("/__emulator/journal").json()["records"]
            if any(r["status"] == 499 for r in records):
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"no cancelled record in {records}")
    assert "Traceback" not in server.output() and "ERROR" not in server.output()
