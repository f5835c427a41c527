"""Claims of issue 33's agents and environments: `client.agents` (create, get, list, delete), `client.environments`
(create, get, list, delete) and `client.environments.files` (list, upload, download), and a stored agent named by an
interaction or a trigger."""

from __future__ import annotations

from claim_type import Claim

_T = "tests/wire/resources/test_agents.py::"
_SDK = (
    "google-genai 3.6.1 _gaos/agents.py, _gaos/environments.py, _gaos/files.py, _gaos/_internal.py, google_genai.py, "
    "_gaos/types/agents/, _gaos/types/environments/, tests/gaos/test_environments_lifecycle.py"
)
_GUIDE = "ai.google.dev/gemini-api/docs/custom-agents (Building Managed Agents: an agent saved by id, then invoked)"

AGENT_CLAIMS: list[Claim] = [
    Claim(
        "agents-crud",
        "POST|GET /{v}/agents, GET|DELETE /{v}/agents/{id}",
        "create takes an Agent {id?, description?, base_agent?, agent_config? {type antigravity, model?, "
        "max_total_tokens?}, system_instruction?, base_environment? (an id or {type remote, ...}), tools? "
        "(code_execution, url_context, google_search, function, mcp_server)} and answers it, its id the caller's or "
        "agent_…; get answers it, list pages them oldest first ({agents, next_page_token}, page_size/page_token), "
        "delete answers {}; an unknown id is a 404 NOT_FOUND (Requested entity was not found.); each key sees only its "
        "own",
        (
            _T + "test_agents_every_method_sync",
            _T + "test_agents_every_method_async",
            _T + "test_agent_conflicts_and_unknown_ones",
            _T + "test_namespaces_apart",
        ),
        source=f"{_SDK}; {_GUIDE}",
        divergence="best-known: the generated id's form, the id rule (1-63 lowercase letters, digits, - or _), key "
        "order, page sizes (50, at most 1000), the page token, a duplicate or built-in id as 409 ALREADY_EXISTS, "
        "every error's wording",
    ),
    Claim(
        "agents-validation",
        "POST /{v}/agents",
        "An unknown field, a bad id, a tool of another type or a function without a name, an agent_config of another "
        "type or a non-integer max_total_tokens, a non-string text field, a base_environment not an id or remote, a "
        "non-object body: each a 400 INVALID_ARGUMENT",
        (_T + "test_bad_agents_are_400s",),
        source=f"{_SDK} (AgentParam, AgentToolParam, AntigravityAgentConfigParam)",
        divergence="best-known: production's refusal wording and which checks it makes",
    ),
    Claim(
        "agents-in-interactions",
        "POST /{v}/interactions",
        "An interaction whose agent is a stored agent of the key is answered through the engine seam (scripts, "
        "faults, journal) as a model interaction of the agent's agent_config.model (else gemini-2.5-flash), system "
        "instruction and tools, each overridden by the interaction's own (MCP servers left out); unary, streamed or "
        "background; its view names the agent (no model); an agent extending another stored agent takes what it "
        "lacks from it; an unknown agent is a 404, model with agent a 400, a built-in agent still a 501",
        (
            _T + "test_an_interaction_names_a_stored_agent",
            _T + "test_an_agent_interaction_streams_in_its_environment_and_its_own_instruction_wins",
            _T + "test_unknown_agents_and_environments_are_production_errors",
            _T + "test_namespaces_apart",
        ),
        source=f"{_GUIDE}; {_SDK} (CreateAgentInteraction: agent, agent_config, environment; Interaction.agent)",
        divergence="best-known: the stand-in model, the override rule, the 404 for an unknown agent (production may "
        "answer 400); nothing of Antigravity's agent loop is emulated: one generate call answers",
    ),
    Claim(
        "agents-in-triggers",
        "POST /{v}/triggers/{id}/executions",
        "A trigger whose interaction names a stored agent runs as that agent (its model in the journal's "
        "triggers.execute record, its system instruction to the engine); a built-in agent is answered by "
        "gemini-2.5-flash as before; a name that is neither fails the execution with the 404's message",
        (_T + "test_a_trigger_of_a_stored_agent_uses_it",),
        source=f"{_SDK}; google-genai 3.6.1 _gaos/types/triggers/ (Trigger.interaction: a CreateAgentInteraction)",
        divergence="best-known: the stand-in model for built-in agents and the failed execution's error text",
    ),
    Claim(
        "environments-crud",
        "POST|GET /{v}/environments, GET|DELETE /{v}/environments/{id}",
        "create takes {mode? (on_demand, self_hosted), network? (disabled or an allowlist), sources? (gcs, inline, "
        "repository, skill_registry), custom_config? and system_instruction? (self_hosted only), from_environment? "
        "(a copy; sources then empty)} and answers an Environment {id env_…, status active, mode, network, sources, "
        "custom_config, file_count, size_bytes (int64 strings), created, updated, last_accessed}, a self_hosted one's "
        "environment_key only in the create's answer (journaled REDACTED); list pages them ({environments, "
        "next_page_token}, filtered by mode); delete answers {}; an unknown id or from_environment is a 404; bad "
        "bodies are 400s",
        (
            _T + "test_environments_every_method_sync",
            _T + "test_environment_files_async",
            _T + "test_bad_environments_are_400s",
            _T + "test_environment_errors_and_bounds",
        ),
        source=f"{_SDK} (CreateEnvironmentRequest, Environment, ListEnvironmentsResponse; the docstrings' rules)",
        divergence="best-known: the id's form, key order, page sizes, what a source of type other than inline holds "
        "(recorded, not fetched), every error's wording",
    ),
    Claim(
        "environments-files",
        "GET /{v}/environments/{id}/files/{path}, PUT|POST /upload/{v}/environments/{id}/files/{path}",
        "An inline source is a workspace file at its target; files.list answers a file's metadata as one entry, a "
        "directory's children (files and directories, by path) or with recursive every file under it, paged; "
        "?alt=media (files.download) answers the bytes; files.upload's resumable start answers X-Goog-Upload-URL and "
        "its finalize {file: EnvironmentFile}; overwrite is needed to replace a file (else 409); extract unpacks a "
        "tar or tar.gz under the path ({files: [...]}), refusing paths with .. and other than regular files",
        (
            _T + "test_environment_files_sync",
            _T + "test_environment_files_async",
            _T + "test_an_uploaded_archive_is_unpacked_and_overwrite_is_asked",
        ),
        source=f"{_SDK} (GetEnvironmentFilesResponse, EnvironmentFile, StartEnvironmentFileUpload's headers)",
        divergence="best-known: `path` printed as the caller's relative path (the SDK's test server prints "
        "workspace/…), directories without times or sizes, the finalize's answer shape (the SDK's test server's), "
        "the 409 without overwrite, the mime type guessed from the name for inline sources and archive members",
    ),
    Claim(
        "agents-environments-bounds",
        "POST /{v}/agents, POST /{v}/environments, the environment file upload",
        "At most 100 agents a key (then a 429 RESOURCE_EXHAUSTED), 10000 in all, 64 KiB an agent, 2 MiB a key's and "
        "64 MiB all agents; at most 100 environments a key and 10000 in all, 64 KiB of configuration each; 1000 files "
        "and 32 MiB an environment, 8 MiB a file (a larger upload's start is a 413), 64 MiB a key's files and 256 MiB "
        "all; an archive of more than 1000 entries or 8 MiB unpacked is a 400",
        (_T + "test_agent_bounds", _T + "test_environment_errors_and_bounds"),
        source="the emulator's own bounds",
        divergence="deliberate: production's quotas are not published",
    ),
]
