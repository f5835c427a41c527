"""Reading the real captures in ../shared/corpus (byte-exact httprr traces, verbatim SSE fixtures, the VCR
cassettes of pydantic-ai and Mirascope).

The raw corpus is not part of the repo: CI clones ../shared beside it, a bare clone has none. A test that reads
it is marked `@pytest.mark.corpus` and calls require_corpus(); without the folder it skips with ABSENT, the one
reason tools/conformance_matrix.py recognises (a matrix is not stale because its evidence could not run).
Everything else tests against captures/, the curated import that ships with the repo.

httprr traces (google-adk-go, tmc-langchaingo) are read by captures/importers.py (the format is described
there), the reader that made captures/; this module adds where each body starts in its file, for reporting.
A response is a Go `httputil` dump: status line, CRLF headers, blank line, body. Go has already removed gzip
and chunked transfer coding, so the body is the plain payload production sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gemini_emulator.captures.importers import VcrInteraction, httprr_records, parse_http, vcr_interactions

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
ABSENT = "needs the raw capture corpus ../shared/corpus, absent beside this clone (CI has it)"
HTTPRR_SOURCES = ("google-adk-go", "tmc-langchaingo")
VCR_SOURCES = ("pydantic-ai", "mirascope-py")
GEMINI_HOSTS = ("generativelanguage.googleapis.com", "aiplatform.googleapis.com")
FIREBASE_MOCKS = "firebase-vertexai-sdk-test-data/mock-responses"
SSE_END = b"\r\n\r\n"


def require_corpus() -> Path:
    """The corpus folder, or skip the calling test when the checkout has no ../shared beside it."""
    if not CORPUS.is_dir():
        pytest.skip(ABSENT)
    return CORPUS


def skipped_for_corpus(report: pytest.TestReport) -> bool:
    """Whether a test report is a skip for want of the corpus (require_corpus's reason)."""
    longrepr = report.longrepr
    return bool(report.skipped and isinstance(longrepr, tuple) and longrepr[2].endswith(ABSENT))


@dataclass(frozen=True)
class Exchange:
    """One recorded request/response pair of an httprr trace."""

    path: Path
    index: int  # 0-based position of the exchange in its file
    request: bytes
    status_line: str
    headers: dict[str, str]  # lower-case names, repeated ones joined (emulator.importers.parse_http)
    body: bytes
    body_offset: int  # offset of the body's first byte in the file, for reporting differences

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(CORPUS)}#{self.index}"

    @property
    def status(self) -> int:
        return int(self.status_line.split(" ")[1])

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def request_target(self) -> str:
        """The request line's URL, e.g. https://.../models/gemini-2.0-flash:streamGenerateContent?..."""
        return self.request.split(b"\r\n", 1)[0].split(b" ")[1].decode()

    @property
    def rpc(self) -> str:
        """The method after the last ':' of the URL path (generateContent, streamGenerateContent...)."""
        path = self.request_target.split("?", 1)[0]
        return path.rsplit(":", 1)[-1] if ":" in path.rsplit("/", 1)[-1] else ""


def read_httprr(path: Path) -> list[Exchange]:
    """The exchanges of one trace, each body with its offset in the file."""
    out: list[Exchange] = []
    try:
        for index, (request, response, offset) in enumerate(httprr_records(path.read_bytes())):
            status_line, headers, body = parse_http(response)
            out.append(Exchange(path, index, request, status_line, headers, body, offset + len(response) - len(body)))
    except ValueError as exc:
        raise ValueError(f"{path}: exchange {len(out)}: {exc}") from None
    return out


def httprr_files() -> list[Path]:
    root = require_corpus()
    return sorted(p for source in HTTPRR_SOURCES for p in (root / source).rglob("*.httprr"))


def exchanges() -> Iterator[Exchange]:
    for path in httprr_files():
        yield from read_httprr(path)


def is_sse(exchange: Exchange) -> bool:
    return (exchange.header("Content-Type") or "").startswith("text/event-stream")


def is_json_array_stream(exchange: Exchange) -> bool:
    return exchange.rpc == "streamGenerateContent" and not is_sse(exchange)


def split_sse(body: bytes) -> list[bytes]:
    """`data: ...\\r\\n\\r\\n` events, each with its terminator; raises if anything else is in the body."""
    events = [piece + SSE_END for piece in body.split(SSE_END)[:-1]]
    if b"".join(events) != body:
        raise ValueError(f"body does not end with a complete event: ...{body[-40:]!r}")
    for event in events:
        if not event.startswith(b"data: ") or re.search(rb"[\r\n]", event[: -len(SSE_END)]):
            raise ValueError(f"not a single-line data event: {event[:80]!r}")
    return events


# Firebase CRLF SSE fixtures that are nevertheless edited by hand (their LF-only siblings are skipped
# wholesale: every verbatim capture uses CRLF).
FIREBASE_SSE_EDITED: dict[str, str] = {
    "vertexai/streaming-failure-finish-reason-safety.txt": "text replaced by a raw '<redacted>' placeholder",
    "vertexai/streaming-success-citations.txt": "events 5-6 hand-typed compact around example.com URIs "
    '(\'"publicationDate":{"year":2014\', \'"title":"some-citation-4"\')',
    "vertexai/streaming-success-function-call-short.txt": 'hand-typed \'{ "functionCall": { "name": ...\'',
    "vertexai/streaming-success-utf8.txt": "re-serialised with spaces inside brackets ('data: { \"candidates\": [ {')",
}
# Verbatim events whose file lost the final blank line (ends "}\r\n", as an editor trimming trailing
# blank lines leaves it): their payloads are pinned, their whole-body framing is not.
FIREBASE_SSE_UNTERMINATED = {
    "googleai/streaming-failure-prompt-blocked-safety.txt",
    "vertexai/streaming-failure-prompt-blocked-safety-with-message.txt",
}


def firebase_sse_files() -> list[Path]:
    """Firebase streaming fixtures framed as SSE with CRLF only (verbatim captures)."""
    root = require_corpus() / FIREBASE_MOCKS
    out = []
    for path in sorted(root.glob("*/streaming-*.txt")):
        data = path.read_bytes()
        if data.startswith(b"data: ") and re.search(rb"(?<!\r)\n", data) is None:
            out.append(path)
    return out


def firebase_name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def first_difference(expected: bytes, got: bytes, base: int = 0) -> str:
    """Where two byte strings part, with context; `base` turns the index into a file offset."""
    limit = min(len(expected), len(got))
    at = next((i for i in range(limit) if expected[i] != got[i]), limit)
    lo = max(0, at - 40)
    return (
        f"offset {base + at} (index {at}; lengths expected {len(expected)}, got {len(got)}): "
        f"expected {expected[lo : at + 40]!r} got {got[lo : at + 40]!r}"
    )


def float_literals(text: bytes) -> list[bytes]:
    """The raw spelling of every non-integer number in a JSON text, in order."""
    found: list[bytes] = []

    def keep(literal: str) -> float:
        found.append(literal.encode())
        return float(literal)

    json.loads(text, parse_float=keep)
    return found


def vcr_files() -> list[Path]:
    root = require_corpus()
    return sorted(p for source in VCR_SOURCES for p in (root / source).rglob("*.yaml"))


def gemini_interactions() -> Iterator[tuple[Path, VcrInteraction]]:
    """Every interaction of the VCR cassettes that called a Gemini model method (other hosts left out)."""
    for path in vcr_files():
        for interaction in vcr_interactions(path.read_bytes()):
            host = interaction.uri.split("/")[2]
            path = interaction.uri.split("?")[0]
            if host.endswith(GEMINI_HOSTS) and "/models/" in path and ":" in path.rsplit("/", 1)[-1]:
                yield path, interaction
