// Vercel's AI SDK: @ai-sdk/google 4.x with ai 7.x (sends responseJsonSchema / parametersJsonSchema) and
// @ai-sdk/google 3.x with ai 6.x (sends responseSchema / parameters), the pair Node 20 resolves by default.
import assert from 'node:assert/strict';
import * as google3 from 'ai-sdk-google3';
import * as google4 from 'ai-sdk-google4';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { z } from 'zod';
import {
  BASE, EMBEDDING_MODEL, MISSING_MODEL, MODEL, PROMPTS, WEATHER_RESULT, assertChatHistory, assertPerson,
  assertUsesWeather, assertWeatherArgs, assertWeatherRoundTrip, journal, matrix, newKey,
} from './harness.mjs';

const VARIANTS = [
  ['@ai-sdk/google 4 + ai 7', google4, ai7, { schema: 'responseJsonSchema', parameters: 'parametersJsonSchema' }],
  ['@ai-sdk/google 3 + ai 6', google3, ai6, { schema: 'responseSchema', parameters: 'parameters' }],
];

for (const [name, provider, ai, fields] of VARIANTS) {
  /** A provider whose API key names a fresh namespace; the base URL must carry the API version. */
  const connect = () => {
    const key = newKey();
    return { key, google: provider.createGoogleGenerativeAI({ apiKey: key, baseURL: `${BASE}/v1beta` }) };
  };

  matrix(name, {
    async text() {
      const { key, google } = connect();
      const result = await ai.generateText({ model: google(MODEL), prompt: PROMPTS.text, maxRetries: 0 });
      assert.match(result.text, /^Hello/);
      assert.equal(result.finishReason, 'stop');
      assert.ok(result.usage.inputTokens > 0);
      const [record] = await journal(key);
      assert.equal(record.path, `/v1beta/models/${MODEL}:generateContent`);
    },

    async stream() {
      const { google } = connect();
      const errors = [];
      const result = ai.streamText({
        model: google(MODEL),
        prompt: PROMPTS.stream,
        maxRetries: 0,
        onError: ({ error }) => errors.push(error),
      });
      const texts = [];
      for await (const text of result.textStream) texts.push(text);
      assert.deepEqual(errors, []);
      assert.ok(texts.length > 1, `${texts.length} chunk(s)`);
      assert.equal(await result.finishReason, 'stop');
      const unary = await ai.generateText({ model: google(MODEL), prompt: PROMPTS.stream, maxRetries: 0 });
      assert.equal(texts.join(''), unary.text);
    },

    async chat() {
      const { key, google } = connect();
      const messages = [{ role: 'user', content: PROMPTS.chat[0] }];
      const first = await ai.generateText({ model: google(MODEL), messages, maxRetries: 0 });
      messages.push(...first.response.messages, { role: 'user', content: PROMPTS.chat[1] });
      const second = await ai.generateText({ model: google(MODEL), messages, maxRetries: 0 });
      assert.match(first.text, /^Hello/);
      assert.match(second.text, /1\..*\n.*2\..*\n.*3\./s);
      await assertChatHistory(key);
    },

    async function_call() {
      const { key, google } = connect();
      const getWeather = ai.tool({
        description: 'Current weather for a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async () => WEATHER_RESULT,
      });
      const result = await ai.generateText({
        model: google(MODEL),
        prompt: PROMPTS.weather,
        tools: { get_weather: getWeather },
        toolChoice: 'required',
        prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { toolChoice: 'none' } : {}), // ANY would force another call
        stopWhen: ai.stepCountIs(2),
        maxRetries: 0,
      });
      const [call] = result.steps[0].toolCalls;
      assert.equal(call.toolName, 'get_weather');
      assertWeatherArgs(call.input);
      assertUsesWeather(result.text);
      await assertWeatherRoundTrip(key, { name: 'get_weather', content: WEATHER_RESULT });
      const [first] = await journal(key);
      assert.ok(fields.parameters in first.body.tools[0].functionDeclarations[0], fields.parameters);
    },

    async structured() {
      const { key, google } = connect();
      const result = await ai.generateText({
        model: google(MODEL),
        prompt: PROMPTS.person,
        output: ai.Output.object({ schema: z.object({ name: z.string(), age: z.number().int() }) }),
        maxRetries: 0,
      });
      assertPerson(result.output);
      const [record] = await journal(key);
      assert.equal(record.body.generationConfig.responseMimeType, 'application/json');
      assert.ok(fields.schema in record.body.generationConfig, fields.schema);
    },

    async embeddings() {
      const { google } = connect();
      const model = google.embedding(EMBEDDING_MODEL);
      const { embedding } = await ai.embed({ model, value: PROMPTS.embed[0], maxRetries: 0 });
      assert.ok(embedding.length > 0 && embedding.every(Number.isFinite));
      const { embeddings } = await ai.embedMany({ model, values: PROMPTS.embed, maxRetries: 0 });
      assert.equal(embeddings.length, 2);
    },

    async bad_model() {
      const { google } = connect();
      const call = ai.generateText({ model: google(MISSING_MODEL), prompt: PROMPTS.text, maxRetries: 0 });
      await assert.rejects(call, (error) => {
        assert.ok(ai.APICallError.isInstance(error), `${error}`);
        assert.equal(error.statusCode, 404);
        assert.match(error.message, /is not found/);
        return true;
      });
    },
  });
}
