"""The token estimator's fast ASCII path counts exactly what its definition (tokens._PIECES) counts; the usual
prompt's shortcut counts as every part counted."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemini_emulator.protocol import tokens

ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=200)
WORDY = st.text(alphabet="aZ9_ .,!\t\n\x1c\x00", max_size=200)  # long word runs, every class boundary


def by_definition(text: str) -> int:
    return len(tokens._PIECES.findall(text))


@settings(max_examples=400, deadline=None)
@given(st.one_of(ASCII, WORDY, st.text(max_size=100)))
def test_count_text_matches_its_definition(text: str) -> None:
    assert tokens.count_text(text) == by_definition(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZ9_ .,!\t\x1c", min_size=tokens._SHORT - 8, max_size=tokens._SHORT + 8))
def test_both_ascii_ways_count_by_definition_around_the_short_length(text: str) -> None:
    """Up to _SHORT characters the opened runs are counted, past it the marked ones: either way, the definition."""
    assert tokens.count_text(text) == by_definition(text)


def test_calibration_examples_keep_their_counts() -> None:
    assert tokens.count_text("What is the capital of France? One word.") == 11  # google-adk-go TestModel_Generate_ok
    assert tokens.count_text("why is the sky blue?") == 6  # js-genai Vertex recording
    assert tokens.count_text("abcdefghijklm") == 3  # a 13-character word: 6 + 6 + 1


@pytest.mark.parametrize(
    "contents",
    [
        [],
        [{"role": "user", "parts": []}],
        [{"role": "user", "parts": [{"text": "What is the capital of France? One word."}]}],
        [{"role": "user", "parts": [{"text": "two"}, {"text": "parts, été"}]}],
        [{"role": "user", "parts": [{"text": "a"}, {"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}],
        [{"role": "user", "parts": [{"text": "signed", "thoughtSignature": "c2ln"}]}],
        [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}],
        [{"role": "user"}],
        [{"role": "user", "parts": [{"text": "a"}]}, {"role": "model", "parts": [{"text": "b"}]}],
    ],
)
@pytest.mark.parametrize("tools", [None, [], [{"functionDeclarations": [{"name": "f"}]}]])
def test_the_usual_prompt_counts_as_every_part_counted(contents: list[Any], tools: list[Any] | None) -> None:
    text, media = tokens.count_parts(tokens._contents_parts(contents))
    if tools:
        text += tokens.count_text(orjson.dumps(tools).decode())
    assert tokens.count_prompt(contents, None, tools) == (text, media)
