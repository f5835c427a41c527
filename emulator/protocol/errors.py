"""The error catalogue: every error the emulator sends, with production's status, text and details.

Handlers and engines raise these; only the printers turn them into bytes. Each template cites its
evidence in ../shared/research/wire-facts.md (section in brackets) so a reader can check it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# HTTP code -> google.rpc.Code name, for the codes production uses. [wire-facts §9]
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

_TYPE_PREFIX = "type.googleapis.com/google.rpc."


@dataclass
class ApiError(Exception):
    """A Google API error: rendered as {"error": {code, message, status, details?}}."""

    code: int
    message: str
    status: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.status:
            self.status = STATUS_NAMES.get(self.code, "UNKNOWN")
        super().__init__(self.message)

    def envelope(self) -> dict[str, Any]:
        """The body, in production's key order: code, message, status, details (omitted when empty)."""
        inner: dict[str, Any] = {"code": self.code, "message": self.message, "status": self.status}
        if self.details:
            inner["details"] = self.details
        return {"error": inner}


def debug_info(detail: str) -> dict[str, Any]:
    return {"@type": _TYPE_PREFIX + "DebugInfo", "detail": detail}


def error_info(reason: str, domain: str, metadata: dict[str, str]) -> dict[str, Any]:
    return {"@type": _TYPE_PREFIX + "ErrorInfo", "reason": reason, "domain": domain, "metadata": metadata}


def bad_request(violations: list[tuple[str | None, str]]) -> dict[str, Any]:
    items = [{"field": f, "description": d} if f else {"description": d} for f, d in violations]
    return {"@type": _TYPE_PREFIX + "BadRequest", "fieldViolations": items}


# --- credentials [wire-facts §2, §9] ---------------------------------------------------------

UNREGISTERED_CALLER = (
    "Method doesn't allow unregistered callers (callers without established identity). "
    "Please use API Key or other form of API consumer identity to call this API."
)
API_KEY_INVALID = "API key not valid. Please pass a valid API key."
VERTEX_CREDENTIALS_MISSING = (
    "API keys are not supported by this API. Expected OAuth2 access token or other authentication "
    "credentials that assert a principal. See https://cloud.google.com/docs/authentication"
)
_VERTEX_MISSING_DETAIL = (
    "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie "
    "or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)


def unregistered_caller() -> ApiError:
    """No credential on the Developer API: 403, no details (byte-exact langchaingo trace)."""
    return ApiError(403, UNREGISTERED_CALLER)


# No recording of Firebase AI Logic refusing a request under App Check enforcement exists; Google's front end
# answers other Firebase services' App Check failures with this 401 (firebase-js-sdk's storage module recognises
# its text), so it is the best-known refusal (docs/conformance.md, "App Check").
APP_CHECK_INVALID = "Firebase App Check token is invalid."


def app_check_invalid() -> ApiError:
    """A Firebase AI Logic request without a usable App Check token while enforcement is on (a guess, above)."""
    return ApiError(401, APP_CHECK_INVALID, status="UNAUTHENTICATED")


def api_key_invalid(service: str = "generativelanguage.googleapis.com") -> ApiError:
    """A key that the emulator was told to reject (Firebase fixture unary-failure-api-key.json)."""
    return ApiError(
        400,
        API_KEY_INVALID,
        details=[
            error_info("API_KEY_INVALID", "googleapis.com", {"service": service}),
            {"@type": _TYPE_PREFIX + "LocalizedMessage", "locale": "en-US", "message": API_KEY_INVALID},
        ],
    )


def vertex_credentials_missing(version: str, rpc: str) -> ApiError:
    """Vertex without an OAuth token (adk-go vertex_enabled trace)."""
    return ApiError(
        401,
        VERTEX_CREDENTIALS_MISSING,
        details=[
            debug_info(_VERTEX_MISSING_DETAIL),
            error_info(
                "CREDENTIALS_MISSING",
                "googleapis.com",
                {
                    "method": f"google.cloud.aiplatform.{version}.PredictionService.{rpc}",
                    "service": "aiplatform.googleapis.com",
                },
            ),
        ],
        headers={"www-authenticate": 'Bearer realm="https://accounts.google.com/"'},
    )


def oauth_token_missing(method: str, service: str = "generativelanguage.googleapis.com") -> ApiError:
    """A method that needs an OAuth access token called with an API key alone (files:register reads Cloud
    Storage as the caller). Best-known: the wording and details of Vertex's missing-credential 401."""
    return ApiError(
        401,
        _VERTEX_MISSING_DETAIL,
        details=[error_info("CREDENTIALS_MISSING", "googleapis.com", {"method": method, "service": service})],
        headers={"www-authenticate": 'Bearer realm="https://accounts.google.com/"'},
    )


# --- models [wire-facts §9] ----------------------------------------------------------------------


def model_not_found(model: str, version: str, method: str) -> ApiError:
    """Developer API unknown or retired model: `{code, message, status}`, no details. The VCR recordings of
    pydantic-ai and Mirascope (../shared/corpus) hold 7 such 404s, none with details; the newest (a
    gemini-3.6 typo, so 2026-07 or later) says "Call ModelService.ListModels", the older ones (2025-12) "Call
    ListModels"; the emulator follows the newest. The 2024 Firebase fixture had two DebugInfo details."""
    text = (
        f"models/{model} is not found for API version {version}, or is not supported for {method}. "
        "Call ModelService.ListModels to see the list of available models and their supported methods."
    )
    return ApiError(404, text)


def model_no_longer_available(model: str) -> ApiError:
    """A model shut down in 2026 (google/adk-docs#1840 quotes production's 404)."""
    return ApiError(
        404,
        f"This model models/{model} is no longer available. "
        "Please update your code to use a newer model for the latest features and improvements.",
    )


def vertex_model_not_found(project: str, location: str, model: str) -> ApiError:
    return ApiError(
        404,
        f"Publisher Model `projects/{project}/locations/{location}/publishers/google/models/{model}` was not "
        "found or your project does not have access to it. Please ensure you are using a valid model version. "
        "For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions",
    )


def vertex_registry_model_not_found(project: str, location: str, model: str) -> ApiError:
    """A call on `projects/P/locations/L/models/M` (the Model Registry, where google-genai in Vertex mode sends
    a `models/M` name). No capture shows production's answer; the emulator sends Vertex's JSON 404 with its
    publisher-model wording naming the resource as addressed (docs/conformance.md), so SDKs see NOT_FOUND. With no
    project (express mode's `/v1beta1/models/M`) it names `models/M`."""
    addressed = f"projects/{project}/locations/{location}/models/{model}" if project else f"models/{model}"
    return ApiError(
        404,
        f"Publisher Model `{addressed}` was not found or your project "
        "does not have access to it. Please ensure you are using a valid model version. For more information, "
        "see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions",
    )


# --- cached contents (docs/conformance.md, "Cached contents") -------------------------------------------------
# A public probe record of production (2026-09-07, curl against generativelanguage.googleapis.com: "Prompt caching
# probes") gives the Developer API's texts; the Firebase Vertex fixtures (vertexai/unary-failure-*context-cache*)
# Vertex's.

CACHE_WITH_REQUEST_CONFIG = (
    "CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config."
    "\n\nProposed fix: move those values to CachedContent from GenerateContent request."
)
CACHE_NOT_FOUND = "CachedContent not found (or permission denied)"


def cache_with_request_config() -> ApiError:
    """systemInstruction, tools or toolConfig sent beside cachedContent (probe: the same text for each)."""
    return ApiError(400, CACHE_WITH_REQUEST_CONFIG)


def cache_not_found(backend: str, name: str) -> ApiError:
    """A missing, expired, deleted or another caller's cache: Developer 403 (probe: generate and GET alike),
    Vertex 404 naming the id (Firebase fixture unary-failure-context-cache-not-found.json)."""
    if backend == "developer":
        return ApiError(403, CACHE_NOT_FOUND)
    return ApiError(404, f"Not found: cache content metadata {name.rsplit('/', 1)[-1]}.")


def cache_name_invalid(name: str) -> ApiError:
    """A cachedContent that is no cache's name (Firebase fixture unary-failure-invalid-context-cache-id.json)."""
    return ApiError(400, f"Invalid CachedContent name: {name}.")


def cache_model_mismatch() -> ApiError:
    """Firebase fixture unary-failure-context-cache-model-doesnt-match.json (Vertex; the Developer API's text is
    not captured and is taken to be the same)."""
    return ApiError(400, "Cached content model does not match the model in the request.")


def cache_too_small(total: int, minimum: int) -> ApiError:
    """A create below the model's minimum (probe, and litellm#17696 quoting production)."""
    return ApiError(400, f"Cached content is too small. total_token_count={total}, min_total_token_count={minimum}")


def oneof_already_set(oneof: str, name: str) -> ApiError:
    """Two members of one oneof (ttl and expireTime): ESF's wording (best-known)."""
    violation = (None, f"Invalid JSON payload received. Oneof field '{oneof}' is already set. Cannot set '{name}'")
    return payload_violations([violation])


# --- request validation [wire-facts §9; public issue threads quoting production] ---------------

INVALID_ARGUMENT = "Request contains an invalid argument."


def invalid_argument(message: str = INVALID_ARGUMENT) -> ApiError:
    return ApiError(400, message)


def field_errors(prefix: str, problems: list[str]) -> ApiError:
    """Semantic checks: "* GenerateContentRequest.contents: contents is not specified\\n" (one line each)."""
    return ApiError(400, "".join(f"* {prefix}{p}\n" for p in problems))


def contents_not_specified(message: str = "GenerateContentRequest") -> ApiError:
    return field_errors(f"{message}.", ["contents: contents is not specified"])


def parts_empty(message: str, index: int) -> ApiError:
    return field_errors(f"{message}.", [f"contents[{index}].parts: contents.parts must not be empty."])


VALID_ROLES = "Please use a valid role: user, model."


def invalid_role() -> ApiError:
    return ApiError(400, VALID_ROLES)


def unknown_name(name: str, path: str) -> tuple[str | None, str]:
    """One violation: 'Invalid JSON payload received. Unknown name "x" at 'a.b': Cannot find field.'"""
    where = f" at '{path}'" if path else ""
    return (path or None, f'Invalid JSON payload received. Unknown name "{name}"{where}: Cannot find field.')


def invalid_value(path: str, type_name: str, value_text: str) -> tuple[str | None, str]:
    """One violation: "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "abc"."""
    return (path, f"Invalid value at '{path}' ({type_name}), {value_text}")


def payload_violations(violations: list[tuple[str | None, str]]) -> ApiError:
    """Field-level JSON errors: messages joined by newlines, each also a BadRequest field violation."""
    return ApiError(400, "\n".join(d for _, d in violations), details=[bad_request(violations)])


def invalid_json(snippet: str, column: int) -> ApiError:
    """Body that is not JSON (ESF's parser wording, with the offending text and a caret under it)."""
    return ApiError(400, f"Invalid JSON payload received. Unexpected token.\n{snippet}\n{' ' * column}^")


ROOT_NOT_OBJECT = "Invalid JSON payload received. Root element must be a message."


def root_not_object() -> ApiError:
    return ApiError(400, ROOT_NOT_OBJECT)


def too_deep() -> ApiError:
    """Emulator limit on nesting (production's parser has one too; its wording is not captured)."""
    return ApiError(400, "Invalid JSON payload received. Request is nested too deeply.")


def not_repeating(name: str, path: str) -> tuple[str | None, str]:
    """A list given for a singular field."""
    where = f" at '{path}'" if path else ""
    return (
        path or None,
        f'Invalid JSON payload received. Unknown name "{name}"{where}: Proto field is not repeating, '
        "cannot start list.",
    )


def payload_too_large(limit: int) -> ApiError:
    return ApiError(400, f"Request payload size exceeds the limit: {limit} bytes.")


# Not captured: how production answers a compressed request body it cannot read. The emulator decodes gzip (as
# Google's front ends accept it) and names what it cannot decode (docs/conformance.md, best-known wording).
def unsupported_encoding(encoding: str) -> ApiError:
    return ApiError(
        400, f"Content-Encoding {encoding[:40]!r} is not supported: send the body as it is, or gzip-compressed."
    )


def bad_gzip() -> ApiError:
    return ApiError(400, "The request body is not valid gzip data, though its Content-Encoding says gzip.")


# Not captured: production's front end answers a stalled upload itself. The emulator's own wording, in the
# envelope, with the status the Python SDK retries (docs/conformance.md).
BODY_TIMEOUT = "The request body did not arrive within {seconds:g} seconds."


def body_timeout(seconds: float) -> ApiError:
    return ApiError(408, BODY_TIMEOUT.format(seconds=seconds), status="DEADLINE_EXCEEDED")


# --- the rest of the catalogue [wire-facts §9] ----------------------------------------------------

INTERNAL = (
    "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting"
)
OVERLOADED = (
    "This model is currently experiencing high demand. Spikes in demand are usually temporary. Please try again later."
)
CANCELLED = "The operation was cancelled."


def internal() -> ApiError:
    return ApiError(500, INTERNAL)


def overloaded() -> ApiError:
    return ApiError(503, OVERLOADED)


def cancelled() -> ApiError:
    return ApiError(499, CANCELLED, details=[debug_info("[ORIGINAL ERROR] generic::cancelled: ")])


QUOTA = (
    "You exceeded your current quota, please check your plan and billing details. For more information on this "
    "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: "
    "https://ai.dev/rate-limit. \n* Quota exceeded for metric: {metric}, limit: {limit}, model: {model}\n"
    "Please retry in {delay}s."
)


def quota_exceeded(model: str = "gemini-2.5-flash", retry_seconds: float = 20.0) -> ApiError:
    """Developer API 429, 2026 form (continuedev/continue#10062 and siblings quote it): Help, QuotaFailure,
    RetryInfo. The Retry-After header is the emulator's addition, for clients that honour it."""
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    delay = f"{retry_seconds:g}"
    return ApiError(
        429,
        QUOTA.format(metric=metric, limit=0, model=model, delay=delay),
        details=[
            {
                "@type": _TYPE_PREFIX + "Help",
                "links": [
                    {
                        "description": "Learn more about Gemini API quotas",
                        "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                    }
                ],
            },
            {
                "@type": _TYPE_PREFIX + "QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": metric,
                        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        "quotaDimensions": {"location": "global", "model": model},
                    }
                ],
            },
            {"@type": _TYPE_PREFIX + "RetryInfo", "retryDelay": f"{delay}s"},
        ],
        headers={"retry-after": str(max(1, round(retry_seconds)))},
    )


# Google's generic texts for codes with no Gemini-specific capture (the front end's standard wording).
DEADLINE = "Deadline expired before operation could complete."
NO_PERMISSION = "The caller does not have permission"
UNAUTHENTICATED = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
    "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
)
USER_LOCATION = "User location is not supported for the API use."


def named(name: str, model: str = "gemini-2.5-flash", version: str = "v1beta") -> ApiError:
    """A catalogue error by name, for scripts: see NAMES."""
    try:
        factory = NAMES[name]
    except KeyError:
        raise KeyError(f"unknown error name {name!r}; known: {', '.join(sorted(NAMES))}") from None
    return factory(model, version)


NAMES = {
    "quota": lambda model, version: quota_exceeded(model),
    "internal": lambda model, version: internal(),
    "unavailable": lambda model, version: overloaded(),
    "deadline": lambda model, version: ApiError(504, DEADLINE),
    "permission": lambda model, version: ApiError(403, NO_PERMISSION),
    "unregistered": lambda model, version: unregistered_caller(),
    "unauthenticated": lambda model, version: ApiError(401, UNAUTHENTICATED),
    "invalid": lambda model, version: invalid_argument(),
    "apiKey": lambda model, version: api_key_invalid(),
    "notFound": lambda model, version: model_not_found(model, version, "generateContent"),
    "location": lambda model, version: ApiError(400, USER_LOCATION, status="FAILED_PRECONDITION"),
    "cancelled": lambda model, version: cancelled(),
}


def script_unmatched(near_misses: list[tuple[str, list[str]]]) -> ApiError:
    """Emulator-only (strict mode): no script entry answered the request; names the nearest entries and why."""
    if not near_misses:
        text = "gemini-emulator strict mode: no script entry matched this request, and none is pending."
    else:
        ranked = sorted(near_misses, key=lambda miss: len(miss[1]))[:3]
        nearest = "; ".join(f"{name!r}: {', '.join(why)}" for name, why in ranked)
        text = f"gemini-emulator strict mode: no script entry matched this request. Nearest: {nearest}."
    return ApiError(400, text, status="FAILED_PRECONDITION")


def not_implemented(what: str) -> ApiError:
    """Emulator-only: a method the emulator routes but does not serve yet (no production analogue)."""
    return ApiError(501, f"The emulator does not implement {what} yet.")


# --- admin API access (emulator-only: no production analogue) ------------------------------------------------


def admin_token_required(header: str) -> ApiError:
    """An admin call without the configured token, or with another one."""
    return ApiError(
        403,
        f"gemini-emulator admin API: this call needs the admin token in the {header} header "
        "(the value given to --admin-token or GEMINI_EMULATOR_ADMIN_TOKEN).",
    )


def admin_disabled(host: str, header: str) -> ApiError:
    """An admin call to a server bound to a non-loopback address that has no token configured."""
    return ApiError(
        403,
        f"gemini-emulator admin API: refused because the server listens on {host}, which is not a loopback "
        "address, and no admin token is set. Start it with --admin-token TOKEN (or the environment variable "
        f"GEMINI_EMULATOR_ADMIN_TOKEN=TOKEN) and send the token in the {header} header. "
        "GET /__emulator/health needs no token.",
    )


# --- openai engine: an OpenAI-compatible upstream failed (emulator-only wording; codes from this catalogue) ---


def upstream_said(upstream: str, status: int, message: str) -> dict[str, Any]:
    """A DebugInfo detail carrying the upstream's own words, added to the Google error it was mapped to."""
    return debug_info(f"upstream {upstream} answered HTTP {status}: {message}")


def upstream_unavailable(upstream: str, reason: str) -> ApiError:
    """The upstream did not answer (refused, timed out, 5xx, broke off): retryable, like production's 503."""
    return ApiError(503, f"The upstream model server {upstream} is unavailable: {reason}")


def upstream_invalid(upstream: str, problem: str) -> ApiError:
    """The upstream answered something that cannot become a Gemini response (malformed JSON, bad tool calls)."""
    return ApiError(
        500, f"The upstream model server {upstream} sent an answer the emulator cannot translate: {problem}"
    )


def not_translatable(what: str) -> ApiError:
    """Part of a Gemini request that has no OpenAI chat-completions form."""
    return ApiError(400, f"The openai engine cannot send {what} to an OpenAI-compatible upstream.")


def replay_unmatched(summary: str, closest: list[str]) -> ApiError:
    """Emulator-only (replay): no recorded exchange answers the request; names the closest captures and
    where each first differs."""
    text = f"gemini-emulator replay: no capture matches this request ({summary})."
    if closest:
        text += " Closest: " + "; ".join(closest) + "."
    return ApiError(404, text)


def live_modalities_refused(modalities: list[str]) -> str:
    """A Live setup asking an audio-native model for what it cannot answer with (google-genai 3.6.1's live tests
    quote it: "The requested combination of response modalities (TEXT) is not supported by the model")."""
    return f"The requested combination of response modalities ({', '.join(modalities)}) is not supported by the model."
