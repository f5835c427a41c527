"""Zero-config function calling (issue 4): calls built from the request's declarations under each calling
mode, arguments valid against `parameters` / `parametersJsonSchema`, answers that use function responses,
the SDK's automatic function calling, and ids, signatures and finish messages per model and backend."""

from __future__ import annotations

import re
from typing import Any

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini

from schema_check import errors_in

MODEL = "gemini-2.5-flash"
GEMINI_3 = "gemini-3-flash-preview"
FUNCTION_CALL_MESSAGE = "Model generated function call(s)."

WEATHER = types.FunctionDeclaration(
    name="get_weather",
    description="Current weather for a city",
    parameters=types.Schema(
        type="OBJECT",
        properties={
            "city": types.Schema(type="STRING"),
            "unit": types.Schema(type="STRING", enum=["celsius", "fahrenheit"]),
            "days": types.Schema(type="INTEGER", minimum=1, maximum=7),
        },
        required=["city"],
    ),
)
FLIGHT = types.FunctionDeclaration(
    name="book_flight",
    description="Reserve seats on an airline itinerary",
    parameters_json_schema={
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "origin": {"type": "string", "minLength": 3, "maxLength": 3},
            "destination": {"type": "string", "minLength": 3, "maxLength": 3},
            "date": {"type": "string", "format": "date"},
            "passengers": {
                "type": "array",
                "minItems": 1,
                "maxItems": 4,
                "items": {"$ref": "#/$defs/passenger"},
            },
            "cabin": {"enum": ["economy", "business"]},
            "seats": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
            "notes": {"type": ["string", "null"]},
        },
        "required": ["origin", "destination", "date", "passengers"],
        "additionalProperties": False,
        "$defs": {
            "passenger": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
                "required": ["name"],
                "additionalProperties": False,
            }
        },
    },
)
EMAIL = types.FunctionDeclaration(
    name="send_email",
    description="Deliver a message to a recipient",
    parameters=types.Schema(
        type="OBJECT",
        properties={"to": types.Schema(type="STRING", format="email"), "body": types.Schema(type="STRING")},
        required=["to", "body"],
    ),
)
TOOLS = [types.Tool(function_declarations=[WEATHER, FLIGHT, EMAIL])]


def _config(mode: str, allowed: list[str] | None = None, **extra: Any) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        tools=TOOLS,
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=mode, allowed_function_names=allowed)
        ),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        **extra,
    )


def _declared(gemini: Gemini, name: str) -> tuple[dict[str, Any], bool]:
    """The declaration's schema as it went over the wire (read back from the journal), and its dialect."""
    for tool in gemini.journal().last.body["tools"]:
        for decl in tool.get("functionDeclarations", []):
            if decl["name"] == name:
                for key in ("parametersJsonSchema", "parameters_json_schema"):  # the Python SDK sends snake_case
                    if key in decl:
                        return decl[key], True
                return decl["parameters"], False
    raise AssertionError(f"{name} was not declared")


def _assert_valid_args(gemini: Gemini, call: types.FunctionCall) -> None:
    schema, json_schema = _declared(gemini, call.name)
    assert errors_in(call.args, schema, json_schema) == [], call.args


# --- calling modes ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["ANY", "VALIDATED"])
@pytest.mark.parametrize("allowed", ["get_weather", "book_flight", "send_email"])
def test_forced_modes_call_the_allowed_function_with_valid_args(gemini_shared: Gemini, mode: str, allowed: str) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="Tell me a joke", config=_config(mode, [allowed])
    )
    (call,) = response.function_calls
    assert call.name == allowed  # even though the prompt asks for none of them
    _assert_valid_args(gemini_shared, call)
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.text is None


def test_any_without_allowed_names_calls_the_best_match(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="Please send an email to my landlord", config=_config("ANY")
    )
    assert [c.name for c in response.function_calls] == ["send_email"]
    _assert_valid_args(gemini_shared, response.function_calls[0])


def test_auto_calls_when_the_prompt_names_the_function(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="What's the weather in Paris?", config=_config("AUTO")
    )
    (call,) = response.function_calls
    assert call.name == "get_weather"
    assert call.args["city"] == "Paris"  # arguments prefer what the user mentioned
    _assert_valid_args(gemini_shared, call)


def test_auto_calls_on_distinctive_description_words(gemini_shared: Gemini) -> None:
    """No word of `book_flight` is in the prompt, but "reserve" and "airline" from its description are."""
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="Could you reserve something with an airline for me?", config=_config("AUTO")
    )
    assert [c.name for c in response.function_calls] == ["book_flight"]
    _assert_valid_args(gemini_shared, response.function_calls[0])


def test_auto_answers_text_when_nothing_matches(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="Tell me a joke about cats", config=_config("AUTO")
    )
    assert response.function_calls is None
    assert response.text


def test_auto_is_the_default_mode(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS, automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    models = gemini_shared.client.models
    assert models.generate_content(model=MODEL, contents="Weather in Oslo?", config=config).function_calls
    assert models.generate_content(model=MODEL, contents="Hi there", config=config).function_calls is None


def test_auto_call_respects_allowed_names(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="What's the weather in Paris?", config=_config("AUTO", ["send_email"])
    )
    assert response.function_calls is None  # the matching function is not allowed, the allowed one not asked for


def test_none_answers_text_even_when_asked(gemini_shared: Gemini) -> None:
    response = gemini_shared.client.models.generate_content(
        model=MODEL, contents="What's the weather in Paris?", config=_config("NONE")
    )
    assert response.function_calls is None
    assert response.text


def test_streamed_call(gemini_shared: Gemini) -> None:
    chunks = list(
        gemini_shared.client.models.generate_content_stream(
            model=MODEL, contents="What's the weather in Kyoto?", config=_config("AUTO")
        )
    )
    calls = [call for chunk in chunks for call in chunk.function_calls or []]
    assert [(c.name, c.args["city"]) for c in calls] == [("get_weather", "Kyoto")]
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_same_request_same_call(gemini_shared: Gemini) -> None:
    ask = gemini_shared.client.models.generate_content
    first = ask(model=MODEL, contents="Book me a flight", config=_config("ANY", ["book_flight"]))
    again = ask(model=MODEL, contents="Book me a flight", config=_config("ANY", ["book_flight"]))
    assert first.function_calls[0].args == again.function_calls[0].args


# --- function responses -----------------------------------------------------------------------------------


def test_a_function_response_gets_a_text_answer_that_uses_it(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    contents: list[types.Content] = [types.Content(role="user", parts=[types.Part(text="Weather in Lima?")])]
    first = client.models.generate_content(model=MODEL, contents=contents, config=_config("AUTO"))
    call = first.function_calls[0]
    reply = types.Part.from_function_response(name=call.name, response={"temp_c": 17, "sky": "overcast"})
    contents += [first.candidates[0].content, types.Content(role="user", parts=[reply])]

    answer = client.models.generate_content(model=MODEL, contents=contents, config=_config("AUTO"))
    assert answer.function_calls is None
    assert "17" in answer.text and "overcast" in answer.text


def test_automatic_function_calling_round_trip(gemini_shared: Gemini) -> None:
    seen: list[str] = []

    def get_exchange_rate(currency: str) -> dict[str, Any]:
        """Exchange rate of a currency against the euro."""
        seen.append(currency)
        return {"currency": currency, "rate": 1.0842}

    response = gemini_shared.client.models.generate_content(
        model=MODEL,
        contents="What is the exchange rate of the Dollar?",
        config=types.GenerateContentConfig(tools=[get_exchange_rate]),
    )
    assert seen == ["Dollar"]  # the SDK called our function with the synthesized arguments
    assert "1.0842" in response.text
    history = response.automatic_function_calling_history
    assert [p.function_call.name for c in history for p in c.parts if p.function_call] == ["get_exchange_rate"]


def test_automatic_function_calling_in_a_chat_on_gemini_3(gemini_shared: Gemini) -> None:
    """The chat replays the call with its id and signature; Gemini 3 would refuse it without the signature."""
    calls: list[str] = []

    def get_stock_price(ticker: str) -> int:
        """Latest stock price for a ticker symbol."""
        calls.append(ticker)
        return 321

    chat = gemini_shared.client.chats.create(
        model=GEMINI_3, config=types.GenerateContentConfig(tools=[get_stock_price])
    )
    first = chat.send_message("What's the stock price of Alphabet?")
    assert calls == ["Alphabet"] and "321" in first.text
    model_turn = chat.get_history()[1]
    assert model_turn.parts[0].function_call.id and model_turn.parts[0].thought_signature
    second = chat.send_message("And what's the stock price of Globex?")
    assert calls == ["Alphabet", "Globex"] and "321" in second.text


# --- ids, signatures, finish messages per model and backend ---------------------------------------------------


@pytest.fixture
def vertex(gemini_shared: Gemini) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=gemini_shared.api_key),
        http_options=types.HttpOptions(base_url=gemini_shared.url),
    )


@pytest.mark.parametrize(
    ("model", "backend", "has_id"),
    [(GEMINI_3, "developer", True), (MODEL, "developer", False), (GEMINI_3, "vertex", False), (MODEL, "vertex", False)],
)
def test_call_ids_and_signatures(
    gemini_shared: Gemini, vertex: genai.Client, model: str, backend: str, has_id: bool
) -> None:
    client = gemini_shared.client if backend == "developer" else vertex
    response = client.models.generate_content(
        model=model, contents="What's the weather in Paris?", config=_config("ANY", ["get_weather"])
    )
    part = response.candidates[0].content.parts[0]
    assert part.function_call.name == "get_weather"
    if has_id:
        assert re.fullmatch(r"[a-z0-9]{8}", part.function_call.id)
    else:
        assert part.function_call.id is None
    assert part.thought_signature  # every catalogue model thinks: the call carries its signature


@pytest.mark.parametrize("backend", ["developer", "vertex"])
@pytest.mark.parametrize("model", [GEMINI_3, MODEL])
def test_finish_message_on_unary_call_turns(gemini_shared: Gemini, model: str, backend: str) -> None:
    """Read from the wire: google-genai drops finishMessage on the Developer API. 2026 traces carry it on
    unary function-call turns of every model; Vertex never sends it for a call (VCR recordings: 0 of 60)."""
    if backend == "developer":
        path, auth = f"/v1beta/models/{model}", {"x-goog-api-key": gemini_shared.api_key}
    else:
        path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{model}"
        auth = {"authorization": f"Bearer {gemini_shared.api_key}"}
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
        "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    candidate = httpx.post(gemini_shared.url + path + ":generateContent", json=body, headers=auth).json()
    candidate = candidate["candidates"][0]
    assert candidate["content"]["parts"][0]["functionCall"]["args"] == {}  # no parameters: no arguments
    assert candidate.get("finishMessage") == (FUNCTION_CALL_MESSAGE if backend == "developer" else None)
