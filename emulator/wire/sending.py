"""How API answers leave over ASGI: a whole body, or a stream that stops when the client hangs up.

Both are Starlette responses (the journal and the admin API treat them as such) with two costs taken out of
the hot path: header lists are encoded once per distinct header set, not per response, and a stream watches
for the hang-up with one plain asyncio task instead of an anyio task group (uvicorn's ASGI 2.3 scope sends
every StreamingResponse down that path; it was a tenth of a streamed answer's CPU).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from functools import lru_cache
from typing import Any, TypeVar

from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from gemini_emulator.protocol import errors
from gemini_emulator.wire.incoming import RawHeaders


@lru_cache(maxsize=256)
def _encoded(items: tuple[tuple[str, str], ...]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in items)


def encode_headers(headers: dict[str, str]) -> RawHeaders:
    """`headers` as ASGI wants them, in order; each distinct set is encoded once."""
    return list(_encoded(tuple(headers.items())))


class Body(Response):
    """A whole answer: `headers` in order, then content-length."""

    def __init__(self, content: bytes, status: int, headers: dict[str, str]) -> None:
        self.status_code = status
        self.background = None
        self.body = content
        self.raw_headers = [*_encoded(tuple(headers.items())), (b"content-length", b"%d" % len(content))]


class Stream(StreamingResponse):
    """A streamed answer, each piece sent as it is produced. When the client hangs up, producing stops: the
    task is cancelled wherever it waits (a scripted delay, a held stream), like Starlette's StreamingResponse."""

    def __init__(self, pieces: AsyncIterator[bytes], headers: dict[str, str], status: int = 200) -> None:
        self.body_iterator = pieces
        self.status_code = status
        self.background = None
        self.raw_headers = encode_headers(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        hung_up = finished = False

        def stop(watch: asyncio.Task[None]) -> None:
            nonlocal hung_up
            if not finished and not watch.cancelled():
                hung_up = True
                task.cancel()

        watch = asyncio.ensure_future(_hang_up(receive))
        watch.add_done_callback(stop)
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            async for piece in self.body_iterator:
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not hung_up:
                raise
            task.uncancel()  # our own cancellation: the client is gone, nothing more to send
        finally:
            finished = True
            watch.cancel()


async def _hang_up(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


T = TypeVar("T")


async def until_hang_up(receive: Receive, work: Awaitable[T]) -> T:
    """`work` (an engine producing its answer: a scripted delay, a slow upstream), given up with errors.cancelled()
    as soon as the client hangs up, instead of running on for nobody. The body has been read: the next ASGI message
    is the disconnect."""
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
        return await work
    except asyncio.CancelledError:
        if not hung_up:
            raise
        task.uncancel()
        raise errors.cancelled() from None
    finally:
        finished = True
        watch.cancel()
