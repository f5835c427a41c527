"""The import contracts (pyproject.toml `[tool.importlinter]`) hold, and each would catch a break.

import-linter reads the package from one folder; tools/pkgtree.py lays out the three source folders as
build/pkgtree/gemini_emulator and runs lint-imports with it first on the path.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

# One import per contract that only that contract forbids: (file inside the tree, its import, the chain's end).
BITES = {
    "protocol": ("protocol/_bite.py", "import gemini_emulator.config", "gemini_emulator.config"),
    "seam": ("seam/_bite.py", "from gemini_emulator.wire import auth", "gemini_emulator.wire.auth"),
    "no-engines": (
        "admin/_bite.py",
        "from gemini_emulator.engines.scripted.store import ScriptStore",
        "gemini_emulator.engines.scripted.store",
    ),
    "engines": ("engines/synth/_bite.py", "import gemini_emulator.captures.record", "gemini_emulator.captures.record"),
    "openai": ("engines/openai/_bite.py", "import gemini_emulator.engines.replay", "gemini_emulator.engines.replay"),
    "media": ("media/_bite.py", "import gemini_emulator.config", "gemini_emulator.config"),
    "stores": ("stores/_bite.py", "from gemini_emulator.wire import auth", "gemini_emulator.wire.auth"),
    "web": ("web/_bite.py", "import gemini_emulator.config", "gemini_emulator.config"),
}


def _pkgtree() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pkgtree", ROOT / "tools" / "pkgtree.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _contract_ids() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [c["id"] for c in config["tool"]["importlinter"]["contracts"]]


def test_the_contracts_hold() -> None:
    """What `make test` checks: every contract kept, on the package as the wheel lays it out."""
    done = subprocess.run(
        [sys.executable, "tools/pkgtree.py", "--", "lint-imports", "--no-cache", "--config", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(_contract_ids())} kept, 0 broken." in done.stdout


def test_every_contract_has_a_bite() -> None:
    assert sorted(_contract_ids()) == sorted(BITES)


@pytest.mark.parametrize("contract", sorted(BITES))
def test_each_contract_bites(contract: str, tmp_path: Path) -> None:
    """A tree with one forbidden import added breaks that contract, naming the import (so the graph really holds
    all three folders: a contract over a module grimp did not see would not name it)."""
    pkgtree = _pkgtree()
    tree = pkgtree.build(tmp_path / "pkgtree")
    where, line, end = BITES[contract]
    bite = tree / "gemini_emulator" / where
    bite.write_text(f'"""Breaks the {contract} contract."""\n\n{line}\n', encoding="utf-8")
    done = pkgtree.run(["lint-imports", "--no-cache", "--config", "pyproject.toml", "--contract", contract], tree)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 kept, 1 broken." in done.stdout
    module = "gemini_emulator." + where.removesuffix(".py").replace("/", ".")
    assert f"{module} -> {end}" in done.stdout, done.stdout


def test_the_tree_mirrors_the_wheel_layout(tmp_path: Path) -> None:
    """Each installed folder lands under its import name, as links to the checkout (an edit shows at once)."""
    tree = _pkgtree().build(tmp_path / "pkgtree") / "gemini_emulator"
    assert (tree / "__init__.py").resolve() == ROOT / "emulator" / "__init__.py"
    assert (tree / "engines" / "replay.py").resolve() == ROOT / "engines" / "replay.py"
    assert (tree / "captures" / "format.py").resolve() == ROOT / "captures" / "format.py"
    assert (tree / "wire" / "models.json").is_symlink()
    assert not list(tree.rglob("__pycache__"))
