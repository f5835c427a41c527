"""google-genai (Python) in Vertex AI mode: a static OAuth token, and express mode with an API key."""

from __future__ import annotations

import datetime

import google.oauth2.credentials
import pytest
from google import genai
from google.genai import errors, types

MODEL = "gemini-2.5-flash"


@pytest.fixture
def vertex(base_url: str) -> genai.Client:
    credentials = google.oauth2.credentials.Credentials(token="static-test-token")
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=credentials,
        http_options=types.HttpOptions(base_url=base_url),
    )


def test_vertex_generate_has_vertex_shape(vertex: genai.Client) -> None:
    response = vertex.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text.startswith("Hello")
    assert isinstance(response.create_time, datetime.datetime)
    assert response.candidates[0].index is None  # Vertex omits the candidate index
    usage = response.usage_metadata
    assert usage.traffic_type == types.TrafficType.ON_DEMAND
    assert usage.thoughts_token_count > 0  # gemini-2.5-flash thinks by default
    total = usage.prompt_token_count + usage.candidates_token_count + usage.thoughts_token_count
    assert usage.total_token_count == total


def test_vertex_stream_usage_only_on_last_chunk(vertex: genai.Client) -> None:
    chunks = list(vertex.models.generate_content_stream(model=MODEL, contents="Write two paragraphs about tea"))
    assert len(chunks) > 1
    assert {c.create_time for c in chunks} == {chunks[0].create_time}
    assert all(c.usage_metadata.prompt_token_count is None for c in chunks[:-1])
    assert chunks[-1].usage_metadata.prompt_token_count > 0
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_vertex_count_tokens_matches_usage(vertex: genai.Client) -> None:
    counted = vertex.models.count_tokens(model=MODEL, contents="How many tokens is this sentence?")
    generated = vertex.models.generate_content(model=MODEL, contents="How many tokens is this sentence?")
    assert counted.total_tokens == generated.usage_metadata.prompt_token_count


def test_vertex_unknown_model_message(vertex: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as caught:
        vertex.models.generate_content(model="gemini-9-ultra", contents="x")
    assert caught.value.code == 404
    assert caught.value.message.startswith(
        "Publisher Model `projects/demo-project/locations/us-central1/publishers/google/models/gemini-9-ultra`"
    )


def test_vertex_express_mode_with_api_key(base_url: str) -> None:
    client = genai.Client(vertexai=True, api_key="k", http_options=types.HttpOptions(base_url=base_url))
    response = client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text.startswith("Hello") and response.create_time is not None
