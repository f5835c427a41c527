"""pytest plugin: a real emulator on a real loopback socket, for your tests and ours.

    def test_my_code(gemini_emulator):
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=gemini_emulator.url))

The server runs uvicorn in a background thread (one per test session) on a free port.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from emulator.app import create_app
from emulator.config import Settings
from engines.base import Engine


@dataclass
class RunningEmulator:
    """A started emulator: its base URL and settings."""

    url: str
    host: str
    port: int
    settings: Settings
    _server: uvicorn.Server
    _thread: threading.Thread

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def start(settings: Settings | None = None, engine: Engine | None = None) -> RunningEmulator:
    """Start an emulator in a thread and return once it accepts connections; `engine` overrides settings."""
    settings = settings or Settings()
    host = settings.host
    port = settings.port if settings.port else _free_port(host)
    settings.port = port
    config = uvicorn.Config(
        create_app(settings, engine),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, name=f"gemini-emulator:{port}", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(f"gemini-emulator failed to start on {host}:{port}")
        thread.join(timeout=0.01)
    return RunningEmulator(f"http://{host}:{port}", host, port, settings, server, thread)


@pytest.fixture(scope="session")
def gemini_emulator() -> Iterator[RunningEmulator]:
    """A session-wide emulator on 127.0.0.1 with default settings (scripted engine)."""
    running = start(Settings(port=0))
    yield running
    running.stop()
