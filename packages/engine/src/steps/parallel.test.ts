import { describe, expect, it } from 'vitest';
import { RunInterrupt, StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { type Deferred, deferred, drain, stepIssues, testFlow, track } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor } from '../test-support/model.ts';

const hostTools = { wait: { description: 'Waits for its gate', parameters: { type: 'object' } } };

/** A host whose `wait` tool resolves (or fails) only when the test opens its gate. */
function gatedHost() {
  const gates = new Map<string, Deferred<Json>>();
  const started: string[] = [];
  const gate = (id: string) => {
    let entry = gates.get(id);
    if (!entry) {
      entry = deferred<Json>();
      gates.set(id, entry);
    }
    return entry;
  };
  const host = new MemoryHost({
    execute: createExecutor({
      tools: {
        wait: (_args, id) => {
          started.push(id);
          return gate(id).promise;
        },
      },
    }),
  });
  return { host, gate, started };
}

const wait = (id: string) => ({ id, type: 'tool', tool: 'wait' });

describe('parallel schema', () => {
  it('accepts named branches', () => {
    expect(
      stepIssues({ id: 'p', type: 'parallel', branches: { a: [], b: [{ id: 'x', type: 'transform', value: 1 }] } }),
    ).toEqual([]);
  });

  it.each<[string, unknown, string, RegExp]>([
    [
      'a branch name that is not an identifier',
      { 'a-b': [] },
      'steps[0].branches["a-b"]',
      /branch names must be identifiers/,
    ],
    ['branches as a list', [[]], 'steps[0].branches', /expected record/],
    ['a branch that is not a list of steps', { a: { id: 'x' } }, 'steps[0].branches.a', /expected array/],
  ])('rejects %s', (_name, branches, path, message) => {
    const issues = stepIssues({ id: 'p', type: 'parallel', branches });
    expect(issues).toContainEqual({ stepId: 'p', path, message: expect.stringMatching(message) });
  });
});

describe('parallel handler', () => {
  it('outputs the last output of each branch under fan.<branch>/ ids, and later steps read every branch', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'fan',
        type: 'parallel',
        branches: {
          a: [
            { id: 'x', type: 'transform', value: 1 },
            { id: 'x2', type: 'transform', value: '=steps.x.output + 1' },
          ],
          b: [{ id: 'y', type: 'transform', value: 'b' }],
          empty: [],
        },
      },
      { id: 'join', type: 'transform', value: '=[steps.x2.output, steps.y.output]' },
    ]);
    const output = await interpret(flow, null, host, {});
    expect(output).toEqual([2, 'b']);
    expect(host.events.find((e) => e.type === 'step.completed' && e.stepId === 'fan')).toEqual({
      type: 'step.completed',
      stepId: 'fan',
      output: { a: 2, b: 'b', empty: null },
    });
    const trail = eventTrail(host.events);
    for (const id of ['fan.a/x', 'fan.a/x2', 'fan.b/y']) expect(trail).toContain(`completed:${id}`);
    expect(host.events.find((e) => e.type === 'step.started' && e.stepId === 'fan.b/y')).toMatchObject({
      parentId: 'fan',
    });
  });

  it('runs the branches concurrently', async () => {
    const { host, gate, started } = gatedHost();
    const flow = testFlow(
      [{ id: 'fan', type: 'parallel', branches: { a: [wait('x')], b: [wait('y')] } }],
      {},
      { hostTools: ['wait'] },
    );
    const running = interpret(flow, null, host, { hostTools });
    await drain();
    expect(started).toEqual(['fan.a/x', 'fan.b/y']);
    gate('fan.b/y').resolve('B');
    gate('fan.a/x').resolve('A');
    expect(await running).toEqual({ a: 'A', b: 'B' });
  });

  it('shows a code step only its own branch and what ran before, whichever branch is faster', async () => {
    // A code step receives every visible step output; if a sibling branch's outputs leaked in
    // depending on timing, a replay would hash different input and fail as nondeterministic.
    const seen: string[][] = [];
    const gates = new Map<string, Deferred<Json>>();
    const gate = (id: string) => {
      if (!gates.has(id)) gates.set(id, deferred<Json>());
      return gates.get(id)!;
    };
    const host = new MemoryHost({
      execute: createExecutor({
        tools: { wait: (_args, id) => gate(id).promise },
        code: (input) => {
          seen.push(Object.keys(input.steps).sort());
          return null;
        },
      }),
    });
    const flow = testFlow(
      [
        { id: 'first', type: 'transform', value: 1 },
        {
          id: 'fan',
          type: 'parallel',
          branches: {
            a: [wait('slow'), { id: 'c', type: 'code', source: 'return Object.keys(steps)' }],
            b: [wait('quick1'), wait('quick2')],
          },
        },
        { id: 'after', type: 'transform', value: '=[steps.slow.output, steps.quick2.output]' },
      ],
      {},
      { hostTools: ['wait'] },
    );
    const running = interpret(flow, null, host, { hostTools });
    await drain();
    gate('fan.b/quick1').resolve('q1');
    await drain();
    gate('fan.b/quick2').resolve('q2');
    await drain();
    gate('fan.a/slow').resolve('s');
    expect(await running).toEqual(['s', 'q2']);
    expect(seen).toEqual([['first', 'slow']]);
  });

  it('lets every branch settle before a failure ends the run', async () => {
    const { host, gate } = gatedHost();
    const flow = testFlow(
      [
        {
          id: 'fan',
          type: 'parallel',
          branches: { a: [{ id: 'stop', type: 'fail', message: 'a failed' }], b: [wait('slow')] },
        },
      ],
      {},
      { hostTools: ['wait'] },
    );
    const running = track(interpret(flow, null, host, { hostTools }));
    await drain();
    expect(running.settled).toBe(false);
    gate('fan.b/slow').resolve('done');
    await expect(running.promise).rejects.toMatchObject({ stepId: 'fan.a/stop', message: 'a failed' });
    expect(host.journal.get('fan.b/slow')).toEqual({ output: 'done' });
    // Branch events interleave; the parallel step fails only after both branches ended.
    const trail = eventTrail(host.events);
    expect([...trail].sort()).toEqual(
      [
        'started:fan',
        'started:fan.a/stop',
        'failed:fan.a/stop',
        'started:fan.b/slow',
        'completed:fan.b/slow',
        'failed:fan',
      ].sort(),
    );
    expect(trail.at(-1)).toBe('failed:fan');
  });

  it('reports a real failure over a branch that parked', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'fan',
        type: 'parallel',
        branches: {
          a: [{ id: 'ok', type: 'approval', prompt: 'Ship it?' }],
          b: [{ id: 'stop', type: 'fail', message: 'b failed' }],
        },
      },
    ]);
    const error = await interpret(flow, null, host).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'fan.b/stop', message: 'b failed' });
    expect(host.commands).toEqual([{ op: 'approval', id: 'fan.a/ok', prompt: 'Ship it?' }]);
  });

  it('parks when branches only park, asking for every approval at once', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'fan',
        type: 'parallel',
        branches: {
          a: [{ id: 'one', type: 'approval', prompt: 'One?' }],
          b: [{ id: 'two', type: 'approval', prompt: 'Two?' }],
        },
      },
    ]);
    await expect(interpret(flow, null, host)).rejects.toBeInstanceOf(RunInterrupt);
    expect(host.commands.map((c) => c.id)).toEqual(['fan.a/one', 'fan.b/two']);
    expect(eventTrail(host.events)).not.toContain('failed:fan');
  });

  it('reports the failure of the first branch in order, not the first to fail in time', async () => {
    const { host, gate } = gatedHost();
    const flow = testFlow(
      [
        {
          id: 'fan',
          type: 'parallel',
          branches: { a: [wait('late')], b: [{ id: 'early', type: 'fail', message: 'b' }] },
        },
      ],
      {},
      { hostTools: ['wait'] },
    );
    const running = interpret(flow, null, host, { hostTools });
    await drain();
    gate('fan.a/late').reject(new Error('a, later'));
    await expect(running).rejects.toMatchObject({ stepId: 'fan.a/late', message: 'a, later' });
  });
});
