// @google/genai 3 `ai.live.connect` against the emulator's Live API (ws:// for an http base URL, the key in ?key=):
// a text turn, an audio turn with its transcription, a tool call round trip, realtime audio, an ephemeral token,
// and a wrong model ending the session with production's close frame.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as genai from 'genai3';
import { BASE, journal, newKey } from './harness.mjs';

const MODEL = 'gemini-2.5-flash-native-audio-latest';
const { GoogleGenAI, Modality } = genai;

async function script(key, ...entries) {
  const response = await fetch(`${BASE}/__emulator/script`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ entries }),
  });
  assert.ok(response.ok, `POST /__emulator/script: ${response.status}`);
}

/** A session whose messages queue up; `turn()` resolves with the messages up to turnComplete (or a toolCall). */
async function open(ai, config) {
  const queue = [];
  const waiting = [];
  let closed = null;
  const wake = () => waiting.splice(0).forEach((resolve) => resolve());
  const session = await ai.live.connect({
    model: MODEL,
    config,
    callbacks: {
      onmessage: (message) => { queue.push(message); wake(); },
      onerror: () => {},
      onclose: (event) => { closed = event; wake(); },
    },
  });
  const next = async () => {
    const deadline = Date.now() + 10_000;
    while (!queue.length) {
      if (closed) throw new Error(`closed ${closed.code} ${closed.reason}`);
      if (Date.now() > deadline) throw new Error('no message within 10 s');
      await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 200); });
    }
    return queue.shift();
  };
  const turn = async () => {
    const messages = [];
    for (;;) {
      const message = await next();
      messages.push(message);
      if (message.serverContent?.turnComplete || message.toolCall) return messages;
    }
  };
  return { session, turn, closed: () => closed };
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

const text = (messages) => messages.map((m) => m.text ?? '').join('');

describe('@google/genai 3 Live API', () => {
  it('answers a text turn from the script, in pieces, with usage', async () => {
    const key = newKey();
    await script(key, { text: 'Hello from the Live emulator.' });
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
    const live = await open(ai, { responseModalities: [Modality.TEXT] });
    live.session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'hi' }] }], turnComplete: true });
    const messages = await live.turn();
    live.session.close();
    assert.equal(text(messages), 'Hello from the Live emulator.');
    assert.ok(messages.filter((m) => m.serverContent?.modelTurn).length > 1);
    assert.ok(messages.some((m) => m.serverContent?.generationComplete));
    assert.ok(messages.at(-1).usageMetadata.totalTokenCount > 0);
    const record = await sessionRecord(key);
    assert.equal(record.body[0].setup.model, `models/${MODEL}`);
    assert.ok(!JSON.stringify(record).includes(key), 'the key never reaches the journal');
  });

  it('speaks an AUDIO turn as 24 kHz PCM with its transcription', async () => {
    const key = newKey();
    await script(key, { text: 'Spoken words.' });
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
    const live = await open(ai, { responseModalities: [Modality.AUDIO], outputAudioTranscription: {} });
    live.session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'say it' }] }], turnComplete: true });
    const messages = await live.turn();
    live.session.close();
    const pcm = messages.map((m) => m.data ?? '').filter(Boolean).map((d) => Buffer.from(d, 'base64'));
    assert.ok(Buffer.concat(pcm).length >= 24000 * 2 * 0.25);
    const said = messages.map((m) => m.serverContent?.outputTranscription?.text ?? '').join('');
    assert.equal(said, 'Spoken words.');
  });

  it('round-trips a tool call by id', async () => {
    const key = newKey();
    await script(
      key,
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
      { match: { hasFunctionResponse: true }, text: 'Cold.' },
    );
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
    const tools = [{ functionDeclarations: [{ name: 'get_weather' }] }];
    const live = await open(ai, { responseModalities: [Modality.TEXT], tools });
    live.session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'weather?' }] }], turnComplete: true });
    const [call] = (await live.turn()).at(-1).toolCall.functionCalls;
    assert.deepEqual([call.name, call.args], ['get_weather', { city: 'Oslo' }]);
    live.session.sendToolResponse({ functionResponses: [{ id: call.id, name: call.name, response: { t: -3 } }] });
    assert.equal(text(await live.turn()), 'Cold.');
    live.session.close();
  });

  it('takes realtime audio with explicit activity signals', async () => {
    const key = newKey();
    await script(key, { text: 'Heard.', live: { inputTranscription: 'hello there' } });
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
    const live = await open(ai, {
      responseModalities: [Modality.TEXT],
      inputAudioTranscription: {},
      realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
    });
    live.session.sendRealtimeInput({ activityStart: {} });
    const tone = Buffer.alloc(640);
    for (let i = 0; i < 320; i++) tone.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), i * 2);
    for (let i = 0; i < 10; i++) {
      live.session.sendRealtimeInput({ audio: { data: tone.toString('base64'), mimeType: 'audio/pcm;rate=16000' } });
    }
    live.session.sendRealtimeInput({ activityEnd: {} });
    const messages = await live.turn();
    live.session.close();
    assert.equal(messages.find((m) => m.serverContent?.inputTranscription).serverContent.inputTranscription.text,
      'hello there');
    assert.equal(text(messages), 'Heard.');
  });

  it('connects with an ephemeral token, which its one use then refuses', async () => {
    const key = newKey();
    await script(key, { text: 'Token ok.' });
    const minter = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE, apiVersion: 'v1alpha' } });
    const token = await minter.authTokens.create({ config: { uses: 1 } });
    assert.match(token.name, /^auth_tokens\//);
    const ai = new GoogleGenAI({ apiKey: token.name, httpOptions: { baseUrl: BASE, apiVersion: 'v1alpha' } });
    const live = await open(ai, { responseModalities: [Modality.TEXT] });
    live.session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'hi' }] }], turnComplete: true });
    assert.equal(text(await live.turn()), 'Token ok.');
    live.session.close();
    const again = await open(ai, { responseModalities: [Modality.TEXT] }).then(
      () => null,
      (error) => error,
    );
    assert.match(String(again), /1008/);
  });

  it('ends the session with 1008 for a model that is not a Live model', async () => {
    const ai = new GoogleGenAI({ apiKey: newKey(), httpOptions: { baseUrl: BASE } });
    let closed = null;
    const failed = await ai.live
      .connect({
        model: 'gemini-nope',
        config: { responseModalities: [Modality.TEXT] },
        callbacks: { onmessage: () => {}, onclose: (event) => { closed = event; } },
      })
      .then(() => null, (error) => error);
    const deadline = Date.now() + 5000;
    while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(closed || failed, 'the session ended');
    if (closed) {
      assert.equal(closed.code, 1008);
      assert.match(closed.reason, /models\/gemini-nope is not found .* bidiGenerateContent/);
    }
  });
});
