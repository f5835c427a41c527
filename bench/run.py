"""`make bench`: the emulator against a bare Starlette baseline, side by side, on this machine.

A benchmark, not a test: it prints absolute numbers and ratios, writes bench/results-latest.json,
and exits non-zero only when the measurement itself failed (a server never ready, a non-200 answer).
The load generator is this same file run with `--load` in its own process: a lean client on raw
asyncio streams (HTTP/1.1 keep-alive, one connection per concurrent worker).
"""

from __future__ import annotations

import asyncio
import http.client
import importlib.util
import itertools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
UNARY = "/v1beta/models/gemini-2.5-flash:generateContent"
SSE = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
HEALTH = "/__emulator/health"
CASES = [("unary", UNARY, 1), ("unary", UNARY, 50), ("sse", SSE, 1), ("sse", SSE, 50)]
PROMPT = b'{"contents": [{"role": "user", "parts": [{"text": "Bench request %d: is it sunny in Paris?"}]}]}'
# Each case: ROUNDS alternating runs per server (drift on a shared VM hits both alike), each a fresh
# load process with WARMUP_S of unmeasured load, then ROUND_S measured: 3 s measured per server per case.
WARMUP_S, ROUND_S, ROUNDS, MAX_REQUESTS, STARTS, TARGET = 0.5, 1.0, 3, 100_000, 3, 0.6


async def _read_response(reader: asyncio.StreamReader) -> int:
    """Read one whole HTTP/1.1 response (Content-Length or chunked); return its status."""
    head = await reader.readuntil(b"\r\n\r\n")
    lower = head.lower()
    if b"\r\ntransfer-encoding: chunked" in lower:
        while size := int((await reader.readline()).split(b";")[0], 16):
            await reader.readexactly(size + 2)
        await reader.readline()  # the empty line after the last chunk
    else:
        start = lower.index(b"\r\ncontent-length:") + 17
        await reader.readexactly(int(lower[start : lower.index(b"\r\n", start)]))
    return int(head[9:12])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _load(port: int, path: str, conns: int, server_pid: int, first: int) -> dict[str, Any]:
    """Hammer one URL with `conns` keep-alive connections; only requests started after the warm-up count."""
    counter = itertools.count(first)  # prompt numbers: unique across the whole bench run
    latencies: list[float] = []
    non_200: list[int] = []
    begin = time.perf_counter()
    measure_from, stop_at = begin + WARMUP_S, begin + WARMUP_S + ROUND_S
    marks: dict[str, float] = {}

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while (now := time.perf_counter()) < stop_at and len(latencies) < MAX_REQUESTS:
                body = PROMPT % next(counter)
                writer.write(
                    b"POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nx-goog-api-key: bench\r\n"
                    b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                    % (path.encode(), port, len(body), body)
                )
                status = await _read_response(reader)
                done = time.perf_counter()
                if now >= measure_from:
                    if not marks:  # CPU time of both processes when the measured window opens
                        marks.update(cpu_srv=_cpu_seconds(server_pid), cpu_cli=time.process_time())
                    latencies.append(done - now)
                    if status != 200:
                        non_200.append(status)
                    marks["last"] = done
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(conns)))
    return {
        "latencies": latencies,
        "span": marks["last"] - measure_from,
        "server_cpu": _cpu_seconds(server_pid) - marks["cpu_srv"],
        "client_cpu": time.process_time() - marks["cpu_cli"],
        "non_200": len(non_200),
    }


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One target's rounds of one case: pooled throughput, latency percentiles, CPU use."""
    latencies = sorted(x for run in runs for x in run["latencies"])
    span = sum(run["span"] for run in runs)
    return {
        "requests": len(latencies),
        "rps": len(latencies) / span,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "non_200": sum(run["non_200"] for run in runs),
        "server_cpu": sum(run["server_cpu"] for run in runs) / span,
        "client_cpu": sum(run["client_cpu"] for run in runs) / span,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float:
    return int(re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())[1]) / 1024


def _healthy(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        conn.request("GET", HEALTH)
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def start(name: str, procs: list[subprocess.Popen[bytes]]) -> tuple[subprocess.Popen[bytes], int, float]:
    """Start a server; return it, its port, and seconds from spawn to the first 200 on the health URL."""
    port = free_port()
    cmd = (
        [str(Path(sys.executable).with_name("gemini-emulator")), "serve", "--port", str(port)]
        if name == "emulator"
        else [sys.executable, str(BENCH / "baseline_app.py"), "--port", str(port)]
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_EMULATOR_")}  # default settings
    log = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)
    procs.append(proc)
    while not _healthy(port):
        if proc.poll() is not None or time.perf_counter() - t0 > 30:
            log.seek(0)
            raise RuntimeError(f"{name} never became ready:\n{log.read().decode(errors='replace')}")
        time.sleep(0.005)
    return proc, port, time.perf_counter() - t0


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()  # a no-op when it has already exited
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_load(port: int, path: str, conns: int, pid: int, first: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--load", str(port), path, str(conns), str(pid), str(first)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if done.returncode:
        raise RuntimeError(f"load generator failed on {path} x{conns}:\n{done.stderr}")
    return json.loads(done.stdout)


def measure() -> dict[str, Any]:
    procs: list[subprocess.Popen[bytes]] = []
    servers: dict[str, dict[str, Any]] = {}
    try:
        for name in ("baseline", "emulator"):
            readies = []
            for i in range(STARTS):
                proc, port, ready = start(name, procs)
                readies.append(ready)
                if i < STARTS - 1:
                    stop(proc)
            time.sleep(0.5)
            ready_s, rss = statistics.median(readies), rss_mib(proc.pid)
            servers[name] = {"proc": proc, "port": port, "ready_s": ready_s, "rss_start_mib": rss}
        cases, first = [], itertools.count(0, 10_000_000)
        for kind, path, conns in CASES:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in servers}
            for _ in range(ROUNDS):
                for name, srv in servers.items():
                    runs[name].append(run_load(srv["port"], path, conns, srv["proc"].pid, next(first)))
            row: dict[str, Any] = {"case": kind, "conns": conns, **{n: summarize(r) for n, r in runs.items()}}
            row["ratio"] = row["emulator"]["rps"] / row["baseline"]["rps"]
            cases.append(row)
        time.sleep(0.5)
        for srv in servers.values():
            srv["rss_after_mib"] = rss_mib(srv.pop("proc").pid)
    finally:
        for proc in procs:
            stop(proc)
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http_impl = "httptools" if importlib.util.find_spec("httptools") else "h11"
    server = f"uvicorn loop/http 'auto' -> {loop}/{http_impl}, 1 worker"
    machine = {"cpus": os.cpu_count(), "python": sys.version.split()[0], "server": server}
    settings = {"warmup_s": WARMUP_S, "round_s": ROUND_S, "rounds": ROUNDS, "starts": STARTS, "target": TARGET}
    return {"machine": machine, "settings": settings, "servers": servers, "cases": cases}


def report(results: dict[str, Any]) -> bool:
    """Print the tables and verdicts; True when every request got a 200."""
    m, srv = results["machine"], results["servers"]
    print(f"gemini-emulator bench: {m['cpus']} CPU(s), Python {m['python']}, {m['server']}")
    print(f"  load generator: a separate Python process (raw asyncio streams) sharing these {m['cpus']} cores")
    print("  with the server; its CPU use (client cpu) caps what can be measured. cpu = server CPU, 100% = 1 core")
    print(f"  each case: {ROUNDS} alternating rounds per server, each {WARMUP_S}s warm-up + {ROUND_S}s measured\n")
    head = f"{'case':<6}{'conns':>6} |{'req/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'cpu':>6}"
    print(f"{'':13}|{'baseline':^32}|{'emulator':^32}|")
    print(head + head[12:] + " | ratio  client cpu (b/e)")
    ok = True
    for row in results["cases"]:
        line = f"{row['case']:<6}{row['conns']:>6}"
        for name in ("baseline", "emulator"):
            r = row[name]
            line += f" |{r['rps']:>9.0f}{r['p50_ms']:>8.2f}{r['p99_ms']:>8.2f}{r['server_cpu']:>6.0%}"
            ok = ok and r["non_200"] == 0
        clients = f"{row['baseline']['client_cpu']:.0%}/{row['emulator']['client_cpu']:.0%}"
        print(f"{line} | {row['ratio']:.2f}x  {clients}")
    b, e = srv["baseline"], srv["emulator"]
    print(f"\n{'':26}{'baseline':>10}{'emulator':>10}{'ratio':>8}")
    rows = {
        "time-to-ready (median) ms": "ready_s",
        "RSS after start MiB": "rss_start_mib",
        "RSS after load MiB": "rss_after_mib",
    }
    for label, key in rows.items():
        scale = 1000 if key == "ready_s" else 1
        print(f"{label:<26}{b[key] * scale:>10.1f}{e[key] * scale:>10.1f}{e[key] / b[key]:>7.2f}x")
    print()
    results["verdicts"] = {}
    for kind in ("unary", "sse"):
        worst = min((r for r in results["cases"] if r["case"] == kind), key=lambda r: r["ratio"])
        verdict = "PASS" if worst["ratio"] >= TARGET else "FAIL"
        results["verdicts"][kind] = {"ratio": worst["ratio"], "conns": worst["conns"], "verdict": verdict}
        detail = f"{worst['ratio']:.2f}x, worst of 1 and 50 conns: {worst['conns']}"
        print(f"target {kind} >= {TARGET}x baseline: {verdict} ({detail})")
    if not ok:
        print("ERROR: some requests did not get a 200; the numbers above are not valid")
    return ok


def main() -> int:
    if sys.argv[1:2] == ["--load"]:  # internal: --load PORT PATH CONNS SERVER_PID FIRST_PROMPT, prints JSON
        port, path, conns, pid, first = sys.argv[2:7]
        print(json.dumps(asyncio.run(_load(int(port), path, int(conns), int(pid), int(first)))))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the cleanup in measure() on SIGTERM too
    results = measure()
    ok = report(results)
    (BENCH / "results-latest.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {BENCH / 'results-latest.json'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
