"""The request journal on a real server: what each record holds, redaction of keys and tokens (journal and
server log), the admin filters, the cap, isolation between concurrent callers, and per-namespace reset."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator, start
from gemini_emulator.wire.auth import key_namespace


@pytest.fixture
def gemini(gemini_fresh: Gemini) -> Gemini:
    """These tests read or write beyond their own namespace (other keys, the shared script, every namespace):
    each gets an emulator of its own."""
    return gemini_fresh


MODEL = "gemini-2.5-flash"
JOURNAL = "/__emulator/journal"
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "gemini_emulator")


def namespace(credential: str) -> str:
    return key_namespace(credential)  # the in-process server's salt is this process's


def body(prompt: str) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}


def journal(url: str, headers: dict[str, str] | None = None, **params: Any) -> dict[str, Any]:
    response = httpx.get(url + JOURNAL, headers=headers or {}, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def records(url: str, key: str | None = None, **params: Any) -> list[dict[str, Any]]:
    return journal(url, {"x-goog-api-key": key} if key else None, **params)["records"]


def sdk(url: str, key: str) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url))


@pytest.fixture
def server_log(gemini: Gemini, caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """All the server logs at DEBUG (and uvicorn's TRACE below it) during the test; caplog's handler sits on
    the non-propagating "uvicorn" logger too, attached after the server's own logging set-up."""
    parent = logging.getLogger("uvicorn")
    levels = {name: logging.getLogger(name).level for name in SERVER_LOGGERS}
    for name in SERVER_LOGGERS:
        logging.getLogger(name).setLevel(5)
    parent.addHandler(caplog.handler)
    try:
        yield caplog
    finally:
        parent.removeHandler(caplog.handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


# --- what a record holds ------------------------------------------------------------------------------------


def test_unary_record_holds_the_request_and_the_response_as_sent(gemini: Gemini) -> None:
    gemini.script({"name": "greeting", "text": "Hello from the script."})
    response = httpx.post(
        f"{gemini.url}/v1beta/models/{MODEL}:generateContent",
        params={"alt": "json"},
        json={**body("Say hi"), "generationConfig": {"temperature": 0.5}},
        headers={"x-goog-api-key": gemini.api_key, "x-test-header": "visible"},
    )
    assert response.status_code == 200

    (record,) = records(gemini.url, gemini.api_key)
    assert record["namespace"] == namespace(gemini.api_key)
    assert (record["method"], record["path"]) == ("POST", f"/v1beta/models/{MODEL}:generateContent")
    assert record["query"] == {"alt": "json"}
    assert record["headers"]["x-goog-api-key"] == "REDACTED"
    assert record["headers"]["x-test-header"] == "visible"
    assert record["headers"]["content-type"] == "application/json"
    assert record["body"] == {**body("Say hi"), "generationConfig": {"temperature": 0.5}}  # parsed, not text
    assert (record["rpc"], record["model"], record["entry"]) == ("generateContent", MODEL, "greeting")
    assert record["status"] == 200
    assert record["response"] == response.text
    assert json.loads(record["response"])["candidates"][0]["content"]["parts"] == [{"text": "Hello from the script."}]
    assert record["complete"] is True
    assert record["durationMs"] >= 0 and record["time"].endswith("+00:00")


def test_sdk_calls_are_journaled_in_order(gemini: Gemini) -> None:
    gemini.script({"name": "first", "text": "One."})
    gemini.client.models.generate_content(model=MODEL, contents="first question")
    list(gemini.client.models.generate_content_stream(model=MODEL, contents="second question"))
    gemini.client.models.count_tokens(model=MODEL, contents="third question")

    calls = gemini.journal()
    assert [c.rpc for c in calls] == ["generateContent", "streamGenerateContent", "countTokens"]
    assert calls.user_texts == ["first question", "second question", "third question"]
    assert calls.entries == ["first", "zero-config", None]  # countTokens asks no engine
    assert calls.statuses == [200, 200, 200]
    assert [c.record["id"] for c in calls] == sorted(c.record["id"] for c in calls)
    assert calls[1].record["query"] == {"alt": "sse"}


def test_stream_record_holds_the_whole_sse_text(gemini: Gemini) -> None:
    gemini.script({"name": "streamed", "chunks": ["alpha ", "beta ", "gamma"]})
    with httpx.stream(
        "POST",
        f"{gemini.url}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
        json=body("Stream, please"),
        headers={"x-goog-api-key": gemini.api_key},
    ) as response:
        sent = response.read()
    (record,) = records(gemini.url, gemini.api_key)
    assert (record["rpc"], record["entry"], record["status"]) == ("streamGenerateContent", "streamed", 200)
    assert record["response"].encode() == sent
    assert record["response"].count("data: ") == 3 and record["response"].endswith("\r\n\r\n")
    assert record["complete"] is True


def test_error_tail_and_http_errors_are_journaled(gemini: Gemini) -> None:
    gemini.script(
        {"name": "midstream", "chunks": ["a", "b"], "errorAfterChunks": 1, "error": "unavailable"},
        {"name": "quota", "error": "quota"},
    )
    with pytest.raises(genai.errors.ServerError):
        list(gemini.client.models.generate_content_stream(model=MODEL, contents="x"))
    with pytest.raises(genai.errors.ClientError):
        gemini.client.models.generate_content(model=MODEL, contents="y")
    with pytest.raises(genai.errors.ClientError):
        gemini.client.models.generate_content(model="gemini-9-ultra", contents="z")

    calls = gemini.journal()
    assert calls.statuses == [200, 429, 404]
    assert calls.entries == ["midstream", "quota", None]  # an unknown model never reaches the engine
    assert calls[0].record["response"].endswith('"status": "UNAVAILABLE"\n  }\n}\n')
    assert calls[0].record["complete"] is True
    assert json.loads(calls[1].record["response"])["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert calls[2].record["model"] == "gemini-9-ultra"


@pytest.mark.parametrize(
    ("method", "query", "fault"),
    [
        ("streamGenerateContent", "?alt=sse", {"dropAfterChunks": 1}),
        ("streamGenerateContent", "", {"dropAfterBytes": 40}),
        ("generateContent", "", {"dropAfterChunks": 0}),
        ("generateContent", "", {"dropAfterBytes": 40}),
    ],
)
def test_dropped_responses_are_journaled_incomplete(
    gemini: Gemini, method: str, query: str, fault: dict[str, int]
) -> None:
    gemini.script({"name": "dropped", "chunks": ["alpha ", "beta ", "gamma"]} | fault)
    received = bytearray()
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream(
            "POST",
            f"{gemini.url}/v1beta/models/{MODEL}:{method}{query}",
            json=body("Break, please"),
            headers={"x-goog-api-key": gemini.api_key},
        ) as response:
            for piece in response.iter_raw():
                received += piece
    (record,) = records(gemini.url, gemini.api_key)
    assert (record["entry"], record["status"], record["complete"]) == ("dropped", 200, False)
    assert record["response"].encode() == bytes(received)  # exactly what went out before the drop
    if "dropAfterBytes" in fault:
        assert len(received) == 40


def test_a_cut_final_event_still_ends_the_body_cleanly(gemini: Gemini) -> None:
    gemini.script({"chunks": ["a", "b"], "truncateFinalEvent": True})
    sent = httpx.post(
        f"{gemini.url}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
        json=body("Cut, please"),
        headers={"x-goog-api-key": gemini.api_key},
    ).content
    (record,) = records(gemini.url, gemini.api_key)
    assert record["response"].encode() == sent and not sent.endswith(b"\r\n\r\n")
    assert record["complete"] is True


# --- redaction ----------------------------------------------------------------------------------------------


def test_keys_and_tokens_never_reach_the_journal_or_the_log(
    gemini: Gemini, server_log: pytest.LogCaptureFixture
) -> None:
    header_key = gemini.api_key  # the fixture's SDK client sends it as x-goog-api-key
    query_key = "query-" + uuid.uuid4().hex
    both_header, both_query = "both-header-" + uuid.uuid4().hex, "both-query-" + uuid.uuid4().hex
    token = "ya29.token-" + uuid.uuid4().hex
    express_key = "express-" + uuid.uuid4().hex
    app_check, cookie = "appcheck-" + uuid.uuid4().hex, "session-" + uuid.uuid4().hex
    secrets = [header_key, query_key, both_header, both_query, token, express_key, app_check, cookie]

    gemini.client.models.generate_content(model=MODEL, contents="header key")
    list(gemini.client.models.generate_content_stream(model=MODEL, contents="header key, streamed"))
    url = f"{gemini.url}/v1beta/models/{MODEL}:generateContent"
    assert httpx.post(url, params={"key": query_key}, json=body("query key")).status_code == 200
    secret_headers = {"x-goog-api-key": both_header, "x-firebase-appcheck": app_check, "cookie": f"sid={cookie}"}
    both = httpx.post(url, params={"key": both_query}, headers=secret_headers, json=body("both"))
    assert both.status_code == 200
    vertex = genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=gemini.url),
    )
    vertex.models.generate_content(model=MODEL, contents="bearer token")
    express = genai.Client(vertexai=True, api_key=express_key, http_options=types.HttpOptions(base_url=gemini.url))
    express.models.generate_content(model=MODEL, contents="express key")

    everything = httpx.get(gemini.url + JOURNAL)  # no credential: every namespace
    listed = everything.json()["records"]
    assert len(listed) == 6
    views = [everything.text] + [
        httpx.get(gemini.url + JOURNAL, headers={"x-goog-api-key": s}).text for s in (header_key, both_header)
    ]
    views.append(httpx.get(gemini.url + JOURNAL, headers={"authorization": f"Bearer {token}"}).text)
    for view in views:
        for secret in secrets:
            assert secret not in view
    assert [r["namespace"] for r in listed] == [
        namespace(header_key),
        namespace(header_key),
        namespace(query_key),
        namespace(both_header),  # the header wins over ?key=
        namespace(token),
        namespace(express_key),
    ]
    assert listed[2]["query"] == {"key": "REDACTED"} and listed[3]["query"] == {"key": "REDACTED"}
    assert {listed[3]["headers"][h] for h in ("x-goog-api-key", "x-firebase-appcheck", "cookie")} == {"REDACTED"}
    assert listed[4]["headers"]["authorization"] == "Bearer REDACTED"  # the scheme, never the token
    assert listed[4]["path"].startswith("/v1beta1/projects/demo-project/locations/us-central1/publishers/google/")
    assert listed[5]["headers"]["x-goog-api-key"] == "REDACTED"
    assert len(journal(gemini.url, {"authorization": f"Bearer {token}"})["records"]) == 1

    logged = server_log.text + "".join(repr(vars(r)) for r in server_log.records)
    for secret in secrets:
        assert secret not in logged


# --- filters ------------------------------------------------------------------------------------------------


def test_filters_namespace_model_rpc_since(gemini: Gemini) -> None:
    mine, other = gemini.api_key, "other-" + uuid.uuid4().hex
    client, theirs = gemini.client, sdk(gemini.url, other)
    client.models.generate_content(model=MODEL, contents="one")
    list(client.models.generate_content_stream(model=MODEL, contents="two"))
    client.models.count_tokens(model=MODEL, contents="three")
    client.models.generate_content(model="gemini-2.5-pro", contents="four")
    theirs.models.generate_content(model=MODEL, contents="theirs")

    def texts(rs: list[dict[str, Any]]) -> list[str]:
        return [r["body"]["contents"][0]["parts"][0]["text"] for r in rs]

    by_header = journal(gemini.url, {"x-goog-api-key": mine})
    assert by_header["namespace"] == namespace(mine)
    assert texts(by_header["records"]) == ["one", "two", "three", "four"]
    assert texts(records(gemini.url, key=other)) == ["theirs"]
    assert texts(records(gemini.url, namespace=namespace(other))) == ["theirs"]
    assert texts(records(gemini.url)) == ["one", "two", "three", "four", "theirs"]  # no credential: all
    assert texts(journal(gemini.url, key=mine)["records"]) == ["one", "two", "three", "four"]  # ?key= as well

    assert texts(records(gemini.url, mine, model="gemini-2.5-pro")) == ["four"]
    assert texts(records(gemini.url, mine, model=f"models/{MODEL}")) == ["one", "two", "three"]
    assert texts(records(gemini.url, model=MODEL)) == ["one", "two", "three", "theirs"]
    assert texts(records(gemini.url, mine, rpc="streamGenerateContent")) == ["two"]
    assert texts(records(gemini.url, rpc="countTokens")) == ["three"]
    assert texts(records(gemini.url, mine, model=MODEL, rpc="generateContent")) == ["one"]

    ids = [r["id"] for r in records(gemini.url, mine)]
    assert texts(records(gemini.url, mine, since=ids[1])) == ["three", "four"]
    assert texts(records(gemini.url, since=ids[3])) == ["theirs"]
    assert records(gemini.url, since=10**9) == []
    assert httpx.get(gemini.url + JOURNAL, params={"since": "yesterday"}).status_code == 400


# --- cap ----------------------------------------------------------------------------------------------------


def test_cap_keeps_the_newest_records_and_counts_evictions() -> None:
    running = start(Settings(port=0, journal_cap=5))
    try:
        client = sdk(running.url, "cap-key")
        for i in range(8):
            client.models.generate_content(model=MODEL, contents=f"request {i}")
        seen = journal(running.url)
        assert seen["evicted"] == 3
        assert [r["body"]["contents"][0]["parts"][0]["text"] for r in seen["records"]] == [
            f"request {i}" for i in range(3, 8)
        ]
        assert [r["id"] for r in seen["records"]] == [4, 5, 6, 7, 8]
        assert journal(running.url, {"x-goog-api-key": "cap-key"})["evicted"] == 3
    finally:
        running.stop()


# --- isolation under concurrency ----------------------------------------------------------------------------


def test_concurrent_callers_see_only_their_own_script_and_journal(gemini_emulator: RunningEmulator) -> None:
    url = gemini_emulator.url
    threads, calls = 8, 5
    run = uuid.uuid4().hex[:8]
    keys = [f"iso-{run}-{i}" for i in range(threads)]
    start_together = threading.Barrier(threads)

    def caller(i: int) -> tuple[list[str], Any]:
        admin = AdminClient(url, api_key=keys[i])
        try:
            admin.script(*({"name": f"t{i}-{j}", "text": f"Thread {i}, answer {j}."} for j in range(calls)))
            client = sdk(url, keys[i])
            start_together.wait(timeout=10)
            texts = [
                client.models.generate_content(model=MODEL, contents=f"thread {i} call {j}").text for j in range(calls)
            ]
            return texts, admin.journal()
        finally:
            admin.reset()
            admin.close()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(caller, range(threads)))

    for i, (texts, seen) in enumerate(results):
        assert texts == [f"Thread {i}, answer {j}." for j in range(calls)]
        assert len(seen) == calls
        assert {c.record["namespace"] for c in seen} == {namespace(keys[i])}
        assert seen.user_texts == [f"thread {i} call {j}" for j in range(calls)]
        assert seen.entries == [f"t{i}-{j}" for j in range(calls)]
        assert seen.statuses == [200] * calls
    # each caller reset its own namespace when done: nothing of theirs is left
    assert not [r for r in records(url) if r["namespace"] in {namespace(k) for k in keys}]


# --- reset --------------------------------------------------------------------------------------------------


def test_reset_clears_one_namespace_only(gemini: Gemini) -> None:
    mine, other = gemini.api_key, "other-" + uuid.uuid4().hex
    me, them, shared = gemini.admin, AdminClient(gemini.url, api_key=other), AdminClient(gemini.url)
    try:
        me.script({"name": "mine-1", "text": "Mine 1."}, {"name": "mine-2", "text": "Mine 2."})
        them.script({"name": "theirs-1", "text": "Theirs 1."}, {"name": "theirs-2", "text": "Theirs 2."})
        shared.script({"name": "shared", "match": {"text": "never sent"}, "text": "Shared."})
        assert gemini.client.models.generate_content(model=MODEL, contents="a").text == "Mine 1."
        other_client = sdk(gemini.url, other)
        assert other_client.models.generate_content(model=MODEL, contents="b").text == "Theirs 1."

        reset = httpx.post(gemini.url + "/__emulator/reset", headers={"x-goog-api-key": mine})
        assert reset.status_code == 200 and reset.json() == {"reset": namespace(mine)}

        assert me.pending() == [] and me.journal() == []
        assert [e["name"] for e in them.pending()] == ["theirs-2"]
        assert them.journal().entries == ["theirs-1"]
        assert [e["name"] for e in shared.pending()] == ["shared"]

        assert gemini.client.models.generate_content(model=MODEL, contents="c").text != "Mine 2."
        assert me.journal().entries == ["zero-config"]
        assert other_client.models.generate_content(model=MODEL, contents="d").text == "Theirs 2."
        assert them.journal().entries == ["theirs-1", "theirs-2"]
    finally:
        them.close()
        shared.close()


def test_model_listing_and_unroutable_requests_are_journaled(gemini_emulator) -> None:
    namespace_key = {"x-goog-api-key": "journal-listing-key"}
    with httpx.Client(base_url=gemini_emulator.url, timeout=10) as http:
        assert http.get("/v1beta/models", headers=namespace_key).status_code == 200
        assert http.get("/v1beta/models/gemini-2.5-flash", headers=namespace_key).status_code == 200
        assert http.post("/v1beta/nowhere", headers=namespace_key).status_code == 404
        records = http.get("/__emulator/journal", headers=namespace_key).json()["records"]
    assert [(r["rpc"], r["model"], r["status"]) for r in records] == [
        ("list_models", "", 200),
        ("get_model", "gemini-2.5-flash", 200),
        ("", "", 404),
    ]
    assert "journal-listing-key" not in str(records)


def test_a_record_holds_its_answer_in_as_many_bytes_as_it_has() -> None:
    """orjson prints into a buffer of several KiB and hands it back as the bytes object: a record keeps an exact
    copy, so 10,000 journaled short answers cost their length, not the printer's buffers (tracemalloc sees them)."""
    import tracemalloc

    from gemini_emulator.admin.journal import Journal
    from gemini_emulator.protocol import printers

    body = {"candidates": [{"content": {"parts": [{"text": "x" * 700}], "role": "model"}}]}
    size = len(printers.pretty(body))
    journal = Journal(10_000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(500):
            journal.finish(journal.begin("POST", "/x", {}, [(b"host", b"x")]), 200, printers.pretty(body))
        per_record = (tracemalloc.get_traced_memory()[0] - before) / 500
    finally:
        tracemalloc.stop()
    assert per_record < size + 1024, per_record
