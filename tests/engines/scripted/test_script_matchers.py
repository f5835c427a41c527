"""Which entry answers which request: every matcher, precedence, the shared namespace, strict mode and
per-key namespaces, through google-genai on real sockets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.app import create_app
from gemini_emulator.config import Settings
from gemini_emulator.seam import EntryError, GenerateRequest
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator, start


@pytest.fixture
def gemini(gemini_fresh: Gemini) -> Gemini:
    """These tests read or write beyond their own namespace (other keys, the shared script, every namespace):
    each gets an emulator of its own."""
    return gemini_fresh


MODEL = "gemini-2.5-flash"
PRO = "gemini-2.5-pro"
HIT = "scripted answer"


def ask(client: genai.Client, contents: object = "hello", model: str = MODEL, **config: object) -> str:
    cfg = types.GenerateContentConfig(**config) if config else None
    return client.models.generate_content(model=model, contents=contents, config=cfg).text


def ask_stream(client: genai.Client, contents: object = "hello", model: str = MODEL) -> str:
    return "".join(c.text or "" for c in client.models.generate_content_stream(model=model, contents=contents))


def sdk(url: str, key: str, **options: object) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url, **options))


def remaining(gemini: Gemini) -> list[str]:
    return [e["name"] for e in gemini.pending()]


# --- each matcher ----------------------------------------------------------------------------------


def test_text_is_a_case_insensitive_substring_of_the_last_user_text(gemini_shared: Gemini) -> None:
    gemini_shared.script({"name": "w", "match": {"text": "WEATHER"}, "text": HIT})
    client = gemini_shared.client
    history = [
        types.Content(role="user", parts=[types.Part(text="What's the weather?")]),
        types.Content(role="model", parts=[types.Part(text="Where?")]),
        types.Content(role="user", parts=[types.Part(text="In Paris")]),
    ]
    assert ask(client, history) != HIT  # only the last user turn counts
    assert ask(client, "Tell me a joke") != HIT
    assert remaining(gemini_shared) == ["w"]
    assert ask(client, "How is the Weather in Oslo?") == HIT
    assert remaining(gemini_shared) == []
    assert gemini_shared.journal().entries == ["zero-config", "zero-config", "w"]


def test_text_regex_is_a_case_sensitive_search(gemini_shared: Gemini) -> None:
    gemini_shared.script({"match": {"textRegex": r"order #\d{3}\b"}, "text": HIT})
    client = gemini_shared.client
    assert ask(client, "Where is Order #123?") != HIT
    assert ask(client, "where is order #12?") != HIT
    assert ask(client, "where is order #123 now?") == HIT


def test_system_and_system_regex(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "pirate", "match": {"system": "PIRATE"}, "text": "Arr"},
        {"name": "formal", "match": {"systemRegex": r"^Answer in (French|German)\.$"}, "text": "Bien"},
    )
    client = gemini_shared.client
    assert ask(client, "hi") not in ("Arr", "Bien")  # no system instruction at all
    assert ask(client, "hi", system_instruction="You are a helpful assistant.") not in ("Arr", "Bien")
    assert ask(client, "hi", system_instruction="Answer in french.") != "Bien"  # the regex is case-sensitive
    assert ask(client, "hi", system_instruction="You are a pirate captain.") == "Arr"
    assert ask(client, "hi", system_instruction="Answer in French.") == "Bien"


def test_request_and_request_regex_search_the_request_json(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "temp", "match": {"request": '"temperature":0.25'}, "text": "cool"},
        {"name": "max", "match": {"requestRegex": r'"maxOutputTokens":\s*7\b'}, "text": "short"},
    )
    client = gemini_shared.client
    assert ask(client, "temperature 0.25", temperature=0.5, max_output_tokens=70) not in ("cool", "short")
    assert ask(client, "x", temperature=0.25) == "cool"
    assert ask(client, "x", max_output_tokens=7) == "short"


def test_model_matches_the_requested_or_resolved_name(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "pro", "match": {"model": PRO}, "text": "from pro"},
        {"name": "prefixed", "match": {"model": f"models/{PRO}"}, "text": "prefixed pro"},
        {"name": "alias", "match": {"model": "gemini-flash-latest"}, "text": "by alias"},
        {"name": "resolved", "match": {"model": "gemini-3.8-flash"}, "text": "by resolved id"},
    )
    client = gemini_shared.client
    assert ask(client, model=MODEL) not in ("from pro", "prefixed pro", "by alias", "by resolved id")
    assert ask(client, model=PRO) == "from pro"
    assert ask(client, model=PRO) == "prefixed pro"
    assert ask(client, model="gemini-flash-latest") == "by alias"
    assert ask(client, model="gemini-flash-latest") == "by resolved id"  # the alias resolves to it
    assert remaining(gemini_shared) == []


def test_method_tells_unary_from_streamed(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "s", "match": {"method": "streamGenerateContent"}, "text": "streamed"},
        {"name": "u", "match": {"method": "generateContent"}, "text": "unary"},
    )
    client = gemini_shared.client
    assert ask(client) == "unary"
    assert ask(client) != "streamed"
    assert ask_stream(client) == "streamed"


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "sunny"


WEATHER_TOOL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="Current weather in a city.",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}),
        )
    ]
)


def test_has_tools(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "tools", "match": {"hasTools": True}, "text": "with tools"},
        {"name": "bare", "match": {"hasTools": False}, "text": "without tools"},
    )
    client = gemini_shared.client
    assert ask(client, "x", tools=[WEATHER_TOOL]) == "with tools"
    assert ask(client, "x", tools=[WEATHER_TOOL]) != "without tools"
    assert ask(client, "x") == "without tools"


def test_has_function_response_drives_a_tool_loop(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "answer", "match": {"hasFunctionResponse": True}, "text": "It is sunny in Paris."},
        {
            "name": "call",
            "match": {"hasTools": True},
            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
        },
    )
    # google-genai's automatic function calling: call -> our function -> function response -> answer.
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="Weather in Paris?", config=types.GenerateContentConfig(tools=[get_weather])
    )
    assert response.text == "It is sunny in Paris."
    calls = gemini_shared.journal()
    assert calls.entries == ["call", "answer"]
    assert calls.last.function_responses[0]["name"] == "get_weather"


def test_has_function_response_false_and_its_reason(gemini_shared: Gemini) -> None:
    gemini_shared.script({"name": "fresh", "match": {"hasFunctionResponse": False}, "text": HIT})
    gemini_shared.strict()
    contents = [
        types.Content(role="user", parts=[types.Part(text="Weather?")]),
        types.Content(role="model", parts=[types.Part.from_function_call(name="get_weather", args={"city": "Oslo"})]),
        types.Content(role="user", parts=[types.Part.from_function_response(name="get_weather", response={"t": 3})]),
    ]
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(gemini_shared.client, contents)
    assert "'fresh': last turn is a function response" in caught.value.message
    assert ask(gemini_shared.client, "Weather?") == HIT


def test_turn_counts_earlier_model_turns(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "second", "match": {"turn": 1}, "text": "second answer"},
        {"name": "first", "match": {"turn": 0}, "text": "first answer"},
    )
    chat = gemini_shared.client.chats.create(model=MODEL)
    assert chat.send_message("one").text == "first answer"
    assert chat.send_message("two").text == "second answer"
    assert gemini_shared.journal().entries == ["first", "second"]


def test_a_combination_needs_every_condition(gemini_shared: Gemini) -> None:
    gemini_shared.script(
        {"name": "combo", "match": {"text": "weather", "model": PRO, "method": "generateContent"}, "text": HIT}
    )
    client = gemini_shared.client
    assert ask(client, "weather?", model=MODEL) != HIT  # wrong model
    assert ask(client, "news?", model=PRO) != HIT  # wrong text
    assert ask_stream(client, "weather?", model=PRO) != HIT  # wrong method
    assert remaining(gemini_shared) == ["combo"]
    assert ask(client, "weather?", model=PRO) == HIT


def test_python_predicate_via_the_gemini_fixture(gemini: Gemini) -> None:
    seen: list[GenerateRequest] = []

    def cold(request: GenerateRequest) -> bool:
        seen.append(request)
        return request.generation_config.get("temperature") == 0.0

    gemini.script({"name": "cold", "text": "deterministic"}, predicate=cold)
    gemini.script({"name": "cold-pro", "match": {"model": PRO}, "text": "cold pro"}, predicate=cold)
    assert ask(gemini.client, "x", temperature=0.9) != "deterministic"
    assert seen and seen[0].last_user_text() == "x"
    assert ask(gemini.client, "x", model=PRO, temperature=0.9) != "cold pro"
    assert ask(gemini.client, "x", temperature=0.0) == "deterministic"
    assert ask(gemini.client, "x", model=MODEL, temperature=0.0) != "cold pro"  # predicate holds, model does not
    assert ask(gemini.client, "x", model=PRO, temperature=0.0) == "cold pro"
    assert gemini.pending() == []


def test_predicate_failure_is_named_in_strict_mode(gemini: Gemini) -> None:
    gemini.script({"name": "never", "text": HIT}, predicate=lambda request: False)
    gemini.strict()
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(gemini.client)
    assert "'never': predicate returned false" in caught.value.message


# --- precedence ------------------------------------------------------------------------------------


def test_a_matching_entry_beats_the_queue_even_when_added_later(gemini_shared: Gemini) -> None:
    gemini_shared.script({"name": "p1", "text": "plain 1"}, {"name": "p2", "text": "plain 2"})
    gemini_shared.script({"name": "urgent", "match": {"text": "urgent"}, "text": "matched"})
    client = gemini_shared.client
    assert ask(client, "urgent!") == "matched"
    assert ask(client, "other") == "plain 1"
    assert ask(client, "urgent again") == "plain 2"  # the matcher was spent: back to the queue
    assert gemini_shared.journal().entries == ["urgent", "p1", "p2"]


def test_fifo_among_plain_entries_and_oldest_first_among_matching_ones(gemini_shared: Gemini) -> None:
    gemini_shared.script({"text": "A"}, {"text": "B"})
    gemini_shared.script({"text": "C"})
    gemini_shared.script({"match": {"text": "x"}, "text": "M1"}, {"match": {"text": "x"}, "text": "M2"})
    client = gemini_shared.client
    assert [ask(client, "x"), ask(client, "x")] == ["M1", "M2"]
    assert [ask(client, "x") for _ in range(3)] == ["A", "B", "C"]
    assert gemini_shared.pending() == []
    assert gemini_shared.journal().entries == ["entry-3", "entry-4", "entry-0", "entry-1", "entry-2"]


def test_own_namespace_before_the_shared_one(gemini: Gemini) -> None:
    shared = AdminClient(gemini.url)  # no credential: the shared namespace "*"
    shared.script(
        {"name": "shared-weather", "match": {"text": "weather"}, "text": "shared weather", "times": "forever"},
        {"name": "shared-plain", "text": "shared plain", "times": "forever"},
    )
    gemini.script({"name": "own-weather", "match": {"text": "weather"}, "text": "own weather"})
    client = gemini.client
    assert ask(client, "weather?") == "own weather"
    assert ask(client, "weather?") == "shared weather"  # own entry spent; own namespace empty
    gemini.script({"name": "own-news", "match": {"text": "news"}, "text": "own news"})
    assert ask(client, "weather?") == "shared weather"  # own entries do not match: the shared ones are next
    gemini.script({"name": "own-plain", "text": "own plain"})
    assert ask(client, "weather?") == "own plain"  # any own answer beats the shared namespace
    assert ask(sdk(gemini.url, "someone-else"), "hello") == "shared plain"
    assert [e["name"] for e in shared.pending()] == ["shared-weather", "shared-plain"]
    assert gemini.journal().entries == ["own-weather", "shared-weather", "shared-weather", "own-plain"]


def test_script_file_loads_into_the_shared_namespace(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    entries = [
        {"name": "greet", "match": {"text": "hello"}, "text": "Hi from the file", "times": "forever"},
        {"name": "once", "text": "plain from the file"},
    ]
    path.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    running = start(Settings(port=0, script=str(path)))
    try:
        one, two = sdk(running.url, "key-one"), sdk(running.url, "key-two")
        assert ask(one, "hello there") == "Hi from the file"
        assert ask(two, "Hello again") == "Hi from the file"
        assert ask(two, "something else") == "plain from the file"
        assert ask(one, "something else") != "plain from the file"
        listing = AdminClient(running.url).pending()
        assert [(e["name"], e["served"], e["remaining"]) for e in listing] == [("greet", 2, "forever")]
        assert AdminClient(running.url, api_key="key-one").pending() == []
    finally:
        running.stop()


@pytest.mark.parametrize(
    ("script", "named"),
    [
        ([{"text": "ok"}, {"text": "bad", "match": {"textRegex": "("}}], "entry 1: match.textRegex"),
        ([{"text": "ok"}, {"text": "ok"}, {"text": "x", "finishReason": "DONE"}], "entry 2: finishReason"),
        ({"entries": [{"text": "x", "colour": "red"}]}, "entry 0: colour"),
        ({"functionCall": {"args": {}}}, "functionCall"),
    ],
)
def test_invalid_script_file_fails_app_creation(tmp_path: Path, script: object, named: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        create_app(Settings(script=str(path)))
    assert isinstance(caught.value, EntryError)
    assert str(caught.value).startswith(named)


def test_script_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.json: not valid JSON"):
        create_app(Settings(script=str(path)))


def test_yaml_script_file_needs_pyyaml(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text("- name: greet\n  text: Hi from YAML\n", encoding="utf-8")
    try:
        import yaml  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match=r"script\.yaml: YAML scripts need PyYAML"):
            create_app(Settings(script=str(path)))
        return
    app = create_app(Settings(script=str(path)))
    assert [e["name"] for e in app.state.store.pending("*")] == ["greet"]


# --- strict mode -----------------------------------------------------------------------------------


@pytest.fixture
def strict_server() -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, strict=True))
    yield running
    running.stop()


def test_server_wide_strict_mode(strict_server: RunningEmulator) -> None:
    client = sdk(strict_server.url, "strict-key")
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(client)
    assert (caught.value.code, caught.value.status) == (400, "FAILED_PRECONDITION")
    assert caught.value.message == (
        "gemini-emulator strict mode: no script entry matched this request, and none is pending."
    )
    admin = AdminClient(strict_server.url, api_key="strict-key")
    admin.script({"name": "w", "match": {"text": "weather"}, "text": "sunny"})
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(client, "What is the news?")
    assert caught.value.message == (
        "gemini-emulator strict mode: no script entry matched this request. "
        "Nearest: 'w': last user text does not contain 'weather'."
    )
    with pytest.raises(genai_errors.ClientError) as caught:  # streamed: an HTTP error before the stream
        ask_stream(client, "What is the news?")
    assert caught.value.status == "FAILED_PRECONDITION"
    assert ask(client, "weather today?") == "sunny"
    admin.strict(False)  # a namespace can opt out of the server's strict mode
    assert ask(client, "anything")  # the zero-config answer
    calls = admin.journal()
    assert calls.statuses == [400, 400, 400, 200, 200]
    assert calls.entries[-2:] == ["w", "zero-config"]
    admin.strict(None)  # back to the server's setting
    with pytest.raises(genai_errors.ClientError):
        ask(client, "anything")


def test_per_namespace_strict_mode(gemini_shared: Gemini) -> None:
    gemini_shared.strict()
    gemini_shared.script(
        {"name": "m", "match": {"model": PRO, "method": "streamGenerateContent"}, "text": "x"},
        {"name": "w", "match": {"text": "weather"}, "text": "sunny"},
        {"name": "t", "match": {"hasTools": True, "turn": 2, "system": "pirate"}, "text": "x"},
        {"name": "r", "match": {"textRegex": "^zzz$", "request": "nothing-like-this"}, "text": "x"},
    )
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(gemini_shared.client, "hello")
    message = caught.value.message
    assert (caught.value.code, caught.value.status) == (400, "FAILED_PRECONDITION")
    # the three nearest, fewest failed conditions first
    assert message == (
        "gemini-emulator strict mode: no script entry matched this request. Nearest: "
        "'w': last user text does not contain 'weather'; "
        "'m': model is gemini-2.5-flash, not gemini-2.5-pro, method is generateContent, not streamGenerateContent; "
        "'r': last user text does not match /^zzz$/, request JSON does not contain 'nothing-like-this'."
    )
    other_key = gemini_shared.api_key + "-other"
    assert ask(sdk(gemini_shared.url, other_key), "hello")  # another namespace on the same server is not strict
    AdminClient(gemini_shared.url, api_key=other_key).reset()
    gemini_shared.strict(None)
    assert ask(gemini_shared.client, "hello")  # the session server is not strict


def test_strict_reasons_for_tools_turn_and_system(gemini_shared: Gemini) -> None:
    gemini_shared.strict()
    gemini_shared.script(
        {"name": "t", "match": {"hasTools": True, "turn": 2, "system": "pirate", "systemRegex": "^Arr"}, "text": "x"}
    )
    with pytest.raises(genai_errors.ClientError) as caught:
        ask(gemini_shared.client, "hello", system_instruction="Be polite.")
    assert caught.value.message.endswith(
        "Nearest: 't': system instruction does not contain 'pirate', system instruction does not match /^Arr/, "
        "request has no tools, turn is 0, not 2."
    )


# --- namespaces ------------------------------------------------------------------------------------


def test_two_keys_do_not_see_each_others_entries(gemini_shared: Gemini) -> None:
    other_key = gemini_shared.api_key + "-b"
    other = sdk(gemini_shared.url, other_key)
    gemini_shared.script({"text": "for A only"})
    other_admin = AdminClient(gemini_shared.url, api_key=other_key)
    other_admin.script({"text": "for B only"})
    assert [e["entry"]["text"] for e in gemini_shared.pending()] == ["for A only"]
    assert ask(gemini_shared.client) == "for A only"
    assert ask(gemini_shared.client) not in ("for A only", "for B only")
    assert ask(other) == "for B only"
    assert len(gemini_shared.journal()) == 2 and len(other_admin.journal()) == 1
    other_admin.reset()


def test_namespace_header_shares_a_namespace_between_keys(gemini_shared: Gemini) -> None:
    name = "team-" + gemini_shared.api_key
    header = {"x-emulator-namespace": name}
    first = sdk(gemini_shared.url, "key-one", headers=header)
    second = sdk(gemini_shared.url, "key-two", headers=header)
    admin = AdminClient(gemini_shared.url, namespace=name)
    try:
        admin.script({"text": "t1"}, {"text": "t2"}, {"text": "t3"})
        assert ask(first) == "t1"
        assert ask(second) == "t2"
        assert ask(sdk(gemini_shared.url, "key-one")) != "t3"  # the key alone names another namespace
        listing = httpx.get(f"{gemini_shared.url}/__emulator/script", headers={"x-emulator-namespace": name}).json()
        assert listing["namespace"] == name and [e["entry"]["text"] for e in listing["entries"]] == ["t3"]
        assert {c.record["namespace"] for c in admin.journal()} == {name}
    finally:
        admin.reset()
