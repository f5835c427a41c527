"""The zero-config answer's shortcuts against its general path, over the wire: a last turn of text parts alone is
read once (`answer._plain_turn`) instead of by the last-user-text, function-response and attached-file steps."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gemini_emulator.engines.synth import answer
from gemini_emulator.engines.synth.calls import has_function_response
from gemini_emulator.seam import GenerateRequest, last_user_text

KEY = {"x-goog-api-key": "synth-shortcuts"}
USER = {"role": "user", "parts": [{"text": "Tell me about rivers"}]}
CONTENTS: dict[str, list[dict[str, Any]]] = {
    "one text part": [USER],
    "no role": [{"parts": [{"text": "Say hello"}]}],
    "two text parts": [{"role": "user", "parts": [{"text": "Write two"}, {"text": "paragraphs about tea"}]}],
    "empty text": [{"role": "user", "parts": [{"text": ""}]}],
    "a conversation": [USER, {"role": "model", "parts": [{"text": "Rivers flow."}]}, USER],
    "model last": [USER, {"role": "model", "parts": [{"text": "Rivers flow."}]}],
    "text and a file": [
        {"role": "user", "parts": [{"text": "What is this?"}, {"fileData": {"fileUri": "https://x.test/a.png"}}]}
    ],
    "a file alone": [{"role": "user", "parts": [{"fileData": {"fileUri": "https://x.test/a.png"}}]}],
    "a function response": [
        USER,
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"x": 1}}}]},
    ],
    "a signed text part": [{"role": "user", "parts": [{"text": "hi there", "thoughtSignature": "c2ln"}]}],
}
PLAIN = ("one text part", "no role", "two text parts", "empty text", "a conversation")  # the turns read at once
PATHS = [
    "/v1beta/models/gemini-2.5-flash:generateContent",
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    "/v1beta/models/gemini-3-flash-preview:generateContent",
    "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
]


def _answers(http: httpx.Client) -> dict[tuple[str, str], bytes]:
    out = {}
    for name, contents in CONTENTS.items():
        for path in PATHS:
            headers = KEY if "projects/" not in path else {"authorization": "Bearer synth-shortcuts"}
            response = http.post(path, json={"contents": contents}, headers=headers)
            out[(name, path)] = response.status_code.to_bytes(2, "big") + response.content
    return out


def test_a_plain_last_turn_answers_as_the_general_path(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _answers(http)
    monkeypatch.setattr(answer, "_plain_turn", lambda contents: None)
    assert _answers(http) == fast


@pytest.mark.parametrize("name", list(CONTENTS))
def test_a_plain_turn_is_what_the_general_steps_read(name: str) -> None:
    contents = CONTENTS[name]
    text = answer._plain_turn(contents)
    request = GenerateRequest("m", "m", "developer", False, "k", contents)
    if text is not None:
        assert text == last_user_text(contents)
        assert not has_function_response(request) and answer._attached(request) == ""
    assert (text is not None) == (name in PLAIN)
