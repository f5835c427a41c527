"""Clients that hang up mid-stream, at every chunk index, round after round: what the server holds does not grow.

The server is the real `gemini-emulator serve` in a child process, started through a launcher that adds a probe:
on SIGUSR1 it collects garbage and appends to a file its live asyncio tasks, its pending event-loop timers, the
objects the garbage collector tracks, Python's allocated memory blocks and the C heap's bytes in use (glibc's
mallinfo2). Those are counts of what the process holds, not RSS (which moves by whole pages and arenas), so the
tolerances can be tight. The test also reads the server's open file descriptors and RSS from /proc. Garbage is
collected first: what only the cyclic collector frees (on CPython 3.11, every closed asyncio connection) is not
held; bench/extras.py `disconnects` shows what waiting for it costs in RSS.

One setting differs from `serve`'s: uvicorn's keep-alive timeout is KEEP_ALIVE_S instead of 5 s. A connection
that a client aborts (RST) right after a complete response keeps its objects until that timer fires (uvicorn
cancels the timer only on a clean close): held for a bounded time, not leaked, and the counts are read once
every such timer has fired.

tests/wire/test_robustness.py checks the same hang-ups for log lines and leftover tasks in a server in this process;
bench/extras.py `disconnects` measures RSS over rounds of thousands of them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from served import Served, clean_env, wait_healthy

from gemini_emulator.testing.server import free_port

STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
BODY = b'{"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}'
KEY = "hang-ups"
CHUNKS = ["one ", "two ", "three ", "four ", "five ", "six"]
# Where a client hangs up: -1 right after sending its request, 0 after the response head, k after k events.
HANG_UPS = list(range(-1, len(CHUNKS) + 1))
PER_ROUND = 50 * len(HANG_UPS)  # hang-ups in a round, as many at every point, half with a FIN, half with a RST
ROUNDS = 3  # measured rounds, after a warm-up round that fills the journal, the caches and the allocator's pools
MEASURED = ROUNDS * PER_ROUND
CONCURRENCY = 16
JOURNAL_CAP = 100  # full after the warm-up round: from then on records are replaced, not added
KEEP_ALIVE_S = 0.5
IDLE_TIMERS = 1  # uvicorn's main loop ticks every 0.1 s: one timer is always pending
BOUND_S = 30  # waits for a condition give up after this: a bound for a hang, not a speed check

# Growth allowed from the end of the warm-up round to the end of the last round, over MEASURED hang-ups. Measured
# without a leak: objects -1..+1, blocks +6..+78 (caches still filling, slower and slower), heap -13..+85 KB (the
# journal's records differ in size with where their stream was cut), RSS +1.8..+2.8 MiB (pages first touched).
# Leaks injected per request to check these catch them: a journal record (+2,401 objects), an empty dict or a
# short str (+1,260 blocks), 1 KiB of bytes (+1.3 MB heap), a task or an open file (never settled).
TOLERANCE = {
    "tasks": 0,
    "fds": 0,
    "objects": MEASURED // 30,  # fails on one leaked container (a record, a list, a task...) per 30 hang-ups
    "blocks": MEASURED // 4,  # fails on one small leaked object (an empty dict, a short str) per 4 hang-ups
    "heap_bytes": 256 * 1024,  # fails on 220 bytes leaked per hang-up
    "rss_kib": 8 * 1024,  # a backstop, in pages: 7 KiB per hang-up
}

PROBE = """
import asyncio, ctypes, gc, json, os, signal, sys

from gemini_emulator import runtime

class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]

_mallinfo2 = getattr(ctypes.CDLL(None), "mallinfo2", None)  # glibc 2.33 and later
if _mallinfo2 is not None:
    _mallinfo2.restype = _Mallinfo2

def _probe(signum, frame):
    gc.collect()
    loop = asyncio.get_running_loop()
    counts = {
        "tasks": len(asyncio.all_tasks(loop)),
        "timers": len(getattr(loop, "_scheduled", ())),  # asyncio's call_later handles, cancelled ones too
        "objects": len(gc.get_objects()),
        "blocks": sys.getallocatedblocks(),
        "heap_bytes": None,
        "keep_alive_s": _keep_alive.get("s"),  # None if `serve` no longer starts uvicorn through runtime.serve
    }
    if _mallinfo2 is not None:
        info = _mallinfo2()
        counts["heap_bytes"] = info.uordblks + info.hblkhd  # in use: heap chunks plus mmapped ones
    with open(os.environ["GEMINI_TEST_PROBE_FILE"], "a") as out:
        out.write(json.dumps(counts) + "\\n")

signal.signal(signal.SIGUSR1, _probe)
_serve, _keep_alive = runtime.serve, {}

def _serve_keeping_alive_less(*args, **options):
    _keep_alive["s"] = options["timeout_keep_alive"] = float(os.environ["GEMINI_TEST_KEEP_ALIVE_S"])
    return _serve(*args, **options)

runtime.serve = _serve_keeping_alive_less
from gemini_emulator.cli import main
sys.exit(main(sys.argv[1:]))
"""


class Probed:
    """The probed server, and what it holds, read on demand."""

    def __init__(self, served: Served, probe_file: Path) -> None:
        self.served = served
        self.probe_file = probe_file

    def read(self) -> dict[str, Any]:
        """Ask the server for its counts (SIGUSR1), plus its open file descriptors and RSS from /proc."""
        lines = self._lines()
        self.served.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + BOUND_S
        while len(self._lines()) == len(lines):
            assert self.served.proc.poll() is None, self.served.output()
            assert time.monotonic() < deadline, "the server never answered the probe"
            time.sleep(0.005)
        counts = orjson.loads(self._lines()[-1])
        pid = self.served.proc.pid
        counts["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text()
        counts["rss_kib"] = int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1])
        return counts

    def _lines(self) -> list[bytes]:
        return self.probe_file.read_bytes().splitlines() if self.probe_file.exists() else []

    def settled(self, tasks: int, fds: int) -> dict[str, Any]:
        """The counts once the server is done with every connection: `tasks` tasks and `fds` descriptors at most,
        and no timer but its main loop's (fails if that never comes)."""
        deadline = time.monotonic() + BOUND_S
        while True:
            counts = self.read()
            if counts["tasks"] <= tasks and counts["fds"] <= fds and counts["timers"] <= IDLE_TIMERS:
                return counts
            assert time.monotonic() < deadline, f"tasks, sockets or timers outlived the connections: {counts}"
            time.sleep(0.01)


@pytest.fixture(scope="module")
def probed() -> Iterator[Probed]:
    port = free_port("127.0.0.1")
    probe_file = Path(tempfile.mkdtemp(prefix="gemini-disconnect-")) / "probe.jsonl"
    log = tempfile.NamedTemporaryFile(prefix="gemini-emulator-", suffix=".log")  # noqa: SIM115 (kept by Served)
    env = clean_env(GEMINI_TEST_PROBE_FILE=str(probe_file), GEMINI_TEST_KEEP_ALIVE_S=str(KEEP_ALIVE_S))
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, "serve", "--port", str(port), "--journal-cap", str(JOURNAL_CAP)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    served = Served(proc, port, f"http://127.0.0.1:{port}", log)
    wait_healthy(served)
    yield Probed(served, probe_file)
    assert served.terminate() == 0
    printed = served.output()
    assert not any(word in printed for word in ("Traceback", "ERROR", "WARNING")), printed


async def _hang_up(port: int, events: int, rst: bool) -> None:
    """One `alt=sse` request whose client hangs up after `events` events (-1: right after sending it, 0: after
    the response head), closing its socket (FIN) or aborting it (RST)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST {STREAM} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-goog-api-key: {KEY}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(BODY)}\r\n\r\n"
    ).encode()
    try:
        writer.write(head + BODY)
        received = b""
        while received.count(b"\r\n\r\n") < events + 1:  # the head, then `events` events
            data = await reader.read(65536)
            if not data:
                break
            received += data
        assert events < 0 or received.startswith(b"HTTP/1.1 200 "), received[:300]
        assert received.count(b"\r\n\r\n") >= events + 1, received  # the server cut nothing short
    finally:
        if rst:
            writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.close()
        await writer.wait_closed()


async def _round(port: int) -> None:
    """PER_ROUND hang-ups, CONCURRENCY at a time, cycling over every hang-up point, every other cycle with a RST."""
    plan = iter(range(PER_ROUND))

    async def worker() -> None:
        for i in plan:
            await _hang_up(port, HANG_UPS[i % len(HANG_UPS)], rst=bool(i // len(HANG_UPS) % 2))

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))


def test_rounds_of_hang_ups_at_every_chunk_index_do_not_grow_what_the_server_holds(probed: Probed) -> None:
    admin = {"x-goog-api-key": KEY}
    entry = {"chunks": CHUNKS, "chunkDelayMs": 2, "times": "forever"}
    assert httpx.post(probed.served.url + "/__emulator/script", json=entry, headers=admin).status_code == 200
    journaled = httpx.get(probed.served.url + "/__emulator/namespaces", headers=admin).json()
    idle = probed.settled(tasks=1, fds=1 << 20)  # no connection left: uvicorn's main task alone
    assert idle["keep_alive_s"] == KEEP_ALIVE_S, "the launcher no longer sets uvicorn's keep-alive timeout"
    tasks, fds = idle["tasks"], idle["fds"]
    asyncio.run(_round(probed.served.port))  # the warm-up round
    counts = [probed.settled(tasks, fds)]
    for _ in range(ROUNDS):
        asyncio.run(_round(probed.served.port))
        counts.append(probed.settled(tasks, fds))
    growth = {name: counts[-1][name] - counts[0][name] for name in TOLERANCE if counts[0][name] is not None}
    over = {name: (grew, TOLERANCE[name]) for name, grew in growth.items() if grew > TOLERANCE[name]}
    rounds = "\n".join(f"  after round {i}: {c}" for i, c in enumerate(counts))
    assert not over, f"grew past the tolerance over {MEASURED} hang-ups (growth, allowed): {over}\n{rounds}"
    after = httpx.get(probed.served.url + "/__emulator/namespaces", headers=admin).json()
    served = after["requests"] + after["evicted"] - journaled["requests"] - journaled["evicted"]
    assert served == (ROUNDS + 1) * PER_ROUND  # every hang-up was a request the server handled and journaled
