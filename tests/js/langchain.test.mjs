// @langchain/google-genai (LangChain.js; wraps the legacy @google/generative-ai SDK). It has no countTokens call.
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI, GoogleGenerativeAIEmbeddings } from '@langchain/google-genai';
import { z } from 'zod';
import {
  BASE, EMBEDDING_MODEL, MISSING_MODEL, MODEL, PROMPTS, WEATHER_RESULT, assertChatHistory, assertPerson,
  assertUsesWeather, assertWeatherArgs, assertWeatherRoundTrip, journal, matrix, newKey,
} from './harness.mjs';

/** A chat model whose API key names a fresh namespace; maxRetries 0, else a failure retries for a minute. */
const connect = (model = MODEL) => {
  const key = newKey();
  return { key, llm: new ChatGoogleGenerativeAI({ model, apiKey: key, baseUrl: BASE, maxRetries: 0 }) };
};

const getWeather = tool(async () => JSON.stringify(WEATHER_RESULT), {
  name: 'get_weather',
  description: 'Current weather for a city',
  schema: z.object({ city: z.string() }),
});

matrix('@langchain/google-genai', {
  async text() {
    const { key, llm } = connect();
    const answer = await llm.invoke(PROMPTS.text);
    assert.match(answer.content, /^Hello/);
    assert.equal(answer.response_metadata.finishReason, 'STOP');
    assert.ok(answer.usage_metadata.input_tokens > 0);
    const [record] = await journal(key);
    assert.equal(record.path, `/v1beta/models/${MODEL}:generateContent`);
  },

  async stream() {
    const { llm } = connect();
    const texts = [];
    for await (const chunk of await llm.stream(PROMPTS.stream)) texts.push(chunk.content);
    assert.ok(texts.filter(Boolean).length > 1, `${texts.length} chunk(s)`);
    const unary = await llm.invoke(PROMPTS.stream);
    assert.equal(texts.join(''), unary.content);
  },

  async chat() {
    const { key, llm } = connect();
    const history = [new HumanMessage(PROMPTS.chat[0])];
    const first = await llm.invoke(history);
    history.push(first, new HumanMessage(PROMPTS.chat[1]));
    const second = await llm.invoke(history);
    assert.match(first.content, /^Hello/);
    assert.match(second.content, /1\..*\n.*2\..*\n.*3\./s);
    await assertChatHistory(key);
  },

  async function_call() {
    const { key, llm } = connect();
    const history = [new HumanMessage(PROMPTS.weather)];
    const first = await llm.bindTools([getWeather], { tool_choice: 'any' }).invoke(history);
    assert.ok(first instanceof AIMessage);
    const [call] = first.tool_calls;
    assert.equal(call.name, 'get_weather');
    assertWeatherArgs(call.args);
    const content = await getWeather.invoke(call.args);
    history.push(first, new ToolMessage({ content, tool_call_id: call.id, name: call.name }));
    const second = await llm.bindTools([getWeather]).invoke(history);
    assertUsesWeather(second.content);
    await assertWeatherRoundTrip(key, { result: JSON.stringify(WEATHER_RESULT) });
  },

  async structured() {
    const { key, llm } = connect();
    const person = await llm
      .withStructuredOutput(z.object({ name: z.string(), age: z.number().int() }))
      .invoke(PROMPTS.person);
    assertPerson(person);
    const [record] = await journal(key);
    assert.equal(record.body.generationConfig.responseMimeType, 'application/json');
    assert.equal(record.body.generationConfig.responseSchema.properties.age.type, 'integer');
  },

  async embeddings() {
    const embedder = new GoogleGenerativeAIEmbeddings({ model: EMBEDDING_MODEL, apiKey: newKey(), baseUrl: BASE });
    const one = await embedder.embedQuery(PROMPTS.embed[0]);
    assert.ok(one.length > 0 && one.every(Number.isFinite));
    const many = await embedder.embedDocuments(PROMPTS.embed);
    assert.equal(many.length, 2);
  },

  async bad_model() {
    const { llm } = connect(MISSING_MODEL);
    await assert.rejects(llm.invoke(PROMPTS.text), (error) => {
      assert.equal(error.constructor.name, 'GoogleGenerativeAIFetchError', `${error}`);
      assert.equal(error.status, 404);
      assert.match(error.message, /is not found/);
      return true;
    });
  },
});
