"""The tunings contract on the Redis store: every test of tests/wire/resources/test_tunings.py (google-genai 3.6.1
sync and async on Vertex and the Developer API: tune, get, list, cancel, the create's operation, a failed
schedule, bad creates, other keys, a generate call on the finished job's tuned model) run again on an emulator
whose tuning jobs, schedules and tuned models live on a real redis-server (tests/scaling/conftest.py), so both
stores pass one suite (stores/tunings_redis.py)."""

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

_SOURCE = Path(__file__).parents[1] / "wire" / "resources" / "test_tunings.py"
_spec = importlib.util.spec_from_file_location("tunings_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_")})


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: tuning jobs, their schedules, scripts and the journal on the session's redis-server."""
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


def test_the_jobs_are_on_redis(gemini_emulator: RunningEmulator, redis_server: RedisServer) -> None:
    """The suite above ran on the Redis store, not this process's own: a job's keys are in Redis, and the admin
    API lists it from there."""
    assert gemini_emulator.context.tuning_operation is not None  # set only with a RedisTunings store
    headers = {"x-goog-api-key": "tunings-contract-key"}
    created = httpx.post(
        f"{gemini_emulator.url}/v1beta/tunedModels", json={"baseModel": "gemini-2.5-flash"}, headers=headers
    )
    assert created.status_code == 200
    name = created.json()["metadata"]["tunedModel"]
    op = created.json()["name"]
    assert "done" not in httpx.get(f"{gemini_emulator.url}/v1beta/{op}", headers=headers).json()  # not finished yet
    assert any(b"k:tj:r:" in key for key in redis_server.client().keys("*"))
    admin = AdminClient(gemini_emulator.url, "tunings-contract-key", admin_token=gemini_emulator.settings.admin_token)
    try:
        listed = admin.resources("tuningJobs")["tuningJobs"]
        assert [(j["name"], j["surface"]) for j in listed] == [(name, "developer")]
        admin.reset()
        assert admin.resources("tuningJobs").get("tuningJobs", []) == []
        left = {k.split(b":")[-2] for k in redis_server.client().keys("*") if b"k:tj:" in k and k.count(b":") > 3}
        assert not left, left  # no record, side fields or index of the namespace left behind
    finally:
        admin.close()
