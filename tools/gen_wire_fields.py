"""Generate emulator/wire/wire_fields.json: the wire request messages of generateContent / countTokens.

Dev-only tool (needs google-genai; the emulator never imports it). Walks google-genai's pydantic
models in types.py, guided by the `_X_to_mldev` / `_X_to_vertex` converters in models.py (they
decide which fields are sent and under which wire name), and writes the table. `--check-corpus`
then validates every real request body in the shared corpus against it (exit 1 on any miss).

    python tools/gen_wire_fields.py [--check-corpus] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import ast
import datetime
import enum
import inspect
import json
import re
import sys
import typing
from pathlib import Path
from types import UnionType
from typing import Any

import google.genai
import pydantic
from google.genai import models as sdk_models
from google.genai import types as T

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "emulator" / "wire" / "wire_fields.json"
CORPUS = ROOT.parent / "shared" / "corpus"  # the raw corpus, beside the repo (CI has it; a bare clone does not)
# Wire message -> SDK sources: (SDK class, "to" = fields its converter writes into its own dict,
# "parent" = fields the config converter hoists into the enclosing request body).
ROOTS = {
    "GenerateContentRequest": [("GenerateContentParameters", "to"), ("GenerateContentConfig", "parent")],
    "CountTokensRequest": [("CountTokensParameters", "to"), ("CountTokensConfig", "parent")],
    # Wire GenerationConfig = types.GenerationConfig + what GenerateContentConfig writes into it.
    "GenerationConfig": [("GenerationConfig", "to"), ("GenerateContentConfig", "to")],
}
WIRE_NAME = {"GenerateContentConfig": "GenerationConfig"}  # SDK-only wrapper -> wire message
_CONTENTS = {"kind": "message", "type": "Content", "repeated": True}
# Annotations that do not tell the wire type (t_contents / t_tools convert them). Other unions
# (system_instruction: Content | str | Part ..., speech_config: str | SpeechConfig) resolve to
# their first pydantic model, which is what the transformers produce.
TYPE_OVERRIDE = {
    ("GenerateContentConfig", "tools"): {"kind": "message", "type": "Tool", "repeated": True},
    ("GenerateContentParameters", "contents"): _CONTENTS,
    ("CountTokensParameters", "contents"): _CONTENTS,
}
# Fields of raw-dumped SDK models that never go on the wire as such.
NOT_SENT = {("GenerationConfig", "model_selection_config")}  # converters send it as modelConfig
# Scalar kinds the SDK annotation cannot tell (it says int / float / str).
_SIZES = [f"{a}_{b}" for a in ("min", "max") for b in ("items", "length", "properties")]
KIND_OVERRIDE = {("Schema", f): "int64" for f in _SIZES}
for _key in [
    ("Schema", "minimum"),
    ("Schema", "maximum"),
    ("LatLng", "latitude"),
    ("LatLng", "longitude"),
    ("VideoMetadata", "fps"),
    ("PartialArg", "number_value"),
]:
    KIND_OVERRIDE[_key] = "double"
# google.protobuf.Duration (js-genai sends streamableHttpTransport.timeout "10s"). Other str offsets
# (Transcription, WordInfo, AudioMetadata) stay "string": unsure, and string is the lenient choice.
for _key in [
    ("VideoMetadata", "start_offset"),
    ("VideoMetadata", "end_offset"),
    ("StreamableHttpTransport", "timeout"),
    ("StreamableHttpTransport", "sse_read_timeout"),
]:
    KIND_OVERRIDE[_key] = "duration"
SCALAR = {bool: "bool", int: "int32", float: "float", str: "string", bytes: "bytes", datetime.datetime: "timestamp"}
# Real request fields the SDK types lack (json name -> entry; proto name is derived).
EXTRA: dict[str, dict[str, dict[str, Any]]] = {
    # Proto field the Python SDK keeps in the URL; GAPIC clients (langchaingo) put it in the body.
    "GenerateContentRequest": {"model": {"kind": "string"}},
    "CountTokensRequest": {
        "model": {"kind": "string"},
        # firebase/ai (googleai backend) sends {generateContentRequest: {model, contents}}.
        "generateContentRequest": {"kind": "message", "type": "GenerateContentRequest"},
        "instances": {"kind": "value", "repeated": True},  # Vertex CountTokensRequest.instances
    },
    # @ai-sdk/google convertJSONSchemaToOpenAPISchema copies JSON-Schema allOf/oneOf into
    # responseSchema / parameters. (SDK Schema already has nullable, title and propertyOrdering,
    # whose proto name property_ordering is what the Python SDK sends.)
    "Schema": {
        "allOf": {"kind": "message", "type": "Schema", "repeated": True},
        "oneOf": {"kind": "message", "type": "Schema", "repeated": True},
    },
}
Conv = dict[str, tuple[str, list[str]] | None]


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def sdk_class(name: str) -> Any:
    """SDK pydantic class by converter name (request parameter classes are private: `_X`)."""
    return getattr(T, name, None) or getattr(T, "_" + name)


def converters() -> dict[tuple[str, str], Conv]:
    """(SDK class, backend) -> {source field: (target dict, wire path), or None if it raises}."""
    table: dict[tuple[str, str], Conv] = {}
    for fn in ast.parse(inspect.getsource(sdk_models)).body:
        m = isinstance(fn, ast.FunctionDef) and re.fullmatch(r"_(\w+)_to_(mldev|vertex)", fn.name)
        if not m:
            continue
        fields: Conv = table.setdefault((m[1], m[2]), {})
        for node in fn.body:  # `if getv(from_object, [src]) is not None: setv(target, [path], ...)`
            getv = getattr(getattr(node, "test", None), "left", None)
            if not (isinstance(node, ast.If) and getattr(getattr(getv, "func", None), "id", "") == "getv"):
                continue
            src, stmt = ".".join(e.value for e in getv.args[1].elts), node.body[0]
            if isinstance(stmt, ast.Raise):  # backend does not support it
                fields.setdefault(src, None)
            elif isinstance(stmt, ast.Expr) and getattr(stmt.value.func, "id", "") == "setv":
                target, path = stmt.value.args[0].id, [e.value for e in stmt.value.args[1].elts]
                fields[src] = ("parent" if target == "parent_object" else "to", path)
    return table


class Builder:
    def __init__(self) -> None:
        self.conv = converters()
        self.messages: dict[str, dict[str, dict[str, Any]]] = {}
        self.enums: dict[str, list[str]] = {}
        self.todo = ["GenerateContentRequest", "CountTokensRequest"]

    def spec(self, owner: str, name: str, ann: Any) -> dict[str, Any]:
        """Wire kind of one SDK field annotation (owner = wire message, name = proto field)."""
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin is typing.Annotated:
            return self.spec(owner, name, args[0])
        if origin in (typing.Union, UnionType):
            opts = [a for a in args if a is not type(None)]
            models = [a for a in opts if inspect.isclass(a) and issubclass(a, pydantic.BaseModel)]
            return self.spec(owner, name, (models or opts)[0])
        if origin is typing.Literal:  # inline SDK enum: name it <Message>.<Field>
            ename = f"{owner}.{name.title().replace('_', '')}"
            self.enums[ename] = [str(a) for a in args]
            return {"kind": "enum", "type": ename}
        if origin is list:
            return {**self.spec(owner, name, args[0] if args else Any), "repeated": True}
        if origin is dict:
            val = args[1] if args else Any
            if inspect.isclass(val) and issubclass(val, pydantic.BaseModel):
                return {"kind": "map", "type": self.ref(val.__name__)}
            return {"kind": "struct"}  # dict[str, Any] (Struct) and map<string, string> (labels)
        if ann is Any or ann is object:
            return {"kind": "value"}
        if inspect.isclass(ann) and issubclass(ann, enum.Enum):
            self.enums[ann.__name__] = [str(m.value) for m in ann]
            return {"kind": "enum", "type": ann.__name__}
        if inspect.isclass(ann) and issubclass(ann, pydantic.BaseModel):
            return {"kind": "message", "type": self.ref(ann.__name__)}
        if ann in SCALAR:
            return {"kind": KIND_OVERRIDE.get((owner, name), SCALAR[ann])}
        raise TypeError(f"{owner}.{name}: unhandled annotation {ann!r}")

    def ref(self, sdk_name: str) -> str:
        """Wire message name for an SDK model, queued for building."""
        wire = WIRE_NAME.get(sdk_name, sdk_name)
        if wire not in self.messages and wire not in self.todo:
            self.todo.append(wire)
        return wire

    def sent_fields(self, cls_name: str, target: str) -> dict[str, tuple[str, str]]:
        """wire json name -> (SDK field, proto name) for what either backend sends of cls."""
        out: dict[str, tuple[str, str]] = {}
        for backend in ("mldev", "vertex"):
            conv = self.conv.get((cls_name, backend))
            if conv is None:  # no converter for this backend: the pydantic model is dumped raw
                for fname, f in sdk_class(cls_name).model_fields.items() if target == "to" else ():
                    if (cls_name, fname) not in NOT_SENT:
                        out.setdefault(f.alias or fname, (fname, fname))
                continue
            for src, dest in conv.items():
                # Skip raises, other targets, URL parts, and nested writes like
                # imageOutputOptions.mimeType (whose parent field is sent on its own as well).
                if dest and dest[0] == target and not dest[1][0].startswith("_") and len(dest[1]) == 1:
                    out.setdefault(dest[1][0], (src, snake(dest[1][0])))
        return out

    def message(self, wire: str) -> None:
        fields: dict[str, dict[str, Any]] = self.messages.setdefault(wire, {})
        for cls_name, target in ROOTS.get(wire) or [(wire, "to")]:
            cls = sdk_class(cls_name)
            for json_name, (src, proto) in self.sent_fields(cls_name, target).items():
                if json_name not in fields and src in cls.model_fields:
                    spec = TYPE_OVERRIDE.get((cls_name, src)) or self.spec(
                        wire, proto, cls.model_fields[src].annotation
                    )
                    fields[json_name] = {"proto": proto, **spec}
        for json_name, spec in EXTRA.get(wire, {}).items():
            fields.setdefault(json_name, {"proto": snake(json_name), **spec})
            if "type" in spec and spec["kind"] != "enum":
                self.ref(spec["type"])

    def build(self) -> dict[str, Any]:
        while self.todo:
            self.message(self.todo.pop(0))
        for fields in self.messages.values():
            for f in fields.values():
                f.setdefault("repeated", False)
        return {
            "source": f"google-genai {google.genai.__version__} types.py",
            "messages": self.messages,
            "enums": self.enums,
        }


# ---------------------------------------------------------------------------- corpus check
VERB_ROOT = {
    "generateContent": "GenerateContentRequest",
    "streamGenerateContent": "GenerateContentRequest",
    "countTokens": "CountTokensRequest",
}
_AGE = {"age": {"type": "integer", "nullable": False, "minimum": -(2**53 - 1), "maximum": 2**53 - 1}}
# Bodies described in shared/research/sdk-wire.md ("Request-body quirks"), not stored verbatim.
SDK_WIRE_SAMPLES: list[tuple[str, str, Any]] = [
    (
        "py pydantic schema",
        "GenerateContentRequest",
        {
            "generationConfig": {
                "responseSchema": {
                    "type": "OBJECT",
                    "title": "P",
                    "property_ordering": ["age"],
                    "properties": {"a": {}},
                }
            }
        },
    ),
    (
        "firebase / langchain schema",
        "GenerateContentRequest",
        {
            "generationConfig": {
                "stopSequences": [],
                "responseSchema": {"type": "object", "nullable": False, "properties": _AGE},
            },
            "safetySettings": [],
        },
    ),
    (
        "firebase countTokens",
        "CountTokensRequest",
        {
            "generateContentRequest": {
                "model": "models/gemini-2.5-flash",
                "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            }
        },
    ),
    (
        "ai-sdk 4",
        "GenerateContentRequest",
        {
            "generationConfig": {"responseJsonSchema": {"$schema": "x"}},
            "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
    ),
]


def bodies(corpus: Path) -> typing.Iterator[tuple[str, str, Any]]:
    """(origin, root message, body) for every generateContent / countTokens request body stored."""

    def root_of(url: str) -> str | None:
        return VERB_ROOT.get(url.split("?")[0].rsplit(":", 1)[-1])

    for path in sorted(corpus.rglob("*.httprr")):  # "httprr trace v1\n" then "<qlen> <rlen>\n" req resp
        data = path.read_bytes()
        pos = data.index(b"\n") + 1
        while pos < len(data):
            eol = data.index(b"\n", pos)
            qlen, rlen = map(int, data[pos:eol].split())
            head, _, body = data[eol + 1 : eol + 1 + qlen].partition(b"\r\n\r\n")
            pos = eol + 1 + qlen + rlen
            if (root := root_of(head.split(b" ")[1].decode())) and body.strip():
                yield str(path.relative_to(corpus)), root, json.loads(body)

    def walk(node: Any, origin: str) -> typing.Iterator[tuple[str, str, Any]]:
        """js-genai recordings ({url, bodySegments}) and vercel wrappers ({url, body})."""
        if isinstance(node, dict) and isinstance(node.get("url"), str) and (root := root_of(node["url"])):
            body = node.get("body")
            yield from ((origin, root, s) for s in node.get("bodySegments") or ([body] if body else []))
        for child in node.values() if isinstance(node, dict) else node if isinstance(node, list) else ():
            yield from walk(child, origin)

    for path in sorted(corpus.rglob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except ValueError:  # a few hand-edited mock responses are not JSON; none holds a request
            continue
        yield from walk(doc, str(path.relative_to(corpus)))
        if path.name == "open-api-schema.json":  # firebase request-side Schema sample
            yield str(path.relative_to(corpus)), "Schema", doc
    yield from ((f"sdk-wire.md: {n}", r, b) for n, r, b in SDK_WIRE_SAMPLES)


def check(table: dict[str, Any], msg: str, obj: Any, path: str, misses: list[str]) -> None:
    """Append every unknown field or wrongly shaped value under obj (a `msg` message) to misses."""
    if not isinstance(obj, dict):
        misses.append(f"{path}: expected {msg} object, got {type(obj).__name__}")
        return
    fields = table["messages"][msg]
    by_name = {**{f["proto"]: f for f in fields.values()}, **fields}  # both names are accepted
    for key, val in obj.items():
        f, where = by_name.get(key), f"{path}.{key}" if path else key
        if f is None:
            misses.append(f"{where}: unknown field in {msg}")
            continue
        if f["repeated"] and not isinstance(val, list):
            misses.append(f"{where}: expected list")
        for i, v in enumerate(val if f["repeated"] and isinstance(val, list) else [val]):
            sub, kind = f"{where}[{i}]" if f["repeated"] else where, f["kind"]
            if kind == "message":
                check(table, f["type"], v, sub, misses)
            elif kind == "map" and isinstance(v, dict):
                for k, item in v.items():
                    check(table, f["type"], item, f"{sub}.{k}", misses)
            elif kind == "enum" and not isinstance(v, int) and v not in table["enums"][f["type"]]:
                # firebase, ai-sdk 3 and langchain send lowercase Schema types ("object"), which
                # production accepts: reported as a note, not a miss.
                upper = {e.upper() for e in table["enums"][f["type"]]}
                note = "note: case-insensitive match, " if str(v).upper() in upper else ""
                misses.append(f"{note}{sub}: {v!r} not in enum {f['type']}")
            elif kind in ("string", "bytes", "duration", "timestamp") and not isinstance(v, str):
                misses.append(f"{sub}: expected string, got {v!r}")
            elif kind == "bool" and not isinstance(v, bool):
                misses.append(f"{sub}: expected bool, got {v!r}")
            elif kind in ("int32", "int64", "float", "double") and (
                isinstance(v, bool) or not isinstance(v, int | float | str)
            ):
                misses.append(f"{sub}: expected number, got {v!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check-corpus", action="store_true", help="also validate corpus request bodies")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the raw corpus (default: ../shared/corpus)")
    args = ap.parse_args()
    if args.check_corpus and not args.corpus.is_dir():
        print(f"--check-corpus needs the raw corpus: no folder {args.corpus} (pass --corpus DIR)", file=sys.stderr)
        return 2
    table = Builder().build()
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    n_fields = sum(len(f) for f in table["messages"].values())
    counts = f"{len(table['messages'])} messages, {n_fields} fields, {len(table['enums'])} enums"
    print(f"wrote {OUT.relative_to(ROOT)}: {counts}")
    if not args.check_corpus:
        return 0
    found: list[str] = []
    samples = list(bodies(args.corpus))
    for origin, root, body in samples:
        problems: list[str] = []
        check(table, root, body, "", problems)
        found += [f"{origin}: {m}" for m in problems]
    misses = [m for m in found if ": note: " not in m]
    print(f"checked {len(samples)} request bodies: {len(misses)} misses", *sorted(set(found)), sep="\n")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
