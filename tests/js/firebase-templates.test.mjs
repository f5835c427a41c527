// firebase/ai's server prompt templates (getTemplateGenerativeModel) with both backends, offline: the caller's
// templates set through the admin API, then generateContent, generateContentStream and a template chat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initializeApp } from 'firebase/app';
import { AIError, GoogleAIBackend, VertexAIBackend, getAI, getTemplateGenerativeModel } from 'firebase/ai';
import { BASE, MODEL, journal, newKey } from './harness.mjs';

const PROJECT = 'demo-project';
const GREETING = `---
model: '${MODEL}'
config:
  temperature: 0.3
input:
  schema:
    name: string
---
{{role "system"}}
Address the user by name.
{{role "user"}}
Say hello to {{name}}.
`;
const CHAT = `---
model: '${MODEL}'
---
{{role "system"}}
You help {{name}}.
{{history}}
`;

const VARIANTS = [
  ['GoogleAIBackend', () => new GoogleAIBackend(), `/v1beta/projects/${PROJECT}/templates/`],
  ['VertexAIBackend', () => new VertexAIBackend('us-central1'), `/v1beta/projects/${PROJECT}/locations/us-central1/templates/`],
];

async function admin(key, method, path, body) {
  const response = await fetch(`${BASE}/__emulator${path}`, {
    method,
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = await response.json();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${payload.error?.message}`);
  return payload;
}

for (const [backendName, backend, prefix] of VARIANTS) {
  /** A template model on a fresh Firebase app whose API key names a fresh namespace holding the templates. */
  const connect = async () => {
    const key = newKey();
    await admin(key, 'PUT', '/templates', [
      { id: 'greeting-v1', template: GREETING },
      { id: 'chat-v1', template: CHAT },
    ]);
    const app = initializeApp({ apiKey: key, projectId: PROJECT, appId: '1:1234:web:abcd' }, key);
    const ai = getAI(app, { backend: backend() });
    return { key, model: getTemplateGenerativeModel(ai, { baseUrl: BASE }) };
  };

  describe(`firebase/ai templates (${backendName})`, () => {
    it('generateContent renders the template and answers as its model', async () => {
      const { key, model } = await connect();
      await admin(key, 'POST', '/script', [{ text: 'Hello, John!' }]);
      const { response } = await model.generateContent('greeting-v1', { name: 'John' });
      assert.equal(response.text(), 'Hello, John!');
      assert.equal(response.candidates[0].finishReason, 'STOP');
      const [record] = await journal(key);
      assert.equal(record.path, `${prefix}greeting-v1:templateGenerateContent`);
      assert.equal(record.rpc, 'templateGenerateContent');
      assert.equal(record.model, MODEL);
      assert.deepEqual(record.template, { id: 'greeting-v1', request: { inputs: { name: 'John' } } });
      assert.deepEqual(record.body.contents, [{ role: 'user', parts: [{ text: 'Say hello to John.' }] }]);
      assert.deepEqual(record.body.systemInstruction.parts, [{ text: 'Address the user by name.' }]);
      assert.deepEqual(record.body.generationConfig, { temperature: 0.3 });
    });

    it('generateContentStream streams the same answer', async () => {
      const { key, model } = await connect();
      await admin(key, 'POST', '/script', [{ chunks: ['Hello, ', 'Ann', '!'] }]);
      const { stream, response } = await model.generateContentStream('greeting-v1', { name: 'Ann' });
      const texts = [];
      for await (const chunk of stream) texts.push(chunk.text());
      assert.deepEqual(texts, ['Hello, ', 'Ann', '!']);
      assert.equal((await response).text(), 'Hello, Ann!');
      const [record] = await journal(key);
      assert.equal(record.path, `${prefix}greeting-v1:templateStreamGenerateContent`);
      assert.equal(record.query.alt, 'sse');
    });

    it('a template chat sends its history into the template', async () => {
      const { key, model } = await connect();
      const chat = model.startChat({ templateId: 'chat-v1', templateVariables: { name: 'Jo' } });
      const first = await chat.sendMessage('Hello');
      assert.ok(first.response.text().length > 0);
      await chat.sendMessage('And again');
      assert.equal((await chat.getHistory()).length, 4);
      const records = await journal(key);
      assert.equal(records.length, 2);
      const last = records[1].body;
      assert.deepEqual(last.systemInstruction.parts, [{ text: 'You help Jo.' }]);
      assert.deepEqual(last.contents.map((c) => c.role), ['user', 'model', 'user']);
      assert.deepEqual(last.contents[2].parts, [{ text: 'And again' }]);
      assert.equal(records[1].template.request.history.length, 3);
    });

    it('an unknown template and missing inputs are errors the SDK raises', async () => {
      const { model } = await connect();
      await assert.rejects(model.generateContent('nope', {}), (error) => {
        assert.ok(error instanceof AIError);
        assert.equal(error.customErrorData.status, 404);
        assert.match(error.message, /Template projects\/demo-project\/.*templates\/nope not found\./);
        return true;
      });
      await assert.rejects(model.generateContent('greeting-v1', {}), (error) => {
        assert.equal(error.customErrorData.status, 400);
        assert.match(error.message, /inputs: 'name' is a required property/);
        return true;
      });
    });
  });
}
