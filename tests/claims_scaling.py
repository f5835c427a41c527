"""Claims of issue 34's routing recipe: replicas of the in-memory emulator behind nginx or HAProxy, routed by API
key, with `--replica NAME` routing the resumable upload's key-less follow-ups (docs/scaling.md)."""

from __future__ import annotations

from claim_type import Claim

_P = "tests/scaling/test_proxy_routing.py::"
_R = "tests/scaling/test_replica_name.py::"
_SDK = (
    "google-genai 3.6.1 _api_client._upload_fd, _extra_utils.prepare_resumable_upload; @google/genai 3.3 "
    "uploadBlobInternal"
)

SCALING_CLAIMS: list[Claim] = [
    Claim(
        "replica-upload-ids",
        "POST /upload/{v}/files, POST /upload/{v}/fileSearchStores/{id}:uploadToFileSearchStore (resumable start)",
        "With --replica NAME (GEMINI_EMULATOR_REPLICA; 1 to 16 letters and digits, anything else refused at "
        "start-up) the upload id in X-Goog-Upload-URL and X-GUploader-UploadID begins `NAME-`, then 64 random "
        "base64url characters; the URL's shape is otherwise unchanged, and without the setting the ids are as "
        "before; the name alone or the random part under another name finds no session (404 final)",
        (
            _R + "test_upload_ids_begin_with_the_replica_name_and_the_upload_works",
            _R + "test_file_search_store_uploads_carry_the_name_too",
            _R + "test_without_a_name_the_ids_are_as_before",
            _R + "test_a_name_outside_letters_and_digits_is_refused",
        ),
        source=f"{_SDK} (google-genai sends the follow-ups without x-goog-api-key; measured against a recording "
        "server); production's ids as the pydantic-ai cassettes show them (opaque base64url)",
        divergence="deliberate: production's upload ids carry no replica name; the prefix lets a proxy route the "
        "key-less follow-ups, in production's alphabet and URL shape",
    ),
    Claim(
        "redis-replicas-round-robin",
        "docs/scaling.md's round-robin nginx block in front of replicas on --store redis://...",
        "Two replicas on one Redis, two workers each, behind nginx's round robin (each call the next replica): "
        "1,000 scripted entries answered exactly once to 50 concurrent clients, none left pending; a 17 MiB "
        "google-genai upload whose start and three chunks alternate between the replicas (nginx's log) is one "
        "file both replicas read with its sha256; a batch created through the proxy is polled done on each "
        "replica; the key's journal read through either is the same whole log",
        (_P + "test_replicas_on_redis_need_no_sticky_routing",),
        source="the emulator's own deployment recipe (production has no replicas to route)",
        divergence="deliberate: emulator-only",
    ),
    Claim(
        "replica-token-names",
        "POST /v1alpha/auth_tokens (google-genai auth_tokens.create)",
        "With --replica NAME an ephemeral token's name begins `auth_tokens/NAME-`, then 48 random hex digits; "
        "without the setting it is `auth_tokens/` and the digits, as before",
        (_P + "test_live_sessions_opened_with_ephemeral_tokens_reach_the_replica_that_minted_them",),
        source="the emulator's own deployment recipe; production's token names are opaque",
        divergence="deliberate: production's token names carry no replica name; the prefix lets a proxy send a Live "
        "session opened with the token to the replica holding it",
    ),
    Claim(
        "replica-proxy-routing",
        "docs/scaling.md's nginx and HAProxy recipes",
        "Behind the recipe (run as the document shows it, on Debian's nginx 1.22 and HAProxy 2.6), every key's "
        "Gemini and admin calls reach one replica (scripts honoured, journals whole, the other replica sees none of "
        "them); a three-chunk google-genai upload by a key whose replica is not the one the key-less follow-ups "
        "hash to completes and files.get finds it; alt=sse events pass as sent; a Live WebSocket reaches the key's "
        "replica; a Live session opened with an ephemeral token (Authorization: Token, or ?access_token= with its "
        "slash as sent or escaped) reaches the replica that minted it; nginx keeps a replica that was still "
        "starting in the hash (max_fails=0)",
        (
            _P + "test_each_key_reaches_one_replica_for_gemini_and_admin_calls",
            _P + "test_resumable_upload_follow_ups_reach_the_replica_holding_the_session",
            _P + "test_sse_events_pass_through_as_they_are_sent",
            _P + "test_live_websocket_upgrades_through_the_proxy_to_the_keys_replica",
            _P + "test_live_sessions_opened_with_ephemeral_tokens_reach_the_replica_that_minted_them",
            _P + "test_a_replica_that_was_still_starting_gets_its_keys_at_once",
        ),
        source="the emulator's own deployment recipe (production has no replicas to route)",
        divergence="deliberate: emulator-only; Envoy and Kubernetes recipes are described, not tested",
    ),
]
