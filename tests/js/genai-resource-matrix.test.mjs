// The resources table of docs/sdk-matrix.md for @google/genai 3 (Developer API): a file uploaded, used and deleted,
// a cached content created and used, an inlined batch to completion. Each cell stands alone (its own key, and what
// it needs it makes) and checks the emulator's journal for what the SDK really sent.
import assert from 'node:assert/strict';
import * as genai3 from 'genai3';
import { BASE, CACHE_TEXT, MODEL, PROMPTS, journal, newKey, resourceMatrix } from './harness.mjs';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256))]);

function connect() {
  const key = newKey();
  return { key, ai: new genai3.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } }) };
}

const upload = (ai) => ai.files.upload({ file: new Blob([PNG], { type: 'image/png' }), config: { mimeType: 'image/png', displayName: 'dots' } });
const cache = (ai) => ai.caches.create({ model: MODEL, config: { contents: [{ role: 'user', parts: [{ text: CACHE_TEXT }] }], ttl: '120s' } });

resourceMatrix('@google/genai 3 (Developer)', {
  async files_upload() {
    const { key, ai } = connect();
    const file = await upload(ai);
    assert.match(file.name, /^files\/[a-z0-9]+$/);
    assert.equal(file.sizeBytes, String(PNG.length));
    assert.equal(file.state, 'ACTIVE');
    const commands = (await journal(key)).filter((r) => r.rpc === 'files.upload').map((r) => r.headers['x-goog-upload-command']);
    assert.deepEqual(commands, ['start', 'upload, finalize']);
  },

  async files_use() {
    const { key, ai } = connect();
    const file = await upload(ai);
    const answer = await ai.models.generateContent({ model: MODEL, contents: [genai3.createPartFromUri(file.uri, file.mimeType), PROMPTS.describe] });
    assert.match(answer.text, new RegExp(`the attached file ${file.name} \\(image/png\\)`));
    const generate = (await journal(key)).filter((r) => r.rpc === 'generateContent').at(-1);
    assert.equal(generate.body.contents[0].parts[0].fileData.fileUri, file.uri);
  },

  async files_delete() {
    const { key, ai } = connect();
    const file = await upload(ai);
    await ai.files.delete({ name: file.name });
    await assert.rejects(ai.files.get({ name: file.name }), /You do not have permission to access the File/);
    assert.deepEqual((await journal(key)).slice(-2).map((r) => r.rpc), ['files.delete', 'files.get']);
  },

  async cache_create() {
    const { key, ai } = connect();
    const made = await cache(ai);
    assert.match(made.name, /^cachedContents\/[a-z0-9]{40}$/);
    assert.ok(made.usageMetadata.totalTokenCount > 1024);
    const [created] = (await journal(key)).filter((r) => r.rpc === 'cachedContents.create');
    assert.equal(created.body.contents[0].parts[0].text, CACHE_TEXT);
  },

  async cache_use() {
    const { key, ai } = connect();
    const made = await cache(ai);
    const answer = await ai.models.generateContent({ model: MODEL, contents: PROMPTS.cached, config: { cachedContent: made.name } });
    assert.equal(answer.usageMetadata.cachedContentTokenCount, made.usageMetadata.totalTokenCount);
    const generate = (await journal(key)).filter((r) => r.rpc === 'generateContent').at(-1);
    assert.equal(generate.body.cachedContent, made.name);
  },

  async batches() {
    const { ai } = connect();
    let job = await ai.batches.create({ model: MODEL, src: [{ contents: [{ role: 'user', parts: [{ text: PROMPTS.text }] }] }] });
    const deadline = Date.now() + 10000;
    while (!['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'].includes(job.state)) {
      assert.ok(Date.now() < deadline, `${job.name} still ${job.state}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = await ai.batches.get({ name: job.name });
    }
    assert.equal(job.state, 'JOB_STATE_SUCCEEDED');
    const [item] = job.dest.inlinedResponses;
    assert.match(item.response.candidates[0].content.parts[0].text, /^Hello/);
  },
});
