"""How API answers leave over ASGI: a whole body, or a stream that stops when the client hangs up.

Both are Starlette responses (the journal and the admin API treat them as such) with costs taken out of the
hot path: header lists are encoded once per distinct header set, not per response; a stream watches for the
hang-up with one plain asyncio task instead of an anyio task group (uvicorn's ASGI 2.3 scope sends every
StreamingResponse down that path; it was a tenth of a streamed answer's CPU), and only from the first time it
waits for a piece: pieces that are ready at once (a zero-config answer, a script without delays) are produced
without a watcher and leave together, in one ASGI message, up to BATCH_BYTES. A piece that takes time (a scripted
delay, a slow upstream) is waited for with the watcher on, after everything ready before it has been sent, so it
leaves on time. `until_hang_up` likewise watches only work that does not finish at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Generator
from functools import lru_cache
from typing import Any, Protocol, TypeVar, cast

from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.wire.incoming import RawHeaders


@lru_cache(maxsize=256)
def _encoded(items: tuple[tuple[str, str], ...]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in items)


def encode_headers(headers: dict[str, str]) -> RawHeaders:
    """`headers` as ASGI wants them, in order; each distinct set is encoded once."""
    return list(_encoded(tuple(headers.items())))


# A key of an ASGI http.response.start message: its body follows at once, with no wait between (a server that
# knows it, `serve`'s httptools cycle in emulator/runtime.py, writes head and body together; others ignore it).
BODY_FOLLOWS = "gemini_emulator.body_follows"


class Body(Response):
    """A whole answer: `headers` in order, then content-length."""

    def __init__(self, content: bytes, status: int, headers: dict[str, str]) -> None:
        self.status_code = status
        self.background = None
        self.body = content
        self.raw_headers = [*_encoded(tuple(headers.items())), (b"content-length", b"%d" % len(content))]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        start = {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        await send(start | {BODY_FOLLOWS: True})
        await send({"type": "http.response.body", "body": self.body})


class Tap(Protocol):
    """What sees each piece of a streamed body as it is produced (the journal: admin/journal.py), and its end."""

    def add(self, piece: bytes) -> None: ...

    def end(self, complete: bool) -> None:
        """The body is over (`complete`: it ended cleanly); only the first call counts."""
        ...


class Stream(StreamingResponse):
    """A streamed answer, each piece sent as it is produced. When the client hangs up, producing stops: the
    task is cancelled wherever it waits (a scripted delay, a held stream), like Starlette's StreamingResponse.
    `tap` (when set) is handed every piece, then told whether the pieces ended cleanly (complete) or not."""

    def __init__(self, pieces: AsyncIterator[bytes], headers: dict[str, str], status: int = 200) -> None:
        self.body_iterator = pieces
        self.status_code = status
        self.background = None
        self.raw_headers = encode_headers(headers)
        self.tap: Tap | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        hung_up = finished = False
        watch: asyncio.Future[None] | None = None

        def stop(watch: asyncio.Future[None]) -> None:
            nonlocal hung_up
            if not finished and not watch.cancelled():
                hung_up = True
                task.cancel()

        pieces = cast(AsyncIterator[Any], self.body_iterator)
        tap = self.tap
        ready: list[bytes] = []  # pieces produced and not yet sent
        size = 0
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            while True:
                step = pieces.__anext__().__await__()
                try:
                    pending = step.send(None)
                except StopIteration as done:  # ready at once
                    piece = _as_bytes(done.value)
                    if tap is not None:
                        tap.add(piece)
                    ready.append(piece)
                    size += len(piece)
                    if size >= BATCH_BYTES:
                        await send({"type": "http.response.body", "body": b"".join(ready), "more_body": True})
                        ready, size = [], 0
                    continue
                except StopAsyncIteration:
                    if tap is not None:
                        tap.end(True)
                    break
                except BaseException:  # what was ready still leaves first (a requested drop cuts after it)
                    if ready:
                        await send({"type": "http.response.body", "body": b"".join(ready), "more_body": True})
                    raise
                # The next piece takes time: what is ready leaves now, then it is waited for, watching for a hang-up.
                resumed = _Resumed(step, pending)
                if ready:
                    try:
                        await send({"type": "http.response.body", "body": b"".join(ready), "more_body": True})
                    except BaseException as exc:  # cancelled meanwhile: the piece under way hears of it first
                        resumed.throw_first = exc
                    ready, size = [], 0
                if watch is None:
                    watch = asyncio.ensure_future(_hang_up(receive))
                    watch.add_done_callback(stop)
                try:
                    piece = _as_bytes(await resumed)
                except StopAsyncIteration:
                    if tap is not None:
                        tap.end(True)
                    break
                if tap is not None:
                    tap.add(piece)
                ready.append(piece)
                size += len(piece)
            await send({"type": "http.response.body", "body": b"".join(ready), "more_body": False})
        except asyncio.CancelledError:
            if not hung_up:
                raise
            task.uncancel()  # our own cancellation: the client is gone, nothing more to send
        finally:
            finished = True
            if watch is not None:
                watch.cancel()
            if tap is not None:
                tap.end(False)  # a no-op after the clean end


class Ready(Stream):
    """A streamed answer whose pieces are all at hand (an answer no part of which waits): they leave as Stream
    would send pieces that are ready at once, together in sends of up to BATCH_BYTES, with no hang-up watcher
    (there is nothing to wait for) and no generator to step; then the body ends or, for a requested drop
    (`drop`), the connection closes after them."""

    def __init__(self, pieces: list[bytes], headers: dict[str, str], drop: bool = False) -> None:
        self.status_code = 200
        self.background = None
        self.raw_headers = encode_headers(headers)
        self.tap = None
        self.pieces = pieces
        self.drop = drop

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tap = self.tap
        body = b"".join(self.pieces)
        if not self.drop and len(body) < BATCH_BYTES:  # the usual answer: the head, then the body in one send
            if tap is not None:
                tap.add(body)
                tap.end(True)  # before the sends, as below (a Tap's first end is the one that counts)
            status, headers = self.status_code, self.raw_headers
            await send({"type": "http.response.start", "status": status, "headers": headers, BODY_FOLLOWS: True})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        if tap is not None:
            tap.add(body)  # one piece for all: the journal keeps the same bytes (its media elision stays in a piece)
            if not self.drop:
                tap.end(True)
        try:
            start = {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            await send(start | {BODY_FOLLOWS: True} if body or not self.drop else start)
            if len(body) >= BATCH_BYTES:  # sent as Stream sends ready pieces: a batch once it reaches BATCH_BYTES
                batch: list[bytes] = []
                size = 0
                for piece in self.pieces:
                    batch.append(piece)
                    size += len(piece)
                    if size >= BATCH_BYTES:
                        await send({"type": "http.response.body", "body": b"".join(batch), "more_body": True})
                        batch, size = [], 0
                body = b"".join(batch)
            if self.drop:
                if body:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                raise DropConnection
            await send({"type": "http.response.body", "body": body, "more_body": False})
        finally:
            if tap is not None:
                tap.end(False)  # a no-op after the clean end


BATCH_BYTES = 64 * 1024  # ready pieces sent together up to this size (a file download is not read into one)


def _as_bytes(piece: Any) -> bytes:
    """A piece of a body as bytes (Starlette lets a body iterator yield str and memoryview too; ours yield bytes)."""
    if type(piece) is bytes:
        return piece
    return piece.encode() if isinstance(piece, str) else bytes(piece)


class _Resumed:
    """Awaiting this goes on with an awaitable that was stepped once and is now waiting (`pending`: what it
    yielded to the task), exactly as `await` would have gone on with it (`yield from` by hand); `throw_first`: an
    exception (a cancellation) to raise where it waits before anything else."""

    __slots__ = ("_step", "_pending", "throw_first")

    def __init__(self, step: Generator[Any, Any, Any], pending: Any) -> None:
        self._step, self._pending = step, pending
        self.throw_first: BaseException | None = None

    def __await__(self) -> Generator[Any, Any, Any]:
        step = self._step
        pending = self._pending
        if self.throw_first is not None:
            try:
                pending = step.throw(self.throw_first)
            except StopIteration as done:
                return done.value
        while True:
            try:
                sent = yield pending
            except GeneratorExit:
                step.close()
                raise
            except BaseException as exc:  # a cancellation: into the work, where it waits
                try:
                    pending = step.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    pending = step.send(sent)
                except StopIteration as done:
                    return done.value


async def _hang_up(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


T = TypeVar("T")


async def until_hang_up(receive: Receive, work: Awaitable[T]) -> T:
    """`work` (an engine producing its answer: a scripted delay, a slow upstream), given up with errors.cancelled()
    as soon as the client hangs up, instead of running on for nobody. The body has been read: the next ASGI message
    is the disconnect. Work that finishes without waiting (a zero-config answer) needs no watcher and gets none."""
    step = cast(Generator[Any, Any, Any], work.__await__())
    try:
        pending = step.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    task = asyncio.current_task()
    assert task is not None
    hung_up = finished = False

    def stop(watch: asyncio.Future[Any]) -> None:
        nonlocal hung_up
        if not finished and not watch.cancelled() and watch.exception() is None:
            hung_up = True
            task.cancel()

    watch = asyncio.ensure_future(_hang_up(receive))
    watch.add_done_callback(stop)
    try:
        return cast(T, await _Resumed(step, pending))
    except asyncio.CancelledError:
        if not hung_up:
            raise
        task.uncancel()
        raise errors.cancelled() from None
    finally:
        finished = True
        watch.cancel()
