"""The URL grammar: every path the emulator serves, for the three URL families. [wire-facts §1]

Developer API   /{v1,v1beta,v1alpha}/models/{model}:{method}        GET /{ver}/models[/{model}]
Vertex AI       /{v1,v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{model}:{method}
Vertex express  /{v1,v1beta1}/publishers/google/models/{model}:{method}
Vertex models   /{v1,v1beta1}/projects/{p}/locations/{l}/models/{model}:{method}   (the Model Registry: where
                google-genai in Vertex mode sends a `models/x` name; answered with Vertex's JSON 404)
Firebase AI     /v1beta/projects/{p}/models/{model}:{method}                        (Developer backend)
                /v1beta/projects/{p}/locations/{l}/publishers/google/models/{m}:{method}  (Vertex backend)
OpenAI compat   POST /v1beta/openai/{chat/completions,embeddings,images/generations}
                GET /v1beta/openai/models[/{model}]
                (action "openai"; `method` names the operation; served by gemini_emulator.wire.openai_compat)
Resources       /{ver}/cachedContents[/{id}]  /{v1,v1beta1}/projects/{p}/locations/{l}/cachedContents[/{id}]
                /{v1,v1beta1}/projects/{p}/locations/{l}/batchPredictionJobs[/{id}[:cancel]] (Vertex batches)
                /{ver}/batches[/{id}[:cancel]]   (action "cachedContents" or "batches"; `method` the verb:
                create, list, get, patch, delete, cancel; `resource` the id; gemini_emulator.wire.resources)
Tunings         /{v1,v1beta1}/projects/{p}/locations/{l}/tuningJobs[/{id}[:cancel]]   /{ver}/tunedModels[/{id}[:cancel]]
Voices          /{ver}/voices[/{id}]                                  (gemini_emulator.wire.resources.voices)
Decisions       POST /{ver}/decisions                                 (gemini_emulator.wire.media.decisions)
                GET /{v1,v1beta1}/projects/{p}/locations/{l}/models[/{id}] (the Model Registry's tuned models)
                POST /{ver}/tunedModels/{id}:{method}, /{v1,v1beta1}/projects/{p}/locations/{l}/endpoints/{id}:{method}
                (families TUNED, ENDPOINTS: a tuned model's calls; gemini_emulator.wire.resources.tunings)
Templates       POST /v1beta/projects/{p}/templates/{id}:{templateGenerateContent,templateStreamGenerateContent}
                POST /v1beta/projects/{p}/locations/{l}/templates/{id}:{same}   (Firebase AI Logic server prompt
                templates, Developer and Vertex backends; action "templates", `resource` the template id;
                gemini_emulator.wire.templates)
Webhooks        /{ver}/webhooks[/{id}[:ping|:rotateSigningSecret]] (action "webhooks"; `method` the verb: create, list,
                get, update, delete, ping, rotateSigningSecret; gemini_emulator.wire.resources.webhooks)
Triggers        /{ver}/triggers[/{id}[/executions]]                 (action "triggers"; `method`: create, list, get,
                update, delete, run, list_executions; gemini_emulator.wire.resources.triggers)
Agents          /{ver}/agents[/{id}]                                  (action "agents"; `method`: create, list, get,
                delete; gemini_emulator.wire.resources.agents)
Environments    /{ver}/environments[/{id}[/files/{path}]]  PUT|POST /upload/{ver}/environments/{id}/files/{path}
                (action "environments"; `method`: create, list, get, delete, files, upload; `name` the file path;
                gemini_emulator.wire.resources.environments)
Rooms           GET /{ver}/operations, GET|DELETE /{ver}/{...}/operations/{id}, POST ...operations/{id}:cancel
                POST /upload/{ver}/files, GET /{ver}/files, GET|DELETE /{ver}/files/{id}, GET ...files/{id}:download
                POST /{ver}/files (metadata-only create), POST /{ver}/files:register (Cloud Storage objects)
                POST|GET /{ver}/fileSearchStores, GET|DELETE .../fileSearchStores/{id}, POST [/upload]/{ver}/
                fileSearchStores/{id}:uploadToFileSearchStore, POST ...:importFile, GET .../{id}/documents[/{doc}],
                DELETE .../documents/{doc}
                (action "room"; `method` is "room.verb", `name` the resource; gemini_emulator.wire.resources.dispatch)

`match` turns a method and path into a `Target`; anything else is `None` (Google's HTML 404). That includes a
Firebase Vertex path whose location is no region at all: production's front end answered
`locations/invalid-location` with its HTML 404 page [wire-facts §1.2]. Region-shaped names (`us-central1`,
`europe-west4`, one-word `global`, `us`, `eu`) are routed, known to Google or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Methods the emulator serves on a model, and those production has that it does not serve yet.
SERVED_METHODS = frozenset(
    {
        "generateContent",
        "streamGenerateContent",
        "countTokens",
        "computeTokens",
        "embedContent",
        "batchEmbedContents",
        "predict",
    }
)
KNOWN_METHODS = SERVED_METHODS | frozenset(
    {
        "embedContent",
        "batchEmbedContents",
        "computeTokens",
        "predict",
        "predictLongRunning",
        "fetchPredictOperation",
        "batchGenerateContent",
        "asyncBatchEmbedContent",
        "countTextTokens",
    }
)

DEVELOPER = "developer"
VERTEX = "vertex"
REGISTRY = "vertex-models"  # the Vertex Model Registry family: projects/{p}/locations/{l}/models/{m}
EXPRESS_MODELS = "vertex-express-models"  # /v1beta1/models/{m}: where google-genai in express mode sends `models/m`
REGISTRIES = (REGISTRY, EXPRESS_MODELS)  # families that hold no publisher model: every call is Vertex's JSON 404
TUNED = "developer-tuned"  # /{ver}/tunedModels/{id}:{method}: a Developer API tuned model (model "tunedModels/{id}")
ENDPOINTS = "vertex-endpoints"  # /{ver}/projects/{p}/locations/{l}/endpoints/{id}:{method} (model "endpoints/{id}")
TUNED_FAMILIES = (TUNED, ENDPOINTS)  # a tuned model's calls: the caller's own, resolved by its tuning job

# A location the Firebase proxy routes: a multi-region word or a region ({area}-{direction}{number}), in any case
# (only `invalid-location` is known to be refused). Vertex AI proper picks its region by host name, so a location
# in its path is not checked (captures keep REDACTED there).
_LOCATION = re.compile(r"[a-z]+(?:-[a-z]+[0-9]+)?", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """What a URL addresses."""

    action: str  # "call" (POST a model method), "get_model", "list_models" or "openai" (the compat surface)
    backend: str  # DEVELOPER or VERTEX: decides response shapes
    family: str  # "developer", "vertex", "vertex-express", "firebase-developer", "firebase-vertex"
    version: str
    model: str = ""
    method: str = ""
    project: str = ""
    location: str = ""
    resource: str = ""  # a resource's id (cachedContents/{resource}, batches/{resource})
    name: str = ""  # a resource's whole name (action "room"): "operations/abc", "models/m/operations/abc"

    @property
    def uses_oauth(self) -> bool:
        """Vertex proper authenticates with OAuth bearer tokens; everything else takes API keys."""
        return self.family in ("vertex", REGISTRY, ENDPOINTS)


_SEG = r"[^/:]+"
_DEV_VERSIONS = r"v1|v1beta|v1alpha"
_VERTEX_VERSIONS = r"v1|v1beta1"

_POST_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/models/(?P<model>{_SEG}):(?P<method>\w+)$"), DEVELOPER, "developer"),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/"
            rf"(?P<location>{_SEG})/publishers/google/models/(?P<model>{_SEG}):(?P<method>\w+)$"
        ),
        VERTEX,
        "vertex",
    ),
    (
        re.compile(rf"^/(?P<version>{_VERTEX_VERSIONS})/publishers/google/models/(?P<model>{_SEG}):(?P<method>\w+)$"),
        VERTEX,
        "vertex-express",
    ),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/"
            rf"(?P<location>{_SEG})/models/(?P<model>{_SEG}):(?P<method>\w+)$"
        ),
        VERTEX,
        REGISTRY,
    ),
    (
        re.compile(rf"^/(?P<version>v1beta1)/models/(?P<model>{_SEG}):(?P<method>\w+)$"),  # v1 is the Developer API's
        VERTEX,
        EXPRESS_MODELS,
    ),
    (
        re.compile(rf"^/(?P<version>v1beta)/projects/(?P<project>{_SEG})/models/(?P<model>{_SEG}):(?P<method>\w+)$"),
        DEVELOPER,
        "firebase-developer",
    ),
    (
        re.compile(
            rf"^/(?P<version>v1beta)/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/publishers/google/models/(?P<model>{_SEG}):(?P<method>\w+)$"
        ),
        VERTEX,
        "firebase-vertex",
    ),
]

# Tuned models (gemini_emulator.wire.resources.tunings): what google-genai 3.6.1's t_model keeps as written.
_POST_RULES += [
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<model>tunedModels/{_SEG}):(?P<method>\w+)$"),
        DEVELOPER,
        TUNED,
    ),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/(?P<model>endpoints/{_SEG}):(?P<method>\w+)$"
        ),
        VERTEX,
        ENDPOINTS,
    ),
]

_GET_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/models(?:/(?P<model>{_SEG}))?/?$"), DEVELOPER, "developer"),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/(?:projects/(?P<project>{_SEG})/locations/"
            rf"(?P<location>{_SEG})/)?publishers/google/models(?:/(?P<model>{_SEG}))?/?$"
        ),
        VERTEX,
        "vertex",
    ),
]


_MATCHED: dict[tuple[str, str], Target | None] = {}
_MATCHED_MAX = 4096


def match(http_method: str, path: str) -> Target | None:
    """The target of a request, or None when production would not route it. Clients call the same few URLs
    over and over: each answer is kept (a bounded table; a Target is immutable)."""
    key = (http_method, path)
    try:
        return _MATCHED[key]
    except KeyError:
        pass
    target = _match(http_method, path)
    if len(_MATCHED) >= _MATCHED_MAX:
        _MATCHED.clear()
    _MATCHED[key] = target
    return target


# The OpenAI-compatible surface: its operations by method and path below the prefix.
OPENAI_PREFIX = "/v1beta/openai/"
OPENAI_FAMILY = "openai-compat"
_OPENAI_POST = {
    "chat/completions": "chat.completions",
    "embeddings": "embeddings",
    "images/generations": "images.generations",
}
_OPENAI_MODEL = re.compile(r"^models/(?:models/)?(?P<model>[^/]+)/?$")  # the SDKs send ids as listed


def _openai(http_method: str, rest: str) -> Target | None:
    if http_method == "POST" and rest.rstrip("/") in _OPENAI_POST:
        return Target("openai", DEVELOPER, OPENAI_FAMILY, "v1main", method=_OPENAI_POST[rest.rstrip("/")])
    if http_method in ("GET", "HEAD"):
        if rest.rstrip("/") == "models":
            return Target("openai", DEVELOPER, OPENAI_FAMILY, "v1main", method="models.list")
        m = _OPENAI_MODEL.match(rest)
        if m:
            return Target("openai", DEVELOPER, OPENAI_FAMILY, "v1main", model=m["model"], method="models.get")
    return None


# Resource collections: (pattern, backend, family, collection); the verb comes from the HTTP method.
_RESOURCE_RULES: list[tuple[re.Pattern[str], str, str, str]] = [
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/cachedContents(?:/(?P<resource>{_SEG}))?/?$"),
        DEVELOPER,
        "developer",
        "cachedContents",
    ),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/cachedContents(?:/(?P<resource>{_SEG}))?/?$"
        ),
        VERTEX,
        "vertex",
        "cachedContents",
    ),
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/batches(?:/(?P<resource>{_SEG})(?P<cancel>:cancel)?)?/?$"),
        DEVELOPER,
        "developer",
        "batches",
    ),
]
# Vertex batch prediction jobs (gemini_emulator.wire.resources.prediction_jobs): what google-genai's batches use there.
_RESOURCE_RULES += [
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/batchPredictionJobs(?:/(?P<resource>{_SEG})(?P<cancel>:cancel)?)?/?$"
        ),
        VERTEX,
        "vertex",
        "batchPredictionJobs",
    ),
]
# The Interactions API (gemini_emulator.wire.media.interactions): create, get, delete, and cancel as a sub-path.
_RESOURCE_RULES += [
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/interactions(?:/(?P<resource>{_SEG})(?P<cancel>/cancel)?)?/?$"),
        DEVELOPER,
        "developer",
        "interactions",
    ),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/interactions(?:/(?P<resource>{_SEG})(?P<cancel>/cancel)?)?/?$"
        ),
        VERTEX,
        "vertex",
        "interactions",
    ),
]
# Tuning (gemini_emulator.wire.resources.tunings): Vertex tuningJobs, the Developer API's tunedModels, and the
# Vertex Model Registry's listing and get (where google-genai lists tuned models there).
_RESOURCE_RULES += [
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/tuningJobs(?:/(?P<resource>{_SEG})(?P<cancel>:cancel)?)?/?$"
        ),
        VERTEX,
        "vertex",
        "tuningJobs",
    ),
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/tunedModels(?:/(?P<resource>{_SEG})(?P<cancel>:cancel)?)?/?$"),
        DEVELOPER,
        "developer",
        "tunedModels",
    ),
    (
        re.compile(
            rf"^/(?P<version>{_VERTEX_VERSIONS})/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/models(?:/(?P<resource>{_SEG}))?/?$"
        ),
        VERTEX,
        REGISTRY,
        "registryModels",
    ),
]
# Voices (gemini_emulator.wire.resources.voices): google-genai 3.6.1's client.voices (its _gaos/voices.py).
_RESOURCE_RULES += [
    (
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/voices(?:/(?P<resource>{_SEG}))?/?$"),
        DEVELOPER,
        "developer",
        "voices",
    ),
    (re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/decisions/?$"), DEVELOPER, "developer", "decisions"),
]
# A word of every _RESOURCE_RULES path (the Model Registry's aside): a path with none is no resource's.
_RESOURCE_WORDS = (
    "/cachedContents",
    "/batches",
    "/interactions",
    "/batchPrediction",
    "/tunedModels",
    "/tuningJobs",
    "/voices",
    "/decisions",
)
# The verbs a collection serves, where it serves fewer than create, list, get, patch and delete.
_SERVED_VERBS = {
    "voices": frozenset({"create", "list", "get", "delete"}),
    "decisions": frozenset({"create"}),
    "tuningJobs": frozenset({"create", "list", "get", "cancel"}),
    "tunedModels": frozenset({"create", "list", "get", "delete", "cancel"}),
    "registryModels": frozenset({"list", "get"}),
}
_COLLECTION_VERBS = {"POST": "create", "GET": "list", "HEAD": "list"}
_ITEM_VERBS = {"GET": "get", "HEAD": "get", "PATCH": "patch", "DELETE": "delete"}


def _resource(http_method: str, path: str) -> Target | None:
    for pattern, backend, family, collection in _RESOURCE_RULES:
        m = pattern.match(path)
        if m is None:
            continue
        groups = _groups(m)
        cancel = groups.pop("cancel", "")
        if cancel:
            verb = "cancel" if http_method == "POST" else ""
        elif "resource" in groups:
            verb = _ITEM_VERBS.get(http_method, "")
        else:
            verb = _COLLECTION_VERBS.get(http_method, "")
        if collection == "batches" and verb in ("create", "patch"):
            verb = ""  # a batch is made through models/{m}:batchGenerateContent
        if collection == "batchPredictionJobs" and verb == "patch":
            verb = ""
        if collection == "interactions" and verb in ("list", "patch"):
            verb = ""  # the Interactions API lists nothing and changes nothing
        if collection in _SERVED_VERBS and verb not in _SERVED_VERBS[collection]:
            verb = ""
        return Target(collection, backend, family, method=verb, **groups) if verb else None
    return None


# The rooms served by gemini_emulator.wire.resources.dispatch (Developer API): (HTTP methods, pattern,
# "room.verb"); a pattern's `name` group is the resource's whole name. None of these paths is a model's.
_ROOM_RULES: list[tuple[frozenset[str], re.Pattern[str], str]] = [
    (frozenset({"GET", "HEAD"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/operations/?$"), "operations.list"),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>(?:[^/:]+/)*operations/[^/:]+)$"),
        "operations.get",
    ),
    (
        frozenset({"DELETE"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>(?:[^/:]+/)*operations/[^/:]+)$"),
        "operations.delete",
    ),
    (
        frozenset({"POST"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>(?:[^/:]+/)*operations/[^/:]+):cancel$"),
        "operations.cancel",
    ),
    (frozenset({"POST"}), re.compile(rf"^/upload/(?P<version>{_DEV_VERSIONS})/files/?$"), "files.upload"),
    (frozenset({"GET", "HEAD"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/files/?$"), "files.list"),
    (frozenset({"POST"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/files/?$"), "files.create"),
    (frozenset({"POST"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/files:register$"), "files.register"),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>files/{_SEG}):download$"),
        "files.download",
    ),
    (frozenset({"GET", "HEAD"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>files/{_SEG})$"), "files.get"),
    (frozenset({"DELETE"}), re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>files/{_SEG})$"), "files.delete"),
]
# File search stores (gemini_emulator.wire.resources.file_search): the stores, their documents, the upload (under
# /upload/, and its metadata-only twin) and importFile; their operations are the operations room's.
_STORE = rf"fileSearchStores/{_SEG}"
_ROOM_RULES += [
    (
        frozenset({"POST"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/fileSearchStores/?$"),
        "fileSearchStores.create",
    ),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/fileSearchStores/?$"),
        "fileSearchStores.list",
    ),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE})$"),
        "fileSearchStores.get",
    ),
    (
        frozenset({"DELETE"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE})$"),
        "fileSearchStores.delete",
    ),
    (
        frozenset({"POST"}),
        re.compile(rf"^/upload/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}):uploadToFileSearchStore$"),
        "fileSearchStores.upload",
    ),
    (
        frozenset({"POST"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}):uploadToFileSearchStore$"),
        "fileSearchStores.uploadMetadata",
    ),
    (
        frozenset({"POST"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}):importFile$"),
        "fileSearchStores.importFile",
    ),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE})/documents/?$"),
        "fileSearchStores.listDocuments",
    ),
    (
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}/documents/{_SEG})$"),
        "fileSearchStores.getDocument",
    ),
    (
        frozenset({"DELETE"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}/documents/{_SEG})$"),
        "fileSearchStores.deleteDocument",
    ),
    (  # DownloadMedia: a media document's bytes (google-genai file_search_stores.download_media)
        frozenset({"GET", "HEAD"}),
        re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/(?P<name>{_STORE}/media/{_SEG})$"),
        "fileSearchStores.downloadMedia",
    ),
]


def _room(http_method: str, path: str) -> Target | None:
    for methods, pattern, operation in _ROOM_RULES:
        if http_method in methods:
            m = pattern.match(path)
            if m:
                return Target("room", DEVELOPER, "developer", method=operation, **_groups(m))
    return None


# Server prompt templates (@firebase/ai 12.19 TemplateGenerativeModel: backend._getTemplatePath + ":" + task).
TEMPLATES = "templates"
TEMPLATE_UNARY = "templateGenerateContent"
TEMPLATE_STREAM = "templateStreamGenerateContent"
_TEMPLATE_METHODS = rf"(?P<method>{TEMPLATE_UNARY}|{TEMPLATE_STREAM})"
_TEMPLATE_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(
            rf"^/(?P<version>v1beta)/projects/(?P<project>{_SEG})/templates/(?P<resource>{_SEG}):{_TEMPLATE_METHODS}$"
        ),
        DEVELOPER,
        "firebase-developer",
    ),
    (
        re.compile(
            rf"^/(?P<version>v1beta)/projects/(?P<project>{_SEG})/locations/(?P<location>{_SEG})"
            rf"/templates/(?P<resource>{_SEG}):{_TEMPLATE_METHODS}$"
        ),
        VERTEX,
        "firebase-vertex",
    ),
]


def _template(path: str) -> Target | None:
    for pattern, backend, family in _TEMPLATE_RULES:
        m = pattern.match(path)
        if m:
            if family == "firebase-vertex" and not _LOCATION.fullmatch(m["location"]):
                return None  # as a model call with no region: the HTML 404 page
            return Target(TEMPLATES, backend, family, **_groups(m))
    return None


# Webhooks (gemini_emulator.wire.resources.webhooks): google-genai 3.6.1's client.webhooks (_gaos/webhooks.py).
WEBHOOKS = "webhooks"
_WEBHOOKS = re.compile(
    rf"^/(?P<version>{_DEV_VERSIONS})/webhooks(?:/(?P<resource>{_SEG})(?::(?P<verb>ping|rotateSigningSecret))?)?/?$"
)
_WEBHOOK_ITEM_VERBS = {"GET": "get", "HEAD": "get", "PATCH": "update", "DELETE": "delete"}


def _webhooks(http_method: str, path: str) -> Target | None:
    m = _WEBHOOKS.match(path)
    if m is None:
        return None
    groups = _groups(m)
    verb = groups.pop("verb", "")
    if verb:
        verb = verb if http_method == "POST" else ""
    elif "resource" in groups:
        verb = _WEBHOOK_ITEM_VERBS.get(http_method, "")
    else:
        verb = _COLLECTION_VERBS.get(http_method, "")
    return Target(WEBHOOKS, DEVELOPER, "developer", method=verb, **groups) if verb else None


# Triggers (gemini_emulator.wire.resources.triggers): google-genai 3.6.1's client.triggers (_gaos/triggers.py).
TRIGGERS = "triggers"
_TRIGGERS = re.compile(
    rf"^/(?P<version>{_DEV_VERSIONS})/triggers(?:/(?P<resource>{_SEG})(?P<executions>/executions)?)?/?$"
)
_EXECUTIONS_VERBS = {"POST": "run", "GET": "list_executions", "HEAD": "list_executions"}


def _triggers(http_method: str, path: str) -> Target | None:
    m = _TRIGGERS.match(path)
    if m is None:
        return None
    groups = _groups(m)
    if groups.pop("executions", ""):
        verb = _EXECUTIONS_VERBS.get(http_method, "")
    elif "resource" in groups:
        verb = _WEBHOOK_ITEM_VERBS.get(http_method, "")
    else:
        verb = _COLLECTION_VERBS.get(http_method, "")
    return Target(TRIGGERS, DEVELOPER, "developer", method=verb, **groups) if verb else None


# Agents and environments (gemini_emulator.wire.resources.agents, .environments): google-genai 3.6.1's
# client.agents (_gaos/agents.py) and client.environments (_gaos/environments.py, files.py, _internal.py).
AGENTS = "agents"
ENVIRONMENTS = "environments"
_AGENTS = re.compile(rf"^/(?P<version>{_DEV_VERSIONS})/agents(?:/(?P<resource>{_SEG}))?/?$")
_ENVIRONMENTS = re.compile(
    rf"^/(?P<version>{_DEV_VERSIONS})/environments(?:/(?P<resource>{_SEG})(?P<files>/files(?:/(?P<name>.*))?)?)?/?$"
)
_ENVIRONMENT_UPLOAD = re.compile(
    rf"^/upload/(?P<version>{_DEV_VERSIONS})/environments/(?P<resource>{_SEG})/files/(?P<name>.*)$"
)
_AGENT_ITEM_VERBS = {"GET": "get", "HEAD": "get", "DELETE": "delete"}


def _agents(http_method: str, path: str) -> Target | None:
    m = _AGENTS.match(path)
    if m is None:
        return None
    groups = _groups(m)
    verbs = _AGENT_ITEM_VERBS if "resource" in groups else _COLLECTION_VERBS
    verb = verbs.get(http_method, "")
    return Target(AGENTS, DEVELOPER, "developer", method=verb, **groups) if verb else None


def _environments(http_method: str, path: str) -> Target | None:
    m = _ENVIRONMENT_UPLOAD.match(path)
    if m is not None:
        verb = "upload" if http_method in ("PUT", "POST") else ""
        return Target(ENVIRONMENTS, DEVELOPER, "developer", method=verb, **_groups(m)) if verb else None
    m = _ENVIRONMENTS.match(path)
    if m is None:
        return None
    groups = _groups(m)
    if groups.pop("files", ""):
        verb = "files" if http_method in ("GET", "HEAD") else ""
    elif "resource" in groups:
        verb = _AGENT_ITEM_VERBS.get(http_method, "")
    else:
        verb = _COLLECTION_VERBS.get(http_method, "")
    return Target(ENVIRONMENTS, DEVELOPER, "developer", method=verb, **groups) if verb else None


AUTH_TOKENS = "auth_tokens"  # POST /v1alpha/auth_tokens: an ephemeral token for the Live API (google-genai tokens.py)


def _match(http_method: str, path: str) -> Target | None:
    if http_method == "POST" and path.rstrip("/") == "/v1alpha/auth_tokens":
        return Target(AUTH_TOKENS, DEVELOPER, "developer", path.split("/")[1], method="create")
    if path.startswith(OPENAI_PREFIX):
        return _openai(http_method, path[len(OPENAI_PREFIX) :])
    if http_method == "POST" and "/templates/" in path:
        template = _template(path)
        if template is not None:
            return template
    if "/agents" in path:
        found = _agents(http_method, path)
        if found is not None:
            return found
    if "/environments/" in path or path.rstrip("/").endswith("/environments"):
        found = _environments(http_method, path)
        if found is not None:
            return found
    room = _room(http_method, path)
    if room is not None:
        return room
    if "/webhooks" in path:
        found = _webhooks(http_method, path)
        if found is not None:
            return found
    if "/triggers" in path:
        found = _triggers(http_method, path)
        if found is not None:
            return found
    if any(word in path for word in _RESOURCE_WORDS) or (http_method != "POST" and "/models" in path):
        found = _resource(http_method, path)
        if found is not None:
            return found
    if http_method == "POST":
        for pattern, backend, family in _POST_RULES:
            m = pattern.match(path)
            if m and m["method"] in KNOWN_METHODS:
                if family == "firebase-vertex" and not _LOCATION.fullmatch(m["location"]):
                    return None
                return Target("call", backend, family, **_groups(m))
        return None
    if http_method in ("GET", "HEAD"):
        for pattern, backend, family in _GET_RULES:
            m = pattern.match(path)
            if m:
                groups = _groups(m)
                if family == "vertex" and not groups.get("project"):
                    family = "vertex-express"
                return Target("get_model" if groups.get("model") else "list_models", backend, family, **groups)
    return None


def _groups(m: re.Match[str]) -> dict[str, str]:
    return {k: v for k, v in m.groupdict().items() if v}


# The Live API's WebSocket paths (js-genai recordings live_*.websocket.log; google-genai live.py builds them):
#   Developer  /ws/google.ai.generativelanguage.{v1beta,v1alpha}.GenerativeService.BidiGenerateContent
#              ...GenerativeService.BidiGenerateContentConstrained (an ephemeral token: ?access_token= or header)
#   Vertex     /ws/google.cloud.aiplatform.{v1,v1beta1}.LlmBidiService/BidiGenerateContent
# Firebase AI Logic (firebase/ai 12.19, @firebase/ai 2.16 WebSocketUrl; host firebasevertexai.googleapis.com, the key
# in ?key=, the project only in the setup's model name):
#   Developer  /ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent
#   Vertex     /ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/{location}
LIVE = "live"
LIVE_CONSTRAINED = "live-constrained"
_LIVE_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(
            r"^/+ws/google\.ai\.generativelanguage\.(?P<version>v1beta|v1alpha|v1)\.GenerativeService\."
            r"(?P<method>BidiGenerateContent(?:Constrained)?)/?$"
        ),
        DEVELOPER,
        "developer",
    ),
    (
        re.compile(
            r"^/+ws/google\.cloud\.aiplatform\.(?P<version>v1|v1beta1)\.LlmBidiService/"
            r"(?P<method>BidiGenerateContent)/?$"
        ),
        VERTEX,
        "vertex",
    ),
    (
        re.compile(
            r"^/+ws/google\.firebase\.vertexai\.(?P<version>v1beta)\.GenerativeService/"
            r"(?P<method>BidiGenerateContent)/?$"
        ),
        DEVELOPER,
        "firebase-developer",
    ),
    (
        re.compile(
            r"^/+ws/google\.firebase\.vertexai\.(?P<version>v1beta)\.LlmBidiService/(?P<method>BidiGenerateContent)"
            rf"/locations/(?P<location>{_SEG})/?$"
        ),
        VERTEX,
        "firebase-vertex",
    ),
]


def match_live(path: str) -> Target | None:
    """The Live WebSocket a path dials (action LIVE, or LIVE_CONSTRAINED for the ephemeral-token method), or None."""
    for pattern, backend, family in _LIVE_RULES:
        m = pattern.match(path)
        if m:
            location = m.groupdict().get("location") or ""
            if family == "firebase-vertex" and not _LOCATION.fullmatch(location):
                return None  # as the Firebase HTTP paths: a location that is no region is not routed
            action = LIVE_CONSTRAINED if m["method"].endswith("Constrained") else LIVE
            return Target(action, backend, family, m["version"], method="bidiGenerateContent", location=location)
    return None


# Lyria RealTime (google-genai 3.6.1 live_music.py AsyncLiveMusic.connect; the Gemini API only, the key in its headers):
#   /ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateMusic
MUSIC = "music"
_MUSIC = re.compile(
    r"^/+ws/google\.ai\.generativelanguage\.(?P<version>v1beta|v1alpha|v1)\.GenerativeService\.BidiGenerateMusic/?$"
)


def match_music(path: str) -> Target | None:
    """The Lyria RealTime WebSocket a path dials (action MUSIC), or None."""
    m = _MUSIC.match(path)
    if m is None:
        return None
    return Target(MUSIC, DEVELOPER, "developer", m["version"], method="bidiGenerateMusic")
