"""A real redis-server for the shared-state tests (tests/redis_env.py starts it): one for the session, flushed for
each test (`redis_url`); the restart tests start their own. Without redis-server these tests skip, saying so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from redis_env import RedisServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's redis-server, emptied for this test."""
    redis_server.client().flushall()
    return redis_server.url
