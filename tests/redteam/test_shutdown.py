"""Red team (issue 14, "Shutdown"): stopping the server ends what is in flight cleanly.

The real `gemini-emulator serve` in a child process gets SIGTERM while answers are still running: within the
grace period (`--shutdown-grace`) a stream still running ends with production's mid-stream error tail (its 200
kept, the body well-formed) and a call still waiting for its first chunk gets a 503 envelope; the log holds one
line for the shutdown and no traceback. A client that hangs up mid-body on the admin API logs no traceback.
"""

from __future__ import annotations

import json
import signal
import socket
import time

import httpx
import pytest
from served import Served, spawn

STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
UNARY = "/v1beta/models/gemini-2.5-flash:generateContent"
BODY = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
HELD_MS = 300_000  # the longest delay an entry may ask (5 minutes): only the shutdown ends these answers
GRACE_S = 1


@pytest.fixture
def server() -> Served:
    served = spawn("--shutdown-grace", str(GRACE_S))
    yield served
    served.terminate()


def _script(served: Served, *entries: dict[str, object]) -> None:
    response = httpx.post(served.url + "/__emulator/script", json={"entries": list(entries)}, timeout=10)
    assert response.status_code == 200, response.text


def _first_bytes(stream: httpx.Response, count: int) -> bytes:
    seen = b""
    for piece in stream.iter_raw():
        seen += piece
        if len(seen) >= count:
            break
    return seen


def test_streams_running_at_the_deadline_end_with_the_error_tail(server: Served) -> None:
    _script(
        server,
        {"chunks": ["one ", "two"], "chunkDelayMs": HELD_MS, "match": {"text": "sse"}},
        {"chunks": ["one ", "two"], "chunkDelayMs": HELD_MS, "match": {"text": "array"}},
    )
    client = httpx.Client(base_url=server.url, timeout=30, headers={"x-goog-api-key": "test-key"})
    body = lambda text: {"contents": [{"role": "user", "parts": [{"text": text}]}]}  # noqa: E731
    with (
        client.stream("POST", STREAM + "?alt=sse", json=body("sse")) as sse,
        client.stream("POST", STREAM, json=body("array")) as array,
    ):
        assert sse.status_code == array.status_code == 200
        sse_pieces = sse.iter_raw()
        first_sse = next(sse_pieces)
        assert first_sse.startswith(b"data: ")
        array_pieces = array.iter_raw()
        first_array = next(array_pieces)
        assert first_array.startswith(b"[")
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        rest_sse = b"".join(sse_pieces)  # a broken chunked body raises here (httpx.RemoteProtocolError)
        rest_array = b"".join(array_pieces)
        waited = time.monotonic() - started
    assert server.proc.wait(timeout=30) == 0
    tail = json.loads(rest_sse)
    assert tail["error"]["code"] == 503 and tail["error"]["status"] == "UNAVAILABLE"
    elements = json.loads(first_array + rest_array)
    assert elements[-1]["error"]["status"] == "UNAVAILABLE"
    assert GRACE_S - 0.2 <= waited < GRACE_S + 10  # the grace period, not uvicorn's fixed 5 s
    log = server.output()
    assert "Traceback" not in log, log
    assert sum("shutting down" in line.lower() for line in log.splitlines()) == 1, log
    assert "timeout graceful shutdown exceeded" not in log, log


def test_a_call_waiting_for_its_first_chunk_gets_a_503(server: Served) -> None:
    _script(server, {"text": "late", "delayMs": HELD_MS})
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        payload = json.dumps(BODY).encode()
        sock.sendall(
            f"POST {UNARY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nx-goog-api-key: k\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        _wait_in_flight(server)
        server.proc.send_signal(signal.SIGTERM)
        answer = b""
        while piece := sock.recv(65536):
            answer += piece
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), answer
    assert json.loads(body)["error"]["status"] == "UNAVAILABLE"
    assert server.proc.wait(timeout=30) == 0
    assert "Traceback" not in server.output(), server.output()


def _wait_in_flight(served: Served) -> None:
    """Until the journal shows the request (it is then waiting in its delay)."""
    for _ in range(200):
        records = httpx.get(served.url + "/__emulator/journal", timeout=10).json()["records"]
        if any(r.get("rpc") == "generateContent" for r in records):
            return
        time.sleep(0.05)  # polling for the server to reach a state, not waiting out a race
    raise AssertionError("the request never reached the server")


def test_a_hang_up_mid_body_on_the_admin_api_logs_no_traceback(server: Served) -> None:
    for path in ("/__emulator/script", "/__emulator/strict"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            method = "PUT" if path.endswith("strict") else "POST"
            sock.sendall(
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                'Content-Length: 1000\r\n\r\n{"entries": ['.encode()
            )
    # The server is still healthy, and once it has seen both hang-ups (a later request is served after them on
    # the same event loop) nothing it logged is a traceback.
    assert httpx.get(server.url + "/__emulator/health", timeout=10).status_code == 200
    assert server.terminate() == 0
    assert "Traceback" not in server.output(), server.output()
