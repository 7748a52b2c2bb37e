import { type ModelTurnInput, type ModelTurnOutput, NonRetryableError } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../test-support/fake-openai-server.ts';
import { createExecutorRegistry, listModelProviders, ModelCallError } from './index.ts';

const add = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};

function turn(overrides: Partial<ModelTurnInput>): ModelTurnInput {
  return {
    model: 'mock:echo',
    messages: [{ role: 'user', content: 'What is the weather in Lisbon today?' }],
    tools: [],
    stepId: 'agent',
    turn: 1,
    ...overrides,
  };
}

async function run(input: ModelTurnInput, env: Record<string, string> = {}, signal = new AbortController().signal) {
  const deltas: string[] = [];
  const registry = createExecutorRegistry({ env });
  const output = (await registry.execute(
    { kind: 'model-turn', input },
    { signal, runId: 'run-1', stepId: 'agent/llm#1', emitDelta: (text) => deltas.push(text) },
  )) as unknown as ModelTurnOutput;
  return { output, deltas };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the model turn to fail');
}

describe('mock:echo', () => {
  it('answers with the last user message, streamed, with usage counted in words', async () => {
    const { output, deltas } = await run(
      turn({
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: 'first answer' },
          { role: 'user', content: [{ type: 'text', text: 'What is the weather in Lisbon today?' }] },
        ],
      }),
    );
    expect(output).toEqual({
      text: 'What is the weather in Lisbon today?',
      toolCalls: [],
      responseMessages: [
        { role: 'assistant', content: [{ type: 'text', text: 'What is the weather in Lisbon today?' }] },
      ],
      usage: { inputTokens: 13, outputTokens: 7, totalTokens: 20 },
      finishReason: 'stop',
    });
    expect(deltas.join('')).toBe(output.text);
  });

  it('parses the echoed text as the object when the step has a schema', async () => {
    const schema = { type: 'object', properties: { priority: { type: 'string' } }, required: ['priority'] };
    const { output } = await run(turn({ schema, messages: [{ role: 'user', content: '{"priority":"high"}' }] }));
    expect(output.object).toEqual({ priority: 'high' });
  });

  it('fails retryably when the answer does not fit the schema', async () => {
    const schema = { type: 'object', properties: { priority: { type: 'string' } }, required: ['priority'] };
    const error = await failure(run(turn({ schema, messages: [{ role: 'user', content: 'not json at all' }] })));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toMatch(/^model mock:echo did not return an object matching the schema/);
  });
});

describe('fixtures', () => {
  it('replay a recorded tool-calling turn without any provider or key', async () => {
    const { output, deltas } = await run(
      turn({
        model: 'openai:gpt-4o-mini',
        turn: 2,
        fixture: {
          text: 'Adding.',
          toolCalls: [
            { tool: 'add', args: { a: 1, b: 2 } },
            { tool: 'add', args: { a: 3, b: 4 } },
          ],
        },
      }),
    );
    expect(output).toEqual({
      text: 'Adding.',
      toolCalls: [
        { id: 'call_2_0', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'call_2_1', tool: 'add', args: { a: 3, b: 4 } },
      ],
      responseMessages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding.' },
            { type: 'tool-call', toolCallId: 'call_2_0', toolName: 'add', input: { a: 1, b: 2 } },
            { type: 'tool-call', toolCallId: 'call_2_1', toolName: 'add', input: { a: 3, b: 4 } },
          ],
        },
      ],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: 'tool-calls',
    });
    expect(deltas).toEqual(['Adding.']);
  });

  it('replay a final answer with its recorded usage', async () => {
    const usage = { inputTokens: 30, outputTokens: 2, totalTokens: 32 };
    const { output } = await run(turn({ model: 'anthropic:claude-x', fixture: { text: '3', usage } }));
    expect(output).toMatchObject({ text: '3', toolCalls: [], usage, finishReason: 'stop' });
  });

  it('replay structured output, with the text a live turn would carry', async () => {
    const schema = { type: 'object', properties: { priority: { type: 'string' } } };
    const { output } = await run(turn({ model: 'local:x', schema, fixture: { object: { priority: 'low' } } }));
    expect(output.object).toEqual({ priority: 'low' });
    expect(output.text).toBe('{"priority":"low"}');
  });

  it('stream a recorded answer word by word over streamMs', async () => {
    const started = performance.now();
    const { output, deltas } = await run(turn({ fixture: { text: 'One two  three four. ', streamMs: 80 } }));
    expect(deltas).toEqual(['One', ' two', '  three', ' four.', ' ']);
    expect(deltas.join('')).toBe(output.text);
    // Paced, not all at once (a lower bound only: a slow machine is later, never sooner).
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  });

  it('refuse a streamMs that is not a sane number of milliseconds, naming it', async () => {
    await expect(run(turn({ fixture: { text: 'x', streamMs: 1e9 } }))).rejects.toThrow(/streamMs must be/);
  });

  it('give an empty turn the SDK shape: no text, no message', async () => {
    const { output, deltas } = await run(turn({ fixture: {} }));
    expect(output).toMatchObject({ text: '', toolCalls: [], responseMessages: [], finishReason: 'stop' });
    expect(deltas).toEqual([]);
  });
});

describe('provider selection', () => {
  it.each([
    ['openai:gpt-4o-mini', {}, /needs OPENAI_API_KEY/],
    ['anthropic:claude-sonnet-4-5', {}, /needs ANTHROPIC_API_KEY/],
    ['local:llama3.2', {}, /needs WEFT_LOCAL_BASE_URL .*11434/],
    ['gemini:pro', {}, /unknown model provider "gemini"/],
    ['gpt-4o', {}, /must be "<provider>:<model>"/],
    ['mock:parrot', {}, /unknown mock model "mock:parrot"/],
  ])('%s fails clearly without calling anything', async (model, env, message) => {
    const error = await failure(run(turn({ model }), env));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(message);
  });

  it('lists which providers are configured, without revealing keys', () => {
    const providers = listModelProviders({
      OPENAI_API_KEY: 'sk-secret',
      WEFT_LOCAL_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(providers.map((p) => [p.id, p.configured])).toEqual([
      ['openai', true],
      ['anthropic', false],
      ['local', true],
      ['mock', true],
    ]);
    expect(JSON.stringify(providers)).not.toContain('sk-secret');
  });
});

describe('local: provider over real HTTP', () => {
  let server: FakeOpenAIServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
    env = { WEFT_LOCAL_BASE_URL: server.baseURL, WEFT_LOCAL_API_KEY: 'local-secret-key' };
  });
  afterAll(() => server.close());

  it('streams a chat completion as deltas and returns the turn', async () => {
    const { output, deltas } = await run(turn({ model: 'local:streamer', system: 'Be kind.' }), env);
    expect(output).toEqual({
      text: 'Hello from the local model.',
      toolCalls: [],
      responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello from the local model.' }] }],
      usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
      finishReason: 'stop',
    });
    expect(deltas.join('')).toBe('Hello from the local model.');
    const request = server.requests.at(-1);
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      authorization: 'Bearer local-secret-key',
    });
    expect(request?.body).toMatchObject({
      model: 'streamer',
      stream: true,
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'What is the weather in Lisbon today?' },
      ],
    });
  });

  it('returns a tool call without executing it', async () => {
    const { output } = await run(turn({ model: 'local:tooler', tools: [add] }), env);
    expect(output.toolCalls).toEqual([{ id: 'call_abc', tool: 'add', args: { a: 1, b: 2 } }]);
    expect(output.finishReason).toBe('tool-calls');
    expect(output.responseMessages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me add. ' },
          { type: 'tool-call', toolCallId: 'call_abc', toolName: 'add', input: { a: 1, b: 2 } },
        ],
      },
    ]);
    const sent = server.requests.at(-1)?.body.tools as { function: { name: string } }[];
    expect(sent.map((t) => t.function.name)).toEqual(['add']);
  });

  it('does not hand back a call to a tool the step does not offer; the SDK answers it with an error', async () => {
    const { output } = await run(turn({ model: 'local:wrong-tool', tools: [add] }), env);
    expect(output.toolCalls).toEqual([]);
    expect(output.responseMessages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });

  it('parses structured output with the schema', async () => {
    const schema = {
      type: 'object',
      properties: { priority: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
    };
    const { output } = await run(turn({ model: 'local:structured', schema }), env);
    expect(output.object).toEqual({ priority: 'high', tags: ['billing'] });
    expect(server.requests.at(-1)?.body.response_format).toMatchObject({ type: 'json_schema' });
  });

  it('coalesces a flood of tiny deltas into a few emits', async () => {
    const { output, deltas } = await run(turn({ model: 'local:fast' }), env);
    expect(output.text).toBe(Array.from({ length: 500 }, (_, i) => `t${i} `).join(''));
    expect(deltas.join('')).toBe(output.text);
    // Batched by time (delta-batcher.test.ts pins the window exactly): on a quiet machine the 500
    // tokens arrive in ~2 emits, on a loaded one in a few more — never anywhere near one each.
    expect(deltas.length).toBeLessThanOrEqual(50);
  });

  it('fails an HTTP 500 once, retryably, naming provider and model (the SDK does not retry)', async () => {
    const before = server.requests.length;
    const error = await failure(run(turn({ model: 'local:broken' }), env));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).not.toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/^model call to local:broken failed \(HTTP 500\): .*the model crashed/);
    expect(server.requests.length - before).toBe(1);
  });

  it('fails a rejected key without retrying and without echoing the key', async () => {
    const error = await failure(run(turn({ model: 'local:bad-key' }), env));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.message).not.toContain('local-secret-key');
    expect(error.message).toContain('[redacted]');
  });

  it('stops a hanging call when the signal times out', async () => {
    const started = Date.now();
    const error = await failure(run(turn({ model: 'local:sleeper' }), env, AbortSignal.timeout(200)));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('model call to local:sleeper timed out');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
