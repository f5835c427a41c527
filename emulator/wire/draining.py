"""The end of a shutdown's grace period, as answers see it.

When the server stops (SIGTERM, Ctrl-C) it serves what is in flight for `--shutdown-grace` seconds. Then `Drain.cut`
ends every call still producing its answer the way production ends a failed one: a stream that has started gets
the mid-stream error tail (its 200 kept, protocol/framing.py), a call still waiting for its first chunk gets a 503
envelope. The alternative, the server cancelling the tasks, leaves clients with a broken chunked body and the log
with a traceback per call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from gemini_emulator.protocol import errors

T = TypeVar("T")
# Google's front end's words for a backend that is going away (no Gemini capture of a shutdown exists).
SHUTTING_DOWN = "The service is currently unavailable."


def shutting_down() -> errors.ApiError:
    return errors.ApiError(503, SHUTTING_DOWN)


class Drain:
    """The calls producing an answer right now, and the switch that ends them (one per app)."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[object]] = set()
        self._cut: set[asyncio.Task[object]] = set()
        self._closers: list[Callable[[], None]] = []  # background work that ends with the server (webhook deliveries)
        self.ended = False

    @property
    def running(self) -> int:
        return len(self._running)

    async def until(self, chunks: AsyncIterator[T]) -> AsyncIterator[T]:
        """`chunks` as they come, until `cut`: then production's 503 is raised from where the call waits."""
        if self.ended:
            raise shutting_down()
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        try:
            async for chunk in chunks:
                yield chunk
        except asyncio.CancelledError:
            if task not in self._cut:
                raise
            task.uncancel()  # our own cancellation: end the answer with an error instead
            raise shutting_down() from None
        finally:
            self._running.discard(task)
            self._cut.discard(task)

    def on_end(self, closer: Callable[[], None]) -> None:
        """Run `closer` when the server ends (`end_background`): background work that must not outlive it."""
        self._closers.append(closer)

    def end_background(self) -> None:
        """End the background work registered with `on_end` (each closer is safe to call more than once)."""
        for closer in self._closers:
            closer()

    def cut(self) -> int:
        """End every call still producing its answer, and the background work; returns how many calls there were."""
        self.ended = True
        self.end_background()
        tasks = list(self._running)
        for task in tasks:
            self._cut.add(task)
            task.cancel()
        return len(tasks)
