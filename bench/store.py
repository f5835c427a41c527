"""Issue 34's run (`python bench/run.py --only store`): the state store's cost and what workers give.

In one run, on the same machine and alternating rounds (drift on a shared VM hits all alike): zero-config unary
generateContent and `alt=sse` streams at 50 connections against one in-memory process (`memory`), one process on the
Redis store (`redis`), two worker processes on the Redis store (`redis-2w`), and aimock when node is there. Reported
per server: requests/s, server CPU per request (every process of the server, from /proc: a supervisor and its
workers alike), Redis's own CPU per request, and Redis round trips per plain request (the script calls in INFO
commandstats before and after each round; the load generator makes none). Then exactly-once under load: ENTRIES scripted
entries, each a distinct text, answered through the two workers by 50 concurrent clients; every text must come
back exactly once and nothing stay pending.

Targets (issue 34): at most one Redis round trip per plain generate request, at most 30% more emulator CPU per
request than the in-memory process, and two workers at least 1.4x the in-memory process's requests/s.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from typing import Any

from extras import SSE, UNARY, admin, load
from load import cpu_seconds
from servers import Server, aimock_available, free_port, start

ROUNDS = 3
CONNS = 50
ENTRIES = 1000
CLIENTS = 50
TARGET_TRIPS, TARGET_CPU, TARGET_WORKERS = 1.0, 1.30, 1.4


class Redis:
    """A redis-server of its own on a free port, without persistence."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (Debian: apt-get install redis-server)")
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="gemini-bench-redis-")
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen([*command, "--dir", self.dir], stdout=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server never answered PING")
            time.sleep(0.01)

    def _answers(self) -> bool:
        try:
            return self.command("PING").startswith("+PONG")
        except OSError:
            return False

    def command(self, *words: str) -> str:
        """One command in RESP, its reply as text (enough for PING, INFO and FLUSHALL)."""
        request = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall(request.encode())
            head = conn.recv(65536)
            if head.startswith(b"$"):
                size = int(head[1 : head.index(b"\r\n")])
                while len(head) < size + len(str(size)) + 5:
                    head += conn.recv(65536)
            return head.decode(errors="replace")

    def calls(self) -> int:
        """Round trips the emulator has made so far: the script calls in INFO commandstats. Every command the
        emulator sends on the request path is a Lua script (EVALSHA, EVAL); the commands a script runs are counted
        in commandstats too but cost no trip, so they are left out, and so are this benchmark's INFO calls."""
        total = 0
        for line in self.command("INFO", "commandstats").splitlines():
            name = line.split(":", 1)[0]
            if name in ("cmdstat_evalsha", "cmdstat_eval", "cmdstat_evalsha_ro", "cmdstat_eval_ro"):
                total += int(line.split("calls=", 1)[1].split(",", 1)[0])
        return total

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def _round(server: Server, path: str, redis: Redis, first: int) -> dict[str, Any]:
    calls, redis_cpu = redis.calls(), cpu_seconds(redis.proc.pid)
    run = load("requests", server.port, path, CONNS, server.proc.pid, first)
    return {
        "requests": len(run["latencies"]),  # in the measured window, as the server CPU is
        "span": run["span"],
        "non_200": run["non_200"],
        "cpu": run["server_cpu"],
        "sent": run["sent"],  # the warm-up's too, as Redis's calls and CPU below are
        "redis_cpu": cpu_seconds(redis.proc.pid) - redis_cpu,
        "redis_calls": redis.calls() - calls,
    }


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A server's rounds of one path."""
    requests, sent = sum(r["requests"] for r in runs), sum(r["sent"] for r in runs)
    span = sum(r["span"] for r in runs)
    return {
        "rps": requests / span if span else 0.0,
        "rps_rounds": [r["requests"] / r["span"] for r in runs if r["span"]],
        "cpu_ms_per_request": 1000 * sum(r["cpu"] for r in runs) / requests if requests else 0.0,
        "redis_cpu_ms_per_request": 1000 * sum(r["redis_cpu"] for r in runs) / sent if sent else 0.0,
        "redis_calls_per_request": sum(r["redis_calls"] for r in runs) / sent if sent else 0.0,
        "non_200": sum(r["non_200"] for r in runs),
    }


async def _exactly_once(port: int) -> dict[str, Any]:
    import httpx

    texts: list[str] = []
    statuses: list[int] = []
    todo = asyncio.Queue[int]()
    for i in range(ENTRIES):
        todo.put_nowait(i)
    body = {"contents": [{"role": "user", "parts": [{"text": "which entry?"}]}]}

    async def client() -> None:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            while not todo.empty():
                todo.get_nowait()
                answer = await http.post(UNARY, json=body, headers={"x-goog-api-key": "exactly-once"})
                statuses.append(answer.status_code)
                if answer.status_code == 200:
                    texts.append(answer.json()["candidates"][0]["content"]["parts"][0]["text"])

    await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return {"texts": texts, "statuses": statuses}


def _check_once(server: Server) -> dict[str, Any]:
    entries = [{"text": f"entry {i}"} for i in range(ENTRIES)]
    admin(server, "POST", "/script", {"entries": entries}, key="exactly-once")
    got = asyncio.run(_exactly_once(server.port))
    pending = admin(server, "GET", "/script", key="exactly-once")
    left = len(pending.get("entries", pending)) if isinstance(pending, dict) else len(pending)
    expected = sorted(e["text"] for e in entries)
    return {
        "entries": ENTRIES,
        "clients": CLIENTS,
        "answered": len(got["texts"]),
        "distinct": len(set(got["texts"])),
        "exactly_once": sorted(got["texts"]) == expected,
        "non_200": sum(1 for s in got["statuses"] if s != 200),
        "pending_after": left,
    }


def run() -> dict[str, Any]:
    redis = Redis()
    servers: dict[str, Server] = {}
    try:
        servers["memory"] = start("emulator")
        servers["redis"] = start("emulator", ("--store", redis.url))
        servers["redis-2w"] = start("emulator", ("--store", redis.url, "--workers", "2"))
        if aimock_available() is None:
            servers["aimock"] = start("aimock")
        rows: dict[str, dict[str, Any]] = {}
        first = 10_000_000
        for kind, path in (("unary", UNARY), ("sse", SSE)):
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in servers}
            for _ in range(ROUNDS):
                for name, server in servers.items():
                    runs[name].append(_round(server, path, redis, first))
                    first += 1_000_000
            rows[kind] = {name: _summary(r) for name, r in runs.items()}
        once = _check_once(servers["redis-2w"])
    finally:
        for server in servers.values():
            server.stop()
        redis.stop()
    return {"rounds": ROUNDS, "connections": CONNS, "cases": rows, "exactly_once": once}


def report(d: dict[str, Any]) -> bool:
    """Print the run against its targets; False when a request failed or an entry was not answered exactly once."""
    ok = True
    print(f"\nstate store (issue 34): zero-config at {d['connections']} connections, {d['rounds']} rounds each")
    for kind, row in d["cases"].items():
        memory, redis, workers = row["memory"], row["redis"], row["redis-2w"]
        for name, s in row.items():
            spread = "-".join(f"{r:,.0f}" for r in sorted(s["rps_rounds"]))
            print(
                f"  {kind:<5} {name:<9} {s['rps']:>8,.0f} req/s ({spread}); CPU {s['cpu_ms_per_request']:.3f} ms/req"
                f" + Redis {s['redis_cpu_ms_per_request']:.3f}; {s['redis_calls_per_request']:.2f} Redis trips/req"
                f"{'; ' + str(s['non_200']) + ' not 200' if s['non_200'] else ''}"
            )
            ok = ok and s["non_200"] == 0
        if kind == "unary":
            trips = redis["redis_calls_per_request"]
            cpu = redis["cpu_ms_per_request"] / memory["cpu_ms_per_request"] if memory["cpu_ms_per_request"] else 0
            gain = workers["rps"] / memory["rps"] if memory["rps"] else 0
            print(
                f"  Redis round trips per plain request {trips:.2f} (target <= {TARGET_TRIPS:g}): "
                f"{'PASS' if trips <= TARGET_TRIPS else 'FAIL'}; CPU per request {cpu:.2f}x in-memory (target <= "
                f"{TARGET_CPU:.2f}x): {'PASS' if cpu <= TARGET_CPU else 'FAIL'}; 2 workers {gain:.2f}x one "
                f"in-memory process (target >= {TARGET_WORKERS:g}x): {'PASS' if gain >= TARGET_WORKERS else 'FAIL'}"
            )
            if "aimock" in row:
                print(f"  2 workers vs aimock: {workers['rps'] / row['aimock']['rps']:.2f}x")
    once = d["exactly_once"]
    good = once["exactly_once"] and once["pending_after"] == 0 and once["non_200"] == 0
    print(
        f"  exactly once: {once['entries']} entries by {once['clients']} clients over 2 workers: {once['answered']} "
        f"answered, {once['distinct']} distinct, {once['pending_after']} pending after, {once['non_200']} not 200"
        f" -- {'PASS' if good else 'FAIL'}"
    )
    medians = {k: statistics.median(s["rps_rounds"]) for k, s in d["cases"]["unary"].items() if s["rps_rounds"]}
    print("  unary medians: " + ", ".join(f"{k} {v:,.0f}" for k, v in medians.items()))
    return ok and good
