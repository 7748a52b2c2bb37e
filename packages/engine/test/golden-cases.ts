/**
 * The flows behind the golden journals in `golden/`, each with the deterministic host it was
 * recorded with. Changing a case means re-recording: `UPDATE_GOLDEN=1 pnpm vitest run
 * --project engine test/golden.test.ts`, then review the diff of the journal files.
 */
import type { InterpretOptions } from '../src/interpreter/context.ts';
import type { Flow } from '../src/ir/flow.ts';
import type { Json } from '../src/json.ts';
import { testFlow } from '../src/test-support/flows.ts';
import type { MemoryHostOptions } from '../src/test-support/memory-host.ts';
import { createExecutor } from '../src/test-support/model.ts';

export interface GoldenCase {
  name: string;
  /** Builds the flow document (a fresh copy each time, so a test may change it). */
  flow(): Flow;
  input: Json;
  host: MemoryHostOptions;
  options: InterpretOptions;
}

const hostTools = {
  add: {
    description: 'Adds two numbers',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  divide: {
    description: 'Divides a by b',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
};

const executor = createExecutor({
  tools: {
    add: (args) => (args as { a: number }).a + (args as { b: number }).b,
    divide: (args) => {
      const { a, b } = args as { a: number; b: number };
      if (b === 0) throw new Error('division by zero');
      return a / b;
    },
  },
  code: (input) => {
    const args = input.args as Record<string, Json>;
    if (input.source.includes('wordCount')) return String(args.text).split(/\s+/).length;
    if (input.source.includes('args.amount')) return (args.amount as number) > 100;
    if (input.source.includes('toUpperCase')) return String(args.s).toUpperCase();
    throw new Error(`no fake for source: ${input.source}`);
  },
  http: (request) => {
    const attempt = Number(/attempt=(\d+)/.exec(request.url)?.[1] ?? 0);
    const body: Json = request.url.includes('jobs')
      ? { state: attempt >= 2 ? 'done' : 'pending' }
      : { ok: true, echo: request.body ?? null };
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body,
    };
  },
});

export const goldenCases: GoldenCase[] = [
  {
    name: 'agent-tools',
    flow: () =>
      testFlow(
        [
          {
            id: 'agent',
            type: 'llm',
            model: 'openai:gpt-4o-mini',
            system: 'You are a careful calculator.',
            prompt: 'Compute {{ input.question }}',
            tools: ['add', 'divide', 'shout'],
            maxSteps: 4,
          },
          {
            id: 'follow',
            type: 'llm',
            model: 'mock:echo',
            messages: '=steps.agent.output.messages',
            prompt: 'Now say it in one word.',
          },
        ],
        {
          tools: {
            shout: {
              description: 'Upper-cases a string',
              parameters: { type: 'object', properties: { s: { type: 'string' } } },
              source: 'return args.s.toUpperCase()',
            },
          },
          output: {
            answer: '=steps.agent.output.text',
            calls: '=len(steps.agent.output.toolCalls)',
            turns: '=len(steps.follow.output.messages)',
          },
        },
        { hostTools: Object.keys(hostTools) },
      ),
    input: { question: '(2 + 3) / 0, then shout it' },
    host: { execute: executor },
    options: {
      hostTools,
      fixtures: {
        agent: [
          {
            toolCalls: [
              { tool: 'add', args: { a: 2, b: 3 } },
              { tool: 'divide', args: { a: 5, b: 0 } },
            ],
            usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 },
          },
          { toolCalls: [{ tool: 'shout', args: { s: 'undefined' } }] },
          {
            text: 'Dividing by zero is undefined: UNDEFINED.',
            usage: { inputTokens: 90, outputTokens: 9, totalTokens: 99 },
          },
        ],
      },
    },
  },
  {
    name: 'fanout-map',
    flow: () =>
      testFlow([
        {
          id: 'fan',
          type: 'parallel',
          branches: {
            summary: [{ id: 'sum', type: 'llm', model: 'mock:echo', prompt: 'Summarize: {{ input.doc }}' }],
            stats: [{ id: 'count', type: 'code', source: 'return wordCount(args.text)', args: { text: '=input.doc' } }],
            remote: [
              {
                id: 'post',
                type: 'http',
                method: 'POST',
                url: 'https://api.example/index',
                body: { doc: '=input.doc' },
              },
            ],
          },
        },
        {
          id: 'each',
          type: 'map',
          items: '=input.tags',
          concurrency: 2,
          steps: [
            {
              id: 'kind',
              type: 'branch',
              cases: [
                { when: "=item.startsWith('#')", steps: [{ id: 'strip', type: 'transform', value: '=item.slice(1)' }] },
              ],
              else: [{ id: 'loud', type: 'code', source: 'return args.s.toUpperCase()', args: { s: '=item' } }],
            },
            { id: 'label', type: 'transform', value: '{{ index }}:{{ steps.kind.output }}' },
          ],
        },
        {
          id: 'report',
          type: 'transform',
          value: {
            summary: '=steps.fan.output.summary.text',
            words: '=steps.fan.output.stats',
            indexed: '=steps.post.output.body.ok',
            labels: '=steps.each.output',
          },
        },
      ]),
    input: { doc: 'Weft runs durable agent flows', tags: ['#urgent', 'billing', '#vip'] },
    host: { execute: executor },
    options: {},
  },
  {
    name: 'refund-approval',
    flow: () =>
      testFlow(
        [
          { id: 'check', type: 'code', source: 'return args.amount > 100', args: { amount: '=input.amount' } },
          {
            id: 'gate',
            type: 'branch',
            cases: [
              {
                when: '=steps.check.output',
                steps: [
                  {
                    id: 'ok',
                    type: 'approval',
                    prompt: 'Refund {{ input.amount }} EUR to {{ input.customer }}?',
                    timeout: '24h',
                    onTimeout: 'reject',
                  },
                ],
              },
            ],
          },
          {
            id: 'poll',
            type: 'loop',
            while: "=(steps.job?.output.body.state ?? 'new') != 'done'",
            maxIterations: 5,
            steps: [{ id: 'job', type: 'http', url: 'https://jobs.example/refund?attempt={{ iteration }}' }],
          },
          { id: 'cool', type: 'sleep', duration: '10m' },
          { id: 'notify', type: 'spawn', flow: 'notify-customer@2', input: { customer: '=input.customer' } },
        ],
        {
          output: {
            approved: '=steps.gate.output.approved',
            by: '=steps.gate.output.by',
            polls: '=steps.poll.output.body.state',
            until: '=steps.cool.output.until',
            notified: '=steps.notify.output',
          },
        },
      ),
    input: { amount: 250, customer: 'ada@example.com' },
    host: {
      execute: executor,
      approvals: {
        'gate/ok': { kind: 'decided', approved: true, by: 'grace', comment: 'ok', at: '2026-01-01T00:05:00.000Z' },
      },
      spawn: (ref, input) => ({ sent: true, flow: ref.id, to: (input as { customer: string }).customer }),
    },
    options: {},
  },
  {
    name: 'failing-run',
    flow: () =>
      testFlow(
        [
          { id: 'sum', type: 'tool', tool: 'add', args: { a: '=input.a', b: '=input.b' } },
          {
            id: 'guard',
            type: 'branch',
            cases: [
              {
                when: '=steps.sum.output > 10',
                steps: [{ id: 'stop', type: 'fail', message: 'sum {{ steps.sum.output }} is too big' }],
              },
            ],
          },
          { id: 'never', type: 'tool', tool: 'add', args: { a: 0, b: 0 } },
        ],
        {},
        { hostTools: ['add'] },
      ),
    input: { a: 7, b: 8 },
    host: { execute: executor },
    options: { hostTools },
  },
];
