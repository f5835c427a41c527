"""The lean response heads of `serve` (emulator/runtime.py `_LeanCycle`) against uvicorn's own httptools `send`: for
every kind of header set both write the same bytes, leave the same framing state and raise the same errors, the
first time a set is seen and from the table after."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gemini_emulator import runtime
from gemini_emulator.wire import sending

httptools_impl = pytest.importorskip("uvicorn.protocols.http.httptools_impl")
from uvicorn.protocols.http.flow_control import FlowControl  # noqa: E402

DATE = [(b"date", b"Thu, 03 Dec 2026 08:00:00 GMT")]
OURS = [(b"vary", b"Origin, X-Origin, Referer"), (b"x-frame-options", b"SAMEORIGIN")]
JSON = [(b"content-type", b"application/json; charset=UTF-8")]
CASES: dict[str, tuple[int, list[Any], str, bool]] = {  # status, headers, method, keep-alive
    "unary": (200, [*OURS, *JSON, (b"content-length", b"812")], "POST", True),
    "unary, another length": (200, [*OURS, *JSON, (b"content-length", b"9")], "POST", True),
    "stream": (200, [*OURS, (b"content-type", b"text/event-stream")], "POST", True),
    "chunked given": (200, [*OURS, (b"transfer-encoding", b"chunked")], "POST", True),
    "chunked, then a length": (200, [(b"transfer-encoding", b"Chunked"), (b"content-length", b"5")], "POST", True),
    "two lengths": (200, [(b"content-length", b"3"), (b"content-length", b"5")], "POST", True),
    "length not last": (200, [(b"content-length", b"5"), *JSON], "POST", True),
    "connection close": (200, [(b"Connection", b"keep-alive, Close"), (b"content-length", b"2")], "POST", True),
    "HTTP/1.0": (200, [*JSON, (b"content-length", b"2")], "GET", False),
    "HTTP/1.0 stream": (200, JSON, "GET", False),
    "HEAD": (200, JSON, "HEAD", True),
    "204": (204, OURS, "DELETE", True),
    "304": (304, OURS, "GET", True),
    "upper-case name": (404, [(b"X-Goog-Thing", b"1"), (b"content-length", b"0")], "GET", True),
    "no headers": (200, [], "GET", True),
    "bad name": (200, [(b"bad name", b"1")], "GET", True),
    "bad value": (200, [(b"x-ok", b"line\nbreak"), (b"content-length", b"1")], "GET", True),
    "bad length": (200, [(b"content-length", b"1x")], "GET", True),
    "spaced length": (200, [(b"content-length", b" 12")], "GET", True),
    "pairs as lists": (200, [[b"x-ok", b"1"], [b"content-length", b"1"]], "GET", True),
    "a str value": (200, [(b"x-ok", "text"), (b"content-length", b"1")], "GET", True),
}


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


def _cycle(lean: bool, method: str, keep_alive: bool, completed: list[bool]) -> tuple[Any, _Transport]:
    transport = _Transport()
    cycle = httptools_impl.RequestResponseCycle(
        scope={"method": method},
        transport=transport,
        flow=FlowControl(transport),
        logger=None,
        access_logger=None,
        access_log=False,
        default_headers=DATE,
        message_event=asyncio.Event(),
        expect_100_continue=False,
        keep_alive=keep_alive,
        on_response=lambda: completed.append(True),
    )
    if lean:
        cycle.__class__ = runtime._LeanCycle
    return cycle, transport


def _send(lean: bool, status: int, headers: list[Any], method: str, keep_alive: bool) -> tuple[Any, ...]:
    cycle, transport = _cycle(lean, method, keep_alive, [])
    try:
        asyncio.run(cycle.send({"type": "http.response.start", "status": status, "headers": headers}))
        error = None
    except Exception as exc:  # the same error, or the same success, is what is compared
        error = (type(exc), str(exc))
    state = (cycle.response_started, cycle.chunked_encoding, cycle.expected_content_length, cycle.keep_alive)
    return b"".join(transport.written), state, error


@pytest.mark.parametrize("case", list(CASES))
def test_a_lean_head_is_uvicorns_head(case: str) -> None:
    status, headers, method, keep_alive = CASES[case]
    expected = _send(False, status, headers, method, keep_alive)
    assert _send(True, status, headers, method, keep_alive) == expected  # laid out
    assert _send(True, status, headers, method, keep_alive) == expected  # from the table


def test_heads_are_remembered_in_a_bounded_table() -> None:
    for n in range(runtime._HEADS_MAX + 10):
        _send(True, 200, [(b"x-n", b"%d" % n), (b"content-length", b"1")], "GET", True)
    assert 0 < len(runtime._HEADS) <= runtime._HEADS_MAX


async def _run(cycle: Any, messages: list[dict[str, Any]]) -> str | None:
    try:
        for message in messages:
            await cycle.send(message)
    except RuntimeError as exc:
        return str(exc)
    return None


LENGTH = [*JSON, (b"content-length", b"5")]
WHOLE: dict[str, tuple[list[Any], list[tuple[bytes, bool]], str, bool]] = {  # headers, bodies, method, keep-alive
    "unary": (LENGTH, [(b"hello", False)], "POST", True),
    "unary, closing": (LENGTH, [(b"hello", False)], "POST", False),
    "unary in two": (LENGTH, [(b"hel", True), (b"lo", False)], "POST", True),
    "too long": (LENGTH, [(b"hello!", False)], "POST", True),
    "too short": (LENGTH, [(b"hell", False)], "POST", True),
    "stream": (JSON, [(b"data: 1\r\n\r\n", False)], "POST", True),
    "stream in two": (JSON, [(b"data: 1\r\n\r\n", True), (b"data: 2\r\n\r\n", False)], "POST", True),
    "empty stream": (JSON, [(b"", False)], "POST", True),
    "HEAD": (LENGTH, [(b"", False)], "HEAD", True),
}


@pytest.mark.parametrize("case", list(WHOLE))
def test_a_head_that_waits_for_its_body_leaves_the_same_bytes(case: str) -> None:
    """A start that promises its body (sending.BODY_FOLLOWS) is written with that body, in one write: the same
    bytes uvicorn writes in two, the same end of the response (complete, connection closed) and errors."""
    headers, bodies, method, keep_alive = WHOLE[case]
    seen = []
    for lean in (False, True):
        completed: list[bool] = []
        cycle, transport = _cycle(lean, method, keep_alive, completed)
        start = {"type": "http.response.start", "status": 200, "headers": headers, sending.BODY_FOLLOWS: True}
        messages = [start] + [{"type": "http.response.body", "body": b, "more_body": m} for b, m in bodies]

        error = asyncio.run(_run(cycle, messages))
        seen.append((b"".join(transport.written), error, cycle.response_complete, transport.closed, completed))
        if lean and not error and method != "HEAD":
            assert len(transport.written) == 1 + sum(m for _, m in bodies)  # the head went with the first body
    assert seen[0] == seen[1]
