"""Webhooks with the real google-genai 3.6.1 (`client.webhooks`, sync and async) over real sockets: create, get,
list with paging, update with and without its field mask, delete, ping and rotate_signing_secret; and real
deliveries to a receiver on a loopback port (gemini_emulator.testing.webhooks.Receiver) that checks the Standard
Webhooks signature: a batch that succeeds, a background interaction, a Veo video, retries with backoff against a
receiver answering 500, the SSRF guard, namespace isolation and the bounds."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import _interactions, types

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.stores.webhooks import MAX_PER_NAMESPACE
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.webhooks import Received, Receiver, verify_signature

MODEL = "gemini-2.5-flash"
BATCH_EVENTS = ["batch.succeeded", "batch.failed"]


def _journal_until(gemini: Gemini, done: Callable[[list[dict[str, Any]]], bool], seconds: float = 5.0) -> list[Any]:
    """The namespace's finished delivery records once `done` holds for them (bounded: fails after `seconds`)."""
    deadline = time.monotonic() + seconds
    while True:
        records = [c.record for c in gemini.journal(rpc="webhooks.deliver") if "delivery" in c.record]
        if done(records):
            return records
        if time.monotonic() > deadline:
            pytest.fail(f"deliveries journaled: {[r.get('delivery') for r in records]}")
        time.sleep(0.01)


def test_every_method_sync(gemini: Gemini, webhook_receiver: Receiver) -> None:
    client = gemini.client
    hook = client.webhooks.create(subscribed_events=BATCH_EVENTS, uri=webhook_receiver.url, name="batches")
    assert hook.id and hook.name == "batches" and hook.uri == webhook_receiver.url
    assert hook.subscribed_events == BATCH_EVENTS and hook.state == "enabled"
    assert hook.new_signing_secret.startswith("whsec_")  # shown once
    assert [s.truncated_secret for s in hook.signing_secrets] == ["whsec_..." + hook.new_signing_secret[-4:]]
    assert hook.create_time == hook.update_time
    got = client.webhooks.get(hook.id)
    assert got.new_signing_secret is None and got.id == hook.id and got.signing_secrets == hook.signing_secrets
    others = [client.webhooks.create(subscribed_events=["video.generated"], uri=webhook_receiver.url) for _ in "ab"]
    first = client.webhooks.list(page_size=2)
    assert [h.id for h in first.webhooks] == [hook.id, others[0].id] and first.next_page_token
    second = client.webhooks.list(page_size=2, page_token=first.next_page_token)
    assert [h.id for h in second.webhooks] == [others[1].id] and second.next_page_token is None
    assert all(h.new_signing_secret is None for h in first.webhooks + second.webhooks)
    masked = client.webhooks.update(hook.id, update_mask="state", state="disabled", name="not in the mask")
    assert masked.state == "disabled" and masked.name == "batches"
    changed = client.webhooks.update(hook.id, subscribed_events=["batch.failed"], name="renamed")
    assert changed.subscribed_events == ["batch.failed"] and changed.name == "renamed" and changed.state == "disabled"
    assert changed.update_time > hook.update_time
    assert client.webhooks.ping(hook.id) is not None
    assert verify_signature(hook.new_signing_secret, *_parts(webhook_receiver.wait_for("webhook.ping")))
    secret = client.webhooks.rotate_signing_secret(hook.id).secret
    assert secret.startswith("whsec_") and secret != hook.new_signing_secret
    client.webhooks.delete(hook.id)
    with pytest.raises(_interactions.NotFoundError):
        client.webhooks.get(hook.id)
    shown = [c.record["response"] for c in gemini.journal(rpc="webhooks.create")] + [
        c.record["response"] for c in gemini.journal(rpc="webhooks.rotateSigningSecret")
    ]
    assert len(shown) == 4 and all('"REDACTED"' in text for text in shown)  # the journal never holds a secret
    everything = str([c.record for c in gemini.journal()])
    assert hook.new_signing_secret not in everything and secret not in everything


def _parts(received: Any) -> tuple[dict[str, str], bytes]:
    return received.headers, received.body


def test_every_method_async(gemini: Gemini, webhook_receiver: Receiver) -> None:
    async def run() -> None:
        client = gemini.client.aio
        hook = await client.webhooks.create(subscribed_events=["interaction.completed"], uri=webhook_receiver.url)
        assert (await client.webhooks.get(hook.id)).uri == webhook_receiver.url
        assert [h.id for h in (await client.webhooks.list()).webhooks] == [hook.id]
        updated = await client.webhooks.update(hook.id, update_mask="uri", uri=webhook_receiver.url + "/two")
        assert updated.uri.endswith("/two")
        await client.webhooks.ping(hook.id)
        rotated = await client.webhooks.rotate_signing_secret(
            hook.id, revocation_behavior="revoke_previous_secrets_immediately"
        )
        assert len((await client.webhooks.get(hook.id)).signing_secrets) == 1
        await client.webhooks.delete(hook.id)
        with pytest.raises(_interactions.NotFoundError):
            await client.webhooks.delete(hook.id)
        assert rotated.secret

    asyncio.run(run())
    ping = webhook_receiver.wait_for("webhook.ping")
    assert ping.path == "/hook/two" and ping.event["data"] == {"id": ping.event["data"]["id"]}


def test_a_batch_that_succeeds_delivers_batch_succeeded(gemini: Gemini, webhook_receiver: Receiver) -> None:
    client = gemini.client
    hook = client.webhooks.create(subscribed_events=BATCH_EVENTS, uri=webhook_receiver.url)
    gemini.batch_schedule(pendingMs=0, runningMs=20)
    job = client.batches.create(model=MODEL, src=[{"contents": [{"parts": [{"text": "Say hello"}], "role": "user"}]}])
    got = webhook_receiver.wait_for("batch.succeeded")
    assert got.verify(hook.new_signing_secret) and not got.verify("whsec_" + "A" * 44)
    event = got.event
    assert list(event) == ["type", "version", "timestamp", "data"]
    assert event["data"] == {"id": job.name, "state": "BATCH_STATE_SUCCEEDED"}
    assert got.headers["content-type"] == "application/json" and got.headers["webhook-id"].startswith("msg_")
    # answered when it ended: the job reads SUCCEEDED with its answers, no read having asked for them before
    assert client.batches.get(name=job.name).dest.inlined_responses[0].response.text
    (record,) = _journal_until(gemini, lambda rs: len(rs) == 1 and rs[0]["status"] == 200)
    assert record["path"] == webhook_receiver.url and record["body"] == event
    assert record["delivery"]["event"] == "batch.succeeded" and record["delivery"]["outcome"] == "delivered"
    assert hook.new_signing_secret not in str(record)


def test_a_failed_batch_and_a_disabled_webhook(gemini: Gemini, webhook_receiver: Receiver) -> None:
    client = gemini.client
    live = client.webhooks.create(subscribed_events=["batch.failed"], uri=webhook_receiver.url + "/live")
    off = client.webhooks.create(subscribed_events=["batch.failed"], uri=webhook_receiver.url + "/off")
    client.webhooks.update(off.id, state="disabled")
    gemini.batch_schedule(pendingMs=0, runningMs=10, state="FAILED")
    job = client.batches.create(model=MODEL, src=[{"contents": [{"parts": [{"text": "hi"}], "role": "user"}]}])
    got = webhook_receiver.wait_for("batch.failed")
    assert got.path == "/hook/live" and got.verify(live.new_signing_secret)
    assert got.event["data"]["id"] == job.name and got.event["data"]["error_code"] == 13
    assert [r.path for r in webhook_receiver.received] == ["/hook/live"]


def test_a_background_interaction_delivers_its_end(gemini: Gemini, webhook_receiver: Receiver) -> None:
    client = gemini.client
    hook = client.webhooks.create(
        subscribed_events=["interaction.completed", "interaction.requires_action"], uri=webhook_receiver.url
    )
    started = client.interactions.create(model=MODEL, input="Say hello", background=True)
    got = webhook_receiver.wait_for("interaction.completed")
    assert got.verify(hook.new_signing_secret)
    assert got.event["data"] == {"id": started.id, "status": "completed"}
    assert client.interactions.get(started.id).status == "completed"


def test_rotation_signs_with_both_secrets_for_the_grace_then_only_the_new(
    gemini: Gemini, webhook_receiver: Receiver
) -> None:
    client = gemini.client
    hook = client.webhooks.create(subscribed_events=["batch.succeeded"], uri=webhook_receiver.url)
    old = hook.new_signing_secret
    new = client.webhooks.rotate_signing_secret(hook.id).secret  # default: the old one signs 24 h more
    shown = client.webhooks.get(hook.id).signing_secrets
    assert [s.expire_time is None for s in shown] == [True, False]
    grace = (shown[1].expire_time - client.webhooks.get(hook.id).update_time).total_seconds()
    assert abs(grace - 24 * 3600) < 1
    client.webhooks.ping(hook.id)
    first = webhook_receiver.wait_for("webhook.ping")
    assert len(first.headers["webhook-signature"].split(" ")) == 2
    assert first.verify(new) and first.verify(old)
    newest = client.webhooks.rotate_signing_secret(hook.id, revocation_behavior="revoke_previous_secrets_immediately")
    client.webhooks.ping(hook.id)
    second = webhook_receiver.wait_for("webhook.ping", count=2)
    assert second.verify(newest.secret) and not second.verify(new) and not second.verify(old)
    assert len(client.webhooks.get(hook.id).signing_secrets) == 1


@pytest.mark.gemini_settings(webhook_retries=2, webhook_backoff_ms=20, operation_delay_ms=20)
def test_retries_back_off_then_deliver_and_a_video_is_delivered(gemini_fresh: Gemini) -> None:
    client = gemini_fresh.client
    with Receiver(answers=[500, 503]) as receiver:
        hook = client.webhooks.create(subscribed_events=["video.generated"], uri=receiver.url)
        client.webhooks.ping(hook.id)
        third = receiver.wait_for("webhook.ping", count=3)
        first, second = receiver.of("webhook.ping")[:2]
        assert [first.status, second.status, third.status] == [500, 503, 200]
        assert second.at - first.at >= 0.02 and third.at - second.at >= 0.04  # 20 ms, then twice that
        assert len({r.headers["webhook-id"] for r in (first, second, third)}) == 1  # one message, tried again
        records = _journal_until(gemini_fresh, lambda rs: len(rs) == 3 and rs[-1]["status"] == 200)
        assert [(r["status"], r["delivery"]["attempt"], r["delivery"]["outcome"]) for r in records] == [
            (500, 1, "retrying"),
            (503, 2, "retrying"),
            (200, 3, "delivered"),
        ]
        vertex = gemini_fresh.vertex_client()  # the same namespace: its token is the test's key
        source = types.GenerateVideosSource(prompt="A cat surfing at sunset")
        op = vertex.models.generate_videos(model="veo-3.0-generate-001", source=source)
        video = receiver.wait_for("video.generated")
        assert video.verify(hook.new_signing_secret) and video.event["data"] == {"id": op.name}
        assert vertex.operations.get(op).done


@pytest.mark.gemini_settings(webhook_retries=1, webhook_backoff_ms=0)
def test_a_receiver_that_never_answers_2xx_is_given_up_on(gemini_fresh: Gemini) -> None:
    client = gemini_fresh.client
    with Receiver(answers=[500, 500, 500]) as receiver:
        hook = client.webhooks.create(subscribed_events=["batch.failed"], uri=receiver.url)
        client.webhooks.ping(hook.id)
        receiver.wait_for("webhook.ping", count=2)
        records = _journal_until(gemini_fresh, lambda rs: len(rs) == 2 and rs[-1]["status"] == 500)
        assert [r["delivery"]["outcome"] for r in records] == ["retrying", "gave up"]
    closed = client.webhooks.create(subscribed_events=["batch.failed"], uri=receiver.url)  # nobody listens now
    client.webhooks.ping(closed.id)
    records = _journal_until(gemini_fresh, lambda rs: len(rs) == 4)
    assert records[-1]["status"] == 0 and records[-1]["delivery"]["outcome"] == "gave up"
    assert "Connect" in records[-1]["delivery"]["error"]


def test_only_loopback_and_configured_hosts_are_targets(gemini: Gemini) -> None:
    client = gemini.client
    for uri in ("http://example.com/hook", "https://10.0.0.1/hook", "http://0.0.0.0:80/", "ftp://127.0.0.1/x", "x"):
        with pytest.raises(_interactions.BadRequestError) as refused:
            client.webhooks.create(subscribed_events=["batch.failed"], uri=uri)
        assert refused.value.status_code == 400
        assert refused.value.body["error"]["status"] == "INVALID_ARGUMENT"  # Google's envelope
    hook = client.webhooks.create(subscribed_events=["batch.failed"], uri="http://localhost:9/hook")
    assert client.webhooks.create(subscribed_events=["batch.failed"], uri="http://[::1]:9/").uri == "http://[::1]:9/"
    with pytest.raises(_interactions.BadRequestError):
        client.webhooks.update(hook.id, uri="http://metadata.google.internal/")
    with pytest.raises(_interactions.BadRequestError):
        client.webhooks.create(subscribed_events=["no.such.event"], uri="http://localhost:9/")
    assert client.webhooks.get(hook.id).uri == "http://localhost:9/hook"


@pytest.mark.gemini_settings(webhook_hosts="hooks.example")
def test_a_host_named_in_the_setting_is_a_target(gemini_fresh: Gemini) -> None:
    hook = gemini_fresh.client.webhooks.create(subscribed_events=["batch.failed"], uri="https://HOOKS.example/x")
    assert hook.uri == "https://HOOKS.example/x"
    with pytest.raises(_interactions.BadRequestError):
        gemini_fresh.client.webhooks.create(subscribed_events=["batch.failed"], uri="https://other.example/x")


def test_namespaces_see_and_receive_only_their_own(gemini: Gemini, webhook_receiver: Receiver) -> None:
    other_key = f"other-{uuid.uuid4().hex}"
    other = genai.Client(api_key=other_key, http_options=types.HttpOptions(base_url=gemini.url))
    try:
        mine = gemini.client.webhooks.create(subscribed_events=["batch.succeeded"], uri=webhook_receiver.url + "/me")
        assert other.webhooks.list().webhooks is None
        with pytest.raises(_interactions.NotFoundError):
            other.webhooks.get(mine.id)
        other.webhooks.create(subscribed_events=["batch.succeeded"], uri=webhook_receiver.url + "/other")
        gemini.batch_schedule(pendingMs=0, runningMs=10)
        gemini.client.batches.create(model=MODEL, src=[{"contents": [{"parts": [{"text": "hi"}], "role": "user"}]}])
        webhook_receiver.wait_for("batch.succeeded")
        assert [r.path for r in webhook_receiver.received] == ["/hook/me"]
    finally:
        admin = AdminClient(gemini.url, api_key=other_key)
        admin.reset()
        admin.close()


def test_bounds_on_count_and_sizes(gemini: Gemini) -> None:
    headers = {"x-goog-api-key": gemini.api_key}
    with httpx.Client(base_url=gemini.url, headers=headers) as http:
        body = {"subscribed_events": ["batch.failed"], "uri": "http://127.0.0.1:9/"}
        for _ in range(MAX_PER_NAMESPACE):
            assert http.post("/v1/webhooks", json=body).status_code == 200
        past = http.post("/v1/webhooks", json=body)
        assert past.status_code == 429 and "100 webhooks" in past.json()["error"]["message"]
        long_uri = http.post("/v1/webhooks", json={**body, "uri": "http://127.0.0.1/" + "a" * 3000})
        assert long_uri.status_code == 400
        unknown = http.post("/v1/webhooks", json={**body, "secret": "x"})
        assert unknown.status_code == 400 and "secret" in unknown.text
        page = http.get("/v1/webhooks", params={"page_size": 5000}).json()
        assert len(page["webhooks"]) == MAX_PER_NAMESPACE and "next_page_token" not in page
        assert http.get("/v1/webhooks", params={"page_token": "nope"}).status_code == 400
    listed = gemini.admin.resources("webhooks")["webhooks"]  # the admin view: counts secrets, never shows one
    assert len(listed) == MAX_PER_NAMESPACE and {s["signingSecrets"] for s in listed} == {1}
    assert "whsec_" not in str(listed)


def test_a_batch_webhook_config_delivers_to_its_uris_signed_with_a_jwt(
    gemini: Gemini, webhook_receiver: Receiver
) -> None:
    client = gemini.client
    registered = client.webhooks.create(subscribed_events=BATCH_EVENTS, uri=webhook_receiver.url + "/registered")
    gemini.batch_schedule(pendingMs=0, runningMs=20)
    dynamic_uri = webhook_receiver.url + "/dynamic"
    config = types.CreateBatchJobConfig(
        webhook_config=types.WebhookConfig(uris=[dynamic_uri], user_metadata={"batch_id": "123"})
    )
    src = [{"contents": [{"parts": [{"text": "Say hello"}], "role": "user"}]}]
    job = client.batches.create(model=MODEL, src=src, config=config)
    got = webhook_receiver.wait_for("batch.succeeded")
    assert got.path == "/hook/dynamic"  # instead of the registered webhook, not beside it
    assert got.event["data"] == {"id": job.name, "state": "BATCH_STATE_SUCCEEDED", "user_metadata": {"batch_id": "123"}}
    jwks = gemini.admin.webhook_jwks()
    assert got.verify_jwt(jwks, dynamic_uri)
    assert not got.verify_jwt(jwks, webhook_receiver.url + "/other")  # the audience is the URI posted to
    assert not got.verify(registered.new_signing_secret)  # not the static HMAC scheme
    tampered = Received(got.method, got.path, got.headers, got.body.replace(b"123", b"124"), got.status, got.at)
    assert not tampered.verify_jwt(jwks, dynamic_uri)  # the token covers the body
    assert [r.path for r in webhook_receiver.received] == ["/hook/dynamic"]
    (record,) = _journal_until(gemini, lambda rs: len(rs) == 1 and rs[0]["status"] == 200)
    assert record["delivery"]["webhook"] == "dynamic" and record["path"] == dynamic_uri


def test_a_background_interaction_webhook_config_async(gemini: Gemini, webhook_receiver: Receiver) -> None:
    async def run() -> tuple[str, Received]:
        started = await gemini.client.aio.interactions.create(
            model=MODEL,
            input="Say hello",
            background=True,
            webhook_config={"uris": [webhook_receiver.url], "user_metadata": {"run": 7}},
        )
        got = await asyncio.to_thread(webhook_receiver.wait_for, "interaction.completed")
        return started.id, got

    interaction_id, got = asyncio.run(run())
    assert got.event["data"] == {"id": interaction_id, "status": "completed", "user_metadata": {"run": 7}}
    assert got.verify_jwt(gemini.admin.webhook_jwks(), webhook_receiver.url)


def test_a_webhook_config_uri_the_emulator_may_not_post_to_is_a_400(gemini: Gemini) -> None:
    http = httpx.Client(base_url=gemini.url, headers={"x-goog-api-key": gemini.api_key})
    body = {
        "batch": {
            "inputConfig": {"requests": {"requests": [{"request": {"contents": [{"parts": [{"text": "hi"}]}]}}]}},
            "webhookConfig": {"uris": ["https://example.com/hook"]},
        }
    }
    answer = http.post(f"/v1beta/models/{MODEL}:batchGenerateContent", json=body)
    assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "batch.webhook_config.uris" in answer.json()["error"]["message"]
    asked = {"model": MODEL, "input": "hi", "background": True, "webhook_config": {"uris": ["ftp://127.0.0.1/x"]}}
    answer = http.post("/v1beta/interactions", json=asked)
    assert answer.status_code == 400 and "not an http or https URL" in answer.json()["error"]["message"]
    jwks = httpx.get(gemini.url + "/__emulator/webhooks/jwks").json()  # open: a receiver fetches it
    assert jwks["keys"][0]["kty"] == "RSA" and jwks["keys"][0]["alg"] == "RS256" and "d" not in jwks["keys"][0]
