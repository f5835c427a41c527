"""Lay out the installed package's tree from the source folders, for tools that walk folders, not imports.

setuptools installs `gemini_emulator` from three folders (pyproject.toml `package-dir`): emulator/ is the package,
engines/ is gemini_emulator.engines, captures/ is gemini_emulator.captures. mypy and import-linter find a
package's modules by walking the folder of its `__init__.py`, so they would miss engines/ and captures/. This writes
`build/pkgtree/gemini_emulator/` as symlinks to the real files (edits show through; run it again after adding a
top-level module) and prints the tree's parent, to put first on MYPYPATH / PYTHONPATH:

    MYPYPATH=$(python tools/pkgtree.py) mypy -p gemini_emulator
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = {"engines": ROOT / "engines", "captures": ROOT / "captures"}  # beside emulator/'s own contents


def build(out: Path = ROOT / "build" / "pkgtree") -> Path:
    """(Re)write the tree under `out` and return `out`."""
    package = out / "gemini_emulator"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for child in sorted((ROOT / "emulator").iterdir()):
        if child.name != "__pycache__":
            (package / child.name).symlink_to(child)
    for name, folder in SUBPACKAGES.items():
        (package / name).symlink_to(folder)
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "pkgtree"))
