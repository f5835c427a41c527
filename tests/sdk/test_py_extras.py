"""Python clients that need a venv of their own (tests/py-extras/requirements.txt: llama-index wants google-genai<3,
litellm is heavy): installed once per requirements digest into .venv-extras (a stamp records it), each script run
against the session's emulator in a subprocess, what the emulator saw checked through the journal. Left out of
`make test-fast` (marker slow: the first install takes minutes)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gemini_emulator.testing.pytest_plugin import Gemini

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = ROOT / "tests" / "py-extras"
REQUIREMENTS = EXTRAS / "requirements.txt"
VENV = ROOT / ".venv-extras"
STAMP = VENV / ".requirements.sha256"
PYTHON = VENV / "bin" / "python"


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


def _run(python: Path, script: str, gemini: Gemini) -> dict[str, str]:
    env = {"EMULATOR_URL": gemini.url, "EMULATOR_KEY": gemini.api_key, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(python), str(EXTRAS / script)], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    result: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_llama_index_image_through_the_files_api(extras: Path, gemini_shared: Gemini) -> None:
    reply = _run(extras, "llama_index_files.py", gemini_shared)
    calls = gemini_shared.journal()
    uploads = [c for c in calls if c.rpc == "files.upload"]
    assert len(uploads) == 2  # the resumable start, then upload + finalize
    [generate] = calls.__class__(c for c in calls if c.rpc == "generateContent")
    [file_part] = [p["fileData"] for p in generate.contents[-1]["parts"] if "fileData" in p]
    uri = file_part.get("fileUri") or file_part["file_uri"]  # as sent (proto JSON takes either spelling)
    name = "files/" + uri.rsplit("/files/", 1)[1]
    assert f"the attached file {name} (image/png)" in reply["text"]
    assert [c.rpc for c in calls][-1] == "files.delete"  # llama-index deletes what it uploaded
    assert gemini_shared.admin.resources(kind="files")["files"] == []


@pytest.mark.slow
def test_litellm_context_caching_fails_inside_litellm_with_a_custom_base(extras: Path, gemini_shared: Gemini) -> None:
    """litellm 1.77.7 cannot cache through any api_base: its context-caching path calls _check_custom_proxy without
    the model and raises "Model parameter is required for Gemini custom API base URLs" before sending anything
    (without an api_base it goes to Google's host). This pins that limitation: when a litellm release fixes it,
    this test fails and the real check (the emulator's cachedContents create and cachedContentTokenCount) goes here."""
    result = _run(extras, "litellm_cache.py", gemini_shared)
    assert result["plain"].startswith("Hello")
    assert "Model parameter is required for Gemini custom API base URLs" in result["cache_error"]
    calls = gemini_shared.journal()
    assert [c.rpc for c in calls] == ["generateContent"]  # the plain call only: no cachedContents request
