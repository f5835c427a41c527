"""A real redis-server for tests: `RedisServer` starts one on a free port in a folder of its own (tests/scaling).

`redis_server` is one server for the session (tests flush it between them: `redis_url`); `RedisServer` starts
one of a test's own (the restart tests stop and start it on the same data directory with appendonly). Without
/usr/bin/redis-server (Debian's package: the Makefile and .ci/run install it) these tests skip, saying so.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
NO_REDIS = "redis-server is not installed (apt-get install redis-server; make test installs it)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """One redis-server process on 127.0.0.1:`port`, its files in `folder`."""

    def __init__(self, folder: Path, port: int | None = None, appendonly: bool = False) -> None:
        self.folder, self.port, self.appendonly = folder, port or free_port(), appendonly
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        if not Path(REDIS_SERVER).exists():
            pytest.skip(NO_REDIS)
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        command += ["--save", "", "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"]
        command += ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else ["--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("redis-server did not answer within 10 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def client(self):  # noqa: ANN201
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)
