// firebase/ai (Firebase AI Logic) with both backends, offline: no App Check, Auth or installations.
import assert from 'node:assert/strict';
import { initializeApp } from 'firebase/app';
import {
  AIError, FunctionCallingMode, GoogleAIBackend, Schema, VertexAIBackend, getAI, getGenerativeModel,
  } from 'firebase/ai';
import {
  BASE, MISSING_MODEL, MODEL, PROMPTS, WEATHER_RESULT, assertChatHistory,
  assertPerson, assertWeatherArgs, assertWeatherRoundTrip, journal, matrix, newKey,
} from './harness.mjs';

const PROJECT = 'demo-project';

const VARIANTS = [
  ['GoogleAIBackend', () => new GoogleAIBackend(), `/v1beta/projects/${PROJECT}/models/`],
  [
    'VertexAIBackend',
    () => new VertexAIBackend('us-central1'),
    `/v1beta/projects/${PROJECT}/locations/us-central1/publishers/google/models/`,
  ],
];

for (const [backendName, backend, prefix] of VARIANTS) {
  /** A model on a fresh Firebase app whose API key names a fresh namespace. */
  const connect = (params = {}, model = MODEL) => {
    const key = newKey();
    const app = initializeApp({ apiKey: key, projectId: PROJECT, appId: '1:1234:web:abcd' }, key);
    const ai = getAI(app, { backend: backend() });
    return { key, model: getGenerativeModel(ai, { model, ...params }, { baseUrl: BASE }) };
  };

  matrix(`firebase/ai (${backendName})`, {
    async text() {
      const { key, model } = connect();
      const { response } = await model.generateContent(PROMPTS.text);
      assert.match(response.text(), /^Hello/);
      assert.equal(response.candidates[0].finishReason, 'STOP');
      assert.ok(response.usageMetadata.promptTokenCount > 0);
      const [record] = await journal(key);
      assert.equal(record.path, `${prefix}${MODEL}:generateContent`);
    },

    async stream() {
      const { model } = connect();
      const { stream, response } = await model.generateContentStream(PROMPTS.stream);
      const texts = [];
      for await (const chunk of stream) texts.push(chunk.text());
      assert.ok(texts.length > 1, `${texts.length} chunk(s)`);
      const aggregated = await response;
      assert.equal(aggregated.candidates[0].finishReason, 'STOP');
      const unary = await model.generateContent(PROMPTS.stream);
      assert.equal(texts.join(''), unary.response.text());
      assert.equal(aggregated.text(), unary.response.text());
    },

    async chat() {
      const { key, model } = connect();
      const chat = model.startChat();
      const first = await chat.sendMessage(PROMPTS.chat[0]);
      const second = await chat.sendMessage(PROMPTS.chat[1]);
      assert.match(first.response.text(), /^Hello/);
      assert.match(second.response.text(), /1\..*\n.*2\..*\n.*3\./s);
      assert.equal((await chat.getHistory()).length, 4);
      await assertChatHistory(key);
    },

    async function_call() {
      const { key, model } = connect({
        tools: [{
          functionDeclarations: [{
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: Schema.object({ properties: { city: Schema.string() } }),
          }],
        }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingMode.ANY } },
      });
      const chat = model.startChat();
      const first = await chat.sendMessage(PROMPTS.weather);
      const [call] = first.response.functionCalls();
      assert.equal(call.name, 'get_weather');
      assertWeatherArgs(call.args);
      const second = await chat.sendMessage([{ functionResponse: { name: call.name, response: WEATHER_RESULT } }]);
      // The model's toolConfig keeps mode ANY on the second turn too: production calls again after a tool
      // result (18 of 18 VCR recordings, docs/conformance.md issue 13), here its only function.
      assert.deepEqual(second.response.functionCalls().map((c) => c.name), ['get_weather']);
      await assertWeatherRoundTrip(key);
    },

    async structured() {
      const { key, model } = connect({
        generationConfig: {
          responseMimeType: 'application/json',
          responseSchema: Schema.object({ properties: { name: Schema.string(), age: Schema.integer() } }),
        },
      });
      const { response } = await model.generateContent(PROMPTS.person);
      assertPerson(JSON.parse(response.text()));
      const [record] = await journal(key);
      assert.equal(record.body.generationConfig.responseSchema.properties.age.type, 'integer');
    },

    async count_tokens() {
      const { key, model } = connect();
      const counted = await model.countTokens(PROMPTS.count);
      const { response } = await model.generateContent(PROMPTS.count);
      assert.equal(counted.totalTokens, response.usageMetadata.promptTokenCount);
      assert.ok(counted.totalTokens > 0);
      const [record] = await journal(key);  // the Developer backend wraps the request, the Vertex one does not
      assert.equal('generateContentRequest' in record.body, backendName === 'GoogleAIBackend');
    },

    async bad_model() {
      const { model } = connect({}, MISSING_MODEL);
      await assert.rejects(model.generateContent(PROMPTS.text), (error) => {
        assert.ok(error instanceof AIError, `${error}`);
        assert.equal(error.code, 'fetch-error');
        assert.equal(error.customErrorData.status, 404);
        assert.match(error.message, /is not found|was not found/);
        return true;
      });
    },
  });
}
