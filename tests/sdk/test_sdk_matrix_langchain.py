"""The cross-SDK matrix for langchain-google-genai (Python; built on google-genai, pointed at the emulator with
`base_url`). Each test is one cell of docs/sdk-matrix.md (see tests/sdk_matrix.py)."""

from __future__ import annotations

import json

import pytest
from langchain_core.exceptions import ModelNotFoundError
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI, GoogleGenerativeAIEmbeddings
from pydantic import BaseModel

from gemini_emulator.testing.pytest_plugin import Gemini

from sdk_matrix import (
    EMBEDDING_MODEL,
    MISSING_MODEL,
    MODEL,
    PROMPTS,
    WEATHER_RESULT,
    assert_chat_history,
    assert_person,
    assert_uses_weather,
    assert_weather_args,
    assert_weather_round_trip,
    skip_pending,
)

LABEL = "langchain-google-genai (Python)"


@pytest.fixture(params=[LABEL], ids=[LABEL])
def lc(request: pytest.FixtureRequest, gemini_shared: Gemini) -> Gemini:
    """This test's namespace on the session's emulator (its key is the namespace)."""
    skip_pending(request)
    return gemini_shared


def chat_model(lc: Gemini, model: str = MODEL) -> ChatGoogleGenerativeAI:
    # max_retries=1 is one attempt: LangChain otherwise retries a failure six times
    return ChatGoogleGenerativeAI(model=model, google_api_key=lc.api_key, base_url=lc.url, max_retries=1)


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(WEATHER_RESULT)


class Person(BaseModel):
    name: str
    age: int


def test_text(lc: Gemini) -> None:
    answer = chat_model(lc).invoke(PROMPTS["text"])
    assert answer.text.startswith("Hello")
    assert answer.response_metadata["finish_reason"] == "STOP"
    assert answer.usage_metadata["input_tokens"] > 0
    assert lc.journal().last.record["path"] == f"/v1/models/{MODEL}:generateContent"


def test_stream(lc: Gemini) -> None:
    llm = chat_model(lc)
    texts = [chunk.text for chunk in llm.stream(PROMPTS["stream"])]
    assert len([t for t in texts if t]) > 1
    assert "".join(texts) == llm.invoke(PROMPTS["stream"]).text


def test_chat(lc: Gemini) -> None:
    llm = chat_model(lc)
    history = [HumanMessage(PROMPTS["chat"][0])]
    first = llm.invoke(history)
    second = llm.invoke([*history, first, HumanMessage(PROMPTS["chat"][1])])
    assert first.text.startswith("Hello")
    assert "1." in second.text and "3." in second.text
    assert_chat_history(lc.journal())


def test_function_call(lc: Gemini) -> None:
    llm = chat_model(lc)
    history = [HumanMessage(PROMPTS["weather"])]
    first = llm.bind_tools([get_weather], tool_choice="any").invoke(history)
    [call] = first.tool_calls
    assert call["name"] == "get_weather"
    assert_weather_args(call["args"])
    result = ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"], name=call["name"])
    second = llm.bind_tools([get_weather]).invoke([*history, first, result])
    assert_uses_weather(second.text)
    assert_weather_round_trip(lc.journal(), WEATHER_RESULT)  # the tool's JSON string, parsed back


def test_structured(lc: Gemini) -> None:
    person = chat_model(lc).with_structured_output(Person).invoke(PROMPTS["person"])
    assert isinstance(person, Person)
    assert_person(person.model_dump())
    generation_config = lc.journal().last.body["generationConfig"]
    assert generation_config["responseMimeType"] == "application/json"
    assert generation_config["responseJsonSchema"]["properties"]["age"]["type"] == "integer"


def test_count_tokens(lc: Gemini) -> None:
    llm = chat_model(lc)
    counted = llm.get_num_tokens(PROMPTS["count"])
    assert counted == llm.invoke(PROMPTS["count"]).usage_metadata["input_tokens"] > 0
    assert lc.journal()[0].rpc == "countTokens"


def test_embeddings(lc: Gemini) -> None:
    embedder = GoogleGenerativeAIEmbeddings(model=EMBEDDING_MODEL, google_api_key=lc.api_key, base_url=lc.url)
    assert len(embedder.embed_query(PROMPTS["embed"][0])) > 0
    assert len(embedder.embed_documents(PROMPTS["embed"])) == len(PROMPTS["embed"])


def test_bad_model(lc: Gemini) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        chat_model(lc, MISSING_MODEL).invoke(PROMPTS["text"])
    assert "404" in str(caught.value) and MISSING_MODEL in str(caught.value)
