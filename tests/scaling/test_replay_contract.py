"""The replay engine and `replay` script entries on the Redis store: every test of tests/engines/
test_replay_engine.py (real sockets, google-genai and httpx: exact, normalized and loose matches, streams, a
conversation played in order, identical requests in recorded order, recorded errors, the 404 naming the closest
captures, replay entries beside scripted namespaces) run again on emulators whose conversation progress lives on a
real redis-server (engines/replay_redis.py); then two `serve --engine replay` processes sharing it: a conversation
whose turns alternate between the processes plays in recorded order, a reset through either starts it again, and a
Redis that cannot be reached is the 503 envelope for a replayed request."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_workers import serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_SOURCE = Path(__file__).parents[1] / "engines" / "test_replay_engine.py"
_spec = importlib.util.spec_from_file_location("replay_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_")})
captures_dir = _suite.captures_dir  # the suite's captures (its fixture)
_twice_capture = _suite._twice_capture

AGAIN = '{"contents":[{"role":"user","parts":[{"text":"again?"}]}]}'
UNAVAILABLE = {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}


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


def _said(url: str, key: str) -> str:
    answer = httpx.post(
        url + "/v1beta/models/gemini-2.5-flash:generateContent",
        content=AGAIN,
        headers={"x-goog-api-key": key, "content-type": "application/json"},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text[:300]
    return str(answer.json()["candidates"][0]["content"]["parts"][0]["text"])


@pytest.mark.slow
def test_a_conversation_whose_turns_alternate_between_processes_plays_in_order(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
    tmp_path: Path,
) -> None:
    _twice_capture().write(tmp_path)
    extra = ("--engine", "replay", "--captures", str(tmp_path))
    a, b = serve(redis_url, extra=extra), serve(redis_url, extra=extra)
    assert [_said(a.url, "k1"), _said(b.url, "k1")] == ["1", "2"]  # B goes on where A left off
    assert _said(b.url, "k2") == "1"  # another caller starts from the beginning
    assert _said(a.url, "k1") == "1"  # every exchange served: the first again, as in one process
    reset = httpx.post(b.url + "/__emulator/reset", headers={"x-goog-api-key": "k2"}, timeout=10)
    assert reset.status_code == 200
    assert [_said(a.url, "k2"), _said(b.url, "k2")] == ["1", "2"]  # forgotten through B, from its start on A


def test_redis_unreachable_is_the_503_envelope_for_a_replayed_request(tmp_path: Path) -> None:
    _twice_capture().write(tmp_path / "captures")
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, engine="replay", captures=str(tmp_path / "captures"), store=server.url))
    try:
        assert _said(running.url, "k") == "1"
        server.stop()
        answer = httpx.post(
            running.url + "/v1beta/models/gemini-2.5-flash:generateContent",
            content=AGAIN,
            headers={"x-goog-api-key": "k", "content-type": "application/json"},
            timeout=10,
        )
        assert answer.status_code == 503 and answer.json() == UNAVAILABLE
    finally:
        running.stop()
        server.stop()
