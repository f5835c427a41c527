"""Golden captures: recorded exchanges with their exact bytes, provenance and the facts they evidence.

One JSON file per exchange or per conversation, under a captures directory (the checkout's `captures/` by
default); the format is described in captures/README.md. A response body is kept exactly: a string for a
unary body, a list of strings for a stream (one element per piece the framer sends: an SSE event, a
JSON-array element, the error tail), `bodyBase64` for bytes that are not UTF-8. Credentials are never
kept: a request says only which kind it needs (`auth`).

This module reads, writes and checks capture files and turns a recorded response back into what an
engine yields (chunk objects and errors); the replay engine and record mode build on it.
"""

from __future__ import annotations

import base64
import fnmatch
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from gemini_emulator.protocol import framing, routes
from gemini_emulator.protocol.errors import ApiError
from gemini_emulator.protocol.headers import SERVICE_TIER_HEADER

FORMAT = 1
DEFAULT_DIR = Path(__file__).resolve().parent  # the curated captures ship inside this package
# How faithful a capture's bytes are, most faithful first (captures/README.md).
FIDELITIES = ("byte-exact", "verbatim-fixture", "re-serialised", "edited")
AUTH_KINDS = ("api-key", "bearer", "none")
# Request headers worth keeping: they shape the answer or name the client. Never credentials.
REQUEST_HEADERS = ("content-type", "x-goog-api-client", "x-goog-request-params", "x-server-timeout")
# Response headers worth keeping: the wire facts among them. Never cookies.
RESPONSE_HEADERS = (
    "content-type",
    "content-disposition",
    SERVICE_TIER_HEADER,
    "www-authenticate",
    "retry-after",
)
# Recorded error headers an engine can hand back through ApiError.headers.
ERROR_HEADERS = ("www-authenticate", "retry-after")


class CaptureError(ValueError):
    """A capture file that breaks the format: names the file and the field."""


@dataclass
class RecordedError(ApiError):
    """A recorded error, raised again by the replay engine: its envelope prints as recorded (a re-serialised
    recording's keys are sorted), not rebuilt in production's key order."""

    recorded: dict[str, Any] = field(default_factory=dict)

    def envelope(self) -> dict[str, Any]:
        return self.recorded


@dataclass(frozen=True)
class Answer:
    """A recorded response as an engine yields it: chunk objects, then possibly an error. With no chunks the
    error is an HTTP error; after chunks it is production's mid-stream error tail."""

    chunks: list[dict[str, Any]]
    error: ApiError | None = None


@dataclass
class Request:
    method: str
    path: str
    query: str = ""
    auth: str = "api-key"
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    recorded: bool = True  # False: only the response was captured; this request was reconstructed

    @cached_property
    def target(self) -> routes.Target | None:
        return routes.match(self.method, self.path)

    @cached_property
    def json(self) -> Any:
        """The parsed body ({} when empty, None when it is not JSON: record mode keeps malformed requests)."""
        try:
            return orjson.loads(self.body) if self.body else {}
        except orjson.JSONDecodeError:
            return None

    @property
    def url(self) -> str:
        return self.path + ("?" + self.query if self.query else "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.query:
            out["query"] = self.query
        out["auth"] = self.auth
        if self.headers:
            out["headers"] = self.headers
        out["body"] = self.body
        if not self.recorded:
            out["recorded"] = False
        return out


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    pieces: list[bytes]  # the body as the framer sends it; b"".join(pieces) is the body

    @property
    def body(self) -> bytes:
        return b"".join(self.pieces)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def framing(self) -> str:
        """unary, sse, json-array or html: how the body is laid out."""
        body = self.body
        if self.content_type.startswith("text/html"):
            return "html"
        if self.content_type.startswith(framing.SSE_TYPE) and body.startswith(b"data: "):
            return "sse"
        if body.startswith(b"["):
            return "json-array"
        return "unary"

    def answer(self) -> Answer:
        """The recorded response as chunks and an error; raises CaptureError for a body no engine can yield
        (an HTML page: the wire's own answer)."""
        kind = self.framing
        if kind == "html":
            raise CaptureError("an HTML body is the front end's answer, not an engine's")
        if kind == "sse":
            payloads, tail = framing.unframe_sse(self.body)
            chunks = [orjson.loads(p) for p in payloads]
            return Answer(chunks, self._error(orjson.loads(tail)) if tail.strip() else None)
        parsed = orjson.loads(self.body)
        items = parsed if kind == "json-array" else [parsed]
        chunks = [item for item in items if not _is_error(item)]
        errors = [item for item in items if _is_error(item)]
        return Answer(chunks, self._error(errors[-1]) if errors else None)

    def _error(self, envelope: dict[str, Any]) -> RecordedError:
        inner = envelope["error"]
        headers = {k: v for k, v in self.headers.items() if k in ERROR_HEADERS}
        code, message, status = inner["code"], inner.get("message", ""), inner.get("status", "")
        return RecordedError(code, message, status, inner.get("details", []), headers, envelope)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "headers": self.headers}
        try:
            texts = [p.decode("utf-8") for p in self.pieces]
        except UnicodeDecodeError:
            out["bodyBase64"] = base64.b64encode(self.body).decode()
            return out
        out["body"] = texts[0] if len(texts) == 1 and self.framing == "unary" else texts
        return out


def _is_error(item: Any) -> bool:
    return isinstance(item, dict) and set(item) == {"error"}


def split_body(body: bytes, content_type: str, status: int) -> list[bytes]:
    """A body cut into the pieces the framer sends (one piece for unary bodies and HTTP errors)."""
    if status != 200:
        return [body]
    if content_type.startswith(framing.SSE_TYPE) and body.startswith(b"data: "):
        return framing.sse_pieces(body)
    if body.startswith(b"[{") and body.endswith(b"\n]"):
        return framing.json_array_pieces(body)
    return [body]


@dataclass
class Exchange:
    request: Request
    response: Response
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def headers_recorded(self) -> bool:
        """Whether the response headers are production's: a response-only capture (an SDK mock response, its
        request reconstructed) has only the headers its framing implies."""
        return self.request.recorded

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request.to_json(), "response": self.response.to_json(), "facts": self.facts}


@dataclass
class Capture:
    name: str  # the file's path under the captures directory, without ".json"
    description: str
    provenance: dict[str, Any]
    exchanges: list[Exchange]

    @property
    def fidelity(self) -> str:
        return str(self.provenance["fidelity"])

    def to_json(self) -> dict[str, Any]:
        return {
            "capture": FORMAT,
            "name": self.name,
            "description": self.description,
            "provenance": self.provenance,
            "exchanges": [e.to_json() for e in self.exchanges],
        }

    def dumps(self) -> bytes:
        """The file's bytes: stable 2-space JSON (UTF-8, one trailing newline) so re-imports diff cleanly."""
        return (json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n").encode()

    def write(self, root: Path) -> Path:
        path = root / f"{self.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.dumps())
        return path


# --- reading ----------------------------------------------------------------------------------------


def parse(data: Any, name: str) -> Capture:
    """A Capture from a file's JSON, checked against the format; CaptureError names what is wrong."""

    def need(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj or not isinstance(obj[key], kind):
            raise CaptureError(f"{name}: {where}{key} is missing or not a {getattr(kind, '__name__', kind)}")
        return obj[key]

    if need(data, "capture", int, "") != FORMAT:
        raise CaptureError(f"{name}: capture format {data['capture']} is not {FORMAT}")
    if need(data, "name", str, "") != name:
        raise CaptureError(f"{name}: the name field says {data['name']!r}; it must be the file's path")
    provenance = need(data, "provenance", dict, "")
    fidelity = need(provenance, "fidelity", str, "provenance.")
    if fidelity not in FIDELITIES:
        raise CaptureError(f"{name}: provenance.fidelity {fidelity!r} is not one of {', '.join(FIDELITIES)}")
    for key in ("source", "licence", "recorded"):
        need(provenance, key, str, "provenance.")
    if fidelity == "edited" and not provenance.get("edits"):
        raise CaptureError(f"{name}: an edited capture lists its edits in provenance.edits")
    exchanges = []
    for i, item in enumerate(need(data, "exchanges", list, "")):
        where = f"exchanges[{i}]."
        req = need(item, "request", dict, where)
        resp = need(item, "response", dict, where)
        auth = req.get("auth", "api-key")
        if auth not in AUTH_KINDS:
            raise CaptureError(f"{name}: {where}request.auth {auth!r} is not one of {', '.join(AUTH_KINDS)}")
        request = Request(
            method=need(req, "method", str, where + "request."),
            path=need(req, "path", str, where + "request."),
            query=req.get("query", ""),
            auth=auth,
            headers=dict(req.get("headers", {})),
            body=req.get("body"),
            recorded=req.get("recorded", True),
        )
        headers = {k.lower(): v for k, v in need(resp, "headers", dict, where + "response.").items()}
        if "bodyBase64" in resp:
            status = need(resp, "status", int, where + "response.")
            pieces = split_body(base64.b64decode(resp["bodyBase64"]), headers.get("content-type", ""), status)
        else:
            raw = resp.get("body")
            if isinstance(raw, str):
                pieces = [raw.encode()]
            elif isinstance(raw, list) and raw and all(isinstance(p, str) for p in raw):
                pieces = [p.encode() for p in raw]
            else:
                raise CaptureError(f"{name}: {where}response.body is a string or a non-empty list of strings")
        response = Response(need(resp, "status", int, where + "response."), headers, pieces)
        exchanges.append(Exchange(request, response, dict(item.get("facts", {}))))
    if not exchanges:
        raise CaptureError(f"{name}: a capture holds at least one exchange")
    return Capture(name, need(data, "description", str, ""), provenance, exchanges)


def load(path: Path, root: Path) -> Capture:
    name = path.relative_to(root).with_suffix("").as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CaptureError(f"{name}: {exc}") from None
    return parse(data, name)


def load_dir(root: Path | str | None = None, skip: Callable[[Path, CaptureError], None] | None = None) -> list[Capture]:
    """Every capture under `root` (the checkout's captures/ when None), sorted by name. A file that is not a
    capture raises CaptureError, or with `skip` is left out and handed to it (the file and why)."""
    base = Path(root) if root is not None else DEFAULT_DIR
    if not base.is_dir():
        raise CaptureError(f"no captures directory at {base}")
    found = []
    for path in sorted(base.rglob("*.json")):
        try:
            found.append(load(path, base))
        except CaptureError as exc:
            if skip is None:
                raise
            skip(path, exc)
    return found


def select(captures: list[Capture], pattern: str) -> list[Capture]:
    """The captures whose name matches a glob (`developer/*`) or equals it."""
    return [c for c in captures if c.name == pattern or fnmatch.fnmatchcase(c.name, pattern)]
