"""emulator/wire/sending.py on a real socket: pieces of a stream that are ready at the same moment leave in one HTTP
chunk; a piece that takes time (a scripted delay) leaves on its own, on time, after what was ready before it; a
client that hangs up while a piece is awaited ends the answer (journaled as incomplete)."""

from __future__ import annotations

import json
import socket
import time

from gemini_emulator.testing.pytest_plugin import Gemini

SSE_PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
DELAY_MS = 150


def _request(gemini: Gemini, text: str) -> bytes:
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": text}]}]}).encode()
    return (
        f"POST {SSE_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: {gemini.api_key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


def _chunks(gemini: Gemini, text: str) -> list[tuple[float, bytes]]:
    """The HTTP chunks of an SSE answer as they arrived: (seconds after the request, chunk data)."""
    with socket.create_connection((gemini.server.host, gemini.server.port), timeout=10) as sock:
        start = time.monotonic()
        sock.sendall(_request(gemini, text))
        reader = sock.makefile("rb")
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += reader.readline()
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head.lower()
        out = []
        for _ in range(100):  # bounded: an answer of a few events
            size = int(reader.readline().split(b";")[0], 16)
            if size == 0:
                return out
            out.append((time.monotonic() - start, reader.read(size)))
            assert reader.read(2) == b"\r\n"
        raise AssertionError("no end of the chunked body")


def test_ready_events_leave_together(gemini: Gemini) -> None:
    """A zero-config stream is ready at once: all its events in one chunk, byte for byte the events."""
    chunks = _chunks(gemini, "Explain the tides in three sentences.")
    assert len(chunks) == 1
    events = chunks[0][1].split(b"\r\n\r\n")
    assert len(events) >= 3 and events[-1] == b"" and all(e.startswith(b"data: {") for e in events[:-1])


def test_delayed_events_leave_on_time(gemini: Gemini) -> None:
    gemini.script({"chunks": ["one ", "two ", "three"], "chunkDelayMs": DELAY_MS})
    chunks = _chunks(gemini, "count")
    events = [data for _, data in chunks if data]
    assert len(events) == 3 and all(e.startswith(b"data: {") and e.endswith(b"\r\n\r\n") for e in events)
    arrivals = [at for at, data in chunks if data]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert all(gap >= (DELAY_MS - 20) / 1000 for gap in gaps), gaps  # none early, none merged with the next


def test_hang_up_while_a_piece_is_awaited_ends_the_answer(gemini: Gemini) -> None:
    gemini.script({"chunks": ["one ", "two ", "three"], "chunkDelayMs": 60_000})
    with socket.create_connection((gemini.server.host, gemini.server.port), timeout=10) as sock:
        sock.sendall(_request(gemini, "hold"))
        received = b""
        while b"\r\n\r\n" not in received.split(b"\r\n\r\n", 1)[-1]:  # the head, then the first event
            data = sock.recv(65536)
            assert data, "closed before the first event"
            received += data
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the stream ends when the server sees the hang-up, not after 2 minutes
        calls = gemini.journal()
        if calls and calls.last.record["status"] == 200 and calls.last.record["durationMs"] > 0:
            break
        time.sleep(0.02)
    record = gemini.journal().last.record
    assert record["complete"] is False and record["durationMs"] < 5000
    assert record["response"].count("data: ") == 1
