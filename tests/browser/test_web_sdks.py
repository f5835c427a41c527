"""The web SDKs in a real browser: a page on another origin calls the emulator with firebase/ai and @google/genai.

The test bundles tests/browser/page/main.mjs with esbuild from tests/js/node_modules (the npm packages the JS
matrix pins, no CDN), serves the page from a port of its own (another origin than the emulator's), and opens it in
Debian's chromium under Playwright. The page runs each call and writes its outcome into the page; the test reads
the page (Playwright's waiting, no sleeps), checks the emulator's journal, and keeps a screenshot in build/. The
same page against an emulator with --cors-origins off shows what a user sees without CORS: every call fails in
the browser before it is sent.
"""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from browser_env import OFFLINE, WAIT_MS, chromium
from node_env import JS, NODE, NPM, ensure_node_modules

from gemini_emulator.admin.api import PREFIX
from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

pytestmark = pytest.mark.skipif(not (NODE and NPM), reason="node and npm are needed to bundle the web SDKs")

PAGE_SOURCE = Path(__file__).resolve().parent / "page"
BUILD = Path(__file__).resolve().parents[2] / "build"
BACKENDS = ("firebase-googleai", "firebase-vertexai")
FIREBASE_CALLS = (
    "generate",
    "stream",
    "chat",
    "function-call",
    "structured",
    "count-tokens",
    "image-blob",
    "template",
    "live",
)
# The server prompt template the page calls, set for its key through the admin API (a page cannot reach it).
GREETING = """---
model: gemini-2.5-flash
input:
  schema:
    name: string
---
{{role "user"}}
Say hello to {{name}}.
"""
GENAI_CALLS = ("genai-generate", "genai-stream", "genai-count-tokens", "genai-upload-blob")
EXPECTED = [f"{b}-{c}" for b in BACKENDS for c in FIREBASE_CALLS] + list(GENAI_CALLS)


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory: pytest.TempPathFactory, announce: Callable[[str], None]) -> Path:
    """The page and its bundle (esbuild, browser platform: the SDKs' browser builds)."""
    node_modules = ensure_node_modules(announce)
    out = tmp_path_factory.mktemp("web-page")
    shutil.copy(PAGE_SOURCE / "index.html", out / "index.html")
    done = subprocess.run(
        [
            str(node_modules / ".bin" / "esbuild"),
            str(PAGE_SOURCE / "main.mjs"),
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--target=es2022",
            "--log-level=warning",
            f"--outfile={out / 'main.js'}",
        ],
        env={**os.environ, "NODE_PATH": str(JS / "node_modules")},  # the packages live in tests/js
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"esbuild failed:\n{done.stdout}\n{done.stderr}"
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="module")
def page_origin(page_dir: Path) -> Iterator[str]:
    """The page's own origin: a static server on a port of its own, so every emulator call is cross-origin."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(page_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(OFFLINE) as launched:
        yield launched


@pytest.fixture(scope="module")
def enforcing() -> Iterator[RunningEmulator]:
    """The emulator with its default CORS rules (loopback pages) and App Check enforced on Firebase paths."""
    running = start(Settings(port=0, app_check=True))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def cors_off() -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, cors_origins="off"))
    yield running
    running.stop()


def open_page(browser: Any, origin: str, emulator: RunningEmulator, key: str, **query: str) -> tuple[Any, dict]:
    """The page opened against `emulator`, once it has written every outcome: (the page, {id: (outcome, text)}).
    The browser resolves no name but loopback ones (browser_env.OFFLINE); a request that tried is a failure."""
    page = browser.new_page()
    outside: list[str] = []
    errors: list[str] = []
    page.on(
        "request",
        lambda request: None if urlsplit(request.url).hostname == "127.0.0.1" else outside.append(request.url),
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{origin}/index.html?" + urlencode({"emulator": emulator.url, "key": key, **query}))
    page.wait_for_selector("body[data-done]", timeout=WAIT_MS * 3)
    outcomes = {
        item["id"]: (item["outcome"], item["text"])
        for item in page.eval_on_selector_all(
            "#results li", "items => items.map(i => ({id: i.id, outcome: i.dataset.outcome, text: i.textContent}))"
        )
    }
    assert not errors, f"the page threw: {errors}"
    assert not [url for url in outside if "/v1beta/projects/" in url], outside  # no Firebase call went elsewhere
    return page, outcomes


def journal(emulator: RunningEmulator, key: str) -> list[dict[str, Any]]:
    answer = httpx.get(emulator.url + PREFIX + "/journal", headers={"x-goog-api-key": key})
    assert answer.status_code == 200, answer.text
    records: list[dict[str, Any]] = answer.json()["records"]
    return records


def test_the_web_sdks_work_from_a_page_on_another_origin(
    browser: Any, page_origin: str, enforcing: RunningEmulator
) -> None:
    key = f"page-{uuid.uuid4()}"
    AdminClient(enforcing.url, api_key=key).templates({"id": "greeting-v1", "template": GREETING})
    page, outcomes = open_page(browser, page_origin, enforcing, key, appCheck="1")
    BUILD.mkdir(exist_ok=True)
    page.screenshot(path=str(BUILD / "web-sdks.png"), full_page=True)
    page.close()

    failed = {name: text for name, (outcome, text) in outcomes.items() if outcome != "ok" and name in EXPECTED}
    assert not failed, f"calls that failed in the page: {failed}"
    assert set(EXPECTED) <= set(outcomes)
    for backend in BACKENDS:
        text = {call: outcomes[f"{backend}-{call}"][1].partition(": ")[2] for call in FIREBASE_CALLS}
        assert text["generate"].startswith("Hello")
        assert int(text["stream"].split(" ")[0]) > 1
        assert text["chat"].startswith("4 turns")
        assert text["function-call"].startswith('get_weather({"city":')
        assert text["structured"] == "keys age,name; age is number"
        assert int(text["count-tokens"].split(" ")[0]) > 0
        assert text["image-blob"].startswith("image/png ")
        assert text["template"].startswith("Hello")
        assert text["live"].startswith("Hello")  # a Live turn, through the emulator's WebSocket shim
        # App Check is enforced: the same page's app without App Check gets production's refusal
        outcome, refusal = outcomes[f"{backend}-without-app-check"]
        assert outcome == "refused" and "401" in refusal and "App Check token is invalid" in refusal
    assert outcomes["genai-generate"][1].partition(": ")[2].startswith("Hello")
    assert int(outcomes["genai-stream"][1].partition(": ")[2].split(" ")[0]) > 1
    upload = outcomes["genai-upload-blob"][1].partition(": ")[2].split(" ")
    assert upload[0].startswith("files/") and upload[1] == "image/png" and upload[-1] == "ACTIVE"

    records = journal(enforcing, key)
    firebase = [r for r in records if "/projects/demo-project/" in r["path"]]
    assert {r["path"].split("/models/")[0] for r in firebase if "/models/" in r["path"]} == {
        "/v1beta/projects/demo-project",
        "/v1beta/projects/demo-project/locations/us-central1/publishers/google",
    }
    assert {r["path"] for r in firebase if "/templates/" in r["path"]} == {
        "/v1beta/projects/demo-project/templates/greeting-v1:templateGenerateContent",
        "/v1beta/projects/demo-project/locations/us-central1/templates/greeting-v1:templateGenerateContent",
    }
    answered = [r for r in firebase if r["status"] == 200]
    rendered = [r for r in answered if r.get("template")]
    assert len(rendered) == 2 and all(r["template"]["id"] == "greeting-v1" for r in rendered)
    assert all(r["body"]["contents"][-1]["parts"][0]["text"] == "Say hello to Ada." for r in rendered)
    assert answered and all(r["headers"]["x-firebase-appcheck"] == "REDACTED" for r in answered)
    assert all(r["headers"]["origin"] == page_origin for r in records)
    images = [
        part["inlineData"]
        for r in answered
        if r["path"].endswith(":generateContent")
        for content in r["body"]["contents"]
        for part in content["parts"]
        if "inlineData" in part
    ]
    assert len(images) == 2 and all(image["mimeType"] == "image/png" for image in images)


def test_without_cors_the_page_cannot_reach_the_emulator(
    browser: Any, page_origin: str, cors_off: RunningEmulator
) -> None:
    key = f"page-{uuid.uuid4()}"
    page, outcomes = open_page(browser, page_origin, cors_off, key)
    page.screenshot(path=str(BUILD / "web-sdks-cors-off.png"), full_page=True)
    page.close()
    assert set(EXPECTED) <= set(outcomes)
    assert all(outcome == "error" for outcome, _ in outcomes.values()), outcomes
    fetched = {name: text for name, (_, text) in outcomes.items() if not name.endswith("-live")}
    assert all("Failed to fetch" in text for text in fetched.values()), outcomes  # the browser's own words
    assert all("WebSocket" in outcomes[f"{b}-live"][1] for b in BACKENDS)  # the handshake refused: a page kept out
    sent = [r for r in journal(cors_off, key) if r["method"] != "OPTIONS"]
    assert sent == []  # the preflight failed, so the browser never sent a call
