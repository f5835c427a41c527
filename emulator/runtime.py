"""Process-wide tuning for the `serve` command. In-process servers (emulator.server) share their host's
interpreter and are left alone."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
from time import monotonic
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.wire.draining import Drain

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


class EnvelopedH11(H11Protocol):
    """uvicorn's h11 protocol, answering a request it cannot parse (a malformed request line or header) with
    Google's JSON error envelope instead of uvicorn's plain-text 400."""

    def send_400_response(self, msg: str) -> None:
        body = printers.pretty(errors.ApiError(400, msg).envelope())
        headers = [
            (b"content-type", framing.JSON_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
            self.transport.write(self.conn.send(event))
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()


RESERVED_FDS = 64  # file descriptors kept free of connections (captures, logs, the listening socket)


def connection_cap(configured: int = 0) -> int:
    """Connections served at once: `configured`, else what the process's file descriptor limit leaves room for."""
    if configured > 0:
        return configured
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1000
    if soft == resource.RLIM_INFINITY:
        return 100_000
    return max(16, soft - RESERVED_FDS)


def guarded_http(header_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with two bounds uvicorn lacks: a connection that has not sent a whole request head
    within `header_timeout` seconds (after connecting, or after its last answer) is closed; and past
    `max_connections`, the connection that has waited longest for its head is closed to make room (with none
    waiting, the new one is), so idle sockets can never use up the file descriptors and lock callers out."""
    waiting: dict[H11Protocol, None] = {}  # connections between requests, oldest first

    class GuardedH11(EnvelopedH11):
        _head_timer: asyncio.TimerHandle | None = None
        _armed_cycle: object = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if len(self.connections) > max_connections:
                victim = next(iter(waiting), None)
                if victim is None:
                    transport.close()
                    return
                victim._close_waiting()  # type: ignore[attr-defined]
            self._await_head()

        def _await_head(self) -> None:
            waiting[self] = None
            self._armed_cycle = self.cycle
            if header_timeout > 0:
                if self._head_timer is not None:
                    self._head_timer.cancel()
                self._head_timer = self.loop.call_later(header_timeout, self._close_waiting)

        def _close_waiting(self) -> None:
            self._stop_waiting()
            if not self.transport.is_closing():
                self.transport.close()

        def _stop_waiting(self) -> None:
            waiting.pop(self, None)
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def handle_events(self) -> None:
            super().handle_events()
            if self in waiting and self.cycle is not self._armed_cycle:  # a request head arrived
                self._stop_waiting()

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._await_head()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

    return GuardedH11


class _RateLimited(logging.Filter):
    """One "accept() out of system resource" line a minute, not one per attempt."""

    def __init__(self, every_s: float = 60.0) -> None:
        super().__init__()
        self.every_s = every_s
        self.last = -every_s
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if "accept" not in str(record.msg):
            return True
        now = monotonic()
        if now - self.last < self.every_s:
            self.dropped += 1
            return False
        self.last = now
        if self.dropped:
            record.msg = f"{record.msg} ({self.dropped} more since the last such line)"
            self.dropped = 0
        record.exc_info = None  # the message says it; a traceback per attempt is what flooded the log
        return True


def quiet_accept_errors() -> None:
    logging.getLogger("asyncio").addFilter(_RateLimited())


# Seconds past the grace period uvicorn waits before cancelling what is left: room for the error tails to go out.
TAIL_MARGIN_S = 2
log = logging.getLogger("gemini_emulator")


def serve(app: ASGIApp, drain: Drain, grace: int, http: type[asyncio.Protocol] | None = None, **options: Any) -> None:
    """uvicorn.run for `serve`: a shutdown waits up to `grace` seconds for the calls in flight, then ends those
    still running with an error (wire/draining.py) instead of cutting their connections; protocol errors are
    answered in Google's envelope (`http`: another protocol class, best one built on EnvelopedH11). Exits 3
    (uvicorn's STARTUP_FAILURE) when the server never started."""
    config = uvicorn.Config(
        app,
        http=http or EnvelopedH11,
        timeout_graceful_shutdown=grace + TAIL_MARGIN_S,
        **options,
    )
    config.load_app()
    server = DrainingServer(config, drain, grace)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if not server.started:
        raise SystemExit(3)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, with the shutdown described in `serve` and one log line saying what it waits for."""

    def __init__(self, config: uvicorn.Config, drain: Drain, grace: float) -> None:
        super().__init__(config)
        self.drain, self.grace = drain, grace

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        running = self.drain.running
        if running:
            log.warning(
                "shutting down: %d call(s) in flight get %g s to finish; any still running then end with an error",
                running,
                self.grace,
            )
        else:
            log.info("shutting down")
        timer = asyncio.get_running_loop().call_later(self.grace, self.drain.cut)
        try:
            await super().shutdown(sockets)
        finally:
            timer.cancel()
