"""The red-team modules' shared server: one per module (a module with other settings defines its own)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from redteam import ADMIN, server

from gemini_emulator.testing.server import RunningEmulator


@pytest.fixture(scope="module")
def running() -> Iterator[RunningEmulator]:
    with server() as emulator:
        yield emulator


@pytest.fixture
def http(running: RunningEmulator) -> Iterator[httpx.Client]:
    """A client of the module's server, every namespace reset before the test."""
    with httpx.Client(base_url=running.url, timeout=10) as client:
        client.post(f"{ADMIN}/reset?all=true")
        yield client
