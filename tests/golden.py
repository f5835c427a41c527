"""Helpers for the golden tests: sending a capture's request, and holding an answer to a capture's facts.

`differences(recorded, synthesized)` compares two fact sets (captures/facts.py) and names each
difference as `<fact>: <what>`, e.g. `keys.usageMetadata: lacks thoughtsTokenCount` or
`finishReason: every-chunk, not final-chunk-only`. tests/captures/test_golden.py holds every difference to the
table of documented divergences (DIVERGENCES), each with its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from gemini_emulator.captures.format import Request, Response, split_body
from gemini_emulator.protocol import errors
from gemini_emulator.wire import catalogue

PLACEMENTS = ("finishReason", "usageMetadata", "modelVersion", "responseId")


@dataclass
class Served:
    """What the server sent: status, headers, and the body as the pieces that arrived."""

    status: int
    headers: httpx.Headers
    pieces: list[bytes]

    @property
    def body(self) -> bytes:
        return b"".join(self.pieces)

    def as_response(self) -> Response:
        content_type = self.headers.get("content-type", "")
        kept = {"content-type": content_type} if content_type else {}
        return Response(self.status, kept, split_body(self.body, content_type, self.status))


def send(base_url: str, request: Request, headers: dict[str, str]) -> Served:
    """Send a recorded request as recorded (a stand-in credential of the kind it needs), reading the body
    piece by piece as it arrives."""
    sent = dict(request.headers) | headers
    if request.auth == "api-key":
        sent["x-goog-api-key"] = "golden-key"
    elif request.auth == "bearer":
        sent["authorization"] = "Bearer golden-token"
    content = (request.body or "").encode()
    with httpx.Client(timeout=30) as client:
        with client.stream(request.method, base_url + request.url, headers=sent, content=content) as resp:
            pieces = [piece for piece in resp.iter_raw() if piece]
    return Served(resp.status_code, resp.headers, pieces)


def boundaries(pieces: list[bytes]) -> set[int]:
    """Offsets where one piece ends and the next begins."""
    out, at = set(), 0
    for piece in pieces[:-1]:
        at += len(piece)
        out.add(at)
    return out


def _order_conflicts(recorded: list[str], synthesized: list[str]) -> list[str]:
    common = [k for k in synthesized if k in recorded]
    expected = [k for k in recorded if k in common]
    return [] if common == expected else [f"order {' < '.join(common)}, not {' < '.join(expected)}"]


def _compatible_placement(recorded: str, synthesized: str) -> bool:
    if recorded == synthesized:
        return True
    lone = {"only-chunk", "every-chunk", "final-chunk-only"}
    return "only-chunk" in (recorded, synthesized) and {recorded, synthesized} <= lone


def differences(recorded: dict[str, Any], synthesized: dict[str, Any], ordered: bool = True) -> list[str]:
    """Where a synthesized answer's facts differ from a capture's (`ordered=False` for re-serialised
    captures, whose key order is the recorder's, not production's)."""
    out: list[str] = []
    for fact in ("framing", "contentType", "enums"):
        if fact in recorded and recorded[fact] != synthesized.get(fact):
            out.append(f"{fact}: {synthesized.get(fact)}, not {recorded[fact]}")
    for fact in ("error", "errorTail"):
        if fact not in recorded:
            continue
        got = synthesized.get(fact)
        if got is None:
            out.append(f"{fact}: absent")
            continue
        want = recorded[fact]
        for field in ("code", "status"):  # the detail types belong to the particular error, not the shape
            if want[field] != got[field]:
                out.append(f"{fact}.{field}: {got[field]}, not {want[field]}")
        out += [f"{fact}.keys: {c}" for c in (_order_conflicts(want["keys"], got["keys"]) if ordered else [])]
    want_keys, got_keys = recorded.get("keys", {}), synthesized.get("keys", {})
    for location, keys in want_keys.items():
        mine = got_keys.get(location, [])
        out += [f"keys.{location}: lacks {k}" for k in keys if k not in mine]
        out += [f"keys.{location}: adds {k}" for k in mine if k not in keys]
        out += [f"keys.{location}: {c}" for c in (_order_conflicts(keys, mine) if ordered else [])]
    for location in got_keys.keys() - want_keys.keys():
        out.append(f"keys.{location}: adds the object")
    for fact in PLACEMENTS:
        if fact in recorded and not _compatible_placement(recorded[fact], synthesized.get(fact, "absent")):
            out.append(f"{fact}: {synthesized.get(fact, 'absent')}, not {recorded[fact]}")
    if "interimUsageKeys" in recorded and "interimUsageKeys" in synthesized:
        keys, mine = recorded["interimUsageKeys"], synthesized["interimUsageKeys"]
        out += [f"interimUsage: lacks {k}" for k in keys if k not in mine]
        out += [f"interimUsage: adds {k}" for k in mine if k not in keys]
        out += [f"interimUsage: {c}" for c in (_order_conflicts(keys, mine) if ordered else [])]
    return out


def matches(pattern: str, difference: str) -> bool:
    """A divergence pattern covers a difference: the same text, `*` standing for any run of characters."""
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), difference) is not None


# --- the scripted answer that carries a capture's content --------------------------------------------

# (status, HTTP code) -> a catalogue error name that answers with them (the first name for each pair)
CATALOGUE_ERRORS: dict[tuple[str, int], str] = {}
for _name in errors.NAMES:
    _error = errors.named(_name)
    CATALOGUE_ERRORS.setdefault((_error.status, _error.code), _name)


# usageMetadata fields that say what the model did (thought, ran tools, hit a cache), carried into the entry.
CONTENT_USAGE = (
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "toolUsePromptTokensDetails",
    "cachedContentTokenCount",
    "cacheTokensDetails",
)


def _error_name(error: Any) -> str:
    if error.status == "INVALID_ARGUMENT" and any(d.get("reason") == "API_KEY_INVALID" for d in error.details):
        return "apiKey"
    return CATALOGUE_ERRORS[(error.status, error.code)]


def _is_call(part: dict[str, Any]) -> bool:
    return "functionCall" in part and set(part) <= {"functionCall", "thoughtSignature"}


def scripted_entry(response: Response) -> dict[str, Any]:
    """A script entry whose answer has the recorded content (parts, finish reason, block reason, error),
    so that the emulator lays out the same content its own way: the facts then compare layouts."""
    answer = response.answer()
    chunks = answer.chunks
    if not chunks:
        return {"error": _error_name(answer.error)}
    feedback = chunks[0].get("promptFeedback") or {}
    if "blockReason" in feedback and not chunks[0].get("candidates"):
        return {"blockReason": feedback["blockReason"]}
    parts = [
        p for c in chunks for cand in (c.get("candidates") or [])[:1] for p in cand.get("content", {}).get("parts", [])
    ]
    reasons = [
        cand["finishReason"] for c in chunks for cand in (c.get("candidates") or [])[:1] if "finishReason" in cand
    ]
    meaningful = [p for p in parts if not (set(p) <= {"text", "thoughtSignature"} and not p.get("text"))]
    entry: dict[str, Any]
    if meaningful and all(_is_call(p) for p in meaningful):
        entry = {
            "functionCall": [
                {"name": p["functionCall"]["name"], "args": p["functionCall"].get("args", {})} for p in meaningful
            ]
        }
    elif parts:
        entry = {"chunks": [dict(p) for p in parts]}
    else:
        entry = {"text": ""}
    if reasons and isinstance(reasons[-1], str) and reasons[-1] != "STOP":
        entry["finishReason"] = reasons[-1]
    usage = chunks[-1].get("usageMetadata") or {}
    carried = {k: usage[k] for k in CONTENT_USAGE if k in usage}
    if carried:
        entry["usage"] = carried
    if answer.error is not None:
        entry |= {"errorAfterChunks": len(chunks), "error": _error_name(answer.error)}
        entry.setdefault("chunks", [dict(p) for p in parts] or [""])
        entry.pop("functionCall", None)
    return entry


def plain_text(response: Response) -> bool:
    """A 200 whose every part is plain text (what the zero-config answer writes)."""
    if response.status != 200:
        return False
    try:
        answer = response.answer()
    except Exception:
        return False
    chunks = answer.chunks if answer.error is None else []
    parts = [p for c in chunks for cand in c.get("candidates") or [] for p in cand.get("content", {}).get("parts", [])]
    return bool(parts) and all(set(p) == {"text"} for p in parts)


def servable(request: Request, status: int) -> Request:
    """The request on a model the catalogue serves: a recorded success on a model since retired is asked
    again of gemini-2.5-flash (gemini-embedding-001 for embeddings); errors keep their model."""
    target = request.target
    if status != 200 or target is None or not target.model or target.model in catalogue.load().models:
        return request
    stand_in = (
        "gemini-embedding-001"
        if target.method in ("embedContent", "batchEmbedContents", "predict")
        else "gemini-2.5-flash"
    )
    path = request.path.replace(f"/models/{target.model}:", f"/models/{stand_in}:")
    body = request.body.replace(f'"models/{target.model}"', f'"models/{stand_in}"') if request.body else request.body
    return Request(request.method, path, request.query, request.auth, request.headers, body, request.recorded)
