// @google/genai 3 against the emulator's Files API: upload (its resumable protocol, in Node), get, list in pages,
// download to a path, use in generateContent, delete; another key's file is production's 403.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as genai3 from 'genai3';
import { BASE, MODEL, newKey } from './harness.mjs';

const connect = (key = newKey()) => new genai3.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: BASE } });
const BYTES = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

describe('@google/genai 3 files', () => {
  it('upload, get, list, download, generate with it, delete', async () => {
    const ai = connect();
    const dir = mkdtempSync(join(tmpdir(), 'genai-files-'));
    const path = join(dir, 'dots.png');
    writeFileSync(path, BYTES);
    const file = await ai.files.upload({ file: path, config: { mimeType: 'image/png', displayName: 'Dots' } });
    assert.match(file.name, /^files\/[a-z0-9]+$/);
    assert.equal(file.sizeBytes, String(BYTES.length));
    assert.equal(file.state, 'ACTIVE');
    assert.equal(file.displayName, 'Dots');
    assert.equal(file.uri, `${BASE}/v1beta/${file.name}`);
    assert.equal((await ai.files.get({ name: file.name })).sha256Hash, file.sha256Hash);
    const second = await ai.files.upload({ file: new Blob(['hello']), config: { mimeType: 'text/plain' } });
    const pager = await ai.files.list({ config: { pageSize: 1 } });
    const names = [];
    for await (const listed of pager) names.push(listed.name);
    assert.deepEqual(names, [second.name, file.name]);
    const target = join(dir, 'copy.png');
    await ai.files.download({ file: file.name, downloadPath: target });
    assert.deepEqual(readFileSync(target), BYTES);
    const answer = await ai.models.generateContent({
      model: MODEL,
      contents: [genai3.createPartFromUri(file.uri, file.mimeType), 'Describe this picture'],
    });
    assert.match(answer.text, new RegExp(`the attached file ${file.name} \\(image/png\\)`));
    await ai.files.delete({ name: file.name });
    await assert.rejects(ai.files.get({ name: file.name }), /You do not have permission to access the File/);
  });

  it("another key's file is production's 403", async () => {
    const mine = await connect().files.upload({ file: new Blob(['secret']), config: { mimeType: 'text/plain' } });
    const other = connect();
    await assert.rejects(other.files.get({ name: mine.name }), (error) => error.status === 403);
    await assert.rejects(
      other.models.generateContent({ model: MODEL, contents: [genai3.createPartFromUri(mine.uri, 'text/plain'), 'Hi'] }),
      /or it may not exist/,
    );
  });
});
