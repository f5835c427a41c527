// The web SDKs in a real page: firebase/ai on both Firebase backends and @google/genai's browser build, each call
// against the emulator named in ?emulator=, each outcome written into the page as <li id=... data-outcome=...>.
// tests/browser/test_web_sdks.py bundles this file with esbuild (from tests/js/node_modules) and reads the page.
//
// Query: emulator=<url> (required), key=<API key> (one namespace per page load), appCheck=1 (the emulator runs
// with --app-check: the Firebase apps get a token from App Check's CustomProvider, and one app without App Check
// shows the refusal).
import { initializeApp } from 'firebase/app';
import { CustomProvider, initializeAppCheck } from 'firebase/app-check';
import {
  FunctionCallingMode, GoogleAIBackend, ResponseModality, Schema, VertexAIBackend, getAI, getGenerativeModel,
  getLiveGenerativeModel, getTemplateGenerativeModel,
} from 'firebase/ai';
import { GoogleGenAI } from 'genai3';

const params = new URLSearchParams(location.search);
const EMULATOR = params.get('emulator');
const KEY = params.get('key') ?? 'browser-page-key';
const APP_CHECK = params.get('appCheck') === '1';
const MODEL = 'gemini-2.5-flash';
const PROJECT = 'demo-project';
const results = document.getElementById('results');
// The Live models each backend's page uses (what tests/js/firebase-live.test.mjs uses too).
const LIVE_MODELS = {
  'firebase-googleai': 'gemini-2.5-flash-native-audio-latest',
  'firebase-vertexai': 'gemini-2.0-flash-live-preview-04-09',
};

/** The emulator's WebSocket shim, loaded as a page loads it in development (README, "Web apps and Firebase AI
 * Logic"): firebase/ai dials wss://firebasevertexai.googleapis.com whatever baseUrl says, the shim sends it here. */
async function loadLiveShim() {
  await new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `${EMULATOR}/__emulator/firebase-live-shim.js`;
    script.onload = resolve;
    script.onerror = () => reject(new Error('the Live shim did not load'));
    document.head.append(script);
  });
}

/** Write one outcome into the page. */
function show(id, outcome, text) {
  const item = document.createElement('li');
  item.id = id;
  item.dataset.outcome = outcome;
  item.textContent = `${id}: ${text}`;
  results.append(item);
}

/** Run one call; what it returns (or the error it throws) becomes its line. */
async function run(id, call) {
  try {
    show(id, 'ok', String(await call()));
  } catch (error) {
    show(id, 'error', String(error?.message ?? error));
  }
}

/** Run a call that must be refused: its error is the expected outcome ("refused"), an answer is an error. */
async function refused(id, call) {
  try {
    show(id, 'error', `answered, not refused: ${await call()}`);
  } catch (error) {
    show(id, 'refused', String(error?.message ?? error));
  }
}

/** A small PNG drawn on a canvas, as a Blob (what an <input type=file> or a paste hands a page). */
async function canvasBlob() {
  const canvas = document.createElement('canvas');
  canvas.width = 32;
  canvas.height = 32;
  const context = canvas.getContext('2d');
  context.fillStyle = '#1a73e8';
  context.fillRect(0, 0, 32, 32);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}

/** A Blob's bytes as base64, through FileReader as pages do. */
async function base64Of(blob) {
  const url = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
  return url.slice(url.indexOf(',') + 1);
}

function firebaseApp(name, withAppCheck) {
  const app = initializeApp({ apiKey: KEY, projectId: PROJECT, appId: '1:1234:web:abcd' }, name);
  if (withAppCheck) {
    initializeAppCheck(app, {
      provider: new CustomProvider({
        getToken: async () => ({ token: 'page.app-check.token', expireTimeMillis: Date.now() + 3_600_000 }),
      }),
      isTokenAutoRefreshEnabled: false,
    });
  }
  return app;
}

const WEATHER_TOOL = {
  functionDeclarations: [{
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: Schema.object({ properties: { city: Schema.string() } }),
  }],
};

async function firebaseCases(label, backend) {
  const ai = getAI(firebaseApp(label, APP_CHECK), { backend });
  const model = (params = {}) => getGenerativeModel(ai, { model: MODEL, ...params }, { baseUrl: EMULATOR });

  await run(`${label}-generate`, async () => (await model().generateContent('Say hello')).response.text());
  await run(`${label}-stream`, async () => {
    const { stream } = await model().generateContentStream('Tell me a short story');
    const texts = [];
    for await (const chunk of stream) texts.push(chunk.text());
    return `${texts.length} chunks: ${texts.join('').slice(0, 40)}`;
  });
  await run(`${label}-chat`, async () => {
    const chat = model().startChat();
    await chat.sendMessage('Hi there');
    const second = await chat.sendMessage('List three fruits');
    return `${(await chat.getHistory()).length} turns; ${second.response.text().split('\n')[0]}`;
  });
  await run(`${label}-function-call`, async () => {
    const chat = model({
      tools: [WEATHER_TOOL],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingMode.ANY } },
    }).startChat();
    const [call] = (await chat.sendMessage('What is the weather in Paris?')).response.functionCalls();
    return `${call.name}(${JSON.stringify(call.args)})`;
  });
  await run(`${label}-structured`, async () => {
    const { response } = await model({
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: Schema.object({ properties: { name: Schema.string(), age: Schema.integer() } }),
      },
    }).generateContent('A person, as JSON');
    const person = JSON.parse(response.text());
    return `keys ${Object.keys(person).sort().join(',')}; age is ${typeof person.age}`;
  });
  await run(`${label}-count-tokens`, async () => `${(await model().countTokens('Count these tokens')).totalTokens} tokens`);
  await run(`${label}-image-blob`, async () => {
    const blob = await canvasBlob();
    const { response } = await model().generateContent([
      'Describe this image',
      { inlineData: { mimeType: blob.type, data: await base64Of(blob) } },
    ]);
    return `${blob.type} ${blob.size} bytes -> ${response.text().slice(0, 40)}`;
  });
  await run(`${label}-template`, async () => {
    // the test set the template `greeting-v1` for this page's key through the admin API
    const templates = getTemplateGenerativeModel(ai, { baseUrl: EMULATOR });
    return (await templates.generateContent('greeting-v1', { name: 'Ada' })).response.text();
  });
  await run(`${label}-live`, async () => {
    const live = getLiveGenerativeModel(ai, {
      model: LIVE_MODELS[label],
      generationConfig: { responseModalities: [ResponseModality.TEXT] },
    });
    const session = await live.connect();
    const messages = session.receive();
    await session.send('Say hello');
    let text = '';
    for (let i = 0; i < 1000; i += 1) {  // a bound: a turn is a few dozen messages
      const { value, done } = await messages.next();
      if (done) break;
      text += (value.modelTurn?.parts ?? []).map((part) => part.text ?? '').join('');
      if (value.turnComplete) break;
    }
    await session.close();
    return text;
  });
  if (APP_CHECK) {
    const bare = getAI(firebaseApp(`${label}-no-app-check`, false), { backend });
    await refused(`${label}-without-app-check`, async () => (
      await getGenerativeModel(bare, { model: MODEL }, { baseUrl: EMULATOR }).generateContent('Say hello')
    ).response.text());
  }
}

async function genaiCases() {
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: EMULATOR } });
  await run('genai-generate', async () => (await ai.models.generateContent({ model: MODEL, contents: 'Say hello' })).text);
  await run('genai-stream', async () => {
    const texts = [];
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'Tell me a story' })) {
      texts.push(chunk.text);
    }
    return `${texts.length} chunks: ${texts.join('').slice(0, 40)}`;
  });
  await run('genai-count-tokens', async () => (
    `${(await ai.models.countTokens({ model: MODEL, contents: 'Count these tokens' })).totalTokens} tokens`
  ));
  await run('genai-upload-blob', async () => {
    const blob = await canvasBlob();
    const file = await ai.files.upload({ file: blob, config: { mimeType: 'image/png', displayName: 'canvas' } });
    const fetched = await ai.files.get({ name: file.name });
    return `${fetched.name} ${fetched.mimeType} ${fetched.sizeBytes} bytes ${fetched.state}`;
  });
}

await loadLiveShim();
await firebaseCases('firebase-googleai', new GoogleAIBackend());
await firebaseCases('firebase-vertexai', new VertexAIBackend('us-central1'));
await genaiCases();
document.body.dataset.done = String(results.children.length);
