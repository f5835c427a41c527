"""Issue 18's long run (`python bench/run.py --only media`): image-out generateContent and TTS beside plain text
generation on one emulator, then its RSS over 1,000 requests of each.

- Throughput: text (gemini-2.5-flash), image-out (gemini-3.1-flash-image, `responseModalities: [TEXT, IMAGE]`, the
  default 1024x1024 PNG) and speech (gemini-2.5-flash-preview-tts, voice Kore) on the same server with the same
  connection count, ROUNDS rounds alternating (a fixed count of requests each, COUNTS); requests/s and server CPU
  ms per request, each as a ratio to text's.
- Memory: RSS idle, then after 500 and after 1,000 requests of each kind in turn (text, image-out, TTS; 10
  connections), the journal capped at 500 records so that it holds 500 of the kind being sent at both readings.
  Bounded: from 500 to 1,000 requests RSS grows at most GROWTH_MIB, each kind.
"""

from __future__ import annotations

import itertools
from typing import Any

import load_body
from extras import MODEL, rss_mib
from load import PROMPT, cpu_seconds
from servers import start

TEXT = MODEL + ":generateContent"
IMAGE = "/v1beta/models/gemini-3.1-flash-image:generateContent"
TTS = "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent"
_IMAGE_BODY = (
    b'{"contents": [{"role": "user", "parts": [{"text": "Bench request %d: a lighthouse at dusk"}]}], '
    b'"generationConfig": {"responseModalities": ["TEXT", "IMAGE"]}}'
)
_TTS_BODY = (
    b'{"contents": [{"role": "user", "parts": [{"text": "Bench request %d: say cheerfully: have a wonderful day"}]}],'
    b' "generationConfig": {"responseModalities": ["AUDIO"], "speechConfig": {"voiceConfig": '
    b'{"prebuiltVoiceConfig": {"voiceName": "Kore"}}}}}'
)
KINDS = {"text": (TEXT, PROMPT), "image": (IMAGE, _IMAGE_BODY), "tts": (TTS, _TTS_BODY)}
ROUNDS, CONNS, TOTAL, CAP, GROWTH_MIB = 3, (1, 10), 1000, 500, 1.0
COUNTS = {"text": 1000, "image": 100, "tts": 40}  # requests per round: about a second each


def throughput(rounds: int = ROUNDS, conns: tuple[int, ...] = CONNS) -> list[dict[str, Any]]:
    """Each kind in turn, ROUNDS times: COUNTS[kind] requests (bench/load.py `volume`: a fixed count, since a
    TTS answer takes too long for a 1 s window), timed by the generator; the server's CPU read around it."""
    server = start("emulator")
    first = itertools.count(3_000_000_000, 10_000_000)
    cases = []
    try:
        for n in conns:
            runs: dict[str, list[tuple[dict[str, Any], float]]] = {kind: [] for kind in KINDS}
            for _ in range(rounds):
                for kind, (path, body) in KINDS.items():
                    cpu = cpu_seconds(server.proc.pid)
                    done = load_body.run(body, "volume", server.port, path, n, COUNTS[kind], next(first))
                    runs[kind].append((done, cpu_seconds(server.proc.pid) - cpu))
            row: dict[str, Any] = {"conns": n}
            for kind, done in runs.items():
                requests = sum(r["requests"] for r, _ in done)
                row[kind] = {
                    "requests": requests,
                    "rps": requests / sum(r["seconds"] for r, _ in done),
                    "cpu_ms_per_request": 1000 * sum(cpu for _, cpu in done) / requests,
                    "non_200": sum(r["errors"] for r, _ in done),
                }
            cases.append(row)
    finally:
        server.stop()
    return cases


def memory(total: int = TOTAL, cap: int = CAP) -> dict[str, Any]:
    server = start("emulator", ("--journal-cap", str(cap)))
    out: dict[str, Any] = {"per_kind": total, "journal_cap": cap, "rss_idle_mib": rss_mib(server.proc.pid)}
    after: dict[str, list[float]] = {}
    errors = 0
    first = itertools.count(4_000_000_000, 10_000_000)
    try:
        for kind, (path, body) in KINDS.items():
            for _ in range(2):
                done = load_body.run(body, "volume", server.port, path, 10, total // 2, next(first))
                errors += done["errors"]
                after.setdefault(kind, []).append(rss_mib(server.proc.pid))
    finally:
        server.stop()
    return out | {"rss_after_mib": after, "errors": errors}


def run() -> dict[str, Any]:
    cases = throughput()
    return {"cases": cases, "memory": memory(), "rounds": ROUNDS, "growth_target_mib": GROWTH_MIB}


def report(d: dict[str, Any]) -> bool:
    """Print the run; False when a request failed."""
    print("image-out and TTS beside text generation (same server, same connections; server CPU ms per request):")
    for row in d["cases"]:
        text = row["text"]
        line = f"  {row['conns']:>3} conns:"
        for kind in KINDS:
            r = row[kind]
            line += f"  {kind} {r['rps']:.0f} req/s, {r['cpu_ms_per_request']:.2f} ms CPU"
            if kind != "text":
                line += f" ({r['rps'] / text['rps']:.3f}x text's req/s)"
            line += ";"
        print(line.rstrip(";"))
    mem = d["memory"]
    readings = ", ".join(f"{k} {a:.1f} -> {b:.1f}" for k, (a, b) in mem["rss_after_mib"].items())
    growth = max(b - a for a, b in mem["rss_after_mib"].values())
    good = growth <= d["growth_target_mib"] and mem["errors"] == 0
    d["verdict"] = "PASS" if good else "FAIL"
    print(
        f"  RSS idle {mem['rss_idle_mib']:.1f} MiB; after {mem['per_kind'] // 2:,} -> {mem['per_kind']:,} requests "
        f"of each kind in turn (journal cap {mem['journal_cap']:,}): {readings} MiB -- target bounded (at most "
        f"{d['growth_target_mib']:g} MiB more over the second {mem['per_kind'] // 2:,}): {d['verdict']} "
        f"({growth:+.1f} MiB)"
    )
    return mem["errors"] == 0 and all(row[k]["non_200"] == 0 for row in d["cases"] for k in KINDS)
