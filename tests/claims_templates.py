"""Claims of issue 32 item 2: server prompt templates (Firebase AI Logic), `templateGenerateContent` and
`templateStreamGenerateContent` on the Developer and Vertex paths, and the admin API that holds the templates."""

from __future__ import annotations

from claim_type import Claim

_T = "tests/wire/test_templates.py::"
_JS = "tests/sdk/test_js_matrix.py::test_js_sdk[firebase-templates.test.mjs]"
_SDK = "@firebase/ai 12.19 (dist/esm/index.esm.js: _getTemplatePath, templateGenerateContent, TemplateChatSessionImpl)"
_DOCS = "Firebase AI Logic docs: server-prompt-templates/get-started and syntax-and-examples (Dotprompt-based)"
_DOTPROMPT = "google/dotprompt js/src (helpers.ts, parse.ts toMessages/insertHistory, picoschema.ts)"

TEMPLATE_CLAIMS: list[Claim] = [
    Claim(
        "templates-paths",
        "POST /v1beta/projects/{p}[/locations/{l}]/templates/{id}:{templateGenerateContent,"
        "templateStreamGenerateContent}",
        "The Developer backend's path has no location, the Vertex backend's has one (a location that is no region is "
        "the HTML 404 page); the stream takes alt=sse; the body is {inputs, history?, tools?, toolConfig?}",
        (_T + "test_both_url_shapes_serve_both_methods", _T + "test_call_errors", _JS),
        source=_SDK,
    ),
    Claim(
        "templates-answer",
        "POST …/templates/{id}:templateGenerateContent",
        "A template call is answered as generateContent on the template's model: the same response shape per backend "
        "(Developer index and serviceTier, Vertex createTime), scripts, strict mode and faults; the stream is the "
        "CRLF SSE of streamGenerateContent",
        (
            _T + "test_developer_unary_is_answered_as_the_rendered_generate_call",
            _T + "test_vertex_stream_is_crlf_sse_in_the_vertex_shape",
            _JS,
        ),
        source=f"{_SDK} (the answer is read with processGenerateContentResponse / processStream); {_DOCS}",
    ),
    Claim(
        "templates-render",
        "POST …/templates/{id}:templateGenerateContent",
        "A Dotprompt template renders to a GenerateContentRequest: frontmatter model and config (generationConfig), "
        '{{role "system"}} as systemInstruction, {{role "user"|"model"}} messages, {{var}} inputs with input.default, '
        "{{history}} (or the history before the last user message), #if/#unless/#each/#with/#ifEquals, {{media}}, "
        "{{json}}; the SDK's templateFunctions tools as functionDeclarations",
        (
            _T + "test_developer_unary_is_answered_as_the_rendered_generate_call",
            _T + "test_structured_form_with_output_schema_and_history",
            _T + "test_history_without_a_marker_goes_before_the_last_user_message",
            _T + "test_helpers_render_as_handlebars_does",
            _T + "test_inputs_are_text_not_markup",
            _JS,
        ),
        source=f"{_DOCS}; {_DOTPROMPT}; {_SDK} (TemplateChatSessionImpl._formatRequest)",
        divergence="best-known: each message's text trimmed at its ends; output {format: json, schema} as "
        "responseMimeType and responseJsonSchema; the Handlebars subset (no partials, parent paths or other helpers)",
    ),
    Claim(
        "templates-errors",
        "POST …/templates/{id}:templateGenerateContent",
        "An unknown template id is 404 NOT_FOUND 'Template projects/{p}[/locations/{l}]/templates/{id} not found.'; "
        "inputs that break the input schema (Picoschema or JSON Schema) are 400 'Template {id}: invalid inputs: …'; "
        "unknown body fields and mistyped ones get production's proto JSON wordings; schema patterns run in RE2 and "
        "one RE2 cannot run is refused when the template is set",
        (
            _T + "test_call_errors",
            _T + "test_an_unknown_model_gets_the_models_404",
            _T + "test_an_input_schema_pattern_runs_in_linear_time_and_a_bad_one_is_refused",
            _JS,
        ),
        source="no capture of production's answer to a bad template call",
        divergence="best-known: the 404 and the invalid-inputs wordings are the emulator's",
    ),
    Claim(
        "templates-journal",
        "GET /__emulator/journal",
        "A template call's record has the template method as rpc, the template's model, the rendered "
        "GenerateContentRequest as body and {id, request: the call's own body} as template",
        (_T + "test_developer_unary_is_answered_as_the_rendered_generate_call", _JS),
        source="emulator-only",
    ),
    Claim(
        "templates-admin",
        "PUT|GET|DELETE /__emulator/templates; --templates FILE",
        "Templates are set per namespace ([{id, template}] Dotprompt source, or the structured {id, model, config, "
        "input, output, prompt}); without a credential, and from --templates at start-up, the shared set every caller "
        "falls back to; a caller's own id comes first; a bad template is a 400 naming it and changes nothing; "
        "/reset forgets a caller's own",
        (
            _T + "test_admin_api_shows_replaces_and_deletes",
            _T + "test_bad_templates_are_refused_when_set",
            _T + "test_namespaces_are_apart_and_reset_forgets",
            _T + "test_the_startup_file_is_shared_and_a_callers_own_comes_first",
            _T + "test_a_bad_startup_file_is_refused_naming_it",
        ),
        source="emulator-only (production's templates live in the Firebase console)",
    ),
    Claim(
        "templates-bounds",
        "PUT /__emulator/templates; POST …/templates/{id}:templateGenerateContent",
        "64 KiB per template, 256 templates per namespace, 1,000 namespaces; YAML aliases refused; blocks nested at "
        "most 32 deep; a render visits at most 200,000 nodes and writes at most 1 MiB (400 past either)",
        (
            _T + "test_bad_templates_are_refused_when_set",
            _T + "test_admin_api_shows_replaces_and_deletes",
            _T + "test_rendering_is_bounded",
            _T + "test_deeply_nested_blocks_are_refused",
        ),
        source="emulator-only",
    ),
]
