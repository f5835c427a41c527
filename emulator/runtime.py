"""Process-wide tuning for the `serve` command. In-process servers (emulator.server) share their host's
interpreter and are left alone."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import logging
import re
import socket
from time import monotonic
from typing import Any, cast

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.supervisors import multiprocess
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame, Opcode

try:
    from uvicorn.protocols.http import httptools_impl
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
except ImportError:  # pragma: no cover - httptools not installed
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

from gemini_emulator.protocol import errors, framing, printers
from gemini_emulator.wire import auth
from gemini_emulator.wire.draining import Drain
from gemini_emulator.wire.sending import BODY_FOLLOWS

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


def _envelope_400(msg: str) -> bytes:
    return printers.pretty(errors.ApiError(400, msg).envelope())


class EnvelopedH11(H11Protocol):
    """uvicorn's h11 protocol, answering a request it cannot parse (a malformed request line or header) with
    Google's JSON error envelope instead of uvicorn's plain-text 400."""

    def send_400_response(self, msg: str) -> None:
        body = _envelope_400(msg)
        headers = [
            (b"content-type", framing.JSON_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
            self.transport.write(self.conn.send(event))
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()

    def _head_arrived(self) -> None:
        """Called once a request's head is parsed (the guard in `guarded_http` hooks it)."""

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:
            self._head_arrived()


# What a request head (request line and headers) may hold on the httptools stack before it is refused: h11 refuses
# past 16 KiB of incomplete head; llhttp has no bound of its own, and uvicorn would keep growing the URL and header
# list it collects.
MAX_HEAD_BYTES = 64 * 1024

if HttpToolsProtocol is not None:
    # A response head as uvicorn's httptools `send` lays it out for one distinct (status, default headers, headers
    # before a trailing content-length, keep-alive, HEAD) key: the bytes before the content-length line and after
    # it, whether that line sets the body's length, and the framing state it leaves (chunked, length, keep-alive).
    _Head = tuple[bytes, bytes, bool, bool | None, int, bool]
    _HEADS: dict[tuple[Any, ...], _Head] = {}
    _HEADS_MAX = 256

    def _lay_out_head(
        status: int, headers: list[tuple[bytes, bytes]], trailing_length: bool, keep_alive: bool, head: bool
    ) -> _Head:
        """uvicorn's own checks and choices (httptools_impl.RequestResponseCycle.send), made once per key: every
        name and value checked (RuntimeError as uvicorn raises it), names lowercased, content-length,
        transfer-encoding and connection read, then connection: close and transfer-encoding: chunked added as
        uvicorn adds them."""
        prefix = [httptools_impl.STATUS_LINE[status]]
        chunked: bool | None = None
        length = 0
        closing = False
        for name, value in headers:
            if httptools_impl.HEADER_RE.search(name):
                raise RuntimeError("Invalid HTTP header name.")
            if httptools_impl.HEADER_VALUE_RE.search(value):
                raise RuntimeError("Invalid HTTP header value.")
            name = name.lower()
            if name == b"content-length" and chunked is None:
                length, chunked = int(value.decode()), False
            elif name == b"transfer-encoding" and value.lower() == b"chunked":
                length, chunked = 0, True
            elif name == b"connection" and b"close" in [t.lower().strip() for t in value.split(b",")]:
                keep_alive, closing = False, True
            prefix.extend([name, b": ", value, b"\r\n"])
        sets_length = trailing_length and chunked is None
        if sets_length:
            chunked = False
        suffix = []
        if not keep_alive and not closing:
            suffix.append(b"connection: close\r\n")
        if chunked is None and not head and status not in (204, 304):
            chunked = True
            suffix.append(b"transfer-encoding: chunked\r\n")
        suffix.append(b"\r\n")
        return b"".join(prefix), b"".join(suffix), sets_length, chunked, length, keep_alive

    class _LeanCycle(RequestResponseCycle):
        """uvicorn's request cycle, its response heads laid out once per distinct header set (_lay_out_head)
        instead of every header checked and lowercased on every response: a tenth of a small answer's CPU.
        Anything out of the ordinary (an access log, paused writing, a header set that is not a list of byte
        pairs, a content-length that is not plain digits) goes to uvicorn's own `send`, as does every body."""

        _head: bytes | None = None  # a head kept to leave with the body that follows it (BODY_FOLLOWS)

        async def send(self, message: Any) -> None:
            if self._head is not None:
                return await self._with_head(message)
            if (
                message["type"] != "http.response.start"
                or self.response_started
                or self.disconnected
                or self.flow.write_paused
                or self.access_log
            ):
                return await super().send(message)
            try:
                headers = message.get("headers", ())
                length = headers[-1][1] if headers and headers[-1][0] == b"content-length" else None
                given = tuple(headers[:-1] if length is not None else headers)
                status, head = message["status"], self.scope["method"] == "HEAD"
                key = (status, tuple(self.default_headers), given, length is not None, self.keep_alive, head)
                laid = _HEADS.get(key)
            except (TypeError, KeyError, IndexError):  # not a list of byte pairs, no status: uvicorn says why
                return await super().send(message)
            if length is not None and not (type(length) is bytes and length.isdigit()):
                return await super().send(message)
            if laid is None:
                try:
                    laid = _lay_out_head(status, [*self.default_headers, *given], length is not None, key[4], head)
                except (RuntimeError, ValueError, TypeError):  # an invalid header: uvicorn raises its own error
                    return await super().send(message)
                if len(_HEADS) >= _HEADS_MAX:
                    _HEADS.clear()
                _HEADS[key] = laid
            prefix, suffix, sets_length, chunked, expected, keep_alive = laid
            self.response_started = True
            self.waiting_for_100_continue = False
            if length is not None:
                laid_out = prefix + b"content-length: " + length + b"\r\n" + suffix
                if sets_length:
                    expected = int(length)
            else:
                laid_out = prefix + suffix
            self.chunked_encoding, self.expected_content_length, self.keep_alive = chunked, expected, keep_alive
            if message.get(BODY_FOLLOWS) is True and not head:
                self._head = laid_out  # one write for the head and the body, one TCP segment for a small answer
            else:
                self.transport.write(laid_out)

        async def _with_head(self, message: Any) -> None:
            """The message after a start that promised its body (BODY_FOLLOWS): a body leaves in one write with
            the head, as uvicorn would write it after the head; anything else finds the head sent first."""
            head, self._head = cast(bytes, self._head), None
            body = message.get("body", b"") if message["type"] == "http.response.body" else None
            if (
                type(body) is not bytes
                or self.disconnected
                or self.flow.write_paused
                or (not self.chunked_encoding and len(body) > self.expected_content_length)
            ):
                if not self.disconnected:
                    self.transport.write(head)
                return await super().send(message)
            more_body = message.get("more_body", False)
            content = [head]
            if not self.chunked_encoding:
                self.expected_content_length -= len(body)
                content.append(body)
            elif body:
                content += [b"%x\r\n" % len(body), body, b"\r\n"]
            if self.chunked_encoding and not more_body:
                content.append(b"0\r\n\r\n")
            self.transport.write(b"".join(content))
            if not more_body:  # the response is complete, as uvicorn completes it
                if self.expected_content_length != 0:
                    raise RuntimeError("Response content shorter than Content-Length")
                self.response_complete = True
                self.message_event.set()
                if not self.keep_alive:
                    self.transport.close()
                self.on_response()

    class EnvelopedHttpTools(HttpToolsProtocol):
        """uvicorn's httptools protocol (llhttp, in C), with Google's envelope for what it cannot parse, as
        EnvelopedH11, and a bound on the request head (MAX_HEAD_BYTES)."""

        _head_bytes = 0  # of the head being received
        _in_head = True  # between requests: what arrives is a head
        _heads = 0  # heads parsed on this connection

        def send_400_response(self, msg: str) -> None:
            body = _envelope_400(msg)
            head = (
                b"HTTP/1.1 400 Bad Request\r\ncontent-type: " + framing.JSON_TYPE.encode()
                + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
            )  # fmt: skip
            self.transport.write(head + body)
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            # Counted only when the whole piece went to a head: a piece in which the last request's body ended
            # (and a new head may have begun) is not, so a head may pass the bound by at most one read.
            counting, heads = self._in_head, self._heads
            super().data_received(data)
            if counting and self._in_head and heads == self._heads and not self.transport.is_closing():
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BYTES:
                    self.logger.warning("Invalid HTTP request received.")
                    self.send_400_response("Invalid HTTP request received.")

        def on_headers_complete(self) -> None:
            self._in_head, self._head_bytes, self._heads = False, 0, self._heads + 1
            super().on_headers_complete()
            self._head_arrived()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head = True  # what follows is the next request's head

        def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
            if type(cycle) is RequestResponseCycle:
                cycle.__class__ = _LeanCycle  # the same object and state, the lean `send` above
            super()._start_asgi_task(cycle, app)

        def _head_arrived(self) -> None:
            """Called once a request's head is parsed (the guard in `guarded_http` hooks it)."""

else:  # pragma: no cover - httptools is a dependency; this is the fallback where it cannot install
    EnvelopedHttpTools = None  # type: ignore[assignment,misc]

HTTP_STACKS = ("auto", "httptools", "h11")
LOOPS = ("auto", "uvloop", "asyncio")


def http_protocol(choice: str = "auto") -> type[Any]:
    """The protocol class for `--http`: httptools (fast, C) when installed and asked for or `auto`, else h11."""
    if choice == "h11" or EnvelopedHttpTools is None:
        if choice == "httptools":
            raise ValueError("--http httptools: the httptools package is not installed")
        return EnvelopedH11
    return EnvelopedHttpTools


UNCOMPRESSED_FROM = 4096  # bytes: a WebSocket message this long or longer leaves without permessage-deflate


class _LeanDeflate(PerMessageDeflate):
    """permessage-deflate that sends a message of UNCOMPRESSED_FROM bytes or more as it is (RSV1 unset), which RFC
    7692 lets an endpoint do for any message; the peer's inflater and ours skip it alike, so the shared window
    stays in step. Those messages are the Live API's base64 audio (13 KB a piece): deflate saves ~40% of their
    bytes on a loopback link for ~200 µs of CPU each, most of a core at 200 sessions (bench/live.py)."""

    skipping = False  # the message being sent goes uncompressed (its continuation frames too)

    def encode(self, frame: Frame) -> Frame:
        if frame.opcode in CTRL_OPCODES:
            return frame
        if frame.opcode is not Opcode.CONT:
            self.skipping = len(frame.data) >= UNCOMPRESSED_FROM
        return frame if self.skipping else super().encode(frame)


class _LeanDeflateFactory(ServerPerMessageDeflateFactory):
    def process_request_params(self, params: Any, accepted_extensions: Any) -> Any:
        response, extension = super().process_request_params(params, accepted_extensions)
        extension.__class__ = _LeanDeflate  # same state, the encode above
        return response, extension


class LeanWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol with the same permessage-deflate offer (its window bits and memLevel), long
    messages left uncompressed (_LeanDeflate)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        if config.ws_per_message_deflate:
            self.conn.available_extensions = [
                _LeanDeflateFactory(
                    server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5}
                )
            ]


def event_loop(choice: str = "auto") -> str:
    """uvicorn's `loop` for `--loop`: uvloop when installed and asked for or `auto`, else asyncio."""
    have = importlib.util.find_spec("uvloop") is not None
    if choice == "uvloop" and not have:
        raise ValueError("--loop uvloop: the uvloop package is not installed")
    return "uvloop" if choice != "asyncio" and have else "asyncio"


def stack_name(protocol: type[Any], loop: str) -> str:
    """`httptools/uvloop` and the like, for the banner and the benchmark."""
    return f"{'h11' if issubclass(protocol, EnvelopedH11) else 'httptools'}/{loop}"


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


def guarded_http(header_timeout: float, max_connections: int, stack: str = "auto") -> type[asyncio.Protocol]:
    """The `stack`'s protocol (http_protocol) with two bounds uvicorn lacks: a connection that has not sent a
    whole request head within `header_timeout` seconds (after connecting, or after its last answer) is closed; and
    past `max_connections`, the connection that has waited longest for its head is closed to make room (with none
    waiting, the new one is), so idle sockets can never use up the file descriptors and lock callers out."""
    waiting: dict[Any, None] = {}  # connections between requests, oldest first
    base: Any = http_protocol(stack)

    class Guarded(base):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                victim = next(iter(waiting), None)
                if victim is None:
                    transport.close()
                    return
                victim._close_waiting()
            self._await_head()

        def _await_head(self) -> None:
            waiting[self] = None
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

        def _head_arrived(self) -> None:
            self._stop_waiting()

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._await_head()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

    Guarded.__name__ = Guarded.__qualname__ = "Guarded" + base.__name__.removeprefix("Enveloped")
    return Guarded


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


class _Redacted(logging.Filter):
    """Credentials out of the server's log: uvicorn logs each WebSocket handshake at info level with its query
    (`?key=`, `?access_token=`), and websockets logs every request header at debug level. Fixed patterns, each
    matched in one linear pass, over lines that only the handshake writes."""

    QUERY = re.compile(rf"([?&](?:{auth.API_KEY_PARAM}|access_token)=)[^&\s\"']*", re.IGNORECASE)
    HEADER = re.compile(
        rf"^([<>] (?:{auth.API_KEY_HEADER}|{auth.ADMIN_TOKEN_HEADER}|authorization|cookie): ).*$", re.IGNORECASE
    )

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self.HEADER.sub(r"\1[redacted]", self.QUERY.sub(r"\1[redacted]", message))
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def filter_logs() -> None:
    """The `serve` command's log filters: accept() errors rate-limited, credentials redacted."""
    logging.getLogger("asyncio").addFilter(_RateLimited())
    logging.getLogger("uvicorn.error").addFilter(_Redacted())


# Seconds past the grace period uvicorn waits before cancelling what is left: room for the error tails to go out.
TAIL_MARGIN_S = 2
log = logging.getLogger("gemini_emulator")


def server_config(
    app: ASGIApp, grace: int, http: type[asyncio.Protocol] | None = None, **options: Any
) -> uvicorn.Config:
    """uvicorn's Config for `serve` (and for each `--workers` process): the protocol classes, the drain margin."""
    config = uvicorn.Config(
        app,
        http=http or http_protocol(),
        ws=LeanWebSockets,
        timeout_graceful_shutdown=grace + TAIL_MARGIN_S,
        **options,
    )
    config.load_app()
    return config


def serve(app: ASGIApp, drain: Drain, grace: int, http: type[asyncio.Protocol] | None = None, **options: Any) -> None:
    """uvicorn.run for `serve`: a shutdown waits up to `grace` seconds for the calls in flight, then ends those
    still running with an error (wire/draining.py) instead of cutting their connections; protocol errors are
    answered in Google's envelope (`http`: another protocol class, best one from http_protocol). Exits 3
    (uvicorn's STARTUP_FAILURE) when the server never started."""
    server = DrainingServer(server_config(app, grace, http, **options), drain, grace)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if not server.started:
        raise SystemExit(3)


class _Worker(multiprocess.Process):
    """One `--workers` process: uvicorn's supervised worker, serving the app `workers.worker_server` builds in the
    child from the settings in its environment (the protocol classes are made there: they do not pickle)."""

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            from gemini_emulator.workers import worker_server

            self._server = worker_server()
        return self._server


def serve_workers(workers: int, host: str, port: int, log_level: str, **options: Any) -> None:
    """`--workers N`: uvicorn's supervisor (it restarts a worker that dies) over N processes on one socket, each
    serving `workers.worker_server()`; the settings reach them through the environment."""
    config = uvicorn.Config(
        "gemini_emulator.workers:worker_server",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level=log_level,
    )
    sock = config.bind_socket()
    # uvicorn's supervisor makes its workers as multiprocess.Process; these are its subclass (same process only).
    multiprocess.Process = _Worker  # type: ignore[misc]
    try:
        multiprocess.Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


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
            self.drain.end_background()  # webhook deliveries still waiting or retrying end with the server
