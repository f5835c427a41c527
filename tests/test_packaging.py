"""The built wheel: one import package, `gemini_emulator`, with its data; and a user project whose own `engines/`
and `emulator/` packages sit beside it runs the `gemini` fixture from the wheel (issue 12: the old wheel installed
top-level `emulator` and `engines`, which broke such a project).

The wheel is built from a copy of the checkout's files (tracked and new, not ignored), so the checkout gets no
build/ or egg-info droppings, and installed with `pip install --no-deps --target DIR`; DIR first on PYTHONPATH
makes the wheel's copy, not the editable one, what the user's pytest imports (the test checks that it did).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"emulator": "gemini_emulator", "engines": "gemini_emulator/engines", "captures": "gemini_emulator/captures"}

pytestmark = pytest.mark.slow


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0 and "No matching distribution found for setuptools" in done.stderr:
        pytest.skip("no package index (or pip cache) to fetch the build backend, setuptools, from")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _source_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    for name in _source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    _pip("wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(source), cwd=work)
    (built,) = (work / "dist").glob("gemini_emulator-*.whl")
    return built


def _expected(suffixes: tuple[str, ...]) -> set[str]:
    """The files of the three package folders with these suffixes, where the wheel must hold them."""
    out = set()
    for folder, target in FOLDERS.items():
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in suffixes and "__pycache__" not in path.parts and path.is_file():
                out.add(f"{target}/{path.relative_to(ROOT / folder).as_posix()}")
    return out


def test_the_wheel_has_one_import_package_and_all_its_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names}
    (dist_info,) = [top for top in tops if top.endswith(".dist-info")]
    assert tops - {dist_info} == {"gemini_emulator"}
    top_level = zipfile.ZipFile(wheel).read(f"{dist_info}/top_level.txt").decode().split()
    assert top_level == ["gemini_emulator"]
    missing = _expected((".py", ".json", ".html", ".js")) - names  # modules, catalogue JSON, pages, scripts, captures
    assert not missing, sorted(missing)
    captures = {n for n in names if n.startswith("gemini_emulator/captures/") and n.endswith(".json")}
    assert len(captures) >= 100 and "gemini_emulator/captures/README.md" in names
    assert {"gemini_emulator/wire/models.json", "gemini_emulator/wire/wire_fields.json"} <= names
    assert {"gemini_emulator/admin/inspector.html", "gemini_emulator/protocol/not_found.html"} <= names


USER_TEST = """
import os

import emulator
import engines.car
import gemini_emulator
from gemini_emulator import Gemini


def test_the_projects_own_packages() -> None:
    assert engines.car.WHEELS == 4 and emulator.MINE is True


def test_the_gemini_fixture(gemini: Gemini) -> None:
    assert gemini_emulator.__file__.startswith(os.environ["WHEEL_DIR"])  # the wheel's copy, not the checkout's
    gemini.script({"text": "Vroom"})
    answer = gemini.client.models.generate_content(model="gemini-2.5-flash", contents="Drive")
    assert answer.text == "Vroom"
    assert gemini.journal().statuses == [200]
"""


@pytest.fixture(scope="module")
def user_project(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A project with its own `engines` and `emulator` packages, and the wheel installed into a folder of its own."""
    work = tmp_path_factory.mktemp("user")
    target = work / "site"
    _pip("install", "--no-deps", "--quiet", "--target", str(target), str(wheel), cwd=work)
    project = work / "project"
    (project / "engines").mkdir(parents=True)
    (project / "engines" / "__init__.py").write_text('"""The project\'s own engines."""\n')
    (project / "engines" / "car.py").write_text("WHEELS = 4\n")
    (project / "emulator").mkdir()
    (project / "emulator" / "__init__.py").write_text("MINE = True\n")
    (project / "conftest.py").write_text("")
    (project / "test_car.py").write_text(USER_TEST)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GEMINI_", "GOOGLE_"))}
    env |= {"PYTHONPATH": str(target), "WHEEL_DIR": str(target)}
    return project, env


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "pytest"], [str(Path(sys.executable).parent / "pytest")]],
    ids=["python -m pytest", "pytest"],
)
def test_a_user_project_with_its_own_engines_package_runs_the_fixture(
    user_project: tuple[Path, dict[str, str]], command: list[str]
) -> None:
    project, env = user_project
    done = subprocess.run(
        # the other plugins of this venv only cost start-up time (the project would not have them)
        [*command, "-q", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:schemathesis", "test_car.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "2 passed" in done.stdout
