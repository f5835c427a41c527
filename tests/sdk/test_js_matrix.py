"""The JavaScript half of the cross-SDK matrix: real Node SDKs (tests/js/*.test.mjs) against the session's emulator.

`npm ci` runs once per tests/js/package-lock.json (tests/node_env.py); each test file then runs under Node's own
test runner with EMULATOR_URL set, and this test fails with Node's report when any of its tests fails. With
SDK_MATRIX_RESULTS set (`make sdk-matrix`), Node also writes JUnit XML there, one file per test file, for
tools/gen_sdk_matrix.py.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from node_env import JS, NODE, NPM, ensure_node_modules

from gemini_emulator.testing.server import RunningEmulator

pytestmark = pytest.mark.skipif(not (NODE and NPM), reason="node and npm are needed for the JavaScript SDK matrix")


@pytest.fixture(scope="session")
def node_modules(announce: Callable[[str], None]) -> Path:
    """tests/js/node_modules as the lock file pins it (node_env.ensure_node_modules)."""
    return ensure_node_modules(announce)


@pytest.mark.parametrize("test_file", sorted(p.name for p in JS.glob("*.test.mjs")))
def test_js_sdk(test_file: str, node_modules: Path, gemini_emulator: RunningEmulator) -> None:
    command = [NODE, "--test", "--test-reporter=spec", "--test-reporter-destination=stdout"]
    results = os.environ.get("SDK_MATRIX_RESULTS")
    if results:
        junit = Path(results).resolve() / f"js-{test_file.removesuffix('.test.mjs')}.xml"
        command += ["--test-reporter=junit", f"--test-reporter-destination={junit}"]
    env = {**os.environ, "EMULATOR_URL": gemini_emulator.url, "NO_COLOR": "1"}
    done = subprocess.run([*command, test_file], cwd=JS, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"node --test {test_file} failed:\n{done.stdout}\n{done.stderr}"
    assert "ℹ pass 0\n" not in done.stdout, f"{test_file} ran no test:\n{done.stdout}"


def test_every_model_google_genai_for_node_names_is_in_the_catalogue(node_modules: Path) -> None:
    """issue 30: the ids of @google/genai's Interactions `Model` type (its .d.ts), each served by the catalogue."""
    import re

    from gemini_emulator.wire import catalogue

    typings = (node_modules / "genai3" / "dist" / "genai.d.ts").read_text(encoding="utf-8")
    union = re.search(r'declare type Model(?:_\d+)? = ("gem[^;]+);', typings)  # the union of quoted ids
    assert union, "@google/genai's Model type moved"
    ids = re.findall(r'"([a-z0-9][a-z0-9.-]*)"', union.group(1))
    assert len(ids) > 30, union.group(0)[:300]
    c = catalogue.load()
    known = set(c.models) | set(c.aliases) | set(c.media) | set(c.vertex_only) | c.no_longer_available
    assert not [m for m in ids if m not in known], f"@google/genai names models the catalogue lacks: {ids}"
