"""Every error of the catalogue, over a real socket, as production words it (wire-facts §2, §9)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

GEN = "/v1beta/models/gemini-2.5-flash:generateContent"
STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
KEY = {"x-goog-api-key": "k"}
HELLO = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}


def error_of(response: httpx.Response) -> dict:
    body = response.json()
    assert list(body) == ["error"]
    assert list(body["error"])[:3] == ["code", "message", "status"]
    assert body["error"]["code"] == response.status_code
    return body["error"]


@pytest.fixture(scope="module")
def strict() -> Iterator[httpx.Client]:
    """An emulator that accepts one API key only and small bodies."""
    running = start(Settings(port=0, api_key="the-right-key", max_body_bytes=4096))
    with httpx.Client(base_url=running.url, timeout=10) as client:
        yield client
    running.stop()


def test_no_credential_is_403_permission_denied(http: httpx.Client) -> None:
    err = error_of(http.post(GEN, json=HELLO))
    assert err["status"] == "PERMISSION_DENIED" and "details" not in err
    assert err["message"].startswith("Method doesn't allow unregistered callers")


def test_key_in_query_parameter_is_accepted(http: httpx.Client) -> None:
    assert http.post(GEN, params={"key": "k"}, json=HELLO).status_code == 200


def test_wrong_key_when_one_is_configured(strict: httpx.Client) -> None:
    err = error_of(strict.post(GEN, headers={"x-goog-api-key": "wrong"}, json=HELLO))
    assert err["code"] == 400 and err["status"] == "INVALID_ARGUMENT"
    assert err["message"] == "API key not valid. Please pass a valid API key."
    assert [d["@type"].rsplit(".", 1)[1] for d in err["details"]] == ["ErrorInfo", "LocalizedMessage"]
    assert err["details"][0]["reason"] == "API_KEY_INVALID"
    assert strict.post(GEN, headers={"x-goog-api-key": "the-right-key"}, json=HELLO).status_code == 200


def test_vertex_without_oauth_is_401(http: httpx.Client) -> None:
    path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    response = http.post(path, headers=KEY, json=HELLO)  # an API key is not enough on Vertex
    err = error_of(response)
    assert err["status"] == "UNAUTHENTICATED"
    assert response.headers["www-authenticate"] == 'Bearer realm="https://accounts.google.com/"'
    assert err["details"][1]["reason"] == "CREDENTIALS_MISSING"
    assert err["details"][1]["metadata"]["method"].endswith("v1beta1.PredictionService.GenerateContent")
    ok = http.post(path, headers={"authorization": "Bearer t"}, json=HELLO)
    assert ok.status_code == 200


def test_unknown_model_names_version_and_method(http: httpx.Client) -> None:
    """{code, message, status} only, in the 2026 wording (pydantic-ai / Mirascope VCR recordings)."""
    err = error_of(http.post("/v1/models/nope:countTokens", headers=KEY, json=HELLO))
    assert err == {
        "code": 404,
        "message": "models/nope is not found for API version v1, or is not supported for countTokens. "
        "Call ModelService.ListModels to see the list of available models and their supported methods.",
        "status": "NOT_FOUND",
    }
    batch = {"requests": [{"model": "models/nope", "content": {"parts": [{"text": "hi"}]}}]}
    err = error_of(http.post("/v1beta/models/nope:batchEmbedContents", headers=KEY, json=batch))
    assert "or is not supported for embedContent." in err["message"] and "details" not in err
    err = error_of(http.post("/v1beta/models/nope:streamGenerateContent?alt=sse", headers=KEY, json=HELLO))
    assert "or is not supported for generateContent." in err["message"]


def test_embedding_model_does_not_generate(http: httpx.Client) -> None:
    err = error_of(http.post("/v1beta/models/gemini-embedding-001:generateContent", headers=KEY, json=HELLO))
    assert err["code"] == 404 and "not supported for generateContent" in err["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "* GenerateContentRequest.contents: contents is not specified\n"),
        ({"contents": []}, "* GenerateContentRequest.contents: contents is not specified\n"),
        (
            {"contents": [{"role": "user", "parts": []}]},
            "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n",
        ),
        ({"contents": [{"role": "system", "parts": [{"text": "x"}]}]}, "Please use a valid role: user, model."),
    ],
)
def test_request_rules(http: httpx.Client, body: dict, message: str) -> None:
    err = error_of(http.post(GEN, headers=KEY, json=body))
    assert err["code"] == 400 and err["status"] == "INVALID_ARGUMENT" and err["message"] == message


def test_unknown_fields_are_named_with_their_path(http: httpx.Client) -> None:
    body = {"contents": [{"parts": [{"text": "x", "colour": 1}]}], "temperatur": 1}
    err = error_of(http.post(GEN, headers=KEY, json=body))
    lines = err["message"].split("\n")
    assert lines == [
        "Invalid JSON payload received. Unknown name \"colour\" at 'contents[0].parts[0]': Cannot find field.",
        'Invalid JSON payload received. Unknown name "temperatur": Cannot find field.',
    ]
    violations = err["details"][0]["fieldViolations"]
    assert violations[0]["field"] == "contents[0].parts[0]" and "field" not in violations[1]


def test_wrong_types_are_invalid_values(http: httpx.Client) -> None:
    body = {**HELLO, "generationConfig": {"temperature": "hot", "candidateCount": True}}
    err = error_of(http.post(GEN, headers=KEY, json=body))
    assert err["message"].split("\n") == [
        "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"",
        "Invalid value at 'generation_config.candidate_count' (TYPE_INT32), true",
    ]


def test_every_field_current_sdks_send_is_accepted(http: httpx.Client) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "x"}]}],
        "generationConfig": {
            "responseMimeType": "application/json",
            "thinkingConfig": {"thinking_budget": 0},
            "responseSchema": {
                "type": "object",
                "nullable": False,
                "title": "T",
                "properties": {"a": {"type": "STRING"}},
                "property_ordering": ["a"],
            },
        },
        "safetySettings": [{"category": 10, "threshold": 3}],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "model": "models/gemini-2.5-flash",
    }
    assert http.post(GEN, headers=KEY, json=body).status_code == 200


@pytest.mark.parametrize(
    ("raw", "start"),
    [
        (b"{bad json", "Invalid JSON payload received. Unexpected token."),
        (b"[1, 2]", "Invalid JSON payload received. Root element must be a message."),
        (b"\xff\xfe{", "Invalid JSON payload received. Unexpected token."),
    ],
)
def test_malformed_bodies(http: httpx.Client, raw: bytes, start: str) -> None:
    err = error_of(http.post(GEN, headers=KEY, content=raw))
    assert err["code"] == 400 and err["message"].startswith(start)


def test_deeply_nested_json_is_a_400_not_a_crash(http: httpx.Client) -> None:
    schema: dict = {"type": "STRING"}
    for _ in range(200):
        schema = {"type": "ARRAY", "items": schema}
    body = {**HELLO, "generationConfig": {"responseSchema": schema}}
    assert http.post(GEN, headers=KEY, json=body).status_code == 400


def test_oversized_body_is_refused(strict: httpx.Client) -> None:
    body = {"contents": [{"parts": [{"text": "x" * 10_000}]}]}
    err = error_of(strict.post(GEN, headers={"x-goog-api-key": "the-right-key"}, json=body))
    assert err["code"] == 400 and err["message"] == "Request payload size exceeds the limit: 4096 bytes."


def test_oversized_chunked_body_is_refused(strict: httpx.Client) -> None:
    def body() -> Iterator[bytes]:
        yield b'{"contents": [{"parts": [{"text": "'
        for _ in range(100):
            yield b"x" * 100
        yield b'"}]}]}'

    response = strict.post(GEN, headers={"x-goog-api-key": "the-right-key"}, content=body())
    assert response.status_code == 400 and "exceeds the limit" in response.json()["error"]["message"]


def test_unknown_paths_get_googles_html_404(http: httpx.Client) -> None:
    for method, path in [
        ("GET", "/"),
        ("POST", "/v1beta/models/gemini-2.5-flash:explode"),
        ("GET", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("POST", "/v3/models/x"),
    ]:
        response = http.request(method, path, headers=KEY)
        assert response.status_code == 404
        assert response.headers["content-type"] == "text/html; charset=UTF-8"
        assert "<title>Error 404 (Not Found)!!1</title>" in response.text
        assert f"<code>{path}</code>" in response.text


def test_stream_errors_before_first_chunk(http: httpx.Client) -> None:
    sse = http.post("/v1beta/models/nope:streamGenerateContent", params={"alt": "sse"}, headers=KEY, json=HELLO)
    assert sse.status_code == 404 and sse.text.startswith('{\n  "error": {')
    array = http.post("/v1beta/models/nope:streamGenerateContent", headers=KEY, json=HELLO)
    assert array.status_code == 404
    assert array.text.startswith('[{\n  "error": {') and array.text.endswith("\n]")
    assert array.json()[0]["error"]["status"] == "NOT_FOUND"


def test_integer_enums_for_gapic_clients(http: httpx.Client) -> None:
    response = http.post(GEN, params={"$alt": "json;enum-encoding=int"}, headers=KEY, json=HELLO)
    body = response.json()
    assert body["candidates"][0]["finishReason"] == 1
    assert body["usageMetadata"]["promptTokensDetails"][0]["modality"] == 1
    plain = http.post(GEN, headers=KEY, json=HELLO).json()
    assert plain["candidates"][0]["finishReason"] == "STOP"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("maxOutputTokens", "²"),
        ("maxOutputTokens", "١٢"),
        ("candidateCount", "--1"),
        ("temperature", "inf"),
        ("temperature", "1_0"),
        ("topP", "٣"),
    ],
)
def test_numbers_as_strings_take_ascii_digits_only(http: httpx.Client, field: str, value: str) -> None:
    """proto3 JSON takes numbers written as strings ("128"), spelled as JSON spells numbers: Python's isdigit()
    and float() would also take superscripts, other scripts' digits, "inf" and "1_0" (found by schemathesis)."""
    body = {**HELLO, "generationConfig": {field: value}}
    assert error_of(http.post(GEN, headers=KEY, json=body))["status"] == "INVALID_ARGUMENT"
    good = {**HELLO, "generationConfig": {field: "0.5" if field in ("temperature", "topP") else "1"}}
    assert http.post(GEN, headers=KEY, json=good).status_code == 200
