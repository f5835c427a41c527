"""emulator/wire/faults.py through the seam: any engine's `Chunk.fault` (plain data, seam.Fault) is carried out on
a real socket the same way, not only the scripted engine's (tests/engines/scripted/test_script_faults.py)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator

import pytest

from gemini_emulator.config import Settings
from gemini_emulator.seam import DROP, TRUNCATE, Chunk, Fault, GenerateRequest
from gemini_emulator.testing.server import RunningEmulator, start

BODY = b'{"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}'
TEXTS = ["alpha ", "beta ", "gamma"]


class FaultyEngine:
    """Three text chunks; `fault` goes on the chunk at `at` (or, with at == 3, on an extra empty chunk)."""

    name = "faulty"

    def __init__(self) -> None:
        self.fault: Fault | None = None
        self.at = 0

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        for i, text in enumerate(TEXTS):
            last = i == len(TEXTS) - 1
            yield Chunk(
                parts=[{"text": text}],
                finish_reason="STOP" if last else None,
                fault=self.fault if i == self.at else None,
            )
        if self.at == len(TEXTS):
            yield Chunk(fault=self.fault)


@pytest.fixture(scope="module")
def engine() -> FaultyEngine:
    return FaultyEngine()


@pytest.fixture(scope="module")
def server(engine: FaultyEngine) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0), engine=engine)
    yield running
    running.stop()


def exchange(server: RunningEmulator, method: str, query: str = "") -> tuple[bytes, bytes, bool]:
    """(response head, body bytes as received, whether the body ended cleanly): a raw socket, so that a dropped
    connection is seen as the client sees it. The body is de-chunked when chunked."""
    path = f"/v1beta/models/gemini-2.5-flash:{method}?key=k{query}"
    request = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(BODY)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + BODY
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while piece := sock.recv(65536):
            received += piece
    head, _, raw = received.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" not in head.lower():
        length = int(
            next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        )
        return head, raw, len(raw) == length
    body, rest = b"", raw
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return head, body, True
        body, rest = body + rest[:size], rest[size + 2 :]
    return head, body, False


@pytest.fixture
def faulty(engine: FaultyEngine) -> Iterator[FaultyEngine]:
    yield engine
    engine.fault, engine.at = None, 0


def test_no_fault_sends_the_whole_answer(server: RunningEmulator, faulty: FaultyEngine) -> None:
    _, body, clean = exchange(server, "streamGenerateContent", "&alt=sse")
    assert clean and body.count(b"data: ") == 3


def test_truncate_halves_the_unary_body_and_content_length_says_so(
    server: RunningEmulator, faulty: FaultyEngine
) -> None:
    _, whole, _ = exchange(server, "generateContent")
    faulty.fault = Fault(TRUNCATE)
    head, body, clean = exchange(server, "generateContent")
    assert clean and body == whole[: len(whole) // 2]
    assert f"content-length: {len(whole) // 2}".encode() in head.lower()


def test_drop_at_a_byte_sends_that_many_then_closes(server: RunningEmulator, faulty: FaultyEngine) -> None:
    _, whole, _ = exchange(server, "streamGenerateContent", "&alt=sse")
    faulty.fault = Fault(DROP, at_byte=70)
    _, body, clean = exchange(server, "streamGenerateContent", "&alt=sse")
    assert not clean and body == whole[:70]
    _, unary_whole, _ = exchange(server, "generateContent")
    _, body, clean = exchange(server, "generateContent")
    assert not clean and body == unary_whole[:70]


def test_drop_at_a_chunk_sends_the_chunks_before_it(server: RunningEmulator, faulty: FaultyEngine) -> None:
    faulty.fault, faulty.at = Fault(DROP), 3
    _, body, clean = exchange(server, "streamGenerateContent", "&alt=sse")
    assert not clean and body.count(b"data: ") == 3 and body.endswith(b"\r\n\r\n")
    _, body, clean = exchange(server, "streamGenerateContent")  # the JSON array never gets its "]"
    assert not clean and body.startswith(b"[{") and not body.endswith(b"]")


def test_drop_on_the_first_chunk_sends_no_body(server: RunningEmulator, faulty: FaultyEngine) -> None:
    faulty.fault = Fault(DROP)
    head, body, clean = exchange(server, "streamGenerateContent", "&alt=sse")
    assert head.startswith(b"HTTP/1.1 200") and body == b"" and not clean


def test_truncate_mid_stream_ends_the_body_there_cleanly(server: RunningEmulator, faulty: FaultyEngine) -> None:
    _, whole, _ = exchange(server, "streamGenerateContent", "&alt=sse")
    events = [e + b"\r\n\r\n" for e in whole.split(b"\r\n\r\n") if e]
    faulty.fault, faulty.at = Fault(TRUNCATE), 1
    _, body, clean = exchange(server, "streamGenerateContent", "&alt=sse")
    assert clean and body == events[0] + events[1][: len(events[1]) // 2]


@pytest.mark.parametrize(("kind", "at_byte"), [("explode", None), (TRUNCATE, 3), (DROP, -1)])
def test_a_fault_is_checked_when_made(kind: str, at_byte: int | None) -> None:
    with pytest.raises(ValueError):
        Fault(kind, at_byte)
