"""Claims of issue 30: tunings (Vertex tuningJobs, the Developer API's tunedModels, generate on a tuned model)."""

from __future__ import annotations

from claim_type import Claim

_T = "tests/wire/resources/test_tunings.py::"
_SDK = "google-genai 3.6.1 tunings.py"

TUNING_CLAIMS: list[Claim] = [
    Claim(
        "tunings-vertex-create",
        "POST /{v1,v1beta1}/projects/{p}/locations/{l}/tuningJobs",
        "A TuningJob is created from baseModel (or preTunedModel) and a tuning spec naming a gs:// training dataset; "
        "it prints name (…/tuningJobs/{19 digits}), tunedModelDisplayName, description, baseModel, the spec as sent, "
        "state, createTime, startTime, endTime, updateTime, error, labels, tunedModel {model, endpoint}",
        (_T + "test_vertex_job_walks_to_succeeded_and_its_endpoint_generates",),
        source=f"{_SDK} (_tune, _TuningJob_from_vertex); the Vertex TuningJob REST reference (fields, order)",
        divergence="best-known: ids, field order and the 400 wordings are not from a capture; nothing is trained",
    ),
    Claim(
        "tunings-vertex-states",
        "GET /{v}/projects/{p}/locations/{l}/tuningJobs/{id}",
        "A job walks JOB_STATE_PENDING, _RUNNING, then _SUCCEEDED (tunedModel set), _FAILED (the schedule's error) "
        "or _CANCELLED, on the namespace's schedule (PUT /__emulator/tunings: pendingMs, runningMs, state, hold, "
        "error)",
        (
            _T + "test_vertex_job_walks_to_succeeded_and_its_endpoint_generates",
            _T + "test_a_failed_schedule_fails_the_job_with_its_error",
            _T + "test_the_schedule_refuses_what_it_cannot_do",
        ),
        source=f"{_SDK} (JobState); the tuningJobs reference (states, a cancel's error code 1)",
    ),
    Claim(
        "tunings-vertex-list-cancel",
        "GET …/tuningJobs, POST …/tuningJobs/{id}:cancel",
        "list pages the caller's jobs newest first under {tuningJobs, nextPageToken}; cancel answers {} and a "
        "running job becomes JOB_STATE_CANCELLED with error {code: 1}; a finished one stays as it was",
        (
            _T + "test_vertex_cancel_and_an_unfinished_endpoint",
            _T + "test_async_vertex_tune_get_list_cancel",
        ),
        source=f"{_SDK} (_list reads tuningJobs, nextPageToken; cancel); the tuningJobs reference (cancel)",
        divergence="best-known: the 404 wording for an unknown job and the default page size",
    ),
    Claim(
        "tunings-vertex-endpoint-generate",
        "POST /{v}/projects/{p}/locations/{l}/endpoints/{id}:generateContent",
        "A SUCCEEDED job's tunedModel.endpoint answers generateContent (and the other call methods) as its base "
        "model does, scripts included, for the caller's namespace only; any other endpoint is a 404 NOT_FOUND; the "
        "Model Registry lists it (GET …/models, what models.list(query_base=False) reads)",
        (
            _T + "test_vertex_job_walks_to_succeeded_and_its_endpoint_generates",
            _T + "test_vertex_cancel_and_an_unfinished_endpoint",
        ),
        source=f"{_SDK} (t_model keeps projects/… names; models.list: `models` with filter labels.tune-type:*)",
        divergence="best-known: the endpoint 404 wording and the Registry Model's fields (name, displayName, "
        "versionId, deployedModels, labels, times); the model name tunedModel.model (…/models/{id}@1) is not "
        "generate-able here",
    ),
    Claim(
        "tunings-developer-create",
        "POST /{v}/tunedModels",
        "A create answers an Operation tunedModels/{id}/operations/{op} whose metadata (CreateTunedModelMetadata) "
        "names tunedModel and totalSteps; polled, it ends done with the TunedModel as its response; the id is the "
        "display name's words and a random tail; the operation's :cancel and DELETE answer {} as any operation's"
        " (the job walks on; DELETE forgets the operation, not the tuned model)",
        (
            _T + "test_developer_job_to_active_then_generate_on_the_tuned_model",
            _T + "test_the_create_operation_is_readable_and_ends_with_the_tuned_model",
            _T + "test_the_create_operation_cancelled_or_deleted_leaves_the_tuned_model",
        ),
        source=f"{_SDK} (_tune_mldev, tune reads metadata.tunedModel); the Gemini API tunedModels reference",
        divergence="google-genai 3.6.1 drops the training examples from the body, so a body without training data "
        "is taken (production would refuse it); ids, metadata values and the operation's cancel and delete are"
        " best-known",
    ),
    Claim(
        "tunings-developer-get-list-delete",
        "GET /{v}/tunedModels[/{id}], DELETE /{v}/tunedModels/{id}, POST /{v}/tunedModels/{id}:cancel",
        "A TunedModel prints name, displayName, description, state (CREATING, then ACTIVE or FAILED), createTime, "
        "updateTime, tuningTask {startTime, completeTime, hyperparameters}, baseModel; list answers "
        "{tunedModels, nextPageToken}; delete answers {}; cancel answers {} and the model becomes FAILED",
        (
            _T + "test_developer_job_to_active_then_generate_on_the_tuned_model",
            _T + "test_developer_cancel_and_another_key_sees_nothing",
        ),
        source=f"{_SDK} (_TuningJob_from_mldev, t_tuning_job_status); the Gemini API TunedModel reference",
        divergence="best-known: :cancel is not in the Gemini API reference (the SDK sends it); a cancelled model "
        "is FAILED, TunedModel.State having no CANCELLED",
    ),
    Claim(
        "tunings-developer-generate",
        "POST /{v}/tunedModels/{id}:generateContent",
        "An ACTIVE tuned model answers generateContent and countTokens as its base model does, for its namespace "
        "only (another key's is a 404); one still CREATING is a 400 FAILED_PRECONDITION",
        (
            _T + "test_developer_job_to_active_then_generate_on_the_tuned_model",
            _T + "test_developer_cancel_and_another_key_sees_nothing",
        ),
        source=f"{_SDK} (t_model keeps tunedModels/ names)",
        divergence="best-known: the 404 and not-ready wordings",
    ),
]
