// @google/genai 3 against the emulator's Gemini resources: cached contents (create, use, update, delete) and
// batch jobs (inlined to completion, a scripted failed item, cancel, a JSONL file in and a result file out).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as genai3 from 'genai3';
import { BASE, MODEL, newKey } from './harness.mjs';

const BIG = 'Paris is the capital of France. The Eiffel Tower is in Paris. '.repeat(200);

function connect() {
  const key = newKey();
  return { key, ai: new genai3.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } }) };
}

async function admin(key, method, path, body) {
  const response = await fetch(`${BASE}/__emulator${path}`, {
    method,
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function untilDone(ai, name) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const job = await ai.batches.get({ name });
    if (['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'].includes(job.state)) {
      return job;
    }
    assert.ok(Date.now() < deadline, `${name} still ${job.state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('@google/genai 3 resources', () => {
  it('cache create, use, update, delete', async () => {
    const { ai } = connect();
    const cache = await ai.caches.create({
      model: MODEL,
      config: { contents: [{ role: 'user', parts: [{ text: BIG }] }], systemInstruction: 'Be a guide.', ttl: '120s' },
    });
    assert.match(cache.name, /^cachedContents\/[a-z0-9]{40}$/);
    const total = cache.usageMetadata.totalTokenCount;
    const answer = await ai.models.generateContent({ model: MODEL, contents: 'Where is the tower?', config: { cachedContent: cache.name } });
    assert.equal(answer.usageMetadata.cachedContentTokenCount, total);
    assert.ok(answer.usageMetadata.promptTokenCount > total);
    const moved = await ai.caches.update({ name: cache.name, config: { ttl: '600s' } });
    assert.ok(new Date(moved.expireTime) > new Date(cache.expireTime));
    await assert.rejects(
      ai.models.generateContent({ model: MODEL, contents: 'Hi', config: { cachedContent: cache.name, systemInstruction: 'x' } }),
      /CachedContent can not be used with GenerateContent request setting system_instruction/,
    );
    await ai.caches.delete({ name: cache.name });
    await assert.rejects(ai.caches.get({ name: cache.name }), /CachedContent not found \(or permission denied\)/);
  });

  it('inline batch to completion with a scripted failed item', async () => {
    const { key, ai } = connect();
    await admin(key, 'POST', '/script', [{ match: { text: 'fail' }, error: 'internal' }]);
    const job = await ai.batches.create({
      model: MODEL,
      src: [{ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] }, { contents: [{ role: 'user', parts: [{ text: 'please fail' }] }] }],
      config: { displayName: 'js' },
    });
    assert.equal(job.state, 'JOB_STATE_PENDING');
    const done = await untilDone(ai, job.name);
    assert.equal(done.state, 'JOB_STATE_SUCCEEDED');
    const [ok, failed] = done.dest.inlinedResponses;
    assert.match(ok.response.candidates[0].content.parts[0].text, /^Hello/);
    assert.equal(failed.error.code, 13);
  });

  it('cancel a held batch', async () => {
    const { key, ai } = connect();
    await admin(key, 'PUT', '/batches', { pendingMs: 0, hold: true });
    const job = await ai.batches.create({ model: MODEL, src: [{ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }] });
    await ai.batches.cancel({ name: job.name });
    const cancelled = await ai.batches.get({ name: job.name });
    assert.equal(cancelled.state, 'JOB_STATE_CANCELLED');
    await ai.batches.delete({ name: job.name });
  });

  it('file batch to completion, result file downloaded', async () => {
    const { ai } = connect();
    const line = JSON.stringify({ key: 'k1', request: { contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] } });
    const uploaded = await ai.files.upload({ file: new Blob([line + '\n'], { type: 'application/jsonl' }), config: { mimeType: 'application/jsonl' } });
    const job = await ai.batches.create({ model: MODEL, src: uploaded.name });
    const done = await untilDone(ai, job.name);
    assert.equal(done.state, 'JOB_STATE_SUCCEEDED');
    assert.match(done.dest.fileName, /^files\//);
    const path = join(mkdtempSync(join(tmpdir(), 'batch-')), 'results.jsonl');
    await ai.files.download({ file: done.dest.fileName, downloadPath: path });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the SDK's write stream finishes after it resolves
    const [result] = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(result.key, 'k1');
    assert.match(result.response.candidates[0].content.parts[0].text, /^Hello/);
  });
});
