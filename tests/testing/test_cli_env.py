"""`gemini-emulator env` and the start-up banner: their lines, run by a real shell, point an unmodified
google-genai program (no base URL and no key in its code) at a running emulator."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.testing.server import RunningEmulator

BIN = Path(sys.executable).parent
STALE_KEY = "a-real-key-left-in-the-shell"
# The code under test knows nothing about the emulator: both clients find it through the environment.
SDK_PROGRAM = """
from google import genai
developer = genai.Client()
print(developer.models.generate_content(model="gemini-2.5-flash", contents="Say hello").text)
vertex = genai.Client(vertexai=True)  # express mode: GOOGLE_VERTEX_BASE_URL and the key
print(vertex.models.generate_content(model="gemini-2.5-flash", contents="Say hello").text)
"""
ROUTES = [
    "/v1/models/gemini-2.5-flash:generateContent",
    "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent",
]


def _shell_env(**extra: str) -> dict[str, str]:
    """This process's environment without any emulator or SDK setting, plus a stale key the lines must unset."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", GOOGLE_API_KEY=STALE_KEY, SDK_PROGRAM=SDK_PROGRAM)
    return env | extra


def _run_sdk_after(setup: str, env: dict[str, str]) -> list[str]:
    """Run `setup` in bash, then the SDK program in the resulting environment; its printed answers."""
    script = f'{setup}\nexec python -c "$SDK_PROGRAM"'
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _env_command(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "gemini_emulator", "env", *args]
    return subprocess.run(cmd, env=_shell_env(**extra), capture_output=True, text=True, timeout=30)


@pytest.mark.slow
def test_eval_env_points_an_unmodified_sdk_at_the_emulator(gemini_emulator: RunningEmulator):
    key = f"env-{uuid.uuid4().hex}"  # a namespace of its own on the session server
    admin = AdminClient(gemini_emulator.url, api_key=key)
    try:
        admin.script({"text": "Found through the environment.", "times": 2})
        setup = (
            f'eval "$(gemini-emulator env --host {gemini_emulator.host} --port {gemini_emulator.port} --api-key {key})"'
        )
        assert _run_sdk_after(setup, _shell_env()) == ["Found through the environment."] * 2
        assert [call.record["path"] for call in admin.journal()] == ROUTES  # sent with our key, not the stale one
    finally:
        admin.reset()
        admin.close()


def test_env_points_langchain_python_at_the_emulator(gemini_emulator: RunningEmulator, monkeypatch):
    """langchain-google-genai 4.x builds a google-genai client, so the same variables reach it."""
    langchain = pytest.importorskip("langchain_google_genai")
    key = f"env-{uuid.uuid4().hex}"
    done = _env_command("--host", gemini_emulator.host, "--port", str(gemini_emulator.port), "--api-key", key)
    for line in done.stdout.splitlines():  # applied in this process: the shell's part is tested above
        verb, _, assignment = line.partition(" ")
        if verb == "unset":
            monkeypatch.delenv(assignment, raising=False)
        else:
            name, _, value = assignment.partition("=")
            monkeypatch.setenv(name, value)
    admin = AdminClient(gemini_emulator.url, api_key=key)
    try:
        admin.script({"text": "LangChain found it."})
        chat = langchain.ChatGoogleGenerativeAI(model="gemini-2.5-flash", max_retries=0)
        assert chat.invoke("Hi").content == "LangChain found it."
    finally:
        admin.reset()
        admin.close()


def test_env_reads_the_same_settings_as_serve():
    done = _env_command(GEMINI_EMULATOR_HOST="0.0.0.0", GEMINI_EMULATOR_PORT="9123", GEMINI_EMULATOR_API_KEY="k 1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9123",  # a wildcard bind is reached through loopback
        "export GOOGLE_VERTEX_BASE_URL=http://127.0.0.1:9123",
        "export GEMINI_API_KEY='k 1'",
        "export GOOGLE_GENERATIVE_AI_API_KEY='k 1'",
        "unset GOOGLE_API_KEY",
    ]
    flags = _env_command("--host", "::1", "--port", "1", GEMINI_EMULATOR_PORT="9123")  # flags win; [] quoted
    assert flags.stdout.splitlines()[0] == "export GOOGLE_GEMINI_BASE_URL='http://[::1]:1'"
    assert flags.stdout.splitlines()[2] == "export GEMINI_API_KEY=gemini-emulator"  # any key is accepted


def test_env_for_fish_and_powershell():
    fish = _env_command("--shell", "fish", "--api-key", "it's", "--port", "9000").stdout.splitlines()
    assert fish[0] == "set -gx GOOGLE_GEMINI_BASE_URL 'http://127.0.0.1:9000';"
    assert fish[2] == "set -gx GEMINI_API_KEY 'it\\'s';"
    assert fish[-1] == "set -e GOOGLE_API_KEY;"
    pwsh = _env_command("--shell", "powershell", "--api-key", "it's", "--port", "9000").stdout.splitlines()
    assert pwsh[0] == "$Env:GOOGLE_GEMINI_BASE_URL = 'http://127.0.0.1:9000'"
    assert pwsh[2] == "$Env:GEMINI_API_KEY = 'it''s'"
    assert pwsh[-1] == "Remove-Item Env:GOOGLE_API_KEY -ErrorAction SilentlyContinue"


def test_env_rejects_a_bad_setting_without_a_traceback():
    done = _env_command(GEMINI_EMULATOR_PORT="eighty")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "gemini-emulator: GEMINI_EMULATOR_PORT must be a whole number, not 'eighty'\n"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/__emulator/health").status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.slow
def test_the_banner_says_where_and_how_and_its_eval_line_works():
    port = _free_port()
    env = _shell_env()
    server = subprocess.Popen(
        [str(BIN / "gemini-emulator"), "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        lines = []
        while not lines or not lines[-1].startswith("  openai "):
            line = server.stdout.readline()
            assert line, f"the server exited before its banner ended: {lines}"
            lines.append(line.rstrip("\n"))
        banner = "\n".join(lines)
        assert lines[0].startswith(f"gemini-emulator 0.1.0 listening on 127.0.0.1:{port}, engine scripted")
        for text in ("/{v1,v1beta}/models/", "/{v1,v1beta1}/projects/{p}/locations/{l}/", "/v1beta/projects/{p}/"):
            assert text in banner
        for sdk in ("google-genai", "@google/genai", "firebase/ai", "@ai-sdk/google", "LangChain", "openai"):
            assert f"\n  {sdk} " in banner
        assert f"createGoogleGenerativeAI({{baseURL: 'http://127.0.0.1:{port}/v1beta'}})" in banner
        assert f"OpenAI(base_url='http://127.0.0.1:{port}/v1beta/openai/'" in banner and "/v1beta/openai/ (" in banner
        eval_line = next(line for line in lines if "eval" in line).split("#")[0].strip()
        assert eval_line == f'eval "$(gemini-emulator env --port {port})"'

        deadline = time.monotonic() + 30  # a bound for a hung start, not a speed check
        while not _healthy(port):
            assert time.monotonic() < deadline and server.poll() is None, "the server never became healthy"
            time.sleep(0.05)
        answers = _run_sdk_after(eval_line, env)
        assert len(answers) == 2 and answers[0] == answers[1] != ""
    finally:
        server.terminate()
        server.wait(timeout=10)
