"""Upstream failures -> Google errors, and the upstream key never reaching a response, the journal or a log."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest
from google.genai import errors as sdk_errors

from gemini_emulator.config import Settings
from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.engine import OpenAIEngine
from gemini_emulator.protocol import errors
from gemini_emulator.testing.server import start

from openai_fakes import CHAT_URL, GENERATE, KEY, SECRET, STREAM, delta, sse, sse_response, user

HELLO = {"contents": [user("Hi")]}
UPSTREAM_LABEL = "http://upstream.test/v1"


def openai_error(message: str, kind: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


@pytest.mark.parametrize(
    ("status", "code", "google_status", "message"),
    [
        (401, 400, "INVALID_ARGUMENT", errors.API_KEY_INVALID),
        (403, 403, "PERMISSION_DENIED", errors.NO_PERMISSION),
        (
            404,
            404,
            "NOT_FOUND",
            "models/gemini-2.5-flash is not found for API version v1beta, or is not supported for generateContent. "
            "Call ModelService.ListModels to see the list of available models and their supported methods.",
        ),
        (400, 400, "INVALID_ARGUMENT", errors.INVALID_ARGUMENT),
        (422, 400, "INVALID_ARGUMENT", errors.INVALID_ARGUMENT),
    ],
)
def test_client_errors_map_to_the_catalogue_with_the_upstream_words(
    wire, upstream, status, code, google_status, message
) -> None:
    said = "model 'small-model' not found" if status == 404 else "bad things"
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(status, json=openai_error(said)))
    response = wire.post(GENERATE, json=HELLO, headers=KEY)
    assert response.status_code == code
    error = response.json()["error"]
    assert (error["code"], error["status"], error["message"]) == (code, google_status, message)
    assert error["details"][-1] == {
        "@type": "type.googleapis.com/google.rpc.DebugInfo",
        "detail": f"upstream {UPSTREAM_LABEL} answered HTTP {status}: {said}",
    }


def test_an_error_body_sent_with_http_200_is_still_an_error(wire, upstream) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json={"error": {"message": "busy", "code": 429}}))
    response = wire.post(GENERATE, json=HELLO, headers=KEY)
    assert response.status_code == 429 and response.json()["error"]["status"] == "RESOURCE_EXHAUSTED"


def test_vertex_callers_get_vertex_credential_error(upstream, server) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(401, json=openai_error("Invalid key")))
    path = "/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-flash:generateContent"
    response = httpx.post(server.url + path, json=HELLO, headers={"authorization": "Bearer t"})
    assert response.status_code == 401
    assert response.json()["error"]["status"] == "UNAUTHENTICATED"


@pytest.mark.parametrize(
    ("headers", "delay"),
    [({"retry-after": "7"}, "7s"), ({"retry-after-ms": "1500"}, "1.5s"), ({}, "20s")],
)
def test_429_is_resource_exhausted_with_retry_info_from_retry_after(wire, upstream, headers, delay) -> None:
    upstream.post(CHAT_URL).mock(
        return_value=httpx.Response(429, json=openai_error("Slow down", "rate_limit_error"), headers=headers)
    )
    response = wire.post(GENERATE, json=HELLO, headers=KEY)
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    retry = [d for d in error["details"] if d["@type"].endswith("RetryInfo")]
    assert retry == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}]
    assert response.headers["retry-after"] == str(max(1, round(float(delay[:-1]))))


def test_429_before_a_stream_is_an_http_error_the_sdk_raises(sdk, upstream) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(429, json=openai_error("Slow down")))
    with pytest.raises(sdk_errors.ClientError) as caught:
        list(sdk.models.generate_content_stream(model="gemini-2.5-flash", contents="Hi"))
    assert caught.value.code == 429


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_503_naming_the_upstream(wire, upstream, status) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(status, text="<html>Bad Gateway</html>"))
    response = wire.post(GENERATE, json=HELLO, headers=KEY)
    assert response.status_code == 503
    assert response.json()["error"] == {
        "code": 503,
        "message": f"The upstream model server {UPSTREAM_LABEL} is unavailable: it answered HTTP {status}: "
        "<html>Bad Gateway</html>",
        "status": "UNAVAILABLE",
    }


def test_timeouts_are_503_naming_the_setting(wire, upstream) -> None:
    upstream.post(CHAT_URL).mock(side_effect=httpx.ReadTimeout("timed out"))
    response = wire.post(STREAM, json=HELLO, headers=KEY)
    assert response.status_code == 503
    assert response.json()["error"]["message"] == (
        f"The upstream model server {UPSTREAM_LABEL} is unavailable: no answer within 120 s "
        "(GEMINI_EMULATOR_OPENAI_TIMEOUT)"
    )


def test_a_refused_connection_is_503_and_the_sdk_sees_a_server_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        engine = OpenAIEngine(OpenAIConfig(base_url=f"http://user:pw@127.0.0.1:{port}/v1?x=1", api_key=SECRET))
        running = start(Settings(port=0), engine=engine)
        try:
            response = httpx.post(running.url + GENERATE, json=HELLO, headers=KEY)
        finally:
            running.stop()
    assert response.status_code == 503
    message = response.json()["error"]["message"]
    assert message.startswith(f"The upstream model server http://127.0.0.1:{port}/v1 is unavailable: cannot connect (")
    assert "pw" not in message


def test_the_upstream_key_never_reaches_responses_journal_or_logs(wire, upstream, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    leaky = openai_error(f"Incorrect API key provided: {SECRET}.", code="invalid_api_key")
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(401, json=leaky))
    for path in (GENERATE, STREAM):
        response = wire.post(path, json=HELLO, headers=KEY)
        assert SECRET not in response.text
        assert "Incorrect API key provided: [redacted]." in response.text
    revoked = {"error": {"message": f"key {SECRET} revoked", "code": 401}}
    upstream.post(CHAT_URL).mock(return_value=sse_response(sse(delta(content="x"), revoked, done=False)))
    assert SECRET not in wire.post(STREAM, json=HELLO, headers=KEY).text
    journal = wire.get("/__emulator/journal", headers=KEY)
    assert journal.status_code == 200 and SECRET not in journal.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(OpenAIConfig(base_url=UPSTREAM_LABEL, api_key=SECRET))


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, content=f"<html>proxy page for key {SECRET}</html>".encode()),  # a body not JSON
        httpx.Response(200, content=("x" * 180 + SECRET).encode()),  # the key cut by the 200-character excerpt
        sse_response(f"data: not-json {SECRET}\n\n".encode()),  # a stream event not JSON
        sse_response(sse(delta(content="x"), "y" * 190 + SECRET)),  # cut mid-key, after a first chunk
    ],
)
def test_an_untranslatable_answer_quoting_the_key_does_not_leak_it(wire, upstream, reply) -> None:
    upstream.post(CHAT_URL).mock(return_value=reply)
    for path in (GENERATE, STREAM):
        response = wire.post(path, json=HELLO, headers=KEY)
        assert "cannot translate" in response.text and SECRET[:6] not in response.text  # nor the start of it
    journal = wire.get("/__emulator/journal", headers=KEY)
    assert journal.status_code == 200 and SECRET[:8] not in journal.text
