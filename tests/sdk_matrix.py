"""The Python side of the cross-SDK matrix: what every SDK is asked (tests/sdk_matrix.json, shared with
tests/js/harness.mjs), what its zero-config answers must satisfy, and the journal checks that show what the SDK
really sent.

A matrix test is named `test_<call>[<SDK label>]` in a `tests/sdk/test_sdk_matrix_*.py` module (or
tests/sdk/test_py_extras.py): tools/gen_sdk_matrix.py reads the cells of docs/sdk-matrix.md from those names, the
`calls` into its first table and the `resource_calls` into its resources table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gemini_emulator.admin.client import Calls

SPEC: dict[str, Any] = json.loads((Path(__file__).parent / "sdk_matrix.json").read_text(encoding="utf-8"))
PENDING: dict[str, str] = SPEC["pending"]
MODEL: str = SPEC["model"]
EMBEDDING_MODEL: str = SPEC["embedding_model"]
MISSING_MODEL: str = SPEC["missing_model"]
PROMPTS: dict[str, Any] = SPEC["prompts"]
WEATHER_RESULT: dict[str, Any] = SPEC["weather_result"]


RESOURCE_CALLS: list[str] = SPEC["resource_calls"]


def cache_text() -> str:
    """The text every resource cell caches: over every model's minimum cached token count."""
    return str(PROMPTS["cache_text"]) * int(SPEC["cache_repeat"])


def skip_resource_pending(request: pytest.FixtureRequest) -> None:
    """As skip_pending, for a cell of the resources table (sdk_matrix.json's `resource_calls`)."""
    call = request.function.__name__.removeprefix("test_")
    assert call in RESOURCE_CALLS, f"{request.function.__name__} is not a resource matrix call"
    if call in PENDING:
        pytest.skip(PENDING[call])


def skip_pending(request: pytest.FixtureRequest) -> None:
    """Skip a matrix test whose call the emulator does not serve yet (sdk_matrix.json's `pending`)."""
    call = request.function.__name__.removeprefix("test_")
    assert call in SPEC["calls"], f"{request.function.__name__} is not a matrix call"
    if call in PENDING:
        pytest.skip(PENDING[call])


def assert_weather_args(args: dict[str, Any]) -> None:
    """Zero-config arguments of a forced get_weather call: valid against its declaration (one string, `city`)."""
    assert list(args) == ["city"] and isinstance(args["city"], str) and args["city"], args


def assert_uses_weather(text: str) -> None:
    """A zero-config answer to the function response reports the tool's result."""
    assert re.search(r"get_weather reports .*21.*clear", text), text


def assert_person(value: dict[str, Any]) -> None:
    """Zero-config structured output: valid against {name: string, age: integer}, both required."""
    assert sorted(value) == ["age", "name"], value
    assert isinstance(value["name"], str) and isinstance(value["age"], int), value


def assert_weather_round_trip(calls: Calls, sent: dict[str, Any]) -> None:
    """The call was forced with the one declared function, and the second request carried back the call the emulator
    made and the tool's result (`sent`: the functionResponse.response the SDK builds from WEATHER_RESULT)."""
    first, second = calls
    assert first.body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"
    declared = [f["name"] for tool in first.body["tools"] for f in tool.get("functionDeclarations", [])]
    assert declared == ["get_weather"]
    made = [p["functionCall"] for p in json.loads(first.record["response"])["candidates"][0]["content"]["parts"]]
    model_turn = second.contents[-2]
    assert model_turn["role"] == "model"
    echoed = [p["functionCall"] for p in model_turn["parts"] if "functionCall" in p]
    assert [(c["name"], c["args"]) for c in echoed] == [(c["name"], c["args"]) for c in made]
    assert [(r["name"], r["response"]) for r in second.function_responses] == [("get_weather", sent)]


def assert_chat_history(calls: Calls) -> None:
    """The second turn of a chat carried the whole history."""
    assert len(calls) == 2
    assert [c.get("role") for c in calls[1].contents] == ["user", "model", "user"]
    assert calls[1].contents[0]["parts"][0]["text"] == PROMPTS["chat"][0]
