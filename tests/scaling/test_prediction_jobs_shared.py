"""Vertex batch prediction jobs on the Redis store (stores/prediction_jobs_redis.py): every test of
tests/wire/resources/test_prediction_jobs.py (google-genai in Vertex mode and httpx against a real server) run again
on an emulator whose jobs live on a real redis-server, so both stores pass one suite; two `gemini-emulator serve
--store redis://...` processes, a job created through one read, listed, walked by the schedule set through the
other, cancelled and deleted through either; two processes' creates never take one name; the admin API's listing;
and a Redis that cannot be reached is the 503 envelope."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_workers import serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_SOURCE = Path(__file__).parents[1] / "wire" / "resources" / "test_prediction_jobs.py"
_spec = importlib.util.spec_from_file_location("prediction_jobs_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_")})

AUTH = {"authorization": "Bearer shared-jobs-key"}
PARENT = "projects/p/locations/us-central1"
BODY = {
    "model": "publishers/google/models/gemini-2.5-flash",
    "inputConfig": {"instancesFormat": "jsonl", "gcsSource": {"uris": ["gs://b/in.jsonl"]}},
    "outputConfig": {"predictionsFormat": "jsonl", "gcsDestination": {"outputUriPrefix": "gs://b/out"}},
}
ENVELOPE = {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator (the contract tests'): jobs, plans, scripts and the journal on the session's Redis."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()


def _jobs(base: str) -> str:
    return f"{base}/v1beta1/{PARENT}/batchPredictionJobs"


def _state(base: str, name: str) -> str:
    answer = httpx.get(f"{base}/v1beta1/{name}", headers=AUTH)
    assert answer.status_code == 200, answer.text[:200]
    return str(answer.json()["state"])


@pytest.mark.slow
def test_a_job_created_through_one_process_is_seen_and_changed_through_the_other(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    held = httpx.put(b.url + "/__emulator/batches", json={"pendingMs": 0, "hold": True}, headers=AUTH)
    assert held.status_code == 200  # the schedule set through B holds for a job created through A
    made = httpx.post(_jobs(a.url), json=BODY | {"displayName": "across"}, headers=AUTH).json()
    name = made["name"]
    assert name.startswith(f"{PARENT}/batchPredictionJobs/")
    seen = httpx.get(f"{b.url}/v1beta1/{name}", headers=AUTH).json()
    assert seen["displayName"] == "across" and seen["createTime"] == made["createTime"]
    assert list(seen)[:5] == ["name", "displayName", "model", "inputConfig", "outputConfig"]
    assert _state(b.url, name) == "JOB_STATE_RUNNING"
    other = httpx.post(_jobs(b.url), json=BODY, headers=AUTH).json()["name"]
    page = httpx.get(_jobs(a.url), params={"pageSize": 1}, headers=AUTH).json()
    assert [j["name"] for j in page["batchPredictionJobs"]] == [other] and page["nextPageToken"] == "1"
    rest = httpx.get(_jobs(a.url), params={"pageSize": 1, "pageToken": "1"}, headers=AUTH).json()
    assert [j["name"] for j in rest["batchPredictionJobs"]] == [name] and "nextPageToken" not in rest
    assert httpx.post(f"{b.url}/v1beta1/{name}:cancel", json={}, headers=AUTH).json() == {}
    cancelled = httpx.get(f"{a.url}/v1beta1/{name}", headers=AUTH).json()
    assert cancelled["state"] == "JOB_STATE_CANCELLED" and cancelled["error"] == {"code": 1, "message": "CANCELED"}
    assert cancelled["endTime"] == httpx.get(f"{b.url}/v1beta1/{name}", headers=AUTH).json()["endTime"]
    listed = httpx.get(b.url + "/__emulator/resources?kind=batchPredictionJobs", headers=AUTH).json()
    assert {r["name"]: r["state"] for r in listed["resources"]["batchPredictionJobs"]} == {
        name: "JOB_STATE_CANCELLED",
        other: "JOB_STATE_RUNNING",
    }
    deleted = httpx.delete(f"{a.url}/v1beta1/{name}", headers=AUTH)
    assert deleted.status_code == 200 and deleted.json()["done"] is True
    gone = httpx.get(f"{b.url}/v1beta1/{name}", headers=AUTH)
    assert (
        gone.status_code == 404
        and gone.json()["error"]["message"] == f'The BatchPredictionJob "{name}" does not exist.'
    )
    assert httpx.delete(f"{b.url}/v1beta1/{name}", headers=AUTH).status_code == 404
    stranger = httpx.get(f"{a.url}/v1beta1/{other}", headers={"authorization": "Bearer someone-else"})
    assert stranger.status_code == 404


@pytest.mark.slow
def test_creates_racing_through_two_processes_never_share_a_name(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    names: list[str] = []
    ready = threading.Barrier(4)

    def create(base: str) -> None:
        with httpx.Client(timeout=30) as http:
            ready.wait(10)
            for _ in range(25):
                names.append(http.post(_jobs(base), json=BODY, headers=AUTH).json()["name"])

    threads = [threading.Thread(target=create, args=(base,)) for base in (a.url, b.url, a.url, b.url)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(names) == 100 and len(set(names)) == 100
    listed = httpx.get(_jobs(b.url), params={"pageSize": 1000}, headers=AUTH).json()["batchPredictionJobs"]
    assert sorted(j["name"] for j in listed) == sorted(names)


def test_the_count_bound_forgets_the_oldest(redis_url: str) -> None:
    import asyncio

    from gemini_emulator.seam.state import link
    from gemini_emulator.stores.prediction_jobs_redis import RedisPredictionJobs

    store = RedisPredictionJobs(link(redis_url), max_per_namespace=3)

    async def make() -> list[str]:
        return [
            (
                await store.create(
                    "ns", PARENT, BODY, {"pendingMs": 0, "runningMs": 0, "state": "SUCCEEDED", "hold": False}
                )
            )[0]
            for _ in range(5)
        ]

    made = asyncio.run(make())
    assert [name for _, name, _ in store.all("ns")] == made[2:]


def test_redis_unreachable_is_the_503_envelope(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url))
    try:
        name = httpx.post(_jobs(running.url), json=BODY, headers=AUTH).json()["name"]
        server.stop()
        for method, url, body in (
            ("POST", _jobs(running.url), BODY),
            ("GET", _jobs(running.url), None),
            ("GET", f"{running.url}/v1beta1/{name}", None),
            ("POST", f"{running.url}/v1beta1/{name}:cancel", {}),
            ("DELETE", f"{running.url}/v1beta1/{name}", None),
        ):
            answer = httpx.request(method, url, json=body, headers=AUTH, timeout=10)
            assert answer.status_code == 503, (method, url, answer.text[:200])
            assert answer.json()["error"] == ENVELOPE
    finally:
        running.stop()
        server.stop()
