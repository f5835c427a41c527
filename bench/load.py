"""The benchmark's load generators, run in a process of their own (`python bench/load.py MODE ...`, JSON out).

A lean client on raw asyncio streams (HTTP/1.1 keep-alive, one connection per concurrent worker), so that
the client's own cost stays small next to the server's:

- `requests`: hammer one URL with N connections for a warm-up plus a measured window; every request has a
  different prompt (a running number), so no two are identical;
- `streams`: open N `alt=sse` streams at once and time every event's arrival (for scripted inter-chunk delays);
- `volume`: send exactly N requests (the memory run);
- `hangups`: N `alt=sse` requests whose clients hang up part-way, at every event index in turn (the disconnects run);
- `sizes`: time one request per prompt size, in turn, for the scaling run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import select
import socket
import struct
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

PROMPT = b'{"contents": [{"role": "user", "parts": [{"text": "Bench request %d: is it sunny in Paris?"}]}]}'
# The same prompt on the OpenAI-compatible surface: unary, and streamed (the path's "?stream" marker, which the
# server ignores, picks the body).
OPENAI_CHAT = "/v1beta/openai/chat/completions"
OPENAI_PROMPT = (
    b'{"model": "gemini-2.5-flash", "messages": '
    b'[{"role": "user", "content": "Bench request %d: is it sunny in Paris?"}]'
)
PROMPTS = {OPENAI_CHAT: OPENAI_PROMPT + b"}", OPENAI_CHAT + "?stream": OPENAI_PROMPT + b', "stream": true}'}
WARMUP_S, ROUND_S, MAX_REQUESTS = 0.5, 1.0, 100_000


def request_bytes(path: str, port: int, body: bytes, key: str = "bench") -> bytes:
    return (
        b"POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nx-goog-api-key: %s\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
        % (path.encode(), port, key.encode(), len(body), body)
    )


async def read_response(reader: asyncio.StreamReader) -> int:
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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and of every descendant it has now (a server's worker processes)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += cpu_seconds(current)
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, ValueError):  # gone meanwhile
            continue
    return total


async def hammer(port: int, path: str, conns: int, server_pid: int, first: int) -> dict[str, Any]:
    """`conns` keep-alive connections on one URL; only requests started after the warm-up count."""
    counter = itertools.count(first)  # prompt numbers: unique across the whole bench run
    prompt = PROMPTS.get(path, PROMPT)
    latencies: list[float] = []
    non_200: list[int] = []
    errors: list[str] = []
    begin = time.perf_counter()
    measure_from, stop_at = begin + WARMUP_S, begin + WARMUP_S + ROUND_S
    marks: dict[str, float] = {}
    sent = 0

    async def worker() -> None:
        nonlocal sent
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError as exc:
            errors.append(repr(exc))
            return
        try:
            while (now := time.perf_counter()) < stop_at and len(latencies) < MAX_REQUESTS:
                writer.write(request_bytes(path, port, prompt % next(counter)))
                sent += 1
                status = await read_response(reader)
                done = time.perf_counter()
                if now >= measure_from:
                    if not marks:  # CPU time of both processes when the measured window opens
                        marks.update(cpu_srv=tree_cpu(server_pid), cpu_cli=time.process_time())
                    latencies.append(done - now)
                    if status != 200:
                        non_200.append(status)
                    marks["last"] = done
        except (OSError, asyncio.IncompleteReadError) as exc:
            errors.append(repr(exc))
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(conns)))
    return {
        "latencies": latencies,
        "span": marks["last"] - measure_from,
        "server_cpu": tree_cpu(server_pid) - marks["cpu_srv"],
        "client_cpu": time.process_time() - marks["cpu_cli"],
        "non_200": len(non_200) + len(errors),
        "sent": sent,  # the warm-up's requests too
    }


async def streams(port: int, path: str, count: int, key: str, ramp_s: float) -> dict[str, Any]:
    """Open `count` connections, then send an SSE request on each, spread evenly over `ramp_s` seconds (0: all
    at once); for each stream, the status, when its request went out and when each event arrived (seconds
    after the requests were released)."""
    epoch = 0.0
    gate, connected = asyncio.Event(), asyncio.Event()
    opened = 0

    async def one(i: int) -> dict[str, Any]:
        nonlocal opened
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError as exc:
            return {"error": repr(exc)}
        finally:
            opened += 1
            if opened == count:
                connected.set()
        try:
            await gate.wait()  # every connection is open before any request goes out
            await asyncio.sleep(ramp_s * i / count)
            sent = time.perf_counter() - epoch
            writer.write(request_bytes(path, port, PROMPT % i, key))
            head = await reader.readuntil(b"\r\n\r\n")
            arrivals: list[float] = []
            tail = b""
            while size := int((await reader.readline()).split(b";")[0], 16):
                data = await reader.readexactly(size + 2)
                now = time.perf_counter() - epoch
                tail += data[:-2]
                while b"\r\n\r\n" in tail:  # one arrival time per complete event
                    _, tail = tail.split(b"\r\n\r\n", 1)
                    arrivals.append(now)
            await reader.readline()
            return {"status": int(head[9:12]), "sent": sent, "arrivals": arrivals}
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            return {"error": repr(exc)}
        finally:
            writer.close()

    tasks = [asyncio.create_task(one(i)) for i in range(count)]
    await connected.wait()
    epoch, cpu = time.perf_counter(), time.process_time()
    gate.set()
    done = await asyncio.gather(*tasks)
    wall = time.perf_counter() - epoch
    return {"streams": done, "wall_s": wall, "client_cpu": (time.process_time() - cpu) / wall}


async def volume(port: int, path: str, conns: int, total: int, first: int) -> dict[str, Any]:
    """Exactly `total` requests over `conns` keep-alive connections, as fast as they are answered."""
    counter = itertools.count(first)
    left = total
    bad: list[str] = []

    async def worker() -> None:
        nonlocal left
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while left > 0:
                left -= 1
                writer.write(request_bytes(path, port, PROMPT % next(counter)))
                status = await read_response(reader)
                if status != 200:
                    bad.append(str(status))
        except (OSError, asyncio.IncompleteReadError) as exc:
            bad.append(repr(exc))
        finally:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(conns)))
    return {"requests": total, "seconds": time.perf_counter() - start, "errors": len(bad)}


async def hangups(port: int, path: str, count: int, key: str, events: int, conns: int) -> dict[str, Any]:
    """`count` SSE requests, `conns` at a time, each on a connection of its own whose client hangs up after
    reading k events, k cycling over -1 (right after sending the request), 0 (after the response head), 1 ..
    `events`; every other cycle aborts the connection (RST) instead of closing it (FIN)."""
    plan = iter(range(count))
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    cycle = events + 2

    async def worker() -> None:
        for i in plan:
            read_up_to, abort = i % cycle - 1, i // cycle % 2 == 1
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError as exc:
                errors.append(repr(exc))
                continue
            try:
                writer.write(request_bytes(path, port, PROMPT % i, key))
                received = b""
                while received.count(b"\r\n\r\n") < read_up_to + 1:  # the head, then `read_up_to` events
                    data = await reader.read(65536)
                    if not data:
                        break
                    received += data
                if read_up_to >= 0:
                    statuses[int(received[9:12] or 0)] += 1
            except OSError as exc:
                errors.append(repr(exc))
            finally:
                if abort:
                    linger = struct.pack("ii", 1, 0)  # close with a RST, as a killed client does
                    writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                writer.close()
                try:
                    await writer.wait_closed()
                except OSError:
                    pass

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(conns)))
    return {
        "hangups": count,
        "seconds": time.perf_counter() - start,
        "statuses": {str(k): v for k, v in statuses.items()},
        "errors": len(errors),
        "error_samples": errors[:3],
    }


async def sizes(port: int, paths: list[str], lengths: list[int], repeats: int) -> dict[str, Any]:
    """For each path and prompt length, the median time of `repeats` requests with a prompt of that length."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    out: dict[str, Any] = {}
    try:
        for path in paths:
            for length in lengths:
                times = []
                for r in range(repeats):
                    words = (b"word%d " % r) * (length // 6 + 1)
                    text = words[:length].decode()
                    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": text}]}]}).encode()
                    start = time.perf_counter()
                    writer.write(request_bytes(path, port, body))
                    status = await read_response(reader)
                    times.append(time.perf_counter() - start)
                    if status != 200:
                        raise RuntimeError(f"{path} with a {length}-byte prompt: HTTP {status}")
                out[f"{path}|{length}"] = sorted(times)[len(times) // 2]
    finally:
        writer.close()
    return out


def main() -> int:
    mode, args = sys.argv[1], sys.argv[2:]
    try:  # the client's own cost matters on a shared machine: the fastest loop there is, for every server alike
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if mode == "requests":  # PORT PATH CONNS SERVER_PID FIRST_PROMPT
        port, path, conns, pid, first = args
        result = asyncio.run(hammer(int(port), path, int(conns), int(pid), int(first)))
    elif mode == "streams":  # PORT PATH COUNT KEY RAMP_S
        port, path, count, key, ramp = args
        result = asyncio.run(streams(int(port), path, int(count), key, float(ramp)))
    elif mode == "volume":  # PORT PATH CONNS TOTAL FIRST_PROMPT
        port, path, conns, total, first = args
        result = asyncio.run(volume(int(port), path, int(conns), int(total), int(first)))
    elif mode == "hangups":  # PORT PATH COUNT KEY EVENTS CONNS
        port, path, count, key, events, conns = args
        result = asyncio.run(hangups(int(port), path, int(count), key, int(events), int(conns)))
    elif mode == "sizes":  # PORT PATHS(comma) LENGTHS(comma) REPEATS
        port, paths, lengths, repeats = args
        result = asyncio.run(sizes(int(port), paths.split(","), [int(x) for x in lengths.split(",")], int(repeats)))
    else:
        raise SystemExit(f"unknown mode {mode}")
    _write_all(sys.stdout.fileno(), (json.dumps(result) + "\n").encode())
    return 0


def _write_all(fd: int, data: bytes) -> None:
    """All of `data` to `fd`, waiting while the pipe is full: uvloop can leave the pipe it was handed non-blocking,
    and a print then loses whatever the pipe's 64 KiB did not take (the held-streams result is larger)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


if __name__ == "__main__":
    sys.exit(main())
