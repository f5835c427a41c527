"""Red team (issue 14, "5xx and tracebacks for bad input"): nothing a caller, a script or a captures folder
holds gets a 5xx or a traceback; each is a 4xx envelope (or a valid answer, or a clear refusal at start-up).

Each test sends what the review sent, to a real server over loopback.
"""

from __future__ import annotations

import json
import logging
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from served import COMMAND, clean_env, spawn

from gemini_emulator.captures.format import DEFAULT_DIR
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent"
STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
EMBED = "/v1beta/models/gemini-embedding-001:embedContent"
BATCH_EMBED = "/v1beta/models/gemini-embedding-001:batchEmbedContents"
KEY = {"x-goog-api-key": "test-key"}


@pytest.fixture(scope="module")
def emulator() -> Iterator[RunningEmulator]:
    running = start(
        Settings(
            port=0,
        )
    )
    yield running
    running.stop()


@pytest.fixture
def client(emulator: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emulator.url, headers=KEY, timeout=30) as c:
        c.post("/__emulator/reset", params={"all": "true"})
        yield c


def _ask(text: str = "hello", **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}], **extra}


def _structured(schema: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    return _ask(f"fill it in {seed}", generationConfig=config)


def _is_4xx_envelope(response: httpx.Response) -> dict[str, Any]:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert error["code"] == response.status_code and error["status"] and error["message"]
    return error


@pytest.mark.parametrize("step", [1.5, 0.4, 2.5])
@pytest.mark.parametrize("bounds", [{}, {"minimum": 7}, {"minimum": -40, "maximum": 40}, {"exclusiveMaximum": 0}])
def test_integer_schemas_with_a_fractional_multiple_of_get_valid_integers(
    client: httpx.Client, step: float, bounds: dict[str, Any]
) -> None:
    schema = {"type": "integer", "multipleOf": step, **bounds}
    for seed in range(6):
        response = client.post(GENERATE, json=_structured(schema, seed))
        assert response.status_code == 200, response.text
        value = json.loads(response.json()["candidates"][0]["content"]["parts"][0]["text"])
        jsonschema.validate(value, schema)  # 92 is no multiple of 1.5


@pytest.mark.parametrize("kind", ["integer", "number"])
@pytest.mark.parametrize("step", [5e-324, 1e-300])
def test_a_tiny_multiple_of_gets_a_valid_value(client: httpx.Client, kind: str, step: float) -> None:
    schema = {"type": kind, "multipleOf": step}
    response = client.post(GENERATE, json=_structured(schema))
    assert response.status_code == 200, response.text  # was a 500 (OverflowError)
    jsonschema.validate(json.loads(response.json()["candidates"][0]["content"]["parts"][0]["text"]), schema)


MALFORMED_SCHEMAS = [
    {"type": "object", "properties": [1]},
    {"type": "object", "properties": "x"},
    {"type": [[]]},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": [["a"]]},
    {"type": "object", "properties": {"a": {"type": "array", "items": {"type": {"no": 1}}}}},
]


@pytest.mark.parametrize("schema", MALFORMED_SCHEMAS, ids=range(len(MALFORMED_SCHEMAS)))
def test_malformed_json_schemas_get_a_400(client: httpx.Client, schema: dict[str, Any]) -> None:
    for url in (GENERATE, STREAM):
        error = _is_4xx_envelope(client.post(url, json=_structured(schema)))
        assert error["status"] == "INVALID_ARGUMENT"
    tools = [{"functionDeclarations": [{"name": "f", "description": "d", "parametersJsonSchema": schema}]}]
    forced = {"functionCallingConfig": {"mode": "ANY"}}
    error = _is_4xx_envelope(client.post(GENERATE, json=_ask("call f", tools=tools, toolConfig=forced)))
    assert error["status"] == "INVALID_ARGUMENT"


@pytest.mark.parametrize("text", [5, ["a"], {"a": 1}, True])
def test_non_string_text_in_embedding_calls_gets_a_400(client: httpx.Client, text: Any) -> None:
    error = _is_4xx_envelope(client.post(EMBED, json={"content": {"parts": [{"text": "ok"}, {"text": text}]}}))
    if isinstance(text, list):  # production's words for a list where one value goes (the generate walker's)
        assert error["message"] == (
            "Invalid JSON payload received. Unknown name \"text\" at 'content.parts[1]': Proto field is not "
            "repeating, cannot start list."
        )
    else:
        assert "content.parts[1].text" in error["message"] and "TYPE_STRING" in error["message"]
    batch = {"requests": [{"model": "models/gemini-embedding-001", "content": {"parts": [{"text": text}]}}]}
    error = _is_4xx_envelope(client.post(BATCH_EMBED, json=batch))
    assert "requests[0].content.parts[0]" in error["message"]


def test_a_5000_digit_page_size_gets_a_400(client: httpx.Client) -> None:
    error = _is_4xx_envelope(client.get("/v1beta/models", params={"pageSize": "9" * 5000}))
    assert "page_size" in error["message"] and "TYPE_INT32" in error["message"]
    error = _is_4xx_envelope(client.get("/v1beta/models", params={"pageSize": str(2**31)}))
    assert "TYPE_INT32" in error["message"]
    assert client.get("/v1beta/models", params={"pageSize": str(2**31 - 1)}).status_code == 200


def test_a_5000_digit_journal_since_gets_a_400_envelope(client: httpx.Client) -> None:
    response = client.get("/__emulator/journal", params={"since": "9" * 5000})  # was a plain-text 500
    assert "since" in _is_4xx_envelope(response)["message"]


def test_long_numbers_in_a_code_execution_prompt_are_answered(client: httpx.Client) -> None:
    prompt = f"add {'9' * 5000} and {'1' * 4400}.5 and 2 and 3.5."
    response = client.post(GENERATE, json=_ask(prompt, tools=[{"codeExecution": {}}]))
    assert response.status_code == 200, response.text
    parts = response.json()["candidates"][0]["content"]["parts"]
    code = next(p["executableCode"]["code"] for p in parts if "executableCode" in p)
    assert "numbers = [2, 3.5]" in code  # the runs too long to be numbers are not summed
    many = " ".join(str(i) for i in range(5000))
    response = client.post(GENERATE, json=_ask(f"sum {many}", tools=[{"codeExecution": {}}]))
    assert response.status_code == 200 and len(response.text) < 20_000  # the code part stays small


@pytest.mark.parametrize(
    ("field", "value", "type_name"),
    [
        ("maxOutputTokens", 2**31, "TYPE_INT32"),
        ("maxOutputTokens", -(2**31) - 1, "TYPE_INT32"),
        ("candidateCount", 2**63, "TYPE_INT32"),
        ("candidateCount", 1e20, "TYPE_INT32"),
        ("seed", 2**40, "TYPE_INT32"),
        ("maxOutputTokens", str(2**64), "TYPE_INT32"),
    ],
)
def test_integers_past_their_proto_range_get_production_400(
    client: httpx.Client, field: str, value: Any, type_name: str
) -> None:
    error = _is_4xx_envelope(client.post(GENERATE, json=_ask(generationConfig={field: value})))
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"].startswith("Invalid value at 'generation_config.") and f"({type_name})" in error["message"]


def test_the_largest_int32_is_still_taken(client: httpx.Client) -> None:
    assert client.post(GENERATE, json=_ask(generationConfig={"maxOutputTokens": 2**31 - 1})).status_code == 200


@pytest.mark.parametrize(
    "entry",
    [
        {"chunks": [{"text": "a"}, {"text": 5}]},
        {"raw": [{"candidates": "x"}, {"candidates": "y"}]},
        {"raw": [{"candidates": [5]}, {"candidates": []}]},
        {"raw": [{"candidates": [{"content": "x"}]}, {"candidates": []}]},
        {"raw": [{"candidates": [{"content": {"parts": "x"}}]}, {"candidates": []}]},
    ],
)
def test_script_entries_that_cannot_be_served_are_refused_when_posted(
    client: httpx.Client, entry: dict[str, Any]
) -> None:
    error = _is_4xx_envelope(client.post("/__emulator/script", json={"entries": [entry]}))
    assert error["message"].startswith("invalid script:")
    for url in (GENERATE, STREAM):  # nothing was kept: the zero-config answer
        assert client.post(url, json=_ask()).status_code == 200
    assert client.get("/__emulator/script").status_code == 200


def _serve_script(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    try:
        return subprocess.run(
            [COMMAND, "serve", "--port", str(port), "--script", str(path)],
            capture_output=True,
            text=True,
            timeout=30,  # a refusal is immediate; a server that took the file would serve on
            env=clean_env(),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the server started with {name} instead of refusing it")


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("nan.json", '[{"raw": {"candidates": [], "x": NaN}}]', "NaN"),
        ("inf.json", '[{"raw": {"candidates": [], "x": -Infinity}}]', "Infinity"),
        ("overflow.json", '[{"raw": {"candidates": [], "x": 1e999}}]', "inf"),
        ("big.json", '[{"raw": {"candidates": [], "x": ' + str(2**64) + "}}]", "64 bits"),
        ("deep.json", '[{"raw": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}]", "nested too deeply"),
        ("nan.yaml", "- raw: {candidates: [], x: .nan}\n", "nan"),
    ],
)
def test_script_files_with_values_json_cannot_carry_are_refused_at_start(
    tmp_path: Path, name: str, text: str, says: str
) -> None:
    if name.endswith(".yaml"):
        pytest.importorskip("yaml")
    done = _serve_script(tmp_path, name, text)
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr and name in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_script_file_with_the_widest_64_bit_integers_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "wide.json"
    path.write_text(json.dumps([{"raw": {"candidates": [], "x": 2**64 - 1, "y": -(2**63)}}]), encoding="utf-8")
    running = start(Settings(port=0, script=str(path)))
    try:
        listed = httpx.get(running.url + "/__emulator/script", timeout=10)
        assert listed.status_code == 200, listed.text
    finally:
        running.stop()


def test_malformed_http_gets_google_envelope() -> None:
    served = spawn()
    try:
        for request in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
                sock.sendall(request)
                answer = b""
                while piece := sock.recv(65536):
                    answer += piece
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400"), answer
            assert b"content-type: application/json; charset=UTF-8" in head.lower().replace(b"utf-8", b"UTF-8")
            error = json.loads(body)["error"]
            assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    finally:
        served.terminate()
    assert "Traceback" not in served.output()


def test_a_stray_json_under_captures_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "developer").mkdir()
    shutil.copy(DEFAULT_DIR / "developer" / "unary-minimal.json", tmp_path / "developer" / "unary-minimal.json")
    (tmp_path / "package.json").write_text('{"name": "not a capture"}', encoding="utf-8")
    (tmp_path / "developer" / "broken.json").write_text("{", encoding="utf-8")
    running = start(Settings(port=0, engine="replay", captures=str(tmp_path)))
    try:
        with caplog.at_level(logging.WARNING, logger="gemini_emulator"):
            body = {
                "contents": [{"parts": [{"text": "What is the capital of France? One word."}], "role": "user"}],
                "generationConfig": {"temperature": 0},
            }
            response = httpx.post(running.url + GENERATE, json=body, headers=KEY, timeout=30)
    finally:
        running.stop()
    assert response.status_code == 200, response.text
    assert response.json()["candidates"][0]["content"]["parts"][0]["text"] == "Paris"
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("package.json" in m for m in warned) and any("broken.json" in m for m in warned), warned
