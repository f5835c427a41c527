"""Red team (issue 14, "the same review repeated on the surfaces the other open issues add"): the OpenAI-compatible
endpoint and the resource rooms (cached contents, operations) take malformed input of every shape with a 4xx in
their own error envelope: no 5xx, no traceback in the server log, no hang (each call has a client timeout), and
one caller's resources are invisible to another.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redteam import server

from gemini_emulator.testing.server import RunningEmulator

CHAT = "/v1beta/openai/chat/completions"
EMBEDDINGS = "/v1beta/openai/embeddings"
CACHES = "/v1beta/cachedContents"
# Values of every JSON type and the edges of each: what a fuzzer, a buggy client or a hostile page sends.
ODD: list[Any] = [None, True, -1, 0, 1.5, 10**30, "x", "9" * 5000, [], {}, [[]], [{}], {"a": 1}]
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def running() -> Iterator[RunningEmulator]:
    with server() as emulator:
        yield emulator


@pytest.fixture
def http(running: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=running.url, timeout=20) as client:
        yield client


def _failures(http: httpx.Client, calls: list[tuple[str, str, Any]], key: str = "red") -> list[str]:
    """The calls answered with a 5xx (or not answered at all), described."""
    found = []
    headers = {"content-type": "application/json", "x-goog-api-key": key, "authorization": f"Bearer {key}"}
    for method, path, payload in calls:
        content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        response = http.request(method, path, content=content, headers=headers)
        if response.status_code >= 500:
            found.append(f"{method} {path[:80]} {content[:120]!r}: {response.status_code} {response.text[:200]}")
    return found


def _chat_calls() -> list[tuple[str, str, Any]]:
    fields = [
        "model", "messages", "n", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stream",
        "stream_options", "tools", "tool_choice", "response_format", "stop", "seed", "logprobs", "top_logprobs",
        "reasoning_effort", "extra_body", "user", "presence_penalty", "modalities", "audio", "parallel_tool_calls",
    ]  # fmt: skip
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, name: value}) for name in fields]
        messages = [
            {"role": value, "content": "x"},
            {"role": "user", "content": value},
            {"role": "tool", "content": "x", "tool_call_id": value},
            {"role": "assistant", "tool_calls": value},
            {"role": "user", "content": [{"type": "image_url", "image_url": value}]},
            {"role": "user", "content": [{"type": value}]},
            {"role": "user", "content": [{"type": "input_audio", "input_audio": value}]},
        ]
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": [m]}) for m in messages]
        tools = [
            {"type": "function", "function": value},
            {"type": "function", "function": {"name": "f", "parameters": value}},
        ]
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "tools": [t]}) for t in tools]
        schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": value}}
        calls.append(("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "response_format": schema}))
        for name in ("input", "model", "dimensions", "encoding_format", "user"):
            calls.append(("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": "hi", name: value}))
    return calls


def test_the_openai_compatible_endpoint_refuses_every_odd_field_with_a_4xx(http: httpx.Client) -> None:
    fine = http.post(
        CHAT, json={"model": "gemini-2.5-flash", "messages": USER}, headers={"authorization": "Bearer red"}
    )
    assert fine.status_code == 200  # the sweep below reaches the handler, not an auth refusal
    assert _failures(http, _chat_calls()) == []


def test_the_openai_compatible_endpoint_survives_big_and_broken_bodies(http: httpx.Client, caplog) -> None:
    caplog.set_level(logging.ERROR)
    huge_schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "array", "minItems": 10**9}}}
    calls: list[tuple[str, str, Any]] = [
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "response_format": huge_schema}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "n": 10**6}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER * 50_000}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "max_tokens": 10**6, "stream": True}),
        ("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": ["hi"] * 50_000}),
        ("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": "hi", "dimensions": 10**12}),
    ]
    calls += [
        ("POST", path, raw)
        for raw in (b"", b"[", b"null", b'"x"', b"\xff\xfe", b"{" * 100_000)
        for path in (CHAT, EMBEDDINGS)
    ]
    calls += [
        (method, path, b"")
        for path in (
            "/v1beta/openai/models/" + "x" * 5000,
            "/v1beta/openai/models/%00",
            "/v1beta/openai/chat/completions/x",
        )
        for method in ("GET", "POST", "DELETE", "PUT")
    ]
    assert _failures(http, calls) == []
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the server log"


def test_cached_contents_refuse_odd_bodies_names_and_pages_with_a_4xx(http: httpx.Client) -> None:
    contents = [{"role": "user", "parts": [{"text": "word " * 5000}]}]
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        for name in (
            "model",
            "contents",
            "ttl",
            "expireTime",
            "displayName",
            "systemInstruction",
            "tools",
            "toolConfig",
        ):
            calls.append(("POST", CACHES, {"model": "models/gemini-2.5-flash", "contents": contents, name: value}))
        calls.append(("PATCH", f"{CACHES}/abc?updateMask=ttl", {"ttl": value}))
        calls.append(
            ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", {"contents": contents, "cachedContent": value})
        )
    for name in ("x" * 5000, "%00", "..%2F..", "a/b/c", ""):
        calls += [(m, f"{CACHES}/{name}", b"") for m in ("GET", "DELETE", "PATCH")]
        calls += [("GET", f"/v1beta/operations/{name}", b""), ("POST", f"/v1beta/operations/{name}:cancel", b"")]
    for page in ("pageSize=" + "9" * 5000, "pageSize=-1", "pageToken=%00", "pageToken=" + "x" * 5000):
        calls += [("GET", f"{CACHES}?{page}", b""), ("GET", f"/v1beta/operations?{page}", b"")]
    assert _failures(http, calls) == []


def test_another_key_cannot_see_or_touch_a_cache(http: httpx.Client) -> None:
    contents = [{"role": "user", "parts": [{"text": "word " * 5000}]}]
    made = http.post(
        CACHES, headers={"x-goog-api-key": "owner"}, json={"model": "models/gemini-2.5-flash", "contents": contents}
    )
    assert made.status_code == 200, made.text
    name = made.json()["name"]
    for method in ("GET", "DELETE"):
        assert http.request(method, f"/v1beta/{name}", headers={"x-goog-api-key": "stranger"}).status_code in (403, 404)
    listed = http.get(CACHES, headers={"x-goog-api-key": "stranger"}).json()
    assert name not in json.dumps(listed)
    assert http.get(f"/v1beta/{name}", headers={"x-goog-api-key": "owner"}).status_code == 200
