import { describe, expect, it } from 'vitest';
import { NonRetryableError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { testFlow } from '../test-support/flows.ts';
import { MemoryHost, type MemoryHostOptions } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';
import { defineFlow, isCodeFirstFlow, type LlmOutput, runCodeFirst } from './define-flow.ts';

const hostTools = { add: { description: 'Adds', parameters: { type: 'object' } } };
const at = '2026-01-01T00:00:00.000Z';

function setup() {
  const recorder = recordCalls(
    createExecutor({
      tools: { add: (args) => (args as { a: number }).a + (args as { b: number }).b },
      code: (input) => (input.args as { n: number }).n * 2,
      http: (request) => ({ status: 200, headers: {}, body: { url: request.url } }),
    }),
  );
  const options: MemoryHostOptions = {
    execute: recorder.execute,
    approvals: { ok: { kind: 'decided', approved: true, by: 'ada', comment: null, at } },
    spawn: (ref, input) => ({ child: ref.id, got: input }),
  };
  return { host: new MemoryHost(options), calls: recorder.calls };
}

const irFlow = testFlow(
  [
    { id: 'draft', type: 'llm', model: 'mock:echo', system: 'Be kind', prompt: 'Reply to: {{ input.ticket }}' },
    { id: 'sum', type: 'tool', tool: 'add', args: { a: '=input.n', b: 2 } },
    { id: 'twice', type: 'code', source: 'return args.n * 2', args: { n: '=steps.sum.output' } },
    {
      id: 'fetch',
      type: 'http',
      method: 'POST',
      url: 'https://api.example/{{ input.n }}',
      body: { text: '=steps.draft.output.text' },
    },
    { id: 'ok', type: 'approval', prompt: 'Send {{ steps.draft.output.text }}?', timeout: '1h' },
    { id: 'nap', type: 'sleep', duration: '5s' },
    { id: 'child', type: 'spawn', flow: 'notify@2', input: { text: '=steps.draft.output.text' } },
  ],
  {
    output: {
      text: '=steps.draft.output.text',
      twice: '=steps.twice.output',
      status: '=steps.fetch.output.status',
      approved: '=steps.ok.output.approved',
      until: '=steps.nap.output.until',
      child: '=steps.child.output',
    },
  },
  { hostTools: ['add'] },
);

const codeFlow = defineFlow<{ ticket: string; n: number }>(
  { id: 'triage', name: 'Triage' },
  async ({ input, step }) => {
    const draft = await step.llm('draft', {
      model: 'mock:echo',
      system: 'Be kind',
      prompt: `Reply to: ${input.ticket}`,
    });
    const sum = await step.tool('sum', 'add', { a: input.n, b: 2 });
    const twice = await step.code('twice', 'return args.n * 2', { n: sum });
    const fetched = await step.http('fetch', {
      method: 'POST',
      url: `https://api.example/${input.n}`,
      body: { text: draft.text },
    });
    const ok = await step.approval('ok', { prompt: `Send ${draft.text}?`, timeout: '1h' });
    const nap = await step.sleep('nap', '5s');
    const child = await step.spawn('child', 'notify@2', { text: draft.text });
    return { text: draft.text, twice, status: fetched.status, approved: ok.approved, until: nap.until, child };
  },
);

describe('code-first flows', () => {
  it('produce the same calls, step ids, events and output as the equivalent IR flow', async () => {
    const input = { ticket: 'printer on fire', n: 40 };
    const ir = setup();
    const code = setup();
    const irOutput = await interpret(irFlow, input, ir.host, { hostTools });
    const codeOutput = await runCodeFirst(codeFlow, input, code.host, { hostTools });

    expect(codeOutput).toEqual(irOutput);
    expect(codeOutput).toEqual({
      text: 'Reply to: printer on fire',
      twice: 84,
      status: 200,
      approved: true,
      until: '2026-01-01T00:00:05.000Z',
      child: { child: 'notify', got: { text: 'Reply to: printer on fire' } },
    });
    expect(code.calls).toEqual(ir.calls);
    expect(code.calls.map((call) => call.id)).toEqual(['draft/llm#1', 'sum', 'twice', 'fetch']);
    expect(code.host.events).toEqual(ir.host.events);
  });

  it('rejects a step id used twice in one run', async () => {
    const { host, calls } = setup();
    const flow = defineFlow(async ({ step }) => {
      await step.tool('sum', 'add', { a: 1, b: 1 });
      return step.tool('sum', 'add', { a: 2, b: 2 });
    });
    const error = await runCodeFirst(flow, null, host, { hostTools }).catch((e) => e);
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe("step id 'sum' is used twice in this run");
    expect(calls).toHaveLength(1);
  });

  it('treats values as literals: a string starting with "=" or holding {{ }} is not evaluated', async () => {
    const { host, calls } = setup();
    const flow = defineFlow<{ secret: string }, LlmOutput>(async ({ step }) =>
      step.llm('ask', { model: 'mock:echo', prompt: '=input.secret', system: 'Hi {{ input.secret }}' }),
    );
    const output = await runCodeFirst(flow, { secret: 's3cret' }, host);
    const turn = calls[0]!.call.input as { messages: Json[]; system: string };
    expect(turn.messages).toEqual([{ role: 'user', content: '=input.secret' }]);
    expect(turn.system).toBe('Hi {{ input.secret }}');
    expect(output.text).toBe('=input.secret');
  });

  it("renders its http tools' templates against the tool's args", async () => {
    // Tool definitions are IR: their templates read `args`, which only exist at call time.
    const { host, calls } = setup();
    const flow = defineFlow(
      {
        id: 'weather',
        tools: {
          forecast: {
            description: 'Forecast',
            parameters: { type: 'object' },
            http: { url: 'https://weather.example/{{ args.city }}', headers: { 'x-city': '{{ args.city }}' } },
          },
        },
      },
      async ({ step }) => step.tool('get', 'forecast', { city: 'Oslo' }),
    );
    expect(await runCodeFirst(flow, null, host)).toEqual({
      status: 200,
      headers: {},
      body: { url: 'https://weather.example/Oslo' },
    });
    expect(calls[0]!.call).toEqual({
      kind: 'http',
      input: { method: 'GET', url: 'https://weather.example/Oslo', headers: { 'x-city': 'Oslo' } },
    });
  });

  it('continues a conversation by passing the messages of an earlier llm step', async () => {
    const { host, calls } = setup();
    const flow = defineFlow(async ({ step }) => {
      const first = await step.llm('first', { model: 'mock:echo', prompt: 'one' });
      // Code-first passes the array itself where the IR has an expression.
      return step.llm('second', { model: 'mock:echo', messages: first.messages, prompt: 'two' });
    });
    const output = await runCodeFirst(flow, null, host);
    expect((calls[1]!.call.input as { messages: Json[] }).messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
      { role: 'user', content: 'two' },
    ]);
    expect(output.messages).toHaveLength(4);
  });

  it('fails the run from step.fail with the message as given', async () => {
    const { host } = setup();
    const flow = defineFlow(async ({ step }) => step.fail('stop', 'no {{ way }}'));
    await expect(runCodeFirst(flow, null, host)).rejects.toMatchObject({ stepId: 'stop', message: 'no {{ way }}' });
  });

  it('is recognised as a code-first flow, with a default id when only a function is given', () => {
    const bare = defineFlow(async () => 1);
    expect(isCodeFirstFlow(bare)).toBe(true);
    expect(bare.meta).toEqual({ id: 'code-flow' });
    expect(isCodeFirstFlow(irFlow)).toBe(false);
    expect(() => defineFlow({ id: 'x' })).toThrow(TypeError);
  });
});
