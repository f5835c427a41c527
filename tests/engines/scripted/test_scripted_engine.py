"""The scripted engine's zero-config answers: deterministic, varied, sized to the prompt."""

from __future__ import annotations

import pytest

from gemini_emulator.engines.synth.prose import compose, split_for_stream


def test_deterministic_per_seed() -> None:
    assert compose("Why is the sky blue?", "seed-1") == compose("Why is the sky blue?", "seed-1")
    assert compose("Why is the sky blue?", "seed-1") != compose("Why is the sky blue?", "seed-2")


@pytest.mark.parametrize(
    ("prompt", "paragraphs"),
    [("Write three paragraphs about whales", 3), ("write 5 paragraphs on trains", 5), ("An essay on tea", 3)],
)
def test_paragraph_requests(prompt: str, paragraphs: int) -> None:
    assert compose(prompt, "s").count("\n\n") == paragraphs - 1


def test_lists_sentences_and_one_word() -> None:
    listed = compose("List five fruits", "s")
    assert [line[:2] for line in listed.splitlines()[-5:]] == ["1.", "2.", "3.", "4.", "5."]
    assert compose("Describe rain in two sentences", "s").count(".") == 2
    assert len(compose("What is the capital of France? One word.", "s").split()) == 1


def test_a_question_gets_a_sentence_or_two() -> None:
    answer = compose("What is a river?", "s")
    assert "\n" not in answer and 1 <= answer.count(".") <= 4
    assert "river" in answer.lower()


def test_stream_split_concatenates_back() -> None:
    text = compose("Write two paragraphs about bridges", "s")
    pieces = split_for_stream(text)
    assert len(pieces) > 1 and "".join(pieces) == text
    assert split_for_stream("Hi.") == ["Hi."]
