"""A body the wire respells is journaled, and matched by the script's `request` matchers, as it was sent: `tools`
sent as one object (production takes it as the list's only element) stays one object there, on a real socket."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
TOOL = {"functionDeclarations": [{"name": "get_weather", "description": "The weather in a city"}]}


@pytest.mark.parametrize("method", ["generateContent", "streamGenerateContent"])
def test_tools_sent_as_one_object_are_journaled_and_matched_as_sent(gemini: Gemini, method: str) -> None:
    sent: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "Weather?"}]}], "tools": TOOL}
    gemini.script(
        {"name": "as-sent", "match": {"request": '"tools":{"functionDeclarations":'}, "text": "object"},
        {"name": "normalised", "match": {"request": '"tools":[{"functionDeclarations":'}, "text": "list"},
    )
    for _ in range(2):  # the first entry matches the body as sent, the second its normalised form
        response = httpx.post(
            f"{gemini.url}/v1beta/models/{MODEL}:{method}",
            params={"alt": "sse"} if method.startswith("stream") else {},
            json=sent,
            headers={"x-goog-api-key": gemini.api_key},
        )
        assert response.status_code == 200, response.text
    journal = httpx.get(f"{gemini.url}/__emulator/journal", headers={"x-goog-api-key": gemini.api_key}).json()
    assert [r["entry"] for r in journal["records"]] == ["as-sent", "normalised"]
    assert [r["body"] for r in journal["records"]] == [sent, sent]
