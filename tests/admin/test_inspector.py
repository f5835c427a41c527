"""The inspector page (GET /__emulator/inspector) in a real browser: Debian's chromium driven by Playwright.

The page is loaded from a running emulator, requests are made with real clients, and the page is watched until
they appear (Playwright's auto-waiting, no sleeps). The browser tests are skipped only where /usr/bin/chromium is
missing and CI is unset; in CI a missing browser fails them (.ci/run installs it).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from browser_env import chromium
from google import genai
from google.genai import types

from gemini_emulator.admin.api import PREFIX
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.config import Settings
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator, start
from gemini_emulator.wire.auth import key_namespace


@pytest.fixture
def gemini(gemini_fresh: Gemini) -> Gemini:
    """These tests read or write beyond their own namespace (other keys, the shared script, every namespace):
    each gets an emulator of its own."""
    return gemini_fresh


SCREENSHOT = Path(__file__).resolve().parents[2] / "build" / "inspector.png"
MODEL = "gemini-2.5-flash"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent"
GENERATE = f"/v1beta/models/{MODEL}:generateContent"
PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


def body(text: str) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


def inspector_url(server: RunningEmulator, **query: str) -> str:
    params = "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
    return f"{server.url}{PREFIX}/inspector" + (f"?{params}" if params else "")


# --- the page and the namespaces endpoint over plain HTTP --------------------------------------------


def test_the_page_is_one_offline_file_whose_csp_runs_only_its_own_script(http: httpx.Client) -> None:
    response = http.get(f"{PREFIX}/inspector")
    assert response.status_code == 200 and response.headers["content-type"] == "text/html; charset=utf-8"
    html = response.text
    assert "http://" not in html and "https://" not in html  # no CDN, no external link
    assert all(url.startswith("data:") for url in re.findall(r'(?:src|href)="([^"]*)"', html))
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "document.write" not in script
    csp = response.headers["content-security-policy"]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}';" in csp and "default-src 'none'" in csp and "connect-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"


def test_namespaces_lists_each_namespace_with_its_requests_and_pending_entries(gemini: Gemini) -> None:
    with httpx.Client(base_url=gemini.url, timeout=10) as http:
        http.post(f"{PREFIX}/script", headers={"x-goog-api-key": "secret-a"}, json=[{"text": "a"}, {"text": "b"}])
        http.post(GENERATE, headers={"x-goog-api-key": "secret-a"}, json=body("one"))
        for _ in range(2):
            http.post(GENERATE, headers={"x-goog-api-key": "secret-b"}, json=body("two"))
        http.get(f"{PREFIX}/script", headers={"x-goog-api-key": "secret-c"})  # only looked at: not in use
        response = http.get(f"{PREFIX}/namespaces")
        a, b = key_namespace("secret-a"), key_namespace("secret-b")
        assert response.json() == {
            "requests": 3,
            "evicted": 0,
            "namespaces": sorted(
                [
                    {"name": a, "requests": 1, "pending": 1, "evicted": 0},
                    {"name": b, "requests": 2, "pending": 0, "evicted": 0},
                ],
                key=lambda space: space["name"],
            ),
        }
        assert "secret-" not in response.text  # namespaces are digests of the keys
        http.post(f"{PREFIX}/reset", headers={"x-goog-api-key": "secret-a"})
        assert [s["name"] for s in http.get(f"{PREFIX}/namespaces").json()["namespaces"]] == [b]


def test_with_an_admin_token_the_page_is_open_and_its_data_is_not() -> None:
    running = start(Settings(port=0, admin_token="inspector-token"))
    try:
        assert httpx.get(inspector_url(running)).status_code == 200  # a browser cannot send a header to open it
        assert httpx.get(f"{running.url}{PREFIX}/namespaces").status_code == 403
        allowed = httpx.get(f"{running.url}{PREFIX}/namespaces", headers={ADMIN_TOKEN_HEADER: "inspector-token"})
        assert allowed.status_code == 200
    finally:
        running.stop()


# --- in the browser ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright (no browser download: the system binary)."""
    with chromium() as launched:
        yield launched


class Watched:
    """A page, the URLs it tried to reach off the emulator, its JavaScript errors and its admin requests."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.admin_requests: list[tuple[str, dict[str, str]]] = []


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    watched = Watched(context.new_page())

    def route(route: Any) -> None:
        if re.match(r"http://127\.0\.0\.1:\d+/", route.request.url):
            route.continue_()
        else:  # offline: nothing but the emulator itself may be fetched
            watched.outside.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    watched.page.on("pageerror", lambda error: watched.errors.append(str(error)))

    def request(request: Any) -> None:
        if PREFIX in request.url:
            watched.admin_requests.append((request.url, request.headers))

    watched.page.on("request", request)
    yield watched
    context.close()
    assert watched.outside == [] and watched.errors == []


def test_a_request_appears_live_with_its_body_its_chunks_and_the_script(gemini_shared: Gemini, watched: Watched):
    from playwright.sync_api import expect

    page = watched.page
    namespace = key_namespace(gemini_shared.api_key)
    page.goto(inspector_url(gemini_shared.server, namespace=namespace))
    expect(page.locator("#title")).to_have_text(namespace)
    expect(page.locator("#requests-empty")).to_be_visible()

    gemini_shared.script(
        {"name": "greeting", "chunks": ["Hello ", "from the ", "inspector."]},
        {"name": "later", "text": "Not yet."},
    )
    entries = page.locator("#script > li")
    expect(entries.locator(".entry-name")).to_have_text(["greeting", "later"])  # scripted after the page loaded

    stream = gemini_shared.client.models.generate_content_stream(model=MODEL, contents="Tell the inspector hello")
    assert "".join(chunk.text for chunk in stream) == "Hello from the inspector."

    card = page.locator("details.request")
    expect(card).to_have_count(1)
    expect(card.locator(".status")).to_have_text("200")
    expect(card.locator(".path")).to_have_text(re.compile(rf"/models/{MODEL}:streamGenerateContent\?alt=sse$"))
    expect(card.locator(".entry")).to_have_text("greeting")
    expect(card.locator(".prompt")).to_have_text("Tell the inspector hello")
    expect(card).to_have_attribute("open", "")  # the newest request opens by itself
    expect(card.locator(".req pre.json")).to_contain_text('"text": "Tell the inspector hello"')
    expect(card.locator(".resp h4")).to_have_text("Response · 3 chunks")
    chunks = card.locator(".chunk")
    expect(chunks.locator(".chunk-label")).to_have_text(["chunk 1 of 3", "chunk 2 of 3", "chunk 3 of 3"])
    expect(chunks.locator(".say")).to_have_text(["Hello ", "from the ", "inspector."])
    expect(chunks.nth(2).locator(".chunk-summary")).to_contain_text("finishReason STOP")
    expect(chunks.nth(0).locator("pre.json")).to_contain_text('"text": "Hello "')  # each chunk pretty-printed
    expect(entries.locator(".entry-name")).to_have_text(["later"])  # the served entry left the script
    current = page.locator("#namespaces button[aria-current=true]")
    expect(current).to_contain_text(namespace)
    expect(current).to_contain_text("1 request · 1 pending")
    assert gemini_shared.api_key not in page.content()

    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    page.click("#clear")
    expect(card).to_have_count(0)
    expect(entries).to_have_count(0)
    expect(page.locator("#requests-empty")).to_be_visible()
    assert gemini_shared.journal() == [] and gemini_shared.pending() == []


def test_json_array_streams_error_tails_and_unary_bodies_are_split_into_chunks(gemini_shared: Gemini, watched: Watched):
    from playwright.sync_api import expect

    key = {"x-goog-api-key": gemini_shared.api_key}
    failing = {"chunks": ["one ", "two ", "three"], "errorAfterChunks": 2, "error": "unavailable"}
    gemini_shared.script(failing, failing, {"text": "Unary."})
    with httpx.Client(base_url=gemini_shared.url, headers=key, timeout=10) as http:
        http.post(STREAM, json=body("array")).raise_for_status()  # JSON array: the error is the last element
        http.post(STREAM, params={"alt": "sse"}, json=body("sse")).raise_for_status()  # SSE: a raw error tail
        http.post(GENERATE, json=body("unary")).raise_for_status()

    page = watched.page
    page.goto(inspector_url(gemini_shared.server, namespace=key_namespace(gemini_shared.api_key)))
    cards = page.locator("details.request")
    expect(cards.locator(".prompt")).to_have_text(["unary", "sse", "array"])  # newest first
    unary, sse, array = cards.nth(0), cards.nth(1), cards.nth(2)
    expect(unary.locator(".resp h4")).to_have_text("Response")
    expect(unary.locator(".chunk-label")).to_have_text(["body"])
    expect(unary.locator(".say")).to_have_text(["Unary."])
    for card in (sse, array):
        expect(card).not_to_have_attribute("open", "")
        card.locator("summary").first.click()
        expect(card.locator(".resp h4")).to_have_text("Response · 3 chunks")
        expect(card.locator(".say")).to_have_text(["one ", "two "])
        last = card.locator(".chunk").nth(2)
        expect(last).to_have_class(re.compile(r"\berror\b"))
        expect(last.locator(".chunk-summary")).to_contain_text("error 503 UNAVAILABLE")
        expect(card.locator(".as-sent pre")).to_have_count(1)
    expect(array.locator(".path")).to_have_text(STREAM)


def test_namespaces_are_listed_and_each_can_be_shown_and_cleared(gemini: Gemini, watched: Watched):
    from playwright.sync_api import expect

    keys = {"first": "key-one-do-not-show", "second": "key-two-do-not-show"}
    with httpx.Client(base_url=gemini.url, timeout=10) as http:
        for prompt, key in keys.items():
            http.post(GENERATE, headers={"x-goog-api-key": key}, json=body(prompt)).raise_for_status()
    first, second = (key_namespace(key) for key in keys.values())

    page = watched.page
    page.goto(inspector_url(gemini.server))
    expect(page.locator("#title")).to_have_text("All namespaces")
    cards = page.locator("details.request")
    expect(cards.locator(".prompt")).to_have_text(["second", "first"])
    names = page.locator("#namespaces .ns-name")
    expect(names.filter(has_text=first)).to_have_count(1)
    expect(names.filter(has_text=second)).to_have_count(1)

    page.locator("#namespaces button", has_text=first).click()
    expect(page.locator("#title")).to_have_text(first)
    expect(cards.locator(".prompt")).to_have_text(["first"])
    assert f"namespace={quote(first, safe='')}" in page.url

    page.click("#clear")
    expect(cards).to_have_count(0)
    page.locator("#namespaces button", has_text="All namespaces").click()
    expect(cards.locator(".prompt")).to_have_text(["second"])  # clearing one namespace left the other
    expect(page.locator("#clear")).to_have_text("Clear all namespaces")
    page.click("#clear")
    expect(cards).to_have_count(0)
    assert httpx.get(f"{gemini.url}{PREFIX}/journal").json()["records"] == []
    content = page.content()
    assert all(key not in content for key in keys.values())


def test_the_page_shows_markup_as_text_and_runs_none_of_it(gemini: Gemini, watched: Watched):
    from playwright.sync_api import expect

    header = {"x-emulator-namespace": PAYLOAD}
    with httpx.Client(base_url=gemini.url, headers=header, timeout=10) as http:
        entry = {"name": PAYLOAD, "chunks": [PAYLOAD, PAYLOAD]}
        http.post(f"{PREFIX}/script", json=[entry, {"name": PAYLOAD, "text": PAYLOAD}]).raise_for_status()
    client = genai.Client(api_key=gemini.api_key, http_options=types.HttpOptions(base_url=gemini.url, headers=header))
    assert "".join(c.text for c in client.models.generate_content_stream(model=MODEL, contents=PAYLOAD)) == PAYLOAD * 2

    page = watched.page
    page.goto(inspector_url(gemini.server, namespace=PAYLOAD))
    card = page.locator("details.request")
    expect(card.locator(".say")).to_have_text([PAYLOAD, PAYLOAD])  # the model's text, literally
    expect(card.locator(".prompt")).to_have_text(PAYLOAD)
    expect(card.locator(".entry")).to_have_text(PAYLOAD)
    expect(page.locator("#title")).to_have_text(PAYLOAD)
    expect(page.locator("#script .entry-name")).to_have_text([PAYLOAD])
    expect(page.locator("#namespaces .ns-name", has_text=PAYLOAD)).to_have_count(1)
    expect(card.locator("table.headers td", has_text=PAYLOAD)).to_have_count(1)
    injected = page.evaluate(
        "() => ({images: document.images.length, scripts: document.scripts.length,"
        " pwned: window.__pwned === undefined ? null : window.__pwned,"
        " handlers: document.querySelectorAll('[onerror]').length})"
    )
    assert injected == {"images": 0, "scripts": 1, "pwned": None, "handlers": 0}


def test_the_page_sends_the_admin_token_it_was_opened_with_and_keeps_it_in_memory(watched: Watched):
    from playwright.sync_api import expect

    token = "inspector-token-do-not-keep"
    running = start(Settings(port=0, admin_token=token))
    try:
        httpx.post(running.url + GENERATE, headers={"x-goog-api-key": "k"}, json=body("guarded")).raise_for_status()
        page = watched.page
        page.goto(inspector_url(running, token=token))
        expect(page.locator("details.request .prompt")).to_have_text(["guarded"])
        expect(page.locator("#error")).to_be_hidden()
        assert token not in page.url  # out of the address bar and the history entry
        kept = page.evaluate("() => JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])")
        assert token not in kept and token not in page.content()
        calls = [(url, headers) for url, headers in watched.admin_requests if "/inspector" not in url]
        assert calls and all(headers.get(ADMIN_TOKEN_HEADER) == token for _, headers in calls)

        page.goto(inspector_url(running))  # no token: the admin API's refusal is shown
        expect(page.locator("#error")).to_contain_text("403")
        expect(page.locator("#status")).to_have_text("disconnected")
    finally:
        running.stop()


def test_the_start_up_banner_points_at_the_page(gemini_emulator: RunningEmulator) -> None:
    from gemini_emulator.cli import banner

    line = next(line for line in banner(gemini_emulator.settings).splitlines() if "Inspector" in line)
    url = inspector_url(gemini_emulator)
    assert url in line and httpx.get(url).status_code == 200


def test_the_resources_panel_lists_files_with_size_and_state_and_clears(gemini_shared: Gemini, watched: Watched):
    import io

    from playwright.sync_api import expect

    page = watched.page
    namespace = key_namespace(gemini_shared.api_key)
    page.goto(inspector_url(gemini_shared.server, namespace=namespace))
    expect(page.locator("#resources-empty")).to_be_visible()
    made = gemini_shared.client.files.upload(
        file=io.BytesIO(b"twelve bytes"), config={"mime_type": "text/plain", "display_name": "Notes"}
    )
    item = page.locator("#resources > li")
    expect(item).to_have_count(1)
    expect(item.locator("code")).to_have_text(made.name)
    expect(item).to_contain_text("displayName Notes · mimeType text/plain · sizeBytes 12 · state ACTIVE")
    expect(page.locator("#resource-count")).to_have_text("1")
    page.click("#clear")
    expect(item).to_have_count(0)
    expect(page.locator("#resources-empty")).to_be_visible()
