"""Server prompt templates (Firebase AI Logic), per namespace: a SHARED set from the `--templates` file at start-up,
and each caller's own through the admin API (PUT /__emulator/templates); a call looks in its own namespace first,
then the shared one.

A template is given as Dotprompt source, `{"id": ..., "template": "---\\nmodel: ...\\n---\\n{{role ...}}..."}`, or in
its structured form, the frontmatter's keys as JSON fields and the body as `prompt`:
`{"id", "model", "config"?, "input"?: {"schema"?, "default"?}, "output"?: {"format"?, "schema"?}, "prompt"}`.
Both are parsed when set (stores/dotprompt.py); a template that cannot be served is refused then, with a
ValueError naming it.

`build` turns a template and a call's body (`inputs`, `history`, `tools`, `toolConfig`, as @firebase/ai 12.19 sends
them) into an ordinary GenerateContentRequest body: the rendered messages as `contents`, `system` messages as the
`systemInstruction`, the frontmatter's `config` (with `output`) as the `generationConfig`.

Bounds: MAX_TEMPLATE_BYTES per template, MAX_TEMPLATES per namespace, MAX_NAMESPACES namespaces (past it the one
set longest ago is forgotten); rendering is bounded by stores/dotprompt.py. Thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gemini_emulator.seam import SHARED
from gemini_emulator.stores import dotprompt
from gemini_emulator.stores.dotprompt import HistoryMark, MediaMark, RoleMark, TemplateError

MAX_TEMPLATE_BYTES = 64 << 10
MAX_TEMPLATES = 256  # per namespace
MAX_NAMESPACES = 1_000
MAX_ID_CHARS = 128
# Frontmatter keys: Dotprompt's reserved ones the emulator serves, and those it reads past (metadata only).
_SERVED_KEYS = frozenset({"model", "config", "input", "output"})
_IGNORED_KEYS = frozenset({"name", "description", "version", "variant", "ext", "metadata", "raw"})
_STRUCTURED_KEYS = _SERVED_KEYS | _IGNORED_KEYS | {"id", "prompt"}
REQUEST_FIELDS = ("inputs", "history", "tools", "toolConfig")  # a templateGenerateContent body's fields


class InputsError(ValueError):
    """A call's inputs break the template's input schema (or a render bound): the message says where."""


@dataclass(frozen=True)
class Template:
    """One parsed template, ready to render."""

    id: str
    model: str  # as the frontmatter names it, less a "googleai/" or "vertexai/" prefix
    config: dict[str, Any]  # the generationConfig it asks for (config, with output's format and schema)
    input_schema: dict[str, Any] | None  # JSON Schema (converted from Picoschema)
    defaults: dict[str, Any]
    nodes: list[dotprompt.Node]
    source: Any  # what was set, shown back by the admin API

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "model": self.model}


def valid_id(template_id: Any) -> bool:
    """A template id: 1 to MAX_ID_CHARS letters, digits, `-`, `_` or `.` (what fits one URL path segment)."""
    return (
        isinstance(template_id, str)
        and 0 < len(template_id) <= MAX_ID_CHARS
        and template_id.isascii()
        and all(c.isalnum() or c in "-_." for c in template_id)
        and template_id not in (".", "..")
    )


def parse(entry: Any) -> Template:
    """A template from its admin form (see the module docstring); ValueError naming what is wrong."""
    if not isinstance(entry, dict):
        raise ValueError('a template is an object: {"id", "template"} or {"id", "model", ..., "prompt"}')
    given_id = entry.get("id")
    if not isinstance(given_id, str) or not valid_id(given_id):
        raise ValueError(f"id: 1 to {MAX_ID_CHARS} letters, digits, '-', '_' or '.', not {str(given_id)[:80]!r}")
    template_id: str = given_id
    where = f"template {template_id}"
    size = _size(entry)
    if size > MAX_TEMPLATE_BYTES:
        raise ValueError(f"{where}: {size} bytes, more than the {MAX_TEMPLATE_BYTES} a template may hold")
    try:
        if "template" in entry:
            if entry.keys() - {"id", "template"}:
                raise TemplateError(f"with template (Dotprompt source) give only id; also given: {_extra(entry)}")
            source = entry["template"]
            if not isinstance(source, str):
                raise TemplateError("template: Dotprompt source text, a string")
            head, body = dotprompt.split_source(source)
            front = dotprompt.load_frontmatter(head)
        else:
            unknown = entry.keys() - _STRUCTURED_KEYS
            if unknown:
                raise TemplateError(
                    f"unknown field(s) {', '.join(sorted(unknown))}; known: template, or model,"
                    " config, input, output, prompt"
                )
            prompt = entry.get("prompt")
            if not isinstance(prompt, str):
                raise TemplateError("prompt: the template's body (Handlebars text), a string")
            body = prompt
            front = {k: v for k, v in entry.items() if k not in ("id", "prompt")}
        return _build(template_id, front, body, entry)
    except TemplateError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _extra(entry: dict[str, Any]) -> str:
    return ", ".join(sorted(entry.keys() - {"id", "template"}))


def _size(value: Any) -> int:
    """Bytes of text a template entry holds (its strings and keys), counted without printing it."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item.encode("utf-8", "surrogatepass"))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
            total += 2
        elif isinstance(item, list):
            stack.extend(item)
            total += 2
        else:
            total += 8
        if total > MAX_TEMPLATE_BYTES:
            break
    return total


def _build(template_id: str, front: dict[str, Any], body: str, source: Any) -> Template:
    unknown = sorted(k for k in map(str, front) if k not in _SERVED_KEYS | _IGNORED_KEYS and "." not in k)
    if "tools" in front or "toolDefs" in front:
        raise TemplateError("tools in the frontmatter are not supported (function declarations come with the call)")
    if unknown:
        raise TemplateError(f"unknown frontmatter key(s) {', '.join(unknown)}; known: model, config, input, output")
    model = front.get("model")
    if not isinstance(model, str) or not model.strip():
        raise TemplateError("model: the Gemini model the template runs on (model: 'gemini-2.5-flash') is required")
    model = model.strip()
    for prefix in ("googleai/", "vertexai/"):
        model = model.removeprefix(prefix)
    config = front.get("config", {}) or {}
    if not isinstance(config, dict):
        raise TemplateError("config: a mapping of generationConfig fields (temperature, maxOutputTokens, ...)")
    config = dict(config)
    schema, defaults = _input(front.get("input"))
    _output(front.get("output"), config)
    nodes = dotprompt.parse_body(body.strip())
    return Template(template_id, model, config, schema, defaults, nodes, source)


def _input(section: Any) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    if section is None:
        return None, {}
    if not isinstance(section, dict) or section.keys() - {"schema", "default"}:
        raise TemplateError("input: a mapping with schema (Picoschema or JSON Schema) and default")
    schema = dotprompt.to_json_schema(section["schema"], "input.schema") if section.get("schema") else None
    if schema is not None:
        dotprompt.check_schema(schema, "input.schema")
    defaults = section.get("default", {}) or {}
    if not isinstance(defaults, dict):
        raise TemplateError("input.default: a mapping of input names to values")
    return schema, defaults


def _output(section: Any, config: dict[str, Any]) -> None:
    """`output: {format: json|text, schema}` as generationConfig: JSON output with the schema as
    responseJsonSchema (the emulator's reading; Firebase's own mapping is not documented)."""
    if section is None:
        return
    if not isinstance(section, dict) or section.keys() - {"format", "schema"}:
        raise TemplateError("output: a mapping with format (json or text) and schema")
    kind = section.get("format", "json" if section.get("schema") else "text")
    if kind not in ("json", "text"):
        raise TemplateError(f"output.format: json or text, not {str(kind)[:40]!r}")
    if kind == "json":
        config.setdefault("responseMimeType", "application/json")
    if section.get("schema"):
        config.setdefault("responseJsonSchema", dotprompt.to_json_schema(section["schema"], "output.schema"))


def build(template: Template, body: dict[str, Any]) -> dict[str, Any]:
    """The GenerateContentRequest body a call (`body`: inputs, history, tools, toolConfig) on `template` makes;
    InputsError when its inputs break the input schema or the render passes a bound."""
    given = body.get("inputs") or {}
    inputs = {**template.defaults, **given}
    if template.input_schema is not None:
        problems = dotprompt.schema_problems(inputs, template.input_schema)
        if problems:
            raise InputsError("; ".join(problems))
    try:
        pieces = dotprompt.render(template.nodes, inputs)
    except TemplateError as exc:
        raise InputsError(str(exc)) from None
    history = body.get("history") or []
    system, contents = _messages(pieces, history if isinstance(history, list) else [])
    request: dict[str, Any] = {"contents": contents}
    if system:
        request["systemInstruction"] = {"role": "system", "parts": system}
    if template.config:
        request["generationConfig"] = template.config
    tools = body.get("tools")
    if tools:
        request["tools"] = _tools(tools)
    if body.get("toolConfig"):
        request["toolConfig"] = body["toolConfig"]
    return request


def _messages(pieces: list[dotprompt.Piece], history: list[Any]) -> tuple[list[Any], list[Any]]:
    """Dotprompt's toMessages (js/src/parse.ts): a role marker starts a message (or renames an empty one), the
    history marker puts the call's history there and opens a `model` message; without the marker the history goes
    before the last user message (insertHistory). Each message's text is trimmed at its ends (a guess)."""
    messages: list[tuple[str, Any, bool]] = []  # (role, parts; or the history's content as given, True)
    role = "user"
    parts: list[Any] = []
    placed = False

    def close() -> None:
        nonlocal parts
        trimmed = _trimmed(parts)
        if trimmed:
            messages.append((role, trimmed, False))
        parts = []

    for piece in pieces:
        if isinstance(piece, RoleMark):
            if _trimmed(parts):
                close()
            parts, role = [], piece.role
        elif isinstance(piece, HistoryMark):
            close()
            messages.extend((str(c.get("role", "user")), c, True) for c in history if isinstance(c, dict))
            placed, role = True, "model"
        elif isinstance(piece, MediaMark):
            parts.append(_media(piece))
        elif parts and isinstance(parts[-1], str):
            parts[-1] += piece
        else:
            parts.append(piece)
    close()
    if not placed and history:
        told = [(str(c.get("role", "user")), c, True) for c in history if isinstance(c, dict)]
        if messages and messages[-1][0] == "user":
            messages[-1:-1] = told
        else:
            messages.extend(told)
    system = [p for r, ps, told in messages if r == "system" and not told for p in ps]
    contents = [given if told else {"role": r, "parts": given} for r, given, told in messages if told or r != "system"]
    return system, contents


def _trimmed(parts: list[Any]) -> list[Any]:
    out: list[Any] = []
    for i, part in enumerate(parts):
        if isinstance(part, str):
            text = part
            if i == 0:
                text = text.lstrip()
            if i == len(parts) - 1:
                text = text.rstrip()
            if text.strip():
                out.append({"text": text})
        else:
            out.append(part)
    return out


def _media(mark: MediaMark) -> dict[str, Any]:
    """Dotprompt's media part as Gemini's: a data: URL inline, any other URL as fileData (google/dotprompt
    js/src/adapters/gemini.ts)."""
    if mark.url.startswith("data:"):
        head, _, data = mark.url.partition(",")
        mime = mark.content_type or head[5:].split(";")[0]
        return {"inlineData": {"mimeType": mime, "data": data}}
    return {"fileData": {"mimeType": mark.content_type or "application/octet-stream", "fileUri": mark.url}}


def _tools(tools: Any) -> Any:
    """The SDK's template tools (`templateFunctions: [{name, inputSchema}]`) as function declarations."""
    if not isinstance(tools, list):
        return tools
    out: list[Any] = []
    for tool in tools:
        if isinstance(tool, dict) and isinstance(tool.get("templateFunctions"), list):
            declarations = []
            for fn in tool["templateFunctions"]:
                if isinstance(fn, dict) and "inputSchema" in fn:
                    fn = {**{k: v for k, v in fn.items() if k != "inputSchema"}, "parameters": fn["inputSchema"]}
                declarations.append(fn)
            rest = {k: v for k, v in tool.items() if k != "templateFunctions"}
            out.append({**rest, "functionDeclarations": declarations})
        else:
            out.append(tool)
    return out


class TemplateStore:
    """Templates by namespace; `find` looks in the caller's, then in SHARED's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spaces: OrderedDict[str, dict[str, Template]] = OrderedDict()

    def set(self, namespace: str, entries: Any) -> list[Template]:
        """Replace `namespace`'s templates with `entries` (a list, or {"templates": [...]}); ValueError (nothing
        changed) when one cannot be served."""
        if isinstance(entries, dict) and entries.keys() == {"templates"}:
            entries = entries["templates"]
        elif isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise ValueError('expected a list of templates, one template, or {"templates": [...]}')
        if len(entries) > MAX_TEMPLATES:
            raise ValueError(f"{len(entries)} templates, more than the {MAX_TEMPLATES} a namespace may hold")
        parsed: dict[str, Template] = {}
        for entry in entries:
            template = parse(entry)
            if template.id in parsed:
                raise ValueError(f"template {template.id}: given twice")
            parsed[template.id] = template
        with self._lock:
            self._spaces.pop(namespace, None)
            if parsed:
                self._spaces[namespace] = parsed
                while len(self._spaces) > MAX_NAMESPACES:
                    self._spaces.popitem(last=False)
        return list(parsed.values())

    def listed(self, namespace: str) -> list[Template]:
        with self._lock:
            return list(self._spaces.get(namespace, {}).values())

    def namespaces(self) -> list[str]:
        with self._lock:
            return list(self._spaces)

    def remove(self, namespace: str, template_id: str) -> bool:
        """Forget one of `namespace`'s templates; False when it holds none by that id."""
        with self._lock:
            own = self._spaces.get(namespace)
            if not own or template_id not in own:
                return False
            del own[template_id]
            if not own:
                del self._spaces[namespace]
            return True

    def find(self, namespace: str, template_id: str) -> Template | None:
        with self._lock:
            own = self._spaces.get(namespace)
            found = own.get(template_id) if own else None
            if found is None and namespace != SHARED:
                shared = self._spaces.get(SHARED)
                found = shared.get(template_id) if shared else None
            return found

    def reset(self, namespace: str | None = None) -> None:
        """Forget a namespace's templates, or every namespace's but the shared (start-up) set."""
        with self._lock:
            if namespace is None:
                shared = self._spaces.get(SHARED)
                self._spaces.clear()
                if shared:
                    self._spaces[SHARED] = shared
            elif namespace != SHARED:
                self._spaces.pop(namespace, None)
