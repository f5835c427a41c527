"""Claims of the Live API on Firebase AI Logic's WebSocket paths (issue 32 item 3)."""

from __future__ import annotations

from claim_type import Claim

FIREBASE_LIVE = "tests/wire/live/test_live_firebase.py::"
SHIM = "tests/web/test_firebase_live_shim.py::"
JS_FIREBASE_LIVE = "tests/sdk/test_js_matrix.py::test_js_sdk[firebase-live.test.mjs]"
SDK_SOURCE = "firebase 12.19.0 (@firebase/ai 2.16.0) dist: WebSocketUrl, LiveGenerativeModel.connect, LiveSession"

FIREBASE_LIVE_CLAIMS = [
    Claim(
        "firebase-live-developer",
        "WS /ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent",
        "the key in ?key=, setup model `projects/{p}/models/{m}`: the Gemini API's Live protocol (setupComplete {}, "
        "modelTurn pieces, generationComplete, turnComplete with responseTokenCount)",
        (
            FIREBASE_LIVE + "test_setup_and_a_text_turn[GoogleAIBackend]",
            FIREBASE_LIVE + "test_a_function_call_turn[GoogleAIBackend]",
            JS_FIREBASE_LIVE,
        ),
        source=SDK_SOURCE,
        divergence="no capture of firebasevertexai.googleapis.com's Live traffic: that the proxy answers as the "
        "Gemini API's Live service does is a guess",
    ),
    Claim(
        "firebase-live-vertex",
        "WS /ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/{l}",
        "the key in ?key= (no bearer token), setup model `projects/{p}/locations/{l}/publishers/google/models/{m}`: "
        "Vertex's Live protocol (setupComplete sessionId, role model, candidatesTokenCount, uuid call ids); a "
        "location that is no region refused at the handshake",
        (
            FIREBASE_LIVE + "test_setup_and_a_text_turn[VertexAIBackend]",
            FIREBASE_LIVE + "test_a_function_call_turn[VertexAIBackend]",
            FIREBASE_LIVE + "test_a_location_that_is_no_region_is_refused_at_the_handshake",
            JS_FIREBASE_LIVE,
        ),
        source=SDK_SOURCE,
        divergence="no capture: the Vertex shapes behind the Firebase proxy, and the refused location (the Firebase "
        "HTTP paths' HTML 404 becomes a 403 handshake), are guesses",
    ),
    Claim(
        "firebase-live-errors-namespaces",
        "WS /ws/google.firebase.vertexai.v1beta.*",
        "wrong model 1008 naming it (the Vertex reason with the setup's project and location), no key 1008; each "
        "key its own namespace, script and journal record; scripted errors and drops end the session",
        (
            FIREBASE_LIVE + "test_a_wrong_model_closes_1008_naming_it",
            FIREBASE_LIVE + "test_no_key_closes_1008",
            FIREBASE_LIVE + "test_each_key_is_its_own_namespace",
            FIREBASE_LIVE + "test_scripted_faults_apply",
        ),
        source="the Live API's close frames (docs/conformance.md, Live)",
        divergence="the proxy's own close frames are not captured: the Live service's are sent",
    ),
    Claim(
        "firebase-live-shim",
        "GET /__emulator/firebase-live-shim.js",
        "a script any page may load (cross-site <script src>, no token, nothing else of the admin API opened) that "
        "sends WebSockets on wss://firebasevertexai.googleapis.com/ to the emulator, path and query kept, and "
        "leaves every other WebSocket alone; `gemini-emulator firebase-live-shim [--url]` prints it",
        (
            SHIM + "test_a_cross_site_script_tag_gets_the_shim",
            SHIM + "test_nothing_else_opens_to_other_origins",
            SHIM + "test_the_cli_prints_it_with_or_without_a_url",
            JS_FIREBASE_LIVE,
        ),
        source="emulator-only (firebase/ai builds its Live URL on the fixed host and ignores baseUrl: "
        + SDK_SOURCE
        + ")",
    ),
]
