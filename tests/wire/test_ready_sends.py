"""sending.Ready's usual answer (no drop, under BATCH_BYTES: the head, then the body in one send) against the
general path it shortcuts, which a longer body takes: the same ASGI messages in kind and order, the same body
bytes, and the journal's tap told the same (the pieces' bytes, then a clean end, before the first send)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.wire import sending


class _Tap:
    def __init__(self, log: list[Any]) -> None:
        self.log = log

    def add(self, piece: bytes) -> None:
        self.log.append(("add", piece))

    def end(self, complete: bool) -> None:
        if ("end", True) not in self.log and ("end", False) not in self.log:  # only the first call counts
            self.log.append(("end", complete))


def _run(pieces: list[bytes], drop: bool = False) -> tuple[list[Any], bytes]:
    log: list[Any] = []
    response = sending.Ready(pieces, {"content-type": "text/event-stream"}, drop=drop)
    response.tap = _Tap(log)

    async def send(message: dict[str, Any]) -> None:
        log.append(dict(message))

    async def receive() -> dict[str, Any]:
        raise AssertionError("a ready answer does not listen")

    try:
        asyncio.run(response(dict(type="http"), receive, send))
    except DropConnection:
        log.append("dropped")
    body = b"".join(m["body"] for m in log if isinstance(m, dict) and m["type"] == "http.response.body")
    return log, body


def _shape(log: list[Any]) -> list[Any]:
    """The messages and tap calls without the bytes."""
    out: list[Any] = []
    for item in log:
        if isinstance(item, dict):
            out.append({k: v for k, v in item.items() if k != "body"})
        elif isinstance(item, tuple) and item[0] == "add":
            out.append("add")
        else:
            out.append(item)
    return out


@pytest.mark.parametrize("pieces", [[b"data: {}\r\n\r\n"], [b"a", b"b", b"c"], [b""], []])
def test_the_usual_ready_answer_sends_as_the_general_path(pieces: list[bytes]) -> None:
    log, body = _run(pieces)
    assert body == b"".join(pieces)
    assert ("add", b"".join(pieces)) in log
    long = [b"x" * sending.BATCH_BYTES] if pieces else []  # the general path, one batch then the end
    if long:
        general, _ = _run(long)
        shape = _shape(general)
        del shape[3]  # the general path's batch of BATCH_BYTES, with more to come
        assert _shape(log) == shape
    head = log[2]
    assert head["type"] == "http.response.start" and head[sending.BODY_FOLLOWS] is True
    assert head["headers"] == [(b"content-type", b"text/event-stream")]
    assert log[:2] == [("add", body), ("end", True)]
    assert log[3:] == [{"type": "http.response.body", "body": body, "more_body": False}]


def test_a_drop_still_closes_after_the_pieces() -> None:
    log, body = _run([b"a", b"b"], drop=True)
    assert body == b"ab" and log[-1] == "dropped" and ("end", False) in log
