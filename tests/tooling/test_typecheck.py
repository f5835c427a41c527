"""mypy over the whole package (its settings: pyproject.toml [tool.mypy]), as `make test` runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_mypy_is_clean(tmp_path: Path) -> None:
    tree = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "pkgtree.py"), str(tmp_path / "pkgtree")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = dict(os.environ, MYPYPATH=tree)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / "build" / "mypy-cache"),
            "-p",
            "gemini_emulator",
        ],
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
