import { describe, expect, it } from 'vitest';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';

describe('loop schema', () => {
  it('accepts while, maxIterations and steps', () => {
    expect(stepIssues({ id: 'l', type: 'loop', while: '=iteration < 3', maxIterations: 3, steps: [] })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing while', { while: undefined }, 'steps[0].while', /expected string/],
    ['a while that is not an expression', { while: 'true' }, 'steps[0].while', /starting with "="/],
    ['maxIterations 0', { maxIterations: 0 }, 'steps[0].maxIterations', />=1/],
    ['maxIterations over 10,000', { maxIterations: 10_001 }, 'steps[0].maxIterations', /<=10000/],
    ['a while reading item', { while: '=item' }, 'steps[0].while', /'item' can only be read inside a map/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'l', type: 'loop', while: '=true', steps: [], ...change });
    expect(issues).toContainEqual({ stepId: 'l', path, message: expect.stringMatching(message) });
  });
});

describe('loop handler', () => {
  it('runs while `while` holds, with iteration, under poll[i]/ ids, and outputs the last iteration', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'poll',
        type: 'loop',
        while: '=iteration < 3',
        steps: [{ id: 'x', type: 'transform', value: '=iteration * 10' }],
      },
    ]);
    expect(await interpret(flow, null, host)).toBe(20);
    expect(eventTrail(host.events)).toEqual([
      'started:poll',
      'started:poll[0]/x',
      'completed:poll[0]/x',
      'started:poll[1]/x',
      'completed:poll[1]/x',
      'started:poll[2]/x',
      'completed:poll[2]/x',
      'completed:poll',
    ]);
    expect(host.events[1]).toMatchObject({ parentId: 'poll' });
  });

  it("checks `while` against the previous iteration's outputs (absent before the first)", async () => {
    const statuses = ['pending', 'pending', 'done', 'never'];
    const recorder = recordCalls(
      createExecutor({
        http: (_request, id) => ({ status: 200, headers: {}, body: statuses[Number(/\[(\d+)\]/.exec(id)![1])]! }),
      }),
    );
    const host = new MemoryHost({ execute: recorder.execute });
    const flow = testFlow([
      {
        id: 'poll',
        type: 'loop',
        while: "=steps.check?.output.body != 'done'",
        steps: [{ id: 'check', type: 'http', url: 'https://jobs.example/1?attempt={{ iteration }}' }],
      },
      { id: 'after', type: 'transform', value: '=steps.poll.output.body' },
    ]);
    expect(await interpret(flow, null, host)).toBe('done');
    expect(recorder.calls.map((c) => c.id)).toEqual(['poll[0]/check', 'poll[1]/check', 'poll[2]/check']);
    expect(recorder.calls.map((c) => (c.call.input as { url: string }).url)).toEqual([
      'https://jobs.example/1?attempt=0',
      'https://jobs.example/1?attempt=1',
      'https://jobs.example/1?attempt=2',
    ]);
  });

  it('stops at maxIterations even while `while` holds', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'l',
        type: 'loop',
        while: '=true',
        maxIterations: 4,
        steps: [{ id: 'x', type: 'transform', value: '=iteration' }],
      },
    ]);
    expect(await interpret(flow, null, host)).toBe(3);
    expect(eventTrail(host.events).filter((e) => e.startsWith('completed:l['))).toHaveLength(4);
  });

  it('stops at 100 iterations by default', async () => {
    const flow = testFlow([
      { id: 'l', type: 'loop', while: '=true', steps: [{ id: 'x', type: 'transform', value: '=iteration' }] },
    ]);
    expect(await interpret(flow, null, new MemoryHost())).toBe(99);
  });

  it('outputs null and runs nothing when `while` is false at the start', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      { id: 'l', type: 'loop', while: '=false', steps: [{ id: 'x', type: 'transform', value: 1 }] },
    ]);
    expect(await interpret(flow, null, host)).toBeNull();
    expect(eventTrail(host.events)).toEqual(['started:l', 'completed:l']);
  });

  it('gives nested loops their own iteration and ids', async () => {
    const flow = testFlow([
      {
        id: 'outer',
        type: 'loop',
        while: '=iteration < 2',
        steps: [
          { id: 'o', type: 'transform', value: '=iteration' },
          {
            id: 'inner',
            type: 'loop',
            while: '=iteration < 2',
            steps: [{ id: 'i', type: 'transform', value: '=[steps.o.output, iteration]' }],
          },
        ],
      },
    ]);
    const host = new MemoryHost();
    expect(await interpret(flow, null, host)).toEqual([1, 1]);
    const completed = host.events.flatMap((e) =>
      e.type === 'step.completed' && e.stepId.endsWith('/i') ? [[e.stepId, e.output] as [string, Json]] : [],
    );
    expect(completed).toEqual([
      ['outer[0]/inner[0]/i', [0, 0]],
      ['outer[0]/inner[1]/i', [0, 1]],
      ['outer[1]/inner[0]/i', [1, 0]],
      ['outer[1]/inner[1]/i', [1, 1]],
    ]);
  });
});
