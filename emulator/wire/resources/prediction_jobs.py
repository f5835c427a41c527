"""Vertex AI batch prediction jobs (`projects/P/locations/L/batchPredictionJobs[/{id}[:cancel]]`), the batches that
google-genai's `client.batches` makes in Vertex mode: create, get, list, cancel, delete.

A job's input is Cloud Storage (`inputConfig.gcsSource.uris`) or BigQuery (`inputConfig.bigquerySource.inputUri`),
and the SDK refuses inlined requests and Files API inputs on Vertex, so the emulator has nothing it can read and
answer: a job walks its namespace's batch schedule (the Developer batches' `PUT /__emulator/batches` plan:
PENDING, RUNNING, then SUCCEEDED, FAILED, CANCELLED or EXPIRED) by the clock, and a SUCCEEDED job's `outputInfo`
names where production would have written (`{outputUriPrefix}/prediction-model-{time}` or the BigQuery dataset),
with no item run (docs/conformance.md: a documented divergence). Shapes are best-known from google-genai 3.6.1's
`_BatchJob_from_vertex` and the BatchPredictionJob reference (proto field order).

State: PredictionJobs here (per process), or on `--store redis://...` stores/prediction_jobs_redis.py (every
process's), behind the same coroutines (LocalJobs, SharedJobs): one room, the same wire output.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.batches import Plan, Plans
from gemini_emulator.stores.batches_redis import plan_from
from gemini_emulator.stores.files import stamp
from gemini_emulator.stores.prediction_jobs_redis import RedisPredictionJobs
from gemini_emulator.wire import validate
from gemini_emulator.wire.handlers import Context, error_response, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.common import caller, page_size

MAX_JOBS_PER_NAMESPACE = 1_000
PAGE_DEFAULT, PAGE_MAX = 100, 1000
_STATES = {"SUCCEEDED": "JOB_STATE_SUCCEEDED", "FAILED": "JOB_STATE_FAILED", "EXPIRED": "JOB_STATE_EXPIRED"}
_TYPE = "type.googleapis.com/google.cloud.aiplatform.{version}."
_FIELDS = {"displayName", "model", "inputConfig", "outputConfig", "modelParameters", "labels"}


@dataclass
class PredictionJob:
    """One job: what it was created with, its plan, and when it was cancelled (0: not)."""

    name: str
    namespace: str
    body: dict[str, Any]
    plan: Plan
    created: float  # the store's clock
    created_ns: int
    cancelled: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def phase(self, now: float) -> tuple[str, float]:
        """The job's state by the clock, and when it entered it (the clock)."""
        if self.cancelled:
            return "JOB_STATE_CANCELLED", self.cancelled
        started = self.created + self.plan.pending_s
        if now < started:
            return "JOB_STATE_PENDING", self.created
        ended = started + self.plan.running_s
        if self.plan.hold or now < ended:
            return "JOB_STATE_RUNNING", started
        if self.plan.state == "CANCELLED":
            return "JOB_STATE_CANCELLED", ended
        return _STATES[self.plan.state], ended


class PredictionJobs:
    """The jobs of every namespace (bounded: past MAX_JOBS_PER_NAMESPACE the oldest is forgotten). Thread-safe."""

    def __init__(self, plans: Plans) -> None:
        self.plans = plans
        self.clock = time.monotonic
        self._spaces: dict[str, OrderedDict[str, PredictionJob]] = {}
        self._lock = threading.Lock()
        self._counter = 0

    def _wall_ns(self, at: float) -> int:
        return time.time_ns() - round((self.clock() - at) * 1e9)

    def create(self, namespace: str, parent: str, body: dict[str, Any]) -> PredictionJob:
        with self._lock:
            self._counter += 1
            job_id = f"{(time.time_ns() // 1000) % 10**13:013d}{self._counter % 10**6:06d}"
            job = PredictionJob(
                f"{parent}/batchPredictionJobs/{job_id}",
                namespace,
                body,
                self.plans.get(namespace),
                self.clock(),
                time.time_ns(),
            )
            space = self._spaces.setdefault(namespace, OrderedDict())
            space[job.name] = job
            while len(space) > MAX_JOBS_PER_NAMESPACE:
                space.popitem(last=False)
            return job

    def get(self, namespace: str, name: str) -> PredictionJob | None:
        with self._lock:
            space = self._spaces.get(namespace)
            return space.get(name) if space is not None else None

    def all(self, namespace: str | None = None) -> list[PredictionJob]:
        with self._lock:
            spaces = [self._spaces.get(namespace, OrderedDict())] if namespace else list(self._spaces.values())
            return [job for space in spaces for job in space.values()]

    def remove(self, namespace: str, name: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            return space is not None and space.pop(name, None) is not None

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._spaces.clear()
            else:
                self._spaces.pop(namespace, None)

    def view(self, job: PredictionJob, version: str) -> dict[str, Any]:
        """The BatchPredictionJob as production prints it (field order of the proto; best-known)."""
        return _view(job, self.clock(), self._wall_ns)


def _view(job: PredictionJob, now: float, wall_ns: Callable[[float], int]) -> dict[str, Any]:
    """PredictionJobs.view: `job` at `now` (its store's clock), `wall_ns` that clock's times as wall nanoseconds."""
    state, since = job.phase(now)
    body = job.body
    out: dict[str, Any] = {"name": job.name, "displayName": str(body.get("displayName", ""))}
    out["model"] = body.get("model", "")
    out["inputConfig"] = body.get("inputConfig", {})
    if "modelParameters" in body:
        out["modelParameters"] = body["modelParameters"]
    out["outputConfig"] = body.get("outputConfig", {})
    done = state not in ("JOB_STATE_PENDING", "JOB_STATE_RUNNING")
    if state == "JOB_STATE_SUCCEEDED":
        out["outputInfo"] = _output_info(out["outputConfig"], wall_ns(since))
    out["state"] = state
    if state == "JOB_STATE_FAILED":
        out["error"] = job.plan.error or {"code": 13, "message": "The batch prediction job failed."}
    elif state == "JOB_STATE_CANCELLED":
        out["error"] = {"code": 1, "message": "CANCELED"}
    elif state == "JOB_STATE_EXPIRED":
        out["error"] = {"code": 4, "message": "The batch prediction job expired."}
    out["createTime"] = stamp(job.created_ns)
    if state != "JOB_STATE_PENDING" and not (job.cancelled and job.cancelled < job.created + job.plan.pending_s):
        out["startTime"] = stamp(wall_ns(job.created + job.plan.pending_s))
    if done:
        out["endTime"] = stamp(wall_ns(since))
    out["updateTime"] = stamp(wall_ns(since) if state != "JOB_STATE_PENDING" else job.created_ns)
    if "labels" in body:
        out["labels"] = body["labels"]
    return out


class LocalJobs:
    """This process's jobs (PredictionJobs) behind the coroutines the room awaits, which SharedJobs answers from
    Redis: one room for both."""

    __slots__ = ("jobs",)

    def __init__(self, jobs: PredictionJobs) -> None:
        self.jobs = jobs

    async def create(self, namespace: str, parent: str, body: dict[str, Any]) -> PredictionJob:
        return self.jobs.create(namespace, parent, body)

    async def get(self, namespace: str, name: str) -> PredictionJob | None:
        return self.jobs.get(namespace, name)

    async def page(self, namespace: str, parent: str, token: str, size: int) -> tuple[list[PredictionJob], int, int]:
        mine = [j for j in reversed(self.jobs.all(namespace)) if j.name.startswith(parent + "/")]
        start = int(token) if token.isascii() and token.isdigit() and int(token) < len(mine) else 0
        return mine[start : start + size], len(mine), start

    async def cancel(self, namespace: str, name: str) -> bool:
        """Whether the job is there (cancelled when it was still PENDING or RUNNING)."""
        job = self.jobs.get(namespace, name)
        if job is None:
            return False
        state, _ = job.phase(self.jobs.clock())
        if state in ("JOB_STATE_PENDING", "JOB_STATE_RUNNING"):
            job.cancelled = self.jobs.clock()
        return True

    async def delete(self, namespace: str, name: str) -> bool:
        return self.jobs.remove(namespace, name)

    def view(self, job: PredictionJob) -> dict[str, Any]:
        return self.jobs.view(job, "")


def _wall_ns(at: float) -> int:
    return round(at * 1e9)


class SharedJobs:
    """The jobs in Redis (stores/prediction_jobs_redis.py), as LocalJobs answers them; times on the wall clock."""

    __slots__ = ("store", "plans")

    def __init__(self, store: RedisPredictionJobs, plans: Plans) -> None:
        self.store, self.plans = store, plans

    @staticmethod
    def _job(namespace: str, name: str, f: dict[str, str]) -> PredictionJob:
        return PredictionJob(
            name,
            namespace,
            orjson.loads(f.get("body") or "{}"),
            plan_from(f.get("plan") or "{}"),
            float(f.get("created", "0")),
            int(f.get("created_ns", "0")),
            float(f.get("cancelled", "0")),
        )

    async def create(self, namespace: str, parent: str, body: dict[str, Any]) -> PredictionJob:
        name, made = await self.store.create(namespace, parent, body, self.plans.default.to_json())
        return self._job(namespace, name, made)

    async def get(self, namespace: str, name: str) -> PredictionJob | None:
        found = await self.store.get(namespace, name)
        return self._job(namespace, name, found) if found is not None else None

    async def page(self, namespace: str, parent: str, token: str, size: int) -> tuple[list[PredictionJob], int, int]:
        start = int(token) if token.isascii() and token.isdigit() and len(token) <= 9 else 0
        rows, total, start = await self.store.page(namespace, parent, start, size)
        return [self._job(namespace, name, f) for name, f in rows], total, start

    async def cancel(self, namespace: str, name: str) -> bool:
        return await self.store.cancel(namespace, name) != 0

    async def delete(self, namespace: str, name: str) -> bool:
        return await self.store.delete(namespace, name)

    def view(self, job: PredictionJob) -> dict[str, Any]:
        return _view(job, time.time(), _wall_ns)


def _output_info(config: dict[str, Any], ended_ns: int) -> dict[str, Any]:
    when = datetime.fromtimestamp(ended_ns / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
    if "gcsDestination" in config:
        prefix = str(config["gcsDestination"].get("outputUriPrefix", "")).rstrip("/")
        return {"gcsOutputDirectory": f"{prefix}/prediction-model-{when}"}
    uri = str(config.get("bigqueryDestination", {}).get("outputUri", "")).removeprefix("bq://")
    dataset = uri if uri.count(".") <= 1 else uri.rsplit(".", 1)[0]
    table = "predictions_" + when.replace("-", "_").replace(":", "_").replace(".", "_")
    return {"bigqueryOutputDataset": f"bq://{dataset}", "bigqueryOutputTable": table}


def _not_found(name: str) -> errors.ApiError:
    return errors.ApiError(404, f'The BatchPredictionJob "{name}" does not exist.')


def _checked(body: Any) -> dict[str, Any]:
    """A create's body: BatchPredictionJob's fields, a model, a Cloud Storage or BigQuery input and output."""
    if not isinstance(body, dict):
        raise errors.root_not_object()
    for name in body:
        if name not in _FIELDS:
            raise errors.payload_violations([errors.unknown_name(name, "batch_prediction_job")])
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise errors.invalid_argument("Model name must be specified.")
    source = body.get("inputConfig")
    if not isinstance(source, dict) or not (
        (isinstance(source.get("gcsSource"), dict) and _gcs_uris(source["gcsSource"].get("uris")))
        or (isinstance(source.get("bigquerySource"), dict) and _bq(source["bigquerySource"].get("inputUri")))
    ):
        raise errors.invalid_argument(
            "inputConfig needs gcsSource.uris (gs://...) or bigquerySource.inputUri (bq://project.dataset.table)."
        )
    sink = body.get("outputConfig")
    if not isinstance(sink, dict) or not (
        (isinstance(sink.get("gcsDestination"), dict) and _gcs(sink["gcsDestination"].get("outputUriPrefix")))
        or (isinstance(sink.get("bigqueryDestination"), dict) and _bq(sink["bigqueryDestination"].get("outputUri")))
    ):
        raise errors.invalid_argument(
            "outputConfig needs gcsDestination.outputUriPrefix (gs://...) or bigqueryDestination.outputUri (bq://...)."
        )
    if "displayName" in body and not isinstance(body["displayName"], str):
        raise errors.invalid_argument("displayName must be a string.")
    return body


def _gcs(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("gs://") and len(value) > 5 and len(value) <= 2048


def _gcs_uris(value: Any) -> bool:
    return isinstance(value, list) and 0 < len(value) <= 100 and all(_gcs(v) for v in value)


def _bq(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("bq://") and len(value) > 5 and len(value) <= 1024


async def serve(
    ctx: Context, jobs: PredictionJobs | SharedJobs, request: Incoming, target: Target, record: Record
) -> Response:
    """A batchPredictionJobs call, on this process's jobs or (SharedJobs) on Redis's."""
    try:
        held = jobs if isinstance(jobs, SharedJobs) else LocalJobs(jobs)
        return await _serve(ctx, held, request, target, record)
    except errors.ApiError as error:
        return error_response(error)


async def _serve(
    ctx: Context, jobs: LocalJobs | SharedJobs, request: Incoming, target: Target, record: Record
) -> Response:
    record.rpc = f"batchPredictionJobs.{target.method}"
    namespace = caller(ctx, request, target, record)
    record.rpc = f"batchPredictionJobs.{target.method}"
    parent = f"projects/{target.project}/locations/{target.location}"
    if target.method == "create":
        body = _checked(await read_body(ctx, request, record))
        return json_response(jobs.view(await jobs.create(namespace, parent, body)))
    if target.method == "list":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        page, total, start = await jobs.page(namespace, parent, request.query.get("pageToken", ""), size)
        out: dict[str, Any] = {"batchPredictionJobs": [jobs.view(j) for j in page]} if page else {}
        if start + size < total:
            out["nextPageToken"] = str(start + size)
        return json_response(out)
    name = f"{parent}/batchPredictionJobs/{target.resource}"
    if target.method == "cancel":  # CancelBatchPredictionJobRequest: the body is the request (`name` only)
        validate.check_fields(await read_body(ctx, request, record), "CancelRequest", target.backend, target.version)
        if not await jobs.cancel(namespace, name):  # one call: found, and cancelled if PENDING or RUNNING
            raise _not_found(name)
        return json_response({})
    if target.method == "get":
        job = await jobs.get(namespace, name)
        if job is None:
            raise _not_found(name)
        return json_response(jobs.view(job))
    if not await jobs.delete(namespace, name):  # delete: a long-running operation, done at once
        raise _not_found(name)
    now = stamp(time.time_ns())
    prefix = _TYPE.format(version=target.version)
    return json_response(
        {
            "name": f"{name}/operations/{time.time_ns() % 10**19:019d}",
            "metadata": {
                "@type": prefix + "DeleteOperationMetadata",
                "genericMetadata": {"createTime": now, "updateTime": now},
            },
            "done": True,
            "response": {"@type": "type.googleapis.com/google.protobuf.Empty"},
        }
    )


class AdminView:
    """The jobs as the admin API lists and removes them (admin.api.Resources). On Redis (`shared`) it reads them
    through the sync client, so the admin API calls it in a worker thread (`off_loop`)."""

    def __init__(self, jobs: PredictionJobs, shared: SharedJobs | None = None) -> None:
        self.jobs = jobs
        self.shared = shared
        self.off_loop = shared is not None

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        if self.shared is not None:
            now = time.time()
            held = [SharedJobs._job(ns, name, f) for ns, name, f in self.shared.store.all(namespace)]
            return [{"namespace": j.namespace, "name": j.name, "state": j.phase(now)[0]} for j in held]
        return [
            {"namespace": j.namespace, "name": j.name, "state": j.phase(self.jobs.clock())[0]}
            for j in self.jobs.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if self.shared is not None:
            return self.shared.store.remove(namespace, name)
        return self.jobs.remove(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        if self.shared is not None:
            self.shared.store.reset(namespace)
        self.jobs.reset(namespace)
