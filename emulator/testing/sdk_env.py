"""The environment that points unmodified SDKs at an emulator: what `gemini-emulator env` prints and the
pytest fixtures set.

Read from each SDK's source: google-genai (Python) and @google/genai (Node builds) take their base URL from
GOOGLE_GEMINI_BASE_URL (GOOGLE_VERTEX_BASE_URL in Vertex AI mode) and their key from GOOGLE_API_KEY, else
GEMINI_API_KEY; @langchain/google-genai reads the same two keys; @ai-sdk/google reads GOOGLE_GENERATIVE_AI_API_KEY.
No SDK but the two google-genai ones reads a base URL from the environment.
"""

from __future__ import annotations

import shlex

# The key printed when the emulator accepts any key (each key is its own namespace).
DEFAULT_CLIENT_KEY = "gemini-emulator"
SHELLS = ("sh", "fish", "powershell")

# A server bound to a wildcard address is reached through loopback.
WILDCARD_LOOPBACK = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1"}


def client_base_url(host: str, port: int, tls: bool = False) -> str:
    """The URL a client on this machine uses for a server bound to host:port (https with --tls)."""
    host = WILDCARD_LOOPBACK.get(host, host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{'https' if tls else 'http'}://{host}:{port}"


def trust_environment(ca_bundle: str, certificate: str) -> dict[str, str | None]:
    """What the SDKs need to trust a --tls emulator: Python's (google-genai, httpx) CA bundle, Node's extra CAs."""
    return {
        "SSL_CERT_FILE": ca_bundle,  # google-genai (live.py and httpx), requests-free Python clients
        "NODE_EXTRA_CA_CERTS": certificate,  # @google/genai and every Node client
    }


def sdk_environment(base_url: str, api_key: str) -> dict[str, str | None]:
    """Variable → value; None means the variable must be unset."""
    return {
        "GOOGLE_GEMINI_BASE_URL": base_url,  # google-genai, @google/genai
        "GOOGLE_VERTEX_BASE_URL": base_url,  # the same SDKs in Vertex AI mode
        "GEMINI_API_KEY": api_key,  # google-genai, @google/genai, @langchain/google-genai
        "GOOGLE_GENERATIVE_AI_API_KEY": api_key,  # @ai-sdk/google (its base URL is set in code)
        "GOOGLE_API_KEY": None,  # preferred over GEMINI_API_KEY by those SDKs: a real key there must not win
    }


def shell_lines(environment: dict[str, str | None], shell: str = "sh") -> str:
    """The environment as lines that `eval` (sh), `source` (fish) or `Invoke-Expression` (PowerShell) applies."""
    if shell not in SHELLS:
        raise ValueError(f"unknown shell {shell!r}; choose one of {', '.join(SHELLS)}")
    return "\n".join(
        _unset(name, shell) if value is None else _set(name, value, shell) for name, value in environment.items()
    )


def _set(name: str, value: str, shell: str) -> str:
    if shell == "fish":
        return f"set -gx {name} '" + value.replace("\\", "\\\\").replace("'", "\\'") + "';"
    if shell == "powershell":
        return f"$Env:{name} = '" + value.replace("'", "''") + "'"
    return f"export {name}={shlex.quote(value)}"


def _unset(name: str, shell: str) -> str:
    if shell == "fish":
        return f"set -e {name};"
    if shell == "powershell":
        return f"Remove-Item Env:{name} -ErrorAction SilentlyContinue"
    return f"unset {name}"
