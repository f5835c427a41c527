"""The tunings room: Vertex AI `projects/P/locations/L/tuningJobs[/{id}[:cancel]]` (create, get, list, cancel), the
Developer API's `tunedModels[/{id}[:cancel]]` (create, get, list, delete, cancel), the Vertex Model Registry's
listing of tuned models (`GET projects/P/locations/L/models[/{id}]`), and the calls on a finished job's tuned
model (`tunedModels/{id}:generateContent`, `projects/P/locations/L/endpoints/{id}:generateContent`): what
google-genai 3.6.1's `client.tunings` and `client.models` send.

A job (stores/tunings.py) walks its namespace's tuning schedule (`PUT /__emulator/tunings`, the batches' plan
shape): PENDING, RUNNING, then SUCCEEDED, FAILED or CANCELLED, by the clock. Nothing is trained: a SUCCEEDED job's
tuned model answers generate calls as its base model does (handlers resolve it through `Context.tuned_models`),
scripts and engine included. The store is this process's (stores/tunings.py) or, with `--store redis://...`, every
process's (stores/tunings_redis.py): the room awaits either alike; on Redis a Developer create's operation is
printed from its job by whichever process is polled (`operation_reader`), not kept as a process's operation.

Shapes: google-genai 3.6.1 tunings.py (`_TuningJob_from_vertex` reads the Vertex TuningJob as is; `_tune_mldev`
posts `tunedModels` and reads the Operation's `metadata.tunedModel`; `_TuningJob_from_mldev` reads `name, state,
createTime, tuningTask.{startTime, completeTime}, updateTime, description, baseModel`, the tuned model being the
job's own name); the Vertex TuningJob and Gemini API TunedModel references for field order. No capture of
production exists: ids, messages and orders are best-known (docs/conformance.md, "Tunings (issue 30)").
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import ENDPOINTS, VERTEX, Target
from gemini_emulator.stores.batches import Plan
from gemini_emulator.stores.files import stamp
from gemini_emulator.stores.operations import new_id
from gemini_emulator.stores.tunings import FINAL, TuningJob, Tunings, TuningsFull
from gemini_emulator.stores.tunings_redis import RedisTunings
from gemini_emulator.wire import validate
from gemini_emulator.wire.handlers import Context, error_response, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.batches import schedule_from
from gemini_emulator.wire.resources.common import caller, page_size

ACTIONS = frozenset({"tuningJobs", "tunedModels", "registryModels"})
VERTEX_PAGE = (100, 1000)  # tuningJobs.list and models.list: (default, most); best-known
DEVELOPER_PAGE = (10, 1000)  # tunedModels.list (the Gemini API reference: at most 10 unless asked, 1000 a page)
MAX_KEPT_BYTES = 64 << 10  # a create body as kept (training data left out): more is refused
_VERTEX_TYPE = "type.googleapis.com/google.cloud.aiplatform.{version}."
_DEVELOPER_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta."
_VERTEX_FIELDS = frozenset(
    {
        "baseModel",
        "preTunedModel",
        "customBaseModel",
        "tunedModelDisplayName",
        "description",
        "labels",
        "supervisedTuningSpec",
        "preferenceOptimizationSpec",
        "distillationSpec",
        "reinforcementTuningSpec",
        "veoTuningSpec",
        "encryptionSpec",
        "outputUri",
        "serviceAccount",
    }
)
_SPECS = ("supervisedTuningSpec", "preferenceOptimizationSpec", "distillationSpec", "reinforcementTuningSpec")
_DEVELOPER_FIELDS = frozenset(
    {"baseModel", "tunedModelSource", "displayName", "description", "tuningTask", "temperature", "topP", "topK"}
)
_NOT_FOUND = "Requested entity was not found."  # Google's generic 404 text (best-known for tuned models)
_STATES = {"CANCELLED": "JOB_STATE_CANCELLED"}
_DEVELOPER_STATES = {"PENDING": "CREATING", "RUNNING": "CREATING", "SUCCEEDED": "ACTIVE"}  # the rest: FAILED
NAME_TRIES = 16  # fresh Developer names drawn before giving up (12 random characters: never taken twice in practice)

TuningStore: TypeAlias = Tunings | RedisTunings  # in this process, or on Redis (`--store redis://...`: every process's)


# --- create -------------------------------------------------------------------------------------------------


def _base(ctx: Context, target: Target, model: Any) -> str:
    """The catalogue id a base model names, or a 400 saying it cannot be tuned here."""
    if not isinstance(model, str) or not model:
        raise errors.invalid_argument("Base model must be specified.")
    try:
        return ctx.catalogue.resolve(
            model.removeprefix("publishers/google/models/"),
            "generateContent",
            target.version,
            target.backend,
            target.project,
            target.location,
        )
    except errors.ApiError:
        raise errors.invalid_argument(f"Base model {model} is not supported for tuning.") from None


def _kept(body: dict[str, Any]) -> bytes:
    """The create body as the job keeps it: its JSON bytes (parsed JSON costs many times its bytes)."""
    kept = orjson.dumps(body)
    if len(kept) > MAX_KEPT_BYTES:
        raise errors.invalid_argument(f"gemini-emulator: a tuning job's settings may hold {MAX_KEPT_BYTES} bytes.")
    return kept


async def _vertex_job(ctx: Context, tunings: TuningStore, namespace: str, target: Target, body: Any) -> TuningJob:
    """A Vertex create body, checked: TuningJob's fields, a base model (or one of the caller's tuned models) and a
    tuning spec naming its training data in Cloud Storage."""
    if not isinstance(body, dict):
        raise errors.root_not_object()
    for name in body:
        if name not in _VERTEX_FIELDS:
            raise errors.payload_violations([errors.unknown_name(name, "tuning_job")])
    if "preTunedModel" in body:
        source = body["preTunedModel"]
        tuned = source.get("tunedModelName") if isinstance(source, dict) else None
        earlier = await tunings.aby_tuned(namespace, tuned) if isinstance(tuned, str) else None
        if earlier is None or earlier.phase(tunings.clock())[0] != "SUCCEEDED":
            raise errors.invalid_argument(f"preTunedModel.tunedModelName {tuned!s} is no tuned model of this project.")
        base = earlier.base_model
    else:
        base = _base(ctx, target, body.get("baseModel"))
    specs = [s for s in _SPECS if s in body]
    if len(specs) > 1:
        raise errors.oneof_already_set("tuning_spec", specs[1])
    spec = body.get(specs[0]) if specs else None
    uri = spec.get("trainingDatasetUri", spec.get("promptDatasetUri")) if isinstance(spec, dict) else None
    if not (isinstance(uri, str) and uri.startswith("gs://") and 5 < len(uri) <= 2048):
        raise errors.invalid_argument(
            "A tuning spec with its training dataset in Cloud Storage (supervisedTuningSpec.trainingDatasetUri:"
            " gs://...) must be specified."
        )
    display = body.get("tunedModelDisplayName", "")
    if not isinstance(display, str) or len(display) > 128:
        raise errors.invalid_argument("tunedModelDisplayName must be a string of at most 128 characters.")
    parent = f"projects/{target.project}/locations/{target.location}"
    job_id, model_id, endpoint_id = _number(), _number(), _number()
    return TuningJob(
        name=f"{parent}/tuningJobs/{job_id}",
        namespace=namespace,
        surface="vertex",
        tuned_model=f"{parent}/models/{model_id}",
        endpoint=f"{parent}/endpoints/{endpoint_id}",
        base_model=base,
        kept=_kept(body),
        examples=0,
        plan=Plan(),
        created=0.0,
        created_ns=0,
    )


def _number() -> str:
    """A Vertex resource id: 19 decimal digits (best-known, as batch prediction jobs' look)."""
    return str(secrets.randbelow(9 * 10**18) + 10**18)


async def _developer_job(ctx: Context, tunings: TuningStore, namespace: str, target: Target, body: Any) -> TuningJob:
    """A Developer create body (TunedModel), checked: a base model and, when given, inlined training examples.
    google-genai 3.6.1 sends no training data at all (its `_TuningDataset_to_mldev` result is dropped), so a body
    without any is taken (docs/conformance.md)."""
    if not isinstance(body, dict):
        raise errors.root_not_object()
    for name in body:
        if name not in _DEVELOPER_FIELDS:
            raise errors.payload_violations([errors.unknown_name(name, "tuned_model")])
    base = _base(ctx, target, body.get("baseModel"))
    task = body.get("tuningTask", {})
    if not isinstance(task, dict):
        raise errors.invalid_argument("tuningTask must be an object.")
    data = task.get("trainingData", {})
    examples = data.get("examples", {}).get("examples", []) if isinstance(data, dict) else None
    if not isinstance(examples, list):
        raise errors.invalid_argument("tuningTask.trainingData.examples.examples must be a list.")
    display = body.get("displayName", "")
    if not isinstance(display, str) or len(display) > 40:
        raise errors.invalid_argument("displayName must be a string of at most 40 characters.")
    kept = dict(body)
    kept["tuningTask"] = {k: v for k, v in task.items() if k != "trainingData"}
    name = await _developer_name(tunings, namespace, display)
    return TuningJob(
        name=name,
        namespace=namespace,
        surface="developer",
        tuned_model=name,
        endpoint=name,
        base_model=base,
        kept=_kept(kept),
        examples=len(examples),
        plan=Plan(),
        created=0.0,
        created_ns=0,
    )


async def _developer_name(tunings: TuningStore, namespace: str, display: str) -> str:
    """`tunedModels/{id}`: the display name's words, lowercased, and a random tail (best-known)."""
    slug = "-".join(re.findall(r"[a-z0-9]+", display.lower()))[:30].strip("-")
    for _ in range(NAME_TRIES):
        name = f"tunedModels/{slug + '-' if slug else ''}{new_id(12)}"
        if await tunings.aget(namespace, name) is None:
            return name
    raise errors.ApiError(429, "gemini-emulator: no fresh name for another tuned model.")


# --- views --------------------------------------------------------------------------------------------------


def vertex_view(tunings: TuningStore, job: TuningJob, version: str) -> dict[str, Any]:
    """The Vertex TuningJob (proto field order; best-known)."""
    state, since = job.phase(tunings.clock())
    body = job.body
    out: dict[str, Any] = {"name": job.name}
    for key in ("tunedModelDisplayName", "description", "baseModel", "preTunedModel", *_SPECS):
        if key in body:
            out[key] = body[key]
    out["state"] = _STATES.get(state, "JOB_STATE_" + state)
    out["createTime"] = stamp(job.created_ns)
    started = job.started()
    if started is not None and state != "PENDING":
        out["startTime"] = stamp(tunings.wall_ns(started))
    if state in FINAL:
        out["endTime"] = stamp(tunings.wall_ns(since))
    out["updateTime"] = stamp(tunings.wall_ns(since) if state != "PENDING" else job.created_ns)
    if state == "FAILED":
        out["error"] = job.plan.error or {"code": 13, "message": "The tuning job failed."}  # best-known
    elif state == "CANCELLED":
        out["error"] = {"code": 1, "message": "CANCELED"}  # the reference: code 1, Code.CANCELLED
    if "labels" in body:
        out["labels"] = body["labels"]
    if state == "SUCCEEDED":
        out["tunedModel"] = {"model": f"{job.tuned_model}@1", "endpoint": job.endpoint}
    if "encryptionSpec" in body:
        out["encryptionSpec"] = body["encryptionSpec"]
    return out


def developer_view(tunings: TuningStore, job: TuningJob) -> dict[str, Any]:
    """The Developer API TunedModel (the reference's field order; best-known)."""
    state, since = job.phase(tunings.clock())
    body = job.body
    out: dict[str, Any] = {"name": job.name}
    for key in ("displayName", "description"):
        if key in body:
            out[key] = body[key]
    out["state"] = _DEVELOPER_STATES.get(state, "FAILED")
    out["createTime"] = stamp(job.created_ns, 9)
    out["updateTime"] = stamp(tunings.wall_ns(since) if state != "PENDING" else job.created_ns, 9)
    task: dict[str, Any] = {}
    started = job.started()
    if started is not None and state != "PENDING":
        task["startTime"] = stamp(tunings.wall_ns(started), 9)
    if state in FINAL:
        task["completeTime"] = stamp(tunings.wall_ns(since), 9)
    task["hyperparameters"] = _hyperparameters(job)
    out["tuningTask"] = task
    out["baseModel"] = f"models/{job.base_model}"
    for key in ("temperature", "topP", "topK"):
        if key in body:
            out[key] = body[key]
    return out


def _hyperparameters(job: TuningJob) -> dict[str, Any]:
    given = job.body.get("tuningTask", {}).get("hyperparameters", {})
    shown = dict(given) if isinstance(given, dict) else {}
    shown.setdefault("epochCount", 5)  # best-known defaults
    shown.setdefault("batchSize", 4)
    shown.setdefault("learningRate", 0.001)
    return shown


def _total_steps(job: TuningJob) -> int:
    hyper = _hyperparameters(job)
    epochs, batch = hyper.get("epochCount"), hyper.get("batchSize")
    epochs = epochs if isinstance(epochs, int) and epochs > 0 else 5
    batch = batch if isinstance(batch, int) and batch > 0 else 4
    return max(1, math.ceil(max(job.examples, 1) * epochs / batch))


def operation_view(tunings: TuningStore, job: TuningJob, name: str) -> dict[str, Any]:
    """The Developer create's Operation: CreateTunedModelMetadata, then the TunedModel once done (best-known)."""
    state, _ = job.phase(tunings.clock())
    total = _total_steps(job)
    meta: dict[str, Any] = {"@type": _DEVELOPER_TYPE + "CreateTunedModelMetadata", "tunedModel": job.name}
    meta["totalSteps"] = total
    if state in FINAL or state == "RUNNING":
        done_steps = total if state == "SUCCEEDED" else 0
        if done_steps:
            meta["completedSteps"] = done_steps
            meta["completedPercent"] = 100
    out: dict[str, Any] = {"name": name, "metadata": meta}
    if state in FINAL:
        out["done"] = True
        if state == "SUCCEEDED":
            out["response"] = {"@type": _DEVELOPER_TYPE + "TunedModel"} | developer_view(tunings, job)
        else:
            out["error"] = _developer_error(job, state)
    return out


def _developer_error(job: TuningJob, state: str) -> dict[str, Any]:
    if state == "CANCELLED":
        return {"code": 1, "message": "The tuning was cancelled."}  # best-known
    return job.plan.error or {"code": 13, "message": "The tuning failed."}  # best-known


def registry_view(tunings: TuningStore, job: TuningJob) -> dict[str, Any]:
    """A SUCCEEDED Vertex job's tuned model as the Model Registry's Model (best-known: what google-genai's
    `_Model_from_vertex` reads: name, displayName, versionId, deployedModels, labels, createTime, updateTime)."""
    _, since = job.phase(tunings.clock())
    out: dict[str, Any] = {"name": job.tuned_model}
    out["displayName"] = str(job.body.get("tunedModelDisplayName") or job.name.rsplit("/", 1)[-1])
    if "description" in job.body:
        out["description"] = job.body["description"]
    out["versionId"] = "1"
    out["deployedModels"] = [{"endpoint": job.endpoint, "deployedModelId": job.endpoint.rsplit("/", 1)[-1]}]
    out["labels"] = {"google-vertex-llm-tuning-base-model-id": job.base_model.replace(".", "-"), "tune-type": "sft"}
    out["createTime"] = stamp(tunings.wall_ns(since))
    out["updateTime"] = stamp(tunings.wall_ns(since))
    return out


# --- the room -------------------------------------------------------------------------------------------------


async def serve(ctx: Context, tunings: TuningStore, request: Incoming, target: Target, record: Record) -> Response:
    """Every tuning URL (routes: actions tuningJobs, tunedModels, registryModels)."""
    try:
        record.rpc = f"{target.action}.{target.method}"
        namespace = caller(ctx, request, target, record)
        record.rpc = f"{target.action}.{target.method}"
        if target.action == "tuningJobs":
            return await _vertex(ctx, tunings, request, target, record, namespace)
        if target.action == "tunedModels":
            return await _developer(ctx, tunings, request, target, record, namespace)
        return await _registry(tunings, request.query, target, namespace)
    except errors.ApiError as error:
        return error_response(error)


async def _create(tunings: TuningStore, job: TuningJob) -> TuningJob:
    try:
        return await tunings.acreate(job)
    except TuningsFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.") from None


def _page(query: Mapping[str, str], items: list[TuningJob], sizes: tuple[int, int]) -> tuple[list[TuningJob], str]:
    """One page of `items` (newest first) and the next page's token ("" for none)."""
    size = page_size(query, *sizes)
    token = query.get("pageToken", "")
    start = int(token) if token.isascii() and token.isdigit() and int(token) < len(items) else 0
    following = str(start + size) if start + size < len(items) else ""
    return items[start : start + size], following


async def _vertex(
    ctx: Context, tunings: TuningStore, request: Incoming, target: Target, record: Record, namespace: str
) -> Response:
    parent = f"projects/{target.project}/locations/{target.location}"
    if target.method == "create":
        body = await read_body(ctx, request, record)
        made = await _create(tunings, await _vertex_job(ctx, tunings, namespace, target, body))
        record.model = made.base_model
        return json_response(vertex_view(tunings, made, target.version))
    if target.method == "list":
        held = await tunings.aall(namespace)
        mine = [j for j in reversed(held) if j.surface == "vertex" and j.name.startswith(parent)]
        page, following = _page(request.query, mine, VERTEX_PAGE)
        out: dict[str, Any] = {"tuningJobs": [vertex_view(tunings, j, target.version) for j in page]} if page else {}
        if following:
            out["nextPageToken"] = following
        return json_response(out)
    name = f"{parent}/tuningJobs/{target.resource}"
    if target.method == "cancel":  # CancelTuningJobRequest: the body is the request (`name` only)
        validate.check_fields(await read_body(ctx, request, record), "CancelRequest", target.backend, target.version)
    job = await tunings.aget(namespace, name)
    if job is None:
        raise errors.ApiError(404, f'The TuningJob "{name}" does not exist.')  # best-known
    record.model = job.base_model
    if target.method == "cancel":
        await tunings.acancel(job)
        return json_response({})
    return json_response(vertex_view(tunings, job, target.version))


async def _developer(
    ctx: Context, tunings: TuningStore, request: Incoming, target: Target, record: Record, namespace: str
) -> Response:
    if target.method == "create":
        body = await read_body(ctx, request, record)
        fresh = await _developer_job(ctx, tunings, namespace, target, body)
        op_name = fresh.extra["operation"] = f"{fresh.name}/operations/{new_id(12)}"
        made = await _create(tunings, fresh)
        record.model = made.base_model
        if isinstance(tunings, RedisTunings):  # read from the job on every process (operation_reader)
            return json_response(operation_view(tunings, made, op_name))
        op = ctx.operations.create(namespace, "tuning", name=op_name, delay_s=0.0)
        op.printer = lambda _op: operation_view(tunings, made, op_name)
        return json_response(operation_view(tunings, made, op_name))
    if target.method == "list":
        mine = [j for j in reversed(await tunings.aall(namespace)) if j.surface == "developer"]
        page, following = _page(request.query, mine, DEVELOPER_PAGE)
        out: dict[str, Any] = {"tunedModels": [developer_view(tunings, j) for j in page]} if page else {}
        if following:
            out["nextPageToken"] = following
        return json_response(out)
    name = f"tunedModels/{target.resource}"
    if target.method == "cancel":
        validate.check_fields(await read_body(ctx, request, record), "CancelRequest", target.backend, target.version)
    job = await tunings.aget(namespace, name)
    if job is None:
        raise errors.ApiError(404, _NOT_FOUND)
    record.model = job.base_model
    if target.method == "cancel":
        await tunings.acancel(job)
        return json_response({})
    if target.method == "delete":
        await tunings.aremove(namespace, name)
        if "operation" in job.extra and not isinstance(tunings, RedisTunings):
            ctx.operations.remove(namespace, job.extra["operation"])
        return json_response({})
    return json_response(developer_view(tunings, job))


async def _registry(tunings: TuningStore, query: Mapping[str, str], target: Target, namespace: str) -> Response:
    """GET projects/P/locations/L/models[/{id}]: the caller's tuned models there (every Model this emulator
    holds is one; `filter` is not read)."""
    parent = f"projects/{target.project}/locations/{target.location}"
    now = tunings.clock()
    if target.method == "get":
        name = f"{parent}/models/{target.resource}"
        job = await tunings.aby_tuned(namespace, name)
        if job is None or job.surface != "vertex" or job.phase(now)[0] != "SUCCEEDED":
            raise errors.ApiError(404, f'The Model "{name.split("@", 1)[0]}" does not exist.')  # best-known
        return json_response(registry_view(tunings, job))
    mine = [
        j
        for j in reversed(await tunings.aall(namespace))
        if j.surface == "vertex" and j.name.startswith(parent + "/") and j.phase(now)[0] == "SUCCEEDED"
    ]
    page, following = _page(query, mine, VERTEX_PAGE)
    out: dict[str, Any] = {"models": [registry_view(tunings, j) for j in page]} if page else {}
    if following:
        out["nextPageToken"] = following
    return json_response(out)


def resolver(tunings: TuningStore) -> Callable[[str, Target], str | Awaitable[str]]:
    """`Context.tuned_models`: the catalogue id answering a call on one of the caller's tuned models (on Redis, a
    coroutine: the look-up is awaited, one round trip, and only for a tuned model's call)."""

    def answer(job: TuningJob | None, name: str, target: Target) -> str:
        state = job.phase(tunings.clock())[0] if job is not None else ""
        if job is not None and state == "SUCCEEDED":
            return job.base_model
        if target.backend == VERTEX:
            raise errors.ApiError(404, f"Endpoint `{name}` not found.")  # best-known
        if job is None:
            raise errors.ApiError(404, _NOT_FOUND)
        raise errors.ApiError(
            400,
            f"Tuned model {name} is not ready: its state is {_DEVELOPER_STATES.get(state, 'FAILED')}.",
            status="FAILED_PRECONDITION",
        )  # best-known

    def named(target: Target) -> str:
        if target.family == ENDPOINTS:
            return f"projects/{target.project}/locations/{target.location}/{target.model}"
        return target.model

    if isinstance(tunings, RedisTunings):
        shared = tunings

        async def look_up(namespace: str, target: Target) -> str:
            name = named(target)
            return answer(await shared.aby_tuned(namespace, name), name, target)

        return look_up
    local = tunings

    def resolve(namespace: str, target: Target) -> str:
        name = named(target)
        return answer(local.by_tuned(namespace, name), name, target)

    return resolve


def operation_reader(tunings: RedisTunings) -> Callable[[str, str, str], Awaitable[dict[str, Any] | None]]:
    """`Context.tuning_operation` on Redis: a Developer create's operation (`tunedModels/X/operations/Y`) answered
    from its job by whichever process is asked, as the memory store's operation record answers: `get` prints it,
    `cancel` leaves the job walking (`{}`), `delete` forgets the operation, not the job (`{}`). None: no job of the
    caller's made that operation (the operations room's 404)."""

    async def answer(namespace: str, name: str, verb: str) -> dict[str, Any] | None:
        job_name = name.split("/operations/", 1)[0]
        job = await tunings.aget(namespace, job_name)
        if job is None or job.extra.get("operation") != name:
            return None
        if verb == "delete":
            return {} if await tunings.aforget_operation(namespace, job_name, name) else None
        return {} if verb == "cancel" else operation_view(tunings, job, name)

    return answer


# --- the admin API ------------------------------------------------------------------------------------------


class AdminView:
    """The tuning jobs as the admin API lists and removes them (admin.api.Resources)."""

    def __init__(self, tunings: TuningStore) -> None:
        self.tunings = tunings

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        now = self.tunings.clock()
        return [
            {
                "namespace": j.namespace,
                "name": j.name,
                "surface": j.surface,
                "baseModel": j.base_model,
                "tunedModel": j.tuned_model,
                "state": j.phase(now)[0],
            }
            for j in self.tunings.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        return self.tunings.remove(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.tunings.reset(namespace)


class ScheduleView:
    """Each caller's schedule for its next tuning jobs (admin.api.Schedule): the batches' shape, whose final
    state is SUCCEEDED, FAILED or CANCELLED; setting one without `hold` lets the caller's held jobs finish on it."""

    def __init__(self, tunings: TuningStore) -> None:
        self.tunings = tunings

    def show(self, namespace: str) -> dict[str, Any]:
        return {"namespace": namespace, "schedule": self.tunings.plans.get(namespace).to_json()}

    def set(self, namespace: str, body: Any) -> dict[str, Any]:
        if isinstance(body, dict) and str(body.get("state", "")).upper().removeprefix("JOB_STATE_") == "EXPIRED":
            raise ValueError(f"state: expected one of {', '.join(sorted(FINAL))}")
        if isinstance(body, dict) and isinstance(body.get("state"), str):
            body = body | {"state": body["state"].upper().removeprefix("JOB_STATE_")}
        plan = schedule_from(body)
        self.tunings.plans.set(namespace, plan)
        released = 0 if plan.hold else self.tunings.release(namespace, plan)
        return self.show(namespace) | {"released": released}

    def clear(self, namespace: str) -> dict[str, Any]:
        self.tunings.plans.set(namespace, None)
        released = self.tunings.release(namespace, self.tunings.plans.get(namespace))
        return self.show(namespace) | {"released": released}
