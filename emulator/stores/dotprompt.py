"""Server prompt templates as Firebase AI Logic writes them: Dotprompt source (YAML frontmatter between `---` lines,
then a Handlebars body), parsed once when a template is set and rendered per call in linear time.

The body grammar is the subset Dotprompt's helpers and Handlebars' built-ins give (google/dotprompt js/src/helpers.ts,
parse.ts): `{{path}}` and `{{{path}}}` (never HTML-escaped, as Dotprompt compiles with noEscape), comments
`{{! }}` / `{{!-- --}}`, `~` whitespace control, the helpers `role "system"|"user"|"model"`, `history`,
`media url=... contentType=...`, `json value`, and the blocks `#if`, `#unless`, `#each` (`this`, `@index`, `@key`,
`@first`, `@last`), `#with`, `#ifEquals a b`, `#unlessEquals a b`, each with an optional `{{else}}`. Anything else
is refused when the template is set (Dotprompt compiles with knownHelpersOnly).

Rendering yields text and markers as separate pieces, not marker strings in the text, so an input that holds
`<<<dotprompt:role:system>>>` stays text. Bounds: MAX_DEPTH nested blocks, MAX_NODES parsed nodes, MAX_STEPS
nodes visited and MAX_RENDERED characters per render (a `#each` inside a `#each` over big inputs stops there).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import re2  # type: ignore[import-untyped]
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError

MAX_DEPTH = 32  # nested blocks
MAX_NODES = 20_000  # nodes of one parsed body
MAX_STEPS = 200_000  # nodes visited by one render
MAX_RENDERED = 1 << 20  # characters one render produces
ROLES = ("system", "user", "model")
BLOCKS = ("if", "unless", "each", "with", "ifEquals", "unlessEquals")


class TemplateError(ValueError):
    """A template that cannot be parsed, or a render that cannot finish: the message says where and why."""


# --- the body's syntax tree -------------------------------------------------------------------------


@dataclass(frozen=True)
class Path:
    """A value looked up in the render context: `this`, `a.b`, `@index`."""

    parts: tuple[str, ...]  # () is `this`
    data: bool = False  # an @-variable (@index, @key, @first, @last)


@dataclass(frozen=True)
class Literal:
    value: Any


Arg = Path | Literal


@dataclass
class Var:
    path: Path


@dataclass
class Helper:
    name: str  # role, history, media, json
    args: list[Arg]
    hash: dict[str, Arg]


@dataclass
class Block:
    name: str
    args: list[Arg]
    body: list[Node] = field(default_factory=list)
    inverse: list[Node] = field(default_factory=list)


Node = str | Var | Helper | Block


@dataclass(frozen=True)
class RoleMark:
    role: str


@dataclass(frozen=True)
class HistoryMark:
    pass


@dataclass(frozen=True)
class MediaMark:
    url: str
    content_type: str


Piece = str | RoleMark | HistoryMark | MediaMark


# --- frontmatter --------------------------------------------------------------------------------


def split_source(source: str) -> tuple[str, str]:
    """(frontmatter, body) of Dotprompt source: blank lines and `#` lines may come before the first `---`; no
    frontmatter gives ("", source). Line by line, no regular expression."""
    lines = source.splitlines(keepends=True)
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
        if lines[i].strip() == "---":
            break
        i += 1
    if i >= len(lines) or lines[i].strip() != "---":
        return "", source
    for j in range(i + 1, len(lines)):
        if lines[j].strip() == "---":
            return "".join(lines[i + 1 : j]), "".join(lines[j + 1 :])
    raise TemplateError("the frontmatter opened with --- is never closed by a --- line")


def load_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter's YAML as a mapping (JSON is YAML, and is read without PyYAML). YAML anchors and aliases
    are refused: an alias can expand a small frontmatter into a huge value."""
    if not text.strip():
        return {}
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        try:
            loaded = json.loads(text)
        except ValueError:
            raise TemplateError(
                "YAML frontmatter needs PyYAML (pip install gemini-emulator[yaml]); without it, write the"
                " frontmatter as JSON or give the template in its structured form"
            ) from None
    else:
        try:
            for event in yaml.parse(text, Loader=yaml.SafeLoader):
                if isinstance(event, yaml.AliasEvent):
                    raise TemplateError("the frontmatter uses a YAML alias (*name); write the value out")
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise TemplateError(f"the frontmatter is not valid YAML ({_one_line(str(exc))})") from None
        except RecursionError:
            raise TemplateError("the frontmatter is nested too deeply") from None
    if not isinstance(loaded, dict):
        raise TemplateError("the frontmatter must be a mapping of keys (model, config, input, output)")
    return loaded


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


# --- Picoschema and the JSON Schema subset inputs are checked with ------------------------------------

_SCALARS = ("any", "boolean", "integer", "null", "number", "string")
_JSON_TYPES = (*_SCALARS, "object", "array")


def to_json_schema(schema: Any, where: str, depth: int = 0) -> dict[str, Any]:
    """A Picoschema (google/dotprompt js/src/picoschema.ts) or JSON Schema as JSON Schema. Named schemas are
    refused: the emulator has no schema registry."""
    if depth > MAX_DEPTH:
        raise TemplateError(f"{where}: nested too deeply")
    if isinstance(schema, str):
        return _scalar(schema, where)
    if isinstance(schema, dict):
        if schema.get("type") in _JSON_TYPES or isinstance(schema.get("properties"), dict):
            return {**schema, "type": schema.get("type", "object")}
        return _pico_object(schema, where, depth)
    raise TemplateError(f"{where}: a schema is a mapping or a type name, not {json.dumps(schema)[:80]}")


def _scalar(text: str, where: str) -> dict[str, Any]:
    kind, _, description = text.partition(",")
    kind, description = kind.strip(), description.strip()
    if kind not in _SCALARS:
        raise TemplateError(f"{where}: unknown type {kind!r} (named schemas are not supported)")
    out: dict[str, Any] = {} if kind == "any" else {"type": kind}
    if description:
        out["description"] = description
    return out


def _pico_object(obj: dict[str, Any], where: str, depth: int) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    for key, value in obj.items():
        key = str(key)
        if key == "(*)":
            schema["additionalProperties"] = _pico_value(value, f"{where}.(*)", depth + 1)
            continue
        name, paren, rest = key.partition("(")
        optional = name.endswith("?")
        name = name.removesuffix("?")
        if not optional:
            required.append(name)
        at = f"{where}.{name}"
        if not paren:
            prop = _pico_value(value, at, depth + 1)
            if optional and isinstance(prop.get("type"), str):
                prop["type"] = [prop["type"], "null"]
        else:
            kind, _, description = rest.removesuffix(")").partition(",")
            kind = kind.strip()
            if kind == "array":
                prop = {"type": ["array", "null"] if optional else "array", "items": _pico_value(value, at, depth + 1)}
            elif kind == "object":
                prop = _pico_value(value, at, depth + 1)
                if optional:
                    prop["type"] = [prop.get("type", "object"), "null"]
            elif kind == "enum":
                if not isinstance(value, list):
                    raise TemplateError(f"{at}: an enum lists its values")
                prop = {"enum": [*value, *([None] if optional and None not in value else [])]}
            else:
                raise TemplateError(f"{at}: parenthetical types must be object, array or enum, not {kind!r}")
            if description.strip():
                prop["description"] = description.strip()
        properties[name] = prop
    if required:
        schema["required"] = required
    return schema


def _pico_value(value: Any, where: str, depth: int) -> dict[str, Any]:
    if isinstance(value, str):
        return _scalar(value, where)
    if isinstance(value, dict):
        return to_json_schema(value, where, depth)
    raise TemplateError(f"{where}: Picoschema holds only mappings and type names")


def _re2_pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """`pattern` in linear time (RE2): a template's schema is the user's, its inputs anyone's."""
    if validator.is_type(instance, "string") and isinstance(pattern, str) and not _compiled(pattern).search(instance):
        yield ValidationError(f"{instance[:100]!r} does not match {pattern[:100]!r}")


def _re2_pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        compiled = _compiled(pattern)
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    try:
        return re2.compile(pattern)
    except re2.error:
        raise TemplateError(f"input schema: {pattern[:100]!r} is no RE2 pattern") from None


# JSON Schema 2020-12 (the jsonschema package) with RE2 for the two keywords that take a regex; no remote $ref is
# ever fetched (jsonschema's referencing resolves only what the schema holds).
InputValidator = validators.extend(
    Draft202012Validator, {"pattern": _re2_pattern, "patternProperties": _re2_pattern_properties}
)


def check_schema(schema: dict[str, Any], where: str) -> None:
    """A TemplateError naming `where` when `schema` is no JSON Schema, or names a pattern RE2 cannot run."""
    try:
        InputValidator.check_schema(schema)
    except SchemaError as exc:
        raise TemplateError(f"{where}: {exc.message[:300]}") from None
    for pattern in _patterns(schema):
        _compiled(pattern)


def _patterns(schema: Any) -> Iterator[str]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            if isinstance(node.get("patternProperties"), dict):
                yield from (k for k in node["patternProperties"] if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def schema_problems(value: Any, schema: dict[str, Any], path: str = "inputs", limit: int = 10) -> list[str]:
    """Where `value` breaks `schema` (JSON Schema 2020-12), at most `limit` problems, each at its JSON path."""
    problems = []
    for error in itertools.islice(InputValidator(schema).iter_errors(value), limit):
        at = path + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        problems.append(f"{at}: {error.message[:300]}")
    return problems


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or _is_number(a) and _is_number(b) and a == b


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


# --- the body: tokens, then a tree --------------------------------------------------------------------


def parse_body(source: str) -> list[Node]:
    """The body as a tree, or a TemplateError naming the first problem (with its line)."""
    root: list[Node] = []
    stack: list[tuple[Block, list[Node], int]] = []  # open blocks, the list to go back to, their line
    current = root
    count = 0
    pos, size = 0, len(source)
    strip_next = False  # the last tag ended with ~: leading whitespace of the next text goes
    while pos < size:
        start = source.find("{{", pos)
        text = source[pos:] if start < 0 else source[pos:start]
        if strip_next:
            text = text.lstrip()
        if start >= 0 and source.startswith("{{~", start) or start >= 0 and source.startswith("{{{~", start):
            text = text.rstrip()
        if text:
            current.append(text)
        if start < 0:
            break
        line = source.count("\n", 0, start) + 1
        if source.startswith("{{!--", start):
            end = source.find("--}}", start + 5)
            if end < 0:
                raise TemplateError(f"line {line}: a {{{{!-- comment is never closed by --}}}}")
            pos, strip_next = end + 4, False
            continue
        triple = source.startswith("{{{", start)
        close = "}}}" if triple else "}}"
        end = source.find(close, start + len(close))
        if end < 0:
            raise TemplateError(f"line {line}: a tag opened with {'{{{' if triple else '{{'} is never closed")
        inner = source[start + len(close) : end]
        pos = end + len(close)
        strip_next = inner.endswith("~")
        inner = inner.strip("~").strip()
        count += 1
        if count > MAX_NODES:
            raise TemplateError(f"more than {MAX_NODES} tags")
        if inner.startswith("!"):
            continue
        if not inner:
            raise TemplateError(f"line {line}: an empty tag")
        if inner.startswith("#"):
            words = _words(inner[1:], line)
            head = words[0] if words else None
            name = head.parts[0] if isinstance(head, Path) and not head.data and len(head.parts) == 1 else ""
            if name not in BLOCKS:
                raise TemplateError(f"line {line}: unknown block helper #{name} (known: {', '.join(BLOCKS)})")
            args, hashed = _args(words[1:], line)
            _arity(name, args, hashed, line)
            if len(stack) >= MAX_DEPTH:
                raise TemplateError(f"line {line}: blocks nested deeper than {MAX_DEPTH}")
            block = Block(name, args)
            current.append(block)
            stack.append((block, current, line))
            current = block.body
            continue
        if inner.startswith("/"):
            name = inner[1:].strip()
            if not stack or stack[-1][0].name != name:
                expected = f"{{{{/{stack[-1][0].name}}}}}" if stack else "no closing tag"
                raise TemplateError(f"line {line}: {{{{/{name}}}}} closes nothing open here (expected {expected})")
            _block, current, _ = stack.pop()
            continue
        if inner == "else" or inner == "^":
            if not stack or current is not stack[-1][0].body:
                raise TemplateError(f"line {line}: {{{{else}}}} outside a block")
            current = stack[-1][0].inverse
            continue
        if inner.startswith(("^", ">", "&", "*", "#>")):
            raise TemplateError(f"line {line}: {{{{{inner[:1]}...}}}} is not supported (partials, inverse sections)")
        words = _words(inner, line)
        head = words[0]
        if isinstance(head, Path) and not head.data and len(head.parts) == 1 and head.parts[0] in _HELPERS:
            name = head.parts[0]
            args, hashed = _args(words[1:], line)
            _arity(name, args, hashed, line)
            current.append(Helper(name, args, hashed))
        elif isinstance(head, Path) and len(words) == 1:
            current.append(Var(head))
        else:
            raise TemplateError(f"line {line}: {{{{{inner[:40]}}}}} calls an unknown helper")
    if stack:
        block, _, line = stack[-1]
        raise TemplateError(f"line {line}: {{{{#{block.name}}}}} is never closed")
    return root


_HELPERS = ("role", "history", "media", "json", "section")


def _arity(name: str, args: list[Arg], hashed: dict[str, Arg], line: int) -> None:
    wanted = {"if": 1, "unless": 1, "each": 1, "with": 1, "ifEquals": 2, "unlessEquals": 2, "json": 1, "role": 1}
    if name in wanted and len(args) != wanted[name]:
        raise TemplateError(f"line {line}: {name} takes {wanted[name]} argument(s), got {len(args)}")
    if name == "role":
        role = args[0]
        if not isinstance(role, Literal) or role.value not in ROLES:
            raise TemplateError(f'line {line}: role takes "system", "user" or "model"')
    if name == "history" and (args or hashed):
        raise TemplateError(f"line {line}: history takes no arguments")
    if name == "media" and ("url" not in hashed or args or not hashed.keys() <= {"url", "contentType"}):
        raise TemplateError(f"line {line}: media takes url= and, optionally, contentType=")
    if name == "section":
        raise TemplateError(f"line {line}: section is not supported by server prompt templates")


def _words(text: str, line: int) -> list[Arg | tuple[str, Arg]]:
    """The words of a tag: paths, literals, and key=value pairs (as tuples); quoted strings keep their spaces."""
    words: list[Arg | tuple[str, Arg]] = []
    i, size = 0, len(text)
    while i < size:
        if text[i].isspace():
            i += 1
            continue
        j = i
        while j < size and not text[j].isspace() and text[j] not in "\"'=":
            j += 1
        if j < size and text[j] == "=":
            key = text[i:j]
            value, i = _word(text, j + 1, line)
            words.append((key, value))
            continue
        value, i = _word(text, i, line)
        words.append(value)
    return words


def _word(text: str, i: int, line: int) -> tuple[Arg, int]:
    if i < len(text) and text[i] in "\"'":
        quote = text[i]
        end = text.find(quote, i + 1)
        if end < 0:
            raise TemplateError(f"line {line}: an unclosed {quote} string")
        return Literal(text[i + 1 : end]), end + 1
    j = i
    while j < len(text) and not text[j].isspace():
        j += 1
    return _value(text[i:j], line), j


def _value(word: str, line: int) -> Arg:
    if word in ("true", "false"):
        return Literal(word == "true")
    if word in ("null", "undefined"):
        return Literal(None)
    if word[:1].isdigit() or word[:1] == "-" and word[1:2].isdigit():
        try:
            return Literal(int(word) if word.lstrip("-").isdigit() else float(word))
        except ValueError:
            raise TemplateError(f"line {line}: {word!r} is not a number") from None
    if word.startswith("@"):
        if word not in ("@index", "@key", "@first", "@last"):
            raise TemplateError(f"line {line}: unknown data variable {word}")
        return Path((word[1:],), data=True)
    if word.startswith("../") or "/" in word or "[" in word:
        raise TemplateError(f"line {line}: {word!r}: parent paths and segment literals are not supported")
    if word in ("this", "."):
        return Path(())
    parts = tuple(word.removeprefix("this.").split("."))
    if not all(p and (p[0].isalpha() or p[0] == "_") for p in parts):
        raise TemplateError(f"line {line}: {word!r} is not a name")
    return Path(parts)


def _args(words: list[Arg | tuple[str, Arg]], line: int) -> tuple[list[Arg], dict[str, Arg]]:
    args: list[Arg] = []
    hashed: dict[str, Arg] = {}
    for word in words:
        if isinstance(word, tuple):
            hashed[word[0]] = word[1]
        elif hashed:
            raise TemplateError(f"line {line}: positional arguments come before key=value ones")
        else:
            args.append(word)
    return args, hashed


# --- rendering -------------------------------------------------------------------------------------


@dataclass
class _Frame:
    this: Any
    data: dict[str, Any]


class _Budget:
    __slots__ = ("steps", "chars")

    def __init__(self) -> None:
        self.steps = 0
        self.chars = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TemplateError(f"rendering visits more than {MAX_STEPS} template nodes (nested #each over inputs?)")

    def text(self, text: str) -> str:
        self.chars += len(text)
        if self.chars > MAX_RENDERED:
            raise TemplateError(f"the rendered prompt passes {MAX_RENDERED} characters")
        return text


def render(nodes: list[Node], inputs: dict[str, Any]) -> list[Piece]:
    """The body rendered with `inputs`: text pieces and markers, in order (TemplateError past a bound)."""
    out: list[Piece] = []
    budget = _Budget()
    # An explicit stack of (nodes, index, frames): no recursion, whatever the nesting.
    todo: list[tuple[list[Node], int, list[_Frame]]] = [(nodes, 0, [_Frame(inputs, {})])]
    while todo:
        body, index, frames = todo.pop()
        if index >= len(body):
            continue
        todo.append((body, index + 1, frames))
        node = body[index]
        budget.step()
        if isinstance(node, str):
            out.append(budget.text(node))
        elif isinstance(node, Var):
            out.append(budget.text(_text(_lookup(node.path, frames))))
        elif isinstance(node, Helper):
            out.append(_helper(node, frames, budget))
        else:
            _block(node, frames, todo, budget)
    return out


def _lookup(arg: Arg, frames: list[_Frame]) -> Any:
    if isinstance(arg, Literal):
        return arg.value
    frame = frames[-1]
    if arg.data:
        return frame.data.get(arg.parts[0])
    value = frame.this
    for part in arg.parts:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _truthy(value: Any) -> bool:
    """Handlebars' truth: false, null, "", 0 and [] are false (an empty object is true)."""
    if isinstance(value, list):
        return bool(value)
    return value is not None and value is not False and value != "" and not (_is_number(value) and value == 0)


def _text(value: Any) -> str:
    """A value as Handlebars prints it: nothing for null, true/false, numbers as JavaScript does, arrays joined by
    commas, objects as [object Object]."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return ",".join(_text(v) for v in value[:10_000])
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _helper(node: Helper, frames: list[_Frame], budget: _Budget) -> Piece:
    if node.name == "role":
        return RoleMark(str(_lookup(node.args[0], frames)))
    if node.name == "history":
        return HistoryMark()
    if node.name == "media":
        url = _lookup(node.hash["url"], frames)
        kind = _lookup(node.hash["contentType"], frames) if "contentType" in node.hash else ""
        if not isinstance(url, str) or not url:
            raise TemplateError("media: url= is empty or not a string")
        budget.text(url)
        return MediaMark(url, kind if isinstance(kind, str) else "")
    value = _lookup(node.args[0], frames)  # json
    try:
        return budget.text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        raise TemplateError("json: the value cannot be written as JSON") from None


def _block(node: Block, frames: list[_Frame], todo: list[tuple[list[Node], int, list[_Frame]]], b: _Budget) -> None:
    name = node.name
    if name in ("if", "unless", "ifEquals", "unlessEquals"):
        if name in ("if", "unless"):
            holds = _truthy(_lookup(node.args[0], frames)) == (name == "if")
        else:
            a, c = _lookup(node.args[0], frames), _lookup(node.args[1], frames)
            holds = _same(a, c) == (name == "ifEquals")
        todo.append((node.body if holds else node.inverse, 0, frames))
        return
    value = _lookup(node.args[0], frames)
    if name == "with":
        if _truthy(value):
            todo.append((node.body, 0, [_Frame(value, {})]))
        else:
            todo.append((node.inverse, 0, frames))
        return
    items: list[tuple[Any, Any]]  # each: (key or index, value)
    if isinstance(value, list):
        items = list(enumerate(value))
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        items = []
    if not items:
        todo.append((node.inverse, 0, frames))
        return
    b.steps += len(items)
    if b.steps > MAX_STEPS:
        raise TemplateError(f"rendering visits more than {MAX_STEPS} template nodes (nested #each over inputs?)")
    last = len(items) - 1
    for i in range(last, -1, -1):  # pushed last first: popped in order
        key, item = items[i]
        data = {"index": i, "key": key, "first": i == 0, "last": i == last}
        todo.append((node.body, 0, [_Frame(item, data)]))
