"""Agents and environments (issue 33) with the real google-genai 3.6.1 (`client.agents`, `client.environments`,
`client.environments.files`, sync and async) over real sockets: create, get, list with paging, delete, the
workspace's files (list, upload, download, a tar unpacked); an interaction naming a stored agent answered through the
engine seam with the agent's model, system instruction and tools (a scripted entry), and a trigger doing the same;
production-shaped errors, the bounds, and namespaces kept apart."""

from __future__ import annotations

import asyncio
import io
import tarfile
import uuid
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import _interactions

from gemini_emulator.seam import GenerateRequest
from gemini_emulator.stores import agents as agent_store
from gemini_emulator.stores import environments as env_store
from gemini_emulator.testing.pytest_plugin import Gemini

BASE = "antigravity-preview-05-2026"
INLINE = [{"type": "inline", "content": "print('hello')", "target": "src/main.py"}]


def _instructed(text: str) -> Any:
    """A script predicate: the engine was asked with this system instruction."""

    def matches(request: GenerateRequest) -> bool:
        parts = (request.system_instruction or {}).get("parts") or [{}]
        return parts[0].get("text") == text

    return matches


def _headers(gemini: Gemini) -> dict[str, str]:
    return {"x-goog-api-key": gemini.api_key}


# --- agents --------------------------------------------------------------------------------------------------


def test_agents_every_method_sync(gemini: Gemini) -> None:
    client = gemini.client
    made = client.agents.create(
        id="code-reviewer",
        base_agent=BASE,
        description="Reviews code",
        system_instruction="You are a senior code reviewer.",
        agent_config={"type": "antigravity", "model": "gemini-2.5-pro", "max_total_tokens": 5000},
        base_environment={"type": "remote", "sources": INLINE},
        tools=[{"type": "code_execution"}, {"type": "function", "name": "file_bug", "description": "File a bug"}],
    )
    assert made.id == "code-reviewer" and made.base_agent == BASE and made.description == "Reviews code"
    assert made.agent_config is not None and made.agent_config.model == "gemini-2.5-pro"
    assert made.tools is not None and [t.type for t in made.tools] == ["code_execution", "function"]
    unnamed = client.agents.create(system_instruction="Anonymous.")
    assert unnamed.id and unnamed.id.startswith("agent_")
    third = client.agents.create(id="third")
    got = client.agents.get(id="code-reviewer")
    assert got.system_instruction == "You are a senior code reviewer." and got.base_environment is not None
    first = client.agents.list(page_size=2)
    assert [a.id for a in first.agents or []] == ["code-reviewer", unnamed.id] and first.next_page_token
    second = client.agents.list(page_size=2, page_token=first.next_page_token)
    assert [a.id for a in second.agents or []] == [third.id] and second.next_page_token is None
    client.agents.delete(id="code-reviewer")
    with pytest.raises(_interactions.NotFoundError):
        client.agents.get(id="code-reviewer")
    with pytest.raises(_interactions.NotFoundError):
        client.agents.delete(id="code-reviewer")
    assert [a.id for a in client.agents.list().agents or []] == [unnamed.id, third.id]


def test_agents_every_method_async(gemini: Gemini) -> None:
    async def run() -> None:
        client = gemini.client.aio
        made = await client.agents.create(id="async-agent", base_agent=BASE, system_instruction="Be brief.")
        assert (await client.agents.get(id=made.id)).system_instruction == "Be brief."
        other = await client.agents.create(id="async-other")
        listed = await client.agents.list(page_size=1)
        assert [a.id for a in listed.agents or []] == [made.id] and listed.next_page_token
        rest = await client.agents.list(page_token=listed.next_page_token)
        assert [a.id for a in rest.agents or []] == [other.id]
        await client.agents.delete(id=made.id)
        await client.agents.delete(id=other.id)
        assert (await client.agents.list()).agents is None
        with pytest.raises(_interactions.NotFoundError):
            await client.agents.get(id=made.id)

    asyncio.run(run())


@pytest.mark.parametrize(
    "body",
    [
        {"id": "Bad Id!"},
        {"id": "x", "name": "unknown field"},
        {"id": "x", "tools": [{"type": "computer_use"}]},
        {"id": "x", "tools": [{"type": "function"}]},
        {"id": "x", "agent_config": {"type": "deep-research"}},
        {"id": "x", "agent_config": {"max_total_tokens": "many"}},
        {"id": "x", "system_instruction": 7},
        {"id": "x", "base_environment": {"type": "local"}},
        ["not", "an", "object"],
    ],
)
def test_bad_agents_are_400s(gemini: Gemini, body: Any) -> None:
    answer = httpx.post(f"{gemini.url}/v1beta/agents", headers=_headers(gemini), json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_agent_conflicts_and_unknown_ones(gemini: Gemini) -> None:
    url, headers = f"{gemini.url}/v1beta/agents", _headers(gemini)
    assert httpx.post(url, headers=headers, json={"id": "twice"}).status_code == 200
    again = httpx.post(url, headers=headers, json={"id": "twice"})  # raw: the SDK retries a 409
    assert again.status_code == 409 and again.json()["error"]["status"] == "ALREADY_EXISTS"
    built_in = httpx.post(url, headers=headers, json={"id": BASE})
    assert built_in.status_code == 409
    missing = httpx.get(f"{url}/nobody", headers=headers)
    assert missing.status_code == 404
    assert missing.json()["error"] == {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}
    assert httpx.get(url, headers=headers, params={"page_token": "bogus"}).status_code == 400
    assert httpx.get(url, headers=headers, params={"page_size": "lots"}).status_code == 400
    assert httpx.patch(f"{url}/twice", headers=headers, json={}).status_code == 404  # no update method


def test_agent_bounds(gemini: Gemini) -> None:
    url = f"{gemini.url}/v1beta/agents"
    with httpx.Client(headers=_headers(gemini)) as http:
        for index in range(agent_store.MAX_PER_NAMESPACE):
            assert http.post(url, json={"id": f"a{index}"}).status_code == 200
        refused = http.post(url, json={"id": "one-more"})
        assert refused.status_code == 429 and refused.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
        listed = http.get(url, params={"page_size": 5000}).json()
        assert len(listed["agents"]) == agent_store.MAX_PER_NAMESPACE and "next_page_token" not in listed
        http.delete(f"{url}/a0")
        huge = http.post(
            url,
            json={
                "id": "huge",
                "description": "x" * 30_000,
                "system_instruction": "y" * 30_000,
                "tools": [{"type": "function", "name": "f", "description": "z" * 30_000}],
            },
        )
        assert huge.status_code == 400 and "at most" in huge.json()["error"]["message"]


def test_mcp_headers_are_redacted_in_the_journal(gemini: Gemini) -> None:
    tool = {"type": "mcp_server", "name": "tracker", "url": "https://mcp.example/", "headers": {"Auth": "sekret"}}
    gemini.client.agents.create(id="mcp-agent", tools=[tool])
    assert gemini.client.agents.get(id="mcp-agent").tools[0].headers == {"Auth": "sekret"}  # the owner's own
    for call in [*gemini.journal(rpc="agents.create"), *gemini.journal(rpc="agents.get")]:
        assert "sekret" not in str(call.body) and "sekret" not in str(call.record["response"])


# --- environments --------------------------------------------------------------------------------------------


def test_environments_every_method_sync(gemini: Gemini) -> None:
    client = gemini.client
    made = client.environments.create(sources=INLINE, network={"allowlist": [{"domain": "*.googleapis.com"}]})
    assert made.id.startswith("env_") and made.status == "active" and made.file_count == 1 and made.size_bytes == 14
    assert made.sources is not None and made.sources[0].target == "src/main.py" and made.environment_key is None
    fork = client.environments.create(from_environment=f"environments/{made.id}")
    assert fork.id != made.id and fork.file_count == 1
    hosted = client.environments.create(mode="self_hosted", custom_config={"pool": "a"}, system_instruction="Hi.")
    assert hosted.environment_key and hosted.mode == "self_hosted"
    got = client.environments.get(id=hosted.id)
    assert got.environment_key is None and got.custom_config == {"pool": "a"}  # the key is shown once
    first = client.environments.list(page_size=2)
    assert [e.id for e in first.environments or []] == [made.id, fork.id] and first.next_page_token
    second = client.environments.list(page_size=2, page_token=first.next_page_token)
    assert [e.id for e in second.environments or []] == [hosted.id]
    assert [e.id for e in client.environments.list(mode="self_hosted").environments or []] == [hosted.id]
    for journaled in gemini.journal(rpc="environments.create"):
        assert hosted.environment_key not in str(journaled.record["response"])
    client.environments.delete(id=fork.id)
    with pytest.raises(_interactions.NotFoundError):
        client.environments.get(id=fork.id)


def test_environment_files_sync(gemini: Gemini) -> None:
    client = gemini.client
    env = client.environments.create(sources=INLINE)
    uploaded = client.environments.files.upload(
        environment=env.id, path="src/lib/util.py", file=b"def f(): pass\n", mime_type="text/x-python"
    )
    assert uploaded.files and uploaded.files[0].name == "util.py" and uploaded.files[0].size_bytes == 14
    client.environments.files.upload(environment=f"environments/{env.id}", path="/README.md", file=io.BytesIO(b"# r"))
    root = client.environments.files.list(environment=env.id, path="")
    assert [(f.path, f.type) for f in root.files or []] == [("README.md", "file"), ("src", "directory")]
    src = client.environments.files.list(environment=env.id, path="src", page_size=1)
    assert [f.path for f in src.files or []] == ["src/lib"] and src.next_page_token
    rest = client.environments.files.list(environment=env.id, path="src", page_token=src.next_page_token)
    assert [f.path for f in rest.files or []] == ["src/main.py"]
    every = client.environments.files.list(environment=env.id, path="src", recursive=True)
    assert [f.path for f in every.files or []] == ["src/lib/util.py", "src/main.py"]
    one = client.environments.files.list(environment=env.id, path="src/main.py")
    assert one.files and one.files[0].type == "file" and one.files[0].mime_type == "text/x-python"
    assert client.environments.files.download(environment=env.id, path="src/lib/util.py") == b"def f(): pass\n"
    assert client.environments.files.download(environment=f"environments/{env.id}", path="/README.md") == b"# r"
    assert client.environments.get(id=env.id).file_count == 3
    with pytest.raises(_interactions.NotFoundError):
        client.environments.files.list(environment=env.id, path="nowhere")


def test_environment_files_async(gemini: Gemini) -> None:
    async def run() -> None:
        client = gemini.client.aio
        env = await client.environments.create(sources=INLINE)
        assert [e.id for e in (await client.environments.list()).environments or []] == [env.id]
        assert (await client.environments.get(id=env.id)).file_count == 1
        up = await client.environments.files.upload(environment=env.id, path="notes.txt", file=b"async")
        assert up.files and up.files[0].path == "notes.txt"
        listed = await client.environments.files.list(environment=env.id, path="", recursive=True)
        assert [f.path for f in listed.files or []] == ["notes.txt", "src/main.py"]
        assert await client.environments.files.download(environment=env.id, path="notes.txt") == b"async"
        await client.environments.delete(id=env.id)
        assert (await client.environments.list()).environments is None

    asyncio.run(run())


def _tar(members: dict[str, bytes], gz: bool = True) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz" if gz else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_an_uploaded_archive_is_unpacked_and_overwrite_is_asked(gemini: Gemini) -> None:
    client = gemini.client
    env = client.environments.create()
    archive = _tar({"a.txt": b"A", "pkg/b.txt": b"B"})
    unpacked = client.environments.files.upload(environment=env.id, path="site", file=archive, extract=True)
    assert unpacked.files and sorted(f.path for f in unpacked.files) == ["site/a.txt", "site/pkg/b.txt"]
    assert client.environments.files.download(environment=env.id, path="site/pkg/b.txt") == b"B"
    url = f"{gemini.url}/upload/v1beta/environments/{env.id}/files/site/a.txt"
    start = {"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"} | _headers(gemini)
    session = httpx.put(url, headers=start)
    assert session.status_code == 200 and session.headers["x-goog-upload-status"] == "active"
    finalize = {"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}
    clash = httpx.post(session.headers["x-goog-upload-url"], headers=finalize, content=b"again")
    assert clash.status_code == 409 and clash.headers["x-goog-upload-status"] == "final"
    client.environments.files.upload(environment=env.id, path="site/a.txt", file=b"again", overwrite=True)
    assert client.environments.files.download(environment=env.id, path="site/a.txt") == b"again"
    evil = _tar({"../escape.txt": b"x"}, gz=False)
    with pytest.raises(Exception, match="400"):
        client.environments.files.upload(environment=env.id, path="x", file=evil, extract=True)
    with pytest.raises(Exception, match="400"):
        client.environments.files.upload(environment=env.id, path="y", file=b"not a tar", extract=True)


@pytest.mark.parametrize(
    "body",
    [
        {"mode": "sometimes"},
        {"custom_config": {"a": 1}},
        {"system_instruction": "only self_hosted"},
        {"sources": [{"type": "ftp", "source": "x"}]},
        {"sources": [{"type": "inline", "content": "x"}]},
        {"sources": [{"type": "inline", "target": "../x", "content": "x"}]},
        {"sources": [{"type": "inline", "target": "x", "content": "!!", "encoding": "base64"}]},
        {"sources": INLINE, "from_environment": "environments/env_x"},
        {"network": "open"},
        {"env": {}},
    ],
)
def test_bad_environments_are_400s(gemini: Gemini, body: dict[str, Any]) -> None:
    answer = httpx.post(f"{gemini.url}/v1beta/environments", headers=_headers(gemini), json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_environment_errors_and_bounds(gemini: Gemini) -> None:
    url, headers = f"{gemini.url}/v1beta/environments", _headers(gemini)
    assert httpx.post(url, headers=headers, json={"from_environment": "env_missing"}).status_code == 404
    env = gemini.client.environments.create(sources=INLINE)
    files_url = f"{url}/{env.id}/files"
    directory = httpx.get(f"{files_url}/src", headers=headers, params={"alt": "media"})
    assert directory.status_code == 400
    assert httpx.get(f"{files_url}/nothing", headers=headers, params={"alt": "media"}).status_code == 404
    upload = f"{gemini.url}/upload/v1beta/environments/{env.id}/files/big.bin"
    start = {"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"} | headers
    too_big = str(env_store.MAX_FILE_BYTES + 1)
    refused = httpx.put(upload, headers=start | {"x-goog-upload-header-content-length": too_big})
    assert refused.status_code == 413
    many = _tar({f"f{index}": b"" for index in range(env_store.MAX_FILES + 1)}, gz=False)
    with pytest.raises(Exception, match="400"):
        gemini.client.environments.files.upload(environment=env.id, path="many", file=many, extract=True)
    with httpx.Client(headers=headers) as http:
        for _ in range(env_store.MAX_PER_NAMESPACE - 1):
            assert http.post(url, json={}).status_code == 200
        full = http.post(url, json={})
    assert full.status_code == 429 and full.json()["error"]["status"] == "RESOURCE_EXHAUSTED"


# --- agents in interactions and triggers -----------------------------------------------------------------------


def test_an_interaction_names_a_stored_agent(gemini: Gemini) -> None:
    client = gemini.client
    client.agents.create(
        id="code-reviewer",
        base_agent=BASE,
        system_instruction="You are a senior code reviewer.",
        agent_config={"type": "antigravity", "model": "gemini-2.5-pro"},
        tools=[{"type": "google_search"}],
    )
    gemini.script({"text": "Looks good to me."}, predicate=_instructed("You are a senior code reviewer."))
    answered = client.interactions.create(agent="code-reviewer", input="Review my change.", environment="remote")
    assert answered.status == "completed" and answered.output_text == "Looks good to me."
    assert answered.agent == "code-reviewer" and answered.model is None and answered.environment_id
    assert client.environments.get(id=answered.environment_id).status == "active"  # the sandbox it was given
    call = gemini.journal(rpc="interactions.create").last
    assert call.model == "gemini-2.5-pro" and call.entry  # the agent's model, the script's entry
    fetched = client.interactions.get(answered.id)
    assert fetched.agent == "code-reviewer" and fetched.output_text == "Looks good to me."


def test_an_agent_interaction_streams_in_its_environment_and_its_own_instruction_wins(gemini: Gemini) -> None:
    async def run() -> None:
        client = gemini.client.aio
        await client.agents.create(id="helper", system_instruction="Agent default.")
        env = await client.environments.create(sources=INLINE)
        gemini.script({"text": "Overridden."}, predicate=_instructed("Call-time instruction."))
        answered = await client.interactions.create(
            agent="helper", input="Hi", system_instruction="Call-time instruction.", environment=env.id
        )
        assert answered.output_text == "Overridden." and answered.environment_id == env.id
        gemini.script({"text": "Streamed."}, predicate=_instructed("Agent default."))
        stream = await client.interactions.create(agent="helper", input="Hi", stream=True)
        texts = [event async for event in stream]
        assert texts and "Streamed." in str(texts)

    asyncio.run(run())


def test_unknown_agents_and_environments_are_production_errors(gemini: Gemini) -> None:
    client = gemini.client
    with pytest.raises(_interactions.NotFoundError):
        client.interactions.create(agent="nobody", input="Hi")
    client.agents.create(id="real")
    with pytest.raises(_interactions.NotFoundError):
        client.interactions.create(agent="real", input="Hi", environment="env_missing")
    url = f"{gemini.url}/v1beta/interactions"
    both = httpx.post(url, headers=_headers(gemini), json={"agent": "real", "model": "gemini-2.5-flash", "input": "x"})
    assert both.status_code == 400
    built_in = httpx.post(url, headers=_headers(gemini), json={"agent": BASE, "input": "x"})
    assert built_in.status_code == 501  # built-in agents are not served in interactions (as before)


def test_a_trigger_of_a_stored_agent_uses_it(gemini: Gemini) -> None:
    client = gemini.client
    client.agents.create(
        id="reporter",
        system_instruction="Write the report.",
        agent_config={"type": "antigravity", "model": "gemini-2.5-pro"},
    )
    gemini.script({"text": "The report."}, predicate=_instructed("Write the report."))
    trigger = client.triggers.create(
        interaction={"agent": "reporter", "input": "Daily report"}, schedule="0 * * * *", time_zone="UTC"
    )
    ran = client.triggers.run(trigger_id=trigger.id)
    assert ran.status == "completed" and ran.interaction_id
    kept = client.interactions.get(ran.interaction_id)
    assert kept.agent == "reporter" and kept.output_text == "The report."
    assert gemini.journal(rpc="triggers.execute").last.model == "gemini-2.5-pro"
    gemini.script({"text": "Built in."})
    built_in = client.triggers.create(interaction={"agent": BASE, "input": "x"}, schedule="0 * * * *", time_zone="UTC")
    assert client.triggers.run(trigger_id=built_in.id).status == "completed"
    assert gemini.journal(rpc="triggers.execute").last.model == "gemini-2.5-flash"  # the stand-in, as before
    client.agents.delete(id="reporter")
    failed = client.triggers.run(trigger_id=trigger.id)
    assert failed.status == "failed" and failed.error == "Requested entity was not found."


# --- namespaces --------------------------------------------------------------------------------------------------


def test_namespaces_apart(gemini: Gemini) -> None:
    other_key = f"other-{uuid.uuid4().hex}"
    other = genai.Client(api_key=other_key, http_options={"base_url": gemini.url})
    try:
        gemini.client.agents.create(id="mine", system_instruction="Mine.")
        env = gemini.client.environments.create(sources=INLINE)
        assert other.agents.list().agents is None and other.environments.list().environments is None
        with pytest.raises(_interactions.NotFoundError):
            other.agents.get(id="mine")
        with pytest.raises(_interactions.NotFoundError):
            other.agents.delete(id="mine")
        with pytest.raises(_interactions.NotFoundError):
            other.interactions.create(agent="mine", input="Hi")
        with pytest.raises(_interactions.NotFoundError):
            other.environments.files.list(environment=env.id, path="")
        with pytest.raises(Exception, match="404"):
            other.environments.files.download(environment=env.id, path="src/main.py")
        theirs = other.agents.create(id="mine", system_instruction="Theirs.")  # the same id, their own
        assert theirs.system_instruction == "Theirs."
        assert gemini.client.agents.get(id="mine").system_instruction == "Mine."
        summaries = gemini.admin.resources("agents")["agents"]
        assert [s["name"] for s in summaries] == ["agents/mine"]
    finally:
        httpx.delete(f"{gemini.url}/v1beta/agents/mine", headers={"x-goog-api-key": other_key})
