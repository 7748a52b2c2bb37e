/**
 * Whole runs on models that are not built in, through the durable in-process runner: an IR flow on
 * a provider package added only by WEFT_MODEL_PROVIDERS, and a code-first flow on a LanguageModel
 * its application registered.
 */
import { defineFlow, type LlmOutput, runCodeFirst, template } from '@weft/engine';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../test-support/fake-openai-server.ts';
import { textStream } from '../../test-support/text-stream.ts';
import { InProcessRunner } from '../inprocess/runner.ts';
import { createRunner, flowOf, sqliteFileBackend } from '../inprocess/test-support.ts';
import type { RunStore } from '../store/types.ts';
import { createExecutorRegistry } from './index.ts';

const KEY = 'gsk-flow-secret-0815';
const backend = sqliteFileBackend();
let store: RunStore;
let server: FakeOpenAIServer;
const runners: InProcessRunner[] = [];

beforeAll(async () => {
  await backend.setup();
  store = await backend.open();
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  for (const runner of runners) await runner.close();
  await server.close();
  await backend.teardown();
});

describe('a flow on a provider added only by configuration', () => {
  // Nothing in code names Groq: the package, its options and its key variable are all env.
  const env = () => ({
    WEFT_MODEL_PROVIDERS: JSON.stringify({
      groq: { package: '@ai-sdk/groq', options: { baseURL: server.baseURL }, apiKeyEnv: 'GROQ_API_KEY' },
    }),
    GROQ_API_KEY: KEY,
  });
  const flow = (model: string) =>
    flowOf('ask-groq', [{ id: 'ask', type: 'llm', model, prompt: 'Greet {{ input.name }}' }], {
      output: '=steps.ask.output.text',
    });

  it('runs to completion with the provider answer, the key sent but never stored', async () => {
    const runner = createRunner(store, { executors: { env: env() } });
    runners.push(runner);
    const outcome = await runner.start(flow('groq:streamer'), { name: 'Ada' });
    expect(outcome).toMatchObject({ status: 'completed', output: 'Hello from the local model.', error: null });
    expect(server.requests.at(-1)).toMatchObject({
      authorization: `Bearer ${KEY}`,
      body: { model: 'streamer', messages: [{ role: 'user', content: 'Greet Ada' }] },
    });
    const events = await store.readEvents(outcome.runId);
    expect(events.map((event) => event.type)).toContain('step.completed');
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('fails the run naming the key variable when it is unset, without retrying', async () => {
    const { GROQ_API_KEY: _, ...withoutKey } = env();
    const runner = createRunner(store, { executors: { env: withoutKey } });
    runners.push(runner);
    const before = server.requests.length;
    const outcome = await runner.start(flow('groq:streamer'), { name: 'Ada' });
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.message).toContain('needs GROQ_API_KEY to be set');
    expect(server.requests.length).toBe(before);
  });
});

describe('a code-first flow on a LanguageModel its application registered', () => {
  it('runs through the runner and returns the registered model answer', async () => {
    const model = new MockLanguageModelV4({
      provider: 'acme',
      modelId: 'fast',
      doStream: async ({ prompt }) => {
        const asked = prompt
          .flatMap((m) => (m.role === 'user' ? m.content : []))
          .map((p) => (p.type === 'text' ? p.text : ''));
        return textStream(`acme says: ${asked.join(' ')}`, { input: 4, output: 3 });
      },
    });
    const greet = defineFlow<{ name: string }, { reply: string; tokens: number }>(
      { id: 'greet' },
      async ({ input, step }) => {
        const reply: LlmOutput = await step.llm('reply', { model: 'acme:fast', prompt: template`Hello ${input.name}` });
        return { reply: reply.text, tokens: reply.usage.totalTokens };
      },
    );
    const runner = new InProcessRunner({
      store,
      executors: createExecutorRegistry({ env: {}, models: { 'acme:fast': model } }),
      // The run row holds an IR document; the code-first flow is what executes (see RunnerOptions.interpret).
      interpret: (_flow, input, host, options) => runCodeFirst(greet, input as { name: string }, host, options),
    });
    runners.push(runner);
    const doc = flowOf('greet', [{ id: 'reply', type: 'llm', model: 'acme:fast', prompt: 'Hello {{ input.name }}' }]);
    const outcome = await runner.start(doc, { name: 'Grace' });
    expect(outcome).toMatchObject({ status: 'completed', output: { reply: 'acme says: Hello Grace', tokens: 7 } });
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
