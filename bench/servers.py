"""The servers the benchmark compares, started the same way and timed from spawn to their first 200.

- `baseline`: bench/baseline_app.py, a bare Starlette app returning pre-serialized bytes (the framework limit);
- `least`: bench/least_app.py, the least work a zero-config answer takes in plain Python, on the emulator's own
  runtime (a floor for the emulator's CPU per request: what any Python emulator on this stack must spend);
- `emulator`: `gemini-emulator serve` with default settings (zero-config answers);
- `scripted`: the same with a `--script` file whose one entry answers every request (`times: forever`);
- `emulator-h11`: `emulator` on the fallback stack (`--http h11 --loop asyncio`), the default before 2026-12;
- `aimock`: CopilotKit's aimock (npm @copilotkit/aimock, the version tests/upstream/package-lock.json pins,
  installed here with `npm ci` when missing), answering with the baseline's text in as many SSE events.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from baseline_app import _TEXT

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
UPSTREAMS = ROOT / "tests" / "upstream"
AIMOCK = UPSTREAMS / "node_modules" / ".bin" / "llmock"
STAMP = UPSTREAMS / "node_modules" / ".package-lock.sha256"
ANSWER = "".join(_TEXT)  # what every server answers (the baseline's own text)
READY_PATH = "/v1beta/models/gemini-2.5-flash:generateContent"
READY_BODY = b'{"contents": [{"role": "user", "parts": [{"text": "Bench request 0: ready?"}]}]}'
NAMES = ("baseline", "least", "emulator", "scripted", "emulator-h11", "aimock")


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    port: int
    ready_s: float
    log: IO[bytes]

    def stop(self) -> None:
        self.proc.terminate()  # a no-op when it has already exited
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def aimock_available() -> str | None:
    """Why aimock cannot run here, or None once it is installed (npm ci into tests/upstream when the lock changed)."""
    if not (shutil.which("node") and shutil.which("npm")):
        return "node and npm are not installed"
    digest = hashlib.sha256((UPSTREAMS / "package-lock.json").read_bytes()).hexdigest()
    if not AIMOCK.exists() or not STAMP.exists() or STAMP.read_text() != digest:
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=UPSTREAMS, capture_output=True, text=True, timeout=600
        )
        if done.returncode:
            return f"npm ci failed: {done.stderr[-500:]}"
        STAMP.write_text(digest)
    return None


def _files(workdir: Path) -> tuple[Path, Path]:
    """The scripted emulator's script and aimock's fixtures: both answer every bench prompt with ANSWER."""
    script = workdir / "script.json"
    script.write_text(json.dumps([{"name": "bench", "text": ANSWER, "times": "forever"}]))
    fixtures = workdir / "aimock-fixtures.json"
    fixture = {"match": {"userMessage": "Bench"}, "response": {"content": ANSWER}}
    fixtures.write_text(json.dumps({"fixtures": [fixture]}))
    return script, fixtures


def command(name: str, port: int, workdir: Path) -> list[str]:
    script, fixtures = _files(workdir)
    emulator = [str(Path(sys.executable).with_name("gemini-emulator")), "serve", "--port", str(port)]
    if name == "emulator":
        return emulator
    if name == "scripted":
        return [*emulator, "--script", str(script)]
    if name == "emulator-h11":
        return [*emulator, "--http", "h11", "--loop", "asyncio"]
    if name == "baseline":
        return [sys.executable, str(BENCH / "baseline_app.py"), "--port", str(port)]
    if name == "least":
        return [sys.executable, str(BENCH / "least_app.py"), "--port", str(port)]
    if name == "aimock":
        chunk = -(-len(ANSWER) // len(_TEXT))  # as many SSE events as the baseline sends
        return [str(AIMOCK), "--port", str(port), "--fixtures", str(fixtures), "--chunk-size", str(chunk)]
    raise ValueError(name)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ready(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        conn.request("POST", READY_PATH, READY_BODY, {"x-goog-api-key": "bench", "content-type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status == 200
    except OSError:
        return False
    finally:
        conn.close()


def start(name: str, extra: tuple[str, ...] = (), env: dict[str, str] | None = None) -> Server:
    """Start a server; return once it answers a generateContent request with a 200, timed from the spawn."""
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="gemini-bench-"))
    cmd = [*command(name, port, workdir), *extra]
    base = {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_EMULATOR_")}  # default settings
    if name == "aimock":
        cmd += ["--log-level", "silent"]
    log = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=base | (env or {}))
    while not _ready(port):
        if proc.poll() is not None or time.perf_counter() - t0 > 30:
            proc.kill()
            log.seek(0)
            raise RuntimeError(f"{name} never became ready:\n{log.read().decode(errors='replace')}")
        time.sleep(0.002)
    return Server(name, proc, port, time.perf_counter() - t0, log)
