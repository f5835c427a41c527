"""Python clients that need a venv of their own (tests/py-extras/requirements.txt: llama-index wants google-genai<3,
litellm is heavy): installed once per requirements digest into .venv-extras (a stamp records it), each script run
against the session's emulator in a subprocess, what the emulator saw checked through the journal. Left out of
`make test-fast` (marker slow: the first install takes minutes); run with `.venv/bin/pytest tests/sdk/test_py_extras.py
-m slow`.

The tests are the llama-index and litellm rows of docs/sdk-matrix.md's resources table (`test_<call>[<label>]`,
tests/sdk_matrix.py): each client's script runs once per module in a namespace of its own, and each cell checks its
part of what the client sent."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gemini_emulator.admin.client import Calls
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator

from sdk_matrix import SPEC, cache_text, skip_resource_pending

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = ROOT / "tests" / "py-extras"
REQUIREMENTS = EXTRAS / "requirements.txt"
VENV = ROOT / ".venv-extras"
STAMP = VENV / ".requirements.sha256"
PYTHON = VENV / "bin" / "python"
LLAMA = "llama-index-llms-google-genai (Python)"
LITELLM = "litellm (Python)"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def extras(announce: Callable[[str], None]) -> Path:
    """.venv-extras with tests/py-extras/requirements.txt installed (only when that file changed)."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != digest:
        announce(f"creating {VENV} for llama-index and litellm (once per requirements file, ~2.5 min, ~450 MB)")
        made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], capture_output=True, text=True)
        assert made.returncode == 0, made.stderr
        done = subprocess.run(
            [str(PYTHON), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)], capture_output=True, text=True
        )
        assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"
        STAMP.write_text(digest)
    return PYTHON


@dataclass
class Run:
    """One script's run: its JSON line and the journal of its namespace."""

    result: dict[str, object]
    calls: Calls


def _run(python: Path, script: str, gemini: Gemini) -> Run:
    env = {
        "EMULATOR_URL": gemini.url,
        "EMULATOR_KEY": gemini.api_key,
        "MATRIX_SPEC": json.dumps(SPEC),
        "PATH": "/usr/bin:/bin",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm fetches its price list from the web at import otherwise
    }
    done = subprocess.run([str(python), str(EXTRAS / script)], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    return Run(json.loads(done.stdout.strip().splitlines()[-1]), gemini.journal())


@pytest.fixture(scope="module")
def namespace(gemini_emulator: RunningEmulator) -> Iterator[Callable[[], Gemini]]:
    """Namespaces of this module's own (a script runs once for several cells), forgotten at its end."""
    made: list[Gemini] = []

    def make() -> Gemini:
        made.append(Gemini(gemini_emulator, f"extras-{uuid.uuid4().hex}"))
        return made[-1]

    yield make
    for handle in made:
        handle.reset()
        handle.close()


@pytest.fixture(scope="module")
def llama_files(extras: Path, namespace: Callable[[], Gemini]) -> Run:
    return _run(extras, "llama_index_files.py", namespace())


@pytest.fixture(scope="module")
def llama_cache(extras: Path, namespace: Callable[[], Gemini]) -> Run:
    return _run(extras, "llama_index_cache.py", namespace())


@pytest.fixture(scope="module")
def litellm(extras: Path, namespace: Callable[[], Gemini]) -> Run:
    return _run(extras, "litellm_resources.py", namespace())


def _cells(*labels: str) -> pytest.MarkDecorator:
    """A matrix cell per client label (the test's id is the label, as tools/gen_sdk_matrix.py reads it)."""
    return pytest.mark.parametrize("sdk", labels, ids=labels)


def _file_name(calls: Calls) -> str:
    """The Files API name of the one file a client's generateContent sent."""

    def parts(call: Any) -> list[dict[str, Any]]:  # as sent: proto JSON takes camelCase or snake_case names
        return [
            p.get("fileData") or p["file_data"]
            for p in call.contents[-1]["parts"]
            if {"fileData", "file_data"} & set(p)
        ]

    [part] = [part for call in calls if call.rpc == "generateContent" for part in parts(call)]
    uri = part.get("fileUri") or part["file_uri"]
    return "files/" + str(uri).rsplit("/files/", 1)[1]


def _files_run(request: pytest.FixtureRequest, sdk: str) -> Run:
    """llama-index: GoogleGenAI(file_mode="fileapi") sends an ImageBlock through the Files API, then deletes it.
    litellm: create_file, a file part in a completion, file_delete."""
    skip_resource_pending(request)
    run: Run = request.getfixturevalue("llama_files" if sdk == LLAMA else "litellm")
    return run


@_cells(LLAMA, LITELLM)
def test_files_upload(request: pytest.FixtureRequest, sdk: str) -> None:
    run = _files_run(request, sdk)
    uploads = [c for c in run.calls if c.rpc == "files.upload"]
    commands = [c.record["headers"]["x-goog-upload-command"] for c in uploads]
    assert commands == ["start", "upload, finalize"]  # the resumable protocol
    assert uploads[1].body["upload"]["bytes"] > 0
    if sdk == LITELLM:
        assert str(run.result["file"]).endswith("/v1beta/" + _file_name(run.calls))


@_cells(LLAMA, LITELLM)
def test_files_use(request: pytest.FixtureRequest, sdk: str) -> None:
    """litellm sends a file part as fileData only for a uri on production's host (any other URL it downloads and
    inlines), so its script names the file that way; the emulator resolves it to the caller's file."""
    run = _files_run(request, sdk)
    name = _file_name(run.calls)
    assert f"the attached file {name} (image/png)" in str(run.result["text" if sdk == LLAMA else "file_text"])


@_cells(LLAMA, LITELLM)
def test_files_delete(request: pytest.FixtureRequest, sdk: str) -> None:
    run = _files_run(request, sdk)
    [deleted] = [c for c in run.calls if c.rpc == "files.delete"]
    assert deleted.status == 200 and deleted.record["path"].endswith(_file_name(run.calls))
    if sdk == LLAMA:
        assert run.calls[-1] is deleted  # llama-index deletes what it uploaded, last
    else:
        assert run.result["deleted"] is True


@_cells(LITELLM)
def test_cache_create(request: pytest.FixtureRequest, sdk: str) -> None:
    """litellm (1.109.0 on; 1.77.7 raised "Model parameter is required for Gemini custom API base URLs" before
    sending) looks for a cache of its own first, then creates one holding the cache_control system message."""
    skip_resource_pending(request)
    run: Run = request.getfixturevalue("litellm")
    assert run.result["cache_error"] == ""
    rpcs = [c.rpc for c in run.calls]
    assert rpcs.index("cachedContents.list") < rpcs.index("cachedContents.create")
    [created] = [c for c in run.calls if c.rpc == "cachedContents.create"]
    assert created.status == 200
    assert created.body["system_instruction"]["parts"][0]["text"] == cache_text()


@_cells(LLAMA, LITELLM)
def test_cache_use(request: pytest.FixtureRequest, sdk: str) -> None:
    """llama-index: a cache made with google-genai, then GoogleGenAI(cached_content=...). litellm: the cache it made
    for the cache_control message, used in the generateContent that follows."""
    skip_resource_pending(request)
    if sdk == LLAMA:
        run: Run = request.getfixturevalue("llama_cache")
        name, tokens = run.result["cache"], run.result["tokens"]
    else:
        run = request.getfixturevalue("litellm")
        [created] = [c for c in run.calls if c.rpc == "cachedContents.create"]
        name, tokens = json.loads(created.record["response"])["name"], run.result["cached_tokens"]
    generate = [c for c in run.calls if c.rpc == "generateContent"][-1]
    assert generate.body["cachedContent"] == name
    usage = json.loads(generate.record["response"])["usageMetadata"]
    assert isinstance(tokens, int) and usage["cachedContentTokenCount"] == tokens > 1024
