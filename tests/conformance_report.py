"""pytest plugin: `--conformance-results PATH` writes every test's outcome (and recorded properties) as JSON.

tools/conformance_matrix.py turns that file and the claims in tests/claims.py into docs/conformance-matrix.md.
Outcomes: passed, failed, error, skipped, xfailed (a strict expected failure: locked as not yet), xpassed.
A skip keeps its reason, so the matrix can tell evidence that could not run (no ../shared/corpus) from the rest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

_results: dict[str, dict[str, Any]] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--conformance-results",
        metavar="PATH",
        default=None,
        help="write each test's outcome to PATH (JSON) for tools/conformance_matrix.py",
    )


def _outcome(report: pytest.TestReport) -> str | None:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.when == "call":
        return str(report.outcome)
    if report.failed:
        return "error"
    return "skipped" if report.skipped else None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    outcome = _outcome(report)
    if outcome is None:
        return
    entry = _results.setdefault(report.nodeid, {})
    if entry.get("outcome") in ("failed", "error"):
        return  # a later phase does not undo a failure
    entry["outcome"] = outcome
    if outcome == "skipped" and isinstance(report.longrepr, tuple):
        entry["reason"] = report.longrepr[2]
    properties = {k: v for k, v in report.user_properties if v}
    if properties:
        entry["properties"] = properties


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--conformance-results")
    if not path:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"tests": dict(sorted(_results.items()))}, indent=1) + "\n", encoding="utf-8")
