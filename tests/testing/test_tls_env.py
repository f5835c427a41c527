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
