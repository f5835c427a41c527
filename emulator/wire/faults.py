"""The wire end of the faults an engine asks for: the one place where an answer's bytes are broken on purpose.

An engine describes a fault as plain data on a chunk (`seam.Fault`: DROP, DROP at a byte count, TRUNCATE); the
scripted engine turns a script entry's `dropAfterChunks`, `dropAfterBytes` and `truncateFinalEvent` into them
(engines/scripted/render.py). The handlers hand their answer over and this module carries the fault out:

- `unary`: a whole body, its first half (TRUNCATE; Content-Length says so), or its first `at_byte` bytes (0
  without one) and then the connection closed (DROP);
- `streamed`: a framed stream that stops sending where its chunks' faults say (see `seam.Fault`).

The connection is closed by raising `framing.DropConnection` out of the body: uvicorn then closes the socket
with no clean end of the body, and the app keeps these requested failures out of the server log.

Not here, by design: a mid-stream error (`errorAfterChunks`, a recording's error, an upstream failure) is the
engine raising an ApiError after its first chunks, which the framers write as production's error tail
(emulator/protocol/framing.py); and timing (`delayMs`, `chunkDelayMs`) is the engine yielding later.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import Response

from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.seam import DROP, TRUNCATE, Fault
from gemini_emulator.wire.sending import Body, Stream

# A streamed response body and the fault of the chunk it was built from; None for the body of a chunk whose
# fault sends nothing of it (Fault.before_chunk).
Built = tuple[dict[str, Any] | None, Fault | None]
Framer = Callable[[dict[str, Any], AsyncIterator[dict[str, Any]]], AsyncIterator[bytes]]


def unary(content: bytes, headers: dict[str, str], fault: Fault | None) -> Response:
    """A unary answer's response (status 200), with its fault carried out."""
    if fault is None:
        return Body(content, 200, headers)
    if fault.kind == TRUNCATE:
        return Body(content[: len(content) // 2], 200, headers)
    return Stream(_cut(_once(content), _Breaks(at_byte=fault.at_byte or 0)), headers)


def streamed(frame: Framer, first: Built, rest: AsyncIterator[Built]) -> AsyncIterator[bytes]:
    """The stream `frame` writes for `first` and `rest`, broken where the chunks' faults say."""
    breaks = _Breaks()
    breaks.note(first[1])

    async def bodies() -> AsyncIterator[dict[str, Any]]:
        async for body, fault in rest:
            breaks.note(fault)
            if body is None:
                return
            yield body

    if first[0] is None:  # the very first chunk sends nothing of the body
        return _dropped()
    return _cut(frame(first[0], bodies()), breaks)


class _Breaks:
    """Where one body must break, as its chunks reveal it (this module's own state, never shared)."""

    def __init__(self, at_byte: int | None = None) -> None:
        self.at_byte = at_byte  # close the connection once the body reaches this many bytes
        self.truncate_next = False  # send the next piece cut in half, then end the body normally
        self.drop_now = False  # close the connection before sending anything more

    def note(self, fault: Fault | None) -> None:
        if fault is None:
            return
        if fault.kind == TRUNCATE:
            self.truncate_next = True
        elif fault.kind == DROP and fault.at_byte is None:
            self.drop_now = True
        elif fault.kind == DROP:
            self.at_byte = fault.at_byte


async def _cut(pieces: AsyncIterator[bytes], breaks: _Breaks) -> AsyncIterator[bytes]:
    sent = 0
    async for piece in pieces:
        if breaks.drop_now:
            raise DropConnection
        if breaks.truncate_next:
            yield piece[: len(piece) // 2]
            return
        if breaks.at_byte is not None and sent + len(piece) >= breaks.at_byte:
            yield piece[: breaks.at_byte - sent]
            raise DropConnection
        sent += len(piece)
        yield piece
    if breaks.drop_now or breaks.at_byte is not None:  # a body shorter than at_byte is sent whole, then dropped
        raise DropConnection


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _dropped() -> AsyncIterator[bytes]:
    raise DropConnection
    yield b""  # unreachable: makes this an async generator, like every other body
