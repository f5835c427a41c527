// firebase/ai's Live API (getLiveGenerativeModel(...).connect()) against the emulator, with every backend.
// firebase/ai dials wss://firebasevertexai.googleapis.com whatever baseUrl says; the emulator's own shim
// (GET /__emulator/firebase-live-shim.js, emulator/web/firebase-live-shim.js) wraps the global WebSocket, which
// firebase/ai uses in Node as in a browser, so those sockets open on the emulator. First the shim alone, in a
// sandbox with a recording WebSocket; then the real SDK through it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import vm from 'node:vm';
import { initializeApp } from 'firebase/app';
import {
  AgentPlatformBackend, GoogleAIBackend, ResponseModality, Schema, VertexAIBackend, getAI, getLiveGenerativeModel,
} from 'firebase/ai';
import { BASE, journal, newKey } from './harness.mjs';

const PROJECT = 'demo-project';
const SHIM_PATH = '/__emulator/firebase-live-shim.js';
const FIREBASE = 'wss://firebasevertexai.googleapis.com';

const shimResponse = await fetch(`${BASE}${SHIM_PATH}`);
assert.equal(shimResponse.status, 200);
const SHIM = await shimResponse.text();

/** Run the shim in a sandbox whose WebSocket records what it was opened with; its globals are `globals`. */
function sandbox(globals = {}) {
  class Recording {
    static OPEN = 1;
    constructor(url, ...protocols) { this.url = String(url); this.protocols = protocols; }
  }
  const context = vm.createContext({ URL, console: { info() {} }, WebSocket: Recording, ...globals });
  vm.runInContext(SHIM, context);
  return { context, Recording };
}

describe('firebase-live-shim.js', () => {
  const src = (query = '') => ({ document: { currentScript: { src: `http://127.0.0.1:9999${SHIM_PATH}${query}` } } });

  it('sends Firebase Live URLs to the origin it was loaded from, path and query kept', () => {
    const { context, Recording } = sandbox(src());
    const path = '/ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent?key=k%2F1';
    const socket = new context.WebSocket(`${FIREBASE}${path}`, ['proto']);
    assert.equal(socket.url, `ws://127.0.0.1:9999${path}`);
    assert.deepEqual(socket.protocols, [['proto']]);
    assert.ok(socket instanceof Recording);
    assert.equal(context.WebSocket.OPEN, 1);
  });

  it('leaves every other WebSocket alone', () => {
    const { context } = sandbox(src());
    for (const url of [
      'wss://example.com/ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent',
      'wss://generativelanguage.googleapis.com/ws/x?key=k',
      'ws://firebasevertexai.googleapis.com/ws/x',
      'wss://firebasevertexai.googleapis.com:8443/ws/x',
      'wss://firebasevertexai.googleapis.com.example.com/ws/x',
      'not a url',
    ]) {
      assert.equal(new context.WebSocket(url).url, url);
    }
  });

  it('takes ?emulator= on its src, then GEMINI_EMULATOR_URL before either, https as wss, a path prefix kept', () => {
    const fromQuery = sandbox(src('?emulator=https://emulator.test:8443/gemini/')).context;
    assert.equal(new fromQuery.WebSocket(`${FIREBASE}/ws/a?key=k`).url, 'wss://emulator.test:8443/gemini/ws/a?key=k');
    const fromGlobal = sandbox({ ...src('?emulator=http://elsewhere:1'), GEMINI_EMULATOR_URL: 'http://[::1]:7000' });
    assert.equal(new fromGlobal.context.WebSocket(`${FIREBASE}/ws/b`).url, 'ws://[::1]:7000/ws/b');
    const fallback = sandbox().context; // no document, nothing configured
    assert.equal(new fallback.WebSocket(`${FIREBASE}/ws/c`).url, 'ws://127.0.0.1:8080/ws/c');
  });

  it('wraps once, however often it is loaded', () => {
    const { context, Recording } = sandbox(src());
    const wrapped = context.WebSocket;
    vm.runInContext(SHIM, context);
    assert.equal(context.WebSocket, wrapped);
    assert.equal(Object.getPrototypeOf(wrapped), Recording);
  });
});

// The real SDK: Node 22 has a global WebSocket; Node 20 has none, so undici's (the same WHATWG WebSocket, a
// dependency of the lock's @ai-sdk packages) stands in. Then the shim, configured with the emulator's URL.
globalThis.WebSocket ??= (await import('undici')).WebSocket;
globalThis.GEMINI_EMULATOR_URL = BASE;
vm.runInThisContext(SHIM);

const BACKENDS = [
  ['GoogleAIBackend', () => new GoogleAIBackend(), '/ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent',
    'gemini-2.5-flash-native-audio-latest', (m) => `projects/${PROJECT}/models/${m}`],
  ['VertexAIBackend', () => new VertexAIBackend('us-central1'),
    '/ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/us-central1',
    'gemini-2.0-flash-live-preview-04-09', (m) => `projects/${PROJECT}/locations/us-central1/publishers/google/models/${m}`],
  ['AgentPlatformBackend', () => new AgentPlatformBackend(),
    '/ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/global',
    'gemini-2.0-flash-live-preview-04-09', (m) => `projects/${PROJECT}/locations/global/publishers/google/models/${m}`],
];

async function script(key, ...entries) {
  const response = await fetch(`${BASE}/__emulator/script`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ entries }),
  });
  assert.ok(response.ok, `POST /__emulator/script: ${response.status}`);
}

/** The session's journal record once the server has completed it (it does so when it sees the close). */
async function sessionRecord(key) {
  for (let tries = 0; tries < 500; tries++) {
    const [record] = (await journal(key)).filter((r) => r.rpc === 'BidiGenerateContent');
    if (record?.complete) return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the session record was never completed');
}

/** The messages of one turn, read from the session's one receive() iterator (closing it would end the session's
 * stream of messages), up to turnComplete or a toolCall. */
async function turn(messages) {
  const out = [];
  for (;;) {
    const { value, done } = await messages.next();
    assert.ok(!done, `the session ended after ${JSON.stringify(out)}`);
    out.push(value);
    if (value.type === 'toolCall' || value.turnComplete) return out;
  }
}

const text = (turnMessages) => turnMessages.flatMap((m) => m.modelTurn?.parts ?? []).map((p) => p.text ?? '').join('');

for (const [name, backend, path, MODEL, modelName] of BACKENDS) {
  const live = (params = {}, model = MODEL) => {
    const key = newKey();
    const app = initializeApp({ apiKey: key, projectId: PROJECT, appId: '1:1234:web:abcd' }, key);
    const ai = getAI(app, { backend: backend() });
    const generationConfig = { responseModalities: [ResponseModality.TEXT] };
    return { key, model: getLiveGenerativeModel(ai, { model, generationConfig, ...params }) };
  };

  describe(`firebase/ai Live (${name})`, { timeout: 20_000 }, () => {
    it('connects through the shim and answers a text turn from the script', async () => {
      const { key, model } = live({ systemInstruction: 'Be brief.' });
      await script(key, { text: 'Hello from Firebase Live.' });
      const session = await model.connect();
      const messages = session.receive();
      await session.send('Say hello');
      const answered = await turn(messages);
      await session.close();
      assert.equal(text(answered), 'Hello from Firebase Live.');
      assert.ok(answered.filter((m) => m.modelTurn).length > 1, 'in pieces');
      assert.ok(answered.every((m) => m.type === 'serverContent'));
      const record = await sessionRecord(key);
      assert.equal(record.path, path);
      assert.equal(record.body[0].setup.model, modelName(MODEL));
      assert.deepEqual(record.body[0].setup.systemInstruction.parts, [{ text: 'Be brief.' }]);
      assert.ok(!JSON.stringify(record).includes(key), 'the key never reaches the journal');
    });

    it('makes a function call and answers its response', async () => {
      const tools = [{
        functionDeclarations: [{
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: Schema.object({ properties: { city: Schema.string() } }),
        }],
      }];
      const { key, model } = live({ tools });
      await script(
        key,
        { match: { hasFunctionResponse: false }, functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
        { match: { hasFunctionResponse: true }, text: 'Sunny in Paris.' },
      );
      const session = await model.connect();
      const messages = session.receive();
      await session.send('Weather in Paris?');
      const called = (await turn(messages)).at(-1);
      assert.equal(called.type, 'toolCall');
      const [call] = called.functionCalls;
      assert.deepEqual([call.name, call.args], ['get_weather', { city: 'Paris' }]);
      await session.sendFunctionResponses([{ id: call.id, name: call.name, response: { sky: 'clear' } }]);
      const answered = await turn(messages);
      await session.close();
      assert.equal(text(answered), 'Sunny in Paris.');
      const record = await sessionRecord(key);
      assert.deepEqual(record.body.at(-1).toolResponse.functionResponses[0].response, { sky: 'clear' });
    });

    it('fails to connect on a model the emulator does not serve', async () => {
      const { key, model } = live({}, 'gemini-nope');
      await assert.rejects(model.connect(), /did not respond with a setupComplete/);
      const record = await sessionRecord(key);
      assert.match(JSON.parse(record.response.split('\n').at(-1)).close.reason, /gemini-nope/);
    });
  });
}
