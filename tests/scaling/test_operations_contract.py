"""The operations suites on the Redis store: every test of tests/wire/media/test_veo.py (google-genai on Vertex
through fetchPredictOperation, REST on the Developer API through the operations room, scripted holds, failures and
filters, the video downloaded) and of tests/wire/resources/test_operations_room.py (get, list, cancel, delete, other
keys, the admin API, on operations this process made itself) run again on an emulator whose Veo operations live on
a real redis-server (tests/scaling/conftest.py), so both stores pass one suite."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_TESTS = Path(__file__).parents[1]
for _source in ("wire/media/test_veo.py", "wire/resources/test_operations_room.py"):
    _spec = importlib.util.spec_from_file_location(f"operations_contract_{Path(_source).stem}", _TESTS / _source)
    assert _spec is not None and _spec.loader is not None
    _suite = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_suite)
    globals().update({k: v for k, v in vars(_suite).items() if not k.startswith("__")})


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: Veo's operations, scripts and the journal on the session's redis-server."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def base_url(gemini_emulator: RunningEmulator) -> str:
    return gemini_emulator.url


@pytest.fixture(scope="module")
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        yield client


@pytest.fixture(scope="module")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()
