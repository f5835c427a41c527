"""google-genai (Python) against the emulator on the Developer API, v1 and v1beta, sync and async."""

from __future__ import annotations

import asyncio

import pytest
from google import genai
from google.genai import errors, types

MODEL = "gemini-2.5-flash"


def test_generate_returns_text_usage_and_ids(client: genai.Client) -> None:
    response = client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text and response.text.startswith("Hello")
    candidate = response.candidates[0]
    assert candidate.finish_reason == types.FinishReason.STOP
    assert candidate.index == 0
    usage = response.usage_metadata
    assert usage.prompt_token_count > 0 and usage.candidates_token_count > 0
    assert usage.thoughts_token_count > 0  # gemini-2.5-flash thinks by default
    total = usage.prompt_token_count + usage.candidates_token_count + usage.thoughts_token_count
    assert usage.total_token_count == total
    assert response.model_version == MODEL
    assert len(response.response_id) == 22


def test_same_request_same_answer_different_prompt_different_answer(client: genai.Client) -> None:
    first = client.models.generate_content(model=MODEL, contents="Why is the sky blue?")
    again = client.models.generate_content(model=MODEL, contents="Why is the sky blue?")
    other = client.models.generate_content(model=MODEL, contents="How do volcanoes form?")
    assert first.text == again.text and first.response_id == again.response_id
    assert other.text != first.text and other.response_id != first.response_id


def test_answer_length_follows_the_prompt(client: genai.Client) -> None:
    short = client.models.generate_content(model=MODEL, contents="What is a river?").text
    long = client.models.generate_content(model=MODEL, contents="Write three paragraphs about rivers").text
    assert "\n\n" not in short and short.count(".") <= 4
    assert long.count("\n\n") == 2
    assert len(long) > 2 * len(short)


def test_stream_has_several_chunks_that_add_up(client: genai.Client) -> None:
    prompt = "Write two paragraphs about the history of bridges"
    chunks = list(client.models.generate_content_stream(model=MODEL, contents=prompt))
    assert len(chunks) > 1
    ids = {c.response_id for c in chunks}
    assert len(ids) == 1
    reasons = [c.candidates[0].finish_reason for c in chunks]
    assert reasons[-1] == types.FinishReason.STOP and all(r is None for r in reasons[:-1])
    counts = [c.usage_metadata.candidates_token_count for c in chunks]
    assert counts == sorted(counts) and counts[0] > 0  # running totals
    unary = client.models.generate_content(model=MODEL, contents=prompt)
    assert "".join(c.text for c in chunks) == unary.text
    assert chunks[-1].usage_metadata.candidates_token_count == unary.usage_metadata.candidates_token_count


def test_count_tokens_matches_prompt_token_count(client: genai.Client) -> None:
    contents = [
        types.Content(role="user", parts=[types.Part(text="What is the capital of France? One word.")]),
        types.Content(role="model", parts=[types.Part(text="Paris.")]),
        types.Content(role="user", parts=[types.Part(text="And of Italy?")]),
    ]
    counted = client.models.count_tokens(model=MODEL, contents=contents)
    generated = client.models.generate_content(model=MODEL, contents=contents)
    assert counted.total_tokens == generated.usage_metadata.prompt_token_count
    assert counted.total_tokens > 10


def test_two_turn_chat(client: genai.Client) -> None:
    chat = client.chats.create(model=MODEL)
    first = chat.send_message("Say hello")
    second = chat.send_message("Now list three colours")
    assert first.text.startswith("Hello")
    assert second.text != first.text and "1." in second.text and "3." in second.text
    assert len(chat.get_history()) == 4


def test_list_and_get_models(client: genai.Client) -> None:
    names = [m.name for m in client.models.list()]
    assert "models/gemini-2.5-flash" in names and "models/gemini-embedding-001" in names
    model = client.models.get(model=MODEL)
    assert model.input_token_limit == 1048576 and model.output_token_limit == 65536
    assert "generateContent" in model.supported_actions


def test_list_models_pages(client: genai.Client) -> None:
    pager = client.models.list(config={"page_size": 5})
    assert len(pager.page) == 5
    everything = [m.name for m in client.models.list(config={"page_size": 5})]
    assert len(everything) == len(set(everything)) > 5


def test_unknown_model_raises_client_error(client: genai.Client) -> None:
    version = client._api_client._http_options.api_version
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="gemini-9-ultra", contents="x")
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    assert f"models/gemini-9-ultra is not found for API version {version}" in caught.value.message


def test_unknown_model_stream_raises_before_any_chunk(client: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as caught:
        list(client.models.generate_content_stream(model="gemini-9-ultra", contents="x"))
    assert caught.value.code == 404
    assert "not supported for generateContent" in caught.value.message


def test_retired_models_fail_like_production(client: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as old:
        client.models.generate_content(model="gemini-1.5-flash", contents="x")
    assert old.value.code == 404 and "is not found for API version" in old.value.message
    with pytest.raises(errors.ClientError) as recent:
        client.models.generate_content(model="gemini-2.0-flash", contents="x")
    assert recent.value.code == 404 and "is no longer available" in recent.value.message


def test_alias_answers_as_its_target(client: genai.Client) -> None:
    response = client.models.generate_content(model="gemini-flash-latest", contents="Say hello")
    assert response.model_version != "gemini-flash-latest"
    assert response.model_version.startswith("gemini-")


def test_bad_role_is_400(client: genai.Client) -> None:
    system_turn = types.Content(role="system", parts=[types.Part(text="x")])
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents=[system_turn])
    assert caught.value.code == 400 and caught.value.message == "Please use a valid role: user, model."


def test_async_generate_and_stream(base_url: str) -> None:
    async def scenario() -> tuple[str, list[str]]:
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=base_url))
        unary = await client.aio.models.generate_content(model=MODEL, contents="Describe autumn in two sentences")
        stream = await client.aio.models.generate_content_stream(
            model=MODEL, contents="Describe autumn in two sentences"
        )
        texts = [chunk.text async for chunk in stream]
        return unary.text, texts

    unary, texts = asyncio.run(scenario())
    assert len(texts) > 1 and "".join(texts) == unary


def test_async_errors_are_sdk_errors(base_url: str) -> None:
    async def scenario() -> None:
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=base_url))
        await client.aio.models.generate_content(model="nope", contents="x")

    with pytest.raises(errors.ClientError) as caught:
        asyncio.run(scenario())
    assert caught.value.code == 404


def test_base_url_from_environment(base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", base_url)
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    client = genai.Client()  # no code change: only the environment points at the emulator
    assert client.models.generate_content(model=MODEL, contents="Say hello").text.startswith("Hello")
