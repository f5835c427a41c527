// @google/genai 3 against the emulator's media surfaces: image output, speech, Imagen generate/edit/upscale,
// Veo with operation polling (Vertex), Interactions chained by previous_interaction_id, computeTokens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as genai3 from 'genai3';
import { OAuth2Client } from 'google-auth-library';
import { BASE, newKey } from './harness.mjs';

const developer = () => new genai3.GoogleGenAI({ apiKey: newKey(), httpOptions: { baseUrl: BASE } });
const express = () => new genai3.GoogleGenAI({ vertexai: true, apiKey: newKey(), httpOptions: { baseUrl: BASE } });

/** (width, height) from a PNG's IHDR, after checking its signature. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** Vertex AI with a static OAuth token (each a namespace of its own), as genai.test.mjs builds it. */
function vertex() {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: newKey(), expiry_date: Date.now() + 3600e3 });
  return new genai3.GoogleGenAI({
    vertexai: true,
    project: 'demo-project',
    location: 'us-central1',
    googleAuthOptions: { authClient },
    httpOptions: { baseUrl: BASE },
  });
}

const b64 = (text) => Buffer.from(text, 'base64');

describe('@google/genai 3 media', () => {
  it('generateContent with responseModalities IMAGE answers a PNG of the asked shape', async () => {
    const ai = developer();
    const response = await ai.models.generateContent({
      model: 'gemini-3.1-flash-image',
      contents: 'Draw a lighthouse',
      config: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    const image = response.candidates[0].content.parts.find((p) => p.inlineData);
    assert.equal(image.inlineData.mimeType, 'image/png');
    assert.deepEqual(pngSize(b64(image.inlineData.data)), [1344, 768]);
  });

  it('TTS with speechConfig answers 24 kHz 16-bit PCM whose length follows the text', async () => {
    const ai = developer();
    const speak = (text) =>
      ai.models.generateContent({
        model: 'gemini-2.5-flash-preview-tts',
        contents: text,
        config: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      });
    const short = await speak('Hello there.');
    const long = await speak('Hello there. '.repeat(12));
    const blob = short.candidates[0].content.parts[0].inlineData;
    assert.equal(blob.mimeType, 'audio/L16;codec=pcm;rate=24000');
    const [a, b] = [b64(blob.data), b64(long.candidates[0].content.parts[0].inlineData.data)];
    assert.equal(a.length % 2, 0);
    const seconds = a.length / (24000 * 2);
    assert.ok(seconds > 0.2 && seconds < 10, `${seconds} s`);
    assert.ok(b.length > 3 * a.length);
  });

  it('generateImages, editImage and upscaleImage', async () => {
    const ai = express();
    const made = await ai.models.generateImages({
      model: 'imagen-4.0-generate-001',
      prompt: 'A red kite',
      config: { numberOfImages: 2, aspectRatio: '9:16' },
    });
    assert.equal(made.generatedImages.length, 2);
    for (const g of made.generatedImages) assert.deepEqual(pngSize(b64(g.image.imageBytes)), [768, 1408]);
    const source = made.generatedImages[0].image;
    const raw = new genai3.RawReferenceImage();
    raw.referenceImage = source;
    raw.referenceId = 1;
    const edited = await ai.models.editImage({
      model: 'imagen-3.0-capability-001',
      prompt: 'Make it blue',
      referenceImages: [raw],
      config: { numberOfImages: 1, editMode: genai3.EditMode.EDIT_MODE_DEFAULT },
    });
    assert.deepEqual(pngSize(b64(edited.generatedImages[0].image.imageBytes)), [768, 1408]);
    const upscaled = await ai.models.upscaleImage({ model: 'imagen-4.0-upscale-preview', image: source, upscaleFactor: 'x2' });
    assert.deepEqual(pngSize(b64(upscaled.generatedImages[0].image.imageBytes)), [1536, 2816]);
  });

  it('generateVideos (Vertex: @google/genai 3 sends it there only), polled with getVideosOperation to done', async () => {
    const ai = vertex();
    let operation = await ai.models.generateVideos({ model: 'veo-3.1-generate-preview', prompt: 'A waterfall', config: { durationSeconds: 4 } });
    const deadline = Date.now() + 10000;
    while (!operation.done) {
      assert.ok(Date.now() < deadline, 'the operation never finished');
      await new Promise((resolve) => setTimeout(resolve, 50));
      operation = await ai.operations.getVideosOperation({ operation });
    }
    const video = operation.response.generatedVideos[0].video;
    assert.equal(video.mimeType, 'video/mp4');
    const bytes = b64(video.videoBytes);  // Vertex answers the video inline
    assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp');
  });

  it('interactions.create twice, chained with previous_interaction_id, and streamed', async () => {
    const ai = developer();
    const first = await ai.interactions.create({ model: 'gemini-2.5-flash', input: 'My name is Ada.' });
    assert.equal(first.status, 'completed');
    const second = await ai.interactions.create({ model: 'gemini-2.5-flash', input: 'What is my name?', previous_interaction_id: first.id });
    assert.equal(second.status, 'completed');
    assert.notEqual(second.id, first.id);
    const got = await ai.interactions.get(second.id);
    assert.equal(got.id, second.id);
    const stream = await ai.interactions.create({ model: 'gemini-2.5-flash', input: 'Hello', stream: true });
    const types = [];
    for await (const event of stream) types.push(event.event_type);
    assert.equal(types[0], 'interaction.created');
    assert.equal(types.at(-1), 'interaction.completed');
  });

  it('Vertex computeTokens agrees with countTokens', async () => {
    const ai = express();
    const contents = 'The quick brown fox jumps over the lazy dog';
    const computed = await ai.models.computeTokens({ model: 'gemini-2.5-flash', contents });
    const counted = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents });
    assert.equal(computed.tokensInfo[0].tokenIds.length, counted.totalTokens);
  });
});
