"""Request validation: production's 400s for bodies that are not JSON, have unknown or mistyped
fields, or break the request's rules (empty contents, bad roles, empty parts); and the one place where
field names are normalised.

Known field names and types come from wire_fields.json, generated from the google-genai SDK's own
types (tools/gen_wire_fields.py), so no field a current SDK sends is refused. Like production's
parser, both lowerCamelCase and snake_case names are accepted, and enums take names or numbers.

The same walk that checks the fields hands back the body with every field name in its lowerCamelCase (JSON)
spelling, so that rules and engines read one spelling only (`body.get("generationConfig")`). Only names the
table knows as message fields are respelled: the keys of free-form values (function call args and responses,
Struct and Value fields such as `responseJsonSchema` and `parametersJsonSchema`, `labels`) and of maps (Schema
`properties`) are the caller's data and stay as sent. The body is never changed in place (the journal keeps
it as sent): a message whose names are all lowerCamelCase already is handed back as the same object. The usual
request, with nothing to refuse or respell, passes a quick test (`_clean`: no paths, no copies) and skips the walk;
tests/wire/test_quick_checks.py pins the two together.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import VERTEX

_DATA = Path(__file__).with_name("wire_fields.json")
MAX_DEPTH = 64
# Arrays and objects nested deeper than this anywhere (Struct values, function args included) are refused: the
# printers (orjson) stop at 255 levels, and protobuf's parsers at 100.
MAX_JSON_DEPTH = 100
OFF_LOOP_BYTES = 1 << 20  # a request body past this is parsed off the event loop (parsed_body)
# Parts over all of a request's contents: each costs the loop ~1 us to check, count and match, so 100,000 stay
# under a tenth of a second. A deliberate bound of the emulator's (production's, if any, is not captured).
MAX_PARTS = 100_000
# Objects and arrays in one request body, counted before it is parsed: orjson holds the interpreter for the whole
# parse (~0.3 us an object, in a worker thread too), so a 20 MB body of tiny objects held the loop for seconds.
MAX_CONTAINERS = 250_000
ROLES = frozenset({"user", "model", "function", ""})

_SCALARS = {
    "string": "TYPE_STRING",
    "bytes": "TYPE_BYTES",
    "int32": "TYPE_INT32",
    "int64": "TYPE_INT64",
    "uint32": "TYPE_UINT32",
    "float": "TYPE_FLOAT",
    "double": "TYPE_DOUBLE",
    "bool": "TYPE_BOOL",
    "duration": "TYPE_STRING",
    "timestamp": "TYPE_STRING",
}
_FLOAT_WORDS = frozenset({"NaN", "Infinity", "-Infinity"})
# Numbers written as strings, as proto3 JSON takes them: ASCII digits only (str.isdigit and float() would also take
# "²", "١", "inf" or "1_0", which no JSON number spells).
INTEGER_TEXT = re.compile(r"-?[0-9]+")
_NUMBER_TEXT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


# A value past its proto type's range is refused like a mistyped one: "Invalid value at 'generation_config.
# max_output_tokens' (TYPE_INT32), 2147483648" (best known: docs/conformance.md).
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1), "uint32": (0, 2**32 - 1)}


def int_text_ok(kind: str, text: str) -> bool:
    """An integer written as text (a query parameter, proto3 JSON's quoted int64) inside `kind`'s range; the
    length is checked first, so a 5,000-digit string is never converted."""
    if INTEGER_TEXT.fullmatch(text) is None or len(text.lstrip("-").lstrip("0")) > 20:
        return False
    low, high = INT_RANGES[kind]
    return low <= int(text) <= high


@dataclass(frozen=True)
class FieldSpec:
    proto: str
    kind: str
    type: str
    repeated: bool
    json: str  # the lowerCamelCase name: the one spelling rules and engines read


# The quick test (`_clean`) reads each message as a table of its lowerCamelCase names only (a snake_case name is a
# miss: the full walk respells it), each field as (the types its value is taken in as it is, the step that checks
# any other value, the sub-message's table, the types a repeated field's element is taken in as it is, the kind,
# the enum's names).
CleanTable = dict[str, "CleanField"]
CleanField = tuple[frozenset[type], int, CleanTable, frozenset[type], str, "frozenset[str] | None"]
_STEP_NONE, _STEP_MESSAGE, _STEP_MESSAGES, _STEP_SCALAR, _STEP_SCALARS, _STEP_MAP, _STEP_LIST, _STEP_ENUM = range(8)
_AS_IS: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "bytes": frozenset({str}),
    "duration": frozenset({str}),
    "timestamp": frozenset({str}),
    "bool": frozenset({bool}),
    "float": frozenset({int, float}),
    "double": frozenset({int, float}),
    "enum": frozenset({int}),
    "struct": frozenset({dict}),
    "value": frozenset({dict, list, str, int, float, bool}),
}
_NOTHING: frozenset[type] = frozenset()
_STEPS = {"scalar": _STEP_SCALAR, "message": _STEP_MESSAGE, "map": _STEP_MAP, "enum": _STEP_ENUM}
_REPEATED_STEPS = {"scalar": _STEP_SCALARS, "enum": _STEP_SCALARS, "message": _STEP_MESSAGES, "value": _STEP_LIST}


@dataclass(frozen=True)
class Schema:
    messages: dict[str, dict[str, FieldSpec]]  # both json and proto names map to the spec
    enums: dict[str, frozenset[str]]
    respelled: dict[str, dict[str, FieldSpec]]  # messages whose names are normalised but not checked
    clean: dict[str, CleanTable] = field(default_factory=dict)  # `messages` for the quick test (`_clean`)


# Requests wire_fields.json does not describe (their names are not checked: production's embedding parsers
# were never captured refusing one), whose names are still normalised: the embedding calls. (kind, type).
_RESPELLED: dict[str, dict[str, tuple[str, str]]] = {
    "EmbedContentRequest": {
        "model": ("string", ""),
        "content": ("message", "Content"),
        "taskType": ("string", ""),
        "title": ("string", ""),
        "outputDimensionality": ("int32", ""),
        "embedContentConfig": ("message", "EmbedContentConfig"),  # google-genai on Vertex AI
    },
    "EmbedContentConfig": {
        "taskType": ("string", ""),
        "title": ("string", ""),
        "outputDimensionality": ("int32", ""),
        "mimeType": ("string", ""),
        "autoTruncate": ("bool", ""),
    },
    "BatchEmbedContentsRequest": {"requests": ("message", "EmbedContentRequest")},
    "PredictRequest": {"instances": ("value", ""), "parameters": ("message", "PredictParameters")},
    "PredictParameters": {"outputDimensionality": ("int32", ""), "autoTruncate": ("bool", "")},
}
_REPEATED = frozenset({("BatchEmbedContentsRequest", "requests")})

# The resources' own messages (cached contents, batches), checked like the generate request: (kind, type,
# repeated). Names from the Gemini API reference (ai.google.dev/api/caching, /api/batch-mode); output-only
# fields are accepted and ignored, as production's parser takes them.
_STRING, _TIME = ("string", "", False), ("timestamp", "", False)
_RESOURCE_MESSAGES: dict[str, dict[str, tuple[str, str, bool]]] = {
    "CachedContent": {
        "name": _STRING,
        "displayName": _STRING,
        "model": _STRING,
        "systemInstruction": ("message", "Content", False),
        "contents": ("message", "Content", True),
        "tools": ("message", "Tool", True),
        "toolConfig": ("message", "ToolConfig", False),
        "createTime": _TIME,
        "updateTime": _TIME,
        "usageMetadata": ("value", "", False),
        "expireTime": _TIME,
        "ttl": ("duration", "", False),
        "kmsKeyName": _STRING,  # Vertex (customer-managed encryption)
        "encryptionSpec": ("value", "", False),
    },
    "BatchGenerateContentRequest": {"batch": ("message", "GenerateContentBatch", False)},
    # CancelBatchRequest / CancelBatchPredictionJobRequest: only the name the URL already gives.
    "CancelRequest": {"name": _STRING},
    "GenerateContentBatch": {
        "model": _STRING,
        "name": _STRING,
        "displayName": _STRING,
        "inputConfig": ("message", "InputConfig", False),
        "output": ("value", "", False),
        "createTime": _TIME,
        "endTime": _TIME,
        "updateTime": _TIME,
        "batchStats": ("value", "", False),
        "state": ("value", "", False),
        "priority": ("int64", "", False),
        "webhookConfig": ("value", "", False),
    },
    "ComputeTokensRequest": {
        "model": _STRING,
        "contents": ("message", "Content", True),
        "instances": ("value", "", True),
    },
    # Imagen's and Veo's PredictRequest: instances and parameters are google.protobuf.Value (the model reads them).
    "ImagenPredictRequest": {
        "instances": ("value", "", True),
        "parameters": ("value", "", False),
        "labels": ("struct", "", False),
    },
    "InputConfig": {"fileName": _STRING, "requests": ("message", "InlinedRequests", False)},
    "InlinedRequests": {"requests": ("message", "InlinedRequest", True)},
    "InlinedRequest": {"request": ("message", "GenerateContentRequest", False), "metadata": ("struct", "", False)},
    "AsyncBatchEmbedContentRequest": {"batch": ("message", "EmbedContentBatch", False)},
    "EmbedContentBatch": {
        "model": _STRING,
        "name": _STRING,
        "displayName": _STRING,
        "inputConfig": ("message", "InputEmbedContentConfig", False),
        "output": ("value", "", False),
        "createTime": _TIME,
        "endTime": _TIME,
        "updateTime": _TIME,
        "batchStats": ("value", "", False),
        "state": ("value", "", False),
        "priority": ("int64", "", False),
    },
    "InputEmbedContentConfig": {"fileName": _STRING, "requests": ("message", "InlinedEmbedContentRequests", False)},
    "InlinedEmbedContentRequests": {"requests": ("message", "InlinedEmbedContentRequest", True)},
    # The request inside is not checked (EmbedContentRequest: see _RESPELLED), only respelled.
    "InlinedEmbedContentRequest": {"request": ("value", "", False), "metadata": ("struct", "", False)},
}
_SNAKE = re.compile(r"(?<!^)([A-Z])")


def _both_spellings(fields: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
    table = dict(fields)
    table.update({spec.proto: spec for spec in fields.values()})
    return table


@cache
def schema() -> Schema:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    messages = {
        name: _both_spellings(
            {j: FieldSpec(f["proto"], f["kind"], f.get("type", ""), bool(f.get("repeated")), j) for j, f in t.items()}
        )
        for name, t in data["messages"].items()
    }
    for name, fields in _RESOURCE_MESSAGES.items():
        messages[name] = _both_spellings(
            {
                j: FieldSpec(_SNAKE.sub(r"_\1", j).lower(), kind, kind_type, repeated, j)
                for j, (kind, kind_type, repeated) in fields.items()
            }
        )
    respelled = {
        name: _both_spellings(
            {
                j: FieldSpec(_SNAKE.sub(r"_\1", j).lower(), kind, kind_type, (name, j) in _REPEATED, j)
                for j, (kind, kind_type) in fields.items()
            }
        )
        for name, fields in _RESPELLED.items()
    }
    # Enum names compare case-insensitively: production takes the lowercase schema types
    # ("object", "string") that firebase, ai-sdk 3 and LangChain send.
    enums = {k: frozenset(x.upper() for x in v) for k, v in data["enums"].items()}
    return Schema(messages, enums, respelled, _clean_tables(messages, enums))


def _clean_tables(messages: dict[str, dict[str, FieldSpec]], enums: dict[str, frozenset[str]]) -> dict[str, CleanTable]:
    """`messages` as the quick test reads them (see CleanField)."""
    tables: dict[str, CleanTable] = {name: {} for name in messages}
    for name, fields in messages.items():
        for key, spec in fields.items():
            if key != spec.json:
                continue
            kind, sub, names = spec.kind, tables.get(spec.type), enums.get(spec.type)
            step = (_REPEATED_STEPS if spec.repeated else _STEPS).get("scalar" if kind in _PLAIN else kind, _STEP_NONE)
            if sub is None and step in (_STEP_MESSAGE, _STEP_MESSAGES, _STEP_MAP):  # a message the table lacks
                step = _STEP_NONE
            each = _AS_IS.get(kind, _NOTHING)
            if kind == "enum" and names is None:  # any name is taken
                each, step = each | {str}, step if spec.repeated else _STEP_NONE
            as_is = _NOTHING if spec.repeated else each
            tables[name][key] = (as_is, step, {} if sub is None else sub, each, kind, names)
    return tables


async def parsed_body(raw: bytes) -> dict[str, Any]:
    """`parse_body`, in a worker thread for a body over OFF_LOOP_BYTES: a MiB of tiny objects costs ~0.1 s to
    parse and walk for nesting, which would hold every other caller on the event loop."""
    if len(raw) <= OFF_LOOP_BYTES:
        return parse_body(raw)
    return await asyncio.to_thread(parse_body, raw)


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object in a request body ({} when empty), or production's parse error; a body of more than
    MAX_CONTAINERS objects and arrays is refused before it is parsed."""
    check_containers(raw)
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if not raw.strip():  # an empty body, looked for only once JSON fails: the usual body is not
            return {}
        text = raw.decode("utf-8", "replace")
        start = max(0, exc.pos - 40)
        line_start = text.rfind("\n", 0, exc.pos) + 1
        start = max(start, line_start)
        snippet = text[start : exc.pos + 1].split("\n", 1)[0]
        raise errors.invalid_json(snippet, max(0, min(exc.pos, len(text)) - start)) from None
    if not isinstance(body, dict):
        raise errors.root_not_object()
    # Cheap tests first: nesting past the limit takes more brackets than that, and bytes.
    if len(raw) > MAX_JSON_DEPTH and raw.count(b"{") + raw.count(b"[") > MAX_JSON_DEPTH and nested_too_deeply(body):
        raise errors.too_deep()
    return body


def check_containers(raw: bytes | str) -> None:
    """The 400 for a JSON text of more than MAX_CONTAINERS objects and arrays, counted by its brackets (C-fast,
    before any parse), strings' brackets included."""
    if len(raw) <= MAX_CONTAINERS:
        return
    held = raw.count(b"{") + raw.count(b"[") if isinstance(raw, bytes) else raw.count("{") + raw.count("[")
    if held > MAX_CONTAINERS:
        raise errors.invalid_argument(
            f"gemini-emulator: a request body may hold at most {MAX_CONTAINERS} JSON objects and arrays (counted as "
            f"its '{{' and '[' bytes, inside strings too); this one holds {held}. Send fewer, larger parts, or long "
            "text as a file (files.upload)."
        )


def nested_too_deeply(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays and objects nest more than `limit` levels anywhere in `value`."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


class _Walker:
    def __init__(self, backend: str, version: str) -> None:
        self.schema = schema()
        self.backend, self.version = backend, version
        self.violations: list[tuple[str | None, str]] = []

    @property
    def type_prefix(self) -> str:  # only a violation's message needs it
        package = "google.cloud.aiplatform" if self.backend == VERTEX else "google.ai.generativelanguage"
        return f"type.googleapis.com/{package}.{self.version}."

    def message(self, value: dict[str, Any], name: str, path: str, depth: int) -> dict[str, Any]:
        """Check one message; hand it back with its field names normalised (the same object when they are)."""
        if depth > MAX_DEPTH:
            raise errors.too_deep()
        table = self.schema.messages.get(name)
        if table is None:  # a message the table does not describe: accept it as production might
            return value
        changed: dict[str, Any] | None = None  # sent name -> normalised value, for fields to respell or rebuild
        for key, item in value.items():
            spec = table.get(key)
            if spec is None:
                self.violations.append(errors.unknown_name(key, path))
                continue
            if key != spec.json:
                changed = changed if changed is not None else {}
                changed[key] = item
            if item is None:
                continue
            kind = spec.kind
            if spec.repeated:
                sub = f"{path}.{spec.proto}" if path else spec.proto
                if key == "tools" and not path and type(item) is dict:
                    # One Tool where the list is due is the list's only element: production accepted `tools`
                    # as a single object (2 pydantic-ai VCR recordings, Developer, 2025). Only `tools` is
                    # evidenced; other repeated fields keep production's invalid-value 400. The body as sent keeps
                    # its object (the journal, the script's `request` matchers read it): the list goes in the copy.
                    item = [item]
                    changed = changed if changed is not None else {}
                    changed[key] = item
                elif not isinstance(item, list):
                    self.violations.append(errors.invalid_value(sub, self._type_name(spec), _show(item)))
                    continue
                new = item
                for i, element in enumerate(item):
                    if kind in _PLAIN and _scalar_ok(kind, element, None):  # the common case, no path built
                        continue
                    if kind == "message" and type(element) is dict:  # contents, parts: straight to the walk
                        got = self.message(element, spec.type, f"{sub}[{i}]", depth + 1)
                    else:
                        got = self.value(element, spec, f"{sub}[{i}]", depth)
                    if got is not element:
                        new = new if new is not item else list(item)
                        new[i] = got
                if new is not item:
                    changed = changed if changed is not None else {}
                    changed[key] = new
            elif isinstance(item, list) and kind != "value":
                self.violations.append(errors.not_repeating(key, path))
            elif kind in _PLAIN and _scalar_ok(kind, item, None):
                continue
            else:
                got = self.value(item, spec, f"{path}.{spec.proto}" if path else spec.proto, depth)
                if got is not item:
                    changed = changed if changed is not None else {}
                    changed[key] = got
        return value if changed is None else _rebuilt(value, table, changed)

    def value(self, item: Any, spec: FieldSpec, path: str, depth: int) -> Any:
        """Check one non-repeated value; hand it back normalised (free-form values and scalars as they are)."""
        kind = spec.kind
        if kind in ("value",):
            return item
        if kind == "struct":
            if not isinstance(item, dict):
                self.violations.append(errors.invalid_value(path, "google.protobuf.Struct", _show(item)))
            return item
        if kind == "message":
            if isinstance(item, dict):
                return self.message(item, spec.type, path, depth + 1)
            self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))
            return item
        if kind == "map":
            if not isinstance(item, dict):
                self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))
                return item
            new = item
            for i, (name, sub) in enumerate(item.items()):  # the map's keys (property names) are the caller's
                if isinstance(sub, dict):
                    got = self.message(sub, spec.type, f"{path}[{i}].value", depth + 1)
                    if got is not sub:
                        new = new if new is not item else dict(item)
                        new[name] = got
                else:
                    self.violations.append(
                        errors.invalid_value(f"{path}[{i}].value", self._type_name(spec), _show(sub))
                    )
            return new
        if not _scalar_ok(kind, item, self.schema.enums.get(spec.type)):
            self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))
        return item

    def _type_name(self, spec: FieldSpec) -> str:
        if spec.kind in _SCALARS:
            return _SCALARS[spec.kind]
        return self.type_prefix + spec.type


_PLAIN = frozenset({"string", "bytes", "duration", "timestamp", "bool", "int32", "int64", "uint32", "float", "double"})


def _scalar_ok(kind: str, item: Any, enum_values: frozenset[str] | None) -> bool:
    if kind in ("string", "bytes", "duration", "timestamp"):
        return isinstance(item, str)
    if kind == "bool":
        return isinstance(item, bool)
    if kind in ("int32", "int64", "uint32"):
        if isinstance(item, bool):
            return False
        if isinstance(item, int):
            return INT_RANGES[kind][0] <= item <= INT_RANGES[kind][1]
        if isinstance(item, float):
            return item.is_integer() and INT_RANGES[kind][0] <= item <= INT_RANGES[kind][1]
        return isinstance(item, str) and int_text_ok(kind, item.strip())
    if kind in ("float", "double"):
        if isinstance(item, bool):
            return False
        if isinstance(item, int | float):
            return True
        if isinstance(item, str):
            return item in _FLOAT_WORDS or _NUMBER_TEXT.fullmatch(item.strip()) is not None
        return False
    if kind == "enum":
        if isinstance(item, int) and not isinstance(item, bool):
            return True
        return isinstance(item, str) and (enum_values is None or item.upper() in enum_values)
    return True


def _show(item: Any) -> str:
    return orjson.dumps(item).decode() if not isinstance(item, str) else f'"{item}"'


def _rebuilt(value: dict[str, Any], table: dict[str, FieldSpec], changed: dict[str, Any]) -> dict[str, Any]:
    """A copy of `value` with its field names in lowerCamelCase and the `changed` fields' new values, in the
    order sent. Sent in both spellings, the lowerCamelCase one wins (as production's parser would take one)."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        spec = table.get(key)
        name = spec.json if spec is not None else key
        if name != key and name in value:
            continue
        out[name] = changed.get(key, item)
    return out


def _clean(value: dict[str, Any], table: CleanTable, depth: int) -> bool:
    """True when the full walk (`_Walker.message`) would find nothing to refuse and nothing to respell in `value`
    (it would hand `value` itself back): every name lowerCamelCase and known, every value of its field's type. A
    quick test that builds no paths; False may also mean "not sure" (a type it does not know): the walk decides."""
    if depth > MAX_DEPTH:
        return False
    for key, item in value.items():
        entry = table.get(key)
        if entry is None:  # an unknown name, or one to respell
            return False
        if item is None:
            continue
        kind = type(item)
        if kind in entry[0]:
            continue
        step = entry[1]
        if step == _STEP_MESSAGE:
            if kind is not dict or not _clean(item, entry[2], depth + 1):
                return False
        elif step == _STEP_MESSAGES:
            if kind is not list:
                return False
            sub = entry[2]
            for element in item:
                if type(element) is not dict or not _clean(element, sub, depth + 1):
                    return False
        elif step == _STEP_ENUM:  # names compare case-insensitively (see `schema`)
            if kind is not str or item.upper() not in entry[5]:  # type: ignore[operator]
                return False
        elif step == _STEP_SCALAR:
            if not _scalar_ok(entry[4], item, None):  # never a list
                return False
        elif step == _STEP_SCALARS:
            if kind is not list:
                return False
            each = entry[3]
            for element in item:
                if type(element) not in each and not _scalar_ok(entry[4], element, entry[5]):
                    return False
        elif step == _STEP_MAP:
            if kind is not dict:
                return False
            sub = entry[2]
            for element in item.values():
                if type(element) is not dict or not _clean(element, sub, depth + 1):
                    return False
        elif step != _STEP_LIST or kind is not list:
            return False
    return True


def check_fields(body: dict[str, Any], message: str, backend: str, version: str, path: str = "") -> dict[str, Any]:
    """Unknown names and mistyped values anywhere in the body: one 400 listing every violation. Hands back the
    body with its field names normalised to lowerCamelCase (`body` itself is never changed); a request message
    the table does not check (the embedding calls) only has its names normalised. `path` names the body in
    violations when the body is one field of the request (a create's resource: `cached_content`). The usual body,
    with nothing to refuse or respell, passes a quick test (`_clean`) and is handed back as it is; any other gets
    the full walk (`walked`), which says what is wrong with it."""
    table = schema().clean.get(message)
    if table is not None and _clean(body, table, 0):
        return body
    return walked(body, message, backend, version, path)


def walked(body: dict[str, Any], message: str, backend: str, version: str, path: str = "") -> dict[str, Any]:
    """`check_fields` by the full walk alone, with no quick test first (tests pin the quick test to it)."""
    walker = _Walker(backend, version)
    if message not in walker.schema.messages:
        return respelled(body, message)
    normalised = walker.message(body, message, path, 0)
    if walker.violations:
        raise errors.payload_violations(walker.violations)
    return normalised


def check_message(value: dict[str, Any], message: str, path: str, backend: str, version: str) -> None:
    """Production's 400 for what is wrong in one field's `message` (`path` names it: "content",
    "requests[2].content"), for a request whose own message the table does not describe (the embedding calls)."""
    walker = _Walker(backend, version)
    walker.message(value, message, path, 1)
    if walker.violations:
        raise errors.payload_violations(walker.violations)


def extended(messages: dict[str, dict[str, dict[str, Any]]]) -> Schema:
    """The table with more messages (in wire_fields.json's shape; `proto` defaults to the snake_case name): the
    Live API's client messages (wire/live/fields.py), which reuse Content, Tool, GenerationConfig and the rest."""
    base = schema()
    added = {
        name: _both_spellings(
            {
                j: FieldSpec(
                    f.get("proto") or _SNAKE.sub(r"_\1", j).lower(),
                    f["kind"],
                    f.get("type", ""),
                    bool(f.get("repeated")),
                    j,
                )
                for j, f in table.items()
            }
        )
        for name, table in messages.items()
    }
    merged = base.messages | added
    return Schema(merged, base.enums, base.respelled, _clean_tables(merged, base.enums))


def walk(
    body: dict[str, Any], message: str, backend: str, version: str, table: Schema
) -> tuple[dict[str, Any], list[tuple[str | None, str]]]:
    """`check_fields` against `table` (see `extended`), handing back the violations instead of raising."""
    walker = _Walker(backend, version)
    walker.schema = table
    normalised = walker.message(body, message, "", 0)
    return normalised, walker.violations


def respelled(value: dict[str, Any], message: str, depth: int = 0) -> dict[str, Any]:
    """`value` (a `message`) with the field names the table knows in lowerCamelCase, checking nothing."""
    tables = schema()
    table = tables.messages.get(message) or tables.respelled.get(message)
    if table is None or depth > MAX_DEPTH:
        return value
    changed: dict[str, Any] | None = None
    for key, item in value.items():
        spec = table.get(key)
        if spec is None:
            continue
        new = item
        if spec.kind == "message" and type(item) is dict:
            new = respelled(item, spec.type, depth + 1)
        elif spec.kind == "message" and spec.repeated and type(item) is list:
            elements = [respelled(e, spec.type, depth + 1) if type(e) is dict else e for e in item]
            new = elements if any(a is not b for a, b in zip(elements, item, strict=True)) else item
        elif spec.kind == "map" and type(item) is dict:
            entries = {k: respelled(v, spec.type, depth + 1) if type(v) is dict else v for k, v in item.items()}
            new = entries if any(entries[k] is not v for k, v in item.items()) else item
        if key != spec.json or new is not item:
            changed = changed if changed is not None else {}
            changed[key] = new
    return value if changed is None else _rebuilt(value, table, changed)


def check_contents(contents: Any, message: str = "GenerateContentRequest") -> list[dict[str, Any]]:
    """The request's rules on contents: present, non-empty parts, roles from production's vocabulary."""
    return contents_checked(contents, message)[0]


# The names of a part that is plain text: a part with no others holds nothing the request's rules look into
# (function calls and responses, file uris).
TEXT_PART = frozenset({"text", "thought", "thoughtSignature"})


def contents_checked(contents: Any, message: str = "GenerateContentRequest") -> tuple[list[dict[str, Any]], bool]:
    """`check_contents`, and whether every part is plain text (names in TEXT_PART only): then the rules on
    function responses, thought signatures and file uris have nothing to look at."""
    if not contents:
        raise errors.contents_not_specified(message)
    if isinstance(contents, list):
        held = sum(len(c["parts"]) for c in contents if type(c) is dict and type(c.get("parts")) is list)
        if held > MAX_PARTS:
            raise errors.invalid_argument(
                f"gemini-emulator: a request may hold at most {MAX_PARTS} parts in its contents; this one holds {held}."
            )
    text_only = True
    for i, content in enumerate(contents):
        if not isinstance(content, dict):
            text_only = False
            continue
        if content.get("role", "") not in ROLES:
            raise errors.invalid_role()
        parts = content.get("parts")
        if not parts:
            raise errors.parts_empty(message, i)
        if text_only:
            for part in parts:
                if type(part) is not dict or not part.keys() <= TEXT_PART:
                    text_only = False
                    break
    return contents, text_only
