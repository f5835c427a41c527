"""The stream framers: bytes on the wire for streamGenerateContent. [wire-facts §5]

SSE (`alt=sse`): `data: <one-line JSON>\\r\\n\\r\\n` per chunk; nothing else; the end is the close.
JSON array (no `alt`): `[` + pretty chunk + (`\\n,\\r\\n` + pretty chunk)* + `\\n]`.
An error before the first chunk is an ordinary HTTP error (array-wrapped in JSON-array mode); an
error after it keeps the 200 and appends production's raw pretty `{"error": ...}` tail.
"""

from __future__ import annotations

from typing import Any, Protocol

from gemini_emulator.protocol import printers
from gemini_emulator.protocol.errors import ApiError

JSON_TYPE = "application/json; charset=UTF-8"
SSE_TYPE = "text/event-stream"
SSE_HEADERS = {"content-disposition": "attachment"}

_SSE_PREFIX = b"data: "
_SSE_END = b"\r\n\r\n"
_ARRAY_OPEN = b"["
_ARRAY_SEP = b"\n,\r\n"
_ARRAY_CLOSE = b"\n]"


def sse_event(chunk: dict[str, Any]) -> bytes:
    return _SSE_PREFIX + printers.line(chunk) + _SSE_END


def error_tail(error: ApiError) -> bytes:
    """Mid-stream failure, SSE mode: the raw pretty envelope, not an SSE event (Firebase fixture
    vertexai/streaming-failure-error-mid-stream.txt)."""
    return printers.pretty(error.envelope())


def array_error(error: ApiError) -> bytes:
    """An error before the first element in JSON-array mode: `[{"error": ...}\\n]`."""
    return _ARRAY_OPEN + printers.indented(error.envelope()) + _ARRAY_CLOSE


class Framer(Protocol):
    """How one stream's response bodies become its pieces of bytes, one piece per body (the stream's own pieces:
    a fault cuts or drops the body at them). Plain calls, not a generator per stream: emulator/wire/faults.py
    drives them."""

    def first(self, body: dict[str, Any]) -> bytes: ...

    def next(self, body: dict[str, Any]) -> bytes: ...

    def failed(self, error: ApiError) -> tuple[bytes, ...]:
        """What ends the body when the answer fails after its first piece."""
        ...

    def end(self) -> tuple[bytes, ...]:
        """What ends the body when the answer ends normally."""
        ...


class _Sse:
    """SSE body: every chunk an event; a failure after the first chunk becomes the error tail."""

    @staticmethod
    def first(body: dict[str, Any]) -> bytes:
        return _SSE_PREFIX + printers.line(body) + _SSE_END

    next = first

    @staticmethod
    def failed(error: ApiError) -> tuple[bytes, ...]:
        return (error_tail(error),)

    @staticmethod
    def end() -> tuple[bytes, ...]:
        return ()


class _JsonArray:
    """JSON-array body, written element by element as chunks arrive."""

    @staticmethod
    def first(body: dict[str, Any]) -> bytes:
        return _ARRAY_OPEN + printers.indented(body)

    @staticmethod
    def next(body: dict[str, Any]) -> bytes:
        return _ARRAY_SEP + printers.indented(body)

    @staticmethod
    def failed(error: ApiError) -> tuple[bytes, ...]:
        # Not captured from production; the array stays parseable and the SDKs see an error element.
        return (_ARRAY_SEP + printers.indented(error.envelope()), _ARRAY_CLOSE)

    @staticmethod
    def end() -> tuple[bytes, ...]:
        return (_ARRAY_CLOSE,)


sse: Framer = _Sse()
json_array: Framer = _JsonArray()


def whole(framer: Framer, bodies: list[dict[str, Any]], most: int) -> list[bytes]:
    """Every piece `framer` writes for a stream of `bodies` that ends normally: `first`, each `next`, then `end`.
    SSE's and the JSON array's, when printers can print every body in one pass (printers.lines, indented_all) and
    they come to less than `most` bytes, are the same bytes as one piece."""
    joined = None
    if not bodies:
        pass  # `first` of none: an IndexError, as ever
    elif framer is sse:
        joined = printers.lines(bodies, _SSE_END + _SSE_PREFIX)
        if joined is not None:
            joined = _SSE_PREFIX + joined + _SSE_END
    elif framer is json_array:
        joined = printers.indented_all(bodies, _ARRAY_SEP)
        if joined is not None:
            joined = _ARRAY_OPEN + joined + _ARRAY_CLOSE
    if joined is not None and len(joined) < most:
        return [joined]
    return [framer.first(bodies[0]), *map(framer.next, bodies[1:]), *framer.end()]


class DropConnection(Exception):
    """Raised out of a response body to make the server close the connection mid-body (a requested fault:
    emulator/wire/faults.py)."""


def unframe_sse(body: bytes) -> tuple[list[bytes], bytes]:
    """The inverse of `sse`, for recorded bodies: each event's payload, and what follows the last event
    (production's raw error tail, or b""). Raises ValueError for a body that is not SSE framing."""
    payloads: list[bytes] = []
    pos = 0
    while body.startswith(_SSE_PREFIX, pos):
        end = body.find(_SSE_END, pos)
        if end < 0:
            raise ValueError(f"unterminated SSE event at byte {pos}")
        payloads.append(body[pos + len(_SSE_PREFIX) : end])
        pos = end + len(_SSE_END)
    if not payloads and body:
        raise ValueError("not an SSE body: no data event")
    return payloads, body[pos:]


def sse_pieces(body: bytes) -> list[bytes]:
    """A recorded SSE body cut where the framer cuts it: one piece per event, then the tail (if any)."""
    payloads, tail = unframe_sse(body)
    return [_SSE_PREFIX + p + _SSE_END for p in payloads] + ([tail] if tail else [])


def json_array_pieces(body: bytes) -> list[bytes]:
    """A recorded JSON-array body cut where the framer cuts it: `[` + first element, `\\n,\\r\\n` + each
    next one, then `\\n]`. A raw newline never occurs inside a JSON string, so the separator is exact."""
    if not (body.startswith(_ARRAY_OPEN) and body.endswith(_ARRAY_CLOSE)):
        raise ValueError("not a JSON-array stream body")
    elements = body[len(_ARRAY_OPEN) : -len(_ARRAY_CLOSE)].split(_ARRAY_SEP)
    return [_ARRAY_OPEN + elements[0], *(_ARRAY_SEP + e for e in elements[1:]), _ARRAY_CLOSE]
