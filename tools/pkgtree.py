"""Lay out `gemini_emulator` as one folder, `build/pkgtree/gemini_emulator/`, and run a tool against it.

The package is installed from three top-level folders (pyproject.toml `[tool.setuptools] package-dir`:
emulator/ is gemini_emulator, engines/ is gemini_emulator.engines, captures/ is gemini_emulator.captures), and
the editable install finds them through an import hook. Tools that walk the folder of a package's
`__init__.py` (grimp, hence import-linter; mypy, which also ignores import hooks) would see emulator/ alone.
This tree puts every file where the wheel puts it: real folders, each file a symlink to the checkout, so an
edit shows at once, and the tree is rebuilt from pyproject.toml's mapping on every run (files added or removed
are picked up; nothing is copied).

    python tools/pkgtree.py                                 # build build/pkgtree, print its path
    python tools/pkgtree.py OUT                             # build OUT instead (a throw-away tree), print it
    python tools/pkgtree.py -- lint-imports                 # then run a tool with the tree first on
    python tools/pkgtree.py -- mypy -p gemini_emulator      #   PYTHONPATH and MYPYPATH
    MYPYPATH=$(python tools/pkgtree.py) mypy -p gemini_emulator

tests/tooling/test_layers.py runs the import contracts this way, tests/tooling/test_typecheck.py mypy. A command is
looked up beside this interpreter first (the venv's `lint-imports`), then on PATH; it runs from the repository
root. `build(dest)` and `run(command, tree)` do the same from Python.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = ROOT / "build" / "pkgtree"
_SKIP = {"__pycache__"}


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """Import name → source folder, from pyproject.toml's package-dir (e.g. "gemini_emulator.engines" → engines/)."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name: (root / folder).resolve() for name, folder in mapping.items() if name}


def build(dest: Path = DEFAULT_DEST, root: Path = ROOT) -> Path:
    """Build the tree under `dest` (replacing what was there) and return `dest`, the folder to put on the path."""
    dirs = package_dirs(root)
    fresh = dest.with_name(f"{dest.name}.new-{os.getpid()}")
    shutil.rmtree(fresh, ignore_errors=True)
    claimed = set(dirs.values())  # a folder that is another package's root is laid out under that package's name
    for name, source in sorted(dirs.items()):
        _mirror(source, fresh.joinpath(*name.split(".")), claimed - {source})
    old = dest.with_name(f"{dest.name}.old-{os.getpid()}")
    if dest.exists():
        dest.rename(old)
    fresh.rename(dest)
    shutil.rmtree(old, ignore_errors=True)
    return dest


def _mirror(source: Path, target: Path, skip: set[Path]) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        if entry.name in _SKIP or entry.name.startswith(".") or entry.resolve() in skip:
            continue
        if entry.is_dir():
            _mirror(entry, target / entry.name, skip)
        else:
            (target / entry.name).symlink_to(entry.resolve())


def run(command: list[str], tree: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run `command` with `tree` first on PYTHONPATH and MYPYPATH; its output is captured."""
    env = dict(os.environ)
    for var in ("PYTHONPATH", "MYPYPATH"):
        env[var] = os.pathsep.join([str(tree), *filter(None, [env.get(var)])])
    beside = Path(sys.executable).parent / command[0]
    program = str(beside) if beside.exists() else (shutil.which(command[0]) or command[0])
    return subprocess.run([program, *command[1:]], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def main(argv: list[str]) -> int:
    own, command = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    tree = build(Path(own[0]).resolve() if own else DEFAULT_DEST)
    if not command:
        print(tree)
        return 0
    done = run(command, tree)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
