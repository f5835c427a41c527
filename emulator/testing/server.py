"""Run the emulator in a background thread of this process, on a free loopback port."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Any

import uvicorn

from gemini_emulator import tls
from gemini_emulator.app import create_app
from gemini_emulator.config import Settings
from gemini_emulator.runtime import LeanWebSockets, event_loop, http_protocol
from gemini_emulator.seam import Engine, ScriptBook


@dataclass
class RunningEmulator:
    """A started emulator: its base URL and settings."""

    url: str
    host: str
    port: int
    settings: Settings
    _server: uvicorn.Server
    _thread: threading.Thread
    ca_bundle: str | None = None  # with --tls: the file that makes clients trust it (SSL_CERT_FILE)

    @property
    def store(self) -> ScriptBook | None:
        """The engine's script book, None for an engine that takes no script (in-process access: Python
        predicates work here)."""
        app: Any = self._server.config.app  # the Starlette app create_app built
        return app.state.store

    @property
    def context(self) -> Any:
        """The handlers' state (gemini_emulator.wire.handlers.Context: `operations`, `files`, `caches` stores),
        in-process."""
        app: Any = self._server.config.app
        return app.state.context

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def start(settings: Settings | None = None, engine: Engine | None = None) -> RunningEmulator:
    """Start an emulator in a thread and return once it accepts connections; `engine` overrides settings."""
    settings = settings or Settings()
    host = settings.host
    port = settings.port if settings.port else free_port(host)
    settings.port = port
    tls_files: dict[str, str] = {}
    bundle = None
    if settings.tls:
        certificate = tls.resolve(settings.tls_cert, settings.tls_key, host)
        tls_files = {"ssl_certfile": str(certificate.cert), "ssl_keyfile": str(certificate.key)}
        bundle = str(certificate.bundle)
    stack = {"http": http_protocol(settings.http), "loop": event_loop(settings.loop)}
    server, thread = serve_in_thread(create_app(settings, engine), host, port, **stack, **tls_files)
    scheme = "https" if settings.tls else "http"
    return RunningEmulator(f"{scheme}://{host}:{port}", host, port, settings, server, thread, bundle)


def serve_in_thread(app: Any, host: str, port: int, **options: Any) -> tuple[uvicorn.Server, threading.Thread]:
    """Serve an ASGI app from a daemon thread; return once it accepts connections (no access log); `options` go
    to uvicorn.Config (the TLS files; `http` and `loop`, by default the fastest installed, in Google's envelope
    for what cannot be parsed, as from `serve`)."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # as `serve` (emulator/cli.py): nothing reads what it rewrites
        server_header=False,
        lifespan="off",
        # options may name another stack
        **{"http": http_protocol(), "loop": event_loop(), "ws": LeanWebSockets, **options},
    )
    server = uvicorn.Server(config)
    # uvicorn listens for signals only on the main thread (Server.capture_signals): this thread never does.
    thread = threading.Thread(target=server.run, name=f"gemini-emulator:{port}", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(f"gemini-emulator failed to start on {host}:{port}")
        thread.join(timeout=0.01)
    return server, thread
