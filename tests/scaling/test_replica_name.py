"""--replica NAME (docs/scaling.md): the resumable upload ids a replica hands out begin `NAME-`, the rest of the
upload protocol unchanged; without it the ids are as before; a name outside letters and digits is refused."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import httpx
import pytest
from served import COMMAND, clean_env

from gemini_emulator.config import Settings
from gemini_emulator.stores.files import FileStore
from gemini_emulator.testing.server import RunningEmulator, start

KEY = "replica-key"
START = {
    "x-goog-api-key": KEY,
    "x-goog-upload-protocol": "resumable",
    "x-goog-upload-command": "start",
    "x-goog-upload-header-content-length": "5",
}
UPLOAD_ID = re.compile(r"[A-Za-z0-9_-]+")  # production's ids are base64url (captures: pydantic-ai cassettes)


@pytest.fixture(scope="module")
def named() -> Iterator[RunningEmulator]:
    server = start(Settings(replica="r7"))
    yield server
    server.stop()


def _started(base: str, path: str = "/upload/v1beta/files", body: dict[str, object] | None = None) -> httpx.Response:
    body = {"file": {"mimeType": "text/plain"}} if body is None else body
    response = httpx.post(base + path, headers=START, json=body, timeout=10)
    assert response.status_code == 200, response.text
    return response


def test_upload_ids_begin_with_the_replica_name_and_the_upload_works(named: RunningEmulator) -> None:
    start_answer = _started(named.url)
    url = start_answer.headers["x-goog-upload-url"]
    upload_id = httpx.URL(url).params["upload_id"]
    assert url == f"{named.url}/upload/v1beta/files?upload_id={upload_id}&upload_protocol=resumable"
    assert upload_id.startswith("r7-") and UPLOAD_ID.fullmatch(upload_id), upload_id
    assert len(upload_id) == len("r7-") + 64  # the 64 random characters are still all there
    assert start_answer.headers["x-guploader-uploadid"] == upload_id
    final = httpx.post(
        url, headers={"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}, content=b"hello"
    )
    assert final.headers["x-goog-upload-status"] == "final"
    name = final.json()["file"]["name"]
    got = httpx.get(f"{named.url}/v1beta/{name}", headers={"x-goog-api-key": KEY}, timeout=10)
    assert got.status_code == 200 and got.json()["sizeBytes"] == "5"
    # the name is no credential: the prefix alone, or the random part with another name, finds no session
    for forged in ("r7-", upload_id.replace("r7-", "r8-", 1), upload_id.removeprefix("r7-")):
        gone = httpx.post(
            f"{named.url}/upload/v1beta/files?upload_id={forged}", headers={"x-goog-upload-command": "query"}
        )
        assert gone.status_code == 404 and gone.headers["x-goog-upload-status"] == "final"


def test_file_search_store_uploads_carry_the_name_too(named: RunningEmulator) -> None:
    made = httpx.post(f"{named.url}/v1beta/fileSearchStores", headers={"x-goog-api-key": KEY}, json={}, timeout=10)
    assert made.status_code == 200, made.text
    path = f"/upload/v1beta/{made.json()['name']}:uploadToFileSearchStore"
    upload_id = httpx.URL(_started(named.url, path, {"mimeType": "text/plain"}).headers["x-goog-upload-url"]).params[
        "upload_id"
    ]
    assert upload_id.startswith("r7-"), upload_id


def test_without_a_name_the_ids_are_as_before() -> None:
    ids = {FileStore().start_upload("ns", "text/plain", "", None, 1).id for _ in range(20)}
    assert all(len(i) == 64 and UPLOAD_ID.fullmatch(i) for i in ids)
    assert FileStore(replica="A9").start_upload("ns", "text/plain", "", None, 1).id.startswith("A9-")


@pytest.mark.parametrize("bad", ["a-b", "r_1", "x" * 17, "名前", "r 1"])
def test_a_name_outside_letters_and_digits_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="1 to 16 letters and digits"):
        Settings.from_env({"GEMINI_EMULATOR_REPLICA": bad})
    with pytest.raises(ValueError, match="1 to 16 letters and digits"):
        FileStore(replica=bad)


def test_serve_refuses_a_bad_name_in_one_line() -> None:
    done = subprocess.run(
        [COMMAND, "serve", "--port", "18080", "--replica", "a-b"], env=clean_env(), capture_output=True, timeout=30
    )
    assert done.returncode != 0
    assert done.stderr.decode().strip().endswith("--replica must be 1 to 16 letters and digits, not 'a-b'")
