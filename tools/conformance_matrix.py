"""docs/conformance-matrix.md, generated from a test run and the claims in tests/claims.py.

    pytest --conformance-results build/conformance-results.json
    python tools/conformance_matrix.py build/conformance-results.json           # write the document
    python tools/conformance_matrix.py build/conformance-results.json --check   # fail if it is stale

`make conformance` does both steps; `make test` runs the check, so a change that moves a claim, a capture
or a divergence without regenerating the document fails CI.

Without ../shared/corpus (a bare clone) the tests that read it skip with tests/corpus.py's reason. Such a run
cannot say how those claims stand: the check then compares everything else (each claim's row minus its status
and outcomes where it rests on a skipped test, the summary line left out), says what it left out, and passes
when the rest is current; writing the document from such a run is refused. CI has ../shared and checks it all.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "captures")]  # claims, corpus; test_golden

from claims import CLAIMS, REPLAY, Claim  # noqa: E402
from test_golden import DIVERGENCES  # noqa: E402

from gemini_emulator.captures.format import Capture, load_dir  # noqa: E402

from corpus import ABSENT  # noqa: E402

OUT = ROOT / "docs" / "conformance-matrix.md"
LEVELS = {  # fidelity -> verification level, strongest first
    "byte-exact": "byte-exact capture",
    "verbatim-fixture": "verbatim SDK fixture",
    "re-serialised": "re-serialised recording",
    "edited": "edited fixture",
}
SOURCE_ONLY = "SDK source, docs or issue only"
CAPTURE_BACKED = ("byte-exact", "verbatim-fixture")
FAILED = ("failed", "error", "xpassed")


class MatrixError(Exception):
    """A claim that names no test of the run, or evidence that names no capture."""


def _matching(prefix: str, outcomes: dict[str, str]) -> dict[str, str]:
    return {nodeid: outcome for nodeid, outcome in outcomes.items() if nodeid.startswith(prefix)}


def _evidence(claim: Claim, captures: list[Capture]) -> list[Capture]:
    found = []
    for pattern in claim.evidence:
        matched = [c for c in captures if c.name == pattern or fnmatch.fnmatchcase(c.name, pattern)]
        if not matched:
            raise MatrixError(f"claim {claim.id}: evidence {pattern!r} names no capture")
        found += [c for c in matched if c not in found]
    return found


def _level(claim: Claim, evidence: list[Capture]) -> str:
    if claim.live:
        return f"live-verified ({claim.live})"
    for fidelity, level in LEVELS.items():
        count = sum(c.fidelity == fidelity for c in evidence)
        if count:
            return f"{level} ({count})"
    return f"{SOURCE_ONLY}: {claim.source}" if claim.source else SOURCE_ONLY


def _status(claim: Claim, outcomes: list[str]) -> str:
    if any(o in FAILED for o in outcomes):
        return "**FAILING**"
    if all(o == "skipped" for o in outcomes):
        return "not verified in this run (tests skipped)"
    if claim.not_yet:
        return f"not yet: {claim.not_yet}"
    if claim.divergence:
        return f"documented divergence: {claim.divergence}"
    return "conforming"


def _locked_by(claim: Claim, outcomes: dict[str, str]) -> tuple[str, list[str]]:
    cells, all_outcomes = [], []
    for prefix in claim.tests:
        matched = _matching(prefix, outcomes)
        if not matched:
            raise MatrixError(f"claim {claim.id}: no test of the run starts with {prefix!r}")
        all_outcomes += list(matched.values())
        detail = ", ".join(sorted(set(matched.values())))  # no counts: adding a test must not stale the document
        cells.append(f"`{prefix.removeprefix('tests/')}` ({detail})")
    return "<br>".join(cells), all_outcomes


def _row_start(claim: Claim) -> str:
    """A claim row's first two cells: what identifies it in the document."""
    behaviour = claim.behaviour.replace("|", "\\|")
    return f"| {claim.endpoint} | {behaviour} |"


def _skipped_evidence(tests: dict[str, dict[str, Any]]) -> set[str]:
    """The tests of the run that skipped because ../shared/corpus is absent."""
    return {n for n, t in tests.items() if t["outcome"] == "skipped" and t.get("reason", "").endswith(ABSENT)}


def _resting_on(skipped: set[str], outcomes: dict[str, str]) -> list[Claim]:
    """The claims with a locking test among `skipped`: the run cannot tell their status."""
    return [c for c in CLAIMS if any(skipped & _matching(prefix, outcomes).keys() for prefix in c.tests)]


def _comparable(text: str, claims: list[Claim]) -> list[str]:
    """The document's lines less what a run without the corpus cannot decide: the summary line, and the
    status, verification and outcomes of `claims` (their first two cells stay, so a row added or lost shows)."""
    starts = tuple(_row_start(c) for c in claims)
    lines = []
    for line in text.splitlines():
        if line.startswith("**") and "claims conforming" in line:
            line = "**(summary: not checked)**"
        elif starts and line.startswith(starts):
            line = next(s for s in starts if line.startswith(s)) + " (rests on skipped evidence: not checked) |"
        lines.append(line)
    return lines


def render(results: dict[str, Any], captures: list[Capture]) -> str:
    tests: dict[str, dict[str, Any]] = results["tests"]
    outcomes = {nodeid: t["outcome"] for nodeid, t in tests.items()}
    rows, statuses, backed = [], Counter(), 0
    for claim in CLAIMS:
        evidence = _evidence(claim, captures)
        locked, claim_outcomes = _locked_by(claim, outcomes)
        status = _status(claim, claim_outcomes)
        statuses[status.split(":")[0]] += 1
        backed += any(c.fidelity in CAPTURE_BACKED for c in evidence)
        rows.append(f"{_row_start(claim)} {status} | {_level(claim, evidence)} | {locked} |")
    conforming = statuses["conforming"]
    lines = [
        "# Conformance matrix",
        "",
        "Generated by `make conformance` from a test run (`tools/conformance_matrix.py`); `make test` fails when",
        "it is stale. Do not edit it by hand: claims live in `tests/claims.py`, evidence in `captures/`",
        "(format: `captures/README.md`), golden divergences in `tests/captures/test_golden.py`; the hand-written",
        "evidence and divergence page is [conformance.md](conformance.md).",
        "",
        f"**{conforming} of {len(CLAIMS)} claims conforming, {backed} capture-backed** (by a byte-exact capture or "
        f"a verbatim SDK fixture); {statuses['documented divergence']} documented divergences, "
        f"{statuses['not yet']} not yet.",
        "",
        "Verification levels, strongest first: live-verified, byte-exact capture (an httprr trace of a real "
        "HTTPS exchange), verbatim SDK fixture, re-serialised recording, edited fixture, SDK source, docs or "
        "issue only. The count is the number of captures showing the claim.",
        "",
        "| endpoint | claim | status | verification | locked by (tests, and their outcomes in the run: xfailed is "
        "a strict expected failure that locks a not-yet claim) |",
        "|---|---|---|---|---|",
        *rows,
        "",
        *_divergence_table(tests),
        "",
        *_capture_table(captures, outcomes),
    ]
    return "\n".join(lines) + "\n"


def _divergence_table(tests: dict[str, dict[str, Any]]) -> list[str]:
    """Golden divergences and how many captures show each (from the run's recorded properties)."""
    seen: dict[str, set[str]] = {d.id: set() for d in DIVERGENCES}
    for nodeid, test in tests.items():
        for divergence in test.get("properties", {}).get("divergences", "").split(","):
            if divergence and "[" in nodeid:
                seen.setdefault(divergence, set()).add(nodeid.split("[", 1)[1].rstrip("]"))
    lines = [
        "## Differences the golden facts allow",
        "",
        "Each difference between a capture's facts and the emulator's answer to the same request is one of these "
        "(`tests/captures/test_golden.py` fails on any other, and on an entry no capture needs). Kinds: *era* "
        "(production "
        "changed since the capture; the emulator follows 2026), *deliberate* (a documented choice), *gap* (the "
        "emulator differs from current production), *unsupported* (content no scripted entry produces).",
        "",
        "| divergence | kind | captures | reason |",
        "|---|---|---|---|",
    ]
    for d in DIVERGENCES:
        lines.append(f"| `{d.id}` | {d.kind} | {len(seen[d.id])} | {d.reason} |")
    return lines


def _capture_table(captures: list[Capture], outcomes: dict[str, str]) -> list[str]:
    lines = [
        "## Captures",
        "",
        "| capture | fidelity | exchanges | replayed byte for byte |",
        "|---|---|---|---|",
    ]
    for capture in captures:
        outcome = outcomes.get(f"{REPLAY}[{capture.name}]", "not run")
        replay = "yes" if outcome == "passed" else f"**{outcome}**"
        lines.append(f"| `{capture.name}` | {capture.fidelity} | {len(capture.exchanges)} | {replay} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="the JSON written by pytest --conformance-results")
    parser.add_argument("--check", action="store_true", help=f"fail if {OUT.relative_to(ROOT)} is stale")
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
        text = render(results, load_dir())
    except (OSError, MatrixError) as exc:
        print(f"conformance matrix: {exc}", file=sys.stderr)
        return 2
    tests = results["tests"]
    skipped = _skipped_evidence(tests)
    resting = _resting_on(skipped, {nodeid: t["outcome"] for nodeid, t in tests.items()})
    why = f"{len(skipped)} tests skipped: {ABSENT}"
    if not args.check:
        if skipped:
            print(f"conformance matrix: {why}: not writing {OUT.relative_to(ROOT)} from this run", file=sys.stderr)
            return 2
        OUT.write_text(text, encoding="utf-8")
        return 0
    current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    committed, this_run = _comparable(current, resting), _comparable(text, resting)
    if committed == this_run:
        if skipped:
            print(
                f"conformance matrix: {why}. Checked {OUT.relative_to(ROOT)} less its summary line and the status "
                f"of the {len(resting)} claims those tests lock: the rest is current",
                file=sys.stderr,
            )
        return 0
    diff = difflib.unified_diff(committed, this_run, "committed", "this run", lineterm="", n=0)
    print("\n".join(list(diff)[:40]), file=sys.stderr)
    print(f"{OUT.relative_to(ROOT)} is stale: run `make conformance` and commit it", file=sys.stderr)
    if skipped:
        print(f"(checked with {why}; `make conformance` needs ../shared/corpus beside the repo)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
