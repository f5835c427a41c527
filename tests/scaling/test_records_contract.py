"""The per-key record stores' and interactions' contract on the Redis store: every test of
tests/wire/resources/test_webhooks.py, test_agents.py and tests/wire/media/test_interactions.py (google-genai sync
and async and httpx against a real server: every method, pages, bounds, 4xx envelopes, deliveries signed and
retried, rotation, namespaces apart, agents named by interactions and triggers, interactions chained, streamed,
run in the background, cancelled and deleted) run again on an emulator whose webhooks, agents and interactions live
on a real redis-server (tests/scaling/conftest.py), so both
stores pass one suite (stores/keyed_redis.py, stores/records_redis.py). A Python script predicate cannot be shared
through Redis: the suite's one (`_instructed`, the system instruction the engine was asked with) becomes the JSON
matcher that says the same (`systemRegex`, anchored)."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.pytest_plugin import SETTINGS_MARKER, Gemini, _point_sdks, _test_key
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_HERE = Path(__file__).parents[1] / "wire"
# A stream's journal record reaches Redis when the stream ends, after its last byte (docs/scaling.md, phase 1): a
# test reading the journal the moment a stream is read races it.
ONLY_IN_MEMORY = {"test_vertex_stream_is_crlf_sse_in_the_vertex_shape"}
_SOURCES = (
    "resources/test_webhooks.py",
    "resources/test_agents.py",
    "resources/test_triggers.py",
    "resources/test_voices.py",
    "media/test_interactions.py",
    "test_templates.py",
)
for _source in _SOURCES:
    _spec = importlib.util.spec_from_file_location(f"records_contract_{Path(_source).stem}", _HERE / _source)
    assert _spec is not None and _spec.loader is not None
    _suite = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_suite)
    for _name, _test in vars(_suite).items():
        if _name.startswith("test_") and _name not in ONLY_IN_MEMORY:  # a name two suites share: the suite's after it
            globals()[_name if _name not in globals() else f"{_name}__{Path(_source).stem[5:]}"] = _test
    if hasattr(_suite, "client"):  # test_interactions' own: google-genai with the test's key
        globals()["client"] = _suite.client
    if hasattr(_suite, "_instructed"):
        _suite._instructed = lambda text: _System(text)


class _System(str):
    """The system instruction an entry matches, exactly (the suite's predicate, as JSON)."""


@pytest.fixture(autouse=True)
def _json_predicates(monkeypatch: pytest.MonkeyPatch) -> None:
    script = Gemini.script

    def shared(self: Gemini, *entries: dict[str, Any], predicate: Any = None) -> None:
        if isinstance(predicate, _System):
            match = {"systemRegex": "^" + re.escape(predicate) + "$"}
            entries = tuple({**e, "match": {**e.get("match", {}), **match}} for e in entries)
            predicate = None
        script(self, *entries, predicate=predicate)

    monkeypatch.setattr(Gemini, "script", shared)


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: webhooks, agents, scripts and the journal on the session's redis-server."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture
def gemini_fresh(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, redis_server: RedisServer
) -> Iterator[Gemini]:
    """As the plugin's `gemini_fresh`, on the session's redis-server."""
    marker = request.node.get_closest_marker(SETTINGS_MARKER)
    fields: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    running = start(Settings(**{"port": 0, **fields, "store": redis_server.url}))
    handle = Gemini(running, _test_key())
    _point_sdks(monkeypatch, handle.url, handle.api_key)
    yield handle
    handle.close()
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
