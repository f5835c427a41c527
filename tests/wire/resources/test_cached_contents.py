"""cachedContents with the real google-genai (sync and async, Developer and Vertex) and raw HTTP for the wire:
create, use in generate/stream/countTokens, list, update, delete; what production refuses beside a cache."""

from __future__ import annotations

import asyncio
import time

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
BIG = "Paris is the capital of France. The Eiffel Tower is in Paris. " * 200  # ~3,000 tokens: over the minimum


def _create(client: genai.Client, **config: object) -> types.CachedContent:
    settings = {"contents": [BIG], "system_instruction": "You are a geography expert.", "ttl": "120s"} | config
    return client.caches.create(model=MODEL, config=types.CreateCachedContentConfig(**settings))


def test_create_prints_production_fields(gemini_shared: Gemini) -> None:
    cache = _create(gemini_shared.client, display_name="geo")
    assert cache.name.startswith("cachedContents/") and len(cache.name) == len("cachedContents/") + 40
    assert cache.model == f"models/{MODEL}" and cache.display_name == "geo"
    assert cache.usage_metadata.total_token_count > 1024
    assert cache.create_time == cache.update_time
    lifetime = (cache.expire_time - cache.create_time).total_seconds()
    assert 119 <= lifetime <= 120.5
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{cache.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    body = raw.json()
    assert list(body) == ["name", "model", "createTime", "updateTime", "expireTime", "displayName", "usageMetadata"]
    assert len(body["createTime"].split(".")[1]) == 7 and len(body["expireTime"].split(".")[1]) == 10  # 6 and 9 + Z


def test_generate_with_cache_counts_cached_tokens_and_the_engine_sees_the_cache(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    cache = _create(client)
    cached = cache.usage_metadata.total_token_count
    gemini_shared.script({"match": {"system": "geography expert", "text": "capital"}, "text": "Paris."})
    response = client.models.generate_content(
        model=MODEL,
        contents="What is the capital of France?",
        config=types.GenerateContentConfig(cached_content=cache.name),
    )
    assert response.text == "Paris."
    usage = response.usage_metadata
    own = client.models.count_tokens(model=MODEL, contents="What is the capital of France?").total_tokens
    assert usage.cached_content_token_count == cached
    assert usage.prompt_token_count == cached + own
    assert usage.cache_tokens_details[0].modality == types.MediaModality.TEXT
    assert usage.cache_tokens_details[0].token_count == cached
    seen = gemini_shared.journal(rpc="generateContent").last.body
    assert seen["cachedContent"] == cache.name  # the journal keeps what was sent


def test_stream_with_cache_reports_cached_tokens_on_the_last_chunk(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    cache = _create(client)
    chunks = list(
        client.models.generate_content_stream(
            model=MODEL, contents="Tell me about Paris", config=types.GenerateContentConfig(cached_content=cache.name)
        )
    )
    assert chunks[-1].usage_metadata.cached_content_token_count == cache.usage_metadata.total_token_count


def test_count_tokens_with_a_cache(gemini_shared: Gemini) -> None:
    cache = _create(gemini_shared.client)
    body = {
        "generateContentRequest": {
            "model": f"models/{MODEL}",
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "cachedContent": cache.name,
        }
    }
    answer = httpx.post(
        f"{gemini_shared.url}/v1beta/models/{MODEL}:countTokens",
        json=body,
        headers={"x-goog-api-key": gemini_shared.api_key},
    ).json()
    cached = cache.usage_metadata.total_token_count
    assert answer["cachedContentTokenCount"] == cached and answer["totalTokens"] > cached
    assert answer["cacheTokensDetails"] == [{"modality": "TEXT", "tokenCount": cached}]


@pytest.mark.parametrize(
    "config",
    [
        {"system_instruction": "Be brief."},
        {"tools": [types.Tool(function_declarations=[types.FunctionDeclaration(name="f", description="d")])]},
        {"tool_config": types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY"))},
    ],
    ids=["systemInstruction", "tools", "toolConfig"],
)
def test_request_config_beside_a_cache_is_refused(gemini_shared: Gemini, config: dict[str, object]) -> None:
    client = gemini_shared.client
    cache = _create(client)
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(
            model=MODEL, contents="Hi", config=types.GenerateContentConfig(cached_content=cache.name, **config)
        )
    assert caught.value.code == 400
    assert caught.value.message.startswith("CachedContent can not be used with GenerateContent request setting")


def test_list_pages_update_and_delete(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    made = [_create(client, display_name=f"c{i}").name for i in range(3)]
    pager = client.caches.list(config=types.ListCachedContentsConfig(page_size=2))
    assert len(pager.page) == 2 and pager.sdk_http_response is not None
    assert [c.name for c in pager] == made  # the pager reads every page
    updated = client.caches.update(name=made[0], config=types.UpdateCachedContentConfig(ttl="3600s"))
    assert 3599 <= (updated.expire_time - updated.update_time).total_seconds() <= 3600.5
    assert updated.update_time > updated.create_time
    for name in made:
        client.caches.delete(name=name)
    assert list(client.caches.list()) == []
    raw = httpx.get(f"{gemini_shared.url}/v1beta/cachedContents", headers={"x-goog-api-key": gemini_shared.api_key})
    assert raw.json() == {}  # production's empty list


def test_deleted_and_other_keys_caches_are_403(gemini_shared: Gemini, base_url: str) -> None:
    client = gemini_shared.client
    cache = _create(client)
    other = genai.Client(api_key="someone-else", http_options=types.HttpOptions(base_url=base_url))
    for call in (
        lambda c: c.caches.get(name=cache.name),
        lambda c: c.models.generate_content(
            model=MODEL, contents="Hi", config=types.GenerateContentConfig(cached_content=cache.name)
        ),
    ):
        with pytest.raises(errors.ClientError) as caught:
            call(other)
        assert caught.value.code == 403 and caught.value.message == "CachedContent not found (or permission denied)"
    client.caches.delete(name=cache.name)
    with pytest.raises(errors.ClientError) as caught:
        client.caches.get(name=cache.name)
    assert caught.value.code == 403 and caught.value.status == "PERMISSION_DENIED"
    with pytest.raises(errors.ClientError):
        client.caches.delete(name=cache.name)


def test_an_expired_cache_is_gone(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    cache = _create(client, ttl="0.2s")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            client.caches.get(name=cache.name)
        except errors.ClientError as error:
            assert error.code == 403
            break
        time.sleep(0.05)
    else:
        pytest.fail("the cache did not expire")
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(
            model=MODEL, contents="Hi", config=types.GenerateContentConfig(cached_content=cache.name)
        )
    assert caught.value.code == 403


def test_too_small_and_model_mismatch(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    with pytest.raises(errors.ClientError) as caught:
        client.caches.create(model=MODEL, config=types.CreateCachedContentConfig(contents=["Hello there"]))
    assert caught.value.code == 400
    assert caught.value.message.startswith("Cached content is too small. total_token_count=")
    assert caught.value.message.endswith("min_total_token_count=1024")
    cache = _create(client)
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(
            model="gemini-2.5-pro", contents="Hi", config=types.GenerateContentConfig(cached_content=cache.name)
        )
    assert caught.value.message == "Cached content model does not match the model in the request."


def test_async_create_use_update_delete(gemini_shared: Gemini) -> None:
    async def run() -> None:
        client = gemini_shared.client.aio
        cache = await client.caches.create(
            model=MODEL, config=types.CreateCachedContentConfig(contents=[BIG], ttl="60s")
        )
        response = await client.models.generate_content(
            model=MODEL, contents="Where is the tower?", config=types.GenerateContentConfig(cached_content=cache.name)
        )
        assert response.usage_metadata.cached_content_token_count == cache.usage_metadata.total_token_count
        got = await client.caches.get(name=cache.name)
        assert got.name == cache.name
        moved = await client.caches.update(name=cache.name, config=types.UpdateCachedContentConfig(ttl="300s"))
        assert moved.expire_time > cache.expire_time
        assert [c.name async for c in await client.caches.list()] == [cache.name]
        await client.caches.delete(name=cache.name)
        with pytest.raises(errors.ClientError):
            await client.caches.get(name=cache.name)

    asyncio.run(run())


def test_vertex_create_use_and_404(base_url: str) -> None:
    vertex = genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token="cache-token"),
        http_options=types.HttpOptions(base_url=base_url),
    )
    cache = vertex.caches.create(model=MODEL, config=types.CreateCachedContentConfig(contents=[BIG], ttl="60s"))
    assert cache.name.startswith("projects/demo-project/locations/us-central1/cachedContents/")
    assert cache.name.rsplit("/", 1)[1].isdigit()
    assert cache.model == f"projects/demo-project/locations/us-central1/publishers/google/models/{MODEL}"
    response = vertex.models.generate_content(
        model=MODEL, contents="Hi", config=types.GenerateContentConfig(cached_content=cache.name)
    )
    assert response.usage_metadata.cached_content_token_count == cache.usage_metadata.total_token_count
    assert [c.name for c in vertex.caches.list()] == [cache.name]
    vertex.caches.delete(name=cache.name)
    with pytest.raises(errors.ClientError) as caught:
        vertex.caches.get(name=cache.name)
    assert caught.value.code == 404
    assert caught.value.message == f"Not found: cache content metadata {cache.name.rsplit('/', 1)[1]}."


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "cachedContents", b"{nope", 400),
        ("POST", "cachedContents", b"[]", 400),
        ("POST", "cachedContents", {"contents": [{"role": "user", "parts": [{"text": "x"}]}]}, 400),  # no model
        ("POST", "cachedContents", {"model": "models/no-such-model", "contents": []}, 404),
        ("POST", "cachedContents", {"model": f"models/{MODEL}", "bogus": 1}, 400),
        ("POST", "cachedContents", {"model": f"models/{MODEL}", "contents": "text"}, 400),
        (
            "POST",
            "cachedContents",
            {"model": f"models/{MODEL}", "contents": [{"role": "robot", "parts": [{"text": "x"}]}]},
            400,
        ),
        (
            "POST",
            "cachedContents",
            {"model": f"models/{MODEL}", "contents": [{"parts": [{"text": BIG}]}], "ttl": "soon"},
            400,
        ),
        (
            "POST",
            "cachedContents",
            {"model": f"models/{MODEL}", "contents": [{"parts": [{"text": BIG}]}], "ttl": "-5s"},
            400,
        ),
        (
            "POST",
            "cachedContents",
            {
                "model": f"models/{MODEL}",
                "contents": [{"parts": [{"text": BIG}]}],
                "ttl": "5s",
                "expireTime": "2030-01-01T00:00:00Z",
            },
            400,
        ),
        (
            "POST",
            "cachedContents",
            {
                "model": f"models/{MODEL}",
                "contents": [{"parts": [{"text": BIG}]}],
                "expireTime": "2001-01-01T00:00:00Z",
            },
            400,
        ),
        (
            "POST",
            "cachedContents",
            {"model": f"models/{MODEL}", "contents": [{"parts": [{"text": BIG}]}], "expireTime": "tomorrow"},
            400,
        ),
        ("GET", "cachedContents?pageSize=abc", None, 400),
        ("GET", "cachedContents/nope", None, 403),
        ("PATCH", "cachedContents/nope", {"ttl": "5s"}, 403),
        ("DELETE", "cachedContents/nope", None, 403),
        ("PUT", "cachedContents/nope", None, 404),
    ],
)
def test_malformed_requests_get_a_4xx_envelope(
    gemini_shared: Gemini, method: str, path: str, body: object, status: int
) -> None:
    headers = {"x-goog-api-key": gemini_shared.api_key}
    content = body if isinstance(body, bytes) else None
    json_body = None if isinstance(body, bytes) else body
    answer = httpx.request(
        method, f"{gemini_shared.url}/v1beta/{path}", headers=headers, content=content, json=json_body
    )
    assert answer.status_code == status
    if method != "PUT":  # an unroutable method gets Google's HTML 404
        error = answer.json()["error"]
        assert error["code"] == status and error["message"] and error["status"]


def test_patch_refuses_other_fields_and_needs_an_expiration(gemini_shared: Gemini) -> None:
    cache = _create(gemini_shared.client)
    url, headers = f"{gemini_shared.url}/v1beta/{cache.name}", {"x-goog-api-key": gemini_shared.api_key}
    assert httpx.patch(url, headers=headers, json={}).status_code == 400
    assert httpx.patch(url + "?updateMask=displayName", headers=headers, json={"displayName": "x"}).status_code == 400
    moved = httpx.patch(url + "?updateMask=expireTime", headers=headers, json={"expireTime": "2030-01-01T00:00:00Z"})
    assert moved.status_code == 200 and moved.json()["expireTime"].startswith("2030-01-01T00:00:00.000000000")


def test_no_credential_is_refused(base_url: str) -> None:
    answer = httpx.get(f"{base_url}/v1beta/cachedContents")
    assert answer.status_code == 403 and answer.json()["error"]["status"] == "PERMISSION_DENIED"


def test_admin_lists_removes_and_reset_clears_the_callers_caches(gemini_shared: Gemini, base_url: str) -> None:
    client = gemini_shared.client
    first, second = _create(client, display_name="one"), _create(client, display_name="two")
    other = genai.Client(api_key="admin-other-key", http_options=types.HttpOptions(base_url=base_url))
    kept = _create(other)
    admin = gemini_shared.admin._http
    listed = admin.get("/resources").json()
    assert [c["name"] for c in listed["resources"]["cachedContents"]] == [first.name, second.name]
    assert listed["resources"]["cachedContents"][0]["displayName"] == "one"
    assert admin.delete("/resources", params={"name": first.name}).status_code == 200
    assert admin.delete("/resources", params={"name": first.name}).status_code == 404
    assert admin.delete("/resources", params={"name": "nothing"}).status_code == 400
    with pytest.raises(errors.ClientError):
        client.caches.get(name=first.name)
    gemini_shared.reset()
    with pytest.raises(errors.ClientError):
        client.caches.get(name=second.name)
    assert other.caches.get(name=kept.name).name == kept.name  # another namespace keeps its own
    assert [c.rpc for c in gemini_shared.journal()] == ["cachedContents.get"]  # the reset cleared the rest
    other.caches.delete(name=kept.name)


def test_the_journal_records_cache_calls(gemini_shared: Gemini) -> None:
    cache = _create(gemini_shared.client)
    gemini_shared.client.caches.delete(name=cache.name)
    rpcs = [c.rpc for c in gemini_shared.journal()]
    assert rpcs == ["cachedContents.create", "cachedContents.delete"]
    created = gemini_shared.journal(rpc="cachedContents.create").last
    assert created.model == MODEL and created.status == 200


def test_cache_contents_with_file_data_name_the_callers_own_files(gemini_shared: Gemini) -> None:
    import io

    client = gemini_shared.client
    uploaded = client.files.upload(file=io.BytesIO(BIG.encode()), config={"mime_type": "text/plain"})
    part = types.Part.from_uri(file_uri=uploaded.uri, mime_type="text/plain")
    cache = client.caches.create(
        model=MODEL,
        config=types.CreateCachedContentConfig(
            contents=[types.Content(role="user", parts=[part, types.Part(text=BIG)])]
        ),
    )
    assert cache.name.startswith("cachedContents/")
    missing = types.Part.from_uri(file_uri=f"{gemini_shared.url}/v1beta/files/nosuchfile", mime_type="text/plain")
    with pytest.raises(errors.ClientError) as caught:
        client.caches.create(
            model=MODEL,
            config=types.CreateCachedContentConfig(
                contents=[types.Content(role="user", parts=[missing, types.Part(text=BIG)])]
            ),
        )
    assert caught.value.code == 403 and "You do not have permission to access the File" in caught.value.message
