"""`gemini-emulator env --tls`: https URLs and what makes each SDK trust the emulator's own certificate."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from gemini_emulator import cli, tls


def test_env_tls_prints_the_trust_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cli.main(["env", "--tls", "--port", "8443"]) == 0
    lines = dict(
        line.removeprefix("export ").split("=", 1) for line in capsys.readouterr().out.splitlines() if "=" in line
    )
    assert lines["GOOGLE_GEMINI_BASE_URL"] == "https://127.0.0.1:8443"
    bundle, cert = Path(lines["SSL_CERT_FILE"]), Path(lines["NODE_EXTRA_CA_CERTS"])
    assert cert == tmp_path / "gemini-emulator" / "tls" / "cert.pem"
    assert cert.read_bytes() in bundle.read_bytes()  # certifi's CAs plus the emulator's
    ssl.create_default_context(cafile=str(bundle))  # a bundle Python's ssl loads
    again = tls.generated("127.0.0.1", tmp_path / "gemini-emulator" / "tls")
    assert again.cert.read_bytes() == cert.read_bytes()  # reused, so the server and `env` agree


def test_cert_and_key_go_together() -> None:
    with pytest.raises(ValueError, match="go together"):
        tls.resolve("/tmp/only-cert.pem", None, "127.0.0.1")


def test_serve_tls_answers_https_and_wss_with_the_certificate_env_names(tmp_path: Path) -> None:
    """`gemini-emulator serve --tls` as a user runs it: its own certificate, trusted through what `env --tls` prints."""
    import asyncio
    import json
    import subprocess
    import sys
    import time

    import httpx
    import websockets
    from served import clean_env

    from gemini_emulator.testing.server import free_port

    port = free_port("127.0.0.1")
    env = clean_env(XDG_CACHE_HOME=str(tmp_path))
    server = subprocess.Popen(
        [sys.executable, "-m", "gemini_emulator", "serve", "--tls", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert f"https://127.0.0.1:{port}" in "".join(server.stdout.readline() for _ in range(12))
        bundle = tmp_path / "gemini-emulator" / "tls" / "bundle.pem"
        deadline = time.monotonic() + 30
        while True:
            try:
                listed = httpx.get(
                    f"https://127.0.0.1:{port}/v1beta/models",
                    headers={"x-goog-api-key": "k"},
                    verify=ssl.create_default_context(cafile=str(bundle)),
                )
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "the server never answered"
                time.sleep(0.05)
        assert listed.status_code == 200

        async def live() -> dict[str, object]:
            path = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=k"
            context = ssl.create_default_context(cafile=str(bundle))
            async with websockets.connect(f"wss://127.0.0.1:{port}{path}", ssl=context) as ws:
                await ws.send(json.dumps({"setup": {"model": "models/gemini-2.5-flash-native-audio-latest"}}))
                return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))

        assert asyncio.run(live()) == {"setupComplete": {}}
    finally:
        server.terminate()
        server.wait(timeout=30)
