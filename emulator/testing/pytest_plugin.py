"""pytest plugin (registered through the `pytest11` entry point): a real emulator on a real socket.

Fixtures:
- `gemini`: this test's own namespace (its own API key, script, journal and resources) on one emulator for the
  whole session (one per pytest-xdist worker): a test pays a few milliseconds, not a server start;
- `gemini_fresh`: an emulator of this test's own, in-process on a free port, for a test that needs its own
  settings (`@pytest.mark.gemini_settings(strict=True, engine="replay", captures="...")`: Settings fields) or a
  server no other test has touched;
- `gemini_emulator`: the session's server itself (`.url`), for tests that drive it by hand;
- `gemini_shared`: the same as `gemini` (its name before `gemini` became the shared one);
- `webhook_receiver`: a real HTTP server on a free loopback port that keeps the webhook deliveries it gets
  (gemini_emulator.testing.webhooks.Receiver: `.url`, `.wait_for(event_type)`, `Received.verify(secret)`).
`gemini` and `gemini_fresh` point the SDKs at the emulator through the environment (GOOGLE_GEMINI_BASE_URL,
GOOGLE_VERTEX_BASE_URL, GEMINI_API_KEY: emulator.sdk_env) and hand back a `Gemini` handle:

    def test_retry(gemini):
        gemini.script({"error": "unavailable"}, {"text": "Hi!"})
        ...
        assert gemini.journal().statuses == [503, 200]
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gemini_emulator.admin.client import AdminClient, Calls
from gemini_emulator.config import Settings
from gemini_emulator.seam import GenerateRequest
from gemini_emulator.testing.sdk_env import sdk_environment, trust_environment
from gemini_emulator.testing.server import RunningEmulator, start
from gemini_emulator.testing.webhooks import Receiver


class Gemini:
    """One test's view of an emulator: its URL and API key, a ready SDK client, scripting and journal."""

    def __init__(self, server: RunningEmulator, api_key: str) -> None:
        self.server = server
        self.url = server.url
        self.api_key = api_key
        self._admin: AdminClient | None = None
        self._client: Any = None

    @property
    def admin(self) -> AdminClient:
        """The admin API for this test's namespace (made on first use: a test that never scripts pays nothing)."""
        if self._admin is None:
            self._admin = AdminClient(self.url, api_key=self.api_key, admin_token=self.server.settings.admin_token)
        return self._admin

    @property
    def client(self) -> Any:
        """A google-genai Client pointed at the emulator with this test's key (google-genai must be installed)."""
        if self._client is None:
            from google import genai
            from google.genai import types

            self._client = genai.Client(api_key=self.api_key, http_options=types.HttpOptions(base_url=self.url))
        return self._client

    def vertex_client(self, project: str = "demo-project", location: str = "us-central1") -> Any:
        """A google-genai Client in Vertex AI mode pointed at the emulator, its OAuth token this test's key (so the
        namespace, scripts and journal are the test's); google-genai (and google-auth) must be installed."""
        import google.oauth2.credentials
        from google import genai
        from google.genai import types

        return genai.Client(
            vertexai=True,
            project=project,
            location=location,
            credentials=google.oauth2.credentials.Credentials(token=self.api_key),
            http_options=types.HttpOptions(base_url=self.url),
        )

    def script(self, *entries: dict[str, Any], predicate: Callable[[GenerateRequest], bool] | None = None) -> None:
        """Append entries to this test's script. `predicate` (a callable on the parsed request) becomes an
        extra matcher of every entry given with it."""
        if predicate is None:
            self.admin.script(*entries)
            return
        store = self.server.store
        if store is None:
            raise RuntimeError("predicates need the scripted engine")
        from gemini_emulator.wire.auth import key_namespace

        store.add(key_namespace(self.api_key), list(entries), predicate=predicate)

    def pending(self) -> list[dict[str, Any]]:
        return self.admin.pending()

    def strict(self, on: bool | None = True) -> None:
        self.admin.strict(on)

    def batch_schedule(self, **plan: Any) -> None:
        """How this test's next batch jobs walk: `batch_schedule(runningMs=2000, state="FAILED")`, `hold=True` to
        keep them RUNNING until cancelled; no argument: back to the default (done within a second)."""
        self.admin.batch_schedule(**plan)

    def journal(self, model: str | None = None, rpc: str | None = None) -> Calls:
        return self.admin.journal(model=model, rpc=rpc)

    def reset(self) -> None:
        self.admin.reset()

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()


def _point_sdks(monkeypatch: pytest.MonkeyPatch, url: str, key: str) -> None:
    for name, value in sdk_environment(url, key).items():  # what `gemini-emulator env` prints
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


def _test_key() -> str:
    return "test-" + uuid.uuid4().hex


SETTINGS_MARKER = "gemini_settings"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{SETTINGS_MARKER}(**fields): Settings for the `gemini_fresh` emulator of this test, e.g. strict=True",
    )


@pytest.fixture(scope="session")
def gemini_emulator() -> Iterator[RunningEmulator]:
    """The session's emulator on 127.0.0.1 (default settings, scripted engine)."""
    running = start(Settings(port=0))
    yield running
    running.stop()


@pytest.fixture(scope="session")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    """One admin connection for the session, kept alive, that forgets each test's namespace when it ends."""
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()


@pytest.fixture
def gemini(
    gemini_emulator: RunningEmulator, _gemini_resetter: AdminClient, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Gemini]:
    """This test's namespace on the session's emulator: its own key, script, journal and resources, forgotten
    when the test ends."""
    handle = Gemini(gemini_emulator, _test_key())
    _point_sdks(monkeypatch, handle.url, handle.api_key)
    yield handle
    handle.close()
    _gemini_resetter.reset(api_key=handle.api_key)


gemini_shared = gemini


@pytest.fixture
def gemini_fresh(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gemini]:
    """An emulator for this test alone, in-process on a free port, with the test's `gemini_settings` marker's
    settings."""
    marker = request.node.get_closest_marker(SETTINGS_MARKER)
    fields: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    running = start(Settings(**{"port": 0, **fields}))
    handle = Gemini(running, _test_key())
    _point_sdks(monkeypatch, handle.url, handle.api_key)
    yield handle
    handle.close()
    running.stop()


@pytest.fixture
def webhook_receiver() -> Iterator[Receiver]:
    """A webhook receiver for this test (testing.webhooks.Receiver), closed when it ends."""
    with Receiver() as receiver:
        yield receiver


@pytest.fixture(scope="session")
def gemini_tls_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    """The session's emulator serving HTTPS and WSS (`--tls`), with a certificate made for it."""
    from gemini_emulator import tls

    certificate = tls.generated("127.0.0.1", tmp_path_factory.mktemp("tls"))
    running = start(Settings(port=0, tls=True, tls_cert=str(certificate.cert), tls_key=str(certificate.key)))
    yield running
    running.stop()


@pytest.fixture
def gemini_tls(gemini_tls_emulator: RunningEmulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gemini]:
    """This test's namespace on the TLS emulator, with SSL_CERT_FILE and NODE_EXTRA_CA_CERTS set so unmodified
    SDKs (google-genai dials the Live API at wss:// only) trust it."""
    bundle = str(gemini_tls_emulator.ca_bundle)
    for name, value in trust_environment(bundle, bundle).items():
        monkeypatch.setenv(name, str(value))
    handle = Gemini(gemini_tls_emulator, _test_key())
    _point_sdks(monkeypatch, handle.url, handle.api_key)
    yield handle
    handle.reset()
    handle.close()
