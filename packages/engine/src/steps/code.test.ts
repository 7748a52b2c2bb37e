import { describe, expect, it } from 'vitest';
import { StepFailedError } from '../errors.ts';
import type { CodeCallInput } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';

describe('code schema', () => {
  it('accepts source with args', () => {
    expect(stepIssues({ id: 'c', type: 'code', source: 'return 1', args: { x: '=input' } })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['missing source', { source: undefined }, 'steps[0].source', /expected string/],
    ['empty source', { source: '' }, 'steps[0].source', />=1 characters/],
    ['source over 100,000 characters', { source: 'x'.repeat(100_001) }, 'steps[0].source', /<=100000 characters/],
    ['args that are a string', { args: '=input' }, 'steps[0].args', /expected record/],
    ['an expression error in args', { args: { x: '=input.' } }, 'steps[0].args.x', /expected a property name/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'c', type: 'code', source: 'return 1', ...change });
    expect(issues).toContainEqual({ stepId: 'c', path, message: expect.stringMatching(message) });
  });
});

describe('code handler', () => {
  it('hands the sandbox its source, evaluated args, the input and the earlier outputs it reads', async () => {
    const recorder = recordCalls(createExecutor({ code: (input) => (input.args as { n: number }).n * 10 }));
    const host = new MemoryHost({ execute: recorder.execute });
    const source = 'return args.n * 10 + steps.first.output.n';
    const flow = testFlow([
      { id: 'first', type: 'transform', value: { n: 3 } },
      { id: 'unread', type: 'transform', value: 'x'.repeat(1000) },
      { id: 'times', type: 'code', source, args: { n: '=steps.first.output.n' } },
    ]);
    const output = await interpret(flow, { user: 'ada' }, host);

    const input: CodeCallInput = {
      source,
      args: { n: 3 },
      input: { user: 'ada' },
      steps: { first: { output: { n: 3 } } },
    };
    expect(recorder.calls).toEqual([
      {
        id: 'times',
        call: { kind: 'code', input },
        policy: { retry: { maxAttempts: 1, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 } },
      },
    ]);
    expect(output).toBe(30);
    expect(host.events).toContainEqual({
      type: 'step.started',
      stepId: 'times',
      stepType: 'code',
      input: { args: { n: 3 } },
    });
  });

  it('sees the item of its map iteration only through args, and its siblings through steps', async () => {
    const recorder = recordCalls(createExecutor({ code: (input) => input.steps.prep?.output ?? null }));
    const host = new MemoryHost({ execute: recorder.execute });
    const flow = testFlow([
      {
        id: 'each',
        type: 'map',
        items: '=[1, 2]',
        steps: [
          { id: 'prep', type: 'transform', value: '=item * 2' },
          { id: 'run', type: 'code', source: 'return steps.prep.output', args: { item: '=item' } },
        ],
      },
    ]);
    expect(await interpret(flow, null, host)).toEqual([2, 4]);
    expect(recorder.calls.map((c) => [c.id, (c.call.input as CodeCallInput).args])).toEqual([
      ['each[0]/run', { item: 1 }],
      ['each[1]/run', { item: 2 }],
    ]);
  });

  it.each([
    ['member reads', 'return steps.a.output + steps?.b.output', ['a', 'b']],
    ['quoted keys', `return steps['a'].output + steps?.["b_2"].output`, ['a', 'b_2']],
    ['spaces and lines', 'return steps\n  .a\n  .output', ['a']],
    ['no mention', 'return args', []],
    ['other names that contain it', 'const mysteps = 1, steps_2 = 2, $steps = 3; return mysteps', []],
    ['a step that is not there', 'return steps.nope', []],
    ['the object iterated', 'return Object.keys(steps)', null],
    ['a computed key', 'const k = args.k; return steps[k].output', null],
    ['spread', 'return { ...steps }', null],
    ['destructured', 'const { a } = steps; return a', null],
    ['arguments', 'return arguments[2].a', null],
    ['eval', "return eval('ste' + 'ps').a", null],
    ['an escaped name', 'return st\\u0065ps.a', null],
    ['a member every object has', "return steps.hasOwnProperty('a')", null],
  ] as const)('hands over the steps a source reads: %s', async (_name, source, expected) => {
    const recorder = recordCalls(createExecutor({ code: () => 1 }));
    const flow = testFlow([
      { id: 'a', type: 'transform', value: 1 },
      { id: 'b_2', type: 'transform', value: 2 },
      { id: 'b', type: 'transform', value: 3 },
      { id: 'c', type: 'code', source },
    ]);
    await interpret(flow, null, new MemoryHost({ execute: recorder.execute }));
    const handed = Object.keys((recorder.calls[0]!.call.input as CodeCallInput).steps);
    expect(handed.sort()).toEqual([...(expected ?? ['a', 'b', 'b_2'])].sort());
  });

  it('passes its retry policy and timeout to the host', async () => {
    const recorder = recordCalls(createExecutor({ code: () => 1 }));
    const flow = testFlow([
      { id: 'c', type: 'code', source: 'return 1', retry: { maxAttempts: 4, initialDelay: '2s' }, timeout: '5s' },
    ]);
    await interpret(flow, null, new MemoryHost({ execute: recorder.execute }));
    expect(recorder.calls[0]!.policy).toEqual({
      retry: { maxAttempts: 4, backoff: 'exponential', initialDelayMs: 2000, maxDelayMs: 60_000 },
      timeoutMs: 5000,
    });
  });

  it('fails the run with the sandbox error', async () => {
    const host = new MemoryHost({
      execute: createExecutor({
        code: () => {
          throw new Error('ReferenceError: nope is not defined');
        },
      }),
    });
    const flow = testFlow([
      { id: 'c', type: 'code', source: 'return nope' },
      { id: 'after', type: 'transform', value: 1 },
    ]);
    const error = await interpret(flow, null, host).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'c', message: 'ReferenceError: nope is not defined' });
    expect(eventTrail(host.events)).toEqual(['started:c', 'failed:c']);
  });
});
