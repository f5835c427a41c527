"""Zero-config embeddings (issue 4) in the four forms the SDKs send: Developer `:embedContent` and
`:batchEmbedContents`, Vertex `:embedContent` and `:predict`; deterministic unit vectors of the model's size
(or outputDimensionality), similar texts closer than unrelated ones, statistics that agree with countTokens."""

from __future__ import annotations

import math

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-embedding-001"
NATIVE = 3072
CAT = "The cat sat on the warm mat by the door"
CAT_AGAIN = "A cat sat on the mat near the door"
MARKETS = "Stock markets fell sharply after the central bank report"
VERTEX_PATH = f"/v1beta1/projects/demo/locations/us-central1/publishers/google/models/{MODEL}"


def _norm(vector: list[float]) -> float:
    return math.sqrt(sum(v * v for v in vector))


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (_norm(a) * _norm(b))


def _unit(vector: list[float]) -> bool:
    return math.isclose(_norm(vector), 1.0, abs_tol=1e-6)


@pytest.fixture
def vertex(gemini_shared: Gemini) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=gemini_shared.api_key),
        http_options=types.HttpOptions(base_url=gemini_shared.url),
    )


def _developer(gemini: Gemini, method: str, body: dict[str, object]) -> httpx.Response:
    return httpx.post(
        f"{gemini.url}/v1beta/models/{MODEL}:{method}",
        json=body,
        headers={"x-goog-api-key": gemini.api_key},
        timeout=60,  # a batch of 100 answers ~300,000 floats: over httpx's 5 s default on a machine at load 18
    )


def _predict(gemini: Gemini, body: dict[str, object]) -> httpx.Response:
    return httpx.post(
        f"{gemini.url}{VERTEX_PATH}:predict", json=body, headers={"authorization": f"Bearer {gemini.api_key}"}
    )


# --- Developer API --------------------------------------------------------------------------------------------


def test_developer_embed_content_shape_size_and_determinism(gemini_shared: Gemini) -> None:
    """AI SDK and LangChain send {model?, content}; the answer is {"embedding": {"values": [...]}} alone."""
    body = {"model": f"models/{MODEL}", "content": {"parts": [{"text": CAT}]}}
    first = _developer(gemini_shared, "embedContent", body)
    assert first.status_code == 200
    answer = first.json()
    assert list(answer) == ["embedding"] and list(answer["embedding"]) == ["values"]
    values = answer["embedding"]["values"]
    assert len(values) == NATIVE and _unit(values)
    assert _developer(gemini_shared, "embedContent", body).content == first.content

    small = _developer(gemini_shared, "embedContent", {**body, "outputDimensionality": 64}).json()
    assert len(small["embedding"]["values"]) == 64 and _unit(small["embedding"]["values"])


def test_batch_through_google_genai(gemini_shared: Gemini) -> None:
    """google-genai embeds through :batchEmbedContents, one request per content."""
    texts = [CAT, CAT_AGAIN, MARKETS]
    config = types.EmbedContentConfig(output_dimensionality=256)
    result = gemini_shared.client.models.embed_content(model=MODEL, contents=texts, config=config)
    assert gemini_shared.journal().last.rpc == "batchEmbedContents"
    vectors = [e.values for e in result.embeddings]
    assert [len(v) for v in vectors] == [256, 256, 256] and all(_unit(v) for v in vectors)
    assert _cosine(vectors[0], vectors[1]) > _cosine(vectors[0], vectors[2]) + 0.3

    single = _developer(
        gemini_shared, "embedContent", {"content": {"parts": [{"text": CAT}]}, "outputDimensionality": 256}
    )
    assert single.json()["embedding"]["values"] == vectors[0]  # a text's vector does not depend on the call
    again = gemini_shared.client.models.embed_content(model=MODEL, contents=texts, config=config)
    assert [e.values for e in again.embeddings] == vectors


def test_batch_without_dimensionality_has_the_native_size(gemini_shared: Gemini) -> None:
    result = gemini_shared.client.models.embed_content(model=MODEL, contents=["one", "two"])
    assert [len(e.values) for e in result.embeddings] == [NATIVE, NATIVE]


def test_more_than_100_requests_in_a_batch_is_refused(gemini_shared: Gemini) -> None:
    request = {"model": f"models/{MODEL}", "content": {"parts": [{"text": "x"}]}}
    response = _developer(gemini_shared, "batchEmbedContents", {"requests": [request] * 101})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": 400,
            "message": "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n",
            "status": "INVALID_ARGUMENT",
        }
    }
    assert _developer(gemini_shared, "batchEmbedContents", {"requests": [request] * 100}).status_code == 200
    with pytest.raises(errors.ClientError) as caught:
        gemini_shared.client.models.embed_content(model=MODEL, contents=[f"text {i}" for i in range(101)])
    assert caught.value.code == 400 and "at most 100 requests" in caught.value.message


@pytest.mark.parametrize("parts", [{"text": "x"}, "x"])
def test_content_parts_that_are_not_a_list_get_productions_400(gemini_shared: Gemini, parts: object) -> None:
    """embedContent answered zeros for `content.parts` given as an object (issue 30): the walker of generate
    calls now checks the embedded Content, so the 400 names the field as production's does for contents."""
    one = _developer(gemini_shared, "embedContent", {"content": {"parts": parts}})
    assert one.status_code == 400
    assert one.json()["error"]["message"].startswith(
        "Invalid value at 'content.parts' (type.googleapis.com/google.ai.generativelanguage.v1beta.Part), "
    )
    request = {"model": f"models/{MODEL}", "content": {"parts": parts}}
    batch = _developer(gemini_shared, "batchEmbedContents", {"requests": [request]})
    assert batch.status_code == 400
    assert batch.json()["error"]["message"].startswith("Invalid value at 'requests[0].content.parts' ")


# --- Vertex AI ----------------------------------------------------------------------------------------------


def test_vertex_embed_content_and_batch_through_google_genai(gemini_shared: Gemini, vertex: genai.Client) -> None:
    config = types.EmbedContentConfig(output_dimensionality=128)
    result = vertex.models.embed_content(model=MODEL, contents=CAT, config=config)
    assert gemini_shared.journal().last.rpc == "embedContent"
    (embedding,) = result.embeddings
    assert len(embedding.values) == 128 and _unit(embedding.values)
    counted = vertex.models.count_tokens(model=MODEL, contents=CAT).total_tokens
    assert embedding.statistics.token_count == counted

    native = vertex.models.embed_content(model=MODEL, contents=CAT).embeddings[0].values
    assert len(native) == NATIVE

    several = vertex.models.embed_content(model=MODEL, contents=[CAT, MARKETS], config=config)
    assert gemini_shared.journal().last.rpc == "batchEmbedContents"  # embedContentConfig inside each request
    assert [e.values for e in several.embeddings][0] == embedding.values
    assert [len(e.values) for e in several.embeddings] == [128, 128]


def test_vertex_predict_as_google_genai_js_sends_it(gemini_shared: Gemini, vertex: genai.Client) -> None:
    """@google/genai embeds on Vertex with :predict {"instances": [{"content": "text"}]}."""
    response = _predict(gemini_shared, {"instances": [{"content": CAT}, {"content": MARKETS}]})
    assert response.status_code == 200
    answer = response.json()
    assert list(answer) == ["predictions", "metadata"]
    first, second = (p["embeddings"] for p in answer["predictions"])
    assert list(first) == ["statistics", "values"] and first["statistics"]["truncated"] is False
    assert len(first["values"]) == NATIVE and _unit(first["values"]) and _unit(second["values"])
    counted = [vertex.models.count_tokens(model=MODEL, contents=t).total_tokens for t in (CAT, MARKETS)]
    assert [first["statistics"]["token_count"], second["statistics"]["token_count"]] == counted
    assert answer["metadata"]["billableCharacterCount"] == len("".join((CAT + MARKETS).split()))

    sized = _predict(gemini_shared, {"instances": [{"content": CAT}], "parameters": {"outputDimensionality": 32}})
    values = sized.json()["predictions"][0]["embeddings"]["values"]
    assert len(values) == 32 and _unit(values)
    assert (
        _predict(gemini_shared, {"instances": [{"content": CAT}]}).json()["predictions"][0] == answer["predictions"][0]
    )


def test_similar_texts_are_closer_than_unrelated_ones(gemini_shared: Gemini) -> None:
    def embed(text: str) -> list[float]:
        return _developer(gemini_shared, "embedContent", {"content": {"parts": [{"text": text}]}}).json()["embedding"][
            "values"
        ]

    cat, cat_again, markets = embed(CAT), embed(CAT_AGAIN), embed(MARKETS)
    assert _cosine(cat, cat_again) > 0.5 > abs(_cosine(cat, markets))
    assert _cosine(cat, cat) == pytest.approx(1.0)
