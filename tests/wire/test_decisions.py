"""Decisions (issue 33): google-genai 3.6.1's `client.decisions.create` (sync and async) against the emulator over
real sockets, answered by the engine seam (zero-config and scripted)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "models/gemini-2.5-flash"
QUESTIONS: dict[str, Any] = {
    "refund": {"type": "noul", "instructions": "Should we refund?", "criteria": {"true_description": "refund"}},
    "topic": {
        "type": "choice",
        "instructions": [{"type": "text", "text": "What is it about?"}],
        "criteria": {"shipping": "delivery issues", "billing": "", "product": "quality"},
    },
    "anger": {"type": "score", "instructions": "How angry?", "criteria": ["calm", "annoyed", "furious"]},
}


def client_for(gemini: Gemini) -> genai.Client:
    return genai.Client(api_key=gemini.api_key, http_options=types.HttpOptions(base_url=gemini.url))


def test_zero_config_answers_are_calibrated_and_deterministic(gemini: Gemini) -> None:
    client = client_for(gemini)
    made = client.decisions.create(model=MODEL, input="My order arrived broken.", questions=QUESTIONS)
    again = client.decisions.create(model=MODEL, input="My order arrived broken.", questions=QUESTIONS)
    assert made.answers == again.answers  # the same request, the same answer
    answers = made.answers or {}
    refund, topic, anger = answers["refund"], answers["topic"], answers["anger"]
    assert refund.type == "noul" and 0.01 <= refund.noul <= 0.99  # type: ignore[union-attr]
    assert refund.confidence == max(refund.noul, round(1 - refund.noul, 4))  # type: ignore[union-attr]
    assert topic.type == "choice" and set(topic.probabilities) == {"shipping", "billing", "product"}  # type: ignore[union-attr]
    assert topic.probabilities[topic.choice] == topic.confidence == max(topic.probabilities.values())  # type: ignore[union-attr]
    assert abs(sum(topic.probabilities.values()) - 1) < 0.001  # type: ignore[union-attr]
    assert anger.type == "score" and anger.legend == {"0": "calm", "1": "annoyed", "2": "furious"}  # type: ignore[union-attr]
    expected = sum(int(level) * p for level, p in anger.probabilities.items())  # type: ignore[union-attr]
    assert abs(anger.score - expected) < 0.001  # type: ignore[union-attr]
    assert made.usage and made.usage.total_input_tokens


def test_a_script_entry_decides(gemini: Gemini) -> None:
    gemini.script({"text": json.dumps({"refund": 0.2, "topic": {"billing": 3, "product": 1}, "anger": {"2": 1}})})
    client = client_for(gemini)  # kept: a client that is collected closes its connections under the call
    made = client.decisions.create(model=MODEL, input="I was charged twice.", questions=QUESTIONS)
    answers = made.answers or {}
    assert answers["refund"].noul == 0.2 and answers["refund"].confidence == 0.8  # type: ignore[union-attr]
    assert answers["topic"].choice == "billing" and answers["topic"].probabilities["billing"] == 0.75  # type: ignore[union-attr]
    assert answers["anger"].score == 2.0 and answers["anger"].confidence == 1.0  # type: ignore[union-attr]
    (call,) = gemini.journal(rpc="decisions.create")
    assert call.body["questions"]["topic"]["type"] == "choice" and call.entry not in (None, "zero-config")


def test_an_engine_answer_that_is_no_json_is_uniform(gemini: Gemini) -> None:
    gemini.script({"text": "not json at all"})
    client = client_for(gemini)
    made = client.decisions.create(model=MODEL, input="x", questions=QUESTIONS)
    answers = made.answers or {}
    assert answers["refund"].noul == 0.5  # type: ignore[union-attr]
    assert set(answers["topic"].probabilities.values()) == {0.3333}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"model": MODEL, "input": "x", "questions": {}}, "at least one question"),
        ({"model": MODEL, "questions": QUESTIONS}, "input is required"),
        ({"input": "x", "questions": QUESTIONS}, "model is required"),
        ({"model": MODEL, "input": "x", "questions": {"q": {"type": "maybe", "instructions": "?"}}}, "type"),
        ({"model": MODEL, "input": "x", "questions": {"q": {"type": "noul"}}}, "instructions"),
        (
            {"model": MODEL, "input": "x", "questions": {"q": {"type": "choice", "instructions": "?", "criteria": {}}}},
            "between 2 and 255",
        ),
        (
            {"model": MODEL, "input": "x", "questions": {" q": {"type": "noul", "instructions": "?"}}},
            "Invalid question id",
        ),
    ],
)
def test_bad_decisions_are_400s(gemini: Gemini, body: dict[str, Any], said: str) -> None:
    answer = httpx.post(f"{gemini.url}/v1/decisions", json=body, headers={"x-goog-api-key": gemini.api_key})
    assert answer.status_code == 400 and said in answer.json()["error"]["message"], answer.text


def test_an_unknown_model_is_production_404(gemini: Gemini) -> None:
    answer = httpx.post(
        f"{gemini.url}/v1/decisions",
        json={"model": "models/no-such-model", "input": "x", "questions": QUESTIONS},
        headers={"x-goog-api-key": gemini.api_key},
    )
    assert answer.status_code == 404 and answer.json()["error"]["status"] == "NOT_FOUND"


def test_async_create(gemini: Gemini) -> None:
    client = client_for(gemini)

    async def run() -> Any:
        return await client.aio.decisions.create(model=MODEL, input="x", questions=QUESTIONS)

    assert set(asyncio.run(run()).answers or {}) == set(QUESTIONS)
