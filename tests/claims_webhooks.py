"""Claims of issue 33's webhooks: `client.webhooks` (create, get, list, update, delete, ping, rotateSigningSecret) and
the signed deliveries of batch, interaction and video events."""

from __future__ import annotations

from claim_type import Claim

_T = "tests/wire/resources/test_webhooks.py::"
_SDK = "google-genai 3.6.1 _gaos/webhooks.py, _gaos/types/webhooks/"
_STANDARD = "the Gemini API webhooks guide (Standard Webhooks, HMAC-SHA256 for static webhooks)"

WEBHOOK_CLAIMS: list[Claim] = [
    Claim(
        "webhooks-crud",
        "POST|GET /{v}/webhooks, GET|PATCH|DELETE /{v}/webhooks/{id}",
        "create takes {name?, subscribed_events, uri} and answers the Webhook with id, state enabled, signing_secrets "
        "(truncated), new_signing_secret (only there), create_time, update_time; get, list ({webhooks, "
        "next_page_token}; page_size 50 by default, at most 1000) and update (update_mask in the query, else the "
        "fields sent) answer it without the secret; delete answers {}; an unknown id is a 404; each key sees only "
        "its own",
        (
            _T + "test_every_method_sync",
            _T + "test_every_method_async",
            _T + "test_namespaces_see_and_receive_only_their_own",
        ),
        source=f"{_SDK} (paths, snake_case fields, page_size/page_token/update_mask query parameters, page sizes)",
        divergence="best-known: the id's form, the key order, the page token and every error's wording",
    ),
    Claim(
        "webhooks-signing",
        "webhook deliveries",
        "Each delivery is a POST of {type, version, timestamp, data} with webhook-id, webhook-timestamp and "
        "webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed by the whsec_ secret's bytes), "
        "verifiable with the Standard Webhooks scheme",
        (_T + "test_a_batch_that_succeeds_delivers_batch_succeeded", _T + "test_every_method_sync"),
        source=_STANDARD,
        divergence="best-known: the payload's fields (version, data.id, data.state, file_name, error_code, "
        "error_message), the ping's type webhook.ping, the user agent",
    ),
    Claim(
        "webhooks-rotate",
        "POST /{v}/webhooks/{id}:rotateSigningSecret",
        "answers {secret}; with revoke_previous_secrets_after_h24 (the default here) the previous secrets sign for "
        "24 hours more (two v1 entries, their expire_time shown), with revoke_previous_secrets_immediately only the "
        "new one signs",
        (_T + "test_rotation_signs_with_both_secrets_for_the_grace_then_only_the_new",),
        source=f"{_SDK} (RevocationBehavior, SigningSecret.expire_time); Standard Webhooks (several signatures)",
        divergence="best-known: the default revocation when none is sent",
    ),
    Claim(
        "webhooks-events",
        "batches, interactions, Veo operations",
        "A namespace's enabled webhooks subscribed to the event get batch.succeeded/failed/expired/cancelled when a "
        "batch ends, interaction.completed/requires_action/failed/cancelled when a background interaction ends, "
        "video.generated when a Veo operation is done, and a ping on :ping; disabled webhooks get none",
        (
            _T + "test_a_batch_that_succeeds_delivers_batch_succeeded",
            _T + "test_a_failed_batch_and_a_disabled_webhook",
            _T + "test_a_background_interaction_delivers_its_end",
            _T + "test_retries_back_off_then_deliver_and_a_video_is_delivered",
        ),
        source=f"{_SDK} (WebhookSubscribedEvent); the @google/genai reference (batch.cancelled, interaction.cancelled)",
        divergence="best-known: only background interactions deliver; a batch of a namespace with no batch "
        "webhook at its creation is not watched",
    ),
    Claim(
        "webhooks-delivery-bounds",
        "webhook deliveries",
        "A delivery without a 2xx is tried again --webhook-retries times, waiting --webhook-backoff-ms then twice "
        "as long each time; every attempt is a journal record (rpc webhooks.deliver: URL, event, status or error, "
        "outcome) without a secret; URIs name loopback hosts or --webhook-hosts only (else a 400)",
        (
            _T + "test_retries_back_off_then_deliver_and_a_video_is_delivered",
            _T + "test_a_receiver_that_never_answers_2xx_is_given_up_on",
            _T + "test_only_loopback_and_configured_hosts_are_targets",
            _T + "test_a_host_named_in_the_setting_is_a_target",
            _T + "test_bounds_on_count_and_sizes",
        ),
        source="the emulator's own bounds (production retries for 24 hours)",
        divergence="deliberate: a small retry cap, a host guard production has no need for, 100 webhooks per key",
    ),
    Claim(
        "webhooks-dynamic",
        "batch.webhookConfig, interactions webhook_config",
        "A request's webhook_config sends its events to its uris instead of the registered webhooks, with "
        "user_metadata as data.user_metadata, signed with an RS256 JWT (aud the URI, body_sha256 the body's digest) "
        "that verifies against GET /__emulator/webhooks/jwks; a URI off loopback and --webhook-hosts is a 400",
        (
            _T + "test_a_batch_webhook_config_delivers_to_its_uris_signed_with_a_jwt",
            _T + "test_a_background_interaction_webhook_config_async",
            _T + "test_a_webhook_config_uri_the_emulator_may_not_post_to_is_a_400",
        ),
        source=f"{_SDK}; google-genai types.WebhookConfig (uris instead of the registered webhooks, user_metadata); "
        "third-party launch guides (RS256 JWTs against Google's JWKS)",
        divergence="best-known: the JWT's claims, where user_metadata sits, the emulator's own key and JWKS path",
    ),
]
