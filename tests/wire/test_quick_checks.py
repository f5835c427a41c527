"""The request side's shortcuts for the usual request, pinned to the general path they stand in for.

`validate.check_fields` first tries a quick test (`validate._clean`) and hands a body that passes back as it is;
`validate.walked` is the full walk. For thousands of bodies, the sample requests and seeded mutations of them
(wrong types, snake_case and unknown names, lists for objects, nulls, enums in any case, nesting past the limit),
both must agree: the same normalised body (the very object when the walk hands the body back), or the same 400.
And a request whose parts are all plain text (`validate.contents_checked`) skips the rules that look into parts:
on such bodies they must find nothing.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, VERTEX
from gemini_emulator.wire import model_rules, schema_rules, tool_rules, validate

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    },
}
PERSON_SCHEMA = {
    "type": "OBJECT",
    "properties": {"name": {"type": "STRING"}, "tags": {"type": "ARRAY", "items": {"type": "STRING"}}},
    "required": ["name"],
    "propertyOrdering": ["name", "tags"],
}
SAMPLES: list[dict[str, Any]] = [
    {"contents": [{"role": "user", "parts": [{"text": "Is it sunny in Paris?"}]}]},
    {"contents": [{"parts": [{"text": "Hi"}]}], "systemInstruction": {"parts": [{"text": "Be terse."}]}},
    {
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 21}}}]},
        ],
        "tools": [{"functionDeclarations": [WEATHER]}, {"googleSearch": {}}, {"codeExecution": {}}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
    },
    {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "What is this?"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                    {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "videoMetadata": {"fps": 1}},
                ],
            }
        ],
        "generationConfig": {
            "temperature": 0.2,
            "topP": 1,
            "topK": 3,
            "maxOutputTokens": 200,
            "candidateCount": 2,
            "seed": -5,
            "stopSequences": ["STOP", "END"],
            "responseMimeType": "application/json",
            "responseSchema": PERSON_SCHEMA,
            "responseModalities": ["TEXT", "image"],
            "mediaResolution": "MEDIA_RESOLUTION_LOW",
            "thinkingConfig": {"thinkingBudget": 64, "includeThoughts": True, "thinkingLevel": "low"},
            "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Kore"}}},
        },
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "labels": {"team_name": "core"},
        "cachedContent": "cachedContents/abc",
    },
    {
        "contents": [{"role": "user", "parts": [{"text": "json"}]}],
        "generationConfig": {"responseJsonSchema": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "f", "parametersJsonSchema": {"type": "object"}, "behavior": 1},
                    {"name": "g", "parameters": {"type": 6, "properties": {}}},
                ]
            }
        ],
    },
]
# Values a mutation puts in a field's place: every JSON type, and the edges of the scalar checks.
VALUES: list[Any] = [
    None,
    0,
    -1,
    2**31,
    2**63,
    -(2**31) - 1,
    1.5,
    3.0,
    float("inf"),
    True,
    False,
    "",
    "x",
    "12",
    " 12 ",
    "1e3",
    "NaN",
    "OBJECT",
    "object",
    "Object ",
    "TEXT",
    [],
    [1],
    ["a"],
    [None],
    [{}],
    [[]],
    {},
    {"a": 1},
    {"text": "t"},
    {"parts": []},
    {"type": "STRING"},
]
NAMES = ["bogus", "max_output_tokens", "function_declarations", "inline_data", "mime_type", "text", "type"]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in `value` (dict keys and list indexes), outermost first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield (*path, i)
            yield from _paths(item, (*path, i))


def _mutated(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of `body` with one to three places changed: a value replaced or wrapped in a list, a key renamed
    (snake_case or unknown), a key added."""
    out = copy.deepcopy(body)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(list(_paths(out)))
        parent: Any = out
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        choice = rng.random()
        if choice < 0.55:
            parent[last] = copy.deepcopy(rng.choice(VALUES))
        elif choice < 0.7:
            parent[last] = [parent[last]]
        elif isinstance(parent, dict) and choice < 0.85:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in last)
            parent[snake if snake != last else rng.choice(NAMES)] = parent.pop(last)
        elif isinstance(parent, dict):
            parent[rng.choice(NAMES)] = copy.deepcopy(rng.choice(VALUES))
    return out


def _outcome(check: Any, body: dict[str, Any], backend: str) -> tuple[str, Any]:
    try:
        return "ok", check(body, "GenerateContentRequest", backend, "v1beta")
    except errors.ApiError as error:
        return "error", (error.code, error.envelope())


def _deep(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "STRING"}
    for _ in range(levels):
        schema = {"type": "ARRAY", "items": schema}
    return {"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"responseSchema": schema}}


def _replaced(body: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = copy.deepcopy(value)
    return out


def _renamed(body: dict[str, Any], path: tuple[Any, ...], name: str) -> dict[str, Any]:
    out = copy.deepcopy(body)
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    parent[name] = parent.pop(path[-1])
    return out


def _bodies() -> Iterator[dict[str, Any]]:
    """The samples; each with every place's value replaced by each of VALUES, and wrapped in a list; then
    seeded random mutations of one to three places."""
    yield from SAMPLES
    yield from (_deep(n) for n in (60, 62, 63, 64, 70))
    for body in SAMPLES:
        for path in _paths(body):
            for value in VALUES:
                yield _replaced(body, path, value)
            yield _replaced(body, path, [_replaced(body, path, None)])
            if isinstance(path[-1], str):  # the name in snake_case, or unknown
                for name in ("".join("_" + c.lower() if c.isupper() else c for c in path[-1]), "bogus"):
                    yield _renamed(body, path, name)
    rng = random.Random(19)
    for _ in range(3000):
        yield _mutated(rng.choice(SAMPLES), rng)


@pytest.mark.parametrize("backend", [DEVELOPER, VERTEX])
def test_the_quick_test_agrees_with_the_full_walk(backend: str) -> None:
    passed = 0
    for body in _bodies():
        twin = copy.deepcopy(body)
        full = _outcome(validate.walked, twin, backend)
        quick = _outcome(validate.check_fields, body, backend)
        assert quick == full, body
        assert body == twin  # the body left as the walk leaves it
        if quick[0] == "ok" and quick[1] is body:
            passed += 1
        if validate._clean(body, validate.schema().clean["GenerateContentRequest"], 0):
            walked = validate.walked(body, "GenerateContentRequest", backend, "v1beta")
            assert walked is body, body  # what the quick test passes, the walk hands back untouched
    assert passed > 1000  # the quick test is exercised, not only the walk


def test_the_usual_requests_pass_the_quick_test() -> None:
    """The shortcut is taken for the usual shapes: text prompts, system instructions, tools, configs."""
    table = validate.schema().clean["GenerateContentRequest"]
    assert all(validate._clean(body, table, 0) for body in SAMPLES)


def _rule_outcome(rule: Any, *args: Any) -> Any:
    try:
        rule(*args)
        return None
    except errors.ApiError as error:
        return error.code, error.envelope()


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gemini-3-flash-preview", "gemini-3-pro-preview"])
def test_the_rules_a_text_only_request_skips_find_nothing_in_it(model: str) -> None:
    """validate.contents_checked says when every part is plain text; the rules told so skip their look at the
    parts (function response pairing, thought signatures, file uris), which must then find nothing."""
    text_only_seen = contents_alone = 0
    for body in _bodies():
        try:
            body = validate.check_fields(body, "GenerateContentRequest", DEVELOPER, "v1beta")
            contents, text_only = validate.contents_checked(body.get("contents"))
        except errors.ApiError:
            continue
        assert contents is body["contents"]
        if not text_only:
            continue
        text_only_seen += 1
        parts = [p for c in contents for p in c["parts"]]
        assert not any({"fileData", "functionCall", "functionResponse"} & p.keys() for p in parts)
        assert _rule_outcome(tool_rules.check, body, True) == _rule_outcome(tool_rules.check, body, False)
        for backend in (DEVELOPER, VERTEX):
            skipped = _rule_outcome(model_rules.check, model, True, body, backend, True)
            assert skipped == _rule_outcome(model_rules.check, model, True, body, backend, False)
            if len(body) == 1:  # plain text contents alone: prepare_generation asks no rule at all
                assert skipped is None
                assert _rule_outcome(tool_rules.check, body, False) is None
                assert _rule_outcome(schema_rules.check, body) is None
                contents_alone += 1
    assert text_only_seen > 300 and contents_alone > 10


def test_a_part_that_is_not_plain_text_is_seen() -> None:
    for part in (
        {"functionCall": {"name": "f"}},
        {"functionResponse": {"name": "f", "response": {}}},
        {"fileData": {"fileUri": "files/x"}},
        {"inlineData": {"mimeType": "image/png", "data": ""}},
        {"text": "t", "videoMetadata": {}},
        "text",
    ):
        contents = [{"role": "user", "parts": [{"text": "a"}]}, {"role": "model", "parts": [{"text": "b"}, part]}]
        assert validate.contents_checked(contents) == (contents, False)
    plain = [{"role": "model", "parts": [{"text": "b", "thought": True, "thoughtSignature": "c2ln"}]}]
    assert validate.contents_checked(plain) == (plain, True)
