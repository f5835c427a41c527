"""The cachedContents contract on the Redis store: every test of tests/wire/resources/test_cached_contents.py
(google-genai sync and async, Developer and Vertex, raw HTTP: create, use in generate, stream and countTokens,
list pages, update, delete, expiry, other keys, the admin API, the journal), and the OpenAI-compatible surface's
extra_body.google.cached_content, run again on an emulator whose caches
live on a real redis-server (tests/scaling/conftest.py), so both stores pass one suite."""

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

_SOURCE = Path(__file__).parents[1] / "wire" / "resources" / "test_cached_contents.py"
_spec = importlib.util.spec_from_file_location("caches_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_")})
_OPENAI = Path(__file__).parents[1] / "wire" / "test_openai_compat.py"  # a cache named through extra_body.google
_openai_spec = importlib.util.spec_from_file_location("caches_contract_openai", _OPENAI)
assert _openai_spec is not None and _openai_spec.loader is not None
_openai = importlib.util.module_from_spec(_openai_spec)
_openai_spec.loader.exec_module(_openai)
test_extra_body_google_reaches_the_native_request = _openai.test_extra_body_google_reaches_the_native_request


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: cached contents, scripts and the journal on the session's redis-server."""
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


@pytest.fixture(autouse=True)
def _no_sync_read_on_the_loop(gemini_emulator: RunningEmulator) -> Iterator[None]:
    """Every generate path that names a cache read it, awaited, before its call was built (no sync Redis call)."""
    yield
    assert gemini_emulator.context.caches.sync_reads == 0
