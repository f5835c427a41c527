"""generateContent with `tools: [{fileSearch: ...}]` over a real socket with google-genai 3.6.1: the zero-config
answer quotes the stored document and its groundingMetadata cites it (retrievedContext with text, fileSearchStore,
title, customMetadata; a support per quoted sentence), streamed too, async too; a metadataFilter picks documents;
a scripted answer is grounded in the same chunks; an unknown or another key's store is production's 403."""

from __future__ import annotations

import asyncio
import io
import time
from typing import Any

import httpx
import pytest
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
PARIS = "Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris."
BANANAS = "Bananas are yellow. They grow in bunches on large herbaceous plants."


def _store(gemini: Gemini, *docs: tuple[str, dict[str, Any]]) -> str:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "grounding"})
    for text, config in docs:
        op = client.file_search_stores.upload_to_file_search_store(
            file_search_store_name=store.name,
            file=io.BytesIO(text.encode()),
            config={"mime_type": "text/plain"} | config,
        )
        deadline = time.monotonic() + 10
        while not op.done:
            assert time.monotonic() < deadline
            time.sleep(0.05)
            op = client.operations.get(op)
    return str(store.name)


def _tool(*names: str, **extra: Any) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        tools=[types.Tool(file_search=types.FileSearch(file_search_store_names=list(names), **extra))]
    )


def test_the_answer_quotes_and_cites_the_document(gemini: Gemini) -> None:
    store = _store(gemini, (PARIS, {"display_name": "paris.txt"}), (BANANAS, {}))
    response = gemini.client.models.generate_content(
        model=MODEL, contents="What is the capital of France?", config=_tool(store)
    )
    assert response.text.startswith("Paris is the capital of France.")
    grounding = response.candidates[0].grounding_metadata
    assert len(grounding.grounding_chunks) == 1  # the bananas share no word with the question
    context = grounding.grounding_chunks[0].retrieved_context
    assert (context.text, context.file_search_store, context.title) == (PARIS, store, "paris.txt")
    support = grounding.grounding_supports[0]
    assert support.grounding_chunk_indices == [0]
    assert support.segment.text == "Paris is the capital of France."
    assert support.segment.start_index is None and support.segment.end_index == len(support.segment.text)
    usage = response.usage_metadata
    assert usage.tool_use_prompt_token_count and usage.tool_use_prompt_token_count > 0


def test_the_wire_spells_it_as_production(gemini: Gemini) -> None:
    store = _store(gemini, (PARIS, {"custom_metadata": [{"key": "source_url", "string_value": "https://x.test/p"}]}))
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Tell me about the Eiffel Tower."}]}],
        "tools": [{"fileSearch": {"file_search_store_names": [store]}}],  # pydantic-ai's spelling, as captured
    }
    answer = httpx.post(
        f"{gemini.url}/v1beta/models/{MODEL}:generateContent", json=body, headers={"x-goog-api-key": gemini.api_key}
    ).json()
    candidate = answer["candidates"][0]
    assert list(candidate)[-1] == "groundingMetadata"
    metadata = candidate["groundingMetadata"]
    assert list(metadata) == ["groundingChunks", "groundingSupports"]
    context = metadata["groundingChunks"][0]["retrievedContext"]
    assert list(context) == ["text", "fileSearchStore", "customMetadata"]  # no title: no display name
    assert context["customMetadata"] == [{"key": "source_url", "stringValue": "https://x.test/p"}]
    support = metadata["groundingSupports"][0]
    assert list(support) == ["segment", "groundingChunkIndices"]
    assert support["segment"]["text"] == "The Eiffel Tower is a famous landmark in Paris."
    assert answer["usageMetadata"]["toolUsePromptTokensDetails"][0]["modality"] == "TEXT"


def test_streamed_the_last_chunk_carries_the_grounding(gemini: Gemini) -> None:
    store = _store(gemini, (PARIS, {}))
    chunks = list(
        gemini.client.models.generate_content_stream(
            model=MODEL, contents="What is the capital of France?", config=_tool(store)
        )
    )
    assert len(chunks) > 1
    assert all(c.candidates[0].grounding_metadata is None for c in chunks[:-1])
    last = chunks[-1].candidates[0]
    assert last.finish_reason == types.FinishReason.STOP
    assert last.grounding_metadata.grounding_chunks[0].retrieved_context.text == PARIS
    assert "".join(c.text or "" for c in chunks).startswith("Paris is the capital of France.")


def test_a_metadata_filter_picks_documents(gemini: Gemini) -> None:
    store = _store(
        gemini,
        ("Paris hosts the Louvre museum.", {"custom_metadata": [{"key": "topic", "string_value": "art"}]}),
        ("Paris hosts the Tour de France finish.", {"custom_metadata": [{"key": "topic", "string_value": "sport"}]}),
    )
    response = gemini.client.models.generate_content(
        model=MODEL, contents="What does Paris host?", config=_tool(store, metadata_filter='topic = "sport"')
    )
    chunks = response.candidates[0].grounding_metadata.grounding_chunks
    assert [c.retrieved_context.text for c in chunks] == ["Paris hosts the Tour de France finish."]
    with pytest.raises(errors.ClientError) as bad:
        gemini.client.models.generate_content(
            model=MODEL, contents="What does Paris host?", config=_tool(store, metadata_filter="topic ~~ sport")
        )
    assert bad.value.code == 400


def test_a_scripted_answer_is_grounded_in_the_retrieved_chunks(gemini: Gemini) -> None:
    store = _store(gemini, (PARIS, {}))
    gemini.script({"match": {"text": "capital"}, "text": "It is Paris. Nice city."})
    response = gemini.client.models.generate_content(
        model=MODEL, contents="What is the capital of France?", config=_tool(store)
    )
    assert response.text == "It is Paris. Nice city."
    grounding = response.candidates[0].grounding_metadata
    assert grounding.grounding_chunks[0].retrieved_context.text == PARIS
    assert grounding.grounding_supports[0].segment.text == "It is Paris."


def test_unknown_and_other_keys_stores_are_refused(gemini: Gemini, gemini_shared: Gemini) -> None:
    store = _store(gemini, (PARIS, {}))
    for client, name in ((gemini.client, "fileSearchStores/nosuchstore"), (gemini_shared.client, store)):
        with pytest.raises(errors.ClientError) as refused:
            client.models.generate_content(model=MODEL, contents="What is the capital?", config=_tool(name))
        assert refused.value.code == 403
        assert refused.value.message == (
            f"You do not have permission to access the FileSearchStore {name.removeprefix('fileSearchStores/')}"
            " or it may not exist."
        )
    with pytest.raises(errors.ClientError) as empty:
        gemini.client.models.generate_content(model=MODEL, contents="Hi", config=_tool())
    assert empty.value.code == 400


def test_async_generate_is_grounded(gemini: Gemini) -> None:
    store = _store(gemini, (PARIS, {}))

    async def run() -> Any:
        return await gemini.client.aio.models.generate_content(
            model=MODEL, contents="Which landmark is famous in Paris?", config=_tool(store)
        )

    response = asyncio.run(run())
    context = response.candidates[0].grounding_metadata.grounding_chunks[0].retrieved_context
    assert context.file_search_store == store
    assert "Eiffel Tower" in response.text


def test_server_side_invocations_as_the_gemini_3_capture_shows(gemini: Gemini) -> None:
    """With includeServerSideToolInvocations the answer reports the search: a toolCall part then a toolResponse
    part (FILE_SEARCH, one id, a thought signature first), then the text; the next turn sends them back (as
    pydantic-ai does, in snake_case) and is answered (the cassette test_google_model_file_search_grounding_gemini_3
    [False].yaml)."""
    store = _store(gemini, (PARIS, {}))
    url = f"{gemini.url}/v1beta/models/gemini-3-flash-preview:generateContent"
    headers = {"x-goog-api-key": gemini.api_key}
    body: dict[str, Any] = {
        "contents": [{"role": "user", "parts": [{"text": "What is the capital of France?"}]}],
        "generationConfig": {"responseModalities": ["TEXT"]},
        "toolConfig": {"includeServerSideToolInvocations": True},
        "tools": [{"fileSearch": {"file_search_store_names": [store]}}],
    }
    answer = httpx.post(url, json=body, headers=headers).json()
    call, response, text = answer["candidates"][0]["content"]["parts"]
    assert list(call) == ["thoughtSignature", "toolCall"] and list(call["toolCall"]) == ["toolType", "id"]
    assert call["toolCall"]["toolType"] == "FILE_SEARCH" and len(call["toolCall"]["id"]) == 8
    assert list(response) == ["thoughtSignature", "toolResponse"]
    assert response["toolResponse"] == {"toolType": "FILE_SEARCH", "id": call["toolCall"]["id"]}
    assert text["text"].startswith("Paris is the capital of France.")
    echoed = [
        {
            "thoughtSignature": call["thoughtSignature"],
            "toolCall": {"args": {}, "id": call["toolCall"]["id"], "tool_type": "FILE_SEARCH"},
        },
        {
            "thoughtSignature": response["thoughtSignature"],
            "toolResponse": {
                "id": call["toolCall"]["id"],
                "response": {"result": [{"text": PARIS}]},
                "tool_type": "FILE_SEARCH",
            },
        },
        text,
    ]
    body["contents"] += [
        {"role": "model", "parts": echoed},
        {"role": "user", "parts": [{"text": "What landmark is it known for?"}]},
    ]
    follow_up = httpx.post(url, json=body, headers=headers)
    assert follow_up.status_code == 200, follow_up.text
    assert "groundingMetadata" in follow_up.json()["candidates"][0]
    sdk = gemini.client.models.generate_content(
        model="gemini-3-flash-preview",
        contents="What is the capital of France?",
        config=types.GenerateContentConfig(
            tools=[types.Tool(file_search=types.FileSearch(file_search_store_names=[store]))],
            tool_config=types.ToolConfig(include_server_side_tool_invocations=True),
        ),
    )
    parts = sdk.candidates[0].content.parts
    assert parts[0].tool_call.tool_type == types.ToolType.FILE_SEARCH
    assert parts[1].tool_response.id == parts[0].tool_call.id
    streamed = list(
        gemini.client.models.generate_content_stream(
            model="gemini-3-flash-preview",
            contents="What is the capital of France?",
            config=types.GenerateContentConfig(
                tools=[types.Tool(file_search=types.FileSearch(file_search_store_names=[store]))],
                tool_config=types.ToolConfig(include_server_side_tool_invocations=True),
            ),
        )
    )
    assert streamed[0].candidates[0].content.parts[0].tool_call is not None  # each part an event of its own
    assert streamed[1].candidates[0].content.parts[0].tool_response is not None
    assert streamed[-1].candidates[0].grounding_metadata.grounding_chunks[0].retrieved_context.text == PARIS
