"""`make bench`: the emulator against a bare Starlette baseline and CopilotKit's aimock, side by side, on this
machine; then the emulator alone holding 1,000 streams, over 2 x 100,000 requests, over rounds of 2,000 clients
that hang up mid-stream, and on prompts of 1 KB-1 MB.

A benchmark, not a test: it prints absolute numbers and ratios, writes bench/results-latest.json, and exits
non-zero only when the measurement itself failed (a server never ready, a request that did not get a 200).
Servers: bench/servers.py. Load generators (each run in a process of its own): bench/load.py. Long runs:
bench/extras.py. `--quick` skips the long runs; `--no-aimock` skips aimock (no node); `--only NAME` runs one long
run alone (NAME: streams, memory, idle_connections, disconnects, scaling, openai_compat, fixture, resources, live,
media, store) and updates only its entry in
bench/results-latest.json.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import extras
import live
import media
import resources
import servers
import store
from extras import COUNT, SSE, UNARY, load, rss_mib

BENCH = Path(__file__).resolve().parent
CASES = [
    ("unary", UNARY, 1),
    ("unary", UNARY, 50),
    ("unary", UNARY, 500),
    ("sse", SSE, 1),
    ("sse", SSE, 50),
    ("sse", SSE, 500),
    ("count", COUNT, 1),
    ("count", COUNT, 50),
]
# Each case: ROUNDS alternating runs per server (drift on a shared VM hits all alike), each a fresh load process
# with a 0.5 s warm-up and 1 s measured. aimock serves no countTokens.
ROUNDS, STARTS = 3, 3
TARGETS = {  # (numerator, denominator, case kind): the least ratio wanted (issue 8)
    "unary vs aimock": ("emulator", "aimock", "unary", 1.0),
    "unary vs baseline": ("emulator", "baseline", "unary", 0.8),
    "sse vs aimock": ("emulator", "aimock", "sse", 1.0),
}


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One server's rounds of one case: pooled throughput, latency percentiles, CPU use."""
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


def throughput(names: list[str]) -> dict[str, Any]:
    """Time-to-ready (median of STARTS), RSS, and every case on every server."""
    running: dict[str, servers.Server] = {}
    info: dict[str, dict[str, Any]] = {}
    try:
        for name in names:
            readies = []
            for _ in range(STARTS):
                server = servers.start(name)
                readies.append(server.ready_s)
                if len(readies) < STARTS:
                    server.stop()
            running[name] = server
            info[name] = {"ready_s": statistics.median(readies)}
        time.sleep(0.5)  # let start-up allocations settle before RSS is read
        for name, server in running.items():
            info[name]["rss_start_mib"] = rss_mib(server.proc.pid)
        cases, first = [], itertools.count(0, 10_000_000)
        for kind, path, conns in CASES:
            runs: dict[str, list[dict[str, Any]]] = {n: [] for n in running if not (n == "aimock" and kind == "count")}
            for _ in range(ROUNDS):
                for name in runs:
                    server = running[name]
                    runs[name].append(load("requests", server.port, path, conns, server.proc.pid, next(first)))
            cases.append({"case": kind, "conns": conns, **{n: summarize(r) for n, r in runs.items()}})
        time.sleep(0.5)
        for name, server in running.items():
            info[name]["rss_after_mib"] = rss_mib(server.proc.pid)
    finally:
        for server in running.values():
            server.stop()
    return {"servers": info, "cases": cases}


def ratio(row: dict[str, Any], a: str, b: str) -> float | None:
    return row[a]["rps"] / row[b]["rps"] if a in row and b in row else None


LONG_RUNS = {
    "streams": extras.held_streams,
    "memory": extras.memory,
    "idle_connections": extras.idle_connections,
    "disconnects": extras.disconnects,
    "scaling": extras.scaling,
    "openai_compat": extras.openai_compat,
    "fixture": extras.fixture_overhead,
}
# Long runs in modules of their own (issues 16-18): each has run() -> results and report(results) -> ok.
MODULE_RUNS = {"resources": resources, "live": live, "media": media, "store": store}
LONG_RUNS |= {name: module.run for name, module in MODULE_RUNS.items()}


def measure(quick: bool, with_aimock: bool) -> dict[str, Any]:
    names = ["baseline", "least", "emulator", "scripted", "emulator-h11"] + (["aimock"] if with_aimock else [])
    results: dict[str, Any] = throughput(names)
    if not quick:
        for name, run in LONG_RUNS.items():
            results[name] = run()
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http_impl = "httptools" if importlib.util.find_spec("httptools") else "h11"
    results["machine"] = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "server": f"uvicorn loop/http 'auto' -> {loop}/{http_impl}, 1 worker",
        "date": time.strftime("%Y-%m-%d"),
    }
    results["settings"] = {"rounds": ROUNDS, "starts": STARTS, "warmup_s": 0.5, "round_s": 1.0}
    return results


def _table(results: dict[str, Any], names: list[str]) -> bool:
    ok = True
    head = "".join(f"|{n:^26}" for n in names)
    print(f"{'':13}{head}| ratios")
    sub = "".join(f"|{'req/s':>8}{'p50 ms':>7}{'p99 ms':>7}{'cpu':>4} " for _ in names)
    print(f"{'case':<6}{'conns':>6} {sub}| emu/base emu/aimock scr/base scr/aimock aimock/base")
    for row in results["cases"]:
        line = f"{row['case']:<6}{row['conns']:>6} "
        for name in names:
            r = row.get(name)
            if r is None:
                line += f"|{'n/a':>26}"
                continue
            line += f"|{r['rps']:>8.0f}{r['p50_ms']:>7.2f}{r['p99_ms']:>7.1f}{r['server_cpu'] * 100:>4.0f} "
            ok = ok and r["non_200"] == 0
        pairs = [("emulator", "baseline"), ("emulator", "aimock"), ("scripted", "baseline"), ("scripted", "aimock")]
        pairs.append(("aimock", "baseline"))
        line += "| " + " ".join(f"{_fmt(ratio(row, a, b)):>8}" for a, b in pairs)
        print(line)
    print("\nserver CPU µs per request (utime + stime of the server process over the measured requests):")
    ratios = "   emu/aimock emu/h11 least/aimock emu/least"
    print(f"{'case':<6}{'conns':>6} " + "".join(f"{n:>14}" for n in names) + ratios)
    for row in results["cases"]:
        cpu = {n: row[n]["server_cpu"] / row[n]["rps"] * 1e6 for n in names if row.get(n) and row[n]["rps"]}
        row["cpu_us_per_request"] = cpu
        line = f"{row['case']:<6}{row['conns']:>6} " + "".join(
            f"{cpu[n]:>14.0f}" if n in cpu else f"{'n/a':>14}" for n in names
        )
        for a, b, width in (("emulator", "aimock", 11), ("emulator", "emulator-h11", 8), ("least", "aimock", 13)):
            line += f"{_fmt(cpu[a] / cpu[b]) if a in cpu and b in cpu else 'n/a':>{width}}"
        line += f"{_fmt(cpu['emulator'] / cpu['least']) if 'emulator' in cpu and 'least' in cpu else 'n/a':>10}"
        print(line)
    return ok


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def report(results: dict[str, Any]) -> bool:
    """Print the tables, the targets and the long runs; True when every request got a 200."""
    m, srv = results["machine"], results["servers"]
    names = list(srv)
    print(f"gemini-emulator bench {m['date']}: {m['cpus']} CPU(s), Python {m['python']}, {m['server']}")
    print("  load generator: a separate Python process (raw asyncio streams) sharing the same cores; cpu = server")
    print(f"  CPU, % of one core; each case: {ROUNDS} alternating rounds per server, 0.5 s warm-up + 1 s measured\n")
    ok = _table(results, names)
    print(f"\n{'':28}" + "".join(f"{n:>10}" for n in names))
    rows = (
        ("time to first 200 (median) ms", "ready_s", 1000),
        ("RSS after start MiB", "rss_start_mib", 1),
        ("RSS after the load MiB", "rss_after_mib", 1),
    )
    for label, key, scale in rows:
        print(f"{label:<28}" + "".join(f"{srv[n][key] * scale:>10.1f}" for n in names))
    print()
    results["verdicts"] = {}
    for label, (a, b, kind, target) in TARGETS.items():
        rows = [r for r in results["cases"] if r["case"] == kind and a in r and b in r]
        if not rows:
            continue
        worst = min(rows, key=lambda r: r[a]["rps"] / r[b]["rps"])
        value = worst[a]["rps"] / worst[b]["rps"]
        verdict = "PASS" if value >= target else "FAIL"
        results["verdicts"][label] = {"ratio": value, "conns": worst["conns"], "target": target, "verdict": verdict}
        print(f"target {label} >= {target}x: {verdict} ({value:.2f}x, worst case: {worst['conns']} connections)")
    ready_ms = srv["emulator"]["ready_s"] * 1000
    print(f"target ready <= 300 ms: {'PASS' if ready_ms <= 300 else 'FAIL'} ({ready_ms:.0f} ms)")
    ok = _long_runs(results) and ok
    if not ok:
        print("ERROR: some requests did not get a 200; the numbers above are not valid")
    return ok


def _long_runs(results: dict[str, Any]) -> bool:
    ok = True
    if "streams" in results:
        s = results["streams"]
        good = s["errors"] == 0 and s["gap_error_p99_ms"] <= 20
        print(
            f"\n{s['streams']} streams at once, {s['chunks']} events {s['delay_ms']} ms apart: {s['errors']} errors; "
            f"gap error p50 {s['gap_error_p50_ms']:.1f} ms, p99 {s['gap_error_p99_ms']:.1f} ms, max "
            f"{s['gap_error_max_ms']:.1f} ms; first event p50 {s['first_event_p50_ms']:.0f} ms, p99 "
            f"{s['first_event_p99_ms']:.0f} ms; RSS {s['rss_before_mib']:.1f} -> {s['rss_during_after_mib']:.1f} MiB"
            f" -- target 0 errors, p99 <= 20 ms: {'PASS' if good else 'FAIL'}"
        )
    if "memory" in results:
        mem = results["memory"]
        after = mem["rss_after_runs_mib"]
        good = max(after) <= 60
        runs = " -> ".join(f"{x:.1f}" for x in after)
        print(
            f"memory: RSS idle {mem['rss_idle_mib']:.1f} MiB, after each run of {mem['requests_per_run']:,} requests "
            f"{runs} MiB (journal cap {mem['journal_cap']:,}, {mem['journal_evicted']:,} evicted); journal cleared "
            f"{mem['rss_journal_cleared_mib']:.1f} MiB -- target <= 60 MiB: {'PASS' if good else 'FAIL'}"
        )
    if "idle_connections" in results:
        c = results["idle_connections"]
        print(
            f"{c['connections']} idle keep-alive connections: RSS {c['rss_before_mib']:.1f} -> {c['rss_open_mib']:.1f}"
            f" MiB ({(c['rss_open_mib'] - c['rss_before_mib']) * 1024 / c['connections']:.1f} KiB each)"
        )
    if "disconnects" in results:
        ok = _disconnects(results["disconnects"]) and ok
    if "openai_compat" in results:
        ok = _openai_compat(results["openai_compat"]) and ok
    if "fixture" in results:
        f = results["fixture"]
        good = (
            f["gemini_ms_per_test"] <= f["target_ms_per_test"] and f["server_start_ms_median"] <= f["target_start_ms"]
        )
        print(
            f"pytest fixtures: `gemini` {f['gemini_ms_per_test']:.1f} ms per test over {f['tests']} tests "
            f"(session {f['gemini_session_s']:.2f} s vs {f['plain_session_s']:.2f} s without it); `gemini_fresh` "
            f"{f['gemini_fresh_ms_per_test']:.0f} ms per test; server start {f['server_start_ms_median']:.0f} ms "
            f"(median of 5) -- target <= {f['target_ms_per_test']:g} ms per test, start <= "
            f"{f['target_start_ms']:g} ms: {'PASS' if good else 'FAIL'}"
        )
    for name, module in MODULE_RUNS.items():
        if name in results:
            ok = module.report(results[name]) and ok
    if "scaling" in results:
        sc = results["scaling"]
        print(f"scaling (median of {sc['repeats']} requests per size; O(n) means ~10x per 10x):")
        print(f"  {'prompt':<14}" + "".join(f"{size:>12,}" for size in sc["sizes"]) + "   ratio per 10x")
        for name in ("countTokens", "generateContent"):
            row = sc[name]
            ratios = " ".join(f"{r:.1f}x" for r in row["ratio_per_10x"])
            print(f"  {name + ' ms':<14}" + "".join(f"{ms:>12.2f}" for ms in row["ms"]) + f"   {ratios}")
    return ok


def _openai_compat(d: dict[str, Any]) -> bool:
    """Print the OpenAI-compatible surface against the native calls; False when a request failed."""
    print("OpenAI-compatible surface vs native (same server, same prompt; server CPU ms per request):")
    worst = max(row["cpu_ratio"] for row in d["cases"])
    for row in d["cases"]:
        n, o = row["native"], row["openai"]
        print(
            f"  {row['case']:<6}{row['conns']:>4} conns: native {n['cpu_ms_per_request']:.3f} ms ({n['rps']:.0f} req/s)"
            f", openai {o['cpu_ms_per_request']:.3f} ms ({o['rps']:.0f} req/s): {row['cpu_ratio']:.2f}x"
        )
    verdict = "PASS" if worst <= d["target_cpu_ratio"] else "FAIL"
    d["verdict"] = verdict
    print(f"  target openai/native CPU per request <= {d['target_cpu_ratio']}x: {verdict} (worst {worst:.2f}x)")
    return all(row[s]["non_200"] == 0 for row in d["cases"] for s in ("native", "openai"))


def _disconnects(d: dict[str, Any]) -> bool:
    """Print the disconnects run; False when a request failed on the client's side (the numbers are not valid).
    No growth: the last round's RSS within 1 MiB of the middle round's. The first half of the rounds warms caches,
    the allocator's pools and the garbage collector's generations (see extras.disconnects)."""
    after = d["rss_after_rounds_mib"]
    middle = len(after) // 2 - 1
    growth = after[-1] - after[middle]
    hangups = (len(after) - 1 - middle) * d["per_round"]  # between the end of the middle round and of the last
    sent = d["rounds"] * d["per_round"]
    good = growth <= 1.0 and d["server_error_lines"] == 0 and d["requests_journaled"] == sent
    print(
        f"{d['rounds']} rounds of {d['per_round']:,} SSE clients hanging up after k of {d['chunks']} events "
        f"({d['delay_ms']} ms apart; k = -1 [before the head], 0 .. {d['chunks']} in turn, half closed, half "
        f"reset; {d['conns']} at a time; journal cap "
        f"{d['journal_cap']:,}): {d['requests_journaled']:,} of {sent:,} journaled, {d['server_error_lines']} "
        f"server log errors\n  RSS idle {d['rss_idle_mib']:.1f} MiB; after each round of disconnects: "
        + " -> ".join(f"{x:.1f}" for x in after)
        + f" MiB -- target no growth (last round within 1 MiB of round {middle + 1}: {growth:+.2f} MiB over "
        f"{hangups:,} hang-ups; 1 MiB is {1024 * 1024 / hangups:.0f} bytes per hang-up), no error "
        f"logged, every request handled: {'PASS' if good else 'FAIL'}"
    )
    d["verdict"] = "PASS" if good else "FAIL"
    return d["client_errors"] == 0 and set(d["statuses"]) <= {"200"}


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the servers' cleanup on SIGTERM too
    args = sys.argv[1:]
    if "--help" in args or "-h" in args:
        print(__doc__)
        return 0
    if "--only" in args:
        name = args[args.index("--only") + 1] if args.index("--only") + 1 < len(args) else ""
        if name not in LONG_RUNS:
            print(f"--only takes one of: {', '.join(LONG_RUNS)}", file=sys.stderr)
            return 2
        results = {name: LONG_RUNS[name]() | {"date": time.strftime("%Y-%m-%d")}}
        ok = _long_runs(results)
        path = BENCH / "results-latest.json"
        kept = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps(kept | results, indent=2) + "\n")
        print(f"results: {path} ({name} only)")
        return 0 if ok else 1
    with_aimock = "--no-aimock" not in args
    if with_aimock and (why := servers.aimock_available()):
        print(f"aimock skipped: {why}")
        with_aimock = False
    results = measure(quick="--quick" in args, with_aimock=with_aimock)
    ok = report(results)
    (BENCH / "results-latest.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {BENCH / 'results-latest.json'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
