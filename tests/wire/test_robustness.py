"""Targeted abuse: bad bytes, huge and slow bodies, clients that hang up mid-stream, SIGTERM and restarts.
Each answer is Google's error envelope with a 4xx (never a 5xx, a traceback or a hang), and nothing leaks."""

from __future__ import annotations

import asyncio
import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from served import Served, spawn

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

MODEL = "gemini-2.5-flash"
GENERATE = f"/v1beta/models/{MODEL}:generateContent"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
VALID = b'{"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}'
BOUND_S = 30  # waits for a condition give up after this: a bound for a hang, not a speed check


def _envelope(response: httpx.Response, status: int = 400) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    error = response.json()["error"]
    assert error["code"] == status and error["status"] and error["message"]
    return error


# --- bad bytes ---------------------------------------------------------------------------------------------


def _deep(levels: int) -> bytes:
    """A request whose response schema (a JSON value of any shape) nests `levels` objects deep."""
    deep = b'{"a": ' * levels + b"1" + b"}" * levels
    config = b'{"responseMimeType": "application/json", "responseJsonSchema": %s}' % deep
    return b'{"contents": [{"parts": [{"text": "x"}]}], "generationConfig": %s}' % config


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"contents": [{"parts": [{"text": "\xff\xfe"}]}]}', "Invalid JSON payload received."),  # not UTF-8
        (b'{"contents": [{"parts": [{"text": "\\ud800"}]}]}', "Invalid JSON payload received."),  # lone surrogate
        (b'{"\xc3": 1}', "Invalid JSON payload received."),
        (_deep(90), None),  # deep, but within the limit: answered
        (_deep(120), "Request is nested too deeply."),  # past what protobuf parses
        (_deep(400), "Request is nested too deeply."),  # past what the printers can print
        (_deep(5000), "Invalid JSON payload received."),  # past what the JSON parser reads
        (b"[" * 100_000, "Invalid JSON payload received."),
        (b'{"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"temperature": 1e999}}', "Invalid JSON"),
        (b'{"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"temperature": NaN}}', "Invalid JSON"),
        (b'{"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"topK": 1e308}}', None),
        (b"", "contents is not specified"),
        (b"   ", "contents is not specified"),
        (b"null", "Root element must be a message."),
        (b'"text"', "Root element must be a message."),
        (b'{"contents": [{"parts": [{"text": "x"}]}], "foo": 1}', 'Unknown name "foo"'),
        (b'{"contents": [{"parts": [{"text": "x", "bar": {}}]}]}', "Unknown name \"bar\" at 'contents[0].parts[0]'"),
    ],
)
def test_bad_bodies_get_a_google_400(http: httpx.Client, body: bytes, message: str | None) -> None:
    for path in (GENERATE, STREAM, f"/v1beta/models/{MODEL}:countTokens"):
        response = http.post(path, content=body, headers={"x-goog-api-key": "robust"})
        if message is None:
            assert response.status_code == 200, response.text
            continue
        if path == STREAM:  # an error before the first event is a plain envelope with the stream's content type
            assert response.status_code == 400 and message in response.json()["error"]["message"]
            continue
        assert message in _envelope(response)["message"]


TWICE_SELF = {"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "required": ["a", "b"], "properties": {}}}}
TWICE_SELF["$defs"]["n"]["properties"] = {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "#/$defs/n"}}


@pytest.mark.parametrize(
    ("dialect", "schema"),
    [
        ("responseJsonSchema", {"type": "array", "minItems": 10**9}),
        ("responseJsonSchema", {"type": "string", "minLength": 10**9}),
        ("responseJsonSchema", TWICE_SELF),  # 2**64 values without a budget
        ("responseSchema", {"type": "ARRAY", "minItems": "1000000000", "items": {"type": "ARRAY", "minItems": "999"}}),
    ],
)
def test_schemas_that_ask_for_endless_output_are_cut_short(http: httpx.Client, dialect: str, schema: dict) -> None:
    """A few bytes of schema cannot make the server write without end: the answer stops near production's
    output limit (65,536 tokens), like a real answer at MAX_TOKENS."""
    config = {"responseMimeType": "application/json", dialect: schema}
    body = {"contents": [{"parts": [{"text": "Fill it"}]}], "generationConfig": config}
    response = http.post(GENERATE, json=body, headers={"x-goog-api-key": "robust"}, timeout=BOUND_S)
    assert response.status_code == 200, response.text
    text = response.json()["candidates"][0]["content"]["parts"][0]["text"]
    assert 0 < len(text) < 2 * 65_536 * 4


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/octet-stream", "", "x/y"]
)
def test_the_content_type_does_not_change_the_answer(http: httpx.Client, content_type: str) -> None:
    """Like production's front end, the body is read as JSON whatever Content-Type says."""
    plain = http.post(GENERATE, content=VALID, headers={"x-goog-api-key": "robust", "content-type": "application/json"})
    other = http.post(GENERATE, content=VALID, headers={"x-goog-api-key": "robust", "content-type": content_type})
    assert other.status_code == 200 and other.content == plain.content


# --- huge and slow bodies ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_limit() -> Iterator[Served]:
    """A server with a 1 MiB body limit, in its own process (its RSS is measured)."""
    served = spawn("--max-body-bytes", str(1 << 20))
    yield served
    assert served.terminate() == 0
    assert "Traceback" not in served.output()


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


def _send_until_answered(port: int, head: bytes, piece: bytes, total: int) -> tuple[int, bytes]:
    """Send `head`, then `piece` after `piece` up to `total` bytes, stopping as soon as the server answers;
    return how many body bytes went out and what came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=BOUND_S) as sock:
        sock.sendall(head)
        sent = 0
        while sent < total:
            readable, writable, _ = select.select([sock], [sock], [], BOUND_S)
            if readable:
                break
            assert writable, "the server neither reads nor answers"
            try:
                sent += sock.send(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < answer.index(b"\r\n\r\n") + 4 + _length(answer):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    return sent, answer


def _length(answer: bytes) -> int:
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    for line in head.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def test_a_50_mb_body_is_refused_from_its_content_length_before_it_is_sent(small_limit: Served) -> None:
    size = 50 * 1024 * 1024
    head = (
        f"POST {GENERATE} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-goog-api-key: k\r\ncontent-type: application/json\r\n"
        f"content-length: {size}\r\n\r\n"
    ).encode()
    before = _rss_kib(small_limit.proc.pid)
    sent, answer = _send_until_answered(small_limit.port, head, b" " * 65536, size)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:300]
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["error"]["message"] == f"Request payload size exceeds the limit: {1 << 20} bytes."
    assert sent < size // 2, f"{sent} bytes went out before the answer"
    assert _rss_kib(small_limit.proc.pid) - before < 16 * 1024  # nothing like 50 MB was held


def test_a_50_mb_chunked_body_is_refused_once_it_passes_the_limit(small_limit: Served) -> None:
    """No Content-Length: the body is counted as it arrives and refused past the limit, not read whole."""
    size = 50 * 1024 * 1024
    head = f"POST {GENERATE} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-goog-api-key: k\r\ntransfer-encoding: chunked\r\n\r\n"
    head = head.encode()
    piece = b"10000\r\n" + b" " * 0x10000 + b"\r\n"  # 64 KiB chunks
    before = _rss_kib(small_limit.proc.pid)
    sent, answer = _send_until_answered(small_limit.port, head, piece, size)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:300]
    assert b"Request payload size exceeds the limit" in answer
    assert sent < size // 2, f"{sent} bytes went out before the answer"
    assert _rss_kib(small_limit.proc.pid) - before < 16 * 1024


def test_a_slow_sender_does_not_hold_up_other_requests(small_limit: Served) -> None:
    head = (
        f"POST {GENERATE} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-goog-api-key: k\r\ncontent-length: {len(VALID)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", small_limit.port), timeout=BOUND_S) as slow:
        slow.sendall(head)
        for byte in VALID[: len(VALID) // 2]:  # half the body, a byte per send
            slow.sendall(bytes([byte]))
        for _ in range(3):  # meanwhile, other callers are answered
            other = httpx.post(small_limit.url + GENERATE, content=VALID, headers={"x-goog-api-key": "k"})
            assert other.status_code == 200
        assert select.select([slow], [], [], 0)[0] == []  # the slow request is still waiting for its body
        for byte in VALID[len(VALID) // 2 :]:
            slow.sendall(bytes([byte]))
        answer = b""
        while b'"modelVersion"' not in answer:
            data = slow.recv(65536)
            assert data, answer
            answer += data
    assert answer.startswith(b"HTTP/1.1 200 OK")


# --- clients that hang up mid-stream -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def in_process() -> Iterator[tuple[RunningEmulator, set[str]]]:
    """A server in this process, and the tasks its event loop runs when no request is open."""
    running = start(Settings(port=0))
    yield running, _tasks(running)
    running.stop()


def _server_loop(running: RunningEmulator) -> asyncio.AbstractEventLoop:
    return running._server.servers[0].get_loop()


def _tasks(running: RunningEmulator) -> set[str]:
    """Tasks alive in the server's event loop (this probe's own task excluded), by name and coroutine."""

    async def alive() -> set[str]:
        me = asyncio.current_task()
        return {f"{t.get_name()}:{t.get_coro()!r}" for t in asyncio.all_tasks() if t is not me}

    return asyncio.run_coroutine_threadsafe(alive(), _server_loop(running)).result(timeout=BOUND_S)


def _wait_for(condition, what: str) -> None:
    """Poll a condition the server reaches on its own after a client went away; fail past BOUND_S."""
    deadline = time.monotonic() + BOUND_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


CHUNKS = ["one ", "two ", "three ", "four ", "five"]


def _sse_request(port: int, key: str) -> bytes:
    return (
        f"POST {STREAM} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-goog-api-key: {key}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(VALID)}\r\n\r\n"
    ).encode() + VALID


@pytest.mark.slow
@pytest.mark.parametrize("chunk_delay_ms", [0, 50])
def test_hanging_up_at_every_chunk_leaves_no_task_log_or_error(
    in_process: tuple[RunningEmulator, set[str]], chunk_delay_ms: int, caplog: pytest.LogCaptureFixture, request
) -> None:
    server, idle = in_process
    uvicorn_logs = logging.getLogger("uvicorn")  # it does not propagate to the root logger
    uvicorn_logs.addHandler(caplog.handler)
    request.addfinalizer(lambda: uvicorn_logs.removeHandler(caplog.handler))
    caplog.set_level(logging.DEBUG)
    key = f"hangup-{chunk_delay_ms}"
    admin = httpx.Client(base_url=server.url, headers={"x-goog-api-key": key}, timeout=BOUND_S)
    entry = {"chunks": CHUNKS, "chunkDelayMs": chunk_delay_ms, "times": "forever"}
    assert admin.post("/__emulator/script", json=entry).status_code == 200
    admin.close()  # its keep-alive connection would be a task of its own
    _wait_for(lambda: _tasks(server) == idle, "tasks left from the admin call")
    for _ in range(3):  # every hang-up point several times: a leak would add up
        for events_read in range(len(CHUNKS) + 1):
            with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND_S) as sock:
                sock.sendall(_sse_request(server.port, key))
                received = b""
                while received.count(b"\r\n\r\n") < events_read + 1:  # the head, then events_read events
                    data = sock.recv(65536)
                    if not data:
                        break
                    received += data
            _wait_for(lambda: _tasks(server) == idle, f"a task outlived a hang-up after {events_read} events")
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING and not r.name.startswith("httpx")]
    assert errors == [], [r.getMessage() for r in errors]
    records = httpx.get(server.url + "/__emulator/journal", headers={"x-goog-api-key": key}).json()["records"]
    assert len(records) == 3 * (len(CHUNKS) + 1)
    if chunk_delay_ms:  # with pauses between events, a hang-up cuts the stream and the journal says so
        complete = [r["complete"] for r in records]
        assert complete.count(True) <= 3 * 2  # the last hang-ups may come after the last byte went out
        assert not any(complete[i] for i in range(0, len(complete), len(CHUNKS) + 1))  # before any event


# --- SIGTERM and restart -----------------------------------------------------------------------------------


def _time_wait_on(port: int) -> bool:
    """Whether a TCP connection on this local port is in TIME_WAIT (state 06 in /proc/net/tcp)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "06":
                return True
    return False


@pytest.mark.slow
def test_sigterm_drains_an_in_flight_stream_exits_0_and_the_port_is_free_at_once() -> None:
    served = spawn()
    key = "drain"
    chunks = [f"part {i} " for i in range(8)]
    script = {"chunks": chunks, "chunkDelayMs": 100}  # 0.7 s of stream, well within the 5 s graceful shutdown
    assert httpx.post(served.url + "/__emulator/script", json=script, headers={"x-goog-api-key": key}).is_success
    idle = socket.create_connection(("127.0.0.1", served.port))  # an idle keep-alive connection the server closes
    idle.sendall(b"GET /__emulator/health HTTP/1.1\r\nhost: x\r\n\r\n")
    answer = b""
    while not answer.endswith(b'"ok"\n}\n'):
        answer += idle.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200")
    try:
        with httpx.stream(
            "POST", served.url + STREAM, content=VALID, headers={"x-goog-api-key": key}, timeout=BOUND_S
        ) as response:
            events = response.iter_raw()
            first = next(events)
            served.proc.send_signal(15)  # SIGTERM with the stream under way
            rest = b"".join(events)
        assert response.status_code == 200
        body = first + rest
        events = [json.loads(e[6:]) for e in body.split(b"\r\n\r\n")[:-1]]
        texts = [event["candidates"][0]["content"]["parts"][0]["text"] for event in events]
        assert "".join(texts) == "".join(chunks)  # drained to the end
        assert served.proc.wait(timeout=BOUND_S) == 0
        assert idle.recv(65536) == b""  # the server closed the idle connection itself
    finally:
        idle.close()
        served.terminate()
    printed = served.output()
    assert "Traceback" not in printed and "ERROR" not in printed
    assert _time_wait_on(served.port)  # the server closed first: without SO_REUSEADDR the port would be busy now
    again = spawn(port=served.port)  # immediately, on the same port
    try:
        assert httpx.post(again.url + GENERATE, content=VALID, headers={"x-goog-api-key": "k"}).status_code == 200
    finally:
        assert again.terminate() == 0
