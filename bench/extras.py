"""The benchmark's long runs on the emulator alone: many held streams, memory over many requests and over many
clients that hang up mid-stream, and how the cost of countTokens and zero-config answers grows with the prompt."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from load import cpu_seconds
from servers import Server, start

LOAD = str(Path(__file__).resolve().parent / "load.py")
MODEL = "/v1beta/models/gemini-2.5-flash"
UNARY, SSE, COUNT = MODEL + ":generateContent", MODEL + ":streamGenerateContent?alt=sse", MODEL + ":countTokens"
OPENAI_UNARY, OPENAI_SSE = "/v1beta/openai/chat/completions", "/v1beta/openai/chat/completions?stream"


def load(*args: object, timeout: float = 900) -> Any:
    done = subprocess.run([sys.executable, LOAD, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise RuntimeError(f"load generator {args[0]} failed:\n{done.stderr[-3000:]}")
    try:
        return json.loads(done.stdout)
    except ValueError:
        Path("/tmp/bench-load-output.txt").write_text(done.stdout + "\n----\n" + done.stderr)
        raise


def rss_mib(pid: int) -> float:
    return int(re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())[1]) / 1024


def admin(server: Server, method: str, path: str, body: Any = None, key: str = "bench") -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"x-goog-api-key": key} | ({"content-type": "application/json"} if payload is not None else {})
        conn.request(method, "/__emulator" + path, payload, headers)
        response = conn.getresponse()
        answer = json.loads(response.read())
        if response.status >= 400:  # a refused script would leave the run measuring zero-config answers
            raise RuntimeError(f"admin {method} {path}: {response.status} {answer}")
        return answer
    finally:
        conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def held_streams(count: int = 1000, chunks: int = 40, delay_ms: int = 50, ramp_s: float = 1.0) -> dict[str, Any]:
    """`count` SSE streams held at once, each `chunks` events `delay_ms` apart (script entry chunkDelayMs),
    their requests spread over `ramp_s` seconds (0: all in the same instant)."""
    server = start("emulator")
    try:
        key = "streams"
        entry = {"chunks": [f"chunk {i} " for i in range(chunks)], "chunkDelayMs": delay_ms, "times": "forever"}
        admin(server, "POST", "/script", entry, key)
        rss_before, cpu_before = rss_mib(server.proc.pid), cpu_seconds(server.proc.pid)
        held = load("streams", server.port, SSE, count, key, ramp_s)
        result, server_cpu = held["streams"], (cpu_seconds(server.proc.pid) - cpu_before) / held["wall_s"]
        rss_after = rss_mib(server.proc.pid)
    finally:
        server.stop()
    errors = [s for s in result if "error" in s or s["status"] != 200 or len(s["arrivals"]) != chunks]
    good = [s for s in result if s.get("arrivals")]
    pairs = [(a, b) for s in good for a, b in zip(s["arrivals"], s["arrivals"][1:], strict=False)]
    lateness = [abs((b - a) * 1000 - delay_ms) for a, b in pairs]
    # Steady state: once every stream has had its first event (the burst of 1,000 requests is over).
    all_started = max((s["arrivals"][0] for s in good), default=0.0)
    steady = [abs((b - a) * 1000 - delay_ms) for a, b in pairs if a >= all_started]
    firsts = [(s["arrivals"][0] - s["sent"]) * 1000 for s in good]
    return {
        "streams": count,
        "chunks": chunks,
        "delay_ms": delay_ms,
        "ramp_s": ramp_s,
        "errors": len(errors),
        "error_samples": [s.get("error") or s.get("status") for s in errors[:3]],
        "gap_error_p50_ms": percentile(lateness, 0.5),
        "gap_error_p99_ms": percentile(lateness, 0.99),
        "gap_error_max_ms": max(lateness, default=float("nan")),
        "all_started_ms": all_started * 1000,
        "steady_gaps": len(steady),
        "steady_gap_error_p50_ms": percentile(steady, 0.5),
        "steady_gap_error_p99_ms": percentile(steady, 0.99),
        "first_event_p50_ms": percentile(firsts, 0.5),
        "first_event_p99_ms": percentile(firsts, 0.99),
        "server_cpu": server_cpu,
        "client_cpu": held["client_cpu"],
        "rss_before_mib": rss_before,
        "rss_during_after_mib": rss_after,
    }


def memory(total: int = 100_000, runs: int = 2, conns: int = 50, cap: int = 10_000) -> dict[str, Any]:
    """RSS idle, then after each run of `total` requests, with the journal capped at `cap` records."""
    server = start("emulator", ("--journal-cap", str(cap)))
    try:
        out: dict[str, Any] = {"requests_per_run": total, "journal_cap": cap, "rss_idle_mib": rss_mib(server.proc.pid)}
        after = []
        for run in range(runs):
            done = load("volume", server.port, UNARY, conns, total, 1_000_000_000 + run * total)
            if done["errors"]:
                raise RuntimeError(f"memory run {run}: {done['errors']} requests failed")
            after.append(rss_mib(server.proc.pid))
        journal = admin(server, "GET", "/journal?since=1000000000000")
        out |= {"rss_after_runs_mib": after, "journal_evicted": journal["evicted"]}
        # What one record costs: the journal's share of the RSS, measured by emptying it.
        admin(server, "DELETE", "/journal", key="")
        out["rss_journal_cleared_mib"] = rss_mib(server.proc.pid)
        return out
    finally:
        server.stop()


def idle_connections(count: int = 1000) -> dict[str, Any]:
    """RSS of an idle emulator before and while `count` idle keep-alive connections are open."""
    import socket

    server = start("emulator")
    socks: list[socket.socket] = []
    try:
        before = rss_mib(server.proc.pid)
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(b"GET /__emulator/health HTTP/1.1\r\nhost: x\r\n\r\n")
            socks.append(sock)
        for sock in socks:  # each answered once: the connection is open and idle
            data = b""
            while b'"ok"' not in data:
                data += sock.recv(4096)
        return {"connections": count, "rss_before_mib": before, "rss_open_mib": rss_mib(server.proc.pid)}
    finally:
        for sock in socks:
            sock.close()
        server.stop()


KEEP_ALIVE_S = 5  # uvicorn's keep-alive timeout, which `serve` leaves at its default


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def disconnects(
    rounds: int = 10, per_round: int = 2_000, chunks: int = 8, delay_ms: int = 2, conns: int = 50, cap: int = 1_000
) -> dict[str, Any]:
    """RSS after each of `rounds` rounds of `per_round` SSE streams whose clients hang up part-way: after k events
    of a `chunks`-event scripted answer (`delay_ms` apart), k cycling over every index (-1: before the head),
    every other cycle with a RST instead of a FIN. The journal is capped at `cap` records (< per_round), so it is
    full after the first round and does not add to later ones.

    RSS is read once the round is over on the server's side too: its sockets are back to the idle count and
    uvicorn's keep-alive timers have fired (KEEP_ALIVE_S: a connection aborted after a complete response keeps
    its objects until then, by uvicorn's design). RSS grows over the first rounds as the garbage collector's
    generations fill (on CPython 3.11 every closed asyncio connection is a reference cycle, freed only by a
    collection, and `serve` collects seldom: emulator/runtime.py), then stays flat: run.py compares the last round
    with the middle one."""
    server = start("emulator", ("--journal-cap", str(cap)))
    try:
        key = "disconnects"
        entry = {"chunks": [f"chunk {i} " for i in range(chunks)], "chunkDelayMs": delay_ms, "times": "forever"}
        admin(server, "POST", "/script", entry, key)
        pid = server.proc.pid
        time.sleep(KEEP_ALIVE_S + 0.5)  # the start-up and admin connections' keep-alive timers fire
        idle_fds, rss_idle = _open_fds(pid), rss_mib(pid)
        journaled = admin(server, "GET", "/namespaces", key=key)
        after, seconds, statuses, errors = [], [], {}, 0
        for _ in range(rounds):
            done = load("hangups", server.port, SSE, per_round, key, chunks, conns)
            seconds.append(done["seconds"])
            errors += done["errors"]
            for status, n in done["statuses"].items():
                statuses[status] = statuses.get(status, 0) + n
            deadline = time.monotonic() + 30
            while _open_fds(pid) > idle_fds:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"disconnects: {_open_fds(pid) - idle_fds} sockets still open after 30 s")
                time.sleep(0.05)
            time.sleep(KEEP_ALIVE_S + 0.5)
            after.append(rss_mib(pid))
        spaces = admin(server, "GET", "/namespaces", key=key)
        served = spaces["requests"] + spaces["evicted"] - journaled["requests"] - journaled["evicted"]
    finally:
        server.stop()
    server.log.seek(0)
    logged = server.log.read().decode(errors="replace")
    bad_lines = [line for line in logged.splitlines() if any(w in line for w in ("ERROR", "WARNING", "Traceback"))]
    return {
        "rounds": rounds,
        "per_round": per_round,
        "chunks": chunks,
        "delay_ms": delay_ms,
        "conns": conns,
        "journal_cap": cap,
        "round_seconds": seconds,
        "client_errors": errors,
        "statuses": statuses,
        "requests_journaled": served,
        "server_error_lines": len(bad_lines),
        "server_error_samples": bad_lines[:3],
        "rss_idle_mib": rss_idle,
        "rss_after_rounds_mib": after,
    }


SIZES = [1_000, 10_000, 100_000, 1_000_000]


def scaling(repeats: int = 5) -> dict[str, Any]:
    """Median time of countTokens and zero-config generateContent for prompts of 1 KB to 1 MB."""
    server = start("emulator")
    try:
        times = load("sizes", server.port, f"{COUNT},{UNARY}", ",".join(map(str, SIZES)), repeats)
    finally:
        server.stop()
    out: dict[str, Any] = {"sizes": SIZES, "repeats": repeats}
    for name, path in (("countTokens", COUNT), ("generateContent", UNARY)):
        ms = [times[f"{path}|{size}"] * 1000 for size in SIZES]
        out[name] = {"ms": ms, "ratio_per_10x": [b / a for a, b in zip(ms, ms[1:], strict=False)]}
    return out


def openai_compat(rounds: int = 3, conns: tuple[int, ...] = (1, 50)) -> dict[str, Any]:
    """The OpenAI-compatible surface beside the native calls on one server: chat completions unary and streamed
    against generateContent and streamGenerateContent?alt=sse, same prompt, rounds alternating. Compared by server
    CPU per request (the load generator shares the cores, so throughput alone would also measure the client)."""
    server = start("emulator")
    pairs = (("unary", UNARY, OPENAI_UNARY), ("sse", SSE, OPENAI_SSE))
    first = itertools.count(2_000_000_000, 10_000_000)
    cases = []
    try:
        for kind, native, compat in pairs:
            for n in conns:
                runs: dict[str, list[dict[str, Any]]] = {"native": [], "openai": []}
                for _ in range(rounds):
                    for name, path in (("native", native), ("openai", compat)):
                        runs[name].append(load("requests", server.port, path, n, server.proc.pid, next(first)))
                row: dict[str, Any] = {"case": kind, "conns": n}
                for name, done in runs.items():
                    requests = sum(len(r["latencies"]) for r in done)
                    span = sum(r["span"] for r in done)
                    row[name] = {
                        "requests": requests,
                        "rps": requests / span,
                        "cpu_ms_per_request": 1000 * sum(r["server_cpu"] for r in done) / requests,
                        "p50_ms": 1000 * percentile([x for r in done for x in r["latencies"]], 0.5),
                        "non_200": sum(r["non_200"] for r in done),
                    }
                row["cpu_ratio"] = row["openai"]["cpu_ms_per_request"] / row["native"]["cpu_ms_per_request"]
                cases.append(row)
    finally:
        server.stop()
    return {"rounds": rounds, "cases": cases, "target_cpu_ratio": 1.2}


_FIXTURE_TESTS = """
import pytest


@pytest.mark.parametrize("n", range({count}))
def test_one(n, {fixture}):
    assert {check}
"""


def fixture_overhead(count: int = 200, fresh_count: int = 20, repeats: int = 3) -> dict[str, Any]:
    """A pytest session of `count` tests using the `gemini` fixture against the same tests using none: the
    difference per test is what the fixture costs (one namespace on the session's emulator). `gemini_fresh`
    (a server per test) is timed on fewer tests for comparison. Wall time, median of `repeats` sessions."""
    import tempfile

    def session(fixture: str, check: str, tests: int) -> float:
        with tempfile.TemporaryDirectory() as folder:
            text = _FIXTURE_TESTS.format(count=tests, fixture=fixture, check=check)
            (Path(folder) / "test_fixture_cost.py").write_text(text)
            argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin"]
            started = time.perf_counter()
            done = subprocess.run([*argv, folder], capture_output=True, text=True, cwd=folder, check=False)
            elapsed = time.perf_counter() - started
            if done.returncode != 0:
                raise RuntimeError(f"the fixture session failed:\n{done.stdout[-2000:]}")
            return elapsed

    def median(fixture: str, check: str, tests: int) -> float:
        return sorted(session(fixture, check, tests) for _ in range(repeats))[repeats // 2]

    plain = median("request", "n >= 0", count)
    shared = median("gemini", "gemini.api_key", count)
    fresh_plain = median("request", "n >= 0", fresh_count)
    fresh = median("gemini_fresh", "gemini_fresh.api_key", fresh_count)
    from gemini_emulator.config import Settings
    from gemini_emulator.testing.server import start as start_emulator

    starts = []
    for _ in range(5):
        began = time.perf_counter()
        running = start_emulator(Settings(port=0))
        starts.append(time.perf_counter() - began)
        running.stop()
    return {
        "tests": count,
        "gemini_ms_per_test": (shared - plain) * 1000 / count,
        "gemini_session_s": shared,
        "plain_session_s": plain,
        "fresh_tests": fresh_count,
        "gemini_fresh_ms_per_test": (fresh - fresh_plain) * 1000 / fresh_count,
        "server_start_ms_median": sorted(starts)[2] * 1000,
        "target_ms_per_test": 5.0,
        "target_start_ms": 150.0,
    }
