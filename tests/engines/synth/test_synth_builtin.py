"""Built-in tools in zero-config answers: code execution, Google Search grounding, URL context."""

from __future__ import annotations

import httpx
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"


def test_code_execution_runs_code_before_answering(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(tools=[types.Tool(code_execution=types.ToolCodeExecution())])
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="What is the sum of 2, 3, 5, 7 and 11?", config=config
    )
    parts = response.candidates[0].content.parts
    assert parts[0].executable_code.language == types.Language.PYTHON
    assert "[2, 3, 5, 7, 11]" in parts[0].executable_code.code
    assert parts[1].code_execution_result.outcome == types.Outcome.OUTCOME_OK
    assert parts[1].code_execution_result.output == "sum(numbers)=28\n"
    assert parts[2].text
    usage = response.usage_metadata
    assert usage.tool_use_prompt_token_count > 0
    assert usage.total_token_count == (
        usage.prompt_token_count
        + usage.candidates_token_count
        + usage.thoughts_token_count
        + usage.tool_use_prompt_token_count
    )


def test_search_grounding_and_url_context_on_the_wire(gemini_shared: Gemini) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Who won? See https://example.com/tour <b>now</b>"}]}],
        "tools": [{"googleSearch": {}}, {"urlContext": {}}],
    }
    response = httpx.post(
        f"{gemini_shared.url}/v1beta/models/{MODEL}:generateContent",
        headers={"x-goog-api-key": gemini_shared.api_key},
        json=body,
    )
    candidate = response.json()["candidates"][0]
    assert list(candidate) == ["content", "finishReason", "index", "groundingMetadata", "urlContextMetadata"]
    grounding = candidate["groundingMetadata"]
    assert list(grounding) == ["searchEntryPoint", "groundingChunks", "groundingSupports", "webSearchQueries"]
    assert grounding["groundingChunks"][0]["web"]["uri"].startswith("https://www.google.com/search?q=")
    support = grounding["groundingSupports"][0]
    text = candidate["content"]["parts"][0]["text"]
    assert text.startswith(support["segment"]["text"]) and support["groundingChunkIndices"] == [0]
    assert candidate["urlContextMetadata"]["urlMetadata"] == [
        {"retrievedUrl": "https://example.com/tour", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}
    ]
    assert b"<b>" not in response.content and b"\\u003cb\\u003e" in response.content  # rendered HTML escaped


def test_without_built_in_tools_there_is_no_grounding(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Who won the race?")
    assert response.candidates[0].grounding_metadata is None
    assert response.usage_metadata.tool_use_prompt_token_count is None
