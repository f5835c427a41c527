"""The declared public face: `gemini_emulator.__all__` (loaded lazily) and `gemini_emulator.seam`."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import gemini_emulator
from gemini_emulator import seam

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = [
    "gemini_emulator.protocol",
    "gemini_emulator.seam",
    "gemini_emulator.wire",
    "gemini_emulator.admin",
    "gemini_emulator.captures",
    "gemini_emulator.testing",
    "gemini_emulator.engines",
    "gemini_emulator.engines.scripted",
    "gemini_emulator.engines.synth",
    "gemini_emulator.engines.openai",
]


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout


def test_every_public_name_resolves_to_its_home() -> None:
    for name in gemini_emulator.__all__:
        value = getattr(gemini_emulator, name)
        home = gemini_emulator._HOMES.get(name)
        if home is not None:
            assert value is getattr(importlib.import_module(home), name), name
    assert set(gemini_emulator.__all__) == {*gemini_emulator._HOMES, "__version__"}


def test_a_test_author_and_an_engine_author_find_their_names() -> None:
    from gemini_emulator import AdminClient, Chunk, Gemini, GenerateRequest, Scriptable, Settings, start

    assert AdminClient.__module__ == "gemini_emulator.admin.client"
    assert Gemini.__module__ == "gemini_emulator.testing.pytest_plugin"
    assert Settings.__module__ == "gemini_emulator.config" and callable(start)
    assert {Chunk, GenerateRequest, Scriptable} <= {getattr(seam, n) for n in seam.__all__}
    # every seam name is on the package itself (the entry-point group name is a packaging detail)
    assert set(seam.__all__) - set(gemini_emulator.__all__) == {"ENTRY_POINT_GROUP"}


def test_the_seam_exports_what_it_holds() -> None:
    for name in seam.__all__:
        assert hasattr(seam, name), name
    engine = importlib.import_module("gemini_emulator.engines.scripted.engine").ScriptedEngine()
    assert isinstance(engine, seam.Scriptable) and isinstance(engine.script_book(), seam.ScriptBook)
    assert engine.script_book() is engine.script_book()


def test_unknown_names_are_attribute_errors_and_submodules_still_import() -> None:
    out = _run(
        "import gemini_emulator\n"
        "try:\n    gemini_emulator.nothing_here\nexcept AttributeError as e:\n    print(e)\n"
        "from gemini_emulator import cli\nprint(cli.__name__)\n"
        "from gemini_emulator import *\nprint(Settings.__name__, GenerateRequest.__name__)\n"
    )
    assert out.splitlines() == [
        "module 'gemini_emulator' has no attribute 'nothing_here'",
        "gemini_emulator.cli",
        "Settings GenerateRequest",
    ]


def test_importing_the_package_loads_nothing_else_of_ours() -> None:
    out = _run("import sys, gemini_emulator\nprint(sorted(m for m in sys.modules if m.startswith('gemini_emulator')))")
    assert out.strip() == "['gemini_emulator']"
    out = _run("import sys, gemini_emulator.seam\nprint(*sorted(m for m in sys.modules if m.startswith('gemini_')))")
    loaded = out.split()
    assert "gemini_emulator.seam.capabilities" in loaded
    assert [m for m in loaded if not m.startswith(("gemini_emulator.seam", "gemini_emulator.protocol"))] == [
        "gemini_emulator"
    ]


def test_the_rest_is_marked_private_and_each_room_says_what_it_holds() -> None:
    doc = gemini_emulator.__doc__ or ""
    assert "__all__" in doc and "gemini_emulator.seam" in doc and "private" in doc
    for name in SUBPACKAGES:
        room = importlib.import_module(name).__doc__
        assert room and room.strip(), f"{name} has no docstring"
