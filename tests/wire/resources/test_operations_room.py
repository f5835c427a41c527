"""The operations room over a real socket: google-genai's operations.get (Developer paths) on operations a
producer made in the store, list, cancel, delete, per-key isolation and the bad requests' envelopes."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.wire.auth import key_namespace

VIDEO_RESPONSE = {
    "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
    "generateVideoResponse": {"generatedSamples": [{"video": {"uri": "https://example.invalid/v.mp4"}}]},
}


def _ops(gemini: Gemini):  # noqa: ANN202
    return gemini.server.context.operations


def _space(gemini: Gemini) -> str:
    return key_namespace(gemini.api_key)


def test_sdk_polls_an_operation_until_done(gemini_shared: Gemini) -> None:
    ops = _ops(gemini_shared)
    op = ops.create(_space(gemini_shared), "video", parent="models/veo-3.0-generate-001", delay_s=0.2)
    ops.complete(op, response=VIDEO_RESPONSE)
    polled = gemini_shared.client.operations.get(types.GenerateVideosOperation(name=op.name))
    assert not polled.done and polled.name == op.name
    for _ in range(100):  # bounded poll: done 0.2 s after creation
        polled = gemini_shared.client.operations.get(polled)
        if polled.done:
            break
        time.sleep(0.02)
    assert polled.done
    assert polled.response.generated_videos[0].video.uri == "https://example.invalid/v.mp4"
    rpcs = [call.rpc for call in gemini_shared.journal()]
    assert set(rpcs) == {"operations.get"}


def test_sdk_async_sees_an_error(gemini_shared: Gemini) -> None:
    ops = _ops(gemini_shared)
    op = ops.create(_space(gemini_shared), "video", parent="models/veo-3.0-generate-001", delay_s=0)
    ops.complete(op, error={"code": 3, "message": "The prompt could not be submitted."})

    async def poll() -> types.GenerateVideosOperation:
        return await gemini_shared.client.aio.operations.get(types.GenerateVideosOperation(name=op.name))

    polled = asyncio.run(poll())
    assert polled.done and polled.error == {"code": 3, "message": "The prompt could not be submitted."}


def test_another_key_cannot_see_it(gemini_shared: Gemini) -> None:
    op = _ops(gemini_shared).create(_space(gemini_shared), "video")
    mine = httpx.get(f"{gemini_shared.url}/v1beta/{op.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    theirs = httpx.get(f"{gemini_shared.url}/v1beta/{op.name}", headers={"x-goog-api-key": "someone-else"})
    assert mine.status_code == 200 and mine.json() == {"name": op.name}
    assert theirs.status_code == 404
    assert theirs.json()["error"]["status"] == "NOT_FOUND"
    assert gemini_shared.api_key not in theirs.text


def test_list_cancel_delete(gemini_shared: Gemini) -> None:
    ops, space = _ops(gemini_shared), _space(gemini_shared)
    made = [ops.create(space, "batch", delay_s=30, response={}).name for _ in range(3)]
    key = {"x-goog-api-key": gemini_shared.api_key}
    with httpx.Client(base_url=gemini_shared.url, headers=key) as http:
        first = http.get("/v1beta/operations", params={"pageSize": 2}).json()
        assert [o["name"] for o in first["operations"]] == made[::-1][:2]
        rest = http.get("/v1beta/operations", params={"pageSize": 2, "pageToken": first["nextPageToken"]}).json()
        assert [o["name"] for o in rest["operations"]] == made[:1] and "nextPageToken" not in rest
        assert http.post(f"/v1beta/{made[0]}:cancel").json() == {}
        cancelled = http.get(f"/v1beta/{made[0]}").json()
        assert cancelled["done"] is True and cancelled["error"]["code"] == 1
        assert http.delete(f"/v1beta/{made[1]}").json() == {}
        assert http.get(f"/v1beta/{made[1]}").status_code == 404
        assert http.delete(f"/v1beta/{made[1]}").status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "params", "status"),
    [
        ("GET", "/v1beta/operations/nope", {}, 404),
        ("GET", "/v1beta/operations", {"pageSize": "many"}, 400),
        ("POST", "/v1beta/operations/nope:cancel", {}, 404),
    ],
)
def test_bad_requests_get_envelopes(gemini_shared: Gemini, method: str, path: str, params: dict, status: int) -> None:
    answer = httpx.request(
        method, gemini_shared.url + path, params=params, headers={"x-goog-api-key": gemini_shared.api_key}
    )
    assert answer.status_code == status
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["error"]["code"] == status


def test_no_key_is_production_403(gemini_shared: Gemini) -> None:
    answer = httpx.get(f"{gemini_shared.url}/v1beta/operations/x")
    assert answer.status_code == 403 and "unregistered callers" in answer.json()["error"]["message"]


def test_admin_lists_removes_and_reset_forgets(gemini_shared: Gemini) -> None:
    ops, space = _ops(gemini_shared), _space(gemini_shared)
    kept = ops.create(space, "video", parent="models/veo-3.0-generate-001", hold=True)
    removed = ops.create(space, "batch", parent="models/veo-3.0-generate-001", hold=True)
    admin = httpx.Client(base_url=gemini_shared.url + "/__emulator", headers={"x-goog-api-key": gemini_shared.api_key})
    listed = admin.get("/resources", params={"kind": "operations"}).json()["resources"]["operations"]
    wanted = [(kept.name, "video", False), (removed.name, "batch", False)]
    assert [(o["name"], o["kind"], o["done"]) for o in listed] == wanted
    assert admin.delete("/resources", params={"name": removed.name}).status_code == 200
    assert ops.get(space, removed.name) is None and ops.get(space, kept.name) is kept
    gemini_shared.reset()
    assert ops.get(space, kept.name) is None
    admin.close()
