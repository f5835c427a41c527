"""Zero-config thinking and generation limits (issue 4): thought tokens per catalogue model and budget, thought
summaries, Gemini 3's signature placement (unary and streamed bytes), maxOutputTokens truncation (including
thinking that uses the whole budget) and stop sequences."""

from __future__ import annotations

import json

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
GEMINI_3 = "gemini-3-flash-preview"
PARAGRAPHS = "Write three paragraphs about rivers"


def _generate(client: genai.Client, prompt: str, model: str = MODEL, **config: object) -> types.GenerateContentResponse:
    return client.models.generate_content(model=model, contents=prompt, config=types.GenerateContentConfig(**config))


def _tokens(client: genai.Client, text: str) -> int:
    """countTokens of a text: the same estimator the usage of an answer comes from."""
    return client.models.count_tokens(model=MODEL, contents=text).total_tokens


def _no_thinking() -> types.ThinkingConfig:
    return types.ThinkingConfig(thinking_budget=0)


def _post(gemini: Gemini, body: dict[str, object], model: str = MODEL, stream: bool = False) -> httpx.Response:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return httpx.post(
        f"{gemini.url}/v1beta/models/{model}:{method}", json=body, headers={"x-goog-api-key": gemini.api_key}
    )


def _sse_events(body: bytes) -> list[bytes]:
    assert body.endswith(b"\r\n\r\n")
    return [event.removeprefix(b"data: ") for event in body[:-4].split(b"\r\n\r\n")]


# --- thinking ----------------------------------------------------------------------------------------------


def test_every_thinking_model_reports_thoughts_added_into_the_total(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    from gemini_emulator.wire import catalogue

    kinds = catalogue.load()  # media models answer pictures and speech (tests/engines/synth/test_synth_media.py)
    listed = [m.name.removeprefix("models/") for m in client.models.list() if m.thinking]
    thinking = [m for m in listed if kinds.kind(m) == "text" and kinds.output_modalities(m)[0] == ["TEXT"]]
    assert len(thinking) > 10 and MODEL in thinking and GEMINI_3 in thinking
    for model in thinking:
        usage = _generate(client, "Why is the sky blue?", model=model).usage_metadata
        assert usage.thoughts_token_count > 0, model
        assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count + (
            usage.thoughts_token_count
        ), model


def test_budget_zero_turns_thinking_off(gemini_shared: Gemini) -> None:
    usage = _generate(gemini_shared.client, "Why is the sky blue?", thinking_config=_no_thinking()).usage_metadata
    assert usage.thoughts_token_count is None
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count


def test_a_positive_budget_caps_thoughts(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    free = _generate(client, PARAGRAPHS).usage_metadata.thoughts_token_count
    capped = _generate(client, PARAGRAPHS, thinking_config=types.ThinkingConfig(thinking_budget=7)).usage_metadata
    assert free > 7 and capped.thoughts_token_count == 7
    assert capped.total_token_count == capped.prompt_token_count + capped.candidates_token_count + 7


def test_include_thoughts_puts_a_summary_first_counted_as_thoughts(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    plain = _generate(client, "Why is the sky blue?")
    summarised = _generate(client, "Why is the sky blue?", thinking_config=types.ThinkingConfig(include_thoughts=True))

    thought, answer = summarised.candidates[0].content.parts
    assert thought.thought is True and thought.text
    assert not answer.thought and summarised.text == answer.text  # the SDK leaves thoughts out of .text
    usage = summarised.usage_metadata
    assert usage.candidates_token_count == _tokens(client, answer.text)
    assert usage.thoughts_token_count == plain.usage_metadata.thoughts_token_count + _tokens(client, thought.text)
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count + (
        usage.thoughts_token_count
    )


def test_include_thoughts_streams_the_summary_first(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    chunks = list(gemini_shared.client.models.generate_content_stream(model=MODEL, contents=PARAGRAPHS, config=config))
    flags = [bool(p.thought) for c in chunks for p in c.candidates[0].content.parts]
    assert flags[0] is True and not any(flags[1:]) and len(flags) > 2


def test_gemini_3_unary_text_carries_a_signature_and_2_5_does_not(gemini_shared: Gemini) -> None:
    (part,) = _generate(gemini_shared.client, "Why is the sky blue?", model=GEMINI_3).candidates[0].content.parts
    assert part.text and part.thought_signature
    (part,) = _generate(gemini_shared.client, "Why is the sky blue?").candidates[0].content.parts
    assert part.text and part.thought_signature is None


def test_gemini_3_stream_ends_with_an_empty_text_part_carrying_the_signature(gemini_shared: Gemini) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": PARAGRAPHS}]}]}
    events = _sse_events(_post(gemini_shared, body, model=GEMINI_3, stream=True).content)
    assert len(events) > 2
    assert all(b"thoughtSignature" not in e and b"finishReason" not in e for e in events[:-1])
    assert events[-1].startswith(b'{"candidates": [{"content": {"parts": [{"text": "","thoughtSignature": "')
    last = json.loads(events[-1])["candidates"][0]
    assert last["finishReason"] == "STOP" and last["content"]["parts"][0]["thoughtSignature"]
    unary = _post(gemini_shared, body, model=GEMINI_3).json()["candidates"][0]["content"]["parts"][0]
    assert unary["text"] == "".join(json.loads(e)["candidates"][0]["content"]["parts"][0]["text"] for e in events)

    chunks = list(gemini_shared.client.models.generate_content_stream(model=GEMINI_3, contents=PARAGRAPHS))
    assert chunks[-1].candidates[0].content.parts[0].thought_signature  # the SDK keeps it for the replay


# --- maxOutputTokens ----------------------------------------------------------------------------------------


def test_max_output_tokens_truncates_with_consistent_counts(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    full = _generate(client, PARAGRAPHS, thinking_config=_no_thinking())
    assert full.usage_metadata.candidates_token_count > 40  # three paragraphs are long

    cut = _generate(client, PARAGRAPHS, max_output_tokens=12, thinking_config=_no_thinking())
    assert cut.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    usage = cut.usage_metadata
    assert 0 < usage.candidates_token_count <= 12
    assert usage.candidates_token_count == _tokens(client, cut.text)
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count


def test_max_output_tokens_counts_thoughts_too(gemini_shared: Gemini) -> None:
    response = _generate(gemini_shared.client, PARAGRAPHS, max_output_tokens=40)
    usage = response.usage_metadata
    assert response.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert usage.thoughts_token_count > 0 and usage.candidates_token_count > 0
    assert usage.thoughts_token_count + usage.candidates_token_count <= 40


def test_max_output_tokens_when_streaming(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(max_output_tokens=15, thinking_config=_no_thinking())
    chunks = list(gemini_shared.client.models.generate_content_stream(model=MODEL, contents=PARAGRAPHS, config=config))
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    text = "".join(c.text or "" for c in chunks)
    assert chunks[-1].usage_metadata.candidates_token_count == _tokens(gemini_shared.client, text) <= 15


def test_thinking_that_exhausts_the_budget_leaves_a_candidate_without_parts(gemini_shared: Gemini) -> None:
    """wire-facts §6.2: {"content": {"role": "model"}, "finishReason": "MAX_TOKENS"} and no candidatesTokenCount."""
    body = {
        "contents": [{"role": "user", "parts": [{"text": PARAGRAPHS}]}],
        "generationConfig": {"maxOutputTokens": 8},
    }
    answer = _post(gemini_shared, body).json()
    assert answer["candidates"] == [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}]
    usage = answer["usageMetadata"]
    assert "candidatesTokenCount" not in usage
    assert usage["thoughtsTokenCount"] == 8 and usage["totalTokenCount"] == usage["promptTokenCount"] + 8

    response = _generate(gemini_shared.client, PARAGRAPHS, max_output_tokens=8)
    assert response.text is None and response.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS


# --- stopSequences ------------------------------------------------------------------------------------------


def test_without_stop_sequences_the_answer_has_three_paragraphs(gemini_shared: Gemini) -> None:
    text = _generate(gemini_shared.client, PARAGRAPHS, stop_sequences=["never-in-the-text"]).text
    assert text.count("\n\n") == 2 and text.endswith(".")


@pytest.mark.parametrize("stream", [False, True], ids=["unary", "stream"])
def test_stop_sequences_cut_before_the_sequence(gemini_shared: Gemini, stream: bool) -> None:
    config = types.GenerateContentConfig(stop_sequences=["zzz", "\n\n"])
    models = gemini_shared.client.models
    if stream:
        text = "".join(
            c.text or "" for c in models.generate_content_stream(model=MODEL, contents=PARAGRAPHS, config=config)
        )
    else:
        text = models.generate_content(model=MODEL, contents=PARAGRAPHS, config=config).text
    assert "\n" not in text and text.count(".") >= 3  # the first paragraph, whole, and nothing after it
    first_sentence = _generate(gemini_shared.client, PARAGRAPHS, stop_sequences=["."]).text
    assert first_sentence and "." not in first_sentence and "\n" not in first_sentence
