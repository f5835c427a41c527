"""What production refuses per model: thinking settings and Gemini 3's thought signatures."""

from __future__ import annotations

import httpx
import pytest
from google import genai
from google.genai import errors, types

KEY = {"x-goog-api-key": "model-rules"}
ASK = {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]}
CALL = {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}
RESULT = {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 21}}}]}


def post(http: httpx.Client, model: str, body: dict, vertex: bool = False) -> httpx.Response:
    if vertex:
        path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{model}:generateContent"
        return http.post(path, headers={"authorization": "Bearer t"}, json=body)
    return http.post(f"/v1beta/models/{model}:generateContent", headers=KEY, json=body)


def test_pro_models_cannot_turn_thinking_off(http: httpx.Client) -> None:
    body = {"contents": [ASK], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}
    refused = post(http, "gemini-2.5-pro", body)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "Budget 0 is invalid. This model only works in thinking mode."
    answered = post(http, "gemini-2.5-flash", body).json()
    assert "thoughtsTokenCount" not in answered["usageMetadata"]  # Flash may turn thinking off


def test_minimal_thinking_level_on_a_pro_model(http: httpx.Client) -> None:
    body = {"contents": [ASK], "generationConfig": {"thinkingConfig": {"thinkingLevel": "MINIMAL"}}}
    refused = post(http, "gemini-3.1-pro-preview", body).json()["error"]
    assert refused["message"] == (
        "Thinking level MINIMAL is not supported for this model. Please retry with other thinking level."
    )


def test_gemini3_refuses_a_replayed_call_without_its_signature(http: httpx.Client) -> None:
    body = {"contents": [ASK, CALL, RESULT]}
    error = post(http, "gemini-3.5-flash", body).json()["error"]
    assert error["code"] == 400
    assert error["message"].startswith("Function call is missing a thought_signature in functionCall parts.")
    assert "function call `default_api:get_weather` , position 2." in error["message"]
    vertex = post(http, "gemini-3.5-flash", body, vertex=True).json()["error"]
    assert "function call `get_weather` in the 2. content block is missing a `thought_signature`" in vertex["message"]
    signed = {"role": "model", "parts": [{**CALL["parts"][0], "thoughtSignature": "c2lnbmF0dXJl"}]}
    assert post(http, "gemini-3.5-flash", {"contents": [ASK, signed, RESULT]}).status_code == 200
    assert post(http, "gemini-2.5-flash", body).status_code == 200  # 2.x does not check


def test_earlier_turns_are_not_checked(http: httpx.Client) -> None:
    later = {"role": "user", "parts": [{"text": "Thanks! And tomorrow?"}]}
    assert post(http, "gemini-3.5-flash", {"contents": [ASK, CALL, RESULT, later]}).status_code == 200


def test_sdk_tool_loop_on_gemini3_keeps_signatures(base_url: str) -> None:
    def get_weather(city: str) -> dict:
        """Current weather for a city."""
        return {"temp_c": 21, "city": city}

    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=base_url))
    chat = client.chats.create(model="gemini-3.5-flash", config=types.GenerateContentConfig(tools=[get_weather]))
    answer = chat.send_message("What's the weather in Paris?")
    assert "21" in answer.text  # the round trip passed the signature check
    with pytest.raises(errors.ClientError):
        client.models.generate_content(
            model="gemini-3.5-flash",
            contents=[types.Content(**ASK), types.Content(**CALL), types.Content(**RESULT)],
        )


def test_schema_problems_are_productions_400(http: httpx.Client) -> None:
    empty = {"type": "OBJECT", "properties": {"go_back": {"type": "OBJECT", "properties": {}}}}
    body = {"contents": [ASK], "generationConfig": {"responseMimeType": "application/json", "responseSchema": empty}}
    error = post(http, "gemini-2.5-flash", body).json()["error"]
    assert error["message"] == (
        '* GenerateContentRequest.generation_config.response_schema.properties["go_back"].properties: '
        "should be non-empty for OBJECT type\n"
    )
    misplaced = {
        "type": "OBJECT",
        "properties": {"data": {"type": "STRING", "properties": {"x": {}}, "required": ["x"]}},
    }
    tools = [{"functionDeclarations": [{"name": "f", "parameters": misplaced}]}]
    error = post(http, "gemini-2.5-flash", {"contents": [ASK], "tools": tools}).json()["error"]
    assert error["message"] == (
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[data].properties: "
        "only allowed for OBJECT type\n"
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[data].required: "
        "only allowed for OBJECT type\n"
    )
    json_schema = {"type": "object", "properties": {"go_back": {"type": "object", "properties": {}}}}
    fine = {
        "contents": [ASK],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": json_schema},
    }
    assert post(http, "gemini-2.5-flash", fine).status_code == 200


def test_candidate_count_gives_that_many_candidates(base_url: str) -> None:
    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=base_url))
    config = types.GenerateContentConfig(candidate_count=3)
    response = client.models.generate_content(model="gemini-2.5-flash", contents="Why is the sky blue?", config=config)
    assert [c.index for c in response.candidates] == [0, 1, 2]
    texts = [c.content.parts[0].text for c in response.candidates]
    assert len(set(texts)) == 3 and all(c.finish_reason == types.FinishReason.STOP for c in response.candidates)
    words = sum(len(t.split()) for t in texts)
    assert response.usage_metadata.candidates_token_count >= words  # every candidate's tokens are counted


def test_tool_use_that_cannot_work_is_refused(http: httpx.Client) -> None:
    config_only = {"contents": [ASK], "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
    error = post(http, "gemini-2.5-flash", config_only).json()["error"]
    assert error["message"] == "Function calling config is set without function_declarations."
    bad_name = {"contents": [ASK], "tools": [{"functionDeclarations": [{"name": "get weather"}]}]}
    error = post(http, "gemini-2.5-flash", bad_name).json()["error"]
    assert error["message"].startswith(
        "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. "
        "Must start with a letter or an underscore."
    )
    orphan = {"contents": [ASK, RESULT]}
    error = post(http, "gemini-2.5-flash", orphan).json()["error"]
    assert error["message"] == (
        "Please ensure that the number of function response parts is equal to the number of function call parts "
        "of the function call turn."
    )
    two_results = {"role": "user", "parts": RESULT["parts"] * 2}
    assert post(http, "gemini-2.5-flash", {"contents": [ASK, CALL, two_results]}).status_code == 400
    assert post(http, "gemini-2.5-flash", {"contents": [ASK, CALL, RESULT]}).status_code == 200


def test_penalties_are_not_enabled_on_gemini_2_5(http: httpx.Client) -> None:
    body = {"contents": [ASK], "generationConfig": {"presencePenalty": 0.5}}
    error = post(http, "gemini-2.5-flash-lite", body).json()["error"]
    assert error == {
        "code": 400,
        "message": "Penalty is not enabled for models/gemini-2.5-flash-lite",
        "status": "INVALID_ARGUMENT",
    }
    assert (
        post(http, "gemini-2.5-flash", {"contents": [ASK], "generationConfig": {"frequencyPenalty": 0}}).status_code
        == 200
    )
