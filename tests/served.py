"""The real `gemini-emulator serve` command in a child process, for tests that need a process of its own
(signals, restarts, its own CPU for fuzzing, everything it prints)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from gemini_emulator.testing.server import free_port

COMMAND = str(Path(sys.executable).with_name("gemini-emulator"))
READY_POLLS = 1200  # x 50 ms: a bound for a hung start, not a speed check


@dataclass
class Served:
    """A running `gemini-emulator serve`: its process, URL, and what it printed (stdout and stderr)."""

    proc: subprocess.Popen[bytes]
    port: int
    url: str
    _log: tempfile._TemporaryFileWrapper[bytes] = field(repr=False)

    def output(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_bytes().decode("utf-8", "replace")

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, then the exit code (uvicorn drains in-flight requests first)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without emulator settings, plus `extra`."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_EMULATOR_")} | extra


def spawn(*args: str, port: int | None = None, env: dict[str, str] | None = None) -> Served:
    """Start `gemini-emulator serve --port PORT ARGS...` and return once its health route answers."""
    port = port or free_port("127.0.0.1")
    log = tempfile.NamedTemporaryFile(prefix="gemini-emulator-", suffix=".log")  # noqa: SIM115 (kept by Served)
    proc = subprocess.Popen(
        [COMMAND, "serve", "--port", str(port), *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env if env is not None else clean_env(),
    )
    served = Served(proc, port, f"http://127.0.0.1:{port}", log)
    wait_healthy(served)
    return served


def wait_healthy(served: Served) -> None:
    for _ in range(READY_POLLS):
        try:
            if httpx.get(served.url + "/__emulator/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if served.proc.poll() is not None:
            raise AssertionError(f"the server exited with {served.proc.returncode}:\n{served.output()}")
        try:
            served.proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    served.terminate()
    raise AssertionError(f"the server never became healthy:\n{served.output()}")
