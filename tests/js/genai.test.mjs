// @google/genai 3.x and 2.x (the version Node 20 resolves by default), Developer API, Vertex AI with a static
// OAuth token, and Vertex express mode.
import assert from 'node:assert/strict';
import { OAuth2Client } from 'google-auth-library';
import * as genai2 from 'genai2';
import * as genai3 from 'genai3';
import {
  BASE, EMBEDDING_MODEL, MISSING_MODEL, MODEL, PROMPTS, WEATHER_RESULT, assertChatHistory, assertPerson,
  assertUsesWeather, assertWeatherArgs, assertWeatherRoundTrip, journal, matrix, newKey,
} from './harness.mjs';

const WEATHER = {
  functionDeclarations: [{
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
  }],
};
const PERSON_SCHEMA = {
  type: 'OBJECT',
  properties: { name: { type: 'STRING' }, age: { type: 'INTEGER' } },
  required: ['name', 'age'],
};

function staticToken(token) {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: token, expiry_date: Date.now() + 3600e3 });
  return authClient;
}

/** Each backend: how to build a client whose credential names a fresh namespace, and the URL prefix it uses. */
const BACKENDS = {
  Developer: (sdk, key) => new sdk.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } }),
  Vertex: (sdk, token) =>
    new sdk.GoogleGenAI({
      vertexai: true,
      project: 'demo-project',
      location: 'us-central1',
      googleAuthOptions: { authClient: staticToken(token) },
      httpOptions: { baseUrl: BASE },
    }),
  'Vertex express': (sdk, key) => new sdk.GoogleGenAI({ vertexai: true, apiKey: key, httpOptions: { baseUrl: BASE } }),
};

const VERTEX = '/v1beta1/projects/demo-project/locations/us-central1/publishers/google/models/';

const VARIANTS = [
  ['@google/genai 3', genai3, 'Developer', '/v1/models/'],
  ['@google/genai 3', genai3, 'Vertex', VERTEX],
  ['@google/genai 3', genai3, 'Vertex express', '/v1beta1/publishers/google/models/'],
  ['@google/genai 2', genai2, 'Developer', '/v1beta/models/'],
  ['@google/genai 2', genai2, 'Vertex', VERTEX],
];

for (const [name, sdk, backend, prefix] of VARIANTS) {
  const connect = () => {
    const key = newKey();
    return { key, ai: BACKENDS[backend](sdk, key) };
  };

  matrix(`${name} (${backend})`, {
    async text() {
      const { key, ai } = connect();
      const response = await ai.models.generateContent({ model: MODEL, contents: PROMPTS.text });
      assert.match(response.text, /^Hello/);
      assert.equal(response.candidates[0].finishReason, 'STOP');
      assert.ok(response.usageMetadata.promptTokenCount > 0);
      const [record] = await journal(key);
      assert.equal(record.path, `${prefix}${MODEL}:generateContent`);
    },

    async stream() {
      const { ai } = connect();
      const chunks = [];
      for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: PROMPTS.stream })) {
        chunks.push(chunk);
      }
      assert.ok(chunks.length > 1, `${chunks.length} chunk(s)`);
      assert.equal(chunks.at(-1).candidates[0].finishReason, 'STOP');
      const unary = await ai.models.generateContent({ model: MODEL, contents: PROMPTS.stream });
      assert.equal(chunks.map((c) => c.text).join(''), unary.text);
    },

    async chat() {
      const { key, ai } = connect();
      const chat = ai.chats.create({ model: MODEL });
      const first = await chat.sendMessage({ message: PROMPTS.chat[0] });
      const second = await chat.sendMessage({ message: PROMPTS.chat[1] });
      assert.match(first.text, /^Hello/);
      assert.match(second.text, /1\..*\n.*2\..*\n.*3\./s);
      assert.equal(chat.getHistory().length, 4);
      await assertChatHistory(key);
    },

    async function_call() {
      const { key, ai } = connect();
      const any = { functionCallingConfig: { mode: sdk.FunctionCallingConfigMode.ANY } };
      const forced = { tools: [WEATHER], toolConfig: any };
      const contents = [{ role: 'user', parts: [{ text: PROMPTS.weather }] }];
      const first = await ai.models.generateContent({ model: MODEL, contents, config: forced });
      const [call] = first.functionCalls;
      assert.equal(call.name, 'get_weather');
      assertWeatherArgs(call.args);
      contents.push(first.candidates[0].content, {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: call.name, response: WEATHER_RESULT } }],
      });
      const second = await ai.models.generateContent({ model: MODEL, contents, config: { tools: [WEATHER] } });
      assertUsesWeather(second.text);
      await assertWeatherRoundTrip(key);
    },

    async structured() {
      const { key, ai } = connect();
      const response = await ai.models.generateContent({
        model: MODEL,
        contents: PROMPTS.person,
        config: { responseMimeType: 'application/json', responseSchema: PERSON_SCHEMA },
      });
      assertPerson(JSON.parse(response.text));
      const [record] = await journal(key);
      assert.equal(record.body.generationConfig.responseMimeType, 'application/json');
      assert.equal(record.body.generationConfig.responseSchema.properties.age.type, 'INTEGER');
    },

    async count_tokens() {
      const { ai } = connect();
      const counted = await ai.models.countTokens({ model: MODEL, contents: PROMPTS.count });
      const generated = await ai.models.generateContent({ model: MODEL, contents: PROMPTS.count });
      assert.equal(counted.totalTokens, generated.usageMetadata.promptTokenCount);
      assert.ok(counted.totalTokens > 0);
    },

    async embeddings() {
      const { ai } = connect();
      const response = await ai.models.embedContent({ model: EMBEDDING_MODEL, contents: PROMPTS.embed });
      assert.equal(response.embeddings.length, 2);
      for (const embedding of response.embeddings) {
        assert.ok(embedding.values.length > 0 && embedding.values.every(Number.isFinite));
      }
    },

    async bad_model() {
      const { ai } = connect();
      await assert.rejects(ai.models.generateContent({ model: MISSING_MODEL, contents: PROMPTS.text }), (error) => {
        assert.ok(error instanceof sdk.ApiError, `${error}`);
        assert.equal(error.status, 404);
        assert.match(error.message, /NOT_FOUND/);
        return true;
      });
    },
  });
}
