import { describe, expect, it } from 'vitest';
import { HELPERS as EXPR_HELPERS } from '../expr/helpers.ts';
import { interpret } from '../interpreter/interpret.ts';
import { testFlow } from '../test-support/flows.ts';
import { MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';
import { codeSourceFromFunctionText, codeSourceOf, indentCodeSource } from './code-source.ts';
import { defineFlow, eq, helpers, runCodeFirst, template } from './define-flow.ts';

function setup() {
  const recorder = recordCalls(
    createExecutor({
      tools: { double: (args) => (args as { n: number }).n * 2 },
      code: (input) => ({ source: input.source, seen: Object.keys(input.steps as object).sort() }),
    }),
  );
  return { host: new MemoryHost({ execute: recorder.execute }), calls: recorder.calls };
}
const hostTools = { double: { description: 'Doubles', parameters: { type: 'object' } } };

// Every container type, nested, with the scope rules that matter: a parallel branch sees only
// its own outputs while it runs, map iterations see `item`/`index`, the loop condition sees the
// previous iteration, and a branch arm's outputs stay visible after it.
const irFlow = testFlow(
  [
    { id: 'start', type: 'transform', value: { items: '=input.items', label: 'Items: {{ len(input.items) }}' } },
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        a: [{ id: 'twice', type: 'tool', tool: 'double', args: { n: '=input.n' } }],
        b: [
          // The test runner rewrites function text, so the IR holds whatever this function's body became.
          { id: 'look', type: 'code', source: codeSourceOf(lookSource), args: {} },
          { id: 'after', type: 'transform', value: '=steps.look.output.seen' },
        ],
      },
    },
    {
      id: 'each',
      type: 'map',
      items: '=steps.start.output.items',
      concurrency: 2,
      steps: [
        { id: 'sq', type: 'tool', tool: 'double', args: { n: '=item' } },
        { id: 'pair', type: 'transform', value: { index: '=index', doubled: '=steps.sq.output' } },
      ],
    },
    {
      id: 'poll',
      type: 'loop',
      while: '=(steps.tick?.output ?? 0) < 3',
      maxIterations: 5,
      steps: [{ id: 'tick', type: 'transform', value: '=iteration + 1' }],
    },
    {
      id: 'route',
      type: 'branch',
      cases: [
        { when: '=steps.poll.output == 99', steps: [{ id: 'never', type: 'transform', value: 1 }] },
        { when: '=steps.fan.output.a > 10', steps: [{ id: 'big', type: 'transform', value: 'big {{ input.n }}' }] },
      ],
      else: [{ id: 'small', type: 'transform', value: 'small' }],
    },
  ],
  {
    output: {
      fan: '=steps.fan.output',
      after: '=steps.after.output',
      each: '=steps.each.output',
      poll: '=steps.poll.output',
      route: '=steps.route.output',
      missing: '=steps.route.output.nothing',
    },
  },
  { hostTools: ['double'] },
);

// biome-ignore lint/correctness/noUnusedFunctionParameters: the sandbox passes all three.
function lookSource(args: unknown, input: unknown, steps: object) {
  return Object.keys(steps);
}

const codeFlow = defineFlow<{ items: number[]; n: number }>({ id: 'test-flow' }, async ({ input, step, steps }) => {
  await step.transform('start', { value: { items: input.items, label: template`Items: ${helpers.len(input.items)}` } });
  await step.parallel('fan', {
    branches: {
      a: async ({ step }) => step.tool('twice', { tool: 'double', args: { n: input.n } }),
      b: async ({ step, steps }) => {
        await step.code('look', { source: lookSource, args: {} });
        return step.transform('after', { value: steps.look.output.seen });
      },
    },
  });
  await step.map('each', {
    items: steps.start.output.items,
    concurrency: 2,
    steps: async ({ step, steps, item, index }) => {
      await step.tool('sq', { tool: 'double', args: { n: item } });
      return step.transform('pair', { value: { index, doubled: steps.sq.output } });
    },
  });
  await step.loop('poll', {
    while: ({ steps }) => (steps.tick?.output ?? 0) < 3,
    maxIterations: 5,
    steps: async ({ step, iteration }) => step.transform('tick', { value: iteration + 1 }),
  });
  await step.branch('route', {
    cases: [
      { when: () => eq(steps.poll.output, 99), steps: async ({ step }) => step.transform('never', { value: 1 }) },
      {
        when: () => steps.fan.output.a > 10,
        steps: async ({ step }) => step.transform('big', { value: template`big ${input.n}` }),
      },
    ],
    else: async ({ step }) => step.transform('small', { value: 'small' }),
  });
  return {
    fan: steps.fan.output,
    after: steps.after.output,
    each: steps.each.output,
    poll: steps.poll.output,
    route: steps.route.output,
    missing: steps.route.output.nothing,
  };
});

describe('code-first containers', () => {
  it('give the same step paths, calls, events and output as the IR interpreter', async () => {
    const input = { items: [1, 2, 3], n: 7 };
    const ir = setup();
    const code = setup();
    const irOutput = await interpret(irFlow, input, ir.host, { hostTools });
    const codeOutput = await runCodeFirst(codeFlow, input, code.host, { hostTools });

    expect(codeOutput).toEqual({
      fan: { a: 14, b: ['start'] },
      after: ['start'],
      each: [
        { index: 0, doubled: 2 },
        { index: 1, doubled: 4 },
        { index: 2, doubled: 6 },
      ],
      poll: 3,
      route: 'big 7',
      missing: null,
    });
    expect(codeOutput).toEqual(irOutput);
    expect(code.calls.map((call) => call.id).sort()).toEqual(
      ['fan.a/twice', 'fan.b/look', 'each[0]/sq', 'each[1]/sq', 'each[2]/sq'].sort(),
    );
    expect(code.calls).toEqual(ir.calls);
    expect(code.host.events).toEqual(ir.host.events);
  });

  it('fails a container step whose body throws, like a failing nested step', async () => {
    const code = setup();
    const flow = defineFlow(async ({ step }) =>
      step.parallel('fan', {
        branches: { a: async ({ step }) => step.fail('stop', { message: 'no' }), b: async () => 1 },
      }),
    );
    await expect(runCodeFirst(flow, null, code.host)).rejects.toMatchObject({ stepId: 'fan.a/stop' });
    expect(code.host.events.map((event) => `${event.type}:${'stepId' in event ? event.stepId : ''}`)).toEqual([
      'step.started:fan',
      'step.started:fan.a/stop',
      'step.failed:fan.a/stop',
      'step.failed:fan',
    ]);
  });
});

describe('helpers', () => {
  it('are every expression helper, checked as in expressions', () => {
    expect(Object.keys(helpers).sort()).toEqual([...EXPR_HELPERS.keys()].sort());
    expect(helpers.len([1, 2])).toBe(2);
    expect(() => helpers.len()).toThrow('len() takes len(stringOrArrayOrObject), got 0 arguments');
  });
});

describe('code step sources', () => {
  it('run the function body as written, whatever the indentation the exporter added', () => {
    const source = 'const x = `a\n  b`;\n\n  return x; // kept\n';
    const text = `function f(args, input, steps) {${indentCodeSource(source)}}`;
    expect(codeSourceFromFunctionText(text)).toBe(source);
    expect(codeSourceOf(lookSource)).toMatch(/^\s*return Object.keys\(steps\);?$/);
    expect(codeSourceFromFunctionText('(args) => args.n * 2')).toBe('return args.n * 2;');
    expect(codeSourceFromFunctionText('async (args) => {\n  return 1;\n}')).toBe('return 1;');
  });
});
