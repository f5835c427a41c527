"""Firebase AI Logic paths and Vertex shapes over raw HTTP (the JS SDKs that use them come with issue 7)."""

from __future__ import annotations

import httpx

KEY = {"x-goog-api-key": "firebase-web-key", "x-firebase-appid": "1:2:web:3"}
HELLO = {"generationConfig": {}, "safetySettings": [], "contents": [{"role": "user", "parts": [{"text": "hello"}]}]}


def test_firebase_developer_backend(http: httpx.Client) -> None:
    response = http.post("/v1beta/projects/demo/models/gemini-2.5-flash:generateContent", headers=KEY, json=HELLO)
    body = response.json()
    assert response.status_code == 200 and list(body) == ["candidates", "usageMetadata", "modelVersion", "responseId"]
    assert body["candidates"][0]["index"] == 0


def test_firebase_count_tokens_wraps_a_generate_request(http: httpx.Client) -> None:
    inner = {"model": "models/gemini-2.5-flash", "contents": HELLO["contents"]}
    counted = http.post(
        "/v1beta/projects/demo/models/gemini-2.5-flash:countTokens", headers=KEY, json={"generateContentRequest": inner}
    )
    generated = http.post("/v1beta/projects/demo/models/gemini-2.5-flash:generateContent", headers=KEY, json=HELLO)
    assert counted.json() == {
        "totalTokens": generated.json()["usageMetadata"]["promptTokenCount"],
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": counted.json()["totalTokens"]}],
    }


def test_firebase_vertex_backend_takes_an_api_key_and_answers_in_vertex_shape(http: httpx.Client) -> None:
    path = "/v1beta/projects/demo/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    body = http.post(path, headers=KEY, json=HELLO).json()
    assert list(body) == ["candidates", "usageMetadata", "modelVersion", "createTime", "responseId"]
    assert list(body["candidates"][0]["content"]) == ["role", "parts"]
    assert "index" not in body["candidates"][0]


def test_firebase_vertex_sse_stream(http: httpx.Client) -> None:
    path = "/v1beta/projects/demo/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"
    response = http.post(
        path,
        params={"alt": "sse"},
        headers=KEY,
        json={"contents": [{"role": "user", "parts": [{"text": "Write two paragraphs about maps"}]}]},
    )
    events = [e for e in response.content.split(b"\r\n\r\n") if e]
    assert len(events) > 1 and all(e.startswith(b"data: {") for e in events)
    assert b'"usageMetadata": {"trafficType": "ON_DEMAND"' in events[1]
    assert b'"promptTokenCount"' in events[-1] and b'"finishReason": "STOP"' in events[-1]


def test_vertex_count_tokens_has_billable_characters(http: httpx.Client) -> None:
    path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens"
    body = http.post(
        path,
        headers={"authorization": "Bearer t"},
        json={"contents": [{"role": "user", "parts": [{"text": "why is the sky blue?"}]}]},
    ).json()
    assert list(body) == ["totalTokens", "totalBillableCharacters", "promptTokensDetails"]
    assert body["totalBillableCharacters"] == 16  # whitespace is not billed (js-genai Vertex recording)
    assert body["totalTokens"] == 6  # production counted 6 for this prompt


def test_vertex_list_models(http: httpx.Client) -> None:
    body = http.get("/v1beta1/publishers/google/models", headers={"authorization": "Bearer t"}).json()
    assert {"name": "publishers/google/models/gemini-2.5-flash"} in body["publisherModels"]
