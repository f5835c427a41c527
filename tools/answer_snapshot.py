"""Snapshot the emulator's answers to a fixed corpus of a few thousand varied requests, to prove a change kept
every byte: run it before and after, then `diff` (or `cmp`) the two files; they must be identical.

    python tools/answer_snapshot.py OUT.txt [--http h11 --loop asyncio]

The corpus: every API family's URL (Developer v1beta/v1, Vertex, Vertex express, Firebase Developer and Vertex),
generateContent, streamGenerateContent (SSE and JSON array), countTokens, embedContent, computeTokens; prompts
of several sizes and languages, system instructions, conversations, function declarations, JSON schemas,
candidateCount, thinking, stop sequences, int enums, server tools, inline data; bad JSON, unknown fields,
empty contents, unknown models, missing credentials; and scripted answers (text, chunks, function calls,
errors, mid-stream errors, block reasons, usage) in namespaces of their own. Each answer is written as its
status, its headers but `date`, and its body bytes (de-chunked), one request per block.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gemini_emulator.config import Settings  # noqa: E402
from gemini_emulator.testing import server  # noqa: E402

PATHS = {
    "dev": "/v1beta/models/{model}:{method}",
    "dev-v1": "/v1/models/{model}:{method}",
    "vertex": "/v1/projects/p1/locations/us-central1/publishers/google/models/{model}:{method}",
    "vertex-beta": "/v1beta1/projects/p1/locations/global/publishers/google/models/{model}:{method}",
    "express": "/v1/publishers/google/models/{model}:{method}",
    "fb-dev": "/v1beta/projects/p1/models/{model}:{method}",
    "fb-vertex": "/v1beta/projects/p1/locations/us-central1/publishers/google/models/{model}:{method}",
}
MODELS = ("gemini-2.5-flash", "gemini-3-flash-preview", "gemini-2.5-pro", "gemini-2.5-flash-lite")
TEXTS = (
    "Hi",
    "Is it sunny in Paris?",
    "Write a haiku about the sea.",
    "Explain quantum entanglement to a child in three sentences, with an example from daily life.",
    "Résumé: le café coûte 3 € — pourquoi ?",
    "日本語で自己紹介してください。",
    "List five prime numbers.",
    "word " * 200,
)
WEATHER_TOOL = {
    "functionDeclarations": [
        {
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
        }
    ]
}
PERSON_SCHEMA = {
    "type": "OBJECT",
    "properties": {
        "name": {"type": "STRING"},
        "age": {"type": "INTEGER"},
        "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
        "kind": {"type": "STRING", "enum": ["a", "b"]},
    },
    "required": ["name", "age"],
}
PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def bodies(text: str) -> Iterator[tuple[str, Any]]:
    """Generate-call bodies around one prompt text: (label, JSON value or raw bytes)."""
    yield "plain", {"contents": [user(text)]}
    yield "system", {"systemInstruction": {"parts": [{"text": "Be terse."}]}, "contents": [user(text)]}
    yield (
        "turns",
        {"contents": [user("Hello"), {"role": "model", "parts": [{"text": "Hi! How can I help?"}]}, user(text)]},
    )
    yield "tools", {"contents": [user(text + " weather")], "tools": [WEATHER_TOOL]}
    yield (
        "tool-any",
        {
            "contents": [user(text)],
            "tools": [WEATHER_TOOL],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
    )
    yield (
        "schema",
        {
            "contents": [user(text)],
            "generationConfig": {"responseMimeType": "application/json", "responseSchema": PERSON_SCHEMA},
        },
    )
    yield (
        "json-schema",
        {
            "contents": [user(text)],
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
            },
        },
    )
    yield "candidates", {"contents": [user(text)], "generationConfig": {"candidateCount": 2, "temperature": 0.5}}
    yield (
        "thinking",
        {
            "contents": [user(text)],
            "generationConfig": {"thinkingConfig": {"includeThoughts": True, "thinkingBudget": 512}},
        },
    )
    yield "max-tokens", {"contents": [user(text)], "generationConfig": {"maxOutputTokens": 3, "stopSequences": ["."]}}
    yield "snake", {"contents": [user(text)], "generation_config": {"max_output_tokens": 50, "top_k": 3}}
    yield "search", {"contents": [user(text)], "tools": [{"googleSearch": {}}]}
    yield "code", {"contents": [user(text)], "tools": [{"codeExecution": {}}]}
    yield (
        "safety",
        {
            "contents": [user(text)],
            "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        },
    )
    yield (
        "image",
        {
            "contents": [
                {"role": "user", "parts": [{"text": text}, {"inlineData": {"mimeType": "image/png", "data": PNG_1PX}}]}
            ]
        },
    )
    yield "unknown-field", {"contents": [user(text)], "bogus": 1}
    yield "bad-type", {"contents": [user(text)], "generationConfig": {"temperature": "hot"}}
    yield "bad-json", b'{"contents": [' + text.encode()[:20]
    yield "empty", {"contents": []}
    yield (
        "function-response",
        {
            "contents": [
                user("weather in Paris?"),
                {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 21}}}]},
            ],
            "tools": [WEATHER_TOOL],
        },
    )


SCRIPT = [
    {"name": "text", "match": {"text": "script-text"}, "text": "Scripted answer.", "times": "forever"},
    {"name": "chunks", "match": {"text": "script-chunks"}, "chunks": ["One, ", "two, ", "three."], "times": "forever"},
    {
        "name": "call",
        "match": {"text": "script-call"},
        "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
        "times": "forever",
    },
    {
        "name": "error",
        "match": {"text": "script-error"},
        "error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"},
        "times": "forever",
    },
    {
        "name": "mid-error",
        "match": {"text": "script-mid"},
        "chunks": ["a", "b", "c"],
        "error": {"code": 500, "message": "Internal error.", "status": "INTERNAL"},
        "errorAfterChunks": 2,
        "times": "forever",
    },
    {"name": "block", "match": {"text": "script-block"}, "blockReason": "SAFETY", "times": "forever"},
    {
        "name": "usage",
        "match": {"text": "script-usage"},
        "text": "Counted.",
        "finishReason": "MAX_TOKENS",
        "usage": {"thoughtsTokenCount": 7},
        "times": "forever",
    },
]


def requests() -> Iterator[tuple[str, str, str, dict[str, str], bytes]]:
    """(label, HTTP method, path, headers, body) for the whole corpus, in a fixed order."""
    key = {"x-goog-api-key": "snap-key", "content-type": "application/json"}
    bearer = {"authorization": "Bearer snap-token", "content-type": "application/json"}
    for family, pattern in PATHS.items():
        creds = bearer if family in ("vertex", "vertex-beta") else key
        for text, model in zip(TEXTS, itertools.cycle(MODELS), strict=False):
            for label, body in bodies(text):
                raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
                for method, query in (
                    ("generateContent", ""),
                    ("streamGenerateContent", "?alt=sse"),
                    ("streamGenerateContent", ""),
                    ("countTokens", ""),
                ):
                    path = pattern.format(model=model, method=method) + query
                    yield f"{family}/{label}/{method}{query}", "POST", path, creds, raw
            int_enums = pattern.format(model=model, method="generateContent") + "?$alt=json;enum-encoding=int"
            yield f"{family}/int-enums", "POST", int_enums, creds, json.dumps({"contents": [user("Hi")]}).encode()
            for method in ("embedContent", "computeTokens"):
                path = pattern.format(
                    model="gemini-embedding-001" if method == "embedContent" else model, method=method
                )
                body = {"content": {"parts": [{"text": "embed me"}]}} if method == "embedContent" else {}
                if method == "computeTokens":
                    body = {"contents": [user("compute these tokens")]}
                yield f"{family}/{method}", "POST", path, creds, json.dumps(body).encode()
            unknown = pattern.format(model="gemini-9-ultra", method="generateContent")
            yield f"{family}/unknown-model", "POST", unknown, creds, json.dumps({"contents": [user("Hi")]}).encode()
            anon = pattern.format(model=model, method="generateContent")
            plain = {"content-type": "application/json"}
            yield f"{family}/no-credential", "POST", anon, plain, json.dumps({"contents": [user("Hi")]}).encode()
    for family in ("dev", "vertex", "express"):
        pattern = PATHS[family]
        scripted = (bearer if family == "vertex" else key) | {"x-emulator-namespace": "snap-script"}
        for name in ("text", "chunks", "call", "error", "mid", "block", "usage"):
            for method, query in (
                ("generateContent", ""),
                ("streamGenerateContent", "?alt=sse"),
                ("streamGenerateContent", ""),
            ):
                path = pattern.format(model="gemini-2.5-flash", method=method) + query
                body = json.dumps({"contents": [user(f"script-{name} please")]}).encode()
                yield f"script/{family}/{name}/{method}{query}", "POST", path, scripted, body
    for path in ("/v1beta/models", "/v1beta/models/gemini-2.5-flash", "/v1/publishers/google/models", "/nowhere"):
        yield f"get{path}", "GET", path, key, b""
    yield (
        "openai",
        "POST",
        "/v1beta/openai/chat/completions",
        key,
        json.dumps({"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "Hi"}]}).encode(),
    )
    yield (
        "openai-stream",
        "POST",
        "/v1beta/openai/chat/completions",
        key,
        json.dumps(
            {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
        ).encode(),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--http", default="auto")
    parser.add_argument("--loop", default="auto")
    args = parser.parse_args()
    running = server.start(Settings(http=args.http, loop=args.loop))
    count = 0
    try:
        conn = http.client.HTTPConnection(running.host, running.port, timeout=30)
        admin = {"content-type": "application/json", "x-emulator-namespace": "snap-script"}
        conn.request("PUT", "/__emulator/script", json.dumps(SCRIPT).encode(), admin)
        put = conn.getresponse()
        put.read()
        assert put.status == 200, put.status
        with args.out.open("wb") as out:
            for label, method, path, headers, body in requests():
                conn.request(method, path, body or None, headers)
                response = conn.getresponse()
                data = response.read()
                kept = [f"{k.lower()}: {v}" for k, v in response.getheaders() if k.lower() != "date"]
                out.write(f"### {label} {method} {path}\n{response.status}\n".encode())
                out.write(("\n".join(kept) + "\n\n").encode())
                if label.startswith("openai"):  # `created` is the wall clock's second
                    data = re.sub(rb'"created":\d+', b'"created":0', data)
                out.write(data + b"\n\n")
                count += 1
                if response.getheader("connection", "").lower() == "close":
                    conn.close()
                    conn = http.client.HTTPConnection(running.host, running.port, timeout=30)
        conn.close()
    finally:
        running.stop()
    print(f"{count} answers written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
