"""Issue 16's long run (`python bench/run.py --only resources`): uploads, the memory they hold, and cached contents.

- Upload throughput: 10 MiB files through the resumable protocol as google-genai 3.6.1 sends it (`start` with the
  JSON metadata, then the bytes in its 8 MiB chunks: `upload` at offset 0, `upload, finalize` at 8 MiB), one
  upload at a time on one keep-alive connection (raw asyncio streams, `python bench/resources.py uploads ...`),
  against the bare Starlette handler of bench/baseline_app.py that reads the same bodies; ROUNDS rounds
  alternating, the emulator's files reset between rounds (so each round spills the same share to disk: the
  default 64 MiB in memory). MiB/s (wall) and server CPU ms per upload; then the same uploads through the real
  google-genai client (`client.files.upload`) on the emulator, for what an SDK user sees.
- Memory: 1,000 uploads of 256 KiB (250 MiB) into an emulator with `--files-memory-bytes` 16 MiB, its temporary
  directory in a folder of the run's own: RSS, the bytes held and the bytes on disk after every 250. Bounded: RSS
  grows at most RSS_GROWTH_MIB from the first 250 to the 1,000th while 188 MiB more are stored (on disk).
- Cached contents: generateContent naming a cache of 100 KB of text against the same call without it, in both
  senses: the same short prompt alone (what the cache adds), and the 100 KB sent inline beside the prompt (what
  the cache replaces; the model reads the same contents). Rounds alternating, server CPU per request. Target
  (issue 16, "no slower than the same call without it"): at most 1.0x the inline call, and at most ALONE_NOISE x
  the prompt alone (the run-to-run noise of CPU per request on this machine).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MIB = 1 << 20
SIZE, SDK_CHUNK = 10 * MIB, 8 * MIB  # google-genai's CHUNK_SIZE (_api_client.py)
UPLOADS, ROUNDS, SDK_UPLOADS = 8, 3, 5
MEMORY_UPLOADS, MEMORY_SIZE, MEMORY_BUDGET, MEMORY_CONNS, RSS_GROWTH_MIB = 1000, 256 * 1024, 16 * MIB, 4, 8.0
CACHE_BYTES, CACHE_ROUNDS, CACHE_CONNS, ALONE_NOISE = 100_000, 3, (1, 10), 1.1
UPLOAD = "/upload/v1beta/files"
KEY = "bench-files"


# ---- the load generator (run in a process of its own) ---------------------------------------------------------


async def _response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while size := int((await reader.readline()).split(b";")[0], 16):
            body += (await reader.readexactly(size + 2))[:-2]
        await reader.readline()
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(lines[0][9:12]), headers, body


def _post(writer: asyncio.StreamWriter, path: str, port: int, headers: dict[str, str], body: Any) -> None:
    head = f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(head.encode() + b"\r\n")
    writer.write(body)


async def uploads(port: int, count: int, size: int, chunk: int, conns: int, pid: int) -> dict[str, Any]:
    """`count` resumable uploads of `size` bytes in `chunk`-byte pieces over `conns` connections (one upload at a
    time on each); per upload its wall time; the server's CPU over all of them."""
    from load import cpu_seconds

    view = memoryview((bytes(range(256)) * (size // 256 + 1))[:size])
    plan = iter(range(count))
    times: list[float] = []
    errors: list[str] = []

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for i in plan:
                began = time.perf_counter()
                meta = {"file": {"mimeType": "application/octet-stream", "sizeBytes": str(size)}}
                start = {
                    "x-goog-api-key": KEY,
                    "content-type": "application/json",
                    "x-goog-upload-protocol": "resumable",
                    "x-goog-upload-command": "start",
                    "x-goog-upload-header-content-length": str(size),
                    "x-goog-upload-header-content-type": "application/octet-stream",
                }
                _post(writer, UPLOAD, port, start, json.dumps(meta).encode())
                status, headers, _ = await _response(reader)
                url = headers.get("x-goog-upload-url", "")
                if status != 200 or "://" not in url:
                    errors.append(f"start {i}: {status}")
                    continue
                path = "/" + url.split("://", 1)[1].split("/", 1)[1]
                for offset in range(0, size, chunk):
                    piece = view[offset : offset + chunk]
                    command = "upload, finalize" if offset + len(piece) >= size else "upload"
                    step = {"x-goog-upload-command": command, "x-goog-upload-offset": str(offset)}
                    _post(writer, path, port, step, piece)
                    await writer.drain()
                    status, headers, _ = await _response(reader)
                    want = "final" if "finalize" in command else "active"
                    if status != 200 or headers.get("x-goog-upload-status") != want:
                        errors.append(f"upload {i} at {offset}: {status} {headers.get('x-goog-upload-status')}")
                        break
                else:
                    times.append(time.perf_counter() - began)
        except (OSError, asyncio.IncompleteReadError) as exc:
            errors.append(repr(exc))
        finally:
            writer.close()

    cpu, wall, own = cpu_seconds(pid), time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(conns)))
    wall = time.perf_counter() - wall
    return {
        "times": times,
        "wall_s": wall,
        "server_cpu_s": cpu_seconds(pid) - cpu,
        "client_cpu_s": time.process_time() - own,
        "errors": errors,
    }


def sdk_uploads(port: int, count: int, size: int) -> dict[str, Any]:
    """`count` uploads of a `size`-byte file through google-genai's `client.files.upload` (its own chunking)."""
    from google import genai

    client = genai.Client(api_key=KEY, http_options={"base_url": f"http://127.0.0.1:{port}"})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.bin"
        path.write_bytes((bytes(range(256)) * (size // 256 + 1))[:size])
        times = []
        for _ in range(count):
            began = time.perf_counter()
            uploaded = client.files.upload(file=path, config={"mime_type": "application/octet-stream"})
            times.append(time.perf_counter() - began)
            if int(uploaded.size_bytes or 0) != size:
                raise RuntimeError(f"google-genai upload: sizeBytes {uploaded.size_bytes}")
    return {"times": times}


# ---- the runs ---------------------------------------------------------------------------------------------------


def _generator(*args: object) -> Any:
    import subprocess

    argv = [sys.executable, __file__, *map(str, args)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"resources load generator {args[0]} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def upload_throughput(uploads_per_round: int = UPLOADS, rounds: int = ROUNDS) -> dict[str, Any]:
    from extras import admin
    from servers import start

    running = {name: start(name) for name in ("baseline", "emulator")}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in running}
    try:
        for _ in range(rounds):
            for name, server in running.items():
                done = _generator("uploads", server.port, uploads_per_round, SIZE, SDK_CHUNK, 1, server.proc.pid)
                if done["errors"]:
                    raise RuntimeError(f"uploads to {name}: {done['errors'][:3]}")
                runs[name].append(done)
                if name == "emulator":
                    admin(server, "POST", "/reset", key=KEY)
        sdk = _generator("sdk", running["emulator"].port, SDK_UPLOADS, SIZE)
    finally:
        for server in running.values():
            server.stop()
    out: dict[str, Any] = {"size_mib": SIZE / MIB, "uploads": uploads_per_round * rounds, "rounds": rounds}
    for name, done in runs.items():
        times = [t for r in done for t in r["times"]]
        out[name] = {
            "mib_per_s": len(times) * SIZE / MIB / sum(times),
            "best_mib_per_s": SIZE / MIB / min(times),
            "cpu_ms_per_upload": 1000 * sum(r["server_cpu_s"] for r in done) / len(times),
            "client_cpu_ms_per_upload": 1000 * sum(r["client_cpu_s"] for r in done) / len(times),
        }
    out["sdk_emulator"] = {
        "uploads": len(sdk["times"]),
        "mib_per_s": len(sdk["times"]) * SIZE / MIB / sum(sdk["times"]),
    }
    return out


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def upload_memory(count: int = MEMORY_UPLOADS, size: int = MEMORY_SIZE, budget: int = MEMORY_BUDGET) -> dict[str, Any]:
    from extras import rss_mib
    from servers import start

    tmp = Path(tempfile.mkdtemp(prefix="gemini-bench-spill-"))
    server = start("emulator", ("--files-memory-bytes", str(budget)), env={"TMPDIR": str(tmp)})
    readings = []
    try:
        rss_idle = rss_mib(server.proc.pid)
        step = count // 4
        for done_so_far in range(step, count + 1, step):
            done = _generator("uploads", server.port, step, size, SDK_CHUNK, MEMORY_CONNS, server.proc.pid)
            if done["errors"]:
                raise RuntimeError(f"memory uploads: {done['errors'][:3]}")
            time.sleep(0.5)
            readings.append(
                {"uploads": done_so_far, "rss_mib": rss_mib(server.proc.pid), "disk_mib": _tree_bytes(tmp) / MIB}
            )
    finally:
        server.stop()
        left = _tree_bytes(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "uploads": count,
        "size_kib": size / 1024,
        "memory_budget_mib": budget / MIB,
        "rss_idle_mib": rss_idle,
        "readings": readings,
        "disk_left_after_exit_mib": left / MIB,
        "rss_growth_target_mib": RSS_GROWTH_MIB,
    }


def _prompt(cache: str | None, inline: str | None) -> bytes:
    contents: list[dict[str, Any]] = []
    if inline is not None:
        contents.append({"role": "user", "parts": [{"text": inline}]})
    contents.append({"role": "user", "parts": [{"text": "Bench request %d: what does the document say?"}]})
    body: dict[str, Any] = {"contents": contents}
    if cache:
        body["cachedContent"] = cache
    return json.dumps(body).encode().replace(b"%", b"%%").replace(b"%%d", b"%d")


def cached_content(rounds: int = CACHE_ROUNDS, conns: tuple[int, ...] = CACHE_CONNS) -> dict[str, Any]:
    import load_body
    from extras import MODEL, admin, percentile
    from servers import start

    words = " ".join(f"paragraph {i} of the long shared document about lighthouses." for i in range(2000))
    document = words[:CACHE_BYTES]
    server = start("emulator")
    first = itertools.count(5_000_000_000, 10_000_000)
    cases = []
    try:
        created = _create_cache(server.port, document)
        variants = {"cached": _prompt(created, None), "plain": _prompt(None, None), "inline": _prompt(None, document)}
        for n in conns:
            runs: dict[str, list[dict[str, Any]]] = {k: [] for k in variants}
            for _ in range(rounds):
                for name, body in variants.items():
                    done = load_body.run(
                        body, "requests", server.port, MODEL + ":generateContent", n, server.proc.pid, next(first)
                    )
                    runs[name].append(done)
            row: dict[str, Any] = {"conns": n}
            for name, done in runs.items():
                requests = sum(len(r["latencies"]) for r in done)
                row[name] = {
                    "requests": requests,
                    "rps": requests / sum(r["span"] for r in done),
                    "p50_ms": 1000 * percentile([x for r in done for x in r["latencies"]], 0.5),
                    "cpu_ms_per_request": 1000 * sum(r["server_cpu"] for r in done) / requests,
                    "non_200": sum(r["non_200"] for r in done),
                }
            cases.append(row)
        admin(server, "POST", "/reset", key="bench")
    finally:
        server.stop()
    return {"cache_bytes": len(document), "cases": cases}


def _create_cache(port: int, document: str) -> str:
    import http.client

    body = {
        "model": "models/gemini-2.5-flash",
        "contents": [{"role": "user", "parts": [{"text": document}]}],
        "ttl": "3600s",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"x-goog-api-key": "bench", "content-type": "application/json"}
        conn.request("POST", "/v1beta/cachedContents", json.dumps(body).encode(), headers)
        response = conn.getresponse()
        answer = json.loads(response.read())
    finally:
        conn.close()
    if response.status != 200:
        raise RuntimeError(f"cachedContents.create: {response.status} {answer}")
    return str(answer["name"])


def run() -> dict[str, Any]:
    return {"uploads": upload_throughput(), "memory": upload_memory(), "cache": cached_content()}


def report(d: dict[str, Any]) -> bool:
    """Print the run; False when a request failed."""
    up = d["uploads"]
    emu, base, sdk = up["emulator"], up["baseline"], up["sdk_emulator"]
    print(
        f"uploads of {up['size_mib']:g} MiB (resumable, google-genai's 8 MiB chunks, one at a time; {up['uploads']} "
        f"per server): emulator {emu['mib_per_s']:.0f} MiB/s ({emu['cpu_ms_per_upload']:.1f} ms CPU per upload), "
        f"bare Starlette handler {base['mib_per_s']:.0f} MiB/s ({base['cpu_ms_per_upload']:.1f} ms): "
        f"{emu['mib_per_s'] / base['mib_per_s']:.2f}x the throughput, "
        f"{emu['cpu_ms_per_upload'] / base['cpu_ms_per_upload']:.2f}x the CPU; through google-genai "
        f"(client.files.upload) {sdk['mib_per_s']:.0f} MiB/s"
    )
    mem = d["memory"]
    first, last = mem["readings"][0], mem["readings"][-1]
    growth = last["rss_mib"] - first["rss_mib"]
    good = growth <= mem["rss_growth_target_mib"]
    mem["verdict"] = "PASS" if good else "FAIL"
    steps = " -> ".join(f"{r['rss_mib']:.1f}" for r in mem["readings"])
    disks = " -> ".join(f"{r['disk_mib']:.0f}" for r in mem["readings"])
    print(
        f"  {mem['uploads']:,} uploads of {mem['size_kib']:.0f} KiB, --files-memory-bytes "
        f"{mem['memory_budget_mib']:.0f} MiB: RSS idle {mem['rss_idle_mib']:.1f}, every {first['uploads']}: "
        f"{steps} MiB; spilled to disk {disks} MiB ({mem['disk_left_after_exit_mib']:.0f} MiB left after exit) "
        f"-- target RSS bounded (<= {mem['rss_growth_target_mib']:g} MiB more from {first['uploads']} to "
        f"{last['uploads']}): {mem['verdict']} ({growth:+.1f} MiB)"
    )
    cache = d["cache"]
    worst = 0.0
    print(f"  generateContent with a {cache['cache_bytes'] / 1000:.0f} KB cached content (server CPU ms per request):")
    for row in cache["cases"]:
        c, p, i = row["cached"], row["plain"], row["inline"]
        worst = max(worst, c["cpu_ms_per_request"] / i["cpu_ms_per_request"])
        print(
            f"    {row['conns']:>3} conns: cached {c['cpu_ms_per_request']:.2f} ms ({c['rps']:.0f} req/s), same prompt"
            f" alone {p['cpu_ms_per_request']:.2f} ms ({p['rps']:.0f} req/s), the 100 KB inline "
            f"{i['cpu_ms_per_request']:.2f} ms ({i['rps']:.0f} req/s): cached/inline "
            f"{c['cpu_ms_per_request'] / i['cpu_ms_per_request']:.2f}x, cached/alone "
            f"{c['cpu_ms_per_request'] / p['cpu_ms_per_request']:.2f}x"
        )
    alone = max(row["cached"]["cpu_ms_per_request"] / row["plain"]["cpu_ms_per_request"] for row in cache["cases"])
    cache["verdict"] = "PASS" if worst <= 1.0 and alone <= ALONE_NOISE else "FAIL"
    print(
        f"    target no slower than without the cache: cached/inline <= 1.0x (worst {worst:.2f}x), cached/alone <= "
        f"{ALONE_NOISE:g}x, the noise of CPU per request here (worst {alone:.2f}x): {cache['verdict']}"
    )
    return all(row[k]["non_200"] == 0 for row in cache["cases"] for k in ("cached", "plain", "inline"))


def main() -> int:
    mode, args = sys.argv[1], sys.argv[2:]
    try:  # the client's own cost stays small: the fastest loop there is (as bench/load.py)
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if mode == "uploads":  # PORT COUNT SIZE CHUNK CONNS SERVER_PID
        port, count, size, chunk, conns, pid = map(int, args)
        result = asyncio.run(uploads(port, count, size, chunk, conns, pid))
    elif mode == "sdk":  # PORT COUNT SIZE
        port, count, size = map(int, args)
        result = sdk_uploads(port, count, size)
    else:
        raise SystemExit(f"unknown mode {mode}")
    os.set_blocking(sys.stdout.fileno(), True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
