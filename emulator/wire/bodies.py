"""Reading a request body: refused early past the size limit, cut off when the sender stalls, and given up
when the client hangs up half-way. A gzip body (`Content-Encoding: gzip`) is decoded, its decoded size held to
the same limit (a small bomb never inflates past it); another encoding is refused, naming it.

A stalled sender is found by one sweep a second over the bodies being read, not by a timer per request:
arming and disarming a timer cost more than the rest of reading a small body.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Mapping
from time import monotonic

from starlette.types import Message, Receive

from gemini_emulator.protocol import errors

SWEEP_S = 1.0
OFF_LOOP_GZIP = 64 << 10  # a compressed body past this is inflated in a worker thread (zlib lets go of the GIL)


class BodyReader:
    """Reads bodies for one app; `timeout_s` bounds each body from the handler's first read to its last byte."""

    def __init__(self, limit: int, timeout_s: float) -> None:
        self.limit = limit
        self.timeout_s = timeout_s
        self._reading: dict[asyncio.Task[object], float] = {}  # task -> deadline
        self._late: set[asyncio.Task[object]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._started = 0  # reads begun: a sweep that sees none since the last one ends the sweeper

    async def read(self, receive: Receive, headers: Mapping[str, str]) -> bytes:
        """The body as sent, or decoded when it came gzip-compressed."""
        raw = await self._read(receive, headers)
        encoding = headers.get("content-encoding")
        if encoding is None:
            return raw
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            return raw
        if encoding not in ("gzip", "x-gzip"):
            raise errors.unsupported_encoding(encoding)
        if len(raw) <= OFF_LOOP_GZIP:
            return _gunzip(raw, self.limit)
        return await asyncio.to_thread(_gunzip, raw, self.limit)

    async def _read(self, receive: Receive, headers: Mapping[str, str]) -> bytes:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            raise errors.payload_too_large(self.limit)
        task = asyncio.current_task()
        if self.timeout_s <= 0 or task is None:
            return await self._receive_all(receive)
        sweeper = self._sweeper
        if sweeper is None or sweeper.done():
            self._watch()
        self._started += 1
        self._reading[task] = monotonic() + self.timeout_s
        try:
            # _receive_all, less a coroutine for the usual body: all of it in the first message
            message = await receive()
            if message.get("more_body", False) or message["type"] == "http.disconnect":
                return await self._receive_all(receive, message)
            piece: bytes = message.get("body", b"")
            if len(piece) > self.limit:
                raise errors.payload_too_large(self.limit)
            return piece
        except asyncio.CancelledError:
            if task not in self._late:
                raise
            task.uncancel()
            raise errors.body_timeout(self.timeout_s) from None
        finally:
            del self._reading[task]
            if self._late:
                self._late.discard(task)

    async def _receive_all(self, receive: Receive, message: Message | None = None) -> bytes:
        """The whole body, from its first `message` when it is in already."""
        chunks: list[bytes] = []
        size = 0
        while True:
            if message is None:
                message = await receive()
            if message["type"] == "http.disconnect":
                raise errors.cancelled()  # the client hung up mid-body: nobody reads this answer
            piece = message.get("body", b"")
            size += len(piece)
            if size > self.limit:
                raise errors.payload_too_large(self.limit)
            if not message.get("more_body", False):
                if not chunks:
                    return piece
                chunks.append(piece)
                return b"".join(chunks)
            chunks.append(piece)
            message = None

    def _watch(self) -> None:
        """A sweeper started (`read` calls it when none is running)."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name="gemini-emulator body sweep")

    async def _sweep(self) -> None:
        """Cancel the reads past their deadline; end after a quiet second (the next read starts a new sweeper)."""
        seen = -1
        while self._reading or self._started != seen:
            seen = self._started
            await asyncio.sleep(SWEEP_S)
            now = monotonic()
            for task, deadline in list(self._reading.items()):
                if deadline <= now and task not in self._late:
                    self._late.add(task)
                    task.cancel()


def _gunzip(data: bytes, limit: int) -> bytes:
    """`data` gunzipped (concatenated members too), at most `limit` bytes of it, else the size limit's 400."""
    out: list[bytes] = []
    size = 0
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            piece = inflater.decompress(data, limit - size + 1)
        except zlib.error:
            raise errors.bad_gzip() from None
        size += len(piece)
        if size > limit or inflater.unconsumed_tail:
            raise errors.payload_too_large(limit)
        if not inflater.eof:
            raise errors.bad_gzip()
        out.append(piece)
        data = inflater.unused_data
    return b"".join(out)
