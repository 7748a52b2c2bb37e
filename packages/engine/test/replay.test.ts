/**
 * Replay, table-driven: a flow, its input and a journal go in; the next command(s) the
 * interpreter asks for come out — or, when the journal is complete, the run's output. The
 * host is a replay probe (MemoryHost with `stopAtNew`): it answers only from the journal and
 * parks at the first call the journal does not hold, recording it as the next command.
 */
import { describe, expect, it } from 'vitest';
import { isRunInterrupt } from '../src/errors.ts';
import type { InterpretOptions } from '../src/interpreter/context.ts';
import type { ApprovalOutcome, FixtureTurn, ToolSpec } from '../src/interpreter/host.ts';
import { interpret } from '../src/interpreter/interpret.ts';
import type { Flow } from '../src/ir/flow.ts';
import type { Json } from '../src/json.ts';
import { testFlow } from '../src/test-support/flows.ts';
import { type Command, eventTrail, type JournalRecord, MemoryHost } from '../src/test-support/memory-host.ts';
import { turnFromFixture } from '../src/test-support/model.ts';

const add: ToolSpec = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
};
const hostTools = { add: { description: add.description, parameters: add.parameters } };
const options: InterpretOptions = { hostTools };

/** A recorded model turn, as the journal holds it. */
const turn = (n: number, fixture: FixtureTurn): JournalRecord => ({
  output: turnFromFixture({ turn: n }, fixture) as unknown as Json,
});

const agent = testFlow(
  [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'What is {{ input.q }}?', tools: ['add'], maxSteps: 4 }],
  {},
  { hostTools: ['add'] },
);
const user = { role: 'user', content: 'What is 1+2?' };
const callAdd = { toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }] };
const assistantCallsAdd = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'call_1_0', toolName: 'add', input: { a: 1, b: 2 } }],
};
const toolResult = (output: Json) => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'call_1_0', toolName: 'add', output }],
});
const modelTurn = (n: number, messages: Json[]): Command => ({
  op: 'run',
  id: `agent/llm#${n}`,
  kind: 'model-turn',
  input: { model: 'mock:echo', messages, tools: [add], stepId: 'agent', turn: n },
});

const fan = testFlow(
  [
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        a: [
          { id: 'x', type: 'tool', tool: 'add', args: { a: 1, b: 1 } },
          { id: 'x2', type: 'tool', tool: 'add', args: { a: '=steps.x.output', b: 1 } },
        ],
        b: [{ id: 'y', type: 'tool', tool: 'add', args: { a: 2, b: 2 } }],
      },
    },
  ],
  {},
  { hostTools: ['add'] },
);
const addCommand = (id: string, a: Json, b: Json): Command => ({
  op: 'run',
  id,
  kind: 'tool',
  input: { tool: 'add', args: { a, b } },
});

const each = (concurrency: number) =>
  testFlow(
    [
      {
        id: 'each',
        type: 'map',
        items: '=input.items',
        concurrency,
        steps: [{ id: 'x', type: 'tool', tool: 'add', args: { a: '=item', b: '=index' } }],
      },
    ],
    {},
    { hostTools: ['add'] },
  );

const refund = testFlow(
  [
    { id: 'check', type: 'code', source: 'return args.amount > 100', args: { amount: '=input.amount' } },
    {
      id: 'route',
      type: 'branch',
      cases: [
        {
          when: '=steps.check.output',
          steps: [{ id: 'ok', type: 'approval', prompt: 'Refund {{ input.amount }} EUR?', timeout: '1h' }],
        },
      ],
    },
    { id: 'pay', type: 'http', method: 'POST', url: 'https://pay.example/refund', body: { amount: '=input.amount' } },
    { id: 'cool', type: 'sleep', duration: '1h' },
    { id: 'notify', type: 'spawn', flow: 'notify@2', input: { amount: '=input.amount' } },
  ],
  { output: { paid: '=steps.pay.output.status', notified: '=steps.notify.output' } },
);
const decided: ApprovalOutcome = {
  kind: 'decided',
  approved: true,
  by: 'ada',
  comment: null,
  at: '2026-01-01T00:00:00.000Z',
};

const poll = testFlow([
  {
    id: 'poll',
    type: 'loop',
    while: "=steps.check?.output.body != 'done'",
    maxIterations: 5,
    steps: [{ id: 'check', type: 'http', url: 'https://jobs.example/{{ iteration }}' }],
  },
]);
const httpGet = (id: string, url: string): Command => ({
  op: 'run',
  id,
  kind: 'http',
  input: { method: 'GET', url, headers: {} },
});

interface Row {
  name: string;
  flow: Flow;
  input: Json;
  journal: Record<string, JournalRecord>;
  approvals?: Record<string, ApprovalOutcome>;
  expected: { next: Command[] } | { output: Json } | { error: string };
}

const rows: Row[] = [
  {
    name: 'agent: empty journal → the first model turn',
    flow: agent,
    input: { q: '1+2' },
    journal: {},
    expected: { next: [modelTurn(1, [user])] },
  },
  {
    name: 'agent: first turn asked for a tool → the tool call',
    flow: agent,
    input: { q: '1+2' },
    journal: { 'agent/llm#1': turn(1, callAdd) },
    expected: { next: [addCommand('agent/tool#1.0', 1, 2)] },
  },
  {
    name: 'agent: llm#1 + tool#1.0 journaled → llm#2 with the tool result appended',
    flow: agent,
    input: { q: '1+2' },
    journal: { 'agent/llm#1': turn(1, callAdd), 'agent/tool#1.0': { output: 3 } },
    expected: { next: [modelTurn(2, [user, assistantCallsAdd, toolResult({ type: 'json', value: 3 })])] },
  },
  {
    name: 'agent: a failed journaled tool call replays as a failure fed to the model',
    flow: agent,
    input: { q: '1+2' },
    journal: { 'agent/llm#1': turn(1, callAdd), 'agent/tool#1.0': { error: 'adder is down' } },
    expected: {
      next: [modelTurn(2, [user, assistantCallsAdd, toolResult({ type: 'error-text', value: 'adder is down' })])],
    },
  },
  {
    name: 'agent: complete journal → the output, no new command',
    flow: agent,
    input: { q: '1+2' },
    journal: {
      'agent/llm#1': turn(1, callAdd),
      'agent/tool#1.0': { output: 3 },
      'agent/llm#2': turn(2, { text: '3' }),
    },
    expected: {
      output: {
        text: '3',
        messages: [
          user,
          assistantCallsAdd,
          toolResult({ type: 'json', value: 3 }),
          { role: 'assistant', content: [{ type: 'text', text: '3' }] },
        ],
        toolCalls: [{ id: 'call_1_0', tool: 'add', args: { a: 1, b: 2 }, result: 3 }],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        finishReason: 'stop',
      },
    },
  },
  {
    name: 'parallel: empty journal → the first call of every branch',
    flow: fan,
    input: null,
    journal: {},
    expected: { next: [addCommand('fan.a/x', 1, 1), addCommand('fan.b/y', 2, 2)] },
  },
  {
    name: 'parallel: branch b done → only branch a goes on',
    flow: fan,
    input: null,
    journal: { 'fan.b/y': { output: 4 } },
    expected: { next: [addCommand('fan.a/x', 1, 1)] },
  },
  {
    name: 'parallel: first step of branch a done → its next step reads it, branch b still asks',
    flow: fan,
    input: null,
    journal: { 'fan.a/x': { output: 2 } },
    expected: { next: [addCommand('fan.b/y', 2, 2), addCommand('fan.a/x2', 2, 1)] },
  },
  {
    name: 'parallel: all done → the output per branch',
    flow: fan,
    input: null,
    journal: { 'fan.a/x': { output: 2 }, 'fan.a/x2': { output: 3 }, 'fan.b/y': { output: 4 } },
    expected: { output: { a: 3, b: 4 } },
  },
  {
    name: 'map: first two items done (one at a time) → the third',
    flow: each(1),
    input: { items: [10, 20, 30] },
    journal: { 'each[0]/x': { output: 10 }, 'each[1]/x': { output: 21 } },
    expected: { next: [addCommand('each[2]/x', 30, 2)] },
  },
  {
    name: 'map: items 0 and 2 done (three at a time) → item 1',
    flow: each(3),
    input: { items: [10, 20, 30] },
    journal: { 'each[0]/x': { output: 10 }, 'each[2]/x': { output: 32 } },
    expected: { next: [addCommand('each[1]/x', 20, 1)] },
  },
  {
    name: 'map: all done → outputs in item order',
    flow: each(2),
    input: { items: [10, 20] },
    journal: { 'each[1]/x': { output: 21 }, 'each[0]/x': { output: 10 } },
    expected: { output: [10, 21] },
  },
  {
    name: 'refund: empty journal → the code check',
    flow: refund,
    input: { amount: 500 },
    journal: {},
    expected: {
      next: [
        {
          op: 'run',
          id: 'check',
          kind: 'code',
          input: { source: 'return args.amount > 100', args: { amount: 500 }, input: { amount: 500 }, steps: {} },
        },
      ],
    },
  },
  {
    name: 'refund: check says approval needed → the approval command',
    flow: refund,
    input: { amount: 500 },
    journal: { check: { output: true } },
    expected: { next: [{ op: 'approval', id: 'route/ok', prompt: 'Refund 500 EUR?' }] },
  },
  {
    name: 'refund: small amount skips the approval → the payment',
    flow: refund,
    input: { amount: 5 },
    journal: { check: { output: false } },
    expected: {
      next: [
        {
          op: 'run',
          id: 'pay',
          kind: 'http',
          input: { method: 'POST', url: 'https://pay.example/refund', headers: {}, body: { amount: 5 } },
        },
      ],
    },
  },
  {
    name: 'refund: approved and paid → the durable sleep',
    flow: refund,
    input: { amount: 500 },
    journal: { check: { output: true }, pay: { output: { status: 200, headers: {}, body: null } } },
    approvals: { 'route/ok': decided },
    expected: { next: [{ op: 'sleep', id: 'cool', ms: 3_600_000 }] },
  },
  {
    name: 'refund: slept → the child run with its input',
    flow: refund,
    input: { amount: 500 },
    journal: {
      check: { output: true },
      pay: { output: { status: 200, headers: {}, body: null } },
      cool: { output: { until: '2026-01-01T01:00:00.000Z' } },
    },
    approvals: { 'route/ok': decided },
    expected: { next: [{ op: 'spawn', id: 'notify', flow: 'notify@2', input: { amount: 500 } }] },
  },
  {
    name: 'refund: complete → the flow output',
    flow: refund,
    input: { amount: 500 },
    journal: {
      check: { output: true },
      pay: { output: { status: 200, headers: {}, body: null } },
      cool: { output: { until: '2026-01-01T01:00:00.000Z' } },
      notify: { output: 'sent' },
    },
    approvals: { 'route/ok': decided },
    expected: { output: { paid: 200, notified: 'sent' } },
  },
  {
    name: 'refund: a failed journaled payment → the run fails again, nothing new is asked',
    flow: refund,
    input: { amount: 5 },
    journal: { check: { output: false }, pay: { error: 'card declined' } },
    expected: { error: 'card declined' },
  },
  {
    name: 'loop: first poll pending → the second poll',
    flow: poll,
    input: null,
    journal: { 'poll[0]/check': { output: { status: 200, headers: {}, body: 'pending' } } },
    expected: { next: [httpGet('poll[1]/check', 'https://jobs.example/1')] },
  },
  {
    name: 'loop: second poll done → the loop ends with it',
    flow: poll,
    input: null,
    journal: {
      'poll[0]/check': { output: { status: 200, headers: {}, body: 'pending' } },
      'poll[1]/check': { output: { status: 200, headers: {}, body: 'done' } },
    },
    expected: { output: { status: 200, headers: {}, body: 'done' } },
  },
];

describe('replay: journal in → next command out', () => {
  it.each(rows)('$name', async ({ flow, input, journal, approvals, expected }) => {
    const host = new MemoryHost({ journal, stopAtNew: true, ...(approvals ? { approvals } : {}) });
    let outcome: Row['expected'];
    try {
      outcome = { output: await interpret(flow, input, host, options) };
    } catch (error) {
      outcome = isRunInterrupt(error) ? { next: host.commands } : { error: (error as Error).message };
    }
    expect(outcome).toEqual(expected);
    if (!('next' in expected)) expect(host.commands).toEqual([]);
  });

  it('asks for the same next command however often it is replayed', async () => {
    const journal = { 'agent/llm#1': turn(1, callAdd), 'agent/tool#1.0': { output: 3 } };
    // Each replay must park (a RunInterrupt) at the one command the journal lacks; any other
    // outcome, a finished run or a failure, fails here instead of comparing two empty lists.
    const replay = async () => {
      const host = new MemoryHost({ journal, stopAtNew: true });
      const outcome = await interpret(agent, { q: '1+2' }, host, options).then(
        (output) => ({ output }),
        (error: unknown) => error,
      );
      expect(isRunInterrupt(outcome), String(outcome)).toBe(true);
      return host;
    };
    const first = await replay();
    expect(first.commands).toEqual([modelTurn(2, [user, assistantCallsAdd, toolResult({ type: 'json', value: 3 })])]);
    expect(eventTrail(first.events)).toContain('started:agent');
    for (const again of [await replay(), await replay()]) {
      expect(again.commands).toEqual(first.commands);
      expect(again.events).toEqual(first.events);
    }
  });
});
