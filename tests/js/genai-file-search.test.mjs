// @google/genai 3 against the emulator's file search stores: create, upload a document (a Blob and a path: its
// resumable protocol, in Node), import a Files API file, poll both operations, list/get/delete documents, generate
// with the fileSearch tool (grounding metadata cites the document), another key's store is a 403, force delete.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as genai3 from 'genai3';
import { BASE, MODEL, newKey } from './harness.mjs';

const connect = (key = newKey()) => new genai3.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
const PARIS = 'Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris.';

async function untilDone(ai, operation) {
  const deadline = Date.now() + 10_000;
  while (!operation.done) {
    assert.ok(Date.now() < deadline, `${operation.name} not done in 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    operation = await ai.operations.get({ operation });
  }
  return operation;
}

describe('@google/genai 3 file search stores', () => {
  it('upload, import, documents, generate with fileSearch, force delete', async () => {
    const ai = connect();
    const store = await ai.fileSearchStores.create({ config: { displayName: 'js-store' } });
    assert.match(store.name, /^fileSearchStores\/jsstore-[a-z0-9]{12}$/);
    let upload = await ai.fileSearchStores.uploadToFileSearchStore({
      fileSearchStoreName: store.name,
      file: new Blob([PARIS]),
      config: { mimeType: 'text/plain', displayName: 'paris.txt' },
    });
    assert.match(upload.name, new RegExp(`^${store.name}/upload/operations/`));
    upload = await untilDone(ai, upload);
    const dir = mkdtempSync(join(tmpdir(), 'genai-fs-'));
    const path = join(dir, 'bananas.txt');
    writeFileSync(path, 'Bananas are yellow and grow in bunches.');
    await untilDone(
      ai,
      await ai.fileSearchStores.uploadToFileSearchStore({ fileSearchStoreName: store.name, file: path, config: { mimeType: 'text/plain' } }),
    );
    const file = await ai.files.upload({ file: new Blob(['Lyon is known for its cuisine.']), config: { mimeType: 'text/plain' } });
    const imported = await untilDone(ai, await ai.fileSearchStores.importFile({ fileSearchStoreName: store.name, fileName: file.name }));
    assert.equal(imported.response.parent, store.name);

    const names = [];
    for await (const doc of await ai.fileSearchStores.documents.list({ parent: store.name, config: { pageSize: 1 } })) names.push(doc.name);
    assert.equal(names.length, 3);
    const doc = await ai.fileSearchStores.documents.get({ name: upload.response.documentName });
    assert.equal(doc.state, 'STATE_ACTIVE');
    assert.equal(doc.displayName, 'paris.txt');
    assert.equal(doc.sizeBytes, String(PARIS.length));

    const answer = await ai.models.generateContent({
      model: MODEL,
      contents: 'What is the capital of France?',
      config: { tools: [{ fileSearch: { fileSearchStoreNames: [store.name] } }] },
    });
    assert.ok(answer.text.startsWith('Paris is the capital of France.'));
    const grounding = answer.candidates[0].groundingMetadata;
    assert.deepEqual(grounding.groundingChunks[0].retrievedContext, { title: 'paris.txt', text: PARIS, fileSearchStore: store.name });
    assert.deepEqual(grounding.groundingSupports[0].groundingChunkIndices, [0]);

    await assert.rejects(ai.fileSearchStores.delete({ name: store.name }), /Cannot delete non-empty FileSearchStore/);
    await ai.fileSearchStores.documents.delete({ name: doc.name, config: { force: true } });
    await ai.fileSearchStores.delete({ name: store.name, config: { force: true } });
    await assert.rejects(ai.fileSearchStores.get({ name: store.name }), (error) => error.status === 403);
  });

  it("another key's store is a 403", async () => {
    const mine = await connect().fileSearchStores.create({ config: { displayName: 'mine' } });
    const other = connect();
    await assert.rejects(other.fileSearchStores.get({ name: mine.name }), (error) => error.status === 403);
    await assert.rejects(
      other.models.generateContent({
        model: MODEL,
        contents: 'Hi there',
        config: { tools: [{ fileSearch: { fileSearchStoreNames: [mine.name] } }] },
      }),
      /You do not have permission to access the FileSearchStore/,
    );
  });
});
