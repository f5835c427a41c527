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

from collections.abc import AsyncIterator
from typing import Any, cast

from starlette.responses import Response

from gemini_emulator.protocol import framing
from gemini_emulator.protocol.errors import ApiError
from gemini_emulator.protocol.framing import DropConnection, Framer
from gemini_emulator.seam import DROP, TRUNCATE, Fault
from gemini_emulator.wire.sending import BATCH_BYTES, Body, Ready, Stream

# A streamed response body and the fault of the chunk it was built from; None for the body of a chunk whose
# fault sends nothing of it (Fault.before_chunk).
Built = tuple[dict[str, Any] | None, Fault | None]


def unary(content: bytes, headers: dict[str, str], fault: Fault | None) -> Response:
    """A unary answer's response (status 200), with its fault carried out."""
    if fault is None:
        return Body(content, 200, headers)
    if fault.kind == TRUNCATE:
        return Body(content[: len(content) // 2], 200, headers)
    return Stream(_cut(_once(content), _Breaks(at_byte=fault.at_byte or 0)), headers)


def streamed(framer: Framer, first: Built, rest: AsyncIterator[Built]) -> AsyncIterator[bytes]:
    """The stream `framer` writes for `first` and `rest`, broken where the chunks' faults say."""
    breaks = _Breaks()
    breaks.note(first[1])
    if first[0] is None:  # the very first chunk sends nothing of the body
        return _dropped()
    return _framed(framer, first[0], rest, breaks)


async def _framed(
    framer: Framer, first: dict[str, Any], rest: AsyncIterator[Built], breaks: _Breaks
) -> AsyncIterator[bytes]:
    """One generator for framing and faults: each body framed into its piece, each piece let through `breaks`."""
    yield breaks.admit(framer.first(first))
    if breaks.ending:
        breaks.end()
        return
    try:
        async for body, fault in rest:
            breaks.note(fault)
            if body is None:  # a chunk whose fault sends nothing of it: the body ends here
                break
            yield breaks.admit(framer.next(body))
            if breaks.ending:
                breaks.end()
                return
        tail = framer.end()
    except ApiError as error:
        tail = framer.failed(error)
    for piece in tail:
        yield breaks.admit(piece)
        if breaks.ending:
            breaks.end()
            return
    breaks.finish()


def whole_ready(framer: Framer, bodies: list[dict[str, Any]], headers: dict[str, str]) -> Response:
    """The stream `framer` writes for ready bodies with no fault among them: all framed in one pass, then the end."""
    return Ready(framing.whole(framer, bodies, BATCH_BYTES), headers)


def streamed_ready(framer: Framer, built: list[Built], headers: dict[str, str]) -> Response:
    """The stream `framer` writes for bodies that are all built (a ready answer), broken where their faults say,
    as one response that sends it whole (sending.Ready)."""
    bodies: list[dict[str, Any]] = []
    for body, fault in built:
        if fault is not None:
            break
        bodies.append(cast(dict[str, Any], body))  # a body is None only with a fault
    else:  # nothing to break: every body framed, then the end
        return whole_ready(framer, bodies, headers)
    first, fault = built[0]
    breaks = _Breaks()
    breaks.note(fault)
    if first is None:  # the very first chunk sends nothing of the body
        return Stream(_dropped(), headers)
    pieces: list[bytes] = []
    try:
        pieces.append(breaks.admit(framer.first(first)))
        if breaks.ending:
            breaks.end()
            return Ready(pieces, headers)
        for body, fault in built[1:]:
            breaks.note(fault)
            if body is None:  # a chunk whose fault sends nothing of it: the body ends here
                break
            pieces.append(breaks.admit(framer.next(body)))
            if breaks.ending:
                breaks.end()
                return Ready(pieces, headers)
        for piece in framer.end():
            pieces.append(breaks.admit(piece))
            if breaks.ending:
                breaks.end()
                return Ready(pieces, headers)
        breaks.finish()
    except DropConnection:  # what was let through leaves, then the connection closes
        return Ready(pieces, headers, drop=True)
    return Ready(pieces, headers)


class _Breaks:
    """Where one body must break, as its chunks reveal it (this module's own state, never shared)."""

    def __init__(self, at_byte: int | None = None) -> None:
        self.at_byte = at_byte  # close the connection once the body reaches this many bytes
        self.truncate_next = False  # send the next piece cut in half, then end the body normally
        self.drop_now = False  # close the connection before sending anything more
        self.sent = 0  # bytes let through so far
        self.ending = ""  # after the piece just let through: "end" the body normally, or "drop" the connection

    def note(self, fault: Fault | None) -> None:
        if fault is None:
            return
        if fault.kind == TRUNCATE:
            self.truncate_next = True
        elif fault.kind == DROP and fault.at_byte is None:
            self.drop_now = True
        elif fault.kind == DROP:
            self.at_byte = fault.at_byte

    def admit(self, piece: bytes) -> bytes:
        """What of `piece` is sent (`ending` then says whether the body stops after it)."""
        if self.drop_now:
            raise DropConnection
        if self.truncate_next:
            self.ending = "end"
            return piece[: len(piece) // 2]
        if self.at_byte is not None and self.sent + len(piece) >= self.at_byte:
            self.ending = "drop"
            return piece[: self.at_byte - self.sent]
        self.sent += len(piece)
        return piece

    def end(self) -> None:
        """After the piece that ends the body: the connection is closed for a drop."""
        if self.ending == "drop":
            raise DropConnection

    def finish(self) -> None:
        """After the whole body went through: a drop still due (a body shorter than at_byte) closes the connection."""
        if self.drop_now or self.at_byte is not None:
            raise DropConnection


async def _cut(pieces: AsyncIterator[bytes], breaks: _Breaks) -> AsyncIterator[bytes]:
    async for piece in pieces:
        yield breaks.admit(piece)
        if breaks.ending:
            breaks.end()
            return
    breaks.finish()


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _dropped() -> AsyncIterator[bytes]:
    raise DropConnection
    yield b""  # unreachable: makes this an async generator, like every other body
