// The cross-SDK matrix harness: where the emulator is, per-test credentials, its journal, and `matrix()`,
// which declares one test per SDK × call so the generated docs/sdk-matrix.md can name every cell.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

export const BASE = process.env.EMULATOR_URL?.replace(/\/$/, '');
if (!BASE) throw new Error('EMULATOR_URL is not set: run these tests through tests/test_js_matrix.py (make test)');

/** Every SDK × call asks the same things and expects the same answers: tests/sdk_matrix.json, shared with the
 * Python matrix. Its `pending` lists the calls skipped everywhere until the emulator serves them. */
const SPEC = JSON.parse(readFileSync(new URL('../sdk_matrix.json', import.meta.url), 'utf8'));
export const { model: MODEL, embedding_model: EMBEDDING_MODEL, missing_model: MISSING_MODEL, prompts: PROMPTS } = SPEC;
export const WEATHER_RESULT = SPEC.weather_result;

/** A fresh credential: every API key (or bearer token) is its own namespace on the emulator. */
export const newKey = () => `js-${randomUUID()}`;

/** The emulator's journal of the namespace of `credential` (an API key or a bearer token), oldest first. */
export async function journal(credential) {
  const response = await fetch(`${BASE}/__emulator/journal`, { headers: { 'x-goog-api-key': credential } });
  const payload = await response.json();
  assert.ok(response.ok, `GET /__emulator/journal: ${response.status} ${payload.error?.message}`);
  return payload.records;
}

/** Declare the tests of one SDK: `calls` maps a call named in sdk_matrix.json to its test. */
export function matrix(sdk, calls) {
  const unknown = Object.keys(calls).filter((call) => !SPEC.calls.includes(call));
  assert.deepEqual(unknown, [], `not matrix calls: ${unknown}`);
  describe(sdk, () => {
    for (const call of SPEC.calls.filter((c) => c in calls)) {
      it(call, { skip: SPEC.pending[call] ?? false }, calls[call]);
    }
  });
}

/** Declare the resources-table tests of one SDK: `calls` maps a call of sdk_matrix.json's `resource_calls` to its
 * test (files, cached contents, batches; docs/sdk-matrix.md's second table). */
export function resourceMatrix(sdk, calls) {
  const unknown = Object.keys(calls).filter((call) => !SPEC.resource_calls.includes(call));
  assert.deepEqual(unknown, [], `not resource matrix calls: ${unknown}`);
  describe(sdk, () => {
    for (const call of SPEC.resource_calls.filter((c) => c in calls)) {
      it(call, { skip: SPEC.pending[call] ?? false }, calls[call]);
    }
  });
}

/** The text every resource cell caches (over every model's minimum cached token count). */
export const CACHE_TEXT = SPEC.prompts.cache_text.repeat(SPEC.cache_repeat);

/** Zero-config arguments of a forced get_weather call: valid against its declaration (one string, `city`). */
export function assertWeatherArgs(args) {
  assert.deepEqual(Object.keys(args), ['city']);
  assert.ok(typeof args.city === 'string' && args.city.length > 0, `city: ${args.city}`);
}

/** A zero-config answer to the function response: it reports the tool's result. */
export const assertUsesWeather = (text) => assert.match(text, /get_weather reports .*21.*clear/);

/** Zero-config structured output: valid against {name: string, age: integer}, both required. */
export function assertPerson(value) {
  assert.deepEqual(Object.keys(value).sort(), ['age', 'name']);
  assert.equal(typeof value.name, 'string');
  assert.ok(Number.isInteger(value.age), `age: ${value.age}`);
}

/** The round trip as the emulator saw it: the call was forced, and the second request carried back the call the
 * emulator made and the tool's result (`sent`: the functionResponse.response the SDK builds from WEATHER_RESULT). */
export async function assertWeatherRoundTrip(credential, sent = WEATHER_RESULT) {
  const [first, second] = await journal(credential);
  assert.equal(first.body.toolConfig?.functionCallingConfig?.mode, 'ANY');
  const declared = first.body.tools.flatMap((tool) => tool.functionDeclarations ?? []).map((f) => f.name);
  assert.deepEqual(declared, ['get_weather']);
  const made = JSON.parse(first.response).candidates[0].content.parts.find((p) => p.functionCall).functionCall;
  const modelTurn = second.body.contents.at(-2);
  assert.equal(modelTurn.role, 'model');
  const echoed = modelTurn.parts.find((p) => p.functionCall).functionCall;
  assert.deepEqual([echoed.name, echoed.args], [made.name, made.args]);
  const responses = second.body.contents.at(-1).parts.filter((p) => p.functionResponse).map((p) => p.functionResponse);
  assert.deepEqual(responses.map((r) => [r.name, r.response]), [['get_weather', sent]]);
}

/** The two-turn chat as the emulator saw it: the second request carried the whole history. */
export async function assertChatHistory(credential) {
  const records = await journal(credential);
  assert.equal(records.length, 2);
  const roles = records[1].body.contents.map((c) => c.role);
  assert.deepEqual(roles, ['user', 'model', 'user']);
  assert.equal(records[1].body.contents[0].parts[0].text, PROMPTS.chat[0]);
}
