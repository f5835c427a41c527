"""Importers: public capture formats turned into golden captures (captures/format.py).

- httprr traces (google/adk-go, tmc/langchaingo): Go `httputil` dumps of real HTTPS exchanges; bodies are
  byte-exact (Go removed only the transfer coding). Format: the line `httprr trace v1`, then for each
  exchange a line `REQ_BYTES RESP_BYTES` followed by that many request and response bytes.
- js-genai recordings (google/test-server): request/response pairs whose JSON bodies were parsed into
  `bodySegments` and re-serialised with sorted keys; SSE framing is lost. Imported by printing each segment
  the way production frames it; the capture says `re-serialised`.
- SDK mock responses (Firebase AI Logic test data): a response body only. The request is reconstructed
  and marked `recorded: false`.
- VCR.py cassettes (pydantic/pydantic-ai, Mirascope/mirascope): YAML, one `interactions` list of request
  (method, uri, headers, body) and response (status, headers, body). pydantic-ai's recorder parses JSON
  bodies into `parsed_body` (key order lost: imported as `re-serialised`, re-printed the way production
  prints them) and keeps streamed bodies as text; Mirascope keeps the body as sent (`!!binary` when gzipped,
  decoded here). Read with PyYAML (the `yaml` extra; only the import tools need it).

Credentials never pass: request headers are kept from an allow-list (captures.REQUEST_HEADERS), `key=` and
`access_token=` leave the query, and any credential value met is replaced by REDACTED.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import unquote_plus, urlsplit

import orjson

from gemini_emulator.admin.journal import REDACTED, SECRET_QUERY
from gemini_emulator.captures.facts import facts
from gemini_emulator.captures.format import REQUEST_HEADERS, RESPONSE_HEADERS, Exchange, Request, Response, split_body
from gemini_emulator.protocol import framing, printers, routes

_MAGIC = b"httprr trace v1\n"
# Credentials that may hide in text: Google API keys and OAuth access tokens.
SECRET_PATTERN = re.compile(r"AIza[0-9A-Za-z_\-]{35}|ya29\.[0-9A-Za-z_\-.]{20,}")


def scrub_query(query: str) -> str:
    """The query string without credentials, its other parameters kept in order and spelling."""
    if not query:
        return ""
    kept = [p for p in query.split("&") if unquote_plus(p.split("=", 1)[0]) not in SECRET_QUERY]
    return "&".join(kept)  # a name is compared decoded: `%6Bey=` is `key=` to the server, so it goes too


def scrub_secrets(text: str) -> str:
    return SECRET_PATTERN.sub(REDACTED, text)


def recorded_date(headers: dict[str, str]) -> str:
    """YYYY-MM-DD from a Date header, or "" when there is none."""
    value = headers.get("date", "")
    try:
        return parsedate_to_datetime(value).date().isoformat() if value else ""
    except (TypeError, ValueError):
        return ""


def _kept(headers: dict[str, str], allowed: tuple[str, ...]) -> dict[str, str]:
    return {k: headers[k] for k in allowed if k in headers}


def exchange(request: Request, status: int, headers: dict[str, str], body: bytes) -> Exchange:
    """An Exchange with its body cut into framer pieces and its facts computed."""
    kept = _kept(headers, RESPONSE_HEADERS)
    response = Response(status, kept, split_body(body, kept.get("content-type", ""), status))
    return Exchange(request, response, facts(response))


# --- httprr --------------------------------------------------------------------------------------


def httprr_records(data: bytes) -> list[tuple[bytes, bytes, int]]:
    """(request bytes, response bytes, offset of the response in the trace) for each exchange of an httprr
    trace; the offset lets a reader report where in the file two bodies part."""
    if not data.startswith(_MAGIC):
        raise ValueError("not an httprr v1 trace")
    pos, out = len(_MAGIC), list[tuple[bytes, bytes, int]]()
    while pos < len(data):
        eol = data.index(b"\n", pos)
        req_len, resp_len = (int(n) for n in data[pos:eol].split(b" "))
        pos = eol + 1
        request, response = data[pos : pos + req_len], data[pos + req_len : pos + req_len + resp_len]
        if len(request) != req_len or len(response) != resp_len:
            raise ValueError(f"exchange {len(out)} is truncated")
        out.append((request, response, pos + req_len))
        pos += req_len + resp_len
    return out


def split_httprr(data: bytes) -> list[tuple[bytes, bytes]]:
    """(request bytes, response bytes) for each exchange of an httprr trace."""
    return [(request, response) for request, response, _ in httprr_records(data)]


def parse_http(message: bytes) -> tuple[str, dict[str, str], bytes]:
    """First line, headers (lower-case names; repeated ones joined with ", ") and body of an HTTP dump."""
    head, sep, body = message.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError("no blank line after the headers")
    first, *lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines:
        name, _, value = line.partition(": ")
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return first, headers, body


def httprr_exchange(request_bytes: bytes, response_bytes: bytes, auth: str) -> tuple[Exchange, str]:
    """One httprr exchange as a capture Exchange, and the date it was recorded."""
    first, req_headers, req_body = parse_http(request_bytes)
    method, url, _ = first.split(" ", 2)
    parts = urlsplit(url)
    request = Request(
        method=method,
        path=parts.path,
        query=scrub_query(parts.query),
        auth=auth,
        headers=_kept(req_headers, REQUEST_HEADERS),
        body=scrub_secrets(req_body.decode("utf-8")) if req_body else None,
    )
    status_line, resp_headers, body = parse_http(response_bytes)
    status = int(status_line.split(" ")[1])
    return exchange(request, status, resp_headers, body), recorded_date(resp_headers)


# --- js-genai recordings -----------------------------------------------------------------------------


def js_genai_exchange(interaction: dict[str, Any], auth: str) -> tuple[Exchange, str]:
    """One recorded interaction; bodies re-printed (compact request, production's framing for the response)."""
    req, resp = interaction["request"], interaction["response"]
    parts = urlsplit(req["url"])
    req_headers = {k.lower(): v for k, v in req["headers"].items()}
    segments = req.get("bodySegments") or []
    request = Request(
        method=req["method"],
        path=parts.path,
        query=scrub_query(parts.query),
        auth=auth,
        headers=_kept(req_headers, REQUEST_HEADERS),
        body=orjson.dumps(segments[0]).decode() if segments else None,
    )
    headers = {k.lower(): v for k, v in resp["headers"].items()}
    status = resp["statusCode"]
    chunks = resp.get("bodySegments") or []
    if headers.get("content-type", "").startswith(framing.SSE_TYPE) and status == 200:
        body = b"".join(framing.sse_event(c) for c in chunks)
    else:
        body = printers.pretty(chunks[0])
    return exchange(request, status, headers, body), recorded_date(headers)


# --- SDK mock responses -----------------------------------------------------------------------------


def fixture_exchange(data: bytes, request: Request) -> Exchange:
    """A mock response file as the answer to a reconstructed request: the status comes from an error
    envelope (200 otherwise), the content type from the framing, and an error on an `alt=sse` call keeps
    text/event-stream (js-genai's recording of a 404 on a stream shows it)."""
    sse = data.startswith(b"data: ") or "alt=sse" in request.query
    headers = {"content-type": framing.SSE_TYPE if sse else framing.JSON_TYPE}
    if data.startswith(b"data: "):
        headers |= framing.SSE_HEADERS
    status = 200
    if data.lstrip().startswith(b"{"):
        parsed = orjson.loads(data)
        if isinstance(parsed.get("error"), dict):
            status = parsed["error"]["code"]
    if data.lstrip().startswith(b"<"):
        headers = {"content-type": "text/html; charset=UTF-8"}
        status = 404
    return exchange(request, status, headers, data)


def reconstructed_request(path: str, query: str, text: str) -> Request:
    """A stand-in request for a response-only capture: one user turn saying `text` (make it unique)."""
    body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    target = routes.match("POST", path)
    auth = "bearer" if target is not None and target.uses_oauth else "api-key"
    return Request("POST", path, query, auth, {"content-type": "application/json"}, orjson.dumps(body).decode(), False)


# --- VCR cassettes ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VcrInteraction:
    """One request/response pair of a VCR cassette, bodies as bytes (gzip removed)."""

    index: int
    method: str
    uri: str
    request_headers: dict[str, str]  # lower-case names, repeated values joined with ", "
    request_body: bytes | None
    status: int
    headers: dict[str, str]
    body: bytes
    parsed: bool  # the recorder parsed the response JSON (key order is not production's)

    @property
    def json(self) -> Any:
        """The response body as JSON, or None (SSE text, HTML, empty)."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None

    @property
    def request_json(self) -> Any:
        try:
            return orjson.loads(self.request_body) if self.request_body else None
        except orjson.JSONDecodeError:
            return None


def _vcr_headers(raw: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, values in (raw or {}).items():
        listed = values if isinstance(values, list) else [values]
        out[str(name).lower()] = ", ".join(str(v) for v in listed)
    return out


def _vcr_body(side: dict[str, Any], headers: dict[str, str]) -> tuple[bytes | None, bool]:
    """A side's body bytes (gzip removed), and whether the recorder had parsed it into YAML."""
    if "parsed_body" in side:
        return (None if side["parsed_body"] is None else orjson.dumps(side["parsed_body"])), True
    body = side.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    if body is None:
        return None, False
    data = body if isinstance(body, bytes) else str(body).encode("utf-8")
    if data[:2] == b"\x1f\x8b" or "gzip" in headers.get("content-encoding", ""):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass
    return data, False


def vcr_interactions(data: bytes) -> list[VcrInteraction]:
    """The interactions of a VCR.py cassette."""
    import yaml  # type: ignore[import-untyped]  # the `yaml` extra: only the import tools and corpus tests

    # libyaml's loader when the wheel has it: the same documents, ten times faster than the pure-Python one
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loaded = yaml.load(data, Loader=loader) or {}  # noqa: S506 (a safe loader)
    out = []
    for index, item in enumerate(loaded.get("interactions") or []):
        req, resp = item["request"], item["response"]
        req_headers, headers = _vcr_headers(req.get("headers")), _vcr_headers(resp.get("headers"))
        request_body, _ = _vcr_body(req, req_headers)
        body, parsed = _vcr_body(resp, headers)
        status = resp.get("status") or {}
        code = status.get("code", 200) if isinstance(status, dict) else int(status)
        out.append(
            VcrInteraction(
                index, req["method"], req["uri"], req_headers, request_body, int(code), headers, body or b"", parsed
            )
        )
    return out


def vcr_recorded_date(interaction: VcrInteraction) -> str:
    """YYYY-MM-DD the interaction was recorded: its Date header, else a Vertex answer's createTime, else ""."""
    found = recorded_date(interaction.headers)
    if found:
        return found
    match = re.search(rb'"createTime":\s*"(\d{4}-\d{2}-\d{2})', interaction.body)
    return match.group(1).decode() if match else ""


def vcr_exchange(interaction: VcrInteraction, auth: str) -> Exchange:
    """One interaction as a capture Exchange: a parsed JSON body is printed the way production prints it
    (pretty, two-space indent, trailing newline); a text body (an SSE stream, a verbatim body) is kept."""
    parts = urlsplit(interaction.uri)
    body_text = interaction.request_body.decode("utf-8") if interaction.request_body else None
    request = Request(
        method=interaction.method,
        path=parts.path,
        query=scrub_query(parts.query),
        auth=auth,
        headers=_kept(interaction.request_headers, REQUEST_HEADERS),
        body=scrub_secrets(body_text) if body_text else None,
    )
    body = interaction.body
    if interaction.parsed and interaction.json is not None:
        body = printers.pretty(interaction.json)
    headers = dict(interaction.headers)
    headers.pop("content-encoding", None)
    return exchange(request, interaction.status, headers, body)
