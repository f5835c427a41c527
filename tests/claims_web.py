"""Claims of issue 32: web pages, CORS, Firebase AI Logic."""

from __future__ import annotations

from claim_type import Claim

_C = "tests/wire/test_cors.py::"
_B = "tests/browser/test_web_sdks.py::"
_NO_CAPTURE = "best-known: no preflight or cross-origin answer from a Google API host is in the corpus"

WEB_CLAIMS: list[Claim] = [
    Claim(
        "web-cors-preflight",
        "OPTIONS on every Gemini API path (Developer, Vertex, express, Firebase, uploads, files, OpenAI)",
        "A preflight from an allowed origin answers 200 with Access-Control-Allow-Origin echoing the page's origin, "
        "the requested headers echoed, every method, Max-Age 3600; a refused origin gets no Allow-Origin",
        (
            _C + "test_a_preflight_from_a_loopback_page_is_let_in",
            _C + "test_every_loopback_origin_is_let_in_by_default",
            _C + "test_a_page_from_another_site_is_kept_out_by_default",
            _C + "test_a_listed_origin_and_no_other",
            _C + "test_star_lets_any_page_in_and_echoes_it",
        ),
        source="the CORS protocol (Fetch standard); Google's front end echoes the origin",
        divergence=_NO_CAPTURE + "; only loopback pages are let in by default (--cors-origins), production lets any",
    ),
    Claim(
        "web-cors-answers",
        "every Gemini API answer to a request with an allowed Origin, streams and errors included",
        "Access-Control-Allow-Origin names the page; the upload headers and x-gemini-service-tier are exposed; Vary "
        "stays production's Origin, X-Origin, Referer; a request without Origin keeps production's bytes",
        (
            _C + "test_answers_name_the_page_streams_included",
            _C + "test_an_upload_start_exposes_the_upload_url",
            _C + "test_callers_without_an_origin_get_production_bytes",
        ),
        source="@google/genai's browser build reads x-goog-upload-url and x-goog-upload-status",
        divergence=_NO_CAPTURE,
    ),
    Claim(
        "web-admin-closed",
        "/__emulator/* from another origin",
        "The admin API answers no other origin whatever --cors-origins says: no Allow-Origin on its preflight, a 403 "
        "on its calls",
        (_C + "test_the_admin_api_stays_closed_to_other_origins",),
        source="emulator-only surface (docs/security.md)",
    ),
    Claim(
        "web-live-origin",
        "the Live API's WebSocket handshake with an Origin",
        "A handshake from a page the CORS rules keep out (any page with CORS off) is refused with a 403 before the "
        "upgrade; an allowed page, or a client sending no Origin, opens its session",
        (
            _C + "test_a_live_session_from_a_loopback_page_opens",
            _C + "test_a_live_session_from_another_site_is_refused",
        ),
        source="emulator-only guard: browsers apply no CORS to WebSockets (RFC 6455 leaves Origin to the server)",
        divergence="production accepts any origin on its Live endpoint",
    ),
    Claim(
        "web-cors-off",
        "--cors-origins off",
        "No preflight is answered: a page on another origin cannot call the emulator (the browser's Failed to "
        "fetch, no call reaches the server)",
        (_C + "test_cors_off_answers_no_preflight", _B + "test_without_cors_the_page_cannot_reach_the_emulator"),
        source="the CORS protocol",
    ),
    Claim(
        "web-sdks-in-a-browser",
        "firebase/ai 12.19 (both backends) and @google/genai 3.3.0's browser build in Chromium",
        "From a page on another origin: generate, stream, chat, function call, structured output, countTokens, an "
        "image from a Blob, a server prompt template, a Live turn through the WebSocket shim; genai's generate, "
        "stream, countTokens and files.upload of a Blob",
        (_B + "test_the_web_sdks_work_from_a_page_on_another_origin",),
        source="the SDKs themselves, bundled from npm",
    ),
    Claim(
        "web-app-check",
        "--app-check on /v1beta/projects/{p}/[locations/{l}/publishers/google/]models/{m}:{method}",
        "A Firebase call without an App Check token, with an empty one or with the SDK's placeholder gets 401 "
        'UNAUTHENTICATED "Firebase App Check token is invalid."; any other token passes; other families and the '
        "default (off) are not affected",
        (
            _C + "test_app_check_enforcement_refuses_a_firebase_call_without_a_token",
            _C + "test_app_check_enforcement_leaves_other_paths_alone",
            _C + "test_app_check_is_off_by_default",
            _B + "test_the_web_sdks_work_from_a_page_on_another_origin",
        ),
        source="@firebase/app-check formatDummyToken (the placeholder); Google's front end's App Check text for "
        "other Firebase services",
        divergence="best-known: no recording of Firebase AI Logic's refusal; tokens are not verified",
    ),
    Claim(
        "web-firebase-credentials-journaled",
        "X-Firebase-AppCheck, X-Firebase-Appid, Authorization: Firebase <token>",
        "Accepted; the journal shows REDACTED for the App Check token, 'Firebase REDACTED' for the ID token and the "
        "app id as sent; no credential value appears",
        (_C + "test_the_journal_shows_which_firebase_credentials_came_never_their_values",),
        source="firebase request.ts::getHeaders (sdk-wire.md)",
    ),
]
