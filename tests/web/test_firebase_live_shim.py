"""firebase-live-shim.js as pages get it: served at GET /__emulator/firebase-live-shim.js to any origin (a cross-site
<script src> GET, as a browser sends it), while every other admin route stays closed to other origins; and printed by
`gemini-emulator firebase-live-shim`. What the script does is tested in Node (tests/js/firebase-live.test.mjs)."""

from __future__ import annotations

import httpx
import pytest

from gemini_emulator import cli, web
from gemini_emulator.testing.pytest_plugin import Gemini

SHIM = "/__emulator/firebase-live-shim.js"
# What Chromium sends for <script src="http://127.0.0.1:PORT/__emulator/firebase-live-shim.js"> on a page at
# http://localhost:3000 (a classic script: no-cors, no Origin header).
SCRIPT_TAG = {
    "sec-fetch-site": "cross-site",
    "sec-fetch-mode": "no-cors",
    "sec-fetch-dest": "script",
    "referer": "http://localhost:3000/",
}


def test_a_cross_site_script_tag_gets_the_shim(gemini_shared: Gemini) -> None:
    response = httpx.get(gemini_shared.url + SHIM, headers=SCRIPT_TAG)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cross-origin-resource-policy"] == "cross-origin"
    assert response.text == web.SHIM
    assert not [h for h in response.headers if h.startswith("access-control-")]
    head = httpx.head(gemini_shared.url + SHIM, headers=SCRIPT_TAG)
    assert head.status_code == 200 and head.content == b""


def test_nothing_else_opens_to_other_origins(gemini_shared: Gemini) -> None:
    for route in ("/__emulator/journal", "/__emulator/config", "/__emulator/script"):
        assert httpx.get(gemini_shared.url + route, headers=SCRIPT_TAG).status_code == 403, route
    foreign = {"origin": "http://localhost:3000"}
    assert httpx.get(gemini_shared.url + "/__emulator/journal", headers=foreign).status_code == 403
    preflight = httpx.options(gemini_shared.url + SHIM, headers=foreign | {"access-control-request-method": "GET"})
    assert preflight.status_code == 403 and "access-control-allow-origin" not in preflight.headers
    posted = httpx.post(gemini_shared.url + SHIM, headers=SCRIPT_TAG, content=b"")
    assert posted.status_code == 403  # only GET (and HEAD) of the one route is open


@pytest.mark.gemini_settings(admin_token="secret-admin-token")
def test_served_without_the_admin_token_the_rest_still_needs(gemini_fresh: Gemini) -> None:
    assert httpx.get(gemini_fresh.url + SHIM, headers=SCRIPT_TAG).text == web.SHIM
    assert httpx.get(gemini_fresh.url + "/__emulator/journal").status_code == 403


def test_the_cli_prints_it_with_or_without_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["firebase-live-shim"]) == 0
    assert capsys.readouterr().out == web.SHIM
    assert cli.main(["firebase-live-shim", "--url", "http://127.0.0.1:9090"]) == 0
    printed = capsys.readouterr().out
    assert 'var PRINTED = "http://127.0.0.1:9090";' in printed
    assert printed.replace('var PRINTED = "http://127.0.0.1:9090";', "var PRINTED = '';") == web.SHIM
    assert cli.main(["firebase-live-shim", "--url", "ws://x"]) == 2
    assert "--url: an http:// or https:// URL" in capsys.readouterr().err


def test_a_printed_url_cannot_end_an_inline_script() -> None:
    for text in (web.SHIM, web.firebase_live_shim("http://x/</script><script>alert(1)")):
        assert "</script" not in text.lower()
