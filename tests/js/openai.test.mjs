// The `openai` npm package against Gemini's OpenAI-compatible surface (/v1beta/openai/): the matrix calls it has
// (no countTokens on this surface). The journal keeps each chat completion as the native request it became.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import {
  BASE, EMBEDDING_MODEL, MISSING_MODEL, MODEL, PROMPTS, WEATHER_RESULT, assertChatHistory, assertPerson,
  assertUsesWeather, assertWeatherArgs, journal, matrix, newKey,
} from './harness.mjs';

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const PERSON = {
  type: 'json_schema',
  json_schema: {
    name: 'person',
    strict: true,
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name', 'age'],
      additionalProperties: false,
    },
  },
};

const connect = () => {
  const key = newKey();
  return { key, client: new OpenAI({ apiKey: key, baseURL: `${BASE}/v1beta/openai/`, maxRetries: 0 }) };
};
const user = (content) => ({ role: 'user', content });

matrix('openai (OpenAI-compatible)', {
  async text() {
    const { key, client } = connect();
    const response = await client.chat.completions.create({ model: MODEL, messages: [user(PROMPTS.text)] });
    assert.equal(response.object, 'chat.completion');
    assert.match(response.choices[0].message.content, /^Hello/);
    assert.equal(response.choices[0].finish_reason, 'stop');
    assert.ok(response.usage.prompt_tokens > 0);
    const [record] = await journal(key);
    assert.equal(record.path, '/v1beta/openai/chat/completions');
    assert.equal(record.body.contents[0].parts[0].text, PROMPTS.text);
  },

  async stream() {
    const { client } = connect();
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [user(PROMPTS.stream)],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.ok(chunks.length > 1, `${chunks.length} chunk(s)`);
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
    assert.ok(chunks.at(-1).usage.completion_tokens > 0);
    const unary = await client.chat.completions.create({ model: MODEL, messages: [user(PROMPTS.stream)] });
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), unary.choices[0].message.content);
  },

  async chat() {
    const { key, client } = connect();
    const messages = [user(PROMPTS.chat[0])];
    const first = await client.chat.completions.create({ model: MODEL, messages });
    messages.push(first.choices[0].message, user(PROMPTS.chat[1]));
    const second = await client.chat.completions.create({ model: MODEL, messages });
    assert.match(first.choices[0].message.content, /^Hello/);
    assert.match(second.choices[0].message.content, /1\..*\n.*2\..*\n.*3\./s);
    await assertChatHistory(key);
  },

  async function_call() {
    const { key, client } = connect();
    const messages = [user(PROMPTS.weather)];
    const first = await client.chat.completions.create({
      model: MODEL, messages, tools: [WEATHER], tool_choice: 'required',
    });
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    const [call] = first.choices[0].message.tool_calls;
    assert.equal(call.function.name, 'get_weather');
    assertWeatherArgs(JSON.parse(call.function.arguments));
    messages.push(first.choices[0].message, {
      role: 'tool', tool_call_id: call.id, content: JSON.stringify(WEATHER_RESULT),
    });
    const second = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    assertUsesWeather(second.choices[0].message.content);
    // The round trip as the emulator saw it: the call was forced, and the second request carried the call back
    // (matched to the tool result by its id) as native contents.
    const [sent, back] = await journal(key);
    assert.equal(sent.body.toolConfig.functionCallingConfig.mode, 'ANY');
    const echoed = back.body.contents.at(-2).parts.find((p) => p.functionCall).functionCall;
    assert.deepEqual([echoed.name, echoed.args], [call.function.name, JSON.parse(call.function.arguments)]);
    const [response] = back.body.contents.at(-1).parts.map((p) => p.functionResponse);
    assert.deepEqual([response.name, response.response], ['get_weather', WEATHER_RESULT]);
  },

  async structured() {
    const { key, client } = connect();
    const response = await client.chat.completions.create({
      model: MODEL, messages: [user(PROMPTS.person)], response_format: PERSON,
    });
    assertPerson(JSON.parse(response.choices[0].message.content));
    const [record] = await journal(key);
    assert.equal(record.body.generationConfig.responseMimeType, 'application/json');
    assert.equal(record.body.generationConfig.responseJsonSchema.properties.age.type, 'integer');
  },

  async embeddings() {
    const { client } = connect();
    const response = await client.embeddings.create({ model: EMBEDDING_MODEL, input: PROMPTS.embed });
    assert.equal(response.data.length, 2);
    for (const { embedding } of response.data) {
      assert.ok(embedding.length > 0 && embedding.every(Number.isFinite));
    }
  },

  async bad_model() {
    const { client } = connect();
    await assert.rejects(client.chat.completions.create({ model: MISSING_MODEL, messages: [user('hi')] }), (error) => {
      assert.ok(error instanceof OpenAI.NotFoundError, `${error}`);
      assert.equal(error.status, 404);
      return true;
    });
  },
});
