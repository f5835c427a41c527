"""Issue 17's long run (`python bench/run.py --only live`; `--quick` with it: 10 s sessions): concurrent Live API
sessions streaming realtime audio, and the RSS an idle session costs.

The server: `gemini-emulator serve --script` with one entry (`times: forever`) answering every turn with CHUNKS
text pieces CHUNK_DELAY_MS apart (`chunkDelayMs`), spoken (AUDIO is the default modality: each piece's speech as
`audio/pcm;rate=24000` pieces of 0.2 s, its outputTranscription first). Each session (Developer path,
`ws://.../ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=...`, a key of its own,
permessage-deflate offered as google-genai's `websockets` client does, or not: the run is made both ways) sends
`setup`, then streams 16 kHz 16-bit
audio in 20 ms pieces (`realtime_input`, as google-genai's send_realtime_input spells it), each sent at its due
time from the session's start (no drift), for SECONDS: cycles of SPEECH_S of a loud tone then SILENCE_S of
silence, so that automatic activity detection ends a turn after 800 ms of quiet audio and the answer is over
before the next speech (sessions start staggered over one cycle). The sessions run in GENERATORS processes of
their own (`python bench/live.py sessions ...`), whose CPU is reported, and whose own lateness is too: how late
each sent a piece, and how late its event loop woke a 10 ms probe timer (a generator's loop that lags delays the
arrival times it records, which the gap would otherwise blame on the server).

Measured, per turn of every session:
- timing gap: for each spoken piece i of an answer (the first audio message after its outputTranscription),
  |arrival_i - (arrival_0 + i * CHUNK_DELAY_MS)|: how far delivery strays from the script's schedule (target
  p99 < 20 ms, as issue 17 asks);
- answer latency: from sending the piece that completes 800 ms of silence to the first audio of the answer;
- errors: a session that failed or closed otherwise than by the client, a turn without its turnComplete, or an
  answer cut short (interrupted: the server so late that the next speech began before the answer ended).
Server CPU is also given per session-second (CPU seconds / (sessions x seconds)), which a loaded machine
changes far less than the wall-clock gap. Then RSS per idle session: IDLE sessions opened (setup done) on a fresh
server, (RSS open - RSS before) / IDLE.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import json
import math
import os
import struct
import sys
import time
from pathlib import Path
from typing import Any

SESSIONS, SECONDS, QUICK_SECONDS, GENERATORS, IDLE = 200, 30.0, 10.0, 2, 200
PIECE_S, RATE = 0.02, 16_000
SPEECH_S, SILENCE_S = 1.0, 1.5
CHUNKS, CHUNK_DELAY_MS = 4, 100
ANSWER = [f"Part {i + 1} of the answer. " for i in range(CHUNKS)]
MODEL = "models/gemini-2.5-flash-native-audio-latest"
PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
SETUP = {"setup": {"model": MODEL, "outputAudioTranscription": {}}}
START_MARGIN_S = 3.0  # the generators connect every session, then all start streaming at one wall-clock time


def _piece(loud: bool) -> str:
    """One 20 ms realtime_input message: a 440 Hz tone well above the speech level, or digital silence."""
    n = int(RATE * PIECE_S)
    samples = [int(8000 * math.sin(2 * math.pi * 440 * i / RATE)) if loud else 0 for i in range(n)]
    data = base64.urlsafe_b64encode(struct.pack(f"<{n}h", *samples)).decode()
    return json.dumps({"realtime_input": {"audio": {"data": data, "mimeType": "audio/pcm;rate=16000"}}})


# ---- the load generator (run in a process of its own) ---------------------------------------------------------


async def _session(port: int, index: int, count: int, seconds: float, start_at: float, deflate: bool) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    loud, quiet = _piece(True), _piece(False)
    speech, cycle = round(SPEECH_S / PIECE_S), round((SPEECH_S + SILENCE_S) / PIECE_S)
    end_of_turn = speech + 40  # the 800th ms of silence (the default silenceDurationMs)
    out: dict[str, Any] = {"turns": 0, "interrupted": 0, "gaps": [], "latencies": [], "pieces_sent": 0}
    out["send_late_max"] = 0.0  # how late the generator itself sent a piece, at worst (it must not be the bottleneck)
    url = f"ws://127.0.0.1:{port}{PATH}?key=bench-live-{index}"
    try:
        compression = "deflate" if deflate else None
        async with connect(url, max_size=16 << 20, open_timeout=60, compression=compression) as ws:
            await ws.send(json.dumps(SETUP))
            if "setupComplete" not in json.loads(await ws.recv()):
                raise RuntimeError("no setupComplete")
            loop = asyncio.get_running_loop()
            await asyncio.sleep(max(0.0, start_at - time.time()))
            # Staggered over one cycle, so that turns do not all end at the same moment.
            began = loop.time() + (index / count) * (SPEECH_S + SILENCE_S)
            ended_speech: list[float] = []
            total = round(seconds / PIECE_S)

            async def stream() -> None:
                for k in range(total):
                    delay = began + k * PIECE_S - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    await ws.send(loud if k % cycle < speech else quiet)
                    late = loop.time() - began - k * PIECE_S
                    if late > out["send_late_max"]:
                        out["send_late_max"] = late
                    if k % cycle == end_of_turn - 1:
                        ended_speech.append(loop.time())
                out["pieces_sent"] = total

            async def listen() -> None:
                arrivals: list[float] = []
                marked = False
                async for raw in ws:
                    now = loop.time()
                    message = json.loads(raw)
                    content = message.get("serverContent") or {}
                    if "outputTranscription" in content:
                        marked = True
                    elif marked and "modelTurn" in content:
                        marked = False
                        arrivals.append(now)
                        if len(arrivals) == 1 and ended_speech:
                            out["latencies"].append(now - ended_speech[-1])
                    if content.get("interrupted"):  # the answer cut short: its pieces are not timed
                        out["interrupted"] += 1
                        out.setdefault("interrupted_at", []).append(out["turns"])
                        arrivals = []
                        marked = False
                    if content.get("turnComplete"):
                        out["turns"] += 1
                        first = arrivals[0] if arrivals else now
                        delay = CHUNK_DELAY_MS / 1000
                        out["gaps"] += [abs(t - first - i * delay) * 1000 for i, t in enumerate(arrivals)]
                        if len(arrivals) != CHUNKS:
                            out.setdefault("short_answers", 0)
                            out["short_answers"] += 1
                        arrivals = []

            listening = asyncio.create_task(listen())
            await stream()
            await asyncio.sleep(SILENCE_S + 1.0)  # the last turn's answer
            listening.cancel()
            out["expected_turns"] = sum(1 for k in range(total) if k % cycle == end_of_turn - 1)
    except Exception as exc:  # any failure is the session's error, counted
        out["error"] = repr(exc)[:300]
    return out


async def sessions(
    port: int, first: int, count: int, total: int, seconds: float, start_at: float, deflate: bool
) -> dict[str, Any]:
    cpu = time.process_time()
    lags: list[float] = []

    async def probe() -> None:  # this generator's own event-loop lag
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, start_at - time.time()))
        while True:
            due = loop.time() + 0.01
            await asyncio.sleep(0.01)
            lags.append((loop.time() - due) * 1000)

    probing = asyncio.create_task(probe())
    done = await asyncio.gather(*(_session(port, first + i, total, seconds, start_at, deflate) for i in range(count)))
    probing.cancel()
    return {"sessions": done, "client_cpu_s": time.process_time() - cpu, "loop_lags_ms": lags}


async def idle(port: int, count: int, hold_file: str) -> dict[str, Any]:
    """Open `count` sessions (setup done), signal by creating `hold_file`'s ".open", hold them until `hold_file`
    exists."""
    from websockets.asyncio.client import connect

    async def one(i: int) -> Any:
        ws = await connect(f"ws://127.0.0.1:{port}{PATH}?key=bench-idle-{i}", open_timeout=60)
        await ws.send(json.dumps(SETUP))
        await ws.recv()
        return ws

    held = await asyncio.gather(*(one(i) for i in range(count)))
    Path(hold_file + ".open").touch()
    deadline = time.monotonic() + 120
    while not Path(hold_file).exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    for ws in held:
        await ws.close()
    return {"held": len(held)}


# ---- the run ----------------------------------------------------------------------------------------------------


def _script(folder: Path) -> Path:
    path = folder / "live-script.json"
    path.write_text(
        json.dumps([{"name": "live", "chunks": ANSWER, "chunkDelayMs": CHUNK_DELAY_MS, "times": "forever"}])
    )
    return path


def streaming(
    count: int = SESSIONS, seconds: float = SECONDS, generators: int = GENERATORS, deflate: bool = True
) -> dict[str, Any]:
    import subprocess
    import tempfile

    from extras import percentile, rss_mib
    from load import cpu_seconds
    from servers import start

    folder = Path(tempfile.mkdtemp(prefix="gemini-bench-live-"))
    server = start("emulator", ("--script", str(_script(folder)), "--journal-cap", "1000"))
    pid = server.proc.pid
    try:
        rss_before = rss_mib(pid)
        start_at = time.time() + START_MARGIN_S
        share = -(-count // generators)
        procs = []
        files = []
        for g in range(generators):
            n = min(share, count - g * share)
            argv = [sys.executable, __file__, "sessions", server.port, g * share, n, count, seconds, start_at]
            argv.append(int(deflate))
            # Into files, not pipes: a generator's results outgrow a pipe's buffer, and it would wait to exit.
            outs = (folder / f"generator-{g}.json").open("w+b"), (folder / f"generator-{g}.err").open("w+b")
            procs.append(subprocess.Popen([str(a) for a in argv], stdout=outs[0], stderr=outs[1]))
            files.append(outs)
        time.sleep(max(0.0, start_at - time.time()))
        cpu, wall = cpu_seconds(pid), time.perf_counter()
        peak = rss_before
        while any(p.poll() is None for p in procs):
            peak = max(peak, rss_mib(pid))
            time.sleep(0.5)
            if time.perf_counter() - wall > seconds * 3 + 120:
                raise RuntimeError("the Live load generators did not finish")
        server_cpu, wall = cpu_seconds(pid) - cpu, time.perf_counter() - wall
        results = []
        for p, (stdout, stderr) in zip(procs, files, strict=True):
            p.wait()
            stdout.seek(0)
            stderr.seek(0)
            if p.returncode:
                raise RuntimeError(f"a Live load generator failed:\n{stderr.read().decode()[-3000:]}")
            results.append(json.loads(stdout.read()))
            stdout.close()
            stderr.close()
    finally:
        server.stop()
    every = [s for r in results for s in r["sessions"]]
    gaps = [g for s in every for g in s["gaps"]]
    latencies = [x * 1000 for s in every for x in s["latencies"]]
    failed = [s for s in every if "error" in s]
    missing = sum(max(0, s.get("expected_turns", 0) - s["turns"]) for s in every if "error" not in s)
    short = sum(s.get("short_answers", 0) for s in every)
    interrupted = sum(s["interrupted"] for s in every)
    pieces = sum(s["pieces_sent"] for s in every)
    lags = [x for r in results for x in r["loop_lags_ms"]]
    return {
        "deflate": deflate,
        "sessions": count,
        "seconds": seconds,
        "generators": generators,
        "piece_ms": PIECE_S * 1000,
        "chunks": CHUNKS,
        "chunk_delay_ms": CHUNK_DELAY_MS,
        "failed_sessions": len(failed),
        "failure_samples": [s["error"] for s in failed[:3]],
        "turns": sum(s["turns"] for s in every),
        "missing_turns": missing,
        "short_answers": short,
        "interrupted": interrupted,
        "errors": len(failed) + missing + short + interrupted,
        "pieces_sent": pieces,
        "interrupted_at_turn": sorted(
            collections.Counter(t for s in every for t in s.get("interrupted_at", [])).items()
        ),
        "gap_p50_ms": percentile(gaps, 0.5),
        "gap_p99_ms": percentile(gaps, 0.99),
        "gap_max_ms": max(gaps, default=float("nan")),
        "latency_p50_ms": percentile(latencies, 0.5),
        "latency_p99_ms": percentile(latencies, 0.99),
        "server_cpu": server_cpu / wall,
        "server_cpu_us_per_piece": server_cpu / max(1, pieces) * 1e6,
        "server_cpu_ms_per_session_s": server_cpu / (count * seconds) * 1000,
        "generator_send_late_max_ms": max((s.get("send_late_max", 0.0) for s in every), default=0.0) * 1000,
        "generator_lag_p99_ms": percentile(lags, 0.99),
        "generator_lag_max_ms": max(lags, default=float("nan")),
        "client_cpu": [r["client_cpu_s"] / wall for r in results],
        "rss_before_mib": rss_before,
        "rss_peak_mib": peak,
    }


def idle_sessions(count: int = IDLE) -> dict[str, Any]:
    import subprocess
    import tempfile

    from extras import rss_mib
    from servers import start

    folder = Path(tempfile.mkdtemp(prefix="gemini-bench-live-idle-"))
    hold = str(folder / "release")
    server = start("emulator")
    try:
        time.sleep(0.5)
        before = rss_mib(server.proc.pid)
        argv = [sys.executable, __file__, "idle", str(server.port), str(count), hold]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while not Path(hold + ".open").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"idle Live sessions never opened: {proc.communicate()[1].decode()[-2000:]}")
            time.sleep(0.05)
        time.sleep(0.5)
        opened = rss_mib(server.proc.pid)
        Path(hold).touch()
        proc.communicate(timeout=60)
    finally:
        server.stop()
    return {
        "sessions": count,
        "rss_before_mib": before,
        "rss_open_mib": opened,
        "kib_per_session": (opened - before) * 1024 / count,
    }


def run() -> dict[str, Any]:
    seconds = QUICK_SECONDS if "--quick" in sys.argv else SECONDS
    return {
        "streaming": streaming(seconds=seconds),
        "streaming_no_deflate": streaming(seconds=seconds, deflate=False),
        "idle": idle_sessions(),
    }


def _good(s: dict[str, Any]) -> bool:
    return bool(s["errors"] == 0 and s["gap_p99_ms"] < 20)


def report(d: dict[str, Any]) -> bool:
    """The verdict is the deflate run's (google-genai's default); the run without deflate is reported beside."""
    d["verdict"] = "PASS" if _good(d["streaming"]) else "FAIL"
    for key in ("streaming", "streaming_no_deflate"):
        if key in d:
            _report_streaming(d[key])
    i = d["idle"]
    print(
        f"  -- target 0 errors, p99 gap < 20 ms (with permessage-deflate): {d['verdict']}\n"
        f"  {i['sessions']} idle sessions: RSS {i['rss_before_mib']:.1f} -> {i['rss_open_mib']:.1f} MiB "
        f"({i['kib_per_session']:.1f} KiB each)"
    )
    return True


def _report_streaming(s: dict[str, Any]) -> None:
    clients = " + ".join(f"{c * 100:.0f}%" for c in s["client_cpu"])
    print(
        f"Live ({'with' if s.get('deflate', True) else 'without'} permessage-deflate, "
        f"{'PASS' if _good(s) else 'FAIL'}): "
        f"{s['sessions']} sessions streaming audio in {s['piece_ms']:.0f} ms pieces for {s['seconds']:g} s "
        f"({s['pieces_sent']:,} pieces), answered by {s['chunks']} spoken pieces {s['chunk_delay_ms']} ms apart: "
        f"{s['turns']:,} turns; errors {s['errors']} ({s['failed_sessions']} failed sessions, {s['missing_turns']} "
        f"turns missing, {s['short_answers']} answers short, {s['interrupted']} interrupted)\n"
        f"  audio timing gap p50 {s['gap_p50_ms']:.1f} ms, p99 {s['gap_p99_ms']:.1f} ms, max {s['gap_max_ms']:.1f} "
        f"ms; answer latency after 800 ms of silence p50 {s['latency_p50_ms']:.0f} ms, p99 "
        f"{s['latency_p99_ms']:.0f} ms; server CPU {s['server_cpu'] * 100:.0f}% of a core "
        f"({s['server_cpu_us_per_piece']:.0f} µs per piece received, {s['server_cpu_ms_per_session_s']:.2f} ms per "
        f"session-second), load generators {clients} (their own loop lag p99 {s['generator_lag_p99_ms']:.1f} ms, "
        f"max {s['generator_lag_max_ms']:.1f} ms; a piece sent late by {s['generator_send_late_max_ms']:.1f} ms at "
        f"most); RSS {s['rss_before_mib']:.1f} -> {s['rss_peak_mib']:.1f} MiB (peak)"
    )


def main() -> int:
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if mode == "sessions":  # PORT FIRST COUNT TOTAL SECONDS START_AT DEFLATE(0/1)
        port, first, count, total = map(int, args[:4])
        deflate = args[6] != "0"
        result = asyncio.run(sessions(port, first, count, total, float(args[4]), float(args[5]), deflate))
    elif mode == "idle":  # PORT COUNT HOLD_FILE
        result = asyncio.run(idle(int(args[0]), int(args[1]), args[2]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    os.set_blocking(sys.stdout.fileno(), True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
