"""Generate docs/sdk-matrix.md from a run of the cross-SDK matrix: which SDK × call is covered and passing.

Reads the JUnit XML that `make sdk-matrix` collects in one folder: `python.xml` from pytest (matrix tests are
`tests/sdk/test_sdk_matrix_*.py::test_<call>[<SDK label>]`, and tests/sdk/test_py_extras.py's for the clients of
.venv-extras) and one `js-<file>.xml` per Node test file (a suite per SDK, a test case per call). Two tables, both
from tests/sdk_matrix.json: its `calls` (one request each) and its `resource_calls` (Files, cached contents, batches).
Nothing in a table is typed by hand: a cell is what the run reported, and a cell with no result is a call the SDK
does not offer (NO_SUCH_CALL, with its reason), one the matrix does not exercise (NOT_EXERCISED, with its reason),
or flagged as not run.

    python tools/gen_sdk_matrix.py build/sdk-matrix > docs/sdk-matrix.md
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = json.loads((ROOT / "tests" / "sdk_matrix.json").read_text(encoding="utf-8"))
CALLS: list[str] = SPEC["calls"]
RESOURCE_CALLS: list[str] = SPEC["resource_calls"]
MATRIX_MODULES = ("tests.test_sdk_matrix_", "tests.sdk.test_sdk_matrix_", "tests.sdk.test_py_extras")
JS_ORDER = ["genai", "firebase", "ai-sdk", "langchain"]  # js-<file>.xml rows follow this order, then the rest
PY_CASE = re.compile(r"^test_(?P<call>\w+)\[(?P<sdk>.+)\]$")

# Calls an SDK has no API for, by the start of its row label: these cells stay empty on purpose.
NO_SUCH_CALL = {
    "firebase/ai": {"embeddings": "firebase/ai has no embeddings API"},
    "@ai-sdk/google": {"count_tokens": "the AI SDK has no token-counting call"},
    "@langchain/google-genai": {"count_tokens": "getNumTokens counts locally (tiktoken), no countTokens request"},
    "openai": {"count_tokens": "Gemini's OpenAI-compatible surface has no token-counting call"},
    "google-genai (Python, Vertex)": {
        call: "google-genai's Files API is the Developer API's (the SDK refuses it on Vertex)"
        for call in ("files_upload", "files_use", "files_delete")
    },
    "llama-index": {
        "cache_create": "llama-index has no cache-creating call (its docs create one with google-genai)",
        "batches": "llama-index has no batch API",
    },
}
# Calls an SDK offers that the matrix does not exercise (yet), by the start of the row label.
NOT_EXERCISED: dict[str, dict[str, str]] = {
    "litellm": {"batches": "litellm's Gemini batches (OpenAI-shaped JSONL rows in a file) are not exercised yet"},
}

MARKS = {"passed": "✅", "failed": "❌", "skipped": "⏭️"}


@dataclass(frozen=True)
class Cell:
    outcome: str  # passed, failed or skipped
    message: str = ""


def _outcome(case: ET.Element) -> Cell:
    for tag in ("failure", "error"):
        if (child := case.find(tag)) is not None:
            return Cell("failed", child.get("message", ""))
    if (child := case.find("skipped")) is not None:
        return Cell("skipped", child.get("message", ""))
    return Cell("passed")


def read_results(folder: Path) -> tuple[dict[str, dict[str, Cell]], list[str]]:
    """Cells by SDK label and call, in row order; and the failures outside the matrix cells (a whole file)."""
    rows: dict[str, dict[str, Cell]] = {}
    broken: list[str] = []
    python = folder / "python.xml"
    if python.exists():
        for case in ET.parse(python).iter("testcase"):
            name, classname = case.get("name", ""), case.get("classname", "")
            cell = _outcome(case)
            m = PY_CASE.match(name)
            if classname.startswith(MATRIX_MODULES) and m:
                rows.setdefault(m["sdk"], {})[m["call"]] = cell
            elif cell.outcome == "failed":
                broken.append(f"{classname}::{name}")
    js_files = sorted(folder.glob("js-*.xml"), key=lambda p: _js_rank(p.stem.removeprefix("js-")))
    for path in js_files:
        for suite in ET.parse(path).iter("testsuite"):
            cases = [(case.get("name", "?"), _outcome(case)) for case in suite.findall("testcase")]
            if not any(name in CALLS or name in RESOURCE_CALLS for name, _ in cases):  # outside the matrix
                broken.extend(f"{path.stem}::{name}" for name, cell in cases if cell.outcome == "failed")
                continue
            for name, cell in cases:
                rows.setdefault(suite.get("name", "?"), {})[name] = cell
    return rows, broken


def _js_rank(stem: str) -> tuple[int, str]:
    return (JS_ORDER.index(stem) if stem in JS_ORDER else len(JS_ORDER), stem)


def _reason(table: dict[str, dict[str, str]], sdk: str, call: str) -> str | None:
    for prefix, calls in table.items():
        if sdk.startswith(prefix) and call in calls:
            return calls[call]
    return None


def _versions() -> list[str]:
    """The SDK versions the run used: Python packages from this environment, Node packages from the lock file."""
    lines = [f"- Python {sys.version.split()[0]}: " + ", ".join(_py_versions())]
    node = shutil.which("node")
    node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() if node else "?"
    lock = json.loads((ROOT / "tests" / "js" / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    wanted = lock[""]["dependencies"]
    pinned = [
        f"{name} → {spec.removeprefix('npm:')}" if spec.startswith("npm:") else f"{name} {spec}"
        for name, spec in sorted(wanted.items())
    ]
    lines.append(f"- Node {node_version}: " + ", ".join(pinned))
    return lines


def _py_versions() -> list[str]:
    out = []
    for package in ("google-genai", "langchain-google-genai", "langchain-core", "openai"):
        try:
            out.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            out.append(f"{package} (not installed)")
    extras = ROOT / "tests" / "py-extras" / "requirements.txt"  # .venv-extras: pinned there, one `name==version` a line
    for line in extras.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, version = line.split("#", 1)[0].strip().split("==", 1)
            out.append(f"{name} {version} (.venv-extras)")
    return out


def _table(
    rows: dict[str, dict[str, Cell]], calls: list[str], totals: dict[str, int], note: Callable[[str], str]
) -> list[str]:
    """One table: the rows with a result for any of `calls`, a cell per call."""
    table = ["| SDK | " + " | ".join(calls) + " |", "|---|" + "---|" * len(calls)]
    for sdk, cells in rows.items():
        if not any(call in cells for call in calls):
            continue
        marks = []
        for call in calls:
            cell = cells.get(call)
            if cell is not None:
                totals[cell.outcome] += 1
                mark = MARKS[cell.outcome]
                marks.append(mark + (note(cell.message) if cell.outcome == "skipped" and cell.message else ""))
            elif (reason := _reason(NO_SUCH_CALL, sdk, call)) is not None:
                marks.append("—" + note(reason))
            elif (reason := _reason(NOT_EXERCISED, sdk, call)) is not None:
                marks.append("·" + note(reason))
            else:
                marks.append("❔" + note("no result: the test did not run (see the failures below)"))
        table.append(f"| {sdk} | " + " | ".join(marks) + " |")
    return table


def render(rows: dict[str, dict[str, Cell]], broken: list[str]) -> str:
    notes: dict[str, int] = {}

    def note(text: str) -> str:
        return f"<sup>{notes.setdefault(text, len(notes) + 1)}</sup>"

    totals = {"passed": 0, "failed": 0, "skipped": 0}
    table = _table(rows, CALLS, totals, note)
    resources = _table(rows, RESOURCE_CALLS, totals, note)
    out = [
        "# SDK matrix",
        "",
        "<!-- Generated by `make sdk-matrix` (tools/gen_sdk_matrix.py) from the JUnit results of"
        " tests/sdk/test_sdk_matrix_*.py, tests/sdk/test_py_extras.py and tests/js/*.test.mjs."
        " Do not edit by hand. -->",
        "",
        "Every real client library against the emulator, one test per SDK × call, each with no script: the"
        " zero-config engine answers (function calls from the declarations, schema-valid JSON, embeddings)."
        " The prompts and checks shared by every SDK are in tests/sdk_matrix.json; calls listed under its"
        " `pending` key are skipped everywhere.",
        "",
        f"✅ passed, ❌ failed, ⏭️ skipped, — the SDK has no such call, · not exercised here. This run:"
        f" {totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped.",
        "",
        *table,
    ]
    if len(resources) > 2:
        out += [
            "",
            "## Resources",
            "",
            "The Gemini resources through each client that offers them (tests/sdk_matrix.json `resource_calls`):"
            " files_upload (the Files API upload the client makes), files_use (an uploaded file in generateContent),"
            " files_delete, cache_create (cachedContents create), cache_use (generateContent with cachedContent, its"
            " cachedContentTokenCount in usage), batches (a batch job to completion). Each cell checks the emulator's"
            " journal for the requests the client really sent.",
            "",
            *resources,
        ]
    out += ["", *[f"{number}. {text}" for text, number in notes.items()]]
    failed = [
        f"{sdk} × {call}: {cell.message}"
        for sdk, cells in rows.items()
        for call, cell in cells.items()
        if cell.outcome == "failed"
    ] + broken
    if failed:
        out += ["", "## Failures", "", *[f"- {line}" for line in failed]]
    out += ["", "## Versions", "", *_versions(), ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    rows, broken = read_results(Path(argv[0]))
    if not rows:
        print(f"no matrix results in {argv[0]}", file=sys.stderr)
        return 1
    sys.stdout.write(render(rows, broken))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
