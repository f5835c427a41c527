"""Process-wide tuning for the `serve` command. In-process servers (emulator.server) share their host's
interpreter and are left alone."""

from __future__ import annotations

import asyncio
import gc
from time import monotonic

from starlette.types import ASGIApp, Receive, Scope, Send

# Collections run after this many net allocations (CPython's default is 700), and a full collection is
# considered every 20 x 10 of those. Each request allocates a few thousand objects and frees nearly all of them
# at once, so young collections find little; with 1,000 streams open, a full collection at CPython's pace walks
# a million live objects and stalls every stream for ~100 ms (bench/extras.py held_streams measures it).
GC_THRESHOLDS = (50_000, 20, 10)


def tune_gc() -> None:
    """Freeze what start-up built (modules, catalogue, field tables: never garbage) out of every collection,
    and collect less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


IDLE_S = 2.0  # quiet time after the last request before the collector runs


def collect_when_idle(app: ASGIApp, idle_s: float = IDLE_S) -> ASGIApp:
    """`app`, with a full garbage collection once no request has been in flight for `idle_s` seconds.

    Every closed connection leaves reference cycles (uvicorn's protocol and its request cycle, the asyncio
    transport) that only the collector frees, and `tune_gc` makes full collections rare: a suite that opens a new
    client per test would grow until one came. Collecting when idle returns that memory between bursts, never
    in the middle of one (1,000 held streams count as in flight)."""
    in_flight = 0
    active = False  # requests since the last collection
    last = monotonic()
    collector: asyncio.Task[None] | None = None

    async def collect() -> None:
        nonlocal active, collector
        while active:
            await asyncio.sleep(idle_s)
            if in_flight == 0 and monotonic() - last >= idle_s:
                active = False
                gc.collect()
        collector = None

    async def counted(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal in_flight, active, last, collector
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        in_flight += 1
        active = True
        if collector is None:
            collector = asyncio.get_running_loop().create_task(collect(), name="gemini-emulator idle gc")
        try:
            await app(scope, receive, send)
        finally:
            in_flight -= 1
            last = monotonic()

    return counted
