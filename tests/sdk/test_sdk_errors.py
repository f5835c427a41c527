"""The catalogue's errors as google-genai users meet them: the SDK's own exception types and fields."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

MODEL = "gemini-2.5-flash"


@pytest.fixture(scope="module")
def strict() -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, api_key="the-right-key", max_body_bytes=2048))
    yield running
    running.stop()


def sdk(url: str, key: str = "the-right-key", **options: object) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url, **options))


def test_wrong_api_key(strict: RunningEmulator) -> None:
    client = sdk(strict.url, key="wrong")  # keep a reference: a collected Client closes its connection
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents="x")
    assert (caught.value.code, caught.value.status) == (400, "INVALID_ARGUMENT")
    assert caught.value.message == "API key not valid. Please pass a valid API key."
    assert caught.value.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"


def test_unknown_field_sent_through_the_sdk(strict: RunningEmulator) -> None:
    client = sdk(strict.url, extra_body={"notAField": True})
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents="x")
    assert caught.value.code == 400
    assert caught.value.message == 'Invalid JSON payload received. Unknown name "notAField": Cannot find field.'


def test_wrong_type_sent_through_the_sdk(strict: RunningEmulator) -> None:
    client = sdk(strict.url, extra_body={"generationConfig": {"temperature": "hot"}})
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents="x")
    assert caught.value.message == "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\""


def test_oversized_request(strict: RunningEmulator) -> None:
    client = sdk(strict.url)
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=MODEL, contents="word " * 1000)
    assert caught.value.code == 400 and "exceeds the limit: 2048 bytes" in caught.value.message


def test_count_tokens_unknown_model(strict: RunningEmulator) -> None:
    client = sdk(strict.url)
    with pytest.raises(errors.ClientError) as caught:
        client.models.count_tokens(model="gemini-9-ultra", contents="x")
    assert caught.value.code == 404 and "not supported for countTokens" in caught.value.message


def test_get_unknown_model(strict: RunningEmulator) -> None:
    client = sdk(strict.url)
    with pytest.raises(errors.ClientError) as caught:
        client.models.get(model="gemini-9-ultra")
    assert caught.value.code == 404
