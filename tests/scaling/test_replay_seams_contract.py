"""The replay engine's seams on the Redis store: every test of tests/captures/test_replay_seams.py (retired models
served from their recordings, recorded countTokens, computeTokens and embeddings answered through the awaited
`answer_method`, recorded headers, the admin reset restarting a caller's conversations and replay entries) run
again on emulators whose conversation progress, scripts and journal live on a real redis-server
(engines/replay_redis.py; tests/scaling/test_replay_contract.py runs the engine's own suite)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_SOURCE = Path(__file__).parents[1] / "captures" / "test_replay_seams.py"
_spec = importlib.util.spec_from_file_location("replay_seams_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_")})
captures_dir = _suite.captures_dir  # the suite's captures (its fixture)


@pytest.fixture(scope="module")
def replay(captures_dir: Path, redis_server: RedisServer) -> Iterator[RunningEmulator]:  # noqa: F811
    """The suite's replay engine, its progress (and journal) on the session's redis-server."""
    redis_server.client().flushall()
    running = start(Settings(port=0, engine="replay", captures=str(captures_dir), store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def scripted(captures_dir: Path, redis_server: RedisServer) -> Iterator[RunningEmulator]:  # noqa: F811
    """The suite's scripted engine with `replay` entries, scripts and progress on the session's redis-server."""
    running = start(Settings(port=0, captures=str(captures_dir), store=redis_server.url))
    yield running
    running.stop()
