"""Helpers for the red-team suite: servers of its own, raw sockets, and bounds that are measured, not slept."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

MODEL = "gemini-2.5-flash"
GENERATE = f"/v1beta/models/{MODEL}:generateContent"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
ADMIN = "/__emulator"
JSON_TYPE = {"content-type": "application/json"}


def body(prompt: str, **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": prompt}]}], **extra}


@contextmanager
def server(**settings: Any) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, **settings))
    try:
        yield running
    finally:
        running.stop()


def within(deadline_s: float, check: Callable[[], Any], every_s: float = 0.02) -> Any:
    """Poll `check` until it returns something truthy, or fail once `deadline_s` has passed."""
    end = time.monotonic() + deadline_s
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > end:
            raise AssertionError(f"not true within {deadline_s} s: {check}")
        time.sleep(every_s)  # a polling interval, bounded by the deadline


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start_s = time.monotonic()
    result = call()
    return result, time.monotonic() - start_s


def raw_request(url: str, head: bytes) -> socket.socket:
    """A socket to the server at `url` that has sent `head` (and keeps the connection open)."""
    host, port = httpx.URL(url).host, httpx.URL(url).port
    sock = socket.create_connection((host, port), timeout=10)
    sock.sendall(head)
    return sock


def post_head(path: str, payload: bytes, key: str = "redteam") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: {key}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n"
    ).encode() + payload
