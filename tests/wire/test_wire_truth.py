"""Issue 13: facts the VCR recordings of pydantic-ai and Mirascope (../shared/corpus, 2025-03..2026-08) showed
the emulator getting wrong, each held here over a real socket, through google-genai where it applies.
The counts behind each fact are in the code that makes it and in docs/conformance.md."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types

KEY = "wire-truth"
ASK = {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]}
CALL = {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}
RESULT = {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 21}}}]}
VERTEX_PATH = "/v1beta1/projects/p/locations/global/publishers/google/models/{model}:{method}"


@pytest.fixture
def client(base_url: str) -> genai.Client:
    return genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=base_url))


@pytest.fixture
def vertex(base_url: str) -> Iterator[genai.Client]:
    token = "wire-truth-" + uuid.uuid4().hex
    yield genai.Client(
        vertexai=True,
        project="p",
        location="global",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=base_url),
    )


def dev(http: httpx.Client, model: str, body: dict, method: str = "generateContent", query: str = "") -> httpx.Response:
    return http.post(f"/v1beta/models/{model}:{method}{query}", headers={"x-goog-api-key": KEY}, json=body)


def vtx(http: httpx.Client, model: str, body: dict, method: str = "generateContent", query: str = "") -> httpx.Response:
    path = VERTEX_PATH.format(model=model, method=method) + query
    return http.post(path, headers={"authorization": "Bearer wire-truth"}, json=body)


# --- 1. a tool with no arguments --------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["developer", "vertex"])
def test_a_tool_without_arguments_is_called(client: genai.Client, vertex: genai.Client, backend: str) -> None:
    """`parameters: {type: OBJECT, properties: {}}` is answered 200 with a call, as production answered 9 of 9."""
    empty = types.Schema(type=types.Type.OBJECT, properties={})
    tool = types.Tool(function_declarations=[types.FunctionDeclaration(name="list_files", parameters=empty)])
    config = types.GenerateContentConfig(
        tools=[tool],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    sdk = client if backend == "developer" else vertex
    response = sdk.models.generate_content(model="gemini-2.5-flash", contents="List my files", config=config)
    assert [(c.name, c.args) for c in response.function_calls] == [("list_files", {})]


def test_an_empty_object_in_a_response_schema_is_still_refused(http: httpx.Client) -> None:
    """The rule stays where it was quoted from production (a response_schema, browser-use#3786)."""
    schema = {"type": "OBJECT", "properties": {}}
    body = {"contents": [ASK], "generationConfig": {"responseMimeType": "application/json", "responseSchema": schema}}
    assert dev(http, "gemini-2.5-flash", body).status_code == 400


# --- 2, 3. after a tool result ----------------------------------------------------------------------------


def test_mode_any_after_a_tool_result_calls_again(client: genai.Client) -> None:
    """Mode ANY calls a function even when the last turn is a function response (18 of 18 recordings),
    preferring one the turn did not just answer (pydantic-ai's final_result)."""
    declarations = [
        types.FunctionDeclaration(
            name="get_weather",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}),
        ),
        types.FunctionDeclaration(
            name="final_result",
            parameters=types.Schema(
                type="OBJECT", properties={"summary": types.Schema(type="STRING")}, required=["summary"]
            ),
        ),
    ]
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=declarations)],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents = [types.Content(**ASK), types.Content(**CALL), types.Content(**RESULT)]
    response = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
    calls = response.function_calls or []
    assert [c.name for c in calls] == ["final_result"] and isinstance(calls[0].args["summary"], str)
    auto = config.model_copy(update={"tool_config": None})
    answered = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=auto)
    assert answered.function_calls is None and "21" in answered.text  # AUTO still answers with text


def test_structured_output_after_a_tool_result_is_json(client: genai.Client) -> None:
    schema = types.Schema(
        type="OBJECT",
        properties={"city": types.Schema(type="STRING"), "temp_c": types.Schema(type="INTEGER")},
        required=["city", "temp_c"],
    )
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=schema)
    contents = [types.Content(**ASK), types.Content(**CALL), types.Content(**RESULT)]
    response = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
    value = json.loads(response.text)
    assert set(value) == {"city", "temp_c"} and isinstance(value["temp_c"], int)


# --- 4, 5. Vertex usage and candidates ----------------------------------------------------------------------


def test_vertex_unary_answer_has_avg_logprobs_and_no_billable_usage(vertex: genai.Client, http: httpx.Client) -> None:
    response = vertex.models.generate_content(model="gemini-2.5-flash", contents="Say hello")
    assert response.candidates[0].avg_logprobs is not None and response.candidates[0].avg_logprobs < 0
    body = vtx(http, "gemini-2.5-flash", {"contents": [ASK]}).json()
    assert list(body["candidates"][0]) == ["content", "finishReason", "avgLogprobs"]
    assert "billablePromptUsage" not in body["usageMetadata"]
    events = vtx(http, "gemini-2.5-flash", {"contents": [ASK]}, "streamGenerateContent", "?alt=sse").text
    chunks = [json.loads(line[6:]) for line in events.split("\r\n") if line.startswith("data: ")]
    assert chunks and not any("avgLogprobs" in c["candidates"][0] for c in chunks)  # streams carry none
    assert not any("billablePromptUsage" in c["usageMetadata"] for c in chunks)


def test_vertex_function_call_has_no_finish_message_nor_id(http: httpx.Client) -> None:
    tools = [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "OBJECT"}}]}]
    config = {"functionCallingConfig": {"mode": "ANY"}}
    for model in ("gemini-2.5-flash", "gemini-3-flash-preview"):
        body = vtx(http, model, {"contents": [ASK], "tools": tools, "toolConfig": config}).json()
        candidate = body["candidates"][0]
        assert "finishMessage" not in candidate
        assert "id" not in candidate["content"]["parts"][0]["functionCall"]
    developer = dev(http, "gemini-3-flash-preview", {"contents": [ASK], "tools": tools, "toolConfig": config}).json()
    assert developer["candidates"][0]["finishMessage"] == "Model generated function call(s)."


# --- 6. X-Gemini-Service-Tier -----------------------------------------------------------------------------


def test_service_tier_header_only_on_unary_developer_answers(http: httpx.Client) -> None:
    body = {"contents": [ASK]}
    unary = dev(http, "gemini-2.5-flash", body)
    assert unary.headers["x-gemini-service-tier"] == "standard"
    for query in ("?alt=sse", ""):
        stream = dev(http, "gemini-2.5-flash", body, "streamGenerateContent", query)
        assert stream.status_code == 200 and "x-gemini-service-tier" not in stream.headers
        assert '"serviceTier": "standard"' in stream.text or '"serviceTier":"standard"' in stream.text
    assert "x-gemini-service-tier" not in vtx(http, "gemini-2.5-flash", body).headers


# --- 7. embeddings usage ----------------------------------------------------------------------------------


def test_gemini_embedding_2_batch_reports_usage(http: httpx.Client) -> None:
    batch = {"requests": [{"model": "models/gemini-embedding-2", "content": {"parts": [{"text": "hello world"}]}}]}
    body = dev(http, "gemini-embedding-2", batch, "batchEmbedContents").json()
    usage = body["usageMetadata"]
    assert list(usage) == ["promptTokenCount", "promptTokenDetails"]  # that spelling: singular "Token"
    assert usage["promptTokenDetails"] == [{"modality": "TEXT", "tokenCount": usage["promptTokenCount"]}]
    batch["requests"][0]["model"] = "models/gemini-embedding-001"
    assert "usageMetadata" not in dev(http, "gemini-embedding-001", batch, "batchEmbedContents").json()


# --- 8. model not found -----------------------------------------------------------------------------------


def test_unknown_model_through_the_sdk(client: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="gemini-3.6-flahs", contents="hi")
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    assert caught.value.details == {
        "error": {
            "code": 404,
            "message": "models/gemini-3.6-flahs is not found for API version v1, or is not supported for "
            "generateContent. Call ModelService.ListModels to see the list of available models and their "
            "supported methods.",
            "status": "NOT_FOUND",
        }
    }


# --- 9. retirement per backend ----------------------------------------------------------------------------


def test_text_embedding_004_is_retired_on_developer_only(http: httpx.Client, vertex: genai.Client) -> None:
    path = VERTEX_PATH.format(model="text-embedding-004", method="predict")
    answered = http.post(path, headers={"authorization": "Bearer t"}, json={"instances": [{"content": "Hello"}]})
    assert answered.status_code == 200 and len(answered.json()["predictions"][0]["embeddings"]["values"]) == 768
    response = vertex.models.embed_content(model="text-embedding-004", contents="Hello world")
    assert len(response.embeddings[0].values) == 768
    batch = {"requests": [{"model": "models/text-embedding-004", "content": {"parts": [{"text": "Hello"}]}}]}
    assert dev(http, "text-embedding-004", batch, "batchEmbedContents").status_code == 404
    assert vtx(http, "gemini-2.0-flash", {"contents": [ASK]}).status_code == 404  # last seen on Vertex 2025-06


# --- 10. two consecutive function-call turns ----------------------------------------------------------------


def test_two_consecutive_call_turns_pair_with_one_response_turn(http: httpx.Client) -> None:
    """user, model(call A), model(call B), user(two responses): 200 (pydantic-ai, gemini-3-flash-preview)."""
    other = {"role": "model", "parts": [{"functionCall": {"name": "get_time", "args": {}}}]}
    both = {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"temp_c": 21}}},
            {"functionResponse": {"name": "get_time", "response": {"time": "noon"}}},
        ],
    }
    body = {"contents": [ASK, CALL, other, both]}
    assert dev(http, "gemini-2.5-flash", body).status_code == 200
    short = {"contents": [ASK, CALL, other, RESULT]}  # two calls, one response: still production's 400
    assert dev(http, "gemini-2.5-flash", short).status_code == 400


# --- 11. smaller facts -----------------------------------------------------------------------------------------


def test_tools_as_a_single_object_is_accepted(http: httpx.Client) -> None:
    tools = {"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "OBJECT"}}]}
    body = {"contents": [ASK], "tools": tools, "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
    answer = dev(http, "gemini-2.5-flash", body).json()
    assert answer["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "get_weather"


def test_an_empty_text_prompt_counts_one_token(client: genai.Client) -> None:
    response = client.models.generate_content(
        model="gemini-2.5-flash", contents=[types.Content(role="user", parts=[types.Part(text="")])]
    )
    assert response.usage_metadata.prompt_token_count == 1


def test_synthesized_arguments_honour_pattern(client: genai.Client) -> None:
    params = types.Schema(
        type="OBJECT",
        properties={
            "code": types.Schema(type="STRING", pattern=r"^[A-Z]{3}-\d{4}$"),
            "secret": types.Schema(type="STRING", pattern="(?=.*[0-9]).+"),
        },
        required=["code", "secret"],
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="book", parameters=params)])],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    response = client.models.generate_content(model="gemini-2.5-flash", contents="Book it", config=config)
    args = response.function_calls[0].args
    assert re.search(r"^[A-Z]{3}-\d{4}$", args["code"]) and re.search("(?=.*[0-9]).+", args["secret"])


# --- 12. Vertex models/x names ------------------------------------------------------------------------------


def test_vertex_models_name_gets_a_json_not_found(vertex: genai.Client, http: httpx.Client) -> None:
    """google-genai in Vertex mode sends `models/x` to projects/P/locations/L/models/x: Vertex's JSON 404."""
    with pytest.raises(errors.ClientError) as caught:
        vertex.models.generate_content(model="models/gemini-2.5-flash", contents="hi")
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    resp = http.post(
        "/v1beta1/projects/p/locations/us-central1/models/gemini-2.5-flash:generateContent",
        headers={"authorization": "Bearer t"},
        json={"contents": [ASK]},
    )
    assert resp.status_code == 404 and resp.headers["content-type"].startswith("application/json")
    assert set(resp.json()["error"]) == {"code", "message", "status"}


def test_vertex_express_models_name_gets_a_json_not_found(base_url: str, http: httpx.Client) -> None:
    """Express mode (an API key, no project) sends `models/x` to /v1beta1/models/x: Vertex's JSON 404, not HTML."""
    express = genai.Client(vertexai=True, api_key="express-key", http_options=types.HttpOptions(base_url=base_url))
    with pytest.raises(errors.ClientError) as caught:
        express.models.generate_content(model="models/gemini-2.5-flash", contents="hi")
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    resp = http.post("/v1beta1/models/gemini-2.5-flash:generateContent", params={"key": "k"}, json={"contents": [ASK]})
    assert resp.status_code == 404 and resp.headers["content-type"].startswith("application/json")
    assert "`models/gemini-2.5-flash`" in resp.json()["error"]["message"]
