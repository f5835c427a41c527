"""The Live suites on the Redis store: every test of tests/wire/live/test_live_sdk.py (google-genai over WSS:
turns, audio, tools, resumption after a drop, go-away, ephemeral tokens locking their setup and used up) and of
tests/wire/live/test_live_raw.py (raw WebSocket frames, close codes, the admin listing of sessions and handles)
run again on emulators whose ephemeral tokens and resumption handles live on a real redis-server
(tests/scaling/conftest.py), so both stores pass one suite. Open sessions stay per process on either store."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_emulator import tls
from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_LIVE = Path(__file__).parents[1] / "wire" / "live"
sys.path.insert(0, str(_LIVE))  # the suites' own helpers (live_helpers), as rootdir conftest finds them there
for _source in ("test_live_sdk.py", "test_live_raw.py"):
    _spec = importlib.util.spec_from_file_location(f"live_contract_{_source[:-3]}", _LIVE / _source)
    assert _spec is not None and _spec.loader is not None
    _suite = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_suite)
    globals().update({k: v for k, v in vars(_suite).items() if not k.startswith("__")})


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """The raw suite's emulator: tokens, handles, scripts and the journal on the session's redis-server."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def gemini_tls_emulator(
    redis_server: RedisServer, gemini_emulator: RunningEmulator, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningEmulator]:
    """The SDK suite's emulator (HTTPS and WSS), on the same redis-server."""
    certificate = tls.generated("127.0.0.1", tmp_path_factory.mktemp("tls"))
    files = {"tls_cert": str(certificate.cert), "tls_key": str(certificate.key)}
    running = start(Settings(port=0, tls=True, store=redis_server.url, **files))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def base_url(gemini_emulator: RunningEmulator) -> str:
    return gemini_emulator.url


@pytest.fixture(scope="module")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()
