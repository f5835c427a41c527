"""Script entries: what a test author says the model answers, and which request each entry answers.

One entry is one answer. The same JSON shape comes from a file (`--script`), the admin API and Python:

    {"name": "weather", "match": {"text": "weather", "model": "gemini-2.5-flash"}, "times": 1,
     "functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}

Answer kinds (exactly one): `text`, `chunks`, `functionCall`, `raw`, `error`, `replay` (a golden capture's
name or a glob: the recorded exchange that matches the request, engines/replay.py). Modifiers: `finishReason`,
`finishMessage`, `blockReason`, `safetyRatings`, `usage`, `delayMs` (before the first chunk), `chunkDelayMs`
(between chunks), `errorAfterChunks` (with `error`: HTTP 200, N chunks, then the error tail),
`dropAfterChunks`, `dropAfterBytes`, `truncateFinalEvent`, `image` (with `text`, `chunks` or alone: the images
an image model answers, see `entry_images`; on a TTS model `text` is what is spoken). `times`: a count, or
"forever". Matchers in
`match` (all must hold): `text`, `textRegex` (last user text), `system`, `systemRegex`, `request`,
`requestRegex` (the request JSON, as sent or with its field names in lowerCamelCase), `model`, `method`,
`hasTools`, `hasFunctionResponse`, `turn` (how many model turns the history already holds), and from Python
`predicate` (a callable on the GenerateRequest).

Regular expressions run on RE2 (google-re2), whose matching time grows linearly with the text: a pattern such
as `(a+)+$` cannot stall the server. RE2 has no backreferences or lookaround, and its `\\w`, `\\d` and `\\s` are
ASCII-only; an entry with a pattern RE2 cannot run is refused when it is posted. `delayMs` and `chunkDelayMs` are at
most MAX_DELAY_MS (five minutes).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import re2  # type: ignore[import-untyped]

from gemini_emulator.engines.synth.calls import has_function_response
from gemini_emulator.media import images
from gemini_emulator.protocol import errors
from gemini_emulator.seam import EntryError, GenerateRequest

ANSWER_KINDS = ("text", "chunks", "functionCall", "raw", "error", "replay")
FINISH_REASONS = frozenset(
    "FINISH_REASON_UNSPECIFIED STOP MAX_TOKENS SAFETY RECITATION LANGUAGE OTHER BLOCKLIST PROHIBITED_CONTENT SPII "
    "MALFORMED_FUNCTION_CALL IMAGE_SAFETY IMAGE_PROHIBITED_CONTENT IMAGE_OTHER NO_IMAGE IMAGE_RECITATION "
    "UNEXPECTED_TOOL_CALL TOO_MANY_TOOL_CALLS MISSING_THOUGHT_SIGNATURE MALFORMED_RESPONSE ESCALATION "
    "PUP_LIMITED_DISABLED CONTINUATION MODEL_ARMOR".split()
)  # google-genai 3.3.0 FinishReason (wire-facts §7)
BLOCK_REASONS = frozenset(
    "BLOCKED_REASON_UNSPECIFIED SAFETY OTHER BLOCKLIST PROHIBITED_CONTENT IMAGE_SAFETY MODEL_ARMOR JAILBREAK".split()
)
_STRING_MATCHERS = ("text", "textRegex", "system", "systemRegex", "request", "requestRegex", "model", "method")
_BOOL_MATCHERS = ("hasTools", "hasFunctionResponse")
_MODIFIERS = {
    "name",
    "match",
    "times",
    "finishReason",
    "finishMessage",
    "blockReason",
    "safetyRatings",
    "usage",
    "delayMs",
    "chunkDelayMs",
    "errorAfterChunks",
    "dropAfterChunks",
    "dropAfterBytes",
    "truncateFinalEvent",
    "image",
    "live",
}
# A Live API turn's own fields (the `live` object): what the wire's Live room (emulator/wire/live) does with them.
LIVE_FIELDS = {
    "inputTranscription": "a string: the transcription of the user's audio this turn answers",
    "outputTranscription": "a string: the transcription sent with the spoken answer (default: the answer's text)",
    "audio": "base64 of 24 kHz 16-bit mono PCM: the spoken answer (default: the answer's text, spoken)",
    "interrupted": "true: the answer stops halfway with serverContent.interrupted",
    "goAway": 'a duration such as "5s": goAway with that timeLeft after the turn, then the session ends',
    "cancelToolCalls": "true: toolCallCancellation for the calls still awaiting a response, before the answer",
    "drop": "true: the connection is cut (no close frame) after the turn",
}
FOREVER = -1
MAX_IMAGE_BYTES = 20 << 20  # one scripted image at most (production's inline request limit is 20 MB)
MAX_IMAGES = 8
MAX_DELAY_MS = 300_000  # delayMs and chunkDelayMs: five minutes at most
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the caller's 400, not a line on the server's stderr
_RE2_OPTIONS.max_mem = 8 << 20  # RE2's compiled-program budget per pattern (its default is 8 MiB too)


def compile_regex(pattern: str) -> Any:
    """`pattern` on RE2 (linear-time matching); raises re2.error for what RE2 cannot run."""
    return re2.compile(pattern, _RE2_OPTIONS)


REPLAY_MODIFIERS = frozenset({"name", "match", "times", "delayMs", "chunkDelayMs"})


@dataclass
class Match:
    """The conditions an entry's request must meet; an empty Match matches everything."""

    conditions: dict[str, Any] = field(default_factory=dict)
    predicate: Callable[[GenerateRequest], bool] | None = None
    _regexes: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for key in ("textRegex", "systemRegex", "requestRegex"):
            if key in self.conditions:
                self._regexes[key] = compile_regex(self.conditions[key])

    @property
    def empty(self) -> bool:
        return not self.conditions and self.predicate is None

    def failures(self, request: GenerateRequest, subject: Subject | None = None) -> list[str]:
        """Why `request` does not match: one phrase per failed condition (empty when it matches). `subject`
        holds the texts matched against, computed once per request however many entries are asked."""
        out: list[str] = []
        c = self.conditions
        s = subject or Subject(request)
        if "text" in c and c["text"].lower() not in s.text_lower:
            out.append(f"last user text does not contain {c['text']!r}")
        if "textRegex" in c and not self._regexes["textRegex"].search(s.text):
            out.append(f"last user text does not match /{c['textRegex']}/")
        if "system" in c or "systemRegex" in c:
            if "system" in c and c["system"].lower() not in s.system_lower:
                out.append(f"system instruction does not contain {c['system']!r}")
            if "systemRegex" in c and not self._regexes["systemRegex"].search(s.system):
                out.append(f"system instruction does not match /{c['systemRegex']}/")
        if "request" in c or "requestRegex" in c:
            wholes = s.wholes
            if "request" in c and not any(c["request"] in whole for whole in wholes):
                out.append(f"request JSON does not contain {c['request']!r}")
            if "requestRegex" in c and not any(self._regexes["requestRegex"].search(whole) for whole in wholes):
                out.append(f"request JSON does not match /{c['requestRegex']}/")
        if "model" in c and c["model"].removeprefix("models/") not in (request.model, request.requested_model):
            out.append(f"model is {request.requested_model}, not {c['model']}")
        if "method" in c and c["method"] != request.method:
            out.append(f"method is {request.method}, not {c['method']}")
        if "hasTools" in c and bool(request.tools) != c["hasTools"]:
            out.append("request has tools" if request.tools else "request has no tools")
        if "hasFunctionResponse" in c and has_function_response(request) != c["hasFunctionResponse"]:
            out.append("last turn is a function response" if not c["hasFunctionResponse"] else "no function response")
        if "turn" in c and model_turns(request) != c["turn"]:
            out.append(f"turn is {model_turns(request)}, not {c['turn']}")
        if self.predicate is not None:
            try:
                if not self.predicate(request):
                    out.append("predicate returned false")
            except Exception as exc:  # a broken predicate is a mismatch the author can read, not a 500
                out.append(f"predicate raised {type(exc).__name__}: {exc}")
        return out


class Subject:
    """The texts an entry's matchers read from one request, each computed on first use and then shared by every
    entry asked (500 `request` matchers serialise a 5 MiB body once, not 500 times)."""

    __slots__ = ("request", "_text", "_text_lower", "_system", "_system_lower", "_wholes")

    def __init__(self, request: GenerateRequest) -> None:
        self.request = request
        self._text: str | None = None
        self._text_lower: str | None = None
        self._system: str | None = None
        self._system_lower: str | None = None
        self._wholes: list[str] | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.request.last_user_text()
        return self._text

    @property
    def text_lower(self) -> str:
        if self._text_lower is None:
            self._text_lower = self.text.lower()
        return self._text_lower

    @property
    def system(self) -> str:
        if self._system is None:
            self._system = system_text(self.request)
        return self._system

    @property
    def system_lower(self) -> str:
        if self._system_lower is None:
            self._system_lower = self.system.lower()
        return self._system_lower

    @property
    def wholes(self) -> list[str]:
        """The request body as compact JSON: as sent (what the journal shows) and, when the wire respelled a field
        name, as normalised (lowerCamelCase). A `request` matcher holds on either, so one written in lowerCamelCase
        matches every SDK."""
        if self._wholes is None:
            sent = self.request.sent_body()
            self._wholes = [orjson.dumps(sent).decode()]
            if sent is not self.request.body:
                self._wholes.append(orjson.dumps(self.request.body).decode())
        return self._wholes


@dataclass
class Entry:
    """One scripted answer, validated."""

    spec: dict[str, Any]  # the entry as given (minus the Python predicate), for listings and the journal
    match: Match
    times: int = 1
    served: int = 0
    index: int = 0  # insertion order across the namespace, for stable listings

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or f"entry-{self.index}")

    @property
    def remaining(self) -> int:
        return FOREVER if self.times == FOREVER else self.times - self.served

    def describe(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "served": self.served,
            "remaining": "forever" if self.times == FOREVER else self.remaining,
            "entry": self.spec,
        }
        if self.match.predicate is not None:  # set from Python: not part of the JSON entry
            out["predicate"] = getattr(self.match.predicate, "__name__", "predicate")
        return out


def system_text(request: GenerateRequest) -> str:
    system = request.system_instruction
    if isinstance(system, dict):
        return "\n".join(p.get("text", "") for p in system.get("parts") or [] if isinstance(p, dict))
    return ""


def model_turns(request: GenerateRequest) -> int:
    return sum(1 for c in request.contents if isinstance(c, dict) and c.get("role") == "model")


def parse_entry(obj: Any, index: int | None = None, predicate: Callable[..., bool] | None = None) -> Entry:
    """Validate one entry; raises EntryError naming the entry (its index and name) and the field and what it should
    be."""
    try:
        return _parse_entry(obj, index, predicate)
    except EntryError as exc:
        name = obj.get("name") if isinstance(obj, dict) else None
        if isinstance(name, str) and name and exc.name is None:
            raise EntryError(exc.field, exc.expected, exc.index, name) from None
        raise


def _parse_entry(obj: Any, index: int | None, predicate: Callable[..., bool] | None) -> Entry:
    if not isinstance(obj, dict):
        raise EntryError("entry", "a JSON object", index)
    unknown = sorted(set(obj) - _MODIFIERS - set(ANSWER_KINDS))
    if unknown:
        allowed = ", ".join(sorted(_MODIFIERS | set(ANSWER_KINDS)))
        raise EntryError(unknown[0], f"not an entry field (allowed: {allowed})", index)
    # With errorAfterChunks the error is a fault after another answer's first chunks, not the answer itself.
    kinds = [k for k in ANSWER_KINDS if k in obj and not (k == "error" and "errorAfterChunks" in obj)]
    if len(kinds) > 1:
        raise EntryError(kinds[1], f"one answer kind per entry, and this one already has {kinds[0]!r}", index)
    if not kinds and not {"blockReason", "errorAfterChunks", "image", "live"} & set(obj):
        raise EntryError("entry", f"one of {', '.join(ANSWER_KINDS)} (or blockReason, or image)", index)
    if "image" in obj:
        if kinds and kinds[0] not in ("text", "chunks"):
            raise EntryError("image", f"goes with text or chunks (or alone), not with {kinds[0]!r}", index)
        entry_images(obj["image"], index)  # refused now, not when it is served
    _check_answer(obj, index)
    _check_modifiers(obj, index)
    match = _parse_match(obj.get("match", {}), index, predicate)
    times = obj.get("times", 1)
    if times == "forever":
        times = FOREVER
    elif not isinstance(times, int) or isinstance(times, bool) or times < 1:
        raise EntryError("times", 'a positive integer or "forever"', index)
    return Entry(spec=obj, match=match, times=times)


def _check_answer(obj: dict[str, Any], index: int | None) -> None:
    if "text" in obj and not isinstance(obj["text"], str):
        raise EntryError("text", "a string", index)
    if "chunks" in obj:
        chunks = obj["chunks"]
        if not isinstance(chunks, list) or not chunks:
            raise EntryError("chunks", "a non-empty list of strings or part objects", index)
        for i, chunk in enumerate(chunks):
            if not isinstance(chunk, str | dict):
                raise EntryError(f"chunks[{i}]", 'a string or a part object such as {"text": ...}', index)
            if isinstance(chunk, dict) and not isinstance(chunk.get("text", ""), str):
                raise EntryError(f"chunks[{i}].text", "a string", index)
    if "functionCall" in obj:
        calls = obj["functionCall"] if isinstance(obj["functionCall"], list) else [obj["functionCall"]]
        for i, call in enumerate(calls):
            where = f"functionCall[{i}]" if isinstance(obj["functionCall"], list) else "functionCall"
            if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
                raise EntryError(where, "an object with a non-empty string name, optional args and id", index)
            if not isinstance(call.get("args", {}), dict):
                raise EntryError(f"{where}.args", "a JSON object", index)
            if "id" in call and not isinstance(call["id"], str):
                raise EntryError(f"{where}.id", "a string", index)
    if "replay" in obj:
        if not isinstance(obj["replay"], str) or not obj["replay"]:
            raise EntryError("replay", 'a capture name or glob, e.g. "developer/*"', index)
        extra = sorted(set(obj) - REPLAY_MODIFIERS - {"replay"})
        if extra:
            allowed = ", ".join(sorted(REPLAY_MODIFIERS))
            raise EntryError(extra[0], f"a replay entry answers as recorded; it takes only {allowed}", index)
    if "raw" in obj:
        raw = obj["raw"]
        items = raw if isinstance(raw, list) else [raw]
        if not items or not all(isinstance(r, dict) for r in items):
            raise EntryError("raw", "a GenerateContentResponse object or a non-empty list of them", index)
        if isinstance(raw, list) and len(raw) > 1:  # served whole when streamed, merged into one when unary
            for i, item in enumerate(items):
                _check_raw_shape(item, f"raw[{i}]", index)
    if "error" in obj:
        error = obj["error"]
        if isinstance(error, str):
            if error not in errors.NAMES:
                names = ", ".join(sorted(errors.NAMES))
                raise EntryError("error", f"a catalogue name ({names}) or an object", index)
        elif isinstance(error, dict):
            code = error.get("code")
            if not isinstance(code, int) or isinstance(code, bool) or not 400 <= code <= 599:
                raise EntryError("error.code", "an HTTP status from 400 to 599", index)
            unknown = sorted(set(error) - {"code", "message", "status", "details"})
            if unknown:
                allowed = "not an error field (allowed: code, message, status, details)"
                raise EntryError(f"error.{unknown[0]}", allowed, index)
            for key in ("message", "status"):
                if not isinstance(error.get(key, ""), str):
                    raise EntryError(f"error.{key}", "a string", index)
            details = error.get("details", [])
            if not isinstance(details, list) or not all(isinstance(d, dict) for d in details):
                raise EntryError("error.details", "a list of detail objects", index)
        else:
            raise EntryError("error", "a catalogue name or an object with code, message, status, details", index)


def entry_images(value: Any, index: int | None = None) -> list[tuple[bytes, str]]:
    """An entry's `image` as (bytes, MIME type) pairs. It is one image or a list of up to MAX_IMAGES: a path to an
    image file, base64 image bytes (or a `data:` URL), or {"path": ...} / {"data": ..., "mimeType": ...}. The bytes
    must be an image (PNG, JPEG, WebP, GIF) of at most MAX_IMAGE_BYTES, else EntryError."""
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_IMAGES:
        raise EntryError("image", f"one image or a list of 1 to {MAX_IMAGES}", index)
    out = []
    for i, item in enumerate(items):
        where = f"image[{i}]" if isinstance(value, list) else "image"
        out.append(_one_image(item, where, index))
    return out


def _one_image(item: Any, where: str, index: int | None) -> tuple[bytes, str]:
    mime = None
    if isinstance(item, dict):
        unknown = sorted(set(item) - {"path", "data", "mimeType"})
        if unknown or ("path" in item) == ("data" in item):
            raise EntryError(where, 'an object with "path", or "data" (base64) and an optional "mimeType"', index)
        mime = item.get("mimeType")
        if mime is not None and not isinstance(mime, str):
            raise EntryError(f"{where}.mimeType", "a string", index)
        decoded = (
            _image_file(item["path"], where, index) if "path" in item else _image_base64(item["data"], where, index)
        )
        data = decoded or b""
    elif isinstance(item, str) and item:
        data = _image_base64(item, where, index, quiet=True) or _image_file(item, where, index)
    else:
        raise EntryError(where, "a path, base64 image bytes, or an object with path or data", index)
    sniffed = images.sniff_mime(data)
    if sniffed is None:
        raise EntryError(where, "the bytes of a PNG, JPEG, WebP or GIF image", index)
    return data, mime or sniffed


def _image_base64(text: Any, where: str, index: int | None, quiet: bool = False) -> bytes | None:
    if not isinstance(text, str):
        raise EntryError(where, "base64 text", index)
    payload = text.split(",", 1)[1] if text.startswith("data:") and "," in text else text
    if len(payload) > MAX_IMAGE_BYTES * 4 // 3 + 4:
        raise EntryError(where, f"an image of at most {MAX_IMAGE_BYTES} bytes", index)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        if quiet:
            return None
        raise EntryError(where, "base64 image bytes", index) from None
    if quiet and images.sniff_mime(data) is None:
        return None
    return data


def _image_file(path: Any, where: str, index: int | None) -> bytes:
    if not isinstance(path, str) or not path:
        raise EntryError(where, "a path to an image file", index)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise EntryError(where, f"a readable image file ({exc.strerror or 'cannot be read'})", index) from None
    if len(data) > MAX_IMAGE_BYTES:
        raise EntryError(where, f"an image of at most {MAX_IMAGE_BYTES} bytes", index)
    return data


def _check_raw_shape(item: dict[str, Any], where: str, index: int | None) -> None:
    """What a unary call reads to merge a raw list into one response: candidates, their content, its parts."""
    candidates = item.get("candidates", [])
    if not isinstance(candidates, list) or not all(isinstance(c, dict) for c in candidates):
        raise EntryError(f"{where}.candidates", "a list of candidate objects", index)
    for c, candidate in enumerate(candidates[:1]):
        content = candidate.get("content", {})
        if not isinstance(content, dict):
            raise EntryError(f"{where}.candidates[{c}].content", "a content object", index)
        parts = content.get("parts", [])
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            raise EntryError(f"{where}.candidates[{c}].content.parts", "a list of part objects", index)


def _check_modifiers(obj: dict[str, Any], index: int | None) -> None:
    # A list or an object is no reason either (and cannot be looked up in a set).
    if "finishReason" in obj and not (isinstance(obj["finishReason"], str) and obj["finishReason"] in FINISH_REASONS):
        raise EntryError("finishReason", f"one of {', '.join(sorted(FINISH_REASONS))}", index)
    if "blockReason" in obj and not (isinstance(obj["blockReason"], str) and obj["blockReason"] in BLOCK_REASONS):
        raise EntryError("blockReason", f"one of {', '.join(sorted(BLOCK_REASONS))}", index)
    for key in ("name", "finishMessage"):
        if key in obj and not isinstance(obj[key], str):
            raise EntryError(key, "a string", index)
    ratings = obj.get("safetyRatings", [])
    if not isinstance(ratings, list) or not all(isinstance(r, dict) for r in ratings):
        raise EntryError("safetyRatings", "a list of {category, probability} objects", index)
    if "usage" in obj and not isinstance(obj["usage"], dict):
        raise EntryError("usage", 'an object of usageMetadata fields, e.g. {"promptTokenCount": 10}', index)
    for key, value in obj.get("usage", {}).items():  # token counts are summed into totalTokenCount
        if key.endswith("Count") and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise EntryError(f"usage.{key}", "a whole number of tokens, 0 or more", index)
    for key in ("delayMs", "chunkDelayMs"):
        value = obj.get(key, 0)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= MAX_DELAY_MS:
            raise EntryError(key, f"a number of milliseconds from 0 to {MAX_DELAY_MS}", index)
    for key in ("errorAfterChunks", "dropAfterChunks", "dropAfterBytes"):
        if key in obj and (not isinstance(obj[key], int) or isinstance(obj[key], bool) or obj[key] < 0):
            raise EntryError(key, "a whole number, 0 or more", index)
    if "errorAfterChunks" in obj and "error" not in obj:
        raise EntryError("errorAfterChunks", "goes with error (the error sent after that many chunks)", index)
    if "truncateFinalEvent" in obj and not isinstance(obj["truncateFinalEvent"], bool):
        raise EntryError("truncateFinalEvent", "true or false", index)
    if "live" in obj:
        _check_live(obj["live"], index)
    faults = [k for k in ("errorAfterChunks", "dropAfterChunks", "dropAfterBytes", "truncateFinalEvent") if k in obj]
    if len(faults) > 1:
        raise EntryError(faults[1], f"one fault per entry, and this one already has {faults[0]!r}", index)


_DURATION = re2.compile(r"[0-9]+(\.[0-9]+)?s")


def _check_live(live: Any, index: int | None) -> None:
    if not isinstance(live, dict):
        raise EntryError("live", "an object of Live API turn fields (" + ", ".join(LIVE_FIELDS) + ")", index)
    for key, value in live.items():
        if key not in LIVE_FIELDS:
            raise EntryError(f"live.{key}", f"not a Live field (allowed: {', '.join(LIVE_FIELDS)})", index)
        if key in ("inputTranscription", "outputTranscription", "audio") and not isinstance(value, str):
            raise EntryError(f"live.{key}", LIVE_FIELDS[key], index)
        if key in ("interrupted", "cancelToolCalls", "drop") and not isinstance(value, bool):
            raise EntryError(f"live.{key}", LIVE_FIELDS[key], index)
        if key == "goAway" and not (isinstance(value, str) and _DURATION.fullmatch(value)):
            raise EntryError("live.goAway", LIVE_FIELDS[key], index)
        if key == "goAway" and float(value[:-1]) > MAX_DELAY_MS / 1000:
            raise EntryError("live.goAway", f"at most {MAX_DELAY_MS // 1000}s", index)
    if isinstance(live.get("audio"), str):
        try:
            base64.b64decode(live["audio"], validate=True)
        except (binascii.Error, ValueError):
            raise EntryError("live.audio", "base64 (standard alphabet) of 16-bit PCM", index) from None


def _parse_match(raw: Any, index: int | None, predicate: Callable[..., bool] | None) -> Match:
    if not isinstance(raw, dict):
        raise EntryError("match", "an object of conditions", index)
    for key, value in raw.items():
        if key in _STRING_MATCHERS:
            if not isinstance(value, str):
                raise EntryError(f"match.{key}", "a string", index)
            if key.endswith("Regex"):
                try:
                    compile_regex(value)
                except re2.error as exc:
                    reason = exc.args[0] if exc.args else exc
                    reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else reason
                    raise EntryError(
                        f"match.{key}", f"a regular expression RE2 can run (linear time; {reason})", index
                    ) from None
        elif key in _BOOL_MATCHERS:
            if not isinstance(value, bool):
                raise EntryError(f"match.{key}", "true or false", index)
        elif key == "turn":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise EntryError("match.turn", "a whole number of earlier model turns, 0 or more", index)
        else:
            known = ", ".join((*_STRING_MATCHERS, *_BOOL_MATCHERS, "turn"))
            raise EntryError(f"match.{key}", f"not a matcher (known: {known}; predicate from Python)", index)
    if predicate is not None and not callable(predicate):
        raise EntryError("match.predicate", "a callable taking the request", index)
    return Match(dict(raw), predicate)


def parse_entries(payload: Any, predicate: Callable[..., bool] | None = None) -> list[Entry]:
    """Entries from one entry, a list of entries, or {"entries": [...]}: all valid, or an EntryError.
    `predicate` (from Python) becomes an extra matcher of every entry."""
    if isinstance(payload, dict) and set(payload) == {"entries"}:
        payload = payload["entries"]
    if isinstance(payload, dict):
        return [parse_entry(payload, predicate=predicate)]
    if not isinstance(payload, list):
        raise EntryError("script", 'an entry object, a list of entries, or {"entries": [...]}')
    return [parse_entry(item, index=i, predicate=predicate) for i, item in enumerate(payload)]
