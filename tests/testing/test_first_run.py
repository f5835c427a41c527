"""A newcomer's first minutes: what `make` and `gemini-emulator serve` say when something is off (a port in use, a
bad port, no captures), that an installed package replays its own curated captures, and that live tests never
run just because a key is in the environment."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from served import clean_env

from gemini_emulator.captures.format import load_dir
from gemini_emulator.testing.server import free_port

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")
BOUND_S = 60  # a bound for a hung start, not a speed check


def _serve(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m gemini_emulator serve ARGS` that is expected to refuse to start."""
    command = [sys.executable, "-m", "gemini_emulator", "serve", *args]
    return subprocess.run(command, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=BOUND_S)


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal prints; no banner, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "", "a banner was printed before the error"
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gemini-emulator: "), done.stderr
    return lines[0]


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another server is listening on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def test_a_port_in_use_is_one_line_before_any_banner(taken_port: int) -> None:
    line = _refused(_serve("--port", str(taken_port)))
    assert line == (
        f"gemini-emulator: cannot listen on 127.0.0.1:{taken_port}: port {taken_port} is already in use"
        " (another server?); choose another with --port N"
    )
    record = subprocess.run(
        [sys.executable, "-m", "gemini_emulator", "record", "--upstream", "https://example.com"],
        env=clean_env(GEMINI_EMULATOR_PORT=str(taken_port)),
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert "already in use" in _refused(record)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--port", "0"], {}, "--port must be between 1 and 65535, not 0"),
        (["--port", "-1"], {}, "--port must be between 1 and 65535, not -1"),
        (["--port=-8080"], {}, "--port must be between 1 and 65535, not -8080"),
        (["--port", "65536"], {}, "--port must be between 1 and 65535, not 65536"),
        (["--port", "eighty"], {}, "--port must be a whole number, not 'eighty'"),
        ([], {"GEMINI_EMULATOR_PORT": "0"}, "GEMINI_EMULATOR_PORT must be between 1 and 65535, not 0"),
        (["--host", "192.0.2.1"], {}, "cannot listen on 192.0.2.1:"),  # TEST-NET-1: not this machine's
    ],
)
def test_an_invalid_port_or_address_is_one_line(args: list[str], env: dict[str, str], message: str) -> None:
    if "--port" not in " ".join(args) and not env:
        args = [*args, "--port", str(free_port("127.0.0.1"))]
    assert _refused(_serve(*args, **env)).startswith(f"gemini-emulator: {message}")


def test_replay_without_captures_says_to_pass_a_captures_dir(tmp_path: Path) -> None:
    missing = _refused(_serve("--engine", "replay", "--captures", str(tmp_path / "absent")))
    assert missing == (
        f"gemini-emulator: no captures directory at {tmp_path / 'absent'}: "
        "pass --captures DIR, a folder of golden captures (captures/README.md)"
    )
    (tmp_path / "README.md").write_text("not a capture")
    empty = _refused(_serve("--engine", "replay", "--captures", str(tmp_path)))
    assert empty.startswith(f"gemini-emulator: no captures in {tmp_path}: pass --captures DIR")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as a user gets it: a wheel built from the repository's files, installed into a folder of its
    own (no editable install, no checkout next to it)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("emulator", "engines", "captures"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "--quiet", "--wheel-dir", str(work / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0:  # no index to fetch setuptools from, for one
        pytest.skip(f"could not build a wheel here: {built.stderr.strip().splitlines()[-1:]}")
    (wheel,) = (work / "dist").glob("gemini_emulator-*.whl")
    site = work / "site"
    done = subprocess.run(
        [*pip, "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return site


@pytest.mark.slow
def test_an_installed_package_replays_its_curated_captures(installed: Path, tmp_path: Path) -> None:
    port = free_port("127.0.0.1")
    env = clean_env(PYTHONPATH=str(installed))
    where = subprocess.run(
        [sys.executable, "-c", "import gemini_emulator; print(gemini_emulator.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert where.stdout.startswith(str(installed)), where  # the wheel's copy, not the checkout's
    server = subprocess.Popen(
        [sys.executable, "-m", "gemini_emulator", "serve", "--engine", "replay", "--port", str(port)],
        cwd=tmp_path,  # nowhere near a checkout
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith(f"gemini-emulator 0.1.0 listening on 127.0.0.1:{port}, engine replay"), first
        (capture,) = [c for c in load_dir() if c.name == "developer/unary-minimal"]
        (exchange,) = capture.exchanges
        url = f"http://127.0.0.1:{port}{exchange.request.url}"
        deadline = time.monotonic() + BOUND_S
        while True:
            try:
                answer = httpx.post(url, content=exchange.request.body, headers={"x-goog-api-key": "k"})
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "the server never answered"
                time.sleep(0.05)
        assert answer.status_code == exchange.response.status
        assert answer.content == exchange.response.body  # the recorded bytes, from the installed package's data
    finally:
        server.terminate()
        server.wait(timeout=30)


# --- make -------------------------------------------------------------------------------------------------


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAKE or "make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_make_help_lists_every_described_target() -> None:
    described = re.findall(r"(?m)^([a-z][a-z-]*):[^#\n]*## (.+)$", (ROOT / "Makefile").read_text())
    assert {"help", "run", "test", "lint", "bench", "fuzz", "clean"} <= {target for target, _ in described}
    for default_goal in (_make(), _make("help")):
        assert default_goal.returncode == 0, default_goal.stderr
        lines = default_goal.stdout.splitlines()
        assert len(lines) == len(described)
        for (target, text), line in zip(described, lines, strict=True):
            assert line.split() == ["make", target, *text.split()]


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_the_install_step_shows_progress() -> None:
    plan = _make("--always-make", "--dry-run", ".venv/.installed")
    assert plan.returncode == 0, plan.stderr
    assert "--quiet" not in plan.stdout
    assert plan.stdout.count('echo "==> ') >= 3  # one line per step


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_make_run_port_serves_on_that_port() -> None:
    if _make("--question", ".venv/.installed").returncode != 0:
        pytest.skip("the repository's .venv is not installed and up to date (`make run` would install it first)")
    port = free_port("127.0.0.1")
    plan = _make("--dry-run", "run", f"PORT={port}")
    assert plan.stdout.strip().endswith(f"gemini-emulator serve --port {port}")
    env = clean_env()
    env.pop("MAKEFLAGS", None)
    server = subprocess.Popen(
        [MAKE or "make", "--no-print-directory", "run", f"PORT={port}", "ARGS=--strict"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # make and the server it starts: one process group to stop
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(2)]
        assert f"listening on 127.0.0.1:{port}, engine scripted" in lines[1], lines
        deadline = time.monotonic() + BOUND_S
        while True:
            try:
                config = httpx.get(f"http://127.0.0.1:{port}/__emulator/config").json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "make run never served"
                time.sleep(0.05)
        assert config["port"] == port and config["strict"] is True
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


# --- live tests ------------------------------------------------------------------------------------------

LIVE_TESTS = [
    "tests/captures/test_record.py::test_live_recording_replays_byte_for_byte",
    "tests/engines/openai/test_openai_live.py",
]


@pytest.mark.slow
def test_live_tests_need_an_explicit_opt_in() -> None:
    """A key in the environment (`gemini-emulator env` exports GEMINI_API_KEY) never makes a test call a real
    service: GEMINI_EMULATOR_LIVE_TESTS=1 must be set too."""
    keys = {
        "GEMINI_API_KEY": "not-a-real-key",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",  # the discard port: nothing would answer
        "OPENAI_API_KEY": "not-a-real-key",
        "OPENAI_LIVE_MODELS": "gpt-4o-mini",
    }
    env = {k: v for k, v in clean_env(**keys).items() if k != "GEMINI_EMULATOR_LIVE_TESTS"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", *LIVE_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped and all("GEMINI_EMULATOR_LIVE_TESTS=1" in line for line in skipped), done.stdout
    assert "passed" not in done.stdout and "failed" not in done.stdout and "error" not in done.stdout
    readers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if "node_modules" not in path.parts
        and re.search(r"(?:environ\.get|getenv)\(\s*[\"'](?:GEMINI_API_KEY|OPENAI_API_KEY)", path.read_text())
    ]
    assert sorted(readers) == sorted(t.split("::")[0] for t in LIVE_TESTS)  # no other test reads a real key
