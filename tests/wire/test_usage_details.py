"""Usage.developer's usual layout keeps the promptTokensDetails its first body laid out for the stream's later
bodies: each body's list is what tokens.modality_details makes for the prompt count at that moment, a changed
prompt count gets its own, and `_developer` (the key-by-key layout) agrees."""

from __future__ import annotations

from gemini_emulator.protocol import tokens
from gemini_emulator.wire import responses


def test_the_kept_details_are_the_prompts_own() -> None:
    usage = responses.Usage(11)
    for step in range(1, 5):
        usage.candidates = 7 * step
        for thoughts in (0, 35):
            body = usage.developer(thoughts, 0)
            assert body["promptTokensDetails"] == tokens.modality_details(11, 0)
            assert body == usage._developer(thoughts, 0)
    usage.prompt_text = 12  # a changed count is laid out afresh
    assert usage.developer(35, 0)["promptTokensDetails"] == tokens.modality_details(12, 0)
    assert usage.developer(35, 0) == usage._developer(35, 0)


def test_usages_compare_and_print_without_the_kept_details() -> None:
    laid_out = responses.Usage(11, candidates=3)
    laid_out.developer()
    assert laid_out == responses.Usage(11, candidates=3)
    assert "_text_details" not in repr(laid_out)
