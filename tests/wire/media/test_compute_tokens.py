"""Vertex computeTokens with google-genai: production's shape (the js-genai recording
Client_Tests_computeTokens_Vertex_AI_*), as many tokens as countTokens counts, and the Developer API's refusal."""

from __future__ import annotations

import base64

import google.oauth2.credentials
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.wire.media.compute_tokens import VOCABULARY

MODEL = "gemini-2.5-flash"


@pytest.fixture
def vertex(base_url: str) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token="static-test-token"),
        http_options=types.HttpOptions(base_url=base_url),
    )


def test_the_recorded_sentence_gets_the_recorded_tokens(vertex: genai.Client) -> None:
    response = vertex.models.compute_tokens(model=MODEL, contents="The quick brown fox jumps over the lazy dog.")
    (info,) = response.tokens_info
    assert info.role == "user"
    # production's tokens for this sentence (the recording), base64 as sent and bytes as the SDK decodes them
    assert info.tokens == [t.encode() for t in ("The", " quick", " brown", " fox", " jumps", " over", " the")] + [
        b" lazy",
        b" dog",
        b".",
    ]
    assert len(info.token_ids) == 10 and all(0 <= i < VOCABULARY for i in info.token_ids)


def test_wire_shape_ids_are_strings(base_url: str) -> None:
    import httpx

    body = {"contents": [{"role": "user", "parts": [{"text": "why is the sky blue?"}]}]}
    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}:computeTokens"
    resp = httpx.post(base_url + path, json=body, headers={"authorization": "Bearer t"})
    info = resp.json()["tokensInfo"][0]
    assert list(info) == ["role", "tokenIds", "tokens"] and all(isinstance(i, str) for i in info["tokenIds"])
    assert [base64.b64decode(t).decode() for t in info["tokens"]] == ["why", " is", " the", " sky", " blue", "?"]


def test_as_many_tokens_as_count_tokens_per_content(vertex: genai.Client) -> None:
    contents = [
        types.Content(role="user", parts=[types.Part(text="What is the capital of France? One word, please.")]),
        types.Content(role="model", parts=[types.Part(text="Paris.")]),
        types.Content(role="user", parts=[types.Part(text="And Italy's, with unusual-hyphenated words too?")]),
    ]
    computed = vertex.models.compute_tokens(model=MODEL, contents=contents)
    assert [i.role for i in computed.tokens_info] == ["user", "model", "user"]
    counted = vertex.models.count_tokens(model=MODEL, contents=contents)
    assert sum(len(i.token_ids) for i in computed.tokens_info) == counted.total_tokens
    assert all(len(i.token_ids) == len(i.tokens) for i in computed.tokens_info)


def test_bad_requests(vertex: genai.Client, base_url: str) -> None:
    import httpx

    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}:computeTokens"
    unknown = httpx.post(base_url + path, json={"contents": [], "bogus": 1}, headers={"authorization": "Bearer t"})
    assert unknown.status_code == 400 and 'Unknown name "bogus"' in unknown.json()["error"]["message"]
    empty = httpx.post(base_url + path, json={"contents": []}, headers={"authorization": "Bearer t"})
    assert empty.status_code == 400
    with pytest.raises(errors.ClientError) as caught:
        vertex.models.compute_tokens(model="gemini-9-ultra", contents="x")
    assert caught.value.code == 404


def test_developer_api_has_no_compute_tokens(base_url: str) -> None:
    import httpx

    body = {"contents": [{"parts": [{"text": "x"}]}]}
    resp = httpx.post(f"{base_url}/v1beta/models/{MODEL}:computeTokens", json=body, headers={"x-goog-api-key": "k"})
    assert resp.status_code == 404 and "not supported for computeTokens" in resp.json()["error"]["message"]
