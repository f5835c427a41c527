"""Triggers with the real google-genai 3.6.1 (`client.triggers`, sync and async) over real sockets: create, get,
list with paging, update (pause, resume, rename), delete, run now and list_executions; a trigger run by advancing
the namespace's emulator clock through the admin API (its executions answered by the engine, kept as
interactions, journaled); bad schedules and zones as 400s; namespaces apart; the bounds."""

from __future__ import annotations

import asyncio
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import _interactions

from gemini_emulator.admin.client import AdminClient, AdminError
from gemini_emulator.stores.triggers import MAX_CATCH_UP, MAX_PER_NAMESPACE
from gemini_emulator.testing.pytest_plugin import Gemini

AGENT = "deep-research-pro-preview-12-2025"
HOURLY = "0 * * * *"


def _interaction(text: str = "Summarise the news") -> dict[str, Any]:
    return {"agent": AGENT, "input": text}


def test_every_method_sync(gemini: Gemini) -> None:
    client = gemini.client
    gemini.admin.script({"text": "Ran now."})
    made = client.triggers.create(
        interaction=_interaction(), schedule=HOURLY, time_zone="Europe/Paris", display_name="news"
    )
    assert made.id and made.schedule == HOURLY and made.time_zone == "Europe/Paris" and made.display_name == "news"
    assert made.status == "active" and made.interaction.agent == AGENT and made.next_run_time > made.create_time
    got = client.triggers.get(id=made.id)
    assert got.id == made.id and got.next_run_time == made.next_run_time
    others = [client.triggers.create(interaction=_interaction(), schedule="*/5 * * * *", time_zone="UTC") for _ in "ab"]
    first = client.triggers.list(page_size=2)
    assert [t.id for t in first.triggers] == [made.id, others[0].id] and first.next_page_token
    second = client.triggers.list(page_size=2, page_token=first.next_page_token)
    assert [t.id for t in second.triggers] == [others[1].id] and second.next_page_token is None
    paused = client.triggers.update(id=made.id, status="paused", display_name="renamed")
    assert paused.status == "paused" and paused.display_name == "renamed" and paused.last_pause_time
    ran = client.triggers.run(trigger_id=made.id)  # run now works on a paused trigger too (best-known)
    assert ran.trigger_id == made.id and ran.status == "completed" and ran.interaction_id and ran.end_time
    answered = client.interactions.get(ran.interaction_id)
    assert answered.status == "completed" and answered.steps[-1].content[0].text == "Ran now."
    listed = client.triggers.list_executions(trigger_id=made.id, page_size=5)
    assert [e.id for e in listed.trigger_executions] == [ran.id]
    assert client.triggers.get(id=made.id).previous_interaction_id == ran.interaction_id
    resumed = client.triggers.update(id=made.id, status="active")
    assert resumed.status == "active" and resumed.last_resume_time
    client.triggers.delete(id=made.id)
    with pytest.raises(_interactions.NotFoundError):
        client.triggers.get(id=made.id)


def test_every_method_async(gemini: Gemini) -> None:
    async def run() -> None:
        client = gemini.client.aio
        gemini.admin.script({"text": "Async run."})
        made = await client.triggers.create(interaction=_interaction(), schedule=HOURLY, time_zone="UTC")
        assert (await client.triggers.get(id=made.id)).schedule == HOURLY
        assert [t.id for t in (await client.triggers.list()).triggers] == [made.id]
        changed = await client.triggers.update(id=made.id, display_name="async")
        assert changed.display_name == "async"
        ran = await client.triggers.run(trigger_id=made.id)
        assert ran.status == "completed"
        listed = await client.triggers.list_executions(trigger_id=made.id)
        assert [e.id for e in listed.trigger_executions] == [ran.id]
        await client.triggers.delete(id=made.id)
        assert (await client.triggers.list()).triggers is None

    asyncio.run(run())


def test_advancing_the_clock_runs_the_due_executions(gemini: Gemini) -> None:
    client = gemini.client
    gemini.admin.script({"text": "First hour."}, {"text": "Second hour."})
    made = client.triggers.create(interaction=_interaction("hourly report"), schedule=HOURLY, time_zone="UTC")
    assert client.triggers.list_executions(trigger_id=made.id).trigger_executions is None
    before = gemini.admin.clock()
    advanced = gemini.admin.advance_clock(2 * 3600)  # two top-of-the-hour fires pass
    assert advanced["offsetSeconds"] == before["offsetSeconds"] + 7200
    assert [e["status"] for e in advanced["executions"]] == ["completed", "completed"]
    listed = client.triggers.list_executions(trigger_id=made.id, page_size=1)
    assert len(listed.trigger_executions) == 1 and listed.next_page_token
    rest = client.triggers.list_executions(trigger_id=made.id, page_token=listed.next_page_token)
    newest, oldest = listed.trigger_executions[0], rest.trigger_executions[0]
    assert oldest.scheduled_time < newest.scheduled_time
    assert (newest.scheduled_time - oldest.scheduled_time).total_seconds() == 3600
    assert oldest.scheduled_time.minute == 0 and oldest.scheduled_time.second == 0
    texts = [client.interactions.get(e.interaction_id).steps[-1].content[0].text for e in (oldest, newest)]
    assert texts == ["First hour.", "Second hour."]
    journaled = gemini.journal(rpc="triggers.execute")
    assert [c.status for c in journaled] == [200, 200] and journaled.last.body["trigger_id"] == made.id
    assert client.triggers.get(id=made.id).next_run_time > newest.scheduled_time
    assert gemini.admin.advance_clock(0)["executions"] == []  # nothing more is due


def test_a_paused_trigger_does_not_fire_and_catch_up_is_bounded(gemini: Gemini) -> None:
    client = gemini.client
    paused = client.triggers.create(interaction=_interaction(), schedule="* * * * *", time_zone="UTC")
    client.triggers.update(id=paused.id, status="paused")
    every_minute = client.triggers.create(interaction=_interaction(), schedule="* * * * *", time_zone="UTC")
    ran = gemini.admin.advance_clock(3600)["executions"]  # 60 fires pass: at most MAX_CATCH_UP run
    assert len(ran) == MAX_CATCH_UP and {e["trigger_id"] for e in ran} == {every_minute.id}
    assert client.triggers.list_executions(trigger_id=paused.id).trigger_executions is None
    assert client.triggers.get(id=every_minute.id).next_run_time.timestamp() > _clock_seconds(gemini)
    listed = client.triggers.list_executions(trigger_id=every_minute.id).trigger_executions
    skipped = [e for e in listed if e.status == "skipped"]  # the 50 fires past the bound leave one record
    assert len(skipped) == 1 and len(listed) == MAX_CATCH_UP + 1 and "Skipped" in skipped[0].error
    newest_run = max(e.scheduled_time for e in listed if e.status == "completed")
    assert (skipped[0].scheduled_time - newest_run).total_seconds() == 60  # the first fire not run


def test_a_fire_while_the_previous_execution_runs_is_skipped(gemini: Gemini) -> None:
    client = gemini.client
    gemini.admin.script({"text": "slow", "delayMs": 2000}, {"text": "never asked"})
    made = client.triggers.create(interaction=_interaction(), schedule=HOURLY, time_zone="UTC")
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(gemini.admin.advance_clock, 3600)  # one fire, answered slowly
        for _ in range(500):  # until the execution shows in progress (bounded)
            listed = client.triggers.list_executions(trigger_id=made.id).trigger_executions
            if listed:
                break
            threading.Event().wait(0.01)
        assert listed and listed[0].status == "in_progress"
        assert gemini.admin.advance_clock(3600)["executions"] == []  # the next fire finds it busy
        assert [e["status"] for e in first.result(timeout=30)["executions"]] == ["completed"]
    statuses = [e.status for e in client.triggers.list_executions(trigger_id=made.id).trigger_executions]
    assert statuses == ["skipped", "completed"]  # newest first
    assert len(gemini.admin.pending()) == 1  # the second entry was never asked for


def _clock_seconds(gemini: Gemini) -> float:
    return datetime.fromisoformat(gemini.admin.clock()["time"]).timestamp()


def test_a_failing_execution_and_max_consecutive_failures(gemini: Gemini) -> None:
    client = gemini.client
    gemini.admin.script({"error": "unavailable"}, {"error": "unavailable"})
    made = client.triggers.create(
        interaction=_interaction(), schedule=HOURLY, time_zone="UTC", max_consecutive_failures=2
    )
    first = client.triggers.run(trigger_id=made.id)
    assert first.status == "failed" and first.error and first.interaction_id is None
    assert client.triggers.get(id=made.id).consecutive_failure_count == 1
    client.triggers.run(trigger_id=made.id)
    assert client.triggers.get(id=made.id).status == "error"  # paused by its failures
    assert [c.status for c in gemini.journal(rpc="triggers.execute")] == [503, 503]


@pytest.mark.parametrize(
    ("schedule", "zone"),
    [
        ("every hour", "UTC"),
        ("61 * * * *", "UTC"),
        ("* * * *", "UTC"),
        ("0 0 * * * *", "UTC"),
        (HOURLY, "Mars/Olympus"),
        (HOURLY, "../etc/passwd"),
    ],
)
def test_bad_schedules_and_zones_are_400s(gemini: Gemini, schedule: str, zone: str) -> None:
    answer = httpx.post(
        f"{gemini.url}/v1beta/triggers",
        headers={"x-goog-api-key": gemini.api_key},
        json={"interaction": _interaction(), "schedule": schedule, "time_zone": zone},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_bad_bodies_are_400s(gemini: Gemini) -> None:
    url, headers = f"{gemini.url}/v1beta/triggers", {"x-goog-api-key": gemini.api_key}
    no_agent = {"interaction": {"input": "x"}, "schedule": HOURLY, "time_zone": "UTC"}
    unknown = {"interaction": _interaction(), "schedule": HOURLY, "time_zone": "UTC", "cron": "x"}
    for body in (no_agent, unknown, {"schedule": HOURLY, "time_zone": "UTC"}):
        assert httpx.post(url, headers=headers, json=body).status_code == 400
    made = httpx.post(url, headers=headers, json={**no_agent, "interaction": _interaction()}).json()
    bad_status = httpx.patch(f"{url}/{made['id']}", headers=headers, json={"status": "sleeping"})
    assert bad_status.status_code == 400
    with pytest.raises(AdminError):
        gemini.admin.advance_clock(-1)
    with pytest.raises(AdminError):
        gemini.admin.advance_clock(to="2000-01-01T00:00:00Z")  # the clock only moves forward


def test_namespaces_apart(gemini: Gemini) -> None:
    other_key = f"other-{uuid.uuid4().hex}"
    other = genai.Client(api_key=other_key, http_options={"base_url": gemini.url})
    other_admin = AdminClient(gemini.url, api_key=other_key)
    try:
        made = gemini.client.triggers.create(interaction=_interaction(), schedule=HOURLY, time_zone="UTC")
        theirs = other.triggers.create(interaction=_interaction(), schedule=HOURLY, time_zone="UTC")
        assert [t.id for t in other.triggers.list().triggers] == [theirs.id]
        with pytest.raises(_interactions.NotFoundError):
            other.triggers.get(id=made.id)
        assert other_admin.advance_clock(7200)["executions"]  # only the other namespace's clock moved
        assert gemini.admin.clock()["offsetSeconds"] == 0
        assert gemini.client.triggers.list_executions(trigger_id=made.id).trigger_executions is None
    finally:
        other_admin.reset()
        other_admin.close()


def test_bounds(gemini: Gemini) -> None:
    url, headers = f"{gemini.url}/v1beta/triggers", {"x-goog-api-key": gemini.api_key}
    body = {"interaction": _interaction(), "schedule": HOURLY, "time_zone": "UTC"}
    with httpx.Client(headers=headers) as http:
        for _ in range(MAX_PER_NAMESPACE):
            assert http.post(url, json=body).status_code == 200
        refused = http.post(url, json=body)
    assert refused.status_code == 429 and "100 triggers" in refused.json()["error"]["message"]
    long = httpx.post(url, headers=headers, json={**body, "schedule": "0 " * 200 + "*"})
    assert long.status_code in (400, 429)
    listed = httpx.get(url, headers=headers, params={"page_size": 5000}).json()
    assert len(listed["triggers"]) == MAX_PER_NAMESPACE and "next_page_token" not in listed
