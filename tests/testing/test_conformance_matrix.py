"""tools/conformance_matrix.py on a run without ../shared/corpus: the skip reason travels from tests/corpus.py
through the --conformance-results report, the check leaves out exactly what those skips decide and still catches
a stale row elsewhere, and the document is never written from such a run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import corpus

ROOT = Path(__file__).resolve().parents[2]

CORPUS_TEST = """
from pathlib import Path

import corpus


def test_reads_the_corpus(monkeypatch):
    monkeypatch.setattr(corpus, "CORPUS", Path(__file__).parent / "no-such-corpus")
    corpus.require_corpus()


def test_without_it():
    pass
"""


@pytest.fixture(scope="module")
def matrix() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_matrix", ROOT / "tools" / "conformance_matrix.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results(matrix: ModuleType, outcome: str = "passed") -> dict[str, Any]:
    """A run in which each claim's locking prefixes match one test, with `outcome`."""
    tests = {prefix: {"outcome": outcome} for claim in matrix.CLAIMS for prefix in claim.tests}
    return {"tests": tests}


def _corpus_prefix(matrix: ModuleType) -> str:
    return next(p for c in matrix.CLAIMS for p in c.tests if "test_printers_bytes.py::test_pretty_reproduces" in p)


@pytest.mark.slow  # over a second: left out of make test-fast
def test_a_corpus_skip_reaches_the_report_with_its_reason(tmp_path: Path, matrix: ModuleType) -> None:
    (tmp_path / "test_corpus_skip.py").write_text(CORPUS_TEST)
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conformance_report", f"--conformance-results={out}"]
        + ["-p", "no:cacheprovider", "test_corpus_skip.py"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT / "tests"), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tests = json.loads(out.read_text())["tests"]
    assert tests["test_corpus_skip.py::test_reads_the_corpus"]["reason"].endswith(corpus.ABSENT)
    assert matrix._skipped_evidence(tests) == {"test_corpus_skip.py::test_reads_the_corpus"}


def test_the_check_leaves_out_only_what_skipped_evidence_decides(matrix: ModuleType) -> None:
    captures = matrix.load_dir()
    full = _results(matrix)
    committed = matrix.render(full, captures)
    bare = _results(matrix)
    skipped = _corpus_prefix(matrix)
    bare["tests"][skipped] = {"outcome": "skipped", "reason": f"Skipped: {corpus.ABSENT}"}
    this_run = matrix.render(bare, captures)
    assert this_run != committed  # the skip shows in the rendered document...
    outcomes = {n: t["outcome"] for n, t in bare["tests"].items()}
    resting = matrix._resting_on(matrix._skipped_evidence(bare["tests"]), outcomes)
    assert resting and all(any(p == skipped for p in c.tests) for c in resting)
    assert matrix._comparable(committed, resting) == matrix._comparable(this_run, resting)  # ...not in the check

    other = next(c for c in matrix.CLAIMS if c not in resting)
    bare["tests"][other.tests[0]] = {"outcome": "failed"}
    assert matrix._comparable(committed, resting) != matrix._comparable(matrix.render(bare, captures), resting)
    lost = "\n".join(line for line in committed.splitlines() if not line.startswith(matrix._row_start(resting[0])))
    assert matrix._comparable(lost, resting) != matrix._comparable(this_run, resting)  # a lost row still shows


def test_the_document_is_not_written_from_a_run_without_the_corpus(
    tmp_path: Path, matrix: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _results(matrix)
    results["tests"][_corpus_prefix(matrix)] = {"outcome": "skipped", "reason": f"Skipped: {corpus.ABSENT}"}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    before = matrix.OUT.read_bytes()
    assert matrix.main([str(path)]) == 2
    assert matrix.OUT.read_bytes() == before
    assert corpus.ABSENT in capsys.readouterr().err
