"""The Files contract on the Redis store: every test of tests/wire/resources/test_files_room.py,
test_files_create_register.py, test_file_uris.py, test_files_clients.py (google-genai, LangChain and httpx against
a real server: resumable, multipart and raw uploads, pages, downloads, 403s, states, fileData uris, metadata-only
and registered files), tests/wire/media/test_veo.py (videos as files) and the file search suites (importFile)
run again on an emulator whose files live on a real redis-server (tests/scaling/conftest.py), so both stores pass
one suite. The tests that start their own server get it on the same redis-server; the four that read the
in-memory store's own counters are left out here and have Redis twins in test_files_redis.py."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_TESTS = Path(__file__).parents[1]
SOURCES = (
    "wire/resources/test_files_room",
    "wire/resources/test_files_create_register",
    "wire/resources/test_file_uris",
    "wire/resources/test_files_clients",
    "wire/media/test_veo",  # the generated videos are files (Veo's operations stay per process: docs/scaling.md)
    "wire/resources/test_file_search",  # importFile reads a Files API file
    "wire/resources/test_file_search_media",
)
# They read FileStore's own counters (`context.files.used`, `.get`): their Redis twins are in test_files_redis.py
ONLY_IN_MEMORY = {
    "test_resumable_size_mismatch_and_cancel",
    "test_states_set_through_the_admin_api",
    "test_the_byte_budget_refuses_with_429_and_frees_on_delete",
    "test_a_stalled_upload_chunk_gets_408_and_its_bytes_are_freed",
}
_URL: dict[str, str] = {}


def _on_redis(settings: Settings, *args: Any, **kwargs: Any) -> RunningEmulator:
    """The suites' own `start`, their settings moved onto this module's redis-server."""
    return start(dataclasses.replace(settings, store=_URL["url"]), *args, **kwargs)


for _name in SOURCES:
    _spec = importlib.util.spec_from_file_location(f"files_contract_{_name.rsplit('/')[-1]}", _TESTS / f"{_name}.py")
    assert _spec is not None and _spec.loader is not None
    _suite = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_suite)
    if hasattr(_suite, "start"):
        _suite.start = _on_redis  # type: ignore[attr-defined]
    _tests = {k: v for k, v in vars(_suite).items() if k.startswith("test_") and k not in ONLY_IN_MEMORY}
    assert not _tests.keys() & globals().keys(), f"{_name}: a test name taken by another source"
    globals().update(_tests)


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: files, batches, scripts and the journal on the session's redis-server."""
    redis_server.client().flushall()
    _URL["url"] = redis_server.url
    running = start(Settings(port=0, store=redis_server.url))
    assert running.context.shared_files is not None
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
