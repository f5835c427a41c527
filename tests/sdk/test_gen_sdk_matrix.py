"""tools/gen_sdk_matrix.py reads the JUnit XML that pytest and Node's test runner really write (both runners are run
here on tiny matrices with a pass, a failure and a skip) and renders every cell from it."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

PY_TESTS = """
import pytest

@pytest.fixture(params=["demo (Python)"], ids=["demo (Python)"])
def sdk(request):
    return request.param

def test_text(sdk):
    pass

def test_stream(sdk):
    assert False, "stream broke"

def test_embeddings(sdk):
    pytest.skip("needs issue 4 embeddings")

def test_files_upload(sdk):
    pass

def test_cache_use(sdk):
    pytest.xfail("the client raises before sending")
"""

JS_TESTS = """
import { describe, it } from 'node:test';
describe('demo (Node)', () => {
  it('text', () => {});
  it('chat', () => { throw new Error('chat broke'); });
  it('embeddings', { skip: 'needs issue 4 embeddings' }, () => {});
});
"""


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_sdk_matrix", ROOT / "tools" / "gen_sdk_matrix.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_python_junit_cells(gen: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sdk_matrix_demo.py").write_text(PY_TESTS)
    results = tmp_path / "results"
    results.mkdir()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # a bare pytest, as fast as it starts
    junit = f"--junitxml={results / 'python.xml'}"
    subprocess.run([*command, junit, "tests"], cwd=tmp_path, env=env, capture_output=True, check=False)
    rows, broken = gen.read_results(results)
    assert broken == []
    cells = rows["demo (Python)"]
    assert {call: cell.outcome for call, cell in cells.items()} == {
        "text": "passed",
        "stream": "failed",
        "embeddings": "skipped",
        "files_upload": "passed",
        "cache_use": "skipped",  # an xfail: JUnit's skipped, with its reason
    }
    assert "stream broke" in cells["stream"].message
    assert cells["embeddings"].message == "needs issue 4 embeddings"
    assert "the client raises before sending" in cells["cache_use"].message
    table = gen.render(rows, broken).splitlines()
    resources = table[table.index("## Resources") :]
    [row] = [line for line in resources if line.startswith("| demo (Python) |")]
    unrun = "❔<sup>1</sup>"  # the notes are numbered across both tables: the first's are 1 (not run), 2 (skip)
    assert row == f"| demo (Python) | ✅ | {unrun} | {unrun} | {unrun} | ⏭️<sup>3</sup> | {unrun} |"
    assert resources[4] == "| SDK | " + " | ".join(gen.RESOURCE_CALLS) + " |"


@pytest.mark.skipif(not shutil.which("node"), reason="node is needed to write Node's JUnit XML")
def test_node_junit_cells_and_the_rendered_table(gen: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "demo.test.mjs").write_text(JS_TESTS)
    junit = tmp_path / "js-demo.xml"
    command = ["node", "--test", "--test-reporter=junit", f"--test-reporter-destination={junit}", "demo.test.mjs"]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)
    rows, broken = gen.read_results(tmp_path)
    assert {call: cell.outcome for call, cell in rows["demo (Node)"].items()} == {
        "text": "passed",
        "chat": "failed",
        "embeddings": "skipped",
    }
    table = gen.render(rows, broken)
    assert "## Resources" not in table  # no resource cell: no second table
    row = next(line for line in table.splitlines() if line.startswith("| demo (Node) |"))
    unrun = "❔<sup>1</sup>"  # a call with no result is flagged, not left blank
    assert row == f"| demo (Node) | ✅ | {unrun} | ❌ | {unrun} | {unrun} | {unrun} | ⏭️<sup>2</sup> | {unrun} |"
    assert "2. needs issue 4 embeddings" in table
    assert "- demo (Node) × chat: chat broke" in table
    assert "This run: 1 passed, 1 failed, 1 skipped." in table
