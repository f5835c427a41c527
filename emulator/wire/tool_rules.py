"""Production's 400s for tool use that cannot work, with the texts public issue threads quote:

- "Function calling config is set without function_declarations." (musistudio/claude-code-router#1207,
  Chevey339/kelivo#317);
- "* GenerateContentRequest.tools[i].function_declarations[j].name: Invalid function name. ..." (the 2026
  wording, with colons: lbjlaq/Antigravity-Manager#1440);
- "Please ensure that the number of function response parts is equal to the number of function call parts
  of the function call turn." (google-gemini/gemini-cli#4217 and many since). The function call turn is
  every model turn since the last user turn: pydantic-ai's VCR recordings (../shared/corpus, tool search,
  gemini-3-flash-preview, Developer) hold 4 requests with user, model(call A), model(call B), user(two
  responses), all answered 200; no recording shows the 400 for such a run.
"""

from __future__ import annotations

import re
from typing import Any

from gemini_emulator.protocol import errors

NO_DECLARATIONS = "Function calling config is set without function_declarations."
BAD_NAME = (
    "Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), "
    "underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
)
RESPONSE_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function call parts of "
    "the function call turn."
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]{0,63}")
# Function names that passed _NAME: clients declare the same tools on every call. At most _NAMES_MAX of them.
_GOOD_NAMES: set[str] = set()
_NAMES_MAX = 4096


def _parts(content: Any, camel: str) -> list[Any]:
    if not isinstance(content, dict):
        return []
    return [p for p in content.get("parts") or [] if isinstance(p, dict) and p.get(camel) is not None]


def _good_name(name: Any) -> bool:
    """A function name production takes (_NAME)."""
    if type(name) is str and name in _GOOD_NAMES:
        return True
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return False
    if len(_GOOD_NAMES) >= _NAMES_MAX:
        _GOOD_NAMES.clear()
    _GOOD_NAMES.add(name)
    return True


def check(body: dict[str, Any], text_only: bool = False) -> None:
    """Raise production's 400 for declarations, calling config and call/response pairing (`body` validated and
    normalised: emulator/wire/validate.py). `text_only`: every part of the contents is plain text
    (validate.contents_checked), so no function response asks to be paired."""
    tools = body.get("tools")
    declared = 0
    if tools:
        names_problems = []
        for t, tool in enumerate(tools):
            if not isinstance(tool, dict):
                continue
            for d, decl in enumerate(tool.get("functionDeclarations") or []):
                declared += 1
                name = decl.get("name") if isinstance(decl, dict) else None
                if not _good_name(name):
                    names_problems.append(f"tools[{t}].function_declarations[{d}].name: {BAD_NAME}")
        if names_problems:
            raise errors.field_errors("GenerateContentRequest.", names_problems)
    tool_config = body.get("toolConfig")
    if tool_config and isinstance(tool_config, dict) and tool_config.get("functionCallingConfig"):
        if not declared:
            raise errors.invalid_argument(NO_DECLARATIONS)
    if text_only:
        return
    contents = body.get("contents") or []
    for i, content in enumerate(contents):
        responses = _parts(content, "functionResponse")
        if not responses:
            continue
        calls: list[Any] = []
        j = i - 1
        while j >= 0 and isinstance(contents[j], dict) and contents[j].get("role") == "model":
            calls += _parts(contents[j], "functionCall")
            j -= 1
        if len(calls) != len(responses):
            raise errors.invalid_argument(RESPONSE_COUNT)
